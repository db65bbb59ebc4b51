"""The history sent to the bridge, rebuilt from a branch (pure, no servers)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from agentchat.runs.history import compact_turn, expand_turn, history_for


@dataclass
class Row:
    role: str
    status: str
    content: str
    agent_messages: str | None = None


def _turn(question: str, answer: str, tools: bool = False) -> list[dict[str, object]]:
    middle: list[dict[str, object]] = []
    if tools:
        call = {"id": "c1", "type": "function", "function": {"name": "todo", "arguments": "{}"}}
        middle = [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "{}"},
        ]
    return [
        {"role": "user", "content": question},
        *middle,
        {"role": "assistant", "content": answer},
    ]


def test_a_stored_turn_does_not_repeat_the_question_or_the_answer() -> None:
    turn = _turn("what is 2+2?", "4", tools=True)
    stored = compact_turn(turn, "what is 2+2?", "4")
    raw = json.dumps(stored)
    assert "what is 2+2?" not in raw and '"4"' not in raw
    assert expand_turn(stored, "what is 2+2?", "4") == turn


def test_a_turn_of_just_the_question_and_answer_is_not_stored_and_comes_back_the_same() -> None:
    turn = _turn("what is 2+2?", "4")
    as_hermes_gives_it = [turn[0], {**turn[1], "reasoning": None, "finish_reason": "stop"}]
    assert compact_turn(as_hermes_gives_it, "what is 2+2?", "4") == []
    for status in ("SUCCESS", "STOPPED", "INTERRUPTED"):
        stored = [Row("USER", "SENT", "what is 2+2?"), Row("ASSISTANT", status, "4", None)]
        assert history_for(stored) == turn


def test_a_turn_with_reasoning_or_a_cut_answer_is_stored() -> None:
    turn = _turn("q", "a")
    for extra in ({"reasoning": "because"}, {"finish_reason": "length"}, {"tool_calls": []}):
        stored = compact_turn([turn[0], {**turn[1], **extra}], "q", "a")
        assert stored and expand_turn(stored, "q", "a") == [turn[0], {**turn[1], **extra}]


def test_a_turn_that_does_not_match_is_stored_as_it_is() -> None:
    turn = _turn("q", "the model said this")
    assert compact_turn(turn, "other question", "other answer") == turn


def test_history_joins_turns_and_starts_again_after_summary_and_reset() -> None:
    first = _turn("q1", "a1", tools=True)
    branch = [
        Row("USER", "SENT", "q1"),
        Row("ASSISTANT", "SUCCESS", "a1", json.dumps(compact_turn(first, "q1", "a1"))),
        Row("USER", "SENT", "q2"),
        Row("ASSISTANT", "FAILED", ""),
    ]
    assert history_for(branch) == first
    branch += [Row("USER", "SENT", "q3"), Row("ASSISTANT", "STOPPED", "partial")]
    assert history_for(branch)[-2:] == [
        {"role": "user", "content": "q3"},
        {"role": "assistant", "content": "partial"},
    ]
    summary = [{"role": "user", "content": "summary of earlier"}]
    branch.append(Row("SYSTEM", "SUMMARY", "s", json.dumps(summary)))
    assert history_for(branch) == summary
    branch.append(Row("SYSTEM", "RESET", ""))
    assert history_for(branch) == []
