"""Sessions over HTTP: create, list, detail, update, delete, and their errors."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
from sqlalchemy import func, select, update

from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession, WorkflowPause
from agentchat.core.database import Database
from agentchat.models.tables import AiModelConfig
from tests.chat.seed import add, add_logs, conversation, new_session, pause, start_run

SESSION_KEYS = {
    "id",
    "sessionUuid",
    "title",
    "modelId",
    "skillFolder",
    "toolsets",
    "approvals",
    "mcpOff",
    "compressionModelId",
    "hermesSession",
    "status",
    "createdAt",
    "updatedAt",
    "lastMessageAt",
    "lastSummarizedAt",
    "lastMessagePreview",
    "match",
    "hasActiveRun",
    "hasPendingClarify",
    "activeRunId",
}


def _set_activity(db: Database, session_id: int, at: datetime) -> None:
    with db.session() as s:
        s.execute(update(ChatSession).where(ChatSession.id == session_id).values(activity_at=at))


async def test_create_session_returns_ids_and_the_session(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat/sessions", json={"title": "Plans", "skillFolder": "notes"})
    assert r.status_code == 201
    body = r.json()
    assert body["sessionId"] == body["session"]["id"]
    assert body["sessionUuid"] == body["session"]["sessionUuid"]
    session = body["session"]
    assert set(session) == SESSION_KEYS
    assert session["title"] == "Plans"
    assert session["skillFolder"] == "notes"
    assert session["status"] == "ACTIVE"
    assert session["hermesSession"] == f"chat-{session['sessionUuid']}"
    assert session["createdAt"].endswith("Z")
    assert session["hasActiveRun"] is False
    assert session["lastMessagePreview"] is None


async def test_create_session_with_no_body_fields(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat/sessions", json={})
    assert r.status_code == 201
    assert r.json()["session"]["title"] is None


async def test_create_session_rejects_a_long_title(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat/sessions", json={"title": "x" * 256})
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "invalid"
    assert "title" in r.json()["error"]["message"]
    assert "255" in r.json()["error"]["message"]


async def test_create_session_rejects_an_unknown_model(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat/sessions", json={"modelId": 999})
    assert r.status_code == 422
    assert r.json()["error"]["message"] == "modelId: model 999 does not exist"


async def test_create_session_accepts_a_known_model(
    client: httpx.AsyncClient, database: Database
) -> None:
    with database.session() as s:
        model = AiModelConfig(name="m", base_url="http://x", model_name="m")
        s.add(model)
        s.flush()
        model_id = model.id
    r = await client.post("/api/chat/sessions", json={"modelId": model_id})
    assert r.status_code == 201
    assert r.json()["session"]["modelId"] == model_id


async def test_create_session_rejects_a_skill_path(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/chat/sessions", json={"skillFolder": "../etc"})
    assert r.status_code == 422
    assert "skillFolder" in r.json()["error"]["message"]


async def test_list_is_newest_activity_first_with_preview(
    client: httpx.AsyncClient, database: Database
) -> None:
    old = new_session(database, "old")
    fresh = new_session(database, "fresh")
    conversation(database, old, 1)
    base = datetime(2030, 1, 1)
    _set_activity(database, old, base)
    _set_activity(database, fresh, base - timedelta(days=1))
    r = await client.get("/api/chat/sessions")
    assert r.status_code == 200
    body = r.json()
    assert [s["id"] for s in body["items"]] == [old, fresh]
    assert body["items"][0]["lastMessagePreview"] == "answer 0"
    assert body["items"][1]["lastMessagePreview"] is None
    assert body["hasMore"] is False
    assert body["nextCursor"] is None


async def test_list_pages_with_a_cursor_without_gaps_or_repeats(
    client: httpx.AsyncClient, database: Database
) -> None:
    ids = [new_session(database, f"s{i}") for i in range(7)]
    same = datetime(2000, 1, 1)  # older than the rest: the last page
    for session_id in ids[:4]:
        _set_activity(database, session_id, same)  # ties are broken by id
    seen: list[int] = []
    cursor = None
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        body = (await client.get("/api/chat/sessions", params=params)).json()
        seen.extend(s["id"] for s in body["items"])
        if not body["hasMore"]:
            assert body["nextCursor"] is None
            break
        cursor = body["nextCursor"]
    assert sorted(seen) == sorted(ids)
    assert len(seen) == len(set(seen))
    assert seen[-4:] == sorted(ids[:4], reverse=True)


async def test_list_searches_titles_case_insensitively(
    client: httpx.AsyncClient, database: Database
) -> None:
    hit = new_session(database, "Paris Trip")
    new_session(database, "Groceries")
    new_session(database, "100% done")
    r = await client.get("/api/chat/sessions", params={"q": "paris"})
    assert [s["id"] for s in r.json()["items"]] == [hit]
    r = await client.get("/api/chat/sessions", params={"q": "%"})
    assert [s["title"] for s in r.json()["items"]] == ["100% done"]


async def test_archive_via_patch_and_filter_by_status(
    client: httpx.AsyncClient, database: Database
) -> None:
    kept = new_session(database, "kept")
    archived = new_session(database, "archived")
    r = await client.patch(f"/api/chat/sessions/{archived}", json={"status": "ARCHIVED"})
    assert r.status_code == 200
    assert r.json()["status"] == "ARCHIVED"

    async def ids(status: str) -> set[int]:
        r = await client.get("/api/chat/sessions", params={"status": status})
        return {s["id"] for s in r.json()["items"]}

    assert await ids("ACTIVE") == {kept}
    assert await ids("ARCHIVED") == {archived}
    assert await ids("ALL") == {kept, archived}


async def test_list_rejects_bad_limits_status_and_cursor(client: httpx.AsyncClient) -> None:
    for params in ({"limit": 0}, {"limit": 201}, {"status": "GONE"}, {"cursor": "garbage"}):
        r = await client.get("/api/chat/sessions", params=params)
        assert r.status_code == 422, params
        assert r.json()["error"]["code"] == "invalid"
    r = await client.get("/api/chat/sessions", params={"limit": 201})
    assert "limit" in r.json()["error"]["message"]
    r = await client.get("/api/chat/sessions", params={"cursor": "garbage"})
    assert "cursor" in r.json()["error"]["message"]


async def test_list_shows_active_run_and_pending_clarify(
    client: httpx.AsyncClient, database: Database
) -> None:
    running = new_session(database, "running")
    waiting = new_session(database, "waiting")
    for session_id, run_id in ((running, "run-a"), (waiting, "run-b")):
        start_run(database, session_id, add(database, session_id, None), run_id)
    pause(database, "run-b")
    pause(database, "run-a", status="ANSWERED")
    items = (await client.get("/api/chat/sessions")).json()["items"]
    by_id = {s["id"]: s for s in items}
    assert by_id[running]["hasActiveRun"] is True
    assert by_id[running]["activeRunId"] == "run-a"
    assert by_id[running]["hasPendingClarify"] is False
    assert by_id[waiting]["hasPendingClarify"] is True
    assert by_id[waiting]["activeRunId"] == "run-b"


async def test_detail_returns_the_active_branch_with_logs_and_versions(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "detail")
    user, first = conversation(database, chat, 1)
    second = add(
        database, chat, user, "ASSISTANT", "second answer", usage_json='{"totalTokens": 3}'
    )
    add_logs(
        database, second, ("thinking", "hmm", None, None), ("tool_call", "q", "search", {"a": 1})
    )
    r = await client.get(f"/api/chat/sessions/{chat}")
    assert r.status_code == 200
    body = r.json()
    assert body["session"]["id"] == chat
    assert body["hasMore"] is False
    assert [m["id"] for m in body["messages"]] == [user, second]
    reply = body["messages"][1]
    assert reply["siblingCount"] == 2
    assert reply["siblingIndex"] == 1
    assert reply["branchOrder"] == 1
    assert reply["isActive"] is True
    assert reply["usage"] == {"totalTokens": 3}
    assert [log["seq"] for log in reply["logs"]] == [0, 1]
    assert reply["logs"][1] == {
        "seq": 1,
        "kind": "tool_call",
        "content": "q",
        "toolName": "search",
        "meta": {"a": 1},
        "createdAt": reply["logs"][1]["createdAt"],
    }
    assert body["messages"][0]["logs"] == []
    assert body["messages"][0]["siblingCount"] == 1
    assert first not in [m["id"] for m in body["messages"]]


async def test_detail_returns_the_last_50_and_has_more(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "long")
    ids = conversation(database, chat, 30)
    body = (await client.get(f"/api/chat/sessions/{chat}")).json()
    assert [m["id"] for m in body["messages"]] == ids[-50:]
    assert body["hasMore"] is True


async def test_detail_of_an_unknown_session_is_404(client: httpx.AsyncClient) -> None:
    r = await client.get("/api/chat/sessions/12345")
    assert r.status_code == 404
    assert r.json() == {"error": {"code": "not_found", "message": "chat session 12345 not found"}}


async def test_patch_renames_clears_and_validates(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "before")
    r = await client.patch(f"/api/chat/sessions/{chat}", json={"title": "after"})
    assert r.json()["title"] == "after"
    r = await client.patch(f"/api/chat/sessions/{chat}", json={"skillFolder": "s"})
    assert r.json()["title"] == "after"  # fields not sent are kept
    r = await client.patch(f"/api/chat/sessions/{chat}", json={"title": None})
    assert r.json()["title"] is None
    for body in ({"title": "x" * 256}, {"status": "DELETED"}, {"status": None}, {"modelId": 42}):
        r = await client.patch(f"/api/chat/sessions/{chat}", json=body)
        assert r.status_code == 422, body
    r = await client.patch("/api/chat/sessions/999", json={"title": "x"})
    assert r.status_code == 404


async def test_delete_removes_the_session_and_everything_under_it(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "doomed")
    other = new_session(database, "other")
    ids = conversation(database, chat, 2)
    add_logs(database, ids[1], ("thinking", "x", None, None))
    conversation(database, other, 1)
    r = await client.delete(f"/api/chat/sessions/{chat}")
    assert r.status_code == 204
    assert (await client.get(f"/api/chat/sessions/{chat}")).status_code == 404
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(ChatMessage)) == 2
        assert s.scalar(select(func.count()).select_from(ChatMessageLog)) == 0
    assert (await client.delete(f"/api/chat/sessions/{chat}")).status_code == 404


async def test_delete_is_refused_while_a_run_is_active(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "busy")
    start_run(database, chat, add(database, chat, None))
    pause(database, "run-1")
    r = await client.delete(f"/api/chat/sessions/{chat}")
    assert r.status_code == 409
    error = r.json()["error"]
    assert error["code"] == "run_active" and error["runId"] == "run-1"  # the page can stop it
    assert str(chat) not in error["message"]  # no internal id in what a person reads
    with database.session() as s:
        s.execute(update(ChatMessage).values(status="STOPPED"))
    assert (await client.delete(f"/api/chat/sessions/{chat}")).status_code == 204
    with database.session() as s:
        assert s.scalar(select(func.count()).select_from(WorkflowPause)) == 0
