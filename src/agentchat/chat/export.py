"""Export a session as Markdown or JSON: its active branch, or the whole tree with every version.

Trees are walked and written without recursion: a branch can be thousands of messages deep.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from agentchat.chat.enums import MessageRole, MessageStatus
from agentchat.chat.presenters import group_logs, message_public, message_publics, positions_of
from agentchat.chat.schemas import ExportBranch, ExportFormat, LogPublic, MessagePublic
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession
from agentchat.chat.tree import active_branch
from agentchat.core.clock import iso, utcnow

FORMAT_TAG = "agentchat.export/1"
MEDIA_TYPES = {"md": "text/markdown; charset=utf-8", "json": "application/json"}
ROLE_TITLES = {
    MessageRole.USER: "User",
    MessageRole.ASSISTANT: "Assistant",
    MessageRole.SYSTEM: "System",
}


@dataclass(frozen=True)
class ExportFile:
    filename: str
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
    suffix = "-all" if branch == "all" else ""
    return ExportFile(f"chat-{chat.id}{suffix}.{fmt}", MEDIA_TYPES[fmt], body)


def load_branch(db: Session, session_id: int) -> Tree:
    """The active branch as a one-child-per-level tree."""
    publics = message_publics(db, active_branch(db, session_id))
    children: dict[int | None, list[int]] = {m.parent_id: [m.id] for m in publics}
    return Tree({m.id: m for m in publics}, children)


def load_tree(db: Session, session_id: int) -> Tree:
    """Every message of the session, with its logs (two statements)."""
    stmt = select(ChatMessage).where(ChatMessage.session_id == session_id)
    rows = list(db.scalars(stmt.order_by(ChatMessage.branch_order, ChatMessage.id)))
    logs = _session_logs(db, session_id)
    positions = positions_of((m.id, m.session_id, m.parent_id) for m in rows)
    children: dict[int | None, list[int]] = defaultdict(list)
    for m in rows:
        children[m.parent_id].append(m.id)
    messages = {m.id: message_public(m, positions[m.id], logs.get(m.id, [])) for m in rows}
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
    lines = [
        f"# {chat.title or 'Untitled chat'}",
        "",
        f"- Session: {chat.session_uuid} (id {chat.id})",
        f"- Created: {iso(chat.created_at)}",
        f"- Exported: {iso(at)}",
        f"- Branch: {scope}",
        "",
        "---",
        "",
    ]
    for message in _preorder(tree):
        lines.extend(_message_markdown(message, tree_view=branch == "all"))
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


def _message_markdown(message: MessagePublic, *, tree_view: bool) -> list[str]:
    lines = [f"## {_heading(message, tree_view)}", "", f"_{iso(message.created_at)}_", ""]
    if message.logs:
        lines.extend(_logs_markdown(message.logs))
    if message.content:
        lines.extend([message.content, ""])
    if message.error:
        lines.extend([f"> **Error:** {message.error}", ""])
    return lines


def _heading(message: MessagePublic, tree_view: bool) -> str:
    title = ROLE_TITLES.get(message.role, message.role.title())
    if message.role == MessageRole.SYSTEM:
        title = "Context reset" if message.status == MessageStatus.RESET else "Context summary"
    elif message.role == MessageRole.ASSISTANT and message.status != MessageStatus.SUCCESS:
        title += f" ({message.status.lower()})"
    if not tree_view:
        return title
    parent = f" · reply to #{message.parent_id}" if message.parent_id else ""
    state = "active" if message.is_active else "inactive"
    version = f"version {message.sibling_index + 1}/{message.sibling_count}"
    return f"#{message.id} {title}{parent} · {version} · {state}"


def _logs_markdown(logs: list[LogPublic]) -> list[str]:
    lines = ["<details>", f"<summary>Agent log ({len(logs)} lines)</summary>", ""]
    for log in logs:
        tool = f" `{log.tool_name}`" if log.tool_name else ""
        text = log.content or ""
        if "\n" in text or "`" in text:
            fence = _fence(text)
            lines.extend([f"- **{log.kind}**{tool}:", "", f"  {fence}"])
            lines.extend(f"  {line}" if line else "" for line in text.split("\n"))
            lines.extend([f"  {fence}", ""])
        else:
            lines.append(f"- **{log.kind}**{tool}: {text}")
    if lines[-1]:
        lines.append("")
    return [*lines, "</details>", ""]


def _fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _session_logs(db: Session, session_id: int) -> dict[int, list[LogPublic]]:
    stmt = (
        select(ChatMessageLog)
        .join(ChatMessage, ChatMessage.id == ChatMessageLog.message_id)
        .where(ChatMessage.session_id == session_id)
        .order_by(ChatMessageLog.message_id, ChatMessageLog.seq)
    )
    return group_logs(db.scalars(stmt))
