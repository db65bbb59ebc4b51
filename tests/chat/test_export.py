"""Export compared with the files under tests/chat/expected/ (UPDATE_EXPECTED=1 rewrites them)."""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from agentchat.chat import export
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession
from agentchat.core.database import Database
from tests.chat.seed import add, add_logs, new_session

EXPECTED = Path(__file__).parent / "expected"
T0 = datetime(2026, 1, 2, 3, 4, 5)
ARGS = {"q": "Lyon sights", "filters": {"lang": "fr"}}
RESULT_META = {"toolCallId": "c1", "durationMs": 1250}
CLARIFY = {
    "clarifyId": "k1",
    "question": "Museums or <b>parks</b>?",
    "choices": ["Museums", "Parks"],
}
TODOS = '[{"id": "1", "content": "Pick sights", "status": "completed"}, ' + (
    '{"id": "2", "content": "Book <dinner>", "status": "in_progress"}]'
)
LONG_RESULT = '{"error": "' + "x" * 3000 + '"}'


def _seed(db: Database) -> int:
    """A small tree: a regenerated answer, an edited question, logs with code in them."""
    chat = new_session(db, "Trip to Lyon")
    q1 = add(db, chat, None, "USER", "Plan a day in Lyon.\nKeep it short.")
    old = add(db, chat, q1, "ASSISTANT", "", "FAILED", error="model timed out")
    a1 = add(
        db,
        chat,
        q1,
        "ASSISTANT",
        'Morning: Fourvière <img src=x onerror="alert(1)">.\n\n'
        "![view](https://tracker.example/pixel.png) `<b>kept in code</b>`\n\n"
        "```html\n<script>kept()</script>\n```",
    )
    add_logs(
        db,
        a1,
        ("thinking", "The user", None, None),
        ("status", "pondering...", None, None),
        ("thinking", " wants a short plan.", None, None),
        ("tool_call", "search: Lyon sights", "web_search", {"toolCallId": "c1", "args": ARGS}),
        ("tool_result", "1. Fourvière\n2. ```Vieux Lyon```", "web_search", RESULT_META),
        ("thinking", "Now <i>the</i> afternoon.", None, None),
        ("clarify_request", "Which?", "clarify", CLARIFY),
        ("clarify_answered", "Museums", "clarify", {"clarifyId": "k1", "answer": "Museums"}),
        ("todo_update", TODOS, "todo", None),
        ("tool_call", '{"n": 1}', "fetch_page", {"toolCallId": "c2", "args": {"n": 1}}),
        ("tool_result", LONG_RESULT, "fetch_page", {"toolCallId": "c2", "isError": True}),
    )
    q2 = add(db, chat, a1, "USER", "And the evening?")
    add(db, chat, q2, "ASSISTANT", "Dinner in a bouchon.", usage_json='{"totalTokens": 42}')
    q2b = add(db, chat, a1, "USER", "Where to eat?")
    add(db, chat, q2b, "ASSISTANT", "Try a bouchon on Rue Mercière.")
    with db.session() as s:
        s.execute(
            update(ChatSession)
            .where(ChatSession.id == chat)
            .values(
                session_uuid="00000000-0000-4000-8000-000000000001",
                created_at=T0,
                last_message_at=T0 + timedelta(minutes=10),
            )
        )
        for message_id in (q1, old, a1, q2, q2b):
            s.execute(
                update(ChatMessage)
                .where(ChatMessage.session_id == chat, ChatMessage.id >= message_id)
                .values(created_at=T0 + timedelta(seconds=message_id))
            )
        s.execute(update(ChatMessageLog).values(created_at=T0 + timedelta(seconds=3)))
    return chat


@pytest.mark.parametrize(
    ("fmt", "branch"), [("md", "active"), ("md", "all"), ("json", "active"), ("json", "all")]
)
def test_export_matches_the_expected_file(database: Database, fmt: str, branch: str) -> None:
    # Ids start at 1: the `database` fixture empties the tables and SQLite's sequences.
    chat_id = _seed(database)
    with database.session() as s:
        chat = s.get(ChatSession, chat_id)
        assert chat is not None
        file = export.export_session(s, chat, fmt, branch, now=T0 + timedelta(hours=1))  # type: ignore[arg-type]
    expected = EXPECTED / f"trip-{branch}.{fmt}"
    if os.environ.get("UPDATE_EXPECTED"):
        expected.write_text(file.body, encoding="utf-8")
    assert file.body == expected.read_text(encoding="utf-8")
    if fmt == "json":
        json.loads(file.body)


def test_json_export_of_a_very_deep_tree_is_nested_without_recursion(database: Database) -> None:
    chat_id = new_session(database, "deep")
    parent = None
    for _ in range(1200):
        parent = add(database, chat_id, parent, "USER", "x")
    with database.session() as s:
        chat = s.get(ChatSession, chat_id)
        assert chat is not None
        body = export.export_session(s, chat, "json", "all").body
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    try:
        node = json.loads(body)["messages"][0]
    finally:
        sys.setrecursionlimit(limit)
    depth = 1
    while node["children"]:
        node = node["children"][0]
        depth += 1
    assert depth == 1200


def test_the_all_versions_export_labels_what_sits_under_an_inactive_version_inactive(
    database: Database,
) -> None:
    chat_id = _seed(database)
    with database.session() as s:
        chat = s.get(ChatSession, chat_id)
        assert chat is not None
        body = export.export_session(s, chat, "md", "all").body
    # #4 is the older version of the second question; its answer #5 is the only child there
    assert "## #4 User · reply to #3 · version 1/2 · inactive" in body
    assert "## #5 Assistant · reply to #4 · version 1/1 · inactive" in body
    assert "## #7 Assistant · reply to #6 · version 1/1 · active" in body
