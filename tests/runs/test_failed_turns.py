"""A turn that failed or was stopped before any text never leaks into the next question
(issue 15, finding 1): the agent gets exactly what the page shows."""

from __future__ import annotations

import json

from agentchat.chat import tree
from agentchat.runs.history import history_for
from tests.support.api_stack import Stack


def _next_history(stack: Stack, session_id: int) -> list[dict[str, object]]:
    """What the next run of the session sends the agent, from what is stored."""
    with stack.database.session() as db:
        return history_for(tree.active_branch(db, session_id))


def test_failed_turns_are_not_merged_into_the_next_question(stack: Stack) -> None:
    session_id = stack.new_session()
    for _ in range(2):
        _, events = stack.ask(session_id, "#fail 500")
        assert events[-1].event == "workflow_error"
    _, events = stack.ask(session_id, "#say hello")
    assert events[-1].event == "workflow_complete", events[-1].data
    assert events[-1].data["finalText"] == "hello"
    history = _next_history(stack, session_id)
    users = [m for m in history if m.get("role") == "user"]
    assert users == [{"role": "user", "content": "#say hello"}], users
    assert "#fail" not in json.dumps(history)
    assert history[-1] == {"role": "assistant", "content": "hello"}


def test_a_stopped_silent_turn_is_not_replayed(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#sleep 20000\n#say never")
    stack.events(started["runId"], stop=lambda ev: len(ev) >= 1)
    stack.post(f"/api/chat/runs/{started['runId']}/stop", expect=200)
    events = stack.events(started["runId"])
    assert events[-1].event == "workflow_error"
    _, events = stack.ask(session_id, "#echo-context")
    assert events[-1].event == "workflow_complete", events[-1].data
    assert "never" not in events[-1].data["finalText"]
    assert "sleep" not in events[-1].data["finalText"]


def test_an_edited_question_left_unanswered_does_not_reach_the_next_one(stack: Stack) -> None:
    """Edit-and-resend saves the edit, then starts its run; when the start is refused (the
    bridge restarting, the rate limit) the edited question stays unanswered on the branch. A
    question sent after it must not carry it along: hermes would merge the two."""
    session_id = stack.new_session()
    first, events = stack.ask(session_id, "#say one")
    assert events[-1].event == "workflow_complete"
    edit = stack.http.patch(
        f"/api/chat/messages/{first['userMessageId']}", json={"content": "#say edited-never-run"}
    )
    assert edit.status_code == 200, edit.text

    _, events = stack.ask(session_id, "#echo-context")

    assert events[-1].event == "workflow_complete", events[-1].data
    answer = events[-1].data["finalText"]
    assert answer.startswith("CONTEXT:") and "edited-never-run" not in answer, answer
    history = _next_history(stack, session_id)
    assert "edited-never-run" not in json.dumps(history)
