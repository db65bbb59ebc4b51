"""The message tree service on SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, func, insert, select, text

from agentchat.chat import sessions, tree
from agentchat.chat.presenters import message_publics, session_publics
from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.clock import utcnow
from agentchat.core.database import Database
from agentchat.protocol.errors import Invalid, NotFound
from tests.chat.seed import add, conversation, new_session, pause, start_run

BUMP_SEQUENCE = (
    "SELECT setval(pg_get_serial_sequence('chat_message', 'id'),"
    " (SELECT max(id) FROM chat_message))"
)


@contextmanager
def count_statements(db: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def listener(*args: Any) -> None:
        seen.append(args[2])

    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)


def _chain(db: Database, session_id: int, depth: int) -> list[int]:
    """A straight active branch `depth` messages deep, bulk inserted, with a dead twin per 10."""
    root = add(db, session_id, None, "USER", "m0")
    rows: list[dict[str, Any]] = []
    dead: list[dict[str, Any]] = []
    now = utcnow()
    for level in range(1, depth):
        role = "USER" if level % 2 == 0 else "ASSISTANT"
        status = "SENT" if role == "USER" else "SUCCESS"
        common = {"session_id": session_id, "role": role, "status": status, "created_at": now}
        rows.append(
            {
                **common,
                "id": root + level,
                "parent_id": root + level - 1,
                "depth": level,
                "content": f"m{level}",
                "is_active": True,
                "branch_order": 0,
            }
        )
        if level % 10 == 0:
            dead.append(
                {
                    **common,
                    "id": root + depth + level,
                    "parent_id": root + level - 1,
                    "depth": level,
                    "content": "dead",
                    "is_active": False,
                    "branch_order": 1,
                }
            )
    with db.session() as s:
        if rows:
            s.execute(insert(ChatMessage), rows)
    with db.session() as s:
        if dead:
            s.execute(insert(ChatMessage), dead)
        if db.dialect == "postgresql":  # explicit ids do not move the sequence
            s.execute(text(BUMP_SEQUENCE))
        tree.refresh_active_leaf(s, session_id)
    return [root + level for level in range(depth)]


def test_append_sets_depth_order_and_one_active_sibling(any_database: Database) -> None:
    chat = new_session(any_database)
    root = add(any_database, chat, None)
    a = add(any_database, chat, root, "ASSISTANT")
    b = add(any_database, chat, root, "ASSISTANT")
    with any_database.session() as s:
        rows = {m.id: m for m in s.scalars(select(ChatMessage))}
        assert (rows[root].depth, rows[a].depth, rows[b].depth) == (0, 1, 1)
        assert (rows[a].branch_order, rows[b].branch_order) == (0, 1)
        assert (rows[a].is_active, rows[b].is_active) == (False, True)
        assert s.get(ChatSession, chat).last_message_at is not None  # type: ignore[union-attr]


def test_second_root_deactivates_the_first(any_database: Database) -> None:
    chat = new_session(any_database)
    first = add(any_database, chat, None)
    second = add(any_database, chat, None)
    with any_database.session() as s:
        assert [m.id for m in tree.active_branch(s, chat)] == [second]
        assert [m.id for m in tree.siblings_of(s, first)] == [first, second]


def test_append_rejects_bad_parent_role_and_status(any_database: Database) -> None:
    chat = new_session(any_database)
    other = new_session(any_database)
    foreign = add(any_database, other, None)
    with any_database.session() as s:
        with pytest.raises(NotFound):
            tree.append_message(s, chat, foreign, "USER", "x", "SENT")
        with pytest.raises(NotFound):
            tree.append_message(s, 999_999, None, "USER", "x", "SENT")
        with pytest.raises(Invalid):
            tree.append_message(s, chat, None, "USER", "x", "RUNNING")
        with pytest.raises(Invalid):
            tree.append_message(s, chat, None, "ROBOT", "x", "SENT")


def test_new_sibling_regenerates_with_the_same_parent(any_database: Database) -> None:
    chat = new_session(any_database)
    user, answer = conversation(any_database, chat, 1)
    with any_database.session() as s:
        fresh = tree.new_sibling(s, answer, run_id="run-9")
        assert (fresh.parent_id, fresh.role, fresh.status) == (user, "ASSISTANT", "RUNNING")
        assert fresh.branch_order == 1
        leaf = tree.active_leaf(s, chat)
        assert leaf is not None and leaf.id == fresh.id


def test_activate_makes_a_dead_message_visible_with_its_ancestors(any_database: Database) -> None:
    chat = new_session(any_database)
    q1, a1 = conversation(any_database, chat, 1)
    q2, a2 = conversation(any_database, chat, 1, parent_id=a1)
    q1b = add(any_database, chat, None, "USER", "edited")
    with any_database.session() as s:
        assert [m.id for m in tree.active_branch(s, chat)] == [q1b]
        tree.activate(s, a2)
    with any_database.session() as s:
        assert [m.id for m in tree.active_branch(s, chat)] == [q1, a1, q2, a2]
        assert [m.is_active for m in tree.siblings_of(s, q1)] == [True, False]


def test_edit_user_message_keeps_the_old_version(any_database: Database) -> None:
    chat = new_session(any_database)
    q1, a1, q2, _ = conversation(any_database, chat, 2)
    with any_database.session() as s:
        fresh = tree.edit_user_message(s, q2, "changed")
        assert fresh.parent_id == a1
    with any_database.session() as s:
        assert [m.id for m in tree.active_branch(s, chat)] == [q1, a1, fresh.id]
        assert s.get(ChatMessage, q2).content == "question 1"  # type: ignore[union-attr]
        with pytest.raises(Invalid):
            tree.edit_user_message(s, a1, "no")


def test_active_branch_limit_and_before(any_database: Database) -> None:
    chat = new_session(any_database)
    ids = conversation(any_database, chat, 5)
    with any_database.session() as s:
        assert [m.id for m in tree.active_branch(s, chat, limit=3)] == ids[-3:]
        assert [m.id for m in tree.active_branch(s, chat, limit=3, before=ids[5])] == ids[2:5]
        assert [m.id for m in tree.active_branch(s, chat, before=ids[3])] == ids[:3]
        assert tree.active_branch(s, chat, limit=3, before=ids[0]) == []


def test_a_deep_branch_is_read_whole_in_constant_statements(any_database: Database) -> None:
    chat = new_session(any_database)
    shallow = new_session(any_database)
    ids = _chain(any_database, chat, 1500)  # past the 1000 recursion cap of MySQL/MariaDB
    _chain(any_database, shallow, 20)
    counts = []
    for session_id in (shallow, chat):
        with any_database.session() as s, count_statements(any_database) as seen:
            chat_row = sessions.get_session(s, session_id)
            page = tree.active_branch(s, session_id, limit=51)
            message_publics(s, page[-50:])
            session_publics(s, [chat_row])
            counts.append(len(seen))
    assert counts[0] == counts[1]
    with any_database.session() as s:
        assert [m.id for m in tree.active_branch(s, chat, limit=51)] == ids[-51:]
        assert len(tree.active_branch(s, chat)) == 1500
        leaf = tree.active_leaf(s, chat)
        assert leaf is not None and leaf.id == ids[-1]


def test_delete_a_deep_session(any_database: Database) -> None:
    chat = new_session(any_database)
    _chain(any_database, chat, 300)
    with any_database.session() as s:
        sessions.delete_session(s, sessions.get_session(s, chat))
    with any_database.session() as s:
        assert s.scalar(select(func.count()).select_from(ChatMessage)) == 0


def test_auto_title_from_the_first_user_message(any_database: Database) -> None:
    chat = new_session(any_database)
    add(any_database, chat, None, "USER", "Line one\nline two and a long tail that is cut")
    with any_database.session() as s:
        assert tree.auto_title_if_needed(s, chat) == "Line one line two and a long…"
    with any_database.session() as s:
        assert s.get(ChatSession, chat).title == "Line one line two and a long…"  # type: ignore[union-attr]
        add_after = tree.auto_title_if_needed(s, chat)
        assert add_after == "Line one line two and a long…"


def test_make_title() -> None:
    assert tree.make_title("a\r\n\r\nb") == "a b"
    assert tree.make_title("\n\n") is None
    assert tree.make_title("x" * 100) == "x" * 30 + "…"  # one long word is cut where it must be
    assert tree.make_title("Short question?") == "Short question?"


FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one emoji, 7 code points
FLAG = "\U0001f1eb\U0001f1f7"  # two regional indicators


@pytest.mark.parametrize("emoji", [FAMILY, FLAG, "e\u0301"])
def test_an_automatic_title_never_splits_a_character_made_of_several_code_points(
    emoji: str,
) -> None:
    for lead in range(6):  # the cut falls at every place inside the sequence
        title = tree.make_title("a" * lead + emoji * 40)
        assert title is not None and title.endswith("…")
        body = title.removesuffix("…").removeprefix("a" * lead)
        assert body == emoji * (len(body) // len(emoji)), ascii(title)


def test_an_automatic_title_is_cut_between_words() -> None:
    assert tree.make_title("Plan a day in Lyon with museums and parks please") == (
        "Plan a day in Lyon with…"
    )
    assert tree.make_title("周末去哪里玩" * 10) == ("周末去哪里玩" * 5) + "…"  # no spaces to cut at


def test_run_state_is_derived_from_rows(any_database: Database) -> None:
    chat = new_session(any_database)
    user = add(any_database, chat, None)
    with any_database.session() as s:
        assert sessions.live_runs(s, [chat]) == {}
    start_run(any_database, chat, user, "run-7")
    pause(any_database, "run-7")
    with any_database.session() as s:
        state = sessions.live_runs(s, [chat])[chat]
        assert (state.run_id, state.waiting_for_input) == ("run-7", True)


def test_list_keyset_and_preview(any_database: Database) -> None:
    ids = [new_session(any_database, f"t{i}") for i in range(5)]
    conversation(any_database, ids[0], 1)  # the most recent activity
    with any_database.session() as s:
        first = sessions.list_sessions(s, "ACTIVE", None, 2, None)
        assert [c.id for c in first.sessions] == [ids[0], ids[4]]
        rest = sessions.list_sessions(s, "ALL", "T", 10, first.next_cursor)
        assert [c.id for c in rest.sessions] == [ids[3], ids[2], ids[1]]
        publics = session_publics(s, first.sessions)
        assert publics[0].last_message_preview == "answer 0"


def _preview(db: Database, session_id: int) -> str | None:
    with db.session() as s:
        return session_publics(s, [sessions.get_session(s, session_id)])[0].last_message_preview


def test_the_preview_is_the_end_of_the_branch_the_chat_shows(any_database: Database) -> None:
    """After a regenerate the person went back to the first answer: the list shows that one,
    not the newest row of the session."""
    chat = new_session(any_database)
    question, first = conversation(any_database, chat, 1)
    add(any_database, chat, question, "ASSISTANT", "the second answer")
    assert _preview(any_database, chat) == "the second answer"
    with any_database.session() as s:
        tree.activate(s, first)
    assert _preview(any_database, chat) == "answer 0"


def test_the_preview_looks_past_a_reset_divider_and_an_empty_answer(
    any_database: Database,
) -> None:
    chat = new_session(any_database)
    question = add(any_database, chat, None, "USER", "what is  the\nplan?")
    stopped = add(any_database, chat, question, "ASSISTANT", "", "STOPPED")
    add(any_database, chat, stopped, "SYSTEM", "", "RESET")
    assert _preview(any_database, chat) == "what is the plan?"
    empty = new_session(any_database)
    assert _preview(any_database, empty) is None


def test_the_preview_of_a_session_without_a_recorded_leaf(any_database: Database) -> None:
    """Rows written before the leaf was recorded (migration 0002) still get their preview."""
    chat = new_session(any_database)
    conversation(any_database, chat, 2)
    with any_database.session() as s:
        sessions.get_session(s, chat).active_leaf_id = None
    assert _preview(any_database, chat) == "answer 1"


def test_a_page_of_long_sessions_reads_a_few_rows_each(any_database: Database) -> None:
    """The previews of a page read the messages near each leaf, not every message: a page of
    long sessions costs the same statements as a page of short ones, and its rows are found
    through the leaf (the plan of the statement names no scan of the session's messages)."""
    long_chat, short_chat = new_session(any_database), new_session(any_database)
    conversation(any_database, long_chat, 60)
    conversation(any_database, short_chat, 1)
    counts = []
    for session_id in (short_chat, long_chat):
        with any_database.session() as s, count_statements(any_database) as seen:
            session_publics(s, [sessions.get_session(s, session_id)])
            counts.append(len(seen))
    assert counts[0] == counts[1]
    with any_database.session() as s, count_statements(any_database) as seen:
        session_publics(s, [sessions.get_session(s, long_chat)])
    previews = [q for q in seen if "substr" in q.lower()]
    assert len(previews) == 1
    assert "order by" not in previews[0].lower()  # no sort of the session's messages
