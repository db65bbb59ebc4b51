"""Turns hermes ends without a real answer, told apart from answers.

hermes returns some turns that produced no usable answer with `failed` left False and its own
words as `final_response`: "⚠️ No reply: … Try `continue` …" after empty answers, the partial
text after a stream that kept breaking off, "Response truncated due to output length limit",
"I apologize, but I encountered repeated errors …". Stored as SUCCESS, that text would show
as the model's answer and go back to the model as its own words in the next turn. Such a turn
ends FAILED with one of these sentences; the text the page showed is kept.

Pure functions of hermes' result dict; imported by the bridge only.
"""

from __future__ import annotations

from typing import Any

from agentchat.bridge.guards.request_policy import public_error

EMPTY = "The model returned an empty answer, also when asked again."
REASONING_ONLY = "The model only reasoned and wrote no answer, also when asked again."
BROKE_OFF = "The model's answer broke off before it ended; the text so far is kept."
KEPT_BREAKING = (
    "The model's answer broke off again and again (its stream broke, or it reached its output "
    "limit); the text so far is kept."
)
REPEATED_ERRORS = "The agent stopped after repeated errors: "
UNFINISHED = "The model did not finish its answer: "

_ERROR_EXITS = ("local_processing_error", "error_near_max_iterations")


def problem(result: dict[str, Any], thought: bool) -> str | None:
    """Why a turn hermes did not mark failed has no real answer; None when it has one.
    `thought`: the turn showed reasoning."""
    if result.get("failed") or result.get("interrupted"):
        return None
    reason = str(result.get("turn_exit_reason") or "")
    if reason == "empty_response_exhausted":
        return REASONING_ONLY if thought else EMPTY
    if reason == "partial_stream_recovery":
        return BROKE_OFF
    if reason.startswith(_ERROR_EXITS):
        return REPEATED_ERRORS + _detail(reason)
    if result.get("partial"):
        return _partial_problem(str(result.get("error") or ""))
    return None


def _partial_problem(error: str) -> str:
    if "remained truncated" in error:
        return KEPT_BREAKING
    return UNFINISHED + (public_error(error) or "hermes gave no reason")


def _detail(reason: str) -> str:
    """The text in hermes' exit reason: "error_near_max_iterations(text)" → "text"."""
    inner = reason.partition("(")[2].removesuffix(")")
    return public_error(inner) or reason
