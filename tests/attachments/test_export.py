"""Exports keep a question's attachments: JSON lists them with their digests, Markdown links
them under files/, and the export with files is a zip that carries them byte for byte."""

from __future__ import annotations

import io
import json
import zipfile

import httpx

from agentchat.attachments import questions
from agentchat.core.database import Database
from tests.attachments.conftest import attached, new_chat
from tests.attachments.files import digest, png
from tests.chat.seed import add


async def _chat_with_files(client: httpx.AsyncClient, database: Database) -> tuple[int, list[dict]]:
    chat = await new_chat(client)
    files = [
        await attached(client, chat, "chart.png", png((20, 10), "red")),
        await attached(client, chat, "notes.txt", "ünïcode notes\n".encode()),
    ]
    question = add(database, chat, None, "USER", "Look at these")
    add(database, chat, question, "ASSISTANT", "Seen.", "SUCCESS")
    with database.session() as db:
        questions.link(db, chat, question, [f["id"] for f in files], 10)
    return chat, files


async def test_json_and_markdown_exports_name_the_attachments(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat, files = await _chat_with_files(client, database)

    as_json = (await client.get(f"/api/chat/sessions/{chat}/export?format=json")).json()
    markdown = (await client.get(f"/api/chat/sessions/{chat}/export?format=md")).text

    listed = as_json["messages"][0]["attachments"]
    assert [(a["name"], a["digest"]) for a in listed] == [(f["name"], f["digest"]) for f in files]
    assert f"(files/{files[0]['id']}-chart.png)" in markdown
    assert files[1]["digest"] in markdown


async def test_the_export_with_files_carries_them(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat, files = await _chat_with_files(client, database)

    response = await client.get(f"/api/chat/sessions/{chat}/export/files")

    assert response.status_code == 200
    assert response.headers["content-disposition"].startswith("attachment;")
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    names = set(archive.namelist())
    assert {"chat.md", "chat.json"} <= names
    for f in files:
        assert digest(archive.read(f"files/{f['id']}-{f['name']}")) == f["digest"]
    assert json.loads(archive.read("chat.json"))["messages"][0]["content"] == "Look at these"
    other = await new_chat(client)
    assert (await client.get(f"/api/chat/sessions/{other + 99}/export/files")).status_code == 404
