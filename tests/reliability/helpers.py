"""Small helpers of the reliability tests: waiting on conditions, reading a session's tree."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
SETTLED = {"SUCCESS", "FAILED", "STOPPED"}


def wait_for(
    read: Callable[[], T], done: Callable[[T], bool], timeout: float = 20.0, what: str = ""
) -> T:
    """Call read() until done(value) holds; the last value, or TimeoutError after timeout."""
    deadline = time.monotonic() + timeout
    value = read()
    while not done(value):
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what or 'a condition'}; last: {value!r}")
        time.sleep(0.05)
        value = read()
    return value


def answers(detail: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in detail["messages"] if m["role"] == "ASSISTANT"]


def log_kinds(message: dict[str, Any]) -> list[str]:
    return [log["kind"] for log in message.get("logs") or []]


def streamed_text(events: list[Any]) -> str:
    """The answer text a stream carried (its `answer_delta` events joined)."""
    return "".join(
        e.data["content"]
        for e in events
        if e.event == "node_stream" and e.data.get("kind") == "answer_delta"
    )


def last_answer(http: Any, session_id: int) -> dict[str, Any]:
    """The session's newest answer, read through the API."""
    response = http.get(f"/api/chat/sessions/{session_id}")
    assert response.status_code == 200, response.text
    return answers(response.json())[-1]
