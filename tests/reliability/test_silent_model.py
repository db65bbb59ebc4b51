"""A model that goes silent (headers sent, then nothing; or some text, then nothing) ends the
run FAILED after the bridge's silence limit, however many times hermes would reconnect, retry
or ask it to continue; the text shown is kept and the chat goes on. A slow but steady model,
and a question waiting for the person, are not silence.

The bridge here has hermes' own retries at their defaults and a 3 s request timeout, which is
also the silence limit when none is set: before the limit, a silent model held the run for
several request timeouts (measured with the default 300 s: 20 and 30 minutes)."""

from __future__ import annotations

import time

from tests.reliability.helpers import answers, wait_for
from tests.support.api_stack import Stack
from tests.support.own_bridge import own_bridge

SILENCE_S = 3.0
SILENT_ENV = {"AGENTCHAT_BRIDGE_REQUEST_TIMEOUT_S": str(SILENCE_S)}
# The watch's own words: hermes' timeout (set 30 s past the limit) says "endpoint timed out".
GAVE_UP = f"sent nothing for {SILENCE_S:g} s"


bridge = own_bridge(**SILENT_ENV)  # the package's `stack` on it


def _timed_ask(stack: Stack, session_id: int, message: str) -> tuple[float, list]:
    started = time.monotonic()
    _, events = stack.ask(session_id, message)
    return time.monotonic() - started, events


def test_a_model_that_sends_nothing_ends_failed_within_the_limit(stack: Stack) -> None:
    session_id = stack.new_session()
    took, events = _timed_ask(stack, session_id, "#sleep 600000\n#say never")
    assert events[-1].event == "workflow_error", events[-1].data
    assert GAVE_UP in events[-1].data["message"], (took, events[-1].data)
    answer = answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]
    assert (answer["status"], answer["content"]) == ("FAILED", "")

    _, events = stack.ask(session_id, "#say back again")
    assert events[-1].data.get("finalText") == "back again", events[-1].data


def test_a_model_that_stalls_after_some_text_keeps_it(stack: Stack) -> None:
    session_id = stack.new_session()
    took, events = _timed_ask(stack, session_id, "#say Some words first\n#sleep 600000\n#say no")
    assert events[-1].event == "workflow_error", events[-1].data
    answer = answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]
    assert (answer["status"], answer["content"]) == ("FAILED", "Some words first")
    assert GAVE_UP in answer["error"], (took, answer["error"])


def test_a_slow_but_steady_model_is_not_cut(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "#delay 900\n#tokens 6")
    assert events[-1].event == "workflow_complete", events[-1].data
    assert events[-1].data["finalText"] == "t1 t2 t3 t4 t5 t6"


def test_a_question_waiting_for_the_person_is_not_silence(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#clarify Which one? | a | b\n#echo-tool-result")
    events = stack.events(
        started["runId"], stop=lambda ev: any(e.data.get("kind") == "clarify_request" for e in ev)
    )
    clarify_id = events[-1].data["meta"]["clarifyId"]
    # The person takes longer than the silence limit to answer: that is the scenario itself.
    time.sleep(SILENCE_S + 1.5)
    stack.post(
        f"/api/chat/runs/{started['runId']}/clarify",
        {"clarifyId": clarify_id, "answer": "b"},
        expect=200,
    )
    events = stack.events(started["runId"])
    assert events[-1].event == "workflow_complete", events[-1].data
    assert '"b"' in events[-1].data["finalText"]
    wait_for(
        lambda: answers(stack.get(f"/api/chat/sessions/{session_id}"))[-1]["status"],
        lambda status: status == "SUCCESS",
    )
