"""A chat is titled from its first question whatever became of the first answer."""

from __future__ import annotations

from tests.support.api_stack import Stack


def _title(stack: Stack, session_id: int) -> str | None:
    title: str | None = stack.get(f"/api/chat/sessions/{session_id}")["session"]["title"]
    return title


def test_a_failed_first_turn_still_titles_the_chat(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "Where is Lyon?\n#fail 500")
    assert events[-1].event == "workflow_error"
    assert _title(stack, session_id) == "Where is Lyon? #fail 500"


def test_a_stopped_first_turn_still_titles_the_chat(stack: Stack) -> None:
    session_id = stack.new_session()
    run_id = stack.start(session_id, "Count slowly\n#delay 50\n#tokens 400")["runId"]
    stack.events(run_id, stop=lambda ev: any(e.data.get("kind") == "answer_delta" for e in ev))
    stack.post(f"/api/chat/runs/{run_id}/stop", expect=200)
    assert stack.events(run_id)[-1].data.get("stopped") is True
    assert _title(stack, session_id) == "Count slowly #delay 50 #tokens…"


def test_the_title_is_there_while_the_first_answer_runs(stack: Stack) -> None:
    session_id = stack.new_session()
    run_id = stack.start(session_id, "Slow one\n#delay 50\n#tokens 100")["runId"]
    assert _title(stack, session_id) == "Slow one #delay 50 #tokens 100"
    stack.post(f"/api/chat/runs/{run_id}/stop", expect=200)
    stack.events(run_id)


def test_a_later_question_does_not_retitle(stack: Stack) -> None:
    session_id = stack.new_session()
    stack.ask(session_id, "First question")
    stack.ask(session_id, "Second question")
    assert _title(stack, session_id) == "First question"
