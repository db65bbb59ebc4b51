"""Rows to public shapes, reading what they need in a fixed number of statements.

A page of sessions costs two statements (previews, run states; a third for sessions with no
text near the end of their active branch); a page of messages three (sibling positions, logs,
the questions' attachments), however many rows or however deep the tree.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, func, or_, select
from sqlalchemy.orm import Session, aliased

from agentchat.attachments.questions import publics_of as attachments_of
from agentchat.attachments.schemas import MessageAttachmentPublic
from agentchat.chat.enums import MessageRole
from agentchat.chat.folding import fold
from agentchat.chat.schemas import (
    DEFAULT_PAGE,
    PREVIEW_CHARS,
    LogPublic,
    MessagePublic,
    SessionDetail,
    SessionPage,
    SessionPublic,
    StatusFilter,
    VersionPublic,
)
from agentchat.chat.search import matching_snippets
from agentchat.chat.sessions import LiveRun, list_sessions, live_runs
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession
from agentchat.chat.tree import active_branch
from agentchat.core.database.packed_text import readable
from agentchat.events.log_lines import stored_line_fields
from agentchat.protocol.usage import usage_from_json

Position = tuple[int, int]  # (sibling count, 0-based index by branch_order)
# A leaf that is a reset divider, under an answer stopped before its first word, under the
# question: three steps up find text on any branch the service builds.
PREVIEW_DEPTH = 3
_PREVIEWED = (MessageRole.USER, MessageRole.ASSISTANT)


def session_page(
    db: Session,
    status: StatusFilter,
    q: str | None,
    limit: int,
    cursor: str | None,
    owner_id: int | None = None,
) -> SessionPage:
    """A page of the session list (three statements); `owner_id`'s sessions when given."""
    page = list_sessions(db, status, q, limit, cursor, owner_id)
    items = session_publics(db, page.sessions)
    if q:
        _show_matches(db, items, q)
    return SessionPage(items=items, next_cursor=page.next_cursor, has_more=page.has_more)


def _show_matches(db: Session, items: list[SessionPublic], q: str) -> None:
    """Why each chat was found: the words around the hit, unless its title holds the query."""
    needle = fold(q.strip())
    by_messages = [item.id for item in items if needle not in fold(item.title or "")]
    snippets = matching_snippets(db, by_messages, q)
    for item in items:
        item.match = snippets.get(item.id)


def session_detail(db: Session, chat: ChatSession, limit: int = DEFAULT_PAGE) -> SessionDetail:
    """The session and the last `limit` messages of its active branch (six statements)."""
    messages = active_branch(db, chat.id, limit=limit + 1)
    return SessionDetail(
        session=session_publics(db, [chat])[0],
        messages=message_publics(db, messages[-limit:]),
        has_more=len(messages) > limit,
    )


def session_publics(db: Session, sessions: Sequence[ChatSession]) -> list[SessionPublic]:
    ids = [chat.id for chat in sessions]
    previews = latest_previews(db, sessions)
    states = live_runs(db, ids)
    return [session_public(c, previews.get(c.id), states.get(c.id)) for c in sessions]


def session_public(chat: ChatSession, preview: str | None, state: LiveRun | None) -> SessionPublic:
    public = SessionPublic.model_validate(chat)
    public.last_message_preview = preview
    if state is not None:
        public.has_active_run = True
        public.active_run_id = state.run_id
        public.has_pending_clarify = state.waiting_for_input
    return public


def latest_previews(db: Session, sessions: Sequence[ChatSession]) -> dict[int, str]:
    """The start of the latest user or assistant text on each session's active branch (one
    statement: from the leaf up to PREVIEW_DEPTH messages; a session with none there, or whose
    leaf is not recorded, costs one more). A look from the leaf stays a few index reads per
    session however long the session; the latest across the whole session read all its rows."""
    by_leaf = {c.active_leaf_id: c.id for c in sessions if c.active_leaf_id is not None}
    found = _previews_near_leaves(db, by_leaf)
    rest = [c.id for c in sessions if c.id not in found and c.last_message_at is not None]
    return found | (_latest_previews(db, rest) if rest else {})


def _previews_near_leaves(db: Session, by_leaf: dict[int, int]) -> dict[int, str]:
    if not by_leaf:
        return {}
    previews: dict[int, str] = {}
    for leaf_id, *pairs in db.execute(_NEAR_LEAVES, {"leaf_ids": list(by_leaf)}):
        for role, content in zip(pairs[::2], pairs[1::2], strict=True):
            if role in _PREVIEWED and content:
                previews[by_leaf[leaf_id]] = preview_text(content)
                break
    return previews


def _near_leaves_statement() -> Select[Any]:
    """Each leaf with its parent and grandparent: (leaf id, then role and text start per level).
    Built once: its aliases are new objects each time, which costs more than running it."""
    levels = [aliased(ChatMessage) for _ in range(PREVIEW_DEPTH)]
    columns: list[Any] = [levels[0].id]
    for m in levels:
        columns += [m.role, func.substr(readable(m.content), 1, PREVIEW_CHARS)]
    stmt = select(*columns).where(levels[0].id.in_(bindparam("leaf_ids", expanding=True)))
    for below, m in itertools.pairwise(levels):
        stmt = stmt.outerjoin(m, m.id == below.parent_id)
    return stmt


