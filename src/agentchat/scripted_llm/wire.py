"""OpenAI chat-completions wire format: stream chunks, whole completions, errors, models."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from agentchat.scripted_llm.play import Text, ToolCall

MODEL_ID = "scripted"
CONTEXT_LENGTH = 131072

_COMPACT = (",", ":")
MALFORMED_LINE = 'data: {"id":"chatcmpl-garbled","choices":[{"delta":{"content":"\n\n'
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


def model_card(model_id: str = MODEL_ID) -> dict[str, Any]:
    return {
        "id": model_id,
        "object": "model",
        "created": 0,
        "owned_by": "agentchat",
        "context_length": CONTEXT_LENGTH,
        "max_model_len": CONTEXT_LENGTH,
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "code": str(status), "param": None}}


def context_error_body(limit: int, tokens: int) -> dict[str, Any]:
    """OpenAI's answer to a prompt longer than the model's window."""
    message = (
        f"This model's maximum context length is {limit} tokens. However, your messages "
        f"resulted in {tokens} tokens. Please reduce the length of the messages."
    )
    kind = "invalid_request_error"
    error = {
        "message": message,
        "type": kind,
        "param": "messages",
        "code": "context_length_exceeded",
    }
    return {"error": error}


def usage(prompt_tokens: int, completion_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def estimate_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """A rough, deterministic size: four characters a token."""
    return sum(len(json.dumps(m.get("content") or "")) for m in messages) // 4 + 1


class ChunkWriter:
    """Encodes one streamed completion as SSE `data:` lines.

    The envelope of a delta chunk is formatted once; each chunk only encodes its delta.
    """

    def __init__(self, model: str) -> None:
        self.model = model
        self.completion_id = f"chatcmpl-scripted-{time.time_ns()}"
        self.created = int(time.time())
        self.tool_calls = 0
        self._role_sent = False
        head = self._line([{"index": 0, "delta": "\0", "finish_reason": None}])
        self._prefix, self._suffix = head.rsplit('"\\u0000"', 1)

    def _line(self, choices: list[dict[str, Any]], **extra: Any) -> str:
        chunk = {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": choices,
            **extra,
        }
        return f"data: {json.dumps(chunk, separators=_COMPACT)}\n\n"

    def _delta(self, delta: dict[str, Any]) -> str:
        if not self._role_sent:
            delta = {"role": "assistant", **delta}
            self._role_sent = True
        return self._prefix + json.dumps(delta, separators=_COMPACT) + self._suffix

    def text(self, event: Text) -> str:
        key = "content" if event.channel == "content" else "reasoning_content"
        return self._delta({key: event.text})

    def tool_call(self, event: ToolCall) -> list[str]:
        """The call's name first, then its arguments in one piece."""
        index = self.tool_calls
        self.tool_calls += 1
        head = {
            "index": index,
            "id": event.call_id,
            "type": "function",
            "function": {"name": event.name, "arguments": ""},
        }
        body = {"index": index, "function": {"arguments": event.arguments}}
        return [self._delta({"tool_calls": [head]}), self._delta({"tool_calls": [body]})]

    def finish(self, prompt_tokens: int, completion_tokens: int) -> list[str]:
        reason = "tool_calls" if self.tool_calls else "stop"
        return [
            self._line([{"index": 0, "delta": {}, "finish_reason": reason}]),
            self._line([], usage=usage(prompt_tokens, completion_tokens)),
            "data: [DONE]\n\n",
        ]


@dataclass(slots=True)
class CompletionBuilder:
    """Collects events into one non-streaming `chat.completion`."""

    model: str
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)

    def add(self, event: Text | ToolCall) -> None:
        if isinstance(event, ToolCall):
            function = {"name": event.name, "arguments": event.arguments}
            self.calls.append({"id": event.call_id, "type": "function", "function": function})
        elif event.channel == "content":
            self.content.append(event.text)
        else:
            self.reasoning.append(event.text)

    def build(self, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.content) or None}
        if self.reasoning:
            message["reasoning_content"] = "".join(self.reasoning)
        if self.calls:
            message["tool_calls"] = self.calls
        choice = {
            "index": 0,
            "message": message,
            "finish_reason": "tool_calls" if self.calls else "stop",
        }
        return {
            "id": f"chatcmpl-scripted-{time.time_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [choice],
            "usage": usage(prompt_tokens, completion_tokens),
        }
