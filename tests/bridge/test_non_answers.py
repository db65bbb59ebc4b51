"""hermes' results that carry no real answer, told apart from answers (no hermes needed)."""

from __future__ import annotations

import pytest

from agentchat.bridge.hermes import non_answers


def test_a_normal_answer_has_no_problem() -> None:
    result = {"final_response": "Hi", "turn_exit_reason": "text_response(finish_reason=stop)"}
    assert non_answers.problem(result, thought=True) is None


@pytest.mark.parametrize("key", ["failed", "interrupted"])
def test_failed_and_interrupted_turns_are_left_to_their_own_handling(key: str) -> None:
    result = {key: True, "turn_exit_reason": "empty_response_exhausted"}
    assert non_answers.problem(result, thought=False) is None


def test_an_empty_answer_says_whether_the_model_reasoned() -> None:
    result = {"final_response": "(empty)", "turn_exit_reason": "empty_response_exhausted"}
    assert non_answers.problem(result, thought=False) == non_answers.EMPTY
    assert non_answers.problem(result, thought=True) == non_answers.REASONING_ONLY


@pytest.mark.parametrize(
    ("error", "words"),
    [
        ("Response remained truncated after 4 continuation attempts", "again and again"),
        ("Response truncated due to output length limit", "output length limit"),
        ("Model generated invalid tool call: nope", "invalid tool call: nope"),
    ],
)
def test_a_partial_turn_ends_with_a_reason(error: str, words: str) -> None:
    result = {"final_response": "x", "partial": True, "completed": False, "error": error}
    found = non_answers.problem(result, thought=False)
    assert found is not None and words in found


def test_hermes_apology_after_repeated_errors_is_not_an_answer() -> None:
    result = {
        "final_response": "I apologize, but I encountered repeated errors: boom",
        "turn_exit_reason": "error_near_max_iterations(boom)",
    }
    assert non_answers.problem(result, thought=False) == non_answers.REPEATED_ERRORS + "boom"
