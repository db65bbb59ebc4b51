"""A change of the message tree racing a run start (PostgreSQL, MariaDB): the change used to
check "no run" before it took the session's lock, so both won: an answer streamed off the
active branch, or a chat was deleted under its running answer (whose log rows then had
nowhere to go). The change now takes the lock first: it waits for the start, then sees the
run and is refused (409 run_active)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from sqlalchemy import text
from sqlalchemy.orm import Session

from agentchat.chat import sessions, tree
from agentchat.chat.sessions import get_session
from agentchat.core.database import Database
from agentchat.protocol.errors import Conflict
from tests.chat.seed import add, new_session

WAITING = {
    "postgresql": "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
    "AND datname = current_database()",
    # a locking read still running in another connection (InnoDB lists it as waiting late)
    "mysql": "SELECT count(*) FROM information_schema.processlist "
    "WHERE info LIKE '%FOR UPDATE%' AND id <> CONNECTION_ID()",
}


def _wait_until_blocked(db: Database, worker: threading.Thread) -> None:
    """Until the change waits on a lock (or, on SQLite, is held at its write lock)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and worker.is_alive():
        if db.dialect == "sqlite":
            return  # the start holds the process's one write slot: the change cannot begin
        with db.engine.connect() as conn:
            if conn.execute(text(WAITING[db.dialect])).scalar_one():
                return
        time.sleep(0.02)
    raise AssertionError("the change neither waited for the run start nor ended")


def _race(db: Database, change: Callable[[Session], object]) -> list[BaseException | None]:
    chat = new_session(db, "race")
    question = add(db, chat, None, "USER", "q1")
    answer = add(db, chat, question, "ASSISTANT", "a1")
    add(db, chat, answer, "USER", "q2")
    outcome: list[BaseException | None] = []

    def run_change() -> None:
        try:
            with db.session() as s:
                change(s)
            outcome.append(None)
        except Exception as exc:
            outcome.append(exc)

    with db.session() as starting:  # what a run start does, held open
        get_session(starting, chat, lock=True)
        leaf = tree.active_leaf(starting, chat)
        tree.append_message(starting, chat, leaf.id, "ASSISTANT", "", "RUNNING", run_id="r1")
        starting.flush()
        worker = threading.Thread(target=run_change, args=())
        worker.start()
        _wait_until_blocked(db, worker)
    worker.join(timeout=30)
    assert not worker.is_alive()
    return outcome


def _first_answer_id(db: Database) -> int:
    with db.engine.connect() as conn:
        return int(
            conn.execute(
                text("SELECT min(id) FROM chat_message WHERE role = 'ASSISTANT'")
            ).scalar_one()
        )


@pytest.mark.parametrize("what", ["activate", "edit", "delete"])
def test_a_change_racing_a_run_start_is_refused(any_database: Database, what: str) -> None:
    db = any_database

    def change(s: Session) -> object:
        first = tree.get_message(s, _first_answer_id(db))
        if what == "activate":
            return tree.activate(s, first.parent_id or first.id)
        if what == "edit":
            return tree.edit_user_message(s, first.parent_id or 0, "edited")
        return sessions.delete_session(s, get_session(s, first.session_id))

    (outcome,) = _race(db, change)
    assert isinstance(outcome, Conflict) and outcome.code == "run_active", outcome
    with db.engine.connect() as conn:
        running = conn.execute(text("SELECT count(*) FROM chat_message WHERE status = 'RUNNING'"))
        assert running.scalar_one() == 1  # the answer is still there
