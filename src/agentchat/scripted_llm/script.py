"""Directive scripts: parse the latest user message into steps and pick the step to play.

Pure functions only; the HTTP layer lives in `server.py`. A script is the list of `#name arg`
lines of the latest real user message. A tool directive (`#tool`, `#todo`, `#clarify`) ends a
step; `#also` right after one adds a further call to the same step (one assistant message with
several tool calls); the directives after the last tool directive form the final step. A
request plays step N, where N is the number of tool rounds the agent has already answered after
that user message.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

KNOWN = frozenset(
    {
        "think",
        "say",
        "say-escaped",
        "tokens",
        "delay",
        "sleep",
        "tool",
        "also",
        "todo",
        "clarify",
        "echo-tool-result",
        "echo-context",
        "echo-tools",
        "echo-parts",
        "usage",
        "fail",
        "stall",
        "think-inline",
        "system-contains",
        "hold",
        "empty",
        "malformed",
        "context",
    }
)
TOOL_DIRECTIVES = frozenset({"tool", "also", "todo", "clarify"})

# User-role messages hermes-agent adds itself (compaction scaffolding, recovery nudges).
_SYNTHETIC_PREFIXES = (
    "[System:",
    "[Your active task list was preserved",
    "[IMPORTANT: Background process",
    "[CONTEXT COMPACTION",
    "[CONTEXT SUMMARY]",
)
_PRIOR_HEADER = "[PRIOR CONTEXT"
_PRIOR_END = "[END OF PRIOR CONTEXT"
_SUMMARY_REQUESTS = ("You are a summarization agent", "Review the conversation above")


@dataclass(frozen=True, slots=True)
class Directive:
    name: str
    arg: str = ""


@dataclass(frozen=True, slots=True)
class Step:
    """Directives played in one response; `directives[-1]` may be the step's tool call."""

    directives: tuple[Directive, ...]
    carried_delay_ms: int = 0  # the `#delay` in force when the step starts


@dataclass(frozen=True, slots=True)
class Conversation:
    """What a request needs from its messages."""

    latest_user: str  # raw text of the latest real user message ("" if none)
    rounds: int  # assistant tool-call messages after it
    user_texts: tuple[str, ...]  # every real user message, oldest first
    latest_tool_result: str | None
    is_summary_request: bool
    message_count: int
    nudged: bool = False  # hermes asked to continue a cut-off answer after the latest user
    system_text: str = ""
    tool_names: tuple[str, ...] = ()  # the functions the request offered the model
    # Each real user message's content parts, described (`#echo-parts`), oldest first
    user_parts: tuple[str, ...] = ()


# --- messages ----------------------------------------------------------------------------


def message_text(message: dict[str, Any]) -> str:
    """The text of a message whose content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = (p.get("text") or "" for p in content if isinstance(p, dict))
        return "\n".join(str(p) for p in parts if p)
    return ""


def _unwrap_prior_context(text: str) -> str:
    """A tail message merged with a compaction summary keeps its own text before the summary."""
    if not text.startswith(_PRIOR_HEADER):
        return text
    body = text.split("\n", 1)[1] if "\n" in text else ""
    return body.split(_PRIOR_END, 1)[0].strip()


def is_real_user(message: dict[str, Any]) -> bool:
    if message.get("role") != "user":
        return False
    text = message_text(message).lstrip()
    return bool(text) and not text.startswith(_SYNTHETIC_PREFIXES)


def read_conversation(
    messages: list[dict[str, Any]], offered: list[dict[str, Any]] | None = None
) -> Conversation:
    """`offered`: the request's `tools` (OpenAI function schemas)."""
    users = [i for i, m in enumerate(messages) if is_real_user(m)]
    last = users[-1] if users else -1
    latest = _unwrap_prior_context(message_text(messages[last])) if users else ""
    after = messages[last + 1 :]
    rounds = sum(1 for m in after if m.get("role") == "assistant" and m.get("tool_calls"))
    tools = [m for m in messages if m.get("role") == "tool"]
    last_any_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    summary = last_any_user is not None and message_text(last_any_user).lstrip().startswith(
        _SUMMARY_REQUESTS
    )
    nudges = (m for m in after if m.get("role") == "user")
    system = next((m for m in messages if m.get("role") == "system"), None)
    return Conversation(
        latest_user=latest,
        rounds=rounds,
        user_texts=tuple(_unwrap_prior_context(message_text(messages[i])) for i in users),
        latest_tool_result=message_text(tools[-1]) if tools else None,
        is_summary_request=summary,
        message_count=len(messages),
        nudged=any(message_text(m).lstrip().startswith("[System:") for m in nudges),
        system_text=message_text(system) if system else "",
        tool_names=tool_names(offered or []),
        user_parts=tuple(describe_parts(messages[i]) for i in users),
    )


def describe_parts(message: dict[str, Any]) -> str:
    """`text` for text, `image/png:<sha256 of its bytes>` for an image sent as a data URL (the
    URL itself for another), joined by " + "."""
    content = message.get("content")
    if not isinstance(content, list):
        return "text"
    return " + ".join(_part(p) for p in content if isinstance(p, dict))


def _part(part: dict[str, Any]) -> str:
    if part.get("type") != "image_url":
        return str(part.get("type") or "part")
    image = part.get("image_url")
    url = str(image.get("url") if isinstance(image, dict) else image or "")
    header, _, data = url.partition(",")
    if not url.startswith("data:") or ";base64" not in header:
        return f"image-url:{url[:200]}"
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        return "image:undecodable"
    return f"{header[5:].split(';')[0]}:{hashlib.sha256(raw).hexdigest()}"


def tool_names(tools: list[dict[str, Any]]) -> tuple[str, ...]:
    """The function names of an OpenAI `tools` list, sorted."""
    names = (t.get("function", {}).get("name") for t in tools if isinstance(t, dict))
    return tuple(sorted(str(n) for n in names if n))


# --- directives --------------------------------------------------------------------------


def parse_line(line: str) -> Directive | None:
    """`#name arg` for a known name, else None (plain text and unknown `#` lines)."""
    stripped = line.strip()
    if not stripped.startswith("#"):
        return None
    name, _, arg = stripped[1:].partition(" ")
    name = name.lower()
    return Directive(name, arg.strip()) if name in KNOWN else None


def parse_directives(text: str) -> list[Directive]:
    return [d for d in map(parse_line, text.splitlines()) if d is not None]


def plain_text(text: str) -> str:
    """The message without its directive lines (used by `#echo-context`)."""
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("#")]
    return "\n".join(lines).strip()


def split_steps(directives: list[Directive]) -> list[Step]:
    """Cut after every tool directive; the rest is the final step (always present)."""
    steps: list[Step] = []
    current: list[Directive] = []
    delay = 0
    step_delay = 0
    for directive in directives:
        if directive.name == "also" and steps and not current:
            last = steps[-1]
            steps[-1] = Step((*last.directives, directive), last.carried_delay_ms)
            continue
        current.append(directive)
        if directive.name == "delay":
            delay = to_int(directive.arg)
        if directive.name in TOOL_DIRECTIVES:
            steps.append(Step(tuple(current), step_delay))
            current, step_delay = [], delay
    steps.append(Step(tuple(current), step_delay))
    return steps


def pick_step(steps: list[Step], rounds: int) -> Step:
    return steps[min(rounds, len(steps) - 1)]


def to_int(value: str, default: int = 0) -> int:
    try:
        return int(value.split()[0]) if value.strip() else default
    except ValueError:
        return default
