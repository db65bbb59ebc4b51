"""A deleted chat's attachment bytes leave the SQLite file (and its WAL), as its words do."""

from __future__ import annotations

from pathlib import Path

import httpx

from agentchat.core.database import Database
from tests.attachments.conftest import attached, new_chat
from tests.reliability.helpers import wait_for

MARKER = b"okapi-marker-7c1f"


def _file_holds(database: Database, marker: bytes) -> bool:
    assert database.file is not None
    path = Path(database.file)
    files = [path, path.with_name(path.name + "-wal")]
    return any(marker in f.read_bytes() for f in files if f.exists())


async def test_a_deleted_chats_file_bytes_leave_the_sqlite_file(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = await new_chat(client)
    data = b"".join(MARKER + f"{i:08x}\n".encode() for i in range(30_000))
    await attached(client, chat, "secret.log", data)
    assert _file_holds(database, MARKER)

    assert (await client.delete(f"/api/chat/sessions/{chat}")).status_code == 204

    wait_for(
        lambda: _file_holds(database, MARKER),
        lambda held: not held,
        timeout=30,
        what="the file and its WAL without the deleted attachment's bytes",
    )
