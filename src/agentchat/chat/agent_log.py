"""An answer's log lines read as what the agent did: thinking per step, tool calls, questions.

Log rows are stored as they streamed: one `thinking` row per delta, a `tool_call` and a later
`tool_result` paired by `meta.toolCallId`, spinner `status` words in between. Readers (the
Markdown export, the short-term memory view) want the steps, not the deltas.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentchat.chat.schemas import LogPublic
from agentchat.protocol.events import EventModel

# Spinner and status words: progress, not content.
TRANSIENT_KINDS = frozenset({"status", "answer_delta"})


@dataclass
class Thinking:
    text: str


@dataclass
class ToolCall:
    call_id: str | None
    name: str
    args: Any
    result: str | None = None
    is_error: bool = False
    duration_ms: int | None = None
    log: LogPublic | None = field(default=None, repr=False)


@dataclass
class Clarify:
    question: str
    choices: list[str]
    answer: str | None = None
    timed_out: bool = False


@dataclass
class Todos:
    items: list[dict[str, Any]]


Step = Thinking | ToolCall | Clarify | Todos


def agent_steps(logs: Iterable[LogPublic]) -> list[Step]:
    """The log as steps, in order: consecutive thinking deltas joined (status words between
    them do not split a step), every result folded into its call, a clarify with its answer,
    back-to-back todo updates collapsed to the latest list."""
    steps: list[Step] = []
    calls: dict[str, ToolCall] = {}
    for log in logs:
        if log.kind in TRANSIENT_KINDS:
            continue
        if log.kind == "thinking":
            _add_thinking(steps, log.content or "")
        elif log.kind == "tool_call":
            _add_call(steps, calls, log)
        elif log.kind == "tool_result":
            _add_result(steps, calls, log)
        elif log.kind == "clarify_request":
            steps.append(_clarify(log))
        elif log.kind == "clarify_answered":
            _answer_clarify(steps, log)
        elif log.kind == "todo_update":
            _add_todos(steps, log)
    return [s for s in steps if not isinstance(s, Thinking) or s.text.strip()]


def tool_calls(logs: Iterable[LogPublic]) -> list[ToolCall]:
    """Only the tool calls (clarify's own call excluded: it is shown as a question)."""
    return [s for s in agent_steps(logs) if isinstance(s, ToolCall)]


def _meta(log: LogPublic) -> dict[str, Any]:
    if isinstance(log.meta, EventModel):  # typed by the events contract: its JSON body
        return log.meta.wire()
    return log.meta if isinstance(log.meta, dict) else {}


def _add_thinking(steps: list[Step], text: str) -> None:
    last = steps[-1] if steps else None
    if isinstance(last, Thinking):
        last.text += text
    else:
        steps.append(Thinking(text))


def _add_call(steps: list[Step], calls: dict[str, ToolCall], log: LogPublic) -> None:
    name = log.tool_name or "tool"
    meta = _meta(log)
    call_id = meta.get("toolCallId") if isinstance(meta.get("toolCallId"), str) else None
    if name == "clarify":
        return  # the clarify_request row carries the question
    args = meta["args"] if "args" in meta else _parsed(log.content)
    call = ToolCall(call_id, name, args, log=log)
    if call_id:
        calls[call_id] = call
    steps.append(call)


def _add_result(steps: list[Step], calls: dict[str, ToolCall], log: LogPublic) -> None:
    if log.tool_name == "clarify":
        return
    meta = _meta(log)
    call = calls.pop(meta["toolCallId"], None) if isinstance(meta.get("toolCallId"), str) else None
    if call is None:
        call = _open_call_named(steps, log.tool_name)
    if call is None:
        call = ToolCall(None, log.tool_name or "tool", None)
        steps.append(call)
    call.result = log.content or ""
    call.is_error = bool(meta.get("isError"))
    call.duration_ms = _duration(meta, call.log, log)


def _open_call_named(steps: list[Step], name: str | None) -> ToolCall | None:
    """Old logs without ids: the oldest call of that name still waiting for its result."""
    for step in steps:
        if isinstance(step, ToolCall) and step.result is None and step.name == (name or "tool"):
            return step
    return None


def _duration(meta: dict[str, Any], call: LogPublic | None, result: LogPublic) -> int | None:
    given = meta.get("durationMs")
    if isinstance(given, int | float) and not isinstance(given, bool):
        return int(given)
    if call is None:
        return None
    elapsed = (result.created_at - call.created_at).total_seconds() * 1000
    return int(elapsed) if elapsed >= 1 else None


def _clarify(log: LogPublic) -> Clarify:
    meta = _meta(log)
    choices = meta.get("choices")
    question = meta.get("question") if isinstance(meta.get("question"), str) else log.content
    return Clarify(question or "", [str(c) for c in choices] if isinstance(choices, list) else [])


def _answer_clarify(steps: list[Step], log: LogPublic) -> None:
    meta = _meta(log)
    answer = meta.get("answer") if isinstance(meta.get("answer"), str) else log.content
    for step in reversed(steps):
        if isinstance(step, Clarify) and step.answer is None:
            step.answer = answer or ""
            step.timed_out = bool(meta.get("timedOut"))
            return
    steps.append(Clarify("", [], answer or "", bool(meta.get("timedOut"))))


def _add_todos(steps: list[Step], log: LogPublic) -> None:
    items = _parsed(log.content)
    if not isinstance(items, list):
        return
    todos = Todos([i for i in items if isinstance(i, dict)])
    if steps and isinstance(steps[-1], Todos):
        steps[-1] = todos
    else:
        steps.append(todos)


def _parsed(text: str | None) -> Any:
    if not text:
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
