"""Attachments to a bridge before a turn: it says which of the turn's files its workspace
lacks, and those are streamed to it from the store a chunk at a time (no shared disk, no file
held whole)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

import anyio
from sqlalchemy import select

from agentchat.attachments.store import store_for
from agentchat.attachments.tables import AttachmentBlob
from agentchat.core.database import Database
from agentchat.protocol.errors import NotFound
from agentchat.protocol.workspace_files import WorkspaceFile


class FileSink(Protocol):
    async def missing_files(self, session_id: str, files: list[WorkspaceFile]) -> list[str]: ...

    async def put_file(
        self, session_id: str, file: WorkspaceFile, chunks: AsyncIterator[bytes]
    ) -> None: ...


async def send_files(
    bridge: FileSink,
    database: Database,
    chat_id: int,
    bridge_session: str,
    files: list[WorkspaceFile],
) -> int:
    """Put the files the bridge's workspace of `bridge_session` lacks there; how many went."""
    if not files:
        return 0
    lacking = set(await bridge.missing_files(bridge_session, files))
    store = store_for(database)
    sent = 0
    for file in files:
        if file.path in lacking:
            blob_id = await anyio.to_thread.run_sync(_blob_id, database, chat_id, file.digest)
            await bridge.put_file(bridge_session, file, store.stream(blob_id, file.size))
            sent += 1
    return sent


def _blob_id(database: Database, chat_id: int, digest: str) -> int:
    with database.session() as db:
        stmt = select(AttachmentBlob.id).where(
            AttachmentBlob.session_id == chat_id, AttachmentBlob.digest == digest
        )
        blob_id = db.scalar(stmt)
    if blob_id is None:
        raise NotFound(f"the bytes {digest[:12]}… of chat {chat_id} are gone")
    return int(blob_id)
