"""Issue 15 through the API with the real hermes-agent: what the agent did is what is stored
and shown (stall, interim text, memory, skills)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentchat.core.database import Database
from tests.support.api_stack import Stack, make_stack
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess, start_bridge
from tests.support.sse import Sse, until_terminal

SKILL_MD = """---
name: haiku-skill
description: Answers in haiku.
---
Always answer in haiku, five seven five.
"""


# This module's bridge also allows `terminal` (the approval test enables it in the API).
bridge = own_bridge(AGENTCHAT_AGENT_TOOLSETS="clarify,todo,memory,skills,terminal")


@pytest.fixture
def stack_settings(bridge: BridgeProcess) -> dict[str, Any]:
    """The API's skills directory is the bridge's, with a skill in it."""
    skills = bridge.home.parent / "skills"  # the directory the bridge gives hermes
    (skills / "haiku-skill").mkdir(parents=True, exist_ok=True)
    (skills / "haiku-skill" / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    return {"skills_dir": skills}


def _answer(stack: Stack, session_id: int) -> dict[str, object]:
    messages = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    answer: dict[str, object] = messages[-1]
    assert answer["role"] == "ASSISTANT"
    return answer


def test_a_stalled_answer_is_stored_once(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "#say Alpha bravo charlie delta\n#stall\n#say echo")
    assert events[-1].event == "workflow_complete", events[-1].data
    assert events[-1].data["finalText"] == "Alpha bravo charlie delta\necho"
    assert events[-1].data["usage"]["apiCalls"] == 2
    assert _answer(stack, session_id)["content"] == "Alpha bravo charlie delta\necho"
    usage = stack.get(f"/api/chat/sessions/{session_id}/stats")["usage"]
    assert usage["estimatedCompletionTokens"] == 7  # "Alpha bravo charlie delta", cut off
    assert usage["estimatedPromptTokens"] > 0
    assert usage["promptTokens"] > usage["estimatedPromptTokens"]
    _, events = stack.ask(session_id, "#echo-context")
    assert "[System:" not in events[-1].data["finalText"]


def test_interim_text_is_kept_where_it_was_written(stack: Stack) -> None:
    session_id = stack.new_session()
    message = "#say Let me check.\n#tool skills_list {}\n#say All checked."
    _, events = stack.ask(session_id, message)
    assert events[-1].data["finalText"] == "All checked."
    live = [e.data["kind"] for e in events if e.event == "node_stream"]
    assert live.index("interim") < live.index("tool_call")
    answer = _answer(stack, session_id)
    assert answer["content"] == "All checked."
    logs = [(log["kind"], log["content"]) for log in answer["logs"]]  # type: ignore[union-attr]
    kinds = [k for k, _ in logs]
    assert ("interim", "Let me check.") in logs
    assert kinds.index("interim") < kinds.index("tool_call")


def test_memory_is_the_agents_and_reaches_an_open_chat(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, "#say hello")  # the chat's agent exists (pooled)
    assert events[-1].event == "workflow_complete"
    response = stack.http.put("/api/memory", json={"memory": "Lives by the sea."})
    assert response.status_code == 200, response.text
    assert stack.get("/api/memory")["memory"]["entries"] == ["Lives by the sea."]
    assert stack.get(f"/api/chat/sessions/{session_id}/memory")["memory"]["entries"] == [
        "Lives by the sea."
    ]
    _, events = stack.ask(session_id, "#system-contains Lives by the sea.")
    assert events[-1].data["finalText"] == "SYSTEM CONTAINS: yes"


def test_a_chosen_skill_is_loaded_on_that_turn(stack: Stack) -> None:
    session_id = stack.new_session()
    ask = "#system-contains five seven five"
    _, events = stack.ask(session_id, ask)
    assert events[-1].data["finalText"] == "SYSTEM CONTAINS: no"
    _, events = stack.ask(session_id, ask, skillFolder="haiku-skill")
    assert events[-1].data["finalText"] == "SYSTEM CONTAINS: yes", json.dumps(events[-1].data)


def test_a_person_steers_a_running_agent_and_it_is_kept(stack: Stack) -> None:
    session_id = stack.new_session()
    started = stack.start(session_id, "#clarify Which colour? | red | blue\n#echo-tool-result")
    run_id = started["runId"]
    asked = stack.events(
        run_id, stop=lambda ev: any(e.data.get("kind") == "clarify_request" for e in ev)
    )
    clarify_id = next(e for e in asked if e.data.get("kind") == "clarify_request").data["meta"][
        "clarifyId"
    ]
    stack.post(f"/api/chat/runs/{run_id}/steer", {"message": "Prefer the blue one."}, expect=200)
    stack.post(
        f"/api/chat/runs/{run_id}/clarify", {"clarifyId": clarify_id, "answer": "red"}, expect=200
    )
    events = stack.events(run_id)
    assert events[-1].event == "workflow_complete", events[-1].data
    assert "Prefer the blue one." in events[-1].data["finalText"]
    logs = _answer(stack, session_id)["logs"]
    assert ("steered", "Prefer the blue one.") in [(g["kind"], g["content"]) for g in logs]  # type: ignore[union-attr,index]
    refused = stack.http.post(f"/api/chat/runs/{run_id}/steer", json={"message": "late"})
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "run_finished"
    empty = stack.http.post(f"/api/chat/runs/{run_id}/steer", json={"message": ""})
    assert empty.status_code == 422 and "error" in empty.json()


def test_a_dangerous_command_pauses_durably_for_approval(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> None:
    stack, close = make_stack(
        tmp_path, database, bridge, scripted_url, agent_toolsets="clarify,todo,terminal"
    )
    try:
        target = tmp_path / "precious"
        (target / "inside").mkdir(parents=True)
        session_id = stack.new_session()
        args = json.dumps({"command": f"rm -rf {target}"})
        started = stack.start(session_id, f"#tool terminal {args}\n#echo-tool-result")
        run_id = started["runId"]
        stack.events(
            run_id, stop=lambda ev: any(e.data.get("kind") == "clarify_request" for e in ev)
        )
        state = stack.get(f"/api/chat/runs/{run_id}/state")  # what a reloaded page sees
        pause = state["pendingClarify"]
        assert pause["choices"] == ["Allow once", "Allow for this chat", "Deny"]
        assert str(target) in pause["question"]
        # A typed answer is not one of the three: refused, not quietly taken as a denial.
        typed = {"clarifyId": pause["clarifyId"], "answer": "yes please, go ahead"}
        refused = stack.http.post(f"/api/chat/runs/{run_id}/clarify", json=typed)
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "not_a_choice"
        assert stack.get(f"/api/chat/runs/{run_id}/state")["pendingClarify"] == pause
        body = {"clarifyId": pause["clarifyId"], "answer": "deny"}
        stack.post(f"/api/chat/runs/{run_id}/clarify", body, expect=200)
        events = stack.events(run_id)
        assert events[-1].event == "workflow_complete", events[-1].data
        assert (target / "inside").is_dir()
    finally:
        close()


def test_toolsets_narrow_within_the_servers_list(stack: Stack) -> None:
    session_id = stack.new_session()
    ask = "#tool skills_list {}\n#echo-tool-result"
    _, events = stack.ask(session_id, ask, toolsets=["clarify"])
    assert events[-1].event == "workflow_complete", events[-1].data
    assert "skills_list" in events[-1].data["finalText"]  # refused: not one of this run's tools
    assert "code-review" not in events[-1].data["finalText"]
    _, events = stack.ask(session_id, ask)
    assert "haiku-skill" in events[-1].data["finalText"]
    wider = stack.http.post(
        f"/api/chat/sessions/{session_id}/runs", json={"message": "hi", "toolsets": ["terminal"]}
    )
    assert wider.status_code == 422, wider.text
    assert "terminal" in wider.json()["error"]["message"]


def _tools_offered(events: list[Sse]) -> set[str]:
    assert events[-1].event == "workflow_complete", events[-1].data
    text = str(events[-1].data["finalText"])
    assert text.startswith("TOOLS:"), text
    return set(text.removeprefix("TOOLS:").split())


def test_a_chats_toolsets_hold_for_every_run_of_it(stack: Stack) -> None:
    session_id = stack.new_session()
    path = f"/api/chat/sessions/{session_id}"
    saved = stack.http.patch(path, json={"toolsets": ["todo", "clarify"]})
    assert saved.status_code == 200, saved.text
    assert saved.json()["toolsets"] == ["clarify", "todo"]  # the server's order
    assert stack.get(path)["session"]["toolsets"] == ["clarify", "todo"]

    started, events = stack.ask(session_id, "#echo-tools")
    assert _tools_offered(events) == {"clarify", "todo"}
    again = stack.post(f"/api/chat/messages/{started['messageId']}/regenerate", expect=201)
    assert _tools_offered(stack.events(again["runId"])) == {"clarify", "todo"}
    edit = {"content": "Edited question.\n#echo-tools"}
    edited = stack.http.patch(f"/api/chat/messages/{started['userMessageId']}", json=edit)
    assert edited.status_code == 200, edited.text
    body = {"message": edit["content"], "parentMessageId": edited.json()["newMessageId"]}
    _, events = stack.ask(session_id, **body)
    assert _tools_offered(events) == {"clarify", "todo"}

    refused = stack.http.patch(path, json={"toolsets": ["clarify", "terminal"]})
    assert refused.status_code == 422, refused.text
    assert refused.json()["error"]["code"] == "toolset_not_allowed"
    assert "terminal" in refused.json()["error"]["message"]
    assert stack.get(path)["session"]["toolsets"] == ["clarify", "todo"]

    cleared = stack.http.patch(path, json={"toolsets": None})
    assert cleared.status_code == 200 and cleared.json()["toolsets"] is None
    _, events = stack.ask(session_id, "#echo-tools")
    assert {"clarify", "todo", "memory", "skills_list"} <= _tools_offered(events)


def test_a_new_chat_can_start_with_its_toolsets(stack: Stack) -> None:
    created = stack.post("/api/chat/sessions", {"toolsets": ["memory"]}, expect=201)
    assert created["session"]["toolsets"] == ["memory"]
    _, events = stack.ask(created["sessionId"], "#echo-tools")
    assert _tools_offered(events) == {"memory"}
    refused = stack.http.post("/api/chat/sessions", json={"toolsets": ["code"]})
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "toolset_not_allowed"


def _until_end_or_pause(events: list[Sse]) -> bool:
    return until_terminal(events) or any(e.data.get("kind") == "clarify_request" for e in events)


def _folders(root: Path, *names: str) -> list[Path]:
    """Folders a dangerous command would delete, each with something inside."""
    for name in names:
        (root / name / "inside").mkdir(parents=True)
    return [root / name for name in names]


def _rm_and_say(target: Path) -> str:
    return f"#tool terminal {json.dumps({'command': f'rm -rf {target}'})}\n#say done"


def _allow_for_this_chat(stack: Stack, session_id: int, target: Path) -> None:
    """A run that deletes `target` after the person answers "Allow for this chat"."""
    started = stack.start(session_id, _rm_and_say(target))
    asked = stack.events(started["runId"], stop=_until_end_or_pause)
    pause = next(e for e in asked if e.data.get("kind") == "clarify_request").data["meta"]
    body = {"clarifyId": pause["clarifyId"], "answer": "Allow for this chat"}
    stack.post(f"/api/chat/runs/{started['runId']}/clarify", body, expect=200)
    assert stack.events(started["runId"])[-1].event == "workflow_complete"
    assert not target.exists()


def test_allow_for_this_chat_outlives_a_bridge_restart(
    tmp_path: Path, database: Database, scripted_url: str
) -> None:
    toolsets = "clarify,todo,terminal"
    root = tmp_path / "restarting-bridge"
    bridge = start_bridge(root, AGENTCHAT_AGENT_TOOLSETS=toolsets)
    port = int(bridge.url.rsplit(":", 1)[1])
    stack, close = make_stack(tmp_path, database, bridge, scripted_url, agent_toolsets=toolsets)
    try:
        session_id = stack.new_session()
        first, second = _folders(tmp_path, "first", "second")
        _allow_for_this_chat(stack, session_id, first)

        bridge.stop()  # hermes held the approval in this process only
        bridge = start_bridge(root, port, secret=bridge.secret, AGENTCHAT_AGENT_TOOLSETS=toolsets)
        started = stack.start(session_id, _rm_and_say(second))
        events = stack.events(started["runId"], stop=_until_end_or_pause)
        kinds = [e.data.get("kind") for e in events]
        assert "clarify_request" not in kinds, "asked again after the bridge restarted"
        assert events[-1].event == "workflow_complete", events[-1].data
        assert not second.exists()
    finally:
        close()
        bridge.stop()


def test_allow_for_this_chat_is_shown_and_can_be_taken_back(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> None:
    """A person who allowed a dangerous command for a chat sees it on the chat and can take it
    back: the next run asks again, though hermes still holds the approval in its process."""
    stack, close = make_stack(
        tmp_path, database, bridge, scripted_url, agent_toolsets="clarify,todo,terminal"
    )
    try:
        session_id = stack.new_session()
        first, second = _folders(tmp_path, "first", "second")
        _allow_for_this_chat(stack, session_id, first)
        allowed = stack.get(f"/api/chat/sessions/{session_id}")["session"]["approvals"]
        assert allowed, "the chat does not show what was allowed for it"

        granted = stack.http.patch(
            f"/api/chat/sessions/{session_id}", json={"approvals": [*allowed, "rm -rf /"]}
        )
        assert granted.status_code == 422, "approvals are granted by answering, not by PATCH"
        revoked = stack.http.patch(f"/api/chat/sessions/{session_id}", json={"approvals": []})
        assert revoked.status_code == 200, revoked.text
        assert revoked.json()["approvals"] == []

        started = stack.start(session_id, _rm_and_say(second))
        events = stack.events(started["runId"], stop=_until_end_or_pause)
        assert any(e.data.get("kind") == "clarify_request" for e in events), "not asked again"
        stack.post(f"/api/chat/runs/{started['runId']}/stop", expect=200)
        assert (second / "inside").is_dir()
    finally:
        close()
