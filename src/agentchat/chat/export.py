"""Export a session as Markdown or JSON: its active branch, or the whole tree with every version.

Trees are walked and written without recursion: a branch can be thousands of messages deep.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from agentchat.attachments.questions import publics_of as attachments_of
from agentchat.chat.enums import MessageRole
from agentchat.chat.export_markdown import markdown_head, message_markdown
from agentchat.chat.presenters import group_logs, message_public, message_publics, positions_of
from agentchat.chat.schemas import ExportBranch, ExportFormat, LogPublic, MessagePublic
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession
from agentchat.chat.titles import attachment_header
from agentchat.chat.tree import active_branch
from agentchat.core.clock import iso, utcnow

FORMAT_TAG = "agentchat.export/1"
MEDIA_TYPES = {"md": "text/markdown; charset=utf-8", "json": "application/json"}


@dataclass(frozen=True)
class ExportFile:
    disposition: str  # the Content-Disposition header: the file is named by the chat's title
    media_type: str
    body: str


@dataclass(frozen=True)
class Tree:
    """Messages by id, and the children of each parent (None: the roots) by branch_order."""

    messages: dict[int, MessagePublic]
    children: dict[int | None, list[int]]


def export_session(
    db: Session,
    chat: ChatSession,
    fmt: ExportFormat,
    branch: ExportBranch,
    now: datetime | None = None,
) -> ExportFile:
    tree = load_tree(db, chat.id) if branch == "all" else load_branch(db, chat.id)
    exported_at = now or utcnow()
    if fmt == "md":
        body = render_markdown(chat, tree, branch, exported_at)
    else:
        body = render_json(chat, tree, branch, exported_at)
    suffix = f" (all versions).{fmt}" if branch == "all" else f".{fmt}"
    disposition = attachment_header(chat.title, suffix, fallback=f"chat-{chat.id}")
    return ExportFile(disposition, MEDIA_TYPES[fmt], body)


def load_branch(db: Session, session_id: int) -> Tree:
    """The active branch as a one-child-per-level tree."""
    publics = message_publics(db, active_branch(db, session_id))
    children: dict[int | None, list[int]] = {m.parent_id: [m.id] for m in publics}
    return Tree({m.id: m for m in publics}, children)


def load_tree(db: Session, session_id: int) -> Tree:
    """Every message of the session, with its logs and attachments (three statements)."""
    stmt = select(ChatMessage).where(ChatMessage.session_id == session_id)
    rows = list(db.scalars(stmt.order_by(ChatMessage.branch_order, ChatMessage.id)))
    logs = _session_logs(db, session_id)
    positions = positions_of((m.id, m.session_id, m.parent_id) for m in rows)
    children: dict[int | None, list[int]] = defaultdict(list)
    for m in rows:
        children[m.parent_id].append(m.id)
    files = attachments_of(db, [m.id for m in rows if m.role == MessageRole.USER])
    messages = {
        m.id: message_public(m, positions[m.id], logs.get(m.id, []), files.get(m.id, []))
        for m in rows
    }
    return Tree(messages, children)


def render_json(chat: ChatSession, tree: Tree, branch: ExportBranch, at: datetime) -> str:
    """`messages` is the branch oldest first, or (branch=all) the roots with nested `children`."""
    head = {
        "format": FORMAT_TAG,
        "branch": branch,
        "exportedAt": iso(at),
        "session": _session_json(chat),
        "messages": None,
    }
    text = json.dumps(head, indent=2, ensure_ascii=False)
    body = _nested_json(tree) if branch == "all" else _flat_json(tree)
    return text.removesuffix('"messages": null\n}') + f'"messages": {body}\n}}\n'


def render_markdown(chat: ChatSession, tree: Tree, branch: ExportBranch, at: datetime) -> str:
    scope = "all branches (every version)" if branch == "all" else "active branch"
    facts = [
        f"- Session: {chat.session_uuid} (id {chat.id})",
        f"- Created: {iso(chat.created_at)}",
        f"- Exported: {iso(at)}",
        f"- Branch: {scope}",
    ]
    lines = markdown_head(chat.title, facts)
    messages = _preorder(tree)
    on_path = _on_active_branch(messages)
    for message in messages:
        active = message.id in on_path
        lines.extend(message_markdown(message, tree_view=branch == "all", on_active_branch=active))
    return "\n".join(lines).rstrip() + "\n"


def _session_json(chat: ChatSession) -> dict[str, object]:
    return {
        "id": chat.id,
        "sessionUuid": chat.session_uuid,
        "title": chat.title,
        "modelId": chat.model_id,
        "skillFolder": chat.skill_folder,
        "status": chat.status,
        "createdAt": iso(chat.created_at),
        "lastMessageAt": iso(chat.last_message_at),
    }


def _message_dict(message: MessagePublic) -> dict[str, object]:
    return message.model_dump(mode="json", by_alias=True)


def _flat_json(tree: Tree) -> str:
    items = [json.dumps(_message_dict(m), ensure_ascii=False) for m in _preorder(tree)]
    return "[" + ",\n".join(items) + "]" if items else "[]"


def _nested_json(tree: Tree) -> str:
    """Roots with their `children`, nested, written iteratively (json.dumps would recurse)."""
    parts = ["["]
    stack: list[tuple[list[int], int]] = [(tree.children.get(None, []), 0)]
    while stack:
        ids, index = stack.pop()
        if index == len(ids):
            parts.append("]}" if stack else "]")
            continue
        if index:
            parts.append(",\n")
        stack.append((ids, index + 1))
        node = json.dumps(_message_dict(tree.messages[ids[index]]), ensure_ascii=False)
        parts.append(node[:-1] + ', "children": [')
        stack.append((tree.children.get(ids[index], []), 0))
    return "".join(parts)


def _preorder(tree: Tree) -> list[MessagePublic]:
    """Depth first, versions in branch_order, without recursion."""
    order: list[MessagePublic] = []
    stack = list(reversed(tree.children.get(None, [])))
    while stack:
        node = stack.pop()
        order.append(tree.messages[node])
        stack.extend(reversed(tree.children.get(node, [])))
    return order


def _on_active_branch(preorder: list[MessagePublic]) -> set[int]:
    """The messages that are the active version of themselves and of every message above."""
    on_path: set[int] = set()
    for m in preorder:  # a parent comes before its children
        if m.is_active and (m.parent_id is None or m.parent_id in on_path):
            on_path.add(m.id)
    return on_path


def _session_logs(db: Session, session_id: int) -> dict[int, list[LogPublic]]:
    stmt = (
        select(ChatMessageLog)
        .join(ChatMessage, ChatMessage.id == ChatMessageLog.message_id)
        .where(ChatMessage.session_id == session_id)
        .order_by(ChatMessageLog.message_id, ChatMessageLog.seq)
    )
    return group_logs(db.scalars(stmt))
