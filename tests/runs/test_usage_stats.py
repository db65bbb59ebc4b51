"""Usage you can read (issue 15, finding 6): each answer carries the usage hermes reported, the
session statistics add up the stored usage (not visible text / 4), the compaction summariser's
calls included (tests/bridge/test_turn_usage.py), and the context window after the latest
turn is there for the meter."""

from __future__ import annotations

from typing import Any

from tests.support.api_stack import Stack


def _answer(stack: Stack, session_id: int, message: str, **extra: Any) -> dict[str, Any]:
    _, events = stack.ask(session_id, message, **extra)
    assert events[-1].event == "workflow_complete", events[-1].data
    messages = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    answer: dict[str, Any] = messages[-1]
    assert answer["role"] == "ASSISTANT"
    return answer


def test_each_answer_carries_its_usage_and_the_stats_add_them_up(stack: Stack) -> None:
    session_id = stack.new_session()
    first = _answer(stack, session_id, "#usage 4321\n#say one")
    assert first["usage"]["promptTokens"] == 4321
    assert first["usage"]["completionTokens"] >= 1
    assert first["usage"]["contextTokens"] == 4321
    _answer(stack, session_id, "#usage 6679\n#say two")

    stats = stack.get(f"/api/chat/sessions/{session_id}/stats")

    assert stats["usage"]["promptTokens"] == 11000
    assert stats["usage"]["turns"] == 2
    assert stats["usage"]["apiCalls"] == 2
    assert stats["context"] == {"tokens": 6679, "length": 131072}
    assert "estimatedTokens" not in stats


def test_a_new_session_has_no_usage_and_no_context(stack: Stack) -> None:
    session_id = stack.new_session()
    stats = stack.get(f"/api/chat/sessions/{session_id}/stats")
    assert stats["usage"]["promptTokens"] == 0 and stats["context"] is None


def test_a_stopped_turn_keeps_the_usage_of_the_calls_it_made(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#usage 1234\n#todo a\n#sleep 20000\n#say never")
    stack.events(
        started["runId"], stop=lambda ev: any(e.data.get("kind") == "todo_update" for e in ev)
    )
    stack.post(f"/api/chat/runs/{started['runId']}/stop", expect=200)
    assert stack.events(started["runId"])[-1].event == "workflow_error"

    stats = stack.get(f"/api/chat/sessions/{session_id}/stats")

    assert stats["usage"]["promptTokens"] >= 1234
    assert stats["usage"]["apiCalls"] >= 1
