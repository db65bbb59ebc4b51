"""The message tree over HTTP: paging, versions, activate, edit, export, and their errors."""

from __future__ import annotations

import json

import httpx
import pytest

from agentchat.core.database import Database
from tests.chat.seed import add, add_logs, conversation, new_session, start_run


async def test_messages_before_pages_up_the_branch(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database)
    ids = conversation(database, chat, 5)
    r = await client.get(f"/api/chat/sessions/{chat}/messages", params={"limit": 4})
    assert r.status_code == 200
    assert [m["id"] for m in r.json()["messages"]] == ids[-4:]
    assert r.json()["hasMore"] is True
    params = {"before": ids[-4], "limit": 4}
    body = (await client.get(f"/api/chat/sessions/{chat}/messages", params=params)).json()
    assert [m["id"] for m in body["messages"]] == ids[2:6]
    assert body["hasMore"] is True
    params = {"before": ids[2], "limit": 4}
    body = (await client.get(f"/api/chat/sessions/{chat}/messages", params=params)).json()
    assert [m["id"] for m in body["messages"]] == ids[:2]
    assert body["hasMore"] is False


async def test_messages_errors(client: httpx.AsyncClient, database: Database) -> None:
    chat = new_session(database)
    other = new_session(database)
    foreign = add(database, other, None)
    url = f"/api/chat/sessions/{chat}/messages"
    assert (await client.get(url, params={"limit": 0})).status_code == 422
    assert (await client.get(url, params={"limit": 201})).status_code == 422
    r = await client.get(url, params={"before": foreign})
    assert r.status_code == 404
    assert r.json()["error"]["message"] == f"message {foreign} not found in chat session {chat}"
    assert (await client.get("/api/chat/sessions/999/messages")).status_code == 404


async def test_versions_lists_siblings_by_branch_order(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database)
    user, first = conversation(database, chat, 1)
    second = add(database, chat, user, "ASSISTANT", "line one\nline two", "FAILED")
    r = await client.get(f"/api/chat/messages/{first}/versions")
    assert r.status_code == 200
    versions = r.json()
    assert [v["messageId"] for v in versions] == [first, second]
    assert versions[1] == {
        "messageId": second,
        "branchOrder": 1,
        "isActive": True,
        "role": "ASSISTANT",
        "status": "FAILED",
        "createdAt": versions[1]["createdAt"],
        "preview": "line one line two",
    }
    assert versions[0]["isActive"] is False
    assert (await client.get("/api/chat/messages/999/versions")).status_code == 404


async def test_activate_switches_the_visible_version(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database)
    user, first = conversation(database, chat, 1)
    second = add(database, chat, user, "ASSISTANT", "second")
    r = await client.post(f"/api/chat/messages/{first}/activate")
    assert r.status_code == 200
    assert r.json() == {"activeMessageId": first}
    messages = (await client.get(f"/api/chat/sessions/{chat}")).json()["messages"]
    assert [m["id"] for m in messages] == [user, first]
    assert messages[1]["siblingIndex"] == 0
    versions = (await client.get(f"/api/chat/messages/{second}/versions")).json()
    assert [v["isActive"] for v in versions] == [True, False]
    assert (await client.post("/api/chat/messages/999/activate")).status_code == 404


async def test_activate_and_edit_are_refused_during_a_run(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database)
    user, answer = conversation(database, chat, 1)
    start_run(database, chat, answer)
    r = await client.post(f"/api/chat/messages/{user}/activate")
    assert r.status_code == 409
    r = await client.patch(f"/api/chat/messages/{user}", json={"content": "new"})
    assert r.status_code == 409


async def test_edit_makes_a_new_active_user_version(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database)
    ids = conversation(database, chat, 2)
    r = await client.patch(f"/api/chat/messages/{ids[2]}", json={"content": "better question"})
    assert r.status_code == 200
    new_id = r.json()["newMessageId"]
    messages = (await client.get(f"/api/chat/sessions/{chat}")).json()["messages"]
    assert [m["id"] for m in messages] == [*ids[:2], new_id]
    assert messages[-1]["content"] == "better question"
    assert messages[-1]["parentId"] == ids[1]
    assert (messages[-1]["siblingIndex"], messages[-1]["siblingCount"]) == (1, 2)


async def test_edit_errors(client: httpx.AsyncClient, database: Database) -> None:
    chat = new_session(database)
    user, answer = conversation(database, chat, 1)
    r = await client.patch(f"/api/chat/messages/{answer}", json={"content": "x"})
    assert r.status_code == 422
    assert "only USER" in r.json()["error"]["message"]
    for body in ({"content": ""}, {"content": "x" * 100_001}, {}):
        r = await client.patch(f"/api/chat/messages/{user}", json=body)
        assert r.status_code == 422, body
    r = await client.patch(f"/api/chat/messages/{user}", json={"content": "x" * 100_000})
    assert r.status_code == 200
    assert (await client.patch("/api/chat/messages/999", json={"content": "x"})).status_code == 404


async def test_export_downloads_markdown_and_json(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "Export me")
    user, answer = conversation(database, chat, 1)
    add_logs(database, answer, ("thinking", "let me see", None, None))
    r = await client.get(f"/api/chat/sessions/{chat}/export")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/markdown")
    assert r.headers["content-disposition"] == (
        "attachment; filename=\"Export me.md\"; filename*=UTF-8''Export%20me.md"
    )
    assert r.text.startswith("# Export me\n")
    assert "let me see" in r.text
    params = {"format": "json", "branch": "all"}
    r = await client.get(f"/api/chat/sessions/{chat}/export", params=params)
    assert r.headers["content-type"] == "application/json"
    assert r.headers["content-disposition"] == (
        'attachment; filename="Export me (all versions).json"; '
        "filename*=UTF-8''Export%20me%20%28all%20versions%29.json"
    )
    doc = json.loads(r.text)
    assert doc["messages"][0]["id"] == user
    assert doc["messages"][0]["children"][0]["logs"][0]["content"] == "let me see"


@pytest.mark.parametrize(
    ("title", "ascii_name", "utf8_name"),
    [
        (
            "周末 plans: Lyon/Paris?",
            "plans Lyon-Paris.md",
            "%E5%91%A8%E6%9C%AB%20plans%20Lyon-Paris.md",
        ),
        ('..\\"quoted"\x7f <b>', "quoted b.md", "quoted%20b.md"),
        ("周末", "chat-{id}.md", "%E5%91%A8%E6%9C%AB.md"),
        (None, "chat-{id}.md", "chat-{id}.md"),
    ],
)
async def test_an_export_file_is_named_by_the_chats_title(
    client: httpx.AsyncClient,
    database: Database,
    title: str | None,
    ascii_name: str,
    utf8_name: str,
) -> None:
    chat = new_session(database, title)
    r = await client.get(f"/api/chat/sessions/{chat}/export")
    expected = f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{utf8_name}"
    assert r.headers["content-disposition"] == expected.format(id=chat)


async def test_export_errors(client: httpx.AsyncClient, database: Database) -> None:
    chat = new_session(database)
    url = f"/api/chat/sessions/{chat}/export"
    assert (await client.get(url, params={"format": "pdf"})).status_code == 422
    assert (await client.get(url, params={"branch": "dead"})).status_code == 422
    assert (await client.get("/api/chat/sessions/999/export")).status_code == 404
