"""A model's error is told in words that say what happened: an endpoint that answered with
garbled data was reached (it is not "could not be reached"), and a rate limit says how long
the provider asked to wait (the page's "wait a minute" is not always right)."""

from __future__ import annotations

from tests.reliability.helpers import answers
from tests.support.api_stack import Stack


def _error_of(stack: Stack, message: str) -> str:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, message)
    assert events[-1].event == "workflow_error", events[-1].data
    answer = answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]
    assert answer["status"] == "FAILED"
    assert answer["error"] == events[-1].data["message"]
    return str(answer["error"])


def test_a_garbled_stream_is_not_called_unreachable(stack: Stack) -> None:
    error = _error_of(stack, "#malformed\n#say never")
    assert "could not be reached" not in error, error
    assert "not valid JSON" in error, error


def test_a_rate_limit_says_how_long_the_provider_asked_to_wait(stack: Stack) -> None:
    error = _error_of(stack, "#fail 429 120")
    assert "HTTP 429" in error, error
    assert "retry after 120 s" in error, error
