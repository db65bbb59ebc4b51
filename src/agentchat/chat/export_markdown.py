"""The Markdown export: a file a person reads, and that a Markdown viewer can open safely.

Each answer shows what the agent did (thinking as paragraphs per step, every tool call as a
collapsible `<details>` with its formatted arguments and trimmed result, questions asked with
their answers, the todo list), then the answer, its status and any error. Status words are
progress, not content, and are left out. Chat text goes through `safe_markdown`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from agentchat.attachments.schemas import MessageAttachmentPublic
from agentchat.chat.agent_log import Clarify, Step, Thinking, Todos, ToolCall, agent_steps
from agentchat.chat.enums import MessageRole, MessageStatus
from agentchat.chat.markdown_reshape import reshape
from agentchat.chat.markdown_safe import fence_for, safe_inline, safe_markdown
from agentchat.chat.schemas import MessagePublic
from agentchat.core.clock import iso
from agentchat.protocol.status import RunStatus

RESULT_CHARS = 2_000
ARGS_CHARS = 4_000
ROLE_TITLES = {
    MessageRole.USER: "User",
    MessageRole.ASSISTANT: "Assistant",
    MessageRole.SYSTEM: "System",
}
STATUS_WORDS: dict[str, str] = {
    RunStatus.SUCCESS: "completed",
    RunStatus.FAILED: "failed",
    RunStatus.STOPPED: "stopped",
    RunStatus.INTERRUPTED: "interrupted by a server restart",
    RunStatus.RUNNING: "still running when exported",
}
TODO_NOTES = {"in_progress": " _(in progress)_", "cancelled": " _(cancelled)_"}


def markdown_head(title: str | None, lines: Iterable[str]) -> list[str]:
    return [f"# {safe_inline(title or 'Untitled chat')}", "", *lines, "", "---", ""]


def message_markdown(
    message: MessagePublic, *, tree_view: bool, on_active_branch: bool = True
) -> list[str]:
    """`on_active_branch`: the message and every message above it are the active versions."""
    heading = _heading(message, tree_view, on_active_branch)
    lines = [f"## {heading}", "", f"_{_byline(message)}_", ""]
    for step in agent_steps(message.logs):
        lines.extend(_step(step))
    if message.content:
        typed = message.role == MessageRole.USER
        lines.extend([safe_markdown(reshape(message.content, keep_line_breaks=typed)), ""])
    if message.attachments:
        lines.extend([*attachment_lines(message.attachments), ""])
    if message.error:
        lines.extend([f"> **Error:** {safe_inline(message.error)}", ""])
    return lines


def attachment_path(attachment: MessageAttachmentPublic) -> str:
    """Where an attachment lies in an export with files (and what its Markdown links to)."""
    return f"files/{attachment.id}-{attachment.name}"


def attachment_lines(attachments: Iterable[MessageAttachmentPublic]) -> list[str]:
    lines = ["**Attachments:**", ""]
    for a in attachments:
        link = quote(attachment_path(a))
        lines.append(
            f"- [{safe_inline(a.name)}]({link}) ({a.kind}, {a.size:,} bytes, sha256 `{a.digest}`)"
        )
    return lines


def _heading(message: MessagePublic, tree_view: bool, on_active_branch: bool) -> str:
    title = ROLE_TITLES.get(message.role, message.role.title())
    if message.role == MessageRole.SYSTEM:
        title = "Context reset" if message.status == MessageStatus.RESET else "Context summary"
    elif message.role == MessageRole.ASSISTANT and message.status != RunStatus.SUCCESS:
        title += f" ({message.status.lower()})"
    if not tree_view:
        return title
    parent = f" · reply to #{message.parent_id}" if message.parent_id else ""
    state = "active" if on_active_branch else "inactive"
    version = f"version {message.sibling_index + 1}/{message.sibling_count}"
    return f"#{message.id} {title}{parent} · {version} · {state}"


def _byline(message: MessagePublic) -> str:
    parts = [iso(message.created_at) or ""]
    if message.role == MessageRole.ASSISTANT:
        parts.append(f"status: {STATUS_WORDS.get(message.status, message.status.lower())}")
        parts.extend(_took(message.created_at, message.completed_at))
        tokens = message.usage.total_tokens if message.usage else None
        if tokens:
            parts.append(f"{tokens:,} tokens")
    return " · ".join(parts)


def _took(start: datetime, end: datetime | None) -> list[str]:
    if end is None or end <= start:
        return []
    return [f"took {_seconds((end - start).total_seconds() * 1000)}"]


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.1f} s" if ms < 60_000 else f"{ms / 60_000:.1f} min"


def _step(step: Step) -> list[str]:
    if isinstance(step, Thinking):
        return _thinking(step)
    if isinstance(step, ToolCall):
        return _tool_call(step)
    if isinstance(step, Clarify):
        return _clarify(step)
    return _todos(step)


def _quoted(text: str) -> list[str]:
    return [f"> {line}" if line.strip() else ">" for line in text.split("\n")]


def _thinking(step: Thinking) -> list[str]:
    return ["> **Thinking**", ">", *_quoted(safe_markdown(step.text.strip())), ""]


def _tool_call(call: ToolCall) -> list[str]:
    facts = [f"<code>{safe_inline(call.name)}</code>"]
    if call.result is None:
        facts.append("no result")
    elif call.is_error:
        facts.append("error")
    if call.duration_ms is not None:
        facts.append(_seconds(call.duration_ms))
    lines = ["<details>", f"<summary>Tool call: {' · '.join(facts)}</summary>", ""]
    if call.args not in (None, "", {}):
        lines.extend(["**Arguments**", "", *_block(call.args, ARGS_CHARS)])
    if call.result is not None:
        lines.extend(["**Result**", "", *_block(_parsed_json(call.result), RESULT_CHARS)])
    return [*lines, "</details>", ""]


def _block(value: Any, limit: int) -> list[str]:
    """A fenced block: JSON indented, text as it is, cut at `limit` characters with a note."""
    if isinstance(value, str):
        text, lang = value, ""
    else:
        text, lang = json.dumps(value, indent=2, ensure_ascii=False), "json"
    shown, rest = text[:limit], len(text) - limit
    fence = fence_for(shown)
    lines = [f"{fence}{lang}", *shown.split("\n"), fence, ""]
    if rest > 0:
        lines.extend([f"_… {rest:,} more characters not shown_", ""])
    return lines


def _parsed_json(text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return text
    try:
        return json.loads(stripped)
    except ValueError:
        return text


def _clarify(step: Clarify) -> list[str]:
    lines = [f"> **Question:** {safe_inline(step.question)}"]
    if step.choices:
        lines.append(f"> Choices: {' · '.join(safe_inline(c) for c in step.choices)}")
    if step.answer is None:
        answer = "_not answered_"
    elif step.timed_out:
        answer = "_no answer in time; the agent used its judgement_"
    else:
        answer = safe_inline(step.answer)
    return [*lines, ">", f"> **Answer:** {answer}", ""]


def _todos(step: Todos) -> list[str]:
    lines = ["**Todo list**", ""]
    for item in step.items:
        status = str(item.get("status", "pending"))
        mark = "[x]" if status == "completed" else "[ ]"
        note = TODO_NOTES.get(status, "")
        lines.append(f"- {mark} {safe_inline(str(item.get('content', '')))}{note}")
    return [*lines, ""]
