"""A model that answers without an answer: nothing at all (finish_reason stop, no content), only
reasoning, or a stream that keeps breaking off. hermes returns such turns as if they had
answered, with its own CLI text ("⚠️ No reply: … Try `continue` …") as the answer. The person
must see a FAILED answer that says what went wrong in the page's words, keeping exactly the
text the page showed, and the next question must not carry hermes' text back to the model."""

from __future__ import annotations

import json

from agentchat.chat import tree
from agentchat.runs.history import history_for
from tests.reliability.helpers import answers, log_kinds, streamed_text
from tests.support.api_stack import Stack

HERMES_WORDS = ("No reply", "`continue`", "(empty)", "I apologize")


def _last_answer(stack: Stack, session_id: int) -> dict[str, object]:
    return answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]


def _next_history(stack: Stack, session_id: int) -> str:
    with stack.database.session() as db:
        return json.dumps(history_for(tree.active_branch(db, session_id)))


def _assert_no_hermes_words(*texts: object) -> None:
    for text in texts:
        for words in HERMES_WORDS:
            assert words not in str(text), (words, text)


def test_an_empty_answer_ends_failed_and_is_not_replayed(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "Say nothing\n#empty")
    end = events[-1]
    assert end.event == "workflow_error", end.data
    assert "empty answer" in end.data["message"], end.data
    answer = _last_answer(stack, session_id)
    assert (answer["status"], answer["content"]) == ("FAILED", "")
    assert answer["error"] == end.data["message"]
    _assert_no_hermes_words(end.data, answer["content"], answer["error"])

    _, events = stack.ask(session_id, "Again\n#echo-context")
    assert events[-1].event == "workflow_complete", events[-1].data
    assert events[-1].data["finalText"] == "CONTEXT: Again"
    _assert_no_hermes_words(_next_history(stack, session_id))


def test_a_reasoning_only_answer_ends_failed_with_its_thinking_kept(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "#think Weighing it up\n#empty")
    end = events[-1]
    assert end.event == "workflow_error", end.data
    assert "only reasoned" in end.data["message"], end.data
    answer = _last_answer(stack, session_id)
    assert (answer["status"], answer["content"]) == ("FAILED", "")
    assert "thinking" in log_kinds(answer)
    _assert_no_hermes_words(end.data, answer["error"], _next_history(stack, session_id))


def test_an_answer_that_keeps_breaking_off_ends_failed_with_the_text_shown(
    stack: Stack,
) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "#say Half an answer\n#malformed\n#say never sent")
    end = events[-1]
    assert end.event == "workflow_error", end.data
    assert "broke off" in end.data["message"], end.data
    shown = streamed_text(events)
    assert shown.startswith("Half an answer")
    answer = _last_answer(stack, session_id)
    assert answer["status"] == "FAILED"
    assert answer["content"] == shown
    assert "never sent" not in str(answer["content"])
    _assert_no_hermes_words(end.data, answer["error"])

    _, events = stack.ask(session_id, "#say next one")
    assert events[-1].event == "workflow_complete", events[-1].data
    assert events[-1].data["finalText"] == "next one"
