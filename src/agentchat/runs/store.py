"""The run service's database work: short synchronous transactions run in worker threads."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, func, select, text, update
from sqlalchemy.orm import Session

from agentchat.attachments import questions
from agentchat.chat import tree
from agentchat.chat.enums import MessageRole, MessageStatus, PauseStatus
from agentchat.chat.sessions import get_session, live_runs, touch_session
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession, WorkflowPause
from agentchat.core.clock import utcnow
from agentchat.protocol.errors import Conflict, Invalid, NotFound, TooManyRequests
from agentchat.protocol.status import RunStatus
from agentchat.protocol.usage import Usage, usage_json
from agentchat.protocol.workspace_files import WorkspaceFile
from agentchat.runs.history import Question, history_for

STALE_ERROR = "The server stopped while this answer was being written; regenerate to try again."
SHUTDOWN_ERROR = "The server was shut down during this answer; the text so far is kept."
LOST_ERROR = (
    "The server restarted during this answer and the agent service no longer had it; "
    "the text so far is kept."
)
BRIDGE_RESTARTED_ERROR = (
    "The agent service stopped answering and was restarted, so this answer ends here; "
    "the text so far is kept."
)
# PostgreSQL advisory lock id ("agch") that serialises run starts across API processes.
START_LOCK_ID = 0x61676368


@dataclass(frozen=True)
class RunPlan:
    """Everything the background task needs, read in the transaction that created the run."""

    run_id: str
    session_id: int
    message_id: int
    user_message_id: int
    user_text: str
    history: list[dict[str, Any]]
    hermes_session: str
    model_id: int | None
    skill_folder: str | None
    # The question as the agent receives it when it carries attachments (else `user_text`)
    user_content: Question | None = None
    # How each of the question's attachments reaches the agent, in order
    deliveries: tuple[str, ...] = ()

    @property
    def question(self) -> Question:
        return self.user_content if self.user_content is not None else self.user_text


def ensure_can_start(db: Session, session_id: int, max_active: int, max_waiting: int = 0) -> None:
    """409 when the session already runs, 429 when the server is at its cap: the runs at work
    count, and those waiting for the person's answer only beyond `max_waiting` (a question
    may wait half an hour; it must not turn every other chat away meanwhile)."""
    states = live_runs(db, [session_id])
    if states:
        run_id = states[session_id].run_id
        raise Conflict(
            f"chat session {session_id} already has a running answer",
            code="run_active",
            runId=run_id,
        )
    lock_run_starts(db)
    if _counted(*count_running(db), max_waiting) >= max_active:
        raise TooManyRequests(
            f"{max_active} answers are already running on this server; wait for one to finish"
        )


def lock_run_starts(db: Session) -> None:
    """Hold the start gate until this transaction ends, so that counting the running answers
    and inserting a new one is atomic across API processes (the global cap).

    PostgreSQL: a transaction-level advisory lock. MySQL/MariaDB: a row lock on the one row of
    `alembic_version`, which every migrated database has. SQLite means one process, where the
    run service's asyncio lock already serialises starts.
    """
    dialect = db.get_bind().dialect.name
    if dialect == "postgresql":
        db.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": START_LOCK_ID})
    elif dialect in ("mysql", "mariadb"):
        db.execute(text("SELECT version_num FROM alembic_version FOR UPDATE"))


def ensure_owner_can_start(
    db: Session, owner_id: int, max_active: int, max_waiting: int = 0
) -> None:
    """429 `too_many_runs` when the chats of `owner_id` already run `max_active` answers
    (counted under the start gate taken by ensure_can_start, so across processes too; those
    waiting for the person's answer as in `ensure_can_start`)."""
    if _counted(*count_running(db, owner_id), max_waiting) >= max_active:
        raise TooManyRequests(
            f"You already have {max_active} answers running; wait for one to finish.",
            code="too_many_runs",
        )


def count_running(db: Session, owner_id: int | None = None) -> tuple[int, int]:
    """The RUNNING answers: (at work, waiting for an answer to a question), in one query."""
    waiting = (
        select(WorkflowPause.run_id)
        .where(WorkflowPause.status == PauseStatus.PENDING)
        .distinct()
        .subquery()
    )
    stmt = (
        select(func.count(), func.count(waiting.c.run_id))
        .select_from(ChatMessage)
        .outerjoin(waiting, waiting.c.run_id == ChatMessage.run_id)
        .where(ChatMessage.role == MessageRole.ASSISTANT, ChatMessage.status == RunStatus.RUNNING)
    )
    if owner_id is not None:
        stmt = stmt.join(ChatSession, ChatSession.id == ChatMessage.session_id).where(
            ChatSession.owner_id == owner_id
        )
    total, paused = db.execute(stmt).one()
    return int(total) - int(paused), int(paused)


def _counted(working: int, waiting: int, max_waiting: int) -> int:
    """The runs a cap counts: those at work, and those waiting beyond `max_waiting`."""
    return working + max(0, waiting - max_waiting)


def user_message_for(
    db: Session,
    session_id: int,
    text: str,
    parent_id: int | None,
    fields: dict[str, Any],
    *,
    may_be_empty: bool = False,
) -> ChatMessage:
    """The USER message a run answers: a fresh edited one named by parent_id, or a new one."""
    if parent_id is not None:
        parent = tree.get_message(db, parent_id)
        if parent.session_id != session_id:
            raise NotFound(f"message {parent_id} not found in chat session {session_id}")
        if parent.role == MessageRole.USER and not _has_children(db, parent.id):
            return parent
        if parent.role == MessageRole.USER:
            raise Conflict(f"message {parent_id} already has an answer; regenerate it instead")
    else:
        leaf = tree.active_leaf(db, session_id)
        parent_id = leaf.id if leaf else None
    if not text.strip() and not may_be_empty:
        raise Invalid("message: must not be empty")
    message = tree.append_message(
        db, session_id, parent_id, MessageRole.USER, text, MessageStatus.SENT, **fields
    )
    tree.auto_title_if_needed(db, session_id)  # now: a failed or stopped answer keeps it too
    return message


def branch_history(
    db: Session, session_id: int, message: ChatMessage
) -> tuple[list[dict[str, Any]], list[WorkspaceFile]]:
    """History for a run answering `message`: its branch above it, as the agent saw it, and
    the files its questions put in the chat's workspace."""
    if message.parent_id is None:
        return [], []
    above = _ancestors(db, message.parent_id)
    asked = [(m.id, m.content) for m in above if m.role == MessageRole.USER]
    contents, files = questions.composed(db, asked)
    return history_for(above, contents), files


def _ancestors(db: Session, message_id: int) -> list[ChatMessage]:
    up = (
        select(ChatMessage.id, ChatMessage.parent_id)
        .where(ChatMessage.id == message_id)
        .cte("up", recursive=True)
    )
    up = up.union_all(
        select(ChatMessage.id, ChatMessage.parent_id).where(ChatMessage.id == up.c.parent_id)
    )
    stmt = select(ChatMessage).join(up, ChatMessage.id == up.c.id).order_by(ChatMessage.depth)
    return list(db.scalars(stmt))


def _has_children(db: Session, message_id: int) -> bool:
    stmt = select(ChatMessage.id).where(ChatMessage.parent_id == message_id).limit(1)
    return db.scalar(stmt) is not None


def mark_pause(
    db: Session, run_id: str, clarify_id: str, question: str, choices: list[str]
) -> None:
    """A pending clarify row (once: a re-attached run may play its request again)."""
    known = select(WorkflowPause.id).where(
        WorkflowPause.run_id == run_id, WorkflowPause.clarify_id == clarify_id
    )
    if db.scalar(known.limit(1)) is not None:
        return
    db.add(
        WorkflowPause(
            run_id=run_id,
            node_id="agent",
            clarify_id=clarify_id,
            question=question,
            choices=json.dumps(choices, ensure_ascii=False),
            status="PENDING",
        )
    )


def answer_pause(db: Session, run_id: str, clarify_id: str, answer: str) -> None:
    """Record the answer of a pending clarify; 409 when it is unknown, answered or stale."""
    result = db.execute(
        update(WorkflowPause)
        .where(
            WorkflowPause.run_id == run_id,
            WorkflowPause.clarify_id == clarify_id,
            WorkflowPause.status == "PENDING",
        )
        .values(status="ANSWERED", answer=answer, answered_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if not result.rowcount:  # type: ignore[attr-defined]
        raise Conflict(
            f"run {run_id} is not waiting for an answer to {clarify_id!r}", code="stale_clarify"
        )


def time_out_pause(db: Session, run_id: str, clarify_id: str, answer: str) -> None:
    """The bridge answered a question nobody answered in time (its default): not waiting."""
    db.execute(
        update(WorkflowPause)
        .where(
            WorkflowPause.run_id == run_id,
            WorkflowPause.clarify_id == clarify_id,
            WorkflowPause.status == "PENDING",
        )
        .values(status="TIMED_OUT", answer=answer, answered_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def reopen_pause(db: Session, run_id: str, clarify_id: str) -> None:
    """Undo `answer_pause` when the answer did not reach the agent (unless the run ended)."""
    db.execute(
        update(WorkflowPause)
        .where(
            WorkflowPause.run_id == run_id,
            WorkflowPause.clarify_id == clarify_id,
            WorkflowPause.status == "ANSWERED",
            ~exists().where(ChatMessage.run_id == run_id, ChatMessage.status != RunStatus.RUNNING),
        )
        .values(status="PENDING", answer=None, answered_at=None)
        .execution_options(synchronize_session=False)
    )


def undelivered_answer(db: Session, run_id: str) -> tuple[str, str] | None:
    """The clarify id and answer of the run's last question when it is answered (whether the
    agent got it is for its bridge to say), else None."""
    last = db.scalars(
        select(WorkflowPause)
        .where(WorkflowPause.run_id == run_id)
        .order_by(WorkflowPause.id.desc())
    ).first()
    if last is None or last.status != "ANSWERED" or last.answer is None:
        return None
    return last.clarify_id, last.answer


def pending_pause(db: Session, run_id: str) -> WorkflowPause | None:
    stmt = select(WorkflowPause).where(
        WorkflowPause.run_id == run_id, WorkflowPause.status == "PENDING"
    )
    return db.scalars(stmt.order_by(WorkflowPause.id.desc())).first()


def close_pauses(db: Session, run_id: str) -> None:
    db.execute(
        update(WorkflowPause)
        .where(WorkflowPause.run_id == run_id, WorkflowPause.status == "PENDING")
        .values(status="CANCELLED", answered_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def message_for_run(db: Session, run_id: str) -> ChatMessage:
    stmt = select(ChatMessage).where(
        ChatMessage.run_id == run_id, ChatMessage.role == MessageRole.ASSISTANT
    )
    message = db.scalars(stmt).first()
    if message is None:
        raise NotFound(f"run {run_id} not found")
    return message


def check_owner(db: Session, run_id: str, owner_id: int | None) -> None:
    """404, as for a run that does not exist, unless the run's chat is `owner_id`'s (None:
    the one person of a server without accounts, who owns every run)."""
    if owner_id is None:
        return
    stmt = (
        select(ChatMessage.id)
        .join(ChatSession, ChatSession.id == ChatMessage.session_id)
        .where(ChatMessage.run_id == run_id, ChatSession.owner_id == owner_id)
        .limit(1)
    )
    if db.scalar(stmt) is None:
        raise NotFound(f"run {run_id} not found")


def is_running(db: Session, run_id: str) -> bool:
    stmt = select(ChatMessage.status).where(
        ChatMessage.run_id == run_id, ChatMessage.role == MessageRole.ASSISTANT
    )
    return db.scalar(stmt) == RunStatus.RUNNING


def stored_logs(db: Session, message_id: int) -> list[ChatMessageLog]:
    stmt = select(ChatMessageLog).where(ChatMessageLog.message_id == message_id)
    return list(db.scalars(stmt.order_by(ChatMessageLog.seq)))


def add_summary(db: Session, message_id: int, summary: str) -> int:
    """A SYSTEM/SUMMARY message under the running answer; the compacted history comes later."""
    assistant = tree.get_message(db, message_id)
    summary_message = tree.append_message(
        db, assistant.session_id, assistant.id, MessageRole.SYSTEM, summary, MessageStatus.SUMMARY
    )
    chat = get_session(db, assistant.session_id)
    chat.last_summarized_at = utcnow()
    return summary_message.id


@dataclass(frozen=True)
class RunOutcome:
    status: RunStatus
    text: str
    error: str | None
    usage: Usage | None
    messages: list[dict[str, Any]]
    compacted: bool
    # hermes approval keys allowed "for this chat" (all of them, as the bridge held them)
    approvals: tuple[str, ...] = ()


def finish_message(
    db: Session, message_id: int, outcome: RunOutcome, summary_message_id: int | None
) -> None:
    """Write the end of a run: the answer or error, the agent's messages, the session's touch."""
    message = tree.get_message(db, message_id)
    if message.status != RunStatus.RUNNING:
        return
    message.status = outcome.status
    message.content = outcome.text
    message.error = outcome.error
    message.completed_at = utcnow()
    message.usage_json = usage_json(outcome.usage)
    turn = json.dumps(outcome.messages, ensure_ascii=False) if outcome.messages else None
    if outcome.compacted and summary_message_id is not None:
        summary = tree.get_message(db, summary_message_id)
        summary.agent_messages = turn
    else:
        message.agent_messages = turn
    close_pauses(db, message.run_id or "")
    touch_session(db, message.session_id)
    if outcome.approvals:
        keep_approvals(db, message.session_id, outcome.approvals)
    if outcome.status == RunStatus.SUCCESS:
        tree.auto_title_if_needed(db, message.session_id)


def keep_approvals(db: Session, session_id: int, approvals: tuple[str, ...]) -> None:
    """Keep the chat's "allow for this chat" approvals with it: each run sends them to the
    bridge again, so a restarted bridge (which forgot them) does not ask a second time."""
    chat = get_session(db, session_id)
    chat.approvals = [*chat.approvals, *approvals]


def running_runs(db: Session) -> dict[str, int]:
    """Every RUNNING answer: run id → message id."""
    stmt = select(ChatMessage.run_id, ChatMessage.id).where(
        ChatMessage.role == MessageRole.ASSISTANT, ChatMessage.status == RunStatus.RUNNING
    )
    return {run_id: message_id for run_id, message_id in db.execute(stmt) if run_id}


def stored_progress(db: Session, run_ids: list[str]) -> dict[str, int]:
    """How far the stored answer of each RUNNING run reaches (its bridge event id)."""
    stmt = select(ChatMessage.run_id, ChatMessage.bridge_event_id).where(
        ChatMessage.role == MessageRole.ASSISTANT,
        ChatMessage.status == RunStatus.RUNNING,
        ChatMessage.run_id.in_(run_ids),
    )
    return {run_id: reached or 0 for run_id, reached in db.execute(stmt) if run_id}


def fail_stale_runs(db: Session, run_ids: list[str] | None = None) -> list[str]:
    """Mark RUNNING answers FAILED (all of them at start-up, or the given runs)."""
    stmt = select(ChatMessage).where(
        ChatMessage.role == MessageRole.ASSISTANT, ChatMessage.status == RunStatus.RUNNING
    )
    if run_ids is not None:
        stmt = stmt.where(ChatMessage.run_id.in_(run_ids)).with_for_update()
    failed = []
    for message in db.scalars(stmt):
        message.status = RunStatus.FAILED
        message.error = STALE_ERROR
        message.completed_at = utcnow()
        close_pauses(db, message.run_id or "")
        failed.append(message.run_id or "")
    return failed


def interrupt_runs(db: Session, run_ids: list[str], error: str) -> dict[str, int]:
    """Store RUNNING answers of these runs INTERRUPTED, their checkpointed text kept; their
    pending clarify questions close. Run id → message id of those it ended."""
    if not run_ids:
        return {}
    stmt = (
        select(ChatMessage)
        .where(
            ChatMessage.role == MessageRole.ASSISTANT,
            ChatMessage.status == RunStatus.RUNNING,
            ChatMessage.run_id.in_(run_ids),
        )
        .with_for_update()
    )
    ended = {}
    for message in db.scalars(stmt):
        message.status = RunStatus.INTERRUPTED
        message.error = error
        message.completed_at = utcnow()
        close_pauses(db, message.run_id or "")
        touch_session(db, message.session_id)
        ended[message.run_id or ""] = message.id
    return ended


def summary_of(db: Session, message_id: int) -> int | None:
    """The SUMMARY message a running answer's compaction put under it, if any."""
    stmt = select(ChatMessage.id).where(
        ChatMessage.parent_id == message_id,
        ChatMessage.role == MessageRole.SYSTEM,
        ChatMessage.status == MessageStatus.SUMMARY,
    )
    return db.scalar(stmt.order_by(ChatMessage.id.desc()).limit(1))
