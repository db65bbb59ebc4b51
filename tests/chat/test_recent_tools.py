"""The short-term memory view: recent tool calls and results across turns, newest first."""

from __future__ import annotations

import httpx

from agentchat.core.database import Database
from tests.chat.seed import add, add_logs, new_session


def _turn(db: Database, chat: int, parent: int | None, tag: str, *, logs: bool = True) -> int:
    question = add(db, chat, parent, "USER", f"question {tag}")
    answer = add(db, chat, question, "ASSISTANT", f"answer {tag}")
    if logs:
        add_logs(
            db,
            answer,
            ("thinking", "hmm", None, None),
            ("tool_call", "preview", "search", {"toolCallId": f"{tag}1", "args": {"q": tag}}),
            ("tool_call", "preview", "fetch", {"toolCallId": f"{tag}2", "args": {"url": tag}}),
            ("tool_result", f"found {tag}", "search", {"toolCallId": f"{tag}1", "durationMs": 7}),
            ("tool_result", "x" * 5000, "fetch", {"toolCallId": f"{tag}2", "isError": True}),
            ("clarify_request", "Which?", "clarify", {"question": "Which?", "choices": []}),
        )
    return answer


async def test_recent_tool_calls_span_turns_newest_first(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "tools")
    first = _turn(database, chat, None, "a")
    second = _turn(database, chat, first, "b", logs=False)
    _turn(database, chat, second, "c")
    r = await client.get(f"/api/chat/sessions/{chat}/tool-calls")
    assert r.status_code == 200
    calls = r.json()
    assert [(c["toolName"], c["args"]) for c in calls] == [
        ("fetch", {"url": "c"}),
        ("search", {"q": "c"}),
        ("fetch", {"url": "a"}),
        ("search", {"q": "a"}),
    ]
    search = calls[1]
    assert search["result"] == "found c" and search["durationMs"] == 7
    assert search["isError"] is False and search["toolCallId"] == "c1"
    fetch = calls[0]
    assert fetch["isError"] is True
    assert len(fetch["result"]) == 4000 and fetch["resultChars"] == 5000


async def test_other_versions_are_left_out_and_limit_is_kept(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = new_session(database, "tools")
    first = _turn(database, chat, None, "a")
    question = add(database, chat, first, "USER", "again")
    old = add(database, chat, question, "ASSISTANT", "old")
    add_logs(database, old, ("tool_call", "", "gone", {"toolCallId": "g", "args": {}}))
    add(database, chat, question, "ASSISTANT", "regenerated without tools")
    r = await client.get(f"/api/chat/sessions/{chat}/tool-calls", params={"limit": 1})
    assert [c["args"] for c in r.json()] == [{"url": "a"}]


async def test_unknown_session_and_bad_limit(client: httpx.AsyncClient, database: Database) -> None:
    assert (await client.get("/api/chat/sessions/999/tool-calls")).status_code == 404
    chat = new_session(database)
    r = await client.get(f"/api/chat/sessions/{chat}/tool-calls", params={"limit": 0})
    assert r.status_code == 422 and r.json()["error"]["code"]
    assert (await client.get(f"/api/chat/sessions/{chat}/tool-calls")).json() == []
