"""Chat sessions: create, read, list by activity, update, delete; the run state derived from rows.

Services take a SQLAlchemy Session and only flush(); the request dependency commits.
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, delete, exists, or_, select, update
from sqlalchemy.orm import Session

from agentchat.attachments.service import delete_chat_files
from agentchat.chat.enums import MessageRole, MessageStatus, PauseStatus, SessionStatus
from agentchat.chat.schemas import SessionCreate, SessionUpdate, StatusFilter
from agentchat.chat.search import session_matches
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession, WorkflowPause
from agentchat.core.clock import utcnow
from agentchat.core.database import scrub_after_commit
from agentchat.models.access import usable
from agentchat.models.summarizers import check_summarizer
from agentchat.protocol.errors import Conflict, Invalid, NotFound
from agentchat.protocol.toolsets import DEFAULT_TOOLSETS, narrow


@dataclass(frozen=True)
class LiveRun:
    """A session's live run, derived from the rows the run service keeps."""

    run_id: str
    waiting_for_input: bool


@dataclass(frozen=True)
class SessionSlice:
    sessions: list[ChatSession]
    next_cursor: str | None
    has_more: bool


def get_session(db: Session, session_id: int, *, lock: bool = False) -> ChatSession:
    """The session or 404; `lock` takes a row lock that serialises tree writes per session."""
    stmt = select(ChatSession).where(ChatSession.id == session_id)
    if lock:
        stmt = stmt.with_for_update()
    chat = db.scalar(stmt)
    if chat is None:
        raise NotFound(f"chat session {session_id} not found")
    return chat


def create_session(
    db: Session,
    data: SessionCreate,
    toolsets: Sequence[str] = DEFAULT_TOOLSETS,
    owner_id: int | None = None,
) -> ChatSession:
    """`toolsets`: the server's; the chat may narrow them (422 toolset_not_allowed beyond).
    `owner_id`: the account it belongs to (None without accounts)."""
    _check_model(db, data.model_id, owner_id)
    chosen = None if data.toolsets is None else narrow(toolsets, data.toolsets)
    now = utcnow()
    key = str(uuid.uuid4())
    chat = ChatSession(
        session_uuid=key,
        title=data.title,
        model_id=data.model_id,
        skill_folder=data.skill_folder,
        hermes_session=f"chat-{key}",
        status=SessionStatus.ACTIVE,
        created_at=now,
        updated_at=now,
        activity_at=now,
        owner_id=owner_id,
    )
    chat.toolsets = chosen
    db.add(chat)
    db.flush()
    return chat


def update_session(
    db: Session,
    chat: ChatSession,
    data: SessionUpdate,
    toolsets: Sequence[str] = DEFAULT_TOOLSETS,
) -> ChatSession:
    """`toolsets`: the server's, within which the chat's own choice must stay."""
    changes = data.model_dump(exclude_unset=True)
    if changes.get("status", "") is None:
        raise Invalid("status: must be ACTIVE or ARCHIVED")
    if changes.get("model_id") is not None:
        _check_model(db, changes["model_id"], chat.owner_id)
    if changes.get("toolsets") is not None:
        changes["toolsets"] = narrow(toolsets, changes["toolsets"])
    if "approvals" in changes:
        changes["approvals"] = _taken_back(db, chat, changes["approvals"] or [])
    if "mcp_off" in changes:
        changes["mcp_off"] = changes["mcp_off"] or []
    summarizer = changes.get("compression_model_id")
    if summarizer is not None:
        chat_model = changes.get("model_id", chat.model_id)
        check_summarizer(db, summarizer, chat_model, chat.owner_id)
    for name, value in changes.items():
        setattr(chat, name, value)
    db.flush()
    return chat


def _taken_back(db: Session, chat: ChatSession, kept: list[str]) -> list[str]:
    """The approvals a person keeps: some of those the chat holds (none can be added here), and
    not while a run is active (its end would bring back what it held)."""
    added = sorted(set(kept) - set(chat.approvals))
    if added:
        raise Invalid(
            f"approvals: {added[0]!r} was not allowed for this chat; approvals are given by "
            "answering the agent's request",
            code="approval_not_held",
        )
    if set(kept) != set(chat.approvals):
        ensure_no_active_run(db, chat.id)
    return kept