_NEAR_LEAVES = _near_leaves_statement()


def _latest_previews(db: Session, session_ids: list[int]) -> dict[int, str]:
    """The latest user or assistant text of each session, whatever its branch."""
    m = ChatMessage
    latest = (
        select(func.substr(readable(m.content), 1, PREVIEW_CHARS))
        .where(m.session_id == ChatSession.id, m.role.in_(_PREVIEWED), m.content != "")
        .order_by(m.created_at.desc(), m.id.desc())
        .limit(1)
        .correlate(ChatSession)
        .scalar_subquery()
    )
    stmt = select(ChatSession.id, latest).where(ChatSession.id.in_(session_ids))
    return {sid: preview_text(text) for sid, text in db.execute(stmt) if text}


def preview_text(content: str, chars: int = 100) -> str:
    flat = " ".join(content.split())
    return flat if len(flat) <= chars else flat[: chars - 1] + "…"


def message_publics(db: Session, messages: Sequence[ChatMessage]) -> list[MessagePublic]:
    if not messages:
        return []
    positions = sibling_positions(db, messages)
    logs = logs_by_message(db, [m.id for m in messages if m.role == MessageRole.ASSISTANT])
    files = attachments_of(db, [m.id for m in messages if m.role == MessageRole.USER])
    return [
        message_public(m, positions[m.id], logs.get(m.id, []), files.get(m.id, []))
        for m in messages
    ]


def message_public(
    message: ChatMessage,
    position: Position,
    logs: list[LogPublic],
    attachments: list[MessageAttachmentPublic] | None = None,
) -> MessagePublic:
    return MessagePublic(
        id=message.id,
        session_id=message.session_id,
        parent_id=message.parent_id,
        role=message.role,
        content=message.content,
        status=message.status,
        is_active=message.is_active,
        branch_order=message.branch_order,
        sibling_count=position[0],
        sibling_index=position[1],
        run_id=message.run_id,
        model_id=message.model_id,
        skill_folder=message.skill_folder,
        error=message.error,
        created_at=message.created_at,
        completed_at=message.completed_at,
        usage=usage_from_json(message.usage_json),
        logs=logs,
        attachments=attachments or [],
    )


def sibling_positions(db: Session, messages: Sequence[ChatMessage]) -> dict[int, Position]:
    """Sibling count and index of each message, from one statement over their parents."""
    parents = {m.parent_id for m in messages if m.parent_id is not None}
    root_sessions = {m.session_id for m in messages if m.parent_id is None}
    conditions: list[ColumnElement[bool]] = []
    if parents:
        conditions.append(ChatMessage.parent_id.in_(parents))
    if root_sessions:
        conditions.append(
            ChatMessage.session_id.in_(root_sessions) & ChatMessage.parent_id.is_(None)
        )
    stmt = (
        select(ChatMessage.id, ChatMessage.session_id, ChatMessage.parent_id)
        .where(or_(*conditions))
        .order_by(ChatMessage.branch_order, ChatMessage.id)
    )
    return positions_of((row.id, row.session_id, row.parent_id) for row in db.execute(stmt))


def positions_of(rows: Iterable[tuple[int, int, int | None]]) -> dict[int, Position]:
    """(id, session_id, parent_id) rows in branch_order → {id: (count, index)}."""
    groups: dict[tuple[int, int | None], list[int]] = defaultdict(list)
    for message_id, session_id, parent_id in rows:
        groups[(session_id, parent_id)].append(message_id)
    return {
        message_id: (len(ids), index)
        for ids in groups.values()
        for index, message_id in enumerate(ids)
    }


def logs_by_message(db: Session, message_ids: list[int]) -> dict[int, list[LogPublic]]:
    """Log lines of these messages by seq (one statement)."""
    if not message_ids:
        return {}
    stmt = (
        select(ChatMessageLog)
        .where(ChatMessageLog.message_id.in_(message_ids))
        .order_by(ChatMessageLog.message_id, ChatMessageLog.seq)
    )
    return group_logs(db.scalars(stmt))


def group_logs(rows: Iterable[ChatMessageLog]) -> dict[int, list[LogPublic]]:
    logs: dict[int, list[LogPublic]] = defaultdict(list)
    for row in rows:
        logs[row.message_id].append(log_public(row))
    return logs


def log_public(row: ChatMessageLog) -> LogPublic:
    meta = parse_json(row.meta_json)
    fields = stored_line_fields(row.kind, row.content, row.tool_name, meta)
    return LogPublic(seq=row.seq, created_at=row.created_at, **fields)


def version_public(message: ChatMessage) -> VersionPublic:
    return VersionPublic(
        message_id=message.id,
        branch_order=message.branch_order,
        is_active=message.is_active,
        role=message.role,
        status=message.status,
        created_at=message.created_at,
        preview=preview_text(message.content),
    )


def parse_json(raw: str | None) -> Any:
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw
