"""Helpers to drive one bridge turn from a test and record what the sink received."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentchat.bridge_client.client import BridgeClient, BridgeResult
from agentchat.protocol.bridge_api import RunRequest
from agentchat.protocol.events import BridgeEvent, ContextCompacted, RunEnd

OnEvent = Callable[["Event", "Turn"], Awaitable[None]]


@dataclass
class Event:
    """One typed event the client yielded, with its wire fields at hand (a compaction has kind
    `context_compacted` and its summary as content)."""

    kind: str
    content: str
    tool_name: str | None
    meta: dict[str, Any] | None
    typed: BridgeEvent

    @classmethod
    def of(cls, event: BridgeEvent) -> Event:
        if isinstance(event, ContextCompacted):
            return cls("context_compacted", event.summary, None, None, event)
        body = event.wire()
        return cls(event.kind, event.content, body.get("toolName"), body.get("meta"), event)


@dataclass
class Turn:
    run_id: str
    events: list[Event] = field(default_factory=list)
    result: BridgeResult | None = None

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]

    def answer(self) -> str:
        return "".join(e.content for e in self.of("answer_delta"))


def model(base_url: str, context_length: int = 131072) -> dict[str, Any]:
    return {
        "baseUrl": base_url,
        "apiKey": "test-key",
        "modelName": "scripted",
        "provider": "openai-compatible",
        "contextLength": context_length,
    }


async def run_turn(
    client: BridgeClient,
    base_url: str,
    message: str,
    *,
    session: str = "s1",
    history: list[dict[str, Any]] | None = None,
    on_event: OnEvent | None = None,
    **extra: Any,
) -> Turn:
    turn = Turn(run_id=uuid.uuid4().hex)
    request = RunRequest.model_validate(
        {
            "runId": turn.run_id,
            "sessionId": session,
            "userMessage": message,
            "history": history or [],
            "model": extra.pop("model", None) or model(base_url),
            "maxIterations": 10,
            **extra,
        }
    )

    async with contextlib.aclosing(client.run(request)) as events:
        async for typed in events:
            if isinstance(typed, RunEnd):
                turn.result = typed
                break
            event = Event.of(typed)
            turn.events.append(event)
            if on_event is not None:
                await on_event(event, turn)
    return turn


def chat_history(pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    history: list[dict[str, Any]] = []
    for question, answer in pairs:
        history += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    return history