def delete_session(db: Session, chat: ChatSession) -> str | None:
    """Delete the session and everything under it (409 while a run is active); its hermes
    session id is returned (the bridges still hold its agent).

    Deleted explicitly, children first: MariaDB stops cascading at 15 levels, and a message
    tree is deeper than that.
    """
    ensure_no_active_run(db, chat.id)
    hermes_session = chat.hermes_session
    in_session = select(ChatMessage.id).where(ChatMessage.session_id == chat.id)
    runs = select(ChatMessage.run_id).where(
        ChatMessage.session_id == chat.id, ChatMessage.run_id.is_not(None)
    )
    db.execute(delete(WorkflowPause).where(WorkflowPause.run_id.in_(runs)))
    delete_chat_files(db, chat.id)
    db.execute(delete(ChatMessageLog).where(ChatMessageLog.message_id.in_(in_session)))
    db.execute(
        update(ChatMessage)
        .where(ChatMessage.session_id == chat.id)
        .values(parent_id=None)
        .execution_options(synchronize_session=False)
    )
    db.execute(
        delete(ChatMessage)
        .where(ChatMessage.session_id == chat.id)
        .execution_options(synchronize_session=False)
    )
    db.delete(chat)
    db.flush()
    db.expunge_all()
    scrub_after_commit(db)
    return hermes_session


def touch_session(db: Session, session_id: int, at: datetime | None = None) -> None:
    """Record activity now: the list sorts by it."""
    when = at or utcnow()
    db.execute(
        update(ChatSession)
        .where(ChatSession.id == session_id)
        .values(last_message_at=when, activity_at=when, updated_at=when)
        .execution_options(synchronize_session="fetch")
    )


def list_sessions(
    db: Session,
    status: StatusFilter,
    q: str | None,
    limit: int,
    cursor: str | None,
    owner_id: int | None = None,
) -> SessionSlice:
    """A page of sessions, newest activity first, after `cursor` (keyset pagination); only
    `owner_id`'s when given."""
    stmt = select(ChatSession)
    if owner_id is not None:
        stmt = stmt.where(ChatSession.owner_id == owner_id)
    if status != "ALL":
        stmt = stmt.where(ChatSession.status == status)
    if q:
        stmt = stmt.where(session_matches(db, q))
    if cursor:
        at, last_id = decode_cursor(cursor)
        stmt = stmt.where(
            or_(
                ChatSession.activity_at < at,
                and_(ChatSession.activity_at == at, ChatSession.id < last_id),
            )
        )
    order = (ChatSession.activity_at.desc(), ChatSession.id.desc())
    rows = list(db.scalars(stmt.order_by(*order).limit(limit + 1)))
    has_more = len(rows) > limit
    rows = rows[:limit]
    next_cursor = encode_cursor(rows[-1]) if has_more else None
    return SessionSlice(rows, next_cursor, has_more)


def live_runs(db: Session, session_ids: list[int]) -> dict[int, LiveRun]:
    """The RUNNING assistant message of each session, and whether its run waits for input."""
    if not session_ids:
        return {}
    waiting = exists().where(
        WorkflowPause.run_id == ChatMessage.run_id, WorkflowPause.status == PauseStatus.PENDING
    )
    stmt = select(ChatMessage.session_id, ChatMessage.run_id, waiting).where(
        ChatMessage.session_id.in_(session_ids),
        ChatMessage.role == MessageRole.ASSISTANT,
        ChatMessage.status == MessageStatus.RUNNING,
    )
    states: dict[int, LiveRun] = {}
    for session_id, run_id, is_waiting in db.execute(stmt):
        if run_id and (session_id not in states or is_waiting):
            states[session_id] = LiveRun(run_id, bool(is_waiting))
    return states


def ensure_no_active_run(db: Session, session_id: int) -> None:
    """409 `run_active` (with the run's id, for a client that offers to stop it). Takes the
    session's row lock first, the one a run start holds while it adds its answer, so a change
    racing a start waits for it and then sees its run (checked before, both went through)."""
    get_session(db, session_id, lock=True)
    states = live_runs(db, [session_id])
    if states:
        raise Conflict(
            "This chat's answer is still running: stop it first.",
            code="run_active",
            runId=states[session_id].run_id,
        )


def encode_cursor(chat: ChatSession) -> str:
    raw = json.dumps([chat.activity_at.isoformat(), chat.id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        at, last_id = json.loads(raw)
        return datetime.fromisoformat(at), int(last_id)
    except (ValueError, TypeError, binascii.Error) as exc:
        raise Invalid("cursor: not a cursor returned by this list") from exc


def _check_model(db: Session, model_id: int | None, owner_id: int | None) -> None:
    """422 for a model that does not exist or that the chat's owner may not use."""
    if model_id is None:
        return
    if usable(db, model_id, owner_id) is None:
        raise Invalid(f"modelId: model {model_id} does not exist")
