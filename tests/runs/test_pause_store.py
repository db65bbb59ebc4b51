"""The clarify pause rows on each database: an answer recorded before it is sent, and undone
when the bridge refuses it (unless the run ended meanwhile), and the one to send again after
a restart."""

from __future__ import annotations

import pytest

from agentchat.chat.tables import ChatMessage, ChatSession, WorkflowPause
from agentchat.core.database import Database
from agentchat.protocol.errors import Conflict
from agentchat.runs import store


def _pending(db: Database, run_id: str, status: str = "RUNNING") -> None:
    with db.session() as s:
        chat = ChatSession(session_uuid=f"pause-{run_id}", hermes_session="h")
        s.add(chat)
        s.flush()
        s.add(ChatMessage(session_id=chat.id, role="ASSISTANT", status=status, run_id=run_id))
        store.mark_pause(s, run_id, "q1", "Which one?", ["a", "b"])


def _pause(db: Database, run_id: str) -> tuple[str, str | None]:
    with db.session() as s:
        pause = s.query(WorkflowPause).filter_by(run_id=run_id).one()
        return pause.status, pause.answer


def test_an_answer_undone_is_pending_again(any_database: Database) -> None:
    _pending(any_database, "r1")
    with any_database.session() as s:
        store.answer_pause(s, "r1", "q1", "a")
    assert _pause(any_database, "r1") == ("ANSWERED", "a")
    with any_database.session() as s:
        store.reopen_pause(s, "r1", "q1")
    assert _pause(any_database, "r1") == ("PENDING", None)
    with any_database.session() as s, pytest.raises(Conflict):
        store.answer_pause(s, "r1", "other", "a")


def test_an_answer_is_not_undone_once_the_run_ended(any_database: Database) -> None:
    _pending(any_database, "r2", status="SUCCESS")
    with any_database.session() as s:
        store.answer_pause(s, "r2", "q1", "a")
        store.reopen_pause(s, "r2", "q1")
    assert _pause(any_database, "r2") == ("ANSWERED", "a")


def test_the_stored_answer_to_resend_is_the_last_questions_only(any_database: Database) -> None:
    """After a restart, the answer a waiting run may not have got: the last question's, when
    it is answered; none while the last one is unanswered."""
    _pending(any_database, "r3")
    with any_database.session() as s:
        assert store.undelivered_answer(s, "r3") is None  # asked, not answered
        store.answer_pause(s, "r3", "q1", "a")
    with any_database.session() as s:
        assert store.undelivered_answer(s, "r3") == ("q1", "a")
        store.mark_pause(s, "r3", "q2", "And then?", [])
    with any_database.session() as s:
        assert store.undelivered_answer(s, "r3") is None  # a later question waits
        assert store.undelivered_answer(s, "never-ran") is None
