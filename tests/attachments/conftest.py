"""An API on each database, and helpers to attach files to a chat over HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import func, select

from agentchat.app import create_app
from agentchat.attachments.tables import AttachmentBlob, AttachmentChunk, ChatAttachment
from agentchat.core.database import Database
from agentchat.core.settings import Settings


@contextlib.asynccontextmanager
async def client_on(database: Database, settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """An API client of an app with these settings."""
    app = create_app(settings, database=database)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


async def new_chat(client: httpx.AsyncClient) -> int:
    response = await client.post("/api/chat/sessions", json={})
    assert response.status_code == 201, response.text
    return int(response.json()["sessionId"])


async def attach(
    client: httpx.AsyncClient, chat: int, name: str, data: bytes, **headers: str
) -> httpx.Response:
    return await client.post(
        f"/api/chat/sessions/{chat}/attachments",
        params={"name": name},
        content=data,
        headers={"content-type": "application/octet-stream", **headers},
    )


async def attached(client: httpx.AsyncClient, chat: int, name: str, data: bytes) -> dict[str, Any]:
    response = await attach(client, chat, name, data)
    assert response.status_code == 201, response.text
    return dict(response.json())


def stored_counts(database: Database) -> tuple[int, int, int]:
    """(attachments, blobs, chunks) in the database."""
    with database.session() as db:
        return tuple(  # type: ignore[return-value]
            int(db.scalar(select(func.count()).select_from(t)) or 0)
            for t in (ChatAttachment, AttachmentBlob, AttachmentChunk)
        )


def spooled_files(settings: Settings) -> list[Path]:
    folder = settings.upload_dir
    return sorted(folder.iterdir()) if folder.exists() else []
