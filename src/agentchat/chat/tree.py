"""The message tree: append, versions, activate, edit, the active branch and the auto-title.

Invariants (DESIGN.md): among siblings (same parent, the roots of a session included) exactly one
is active; the active branch is root → active child → … → leaf; nothing is hard-deleted except
by deleting the whole session. Reading the active branch costs a constant number of statements:
one recursive CTE walks it, whatever its depth.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, false, func, select, true, update
from sqlalchemy.orm import Session

from agentchat.chat.enums import FIRST_STATUS, STATUSES_OF, MessageRole, MessageStatus
from agentchat.chat.sessions import ensure_no_active_run, get_session, touch_session
from agentchat.chat.tables import ChatMessage
from agentchat.chat.titles import auto_title
from agentchat.protocol.errors import Invalid, NotFound

__all__ = [
    "activate",
    "active_branch",
    "active_leaf",
    "append_message",
    "auto_title_if_needed",
    "edit_user_message",
    "get_message",
    "make_title",
    "new_sibling",
    "refresh_active_leaf",
    "siblings_of",
    "touch_session",
]


def get_message(db: Session, message_id: int) -> ChatMessage:
    message = db.get(ChatMessage, message_id)
    if message is None:
        raise NotFound(f"message {message_id} not found")
    return message


def append_message(
    db: Session,
    session_id: int,
    parent_id: int | None,
    role: str,
    content: str,
    status: str,
    **fields: Any,
) -> ChatMessage:
    """Add a message under `parent_id` (None: a new root) as the active one of its siblings.

    Sets depth (parent's + 1) and branch_order (max of the siblings + 1), deactivates the
    siblings, makes the new message's whole path active (it is the new end of the active
    branch) and touches the session.
    """
    _check_status(role, status)
    chat = get_session(db, session_id, lock=True)
    depth = 0 if parent_id is None else _parent_in(db, session_id, parent_id).depth + 1
    same_parent = _siblings_where(session_id, parent_id)
    order = db.scalar(
        select(func.coalesce(func.max(ChatMessage.branch_order), -1) + 1).where(same_parent)
    )
    db.execute(
        update(ChatMessage)
        .where(same_parent, ChatMessage.is_active == true())
        .values(is_active=False)
    )
    message = ChatMessage(
        session_id=session_id,
        parent_id=parent_id,
        role=role,
        content=content,
        status=status,
        is_active=True,
        branch_order=order,
        depth=depth,
        **fields,
    )
    db.add(message)
    db.flush()
    if parent_id is not None and chat.active_leaf_id != parent_id:
        _activate_path(db, message)
    chat.active_leaf_id = message.id
    touch_session(db, session_id, message.created_at)
    return message


def new_sibling(
    db: Session,
    message_id: int,
    content: str = "",
    status: str | None = None,
    **fields: Any,
) -> ChatMessage:
    """A new active version beside `message_id` (regenerate, edit): same parent, same role.

    model_id and skill_folder are copied from the original unless given.
    """
    original = get_message(db, message_id)
    role = fields.pop("role", original.role)
    fields.setdefault("model_id", original.model_id)
    fields.setdefault("skill_folder", original.skill_folder)
    return append_message(
        db,
        original.session_id,
        original.parent_id,
        role,
        content,
        status or FIRST_STATUS[MessageRole(role)],
        **fields,
    )


def edit_user_message(db: Session, message_id: int, content: str) -> ChatMessage:
    """Edit a USER message into a new active sibling; the old one stays as a version (422 else)."""
    original = get_message(db, message_id)
    if original.role != MessageRole.USER:
        raise Invalid(f"message {message_id} is a {original.role} message; only USER can be edited")
    ensure_no_active_run(db, original.session_id)
    return new_sibling(db, message_id, content, MessageStatus.SENT)


def activate(db: Session, message_id: int) -> ChatMessage:
    """Make `message_id` the active version of its siblings, and its ancestors active too, so
    it is on the active branch afterwards (409 while the session has a run)."""
    message = get_message(db, message_id)
    ensure_no_active_run(db, message.session_id)  # takes the session's lock
    chat = get_session(db, message.session_id)
    _activate_path(db, message)
    chat.active_leaf_id = _deepest_active_below(db, message.id)
    return message


def siblings_of(db: Session, message_id: int) -> list[ChatMessage]:
    """Every version of `message_id` (itself included), by branch_order."""
    message = get_message(db, message_id)
    stmt = select(ChatMessage).where(_siblings_where(message.session_id, message.parent_id))
    return list(db.scalars(stmt.order_by(ChatMessage.branch_order, ChatMessage.id)))


def active_branch(
    db: Session, session_id: int, limit: int | None = None, before: int | None = None
) -> list[ChatMessage]:
    """The active branch, oldest first: all of it, or its last `limit` messages.

    With `before` (a message id of this session): the `limit` messages above it on its branch,
    read upward from it, so a page costs the same whatever the depth.
    """
    if before is not None:
        return _ancestors_before(db, session_id, before, limit)
    leaf_id = get_session(db, session_id).active_leaf_id
    if leaf_id is not None:
        return _branch_above_leaf(db, leaf_id, limit)
    path = _active_path_cte(session_id)
    window = select(path.c.id, path.c.depth).order_by(path.c.depth.desc())
    if limit is not None:
        window = window.limit(limit)
    last = window.subquery("window")
    stmt = select(ChatMessage).join(last, ChatMessage.id == last.c.id).order_by(last.c.depth)
    return list(db.scalars(stmt))


def active_leaf(db: Session, session_id: int) -> ChatMessage | None:
    """The last message of the active branch (None for an empty session)."""
    leaf = active_branch(db, session_id, limit=1)
    return leaf[0] if leaf else None


def refresh_active_leaf(db: Session, session_id: int) -> int | None:
    """Recompute the stored end of the active branch from the tree (after a bulk import)."""
    chat = get_session(db, session_id)
    chat.active_leaf_id = None
    db.flush()
    leaf = active_branch(db, session_id, limit=1)
    chat.active_leaf_id = leaf[0].id if leaf else None
    return chat.active_leaf_id


def make_title(content: str) -> str | None:
    """A user message as a title: one line, cut by graphemes between words (chat/titles.py)."""
    return auto_title(content)


def auto_title_if_needed(db: Session, session_id: int) -> str | None:
    """Title an untitled session from the first user message of its active branch."""
    chat = get_session(db, session_id)
    if chat.title:
        return chat.title
    path = _active_path_cte(session_id)
    stmt = (
        select(ChatMessage.content)
        .join(path, ChatMessage.id == path.c.id)
        .where(ChatMessage.role == MessageRole.USER)
        .order_by(path.c.depth)
        .limit(1)
    )
    content = db.scalar(stmt)
    title = make_title(content) if content else None
    if title:
        chat.title = title
        db.flush()
    return title


def _check_status(role: str, status: str) -> None:
    if role not in STATUSES_OF:
        raise Invalid(f"role: must be one of {', '.join(STATUSES_OF)}")
    allowed = STATUSES_OF[MessageRole(role)]
    if status not in allowed:
        raise Invalid(f"status: a {role} message is one of {', '.join(sorted(allowed))}")


def _parent_in(db: Session, session_id: int, parent_id: int) -> ChatMessage:
    parent = db.get(ChatMessage, parent_id)
    if parent is None or parent.session_id != session_id:
        raise NotFound(f"message {parent_id} not found in chat session {session_id}")
    return parent


def _siblings_where(session_id: int, parent_id: int | None) -> ColumnElement[bool]:
    if parent_id is None:
        return (ChatMessage.session_id == session_id) & ChatMessage.parent_id.is_(None)
    return (ChatMessage.session_id == session_id) & (ChatMessage.parent_id == parent_id)


def _active_path_cte(session_id: int) -> Any:
    """Recursive CTE (id, depth) of the active branch: the active root, then active children."""
    m = ChatMessage.__table__
    root = select(m.c.id, m.c.depth).where(
        m.c.session_id == session_id, m.c.parent_id.is_(None), m.c.is_active == true()
    )
    path = root.cte("active_path", recursive=True)
    child = m.alias("child")
    step = select(child.c.id, child.c.depth).join(path, child.c.parent_id == path.c.id)
    return path.union_all(step.where(child.c.is_active == true()))


def _ancestors_cte(message_id: int, min_depth: int) -> Any:
    """Recursive CTE (id, parent_id, depth, is_active) from `message_id` up to `min_depth`."""
    m = ChatMessage.__table__
    start = select(m.c.id, m.c.parent_id, m.c.depth, m.c.is_active).where(m.c.id == message_id)
    up = start.cte("ancestors", recursive=True)
    parent = m.alias("parent")
    step: Select[Any] = select(parent.c.id, parent.c.parent_id, parent.c.depth, parent.c.is_active)
    step = step.join(up, parent.c.id == up.c.parent_id).where(parent.c.depth >= min_depth)
    return up.union_all(step)


def _ancestors_before(
    db: Session, session_id: int, before: int, limit: int | None
) -> list[ChatMessage]:
    anchor = db.get(ChatMessage, before)
    if anchor is None or anchor.session_id != session_id:
        raise NotFound(f"message {before} not found in chat session {session_id}")
    if anchor.parent_id is None or limit == 0:
        return []
    min_depth = 0 if limit is None else max(anchor.depth - limit, 0)
    up = _ancestors_cte(anchor.parent_id, min_depth)
    stmt = select(ChatMessage).join(up, ChatMessage.id == up.c.id).order_by(up.c.depth)
    return list(db.scalars(stmt))


def _branch_above_leaf(db: Session, leaf_id: int, limit: int | None) -> list[ChatMessage]:
    """The last `limit` messages of the branch ending at `leaf_id`, oldest first."""
    leaf = db.get(ChatMessage, leaf_id)
    if leaf is None or limit == 0:
        return []
    min_depth = 0 if limit is None else max(leaf.depth - limit + 1, 0)
    up = _ancestors_cte(leaf_id, min_depth)
    stmt = select(ChatMessage).join(up, ChatMessage.id == up.c.id).order_by(up.c.depth)
    return list(db.scalars(stmt))


def _deepest_active_below(db: Session, message_id: int) -> int:
    """The end of the active path that goes down from `message_id`."""
    m = ChatMessage.__table__
    down = select(m.c.id, m.c.depth).where(m.c.id == message_id).cte("down", recursive=True)
    child = m.alias("child")
    step = select(child.c.id, child.c.depth).join(down, child.c.parent_id == down.c.id)
    down = down.union_all(step.where(child.c.is_active == true()))
    deepest = db.scalar(select(down.c.id).order_by(down.c.depth.desc()).limit(1))
    return int(deepest if deepest is not None else message_id)


def _activate_path(db: Session, message: ChatMessage) -> None:
    """Activate `message` and every inactive ancestor among its siblings (root to message)."""
    up = _ancestors_cte(message.id, 0)
    rows = db.execute(select(up.c.id, up.c.parent_id).where(up.c.is_active == false()))
    for node_id, parent_id in rows.all():
        same_parent = _siblings_where(message.session_id, parent_id)
        db.execute(
            update(ChatMessage)
            .where(same_parent, ChatMessage.is_active == true())
            .values(is_active=False)
        )
        db.execute(update(ChatMessage).where(ChatMessage.id == node_id).values(is_active=True))
    db.flush()
