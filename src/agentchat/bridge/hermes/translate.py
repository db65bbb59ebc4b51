"""Translate hermes-agent callbacks (on hermes threads) into bridge events.

One translator per turn. Every method is safe to call from any thread: events go through
`emit`, which hands them to the asyncio loop. No method raises into hermes.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from agentchat.bridge.hermes.text import (
    compact_json,
    looks_like_error,
    strip_face,
    strip_leading_symbols,
    todo_list,
    truncate,
    wait_notice,
)
from agentchat.bridge.live.clarify_gate import ClarifyGate, ClarifyOutcome
from agentchat.protocol.events import (
    APPROVAL_CHOICES,
    AnswerDelta,
    Approval,
    BridgeEvent,
    ClarifyAnswered,
    ClarifyAnsweredMeta,
    ClarifyRequest,
    ContextCompacted,
    Interim,
    McpOrigin,
    Pause,
    Status,
    Step,
    StepMeta,
    Thinking,
    TodoUpdate,
    ToolCall,
    ToolCallMeta,
    ToolMedia,
    ToolResult,
    ToolResultMeta,
)
from agentchat.protocol.mcp import tool_origin

log = logging.getLogger(__name__)

Emit = Callable[[BridgeEvent], None]
ToolPreview = Callable[[str, dict[str, Any]], str | None]
SummaryOf = Callable[[list[dict[str, Any]]], str]
MediaOf = Callable[[str], list[ToolMedia]]

CLARIFY_TIMEOUT_ANSWER = "The user did not answer; use your best judgement."


class TurnTranslator:
    def __init__(
        self,
        emit: Emit,
        clarify: ClarifyGate,
        *,
        faces: Iterable[str] = (),
        tool_preview: ToolPreview | None = None,
        summary_of: SummaryOf | None = None,
        tool_result_max_chars: int = 20_000,
        silence_limit_s: float | None = None,
    ) -> None:
        self._emit = emit
        self._clarify = clarify
        self._faces = tuple(faces)
        self._tool_preview = tool_preview
        self._summary_of = summary_of
        self._max_result = tool_result_max_chars
        self._silence_limit_s = silence_limit_s
        self._lock = threading.Lock()
        self._answer: list[str] = []
        self._last_status = ""
        self._clarify_call_id: str | None = None
        self._compressed: list[dict[str, Any]] | None = None
        self._tool_started: dict[str, float] = {}
        self._hermes_timings: dict[str, list[tuple[float | None, bool]]] = {}
        self.compacted = False
        self.thought = False
        self.max_iterations = 0
        # This turn's MCP servers (hermes' sanitised name → ours) and the reader of the media
        # their tools return (bridge/mcp/media.py).
        self.mcp_names: dict[str, str] = {}
        self.media_of: MediaOf | None = None

    # ── outputs ────────────────────────────────────────────────────────────
    @property
    def streamed_answer(self) -> str:
        with self._lock:
            return "".join(self._answer)

    # ── hermes callbacks ──────────────────────────────────────────────────
    def on_thinking(self, text: str) -> None:
        """Spinner text; hermes re-raises exceptions from this one, so never raise."""
        try:
            notice = wait_notice(text or "", self._silence_limit_s)
            self._status(notice or strip_face(text or "", self._faces))
        except Exception:
            log.exception("thinking callback failed")

    def on_status(self, kind: str, text: str) -> None:
        self._status(strip_leading_symbols(text or ""))

    def _status(self, text: str) -> None:
        if text == self._last_status:
            return
        self._last_status = text
        if not text:
            return
        self._emit(Status(content=text))

    def on_reasoning(self, text: str) -> None:
        if text:
            self.thought = True
            self._emit(Thinking(content=text))

    def on_interim(self, text: str) -> None:
        """Text written before tool calls: it is not part of the answer that follows."""
        if not text:
            return
        with self._lock:
            self._answer.clear()
        self._emit(Interim(content=text))

    def on_stream_delta(self, text: str | None) -> None:
        if not text:
            return
        with self._lock:
            self._answer.append(text)
        self._emit(AnswerDelta(content=text))

    def on_tool_start(self, tool_call_id: str, name: str, args: dict[str, Any]) -> None:
        if name == "clarify":
            self._clarify_call_id = tool_call_id
        args = args if isinstance(args, dict) else {}
        call_id = str(tool_call_id or "")
        with self._lock:
            self._tool_started[call_id] = time.monotonic()
        meta = ToolCallMeta(tool_call_id=call_id, args=args, mcp=self._origin(name))
        self._emit(ToolCall(content=self._preview(name, args), tool_name=name, meta=meta))

    def on_tool_progress(self, event: str, name: str = "", *args: Any) -> None:
        """hermes' tool progress: "tool.completed" carries the duration it measured and whether
        it judged the result an error, just before the same call's `on_tool_complete` (which has
        the call id; progress has only the tool's name). Other progress is already covered."""
        if event != "tool.completed":
            return
        extra = args[-1] if args and isinstance(args[-1], dict) else {}
        duration = extra.get("duration")
        seconds = float(duration) if isinstance(duration, int | float) else None
        with self._lock:
            self._hermes_timings.setdefault(str(name), []).append(
                (seconds, bool(extra.get("is_error")))
            )

    def on_tool_complete(
        self, tool_call_id: str, name: str, args: dict[str, Any], result: str
    ) -> None:
        text = result if isinstance(result, str) else compact_json(result, self._max_result)
        meta = self._result_meta(str(tool_call_id or ""), name, text)
        origin = self._origin(name)
        if origin is not None:
            media = self.media_of(text) if self.media_of else []
            meta = meta.model_copy(update={"mcp": origin, "media": media or None})
        content = truncate(text, self._max_result)
        self._emit(ToolResult(content=content, tool_name=name, meta=meta))
        todos = todo_list(text) if name == "todo" else None
        if todos is not None:
            self._emit(TodoUpdate(content=json.dumps(todos, ensure_ascii=False), tool_name=name))

    def _result_meta(self, call_id: str, name: str, text: str) -> ToolResultMeta:
        """Duration and error as hermes reported them for this call, else our own timing."""
        with self._lock:
            started = self._tool_started.pop(call_id, None)
            timings = self._hermes_timings.get(name)
            timing = timings.pop(0) if timings else None
        error = looks_like_error(text)
        seconds, hermes_error = timing if timing is not None else (None, False)
        if seconds is not None:
            return ToolResultMeta(
                tool_call_id=call_id,
                duration_ms=round(seconds * 1000),
                is_error=True if hermes_error or error else None,
                timed_by="hermes",
            )
        return ToolResultMeta(
            tool_call_id=call_id,
            duration_ms=None if started is None else round((time.monotonic() - started) * 1000),
            is_error=True if error else None,
        )

    def on_step(self, iteration: int, *_: Any) -> None:
        meta = StepMeta(iteration=int(iteration or 0), max_iterations=self.max_iterations)
        self._emit(Step(meta=meta))

    def on_clarify(self, question: str, choices: list[str] | None) -> str:
        clarify_id = self._clarify_call_id or uuid.uuid4().hex
        self._clarify_call_id = None
        options = [str(c) for c in choices or []]
        return self._pause(clarify_id, question, options, None, CLARIFY_TIMEOUT_ANSWER)

    def on_approval(self, command: str, description: str) -> str:
        """A dangerous command waits for the person: their choice, or "Deny" without one."""
        question = f"Allow this command ({description})?\n{truncate(command, 500)}"
        approval = Approval(command=command, description=description)
        deny = APPROVAL_CHOICES[-1]
        answer = self._pause(uuid.uuid4().hex, question, list(APPROVAL_CHOICES), approval, deny)
        return answer or deny

    def on_mcp_approval(self, server: str, tool: str, args: dict[str, Any]) -> str:
        """A call of an "ask before each call" MCP server waits for the person."""
        shown = compact_json(args, 500) if args else ""
        question = f"Allow the tool {tool} of the MCP server {server}?\n{shown}".rstrip()
        origin = McpOrigin(server=server, tool=tool)
        approval = Approval(command=f"{tool} {shown}".strip(), description=server, mcp=origin)
        deny = APPROVAL_CHOICES[-1]
        answer = self._pause(uuid.uuid4().hex, question, list(APPROVAL_CHOICES), approval, deny)
        return answer or deny

    def _pause(
        self,
        clarify_id: str,
        question: str,
        options: list[str],
        approval: Approval | None,
        timeout_answer: str,
    ) -> str:
        pending = self._clarify.open(clarify_id, question, options)
        if pending is None:
            return ""
        ask = Pause(clarify_id=clarify_id, question=question, choices=options, approval=approval)
        self._emit(ClarifyRequest(content=question, meta=ask))
        outcome = self._clarify.wait(pending)
        if outcome is ClarifyOutcome.ABORTED:
            return ""
        answer = pending.answer if outcome is ClarifyOutcome.ANSWERED else timeout_answer
        timed_out = True if outcome is ClarifyOutcome.TIMED_OUT else None
        meta = ClarifyAnsweredMeta(clarify_id=clarify_id, answer=answer, timed_out=timed_out)
        self._emit(ClarifyAnswered(content=answer, meta=meta))
        return answer

    def on_compressed(self, messages: list[dict[str, Any]]) -> None:
        """The compressor returned a new message list (captured before session:compress)."""
        self._compressed = messages

    def on_event(self, name: str, payload: dict[str, Any]) -> None:
        if name == "session:compress":
            self.announce_compaction(self._compressed or [])

    def announce_compaction(self, messages: list[dict[str, Any]]) -> None:
        self.compacted = True
        summary = self._summary_of(messages) if self._summary_of else ""
        self._emit(ContextCompacted(summary=summary))

    # ── helpers ───────────────────────────────────────────────────────────
    def _origin(self, name: str) -> McpOrigin | None:
        found = tool_origin(name, self.mcp_names) if self.mcp_names else None
        return McpOrigin(server=found[0], tool=found[1]) if found else None

    def _preview(self, name: str, args: dict[str, Any]) -> str:
        if self._tool_preview is not None:
            try:
                preview = self._tool_preview(name, args)
            except Exception:
                preview = None
            if preview:
                return str(preview)
        return compact_json(args) if args else ""
