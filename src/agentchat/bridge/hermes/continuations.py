"""Fold hermes' stall recovery out of a turn's messages.

After a stream breaks mid-answer (or hits the output limit) hermes appends the partial
assistant message and a "[System: … Continue exactly where you left off …]" user message, asks
again and returns partial + retry joined. A model that restarts instead of continuing makes
that "partial + partial again + rest". What we store and show is one assistant message: the
retry when it repeats the partial, else partial + retry.
"""

from __future__ import annotations

import re
from typing import Any

_NUDGE = re.compile(r"^\[System: .*(continue exactly where you left off|smaller tool calls)", re.I)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)


def is_nudge(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, str)
        and bool(_NUDGE.match(content.lstrip().replace("\n", " ")))
    )


def join_parts(partial: str, retry: str) -> str:
    """The retry alone when it starts over, else the partial continued by it."""
    head = partial.strip()
    if head and retry.lstrip().startswith(head):
        return retry
    return partial + retry


def fold(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """(messages without nudges, partials merged into the answer that followed; how many
    nudges: each one is an attempt the provider cut off, usually without reporting usage)."""
    out: list[dict[str, Any]] = []
    pending = ""
    folded = 0
    for message in messages:
        if is_nudge(message):
            folded += 1
            if out and out[-1].get("role") == "assistant" and not out[-1].get("tool_calls"):
                pending = join_parts(pending, _text(out.pop()))
            continue
        if pending and message.get("role") == "assistant":
            message = {**message, "content": join_parts(pending, _text(message))}
            pending = ""
        out.append(message)
    if pending:
        out.append({"role": "assistant", "content": pending})
    return out, folded


def answer_of(messages: list[dict[str, Any]]) -> str:
    """The visible text of the last assistant message (inline reasoning removed)."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return _THINK.sub("", _text(message)).strip()
    return ""


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""
