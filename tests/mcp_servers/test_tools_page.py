"""The Tools page's API against the real stack: an API (thread) with accounts, a bridge
(subprocess) running hermes, the scripted model, and the FastMCP test server over stdio."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from agentchat.chat import tree
from agentchat.chat.enums import MessageRole, MessageStatus
from agentchat.mcp_servers.tables import McpServerRow
from agentchat.protocol.status import RunStatus
from tests.support.mcp_servers import SCRIPT
from tests.support.recording_model import RecordingModel, recording_model
from tests.support.sse import Sse
from tests.support.team_stack import Person, Team

pytestmark = pytest.mark.timeout(180)

TOKEN = "tok-1234567890-secret-abcd"


def stdio(name: str = "tools", **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(SCRIPT), "stdio"],
        "approval": "allowed",
        **fields,
    }


def answer_of(events: list[Sse]) -> str:
    return "".join(
        e.data.get("content", "") for e in events if e.data.get("kind") == "answer_delta"
    )


def ask(person: Person, session_id: int, message: str, **extra: Any) -> list[Sse]:
    body = {"message": message, **extra}
    started = person.post(f"/api/chat/sessions/{session_id}/runs", body, expect=201)
    return person.events(started["runId"])


def test_a_server_added_on_the_page_is_used_by_the_next_turn(team: Team) -> None:
    admin = team.admin
    created = admin.post("/api/mcp/servers", stdio(env={"SERVICE_TOKEN": TOKEN}), expect=201)
    assert created["env"] == [{"name": "SERVICE_TOKEN", "last4": "abcd"}]
    assert TOKEN not in str(admin.get("/api/mcp/servers"))

    chat = admin.new_session()
    events = ask(admin, chat, '#tool mcp__tools__add {"a": 20, "b": 22}\n#echo-tool-result')
    assert "sum: 42" in answer_of(events)
    call = next(e for e in events if e.data.get("toolName") == "mcp__tools__add")
    assert call.data["meta"]["mcp"] == {"server": "tools", "tool": "add"}

    (state,) = admin.get("/api/mcp/status")
    assert state["state"] == "connected"
    assert {"name": "add", "description": "Add two whole numbers."} in state["tools"]


def test_secrets_are_stored_encrypted_and_scrubbed_from_what_a_run_shows(team: Team) -> None:
    admin = team.admin
    admin.post("/api/mcp/servers", stdio(env={"SERVICE_TOKEN": TOKEN}), expect=201)
    with team.database.session() as db:
        row = db.scalar(select(McpServerRow))
        assert row is not None and row.secrets_encrypted
        assert TOKEN not in row.secrets_encrypted and TOKEN not in str(row.secret_hints_json)

    chat = admin.new_session()
    message = '#tool mcp__tools__env_value {"name": "SERVICE_TOKEN"}\n#echo-tool-result'
    events = ask(admin, chat, message)
    assert TOKEN not in str([e.data for e in events])
    assert "abcd" not in answer_of(events)  # the whole value is scrubbed, its ending too


def test_a_command_that_does_not_exist_is_refused_with_the_reason(
    team: Team, tmp_path: Path
) -> None:
    missing = stdio(command=str(tmp_path / "no-such-server"))
    response = team.admin.http.post("/api/mcp/servers", json=missing)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "mcp_server_refused" and "does not exist" in error["message"]
    assert team.admin.get("/api/mcp/servers") == []


def test_only_an_administrator_manages_servers(team: Team) -> None:
    team.admin.post("/api/mcp/servers", stdio(), expect=201)
    bob = team.add("bob")
    for method, path in (("GET", "/api/mcp/servers"), ("GET", "/api/mcp/status")):
        response = bob.http.request(method, path)
        assert response.status_code == 403, response.text
    assert bob.http.post("/api/mcp/servers", json=stdio("mine")).status_code == 403
    assert bob.get("/api/mcp/offered") == [
        {"name": "tools", "transport": "stdio", "approval": "allowed"}
    ]


def test_a_chat_turns_a_server_off_and_a_run_may_narrow_but_never_widen(team: Team) -> None:
    admin = team.admin
    admin.post("/api/mcp/servers", stdio(), expect=201)
    admin.post("/api/mcp/servers", stdio("other"), expect=201)
    chat = admin.new_session()
    updated = admin.http.patch(f"/api/chat/sessions/{chat}", json={"mcpOff": ["tools"]})
    assert updated.status_code == 200 and updated.json()["mcpOff"] == ["tools"]

    offered = answer_of(ask(admin, chat, "#echo-tools"))
    assert "mcp__other__echo" in offered and "mcp__tools__" not in offered

    widened = admin.http.post(
        f"/api/chat/sessions/{chat}/runs", json={"message": "hi", "mcpServers": ["tools"]}
    )
    assert widened.status_code == 422
    assert widened.json()["error"]["code"] == "mcp_server_not_allowed"

    narrowed = answer_of(ask(admin, chat, "#echo-tools", mcpServers=[]))
    assert "mcp__" not in narrowed


def test_ask_before_each_call_uses_the_approval_panel(team: Team) -> None:
    admin = team.admin
    admin.post("/api/mcp/servers", stdio(approval="ask"), expect=201)
    chat = admin.new_session()
    message = '#tool mcp__tools__echo {"text": "approved"}\n#echo-tool-result'
    started = admin.post(f"/api/chat/sessions/{chat}/runs", {"message": message}, expect=201)
    run_id = started["runId"]

    def asked(events: list[Sse]) -> bool:
        return any(e.data.get("kind") == "clarify_request" for e in events)

    (request,) = [e for e in admin.events(run_id, stop=asked) if asked([e])]
    meta = request.data["meta"]
    assert meta["approval"]["mcp"] == {"server": "tools", "tool": "echo"}
    assert (
        admin.get(f"/api/chat/runs/{run_id}/state")["pendingClarify"]["clarifyId"]
        == (meta["clarifyId"])
    )
    answer = {"clarifyId": meta["clarifyId"], "answer": "Allow for this chat"}
    admin.post(f"/api/chat/runs/{run_id}/clarify", answer)

    assert "echo: approved" in answer_of(admin.events(run_id))
    session = admin.get(f"/api/chat/sessions/{chat}")["session"]
    assert "mcp:tools" in session["approvals"]
    again = ask(admin, chat, '#tool mcp__tools__echo {"text": "again"}\n#echo-tool-result')
    assert not any(e.data.get("kind") == "clarify_request" for e in again)


def test_a_change_reaches_the_next_turn_and_test_lists_the_tools(team: Team) -> None:
    admin = team.admin
    server = admin.post("/api/mcp/servers", stdio(env={"WHICH": "uno1"}), expect=201)
    chat = admin.new_session()
    message = '#tool mcp__tools__env_value {"name": "WHICH"}\n#echo-tool-result'
    assert "uno1" in answer_of(ask(admin, chat, message))

    change = {"env": {"WHICH": "dos2"}}
    assert admin.http.patch(f"/api/mcp/servers/{server['id']}", json=change).status_code == 200
    assert "dos2" in answer_of(ask(admin, chat, message))

    tested = admin.post(f"/api/mcp/servers/{server['id']}/test", expect=200)
    assert tested["ok"] and "big" in {t["name"] for t in tested["tools"]}

    switched_off = admin.http.patch(f"/api/mcp/servers/{server['id']}", json={"enabled": False})
    assert switched_off.status_code == 200
    assert "mcp__tools__" not in answer_of(ask(admin, chat, "#echo-tools"))
    assert admin.get("/api/mcp/status")[0]["state"] == "off"


def test_the_forms_values_are_tested_before_they_are_saved(team: Team) -> None:
    admin = team.admin
    tested = admin.post("/api/mcp/test", stdio(), expect=200)
    assert tested["ok"] and "add" in {t["name"] for t in tested["tools"]}
    assert admin.get("/api/mcp/servers") == []  # nothing stored
    missing = admin.post("/api/mcp/test", stdio(command="/nowhere/mcp-server"), expect=200)
    assert not missing["ok"] and missing["error"]

    server = admin.post("/api/mcp/servers", stdio(), expect=201)
    changed = {"args": [str(SCRIPT), "exit"]}
    broken = admin.post(f"/api/mcp/servers/{server['id']}/test", changed, expect=200)
    assert not broken["ok"] and broken["error"]
    assert admin.get(f"/api/mcp/servers/{server['id']}")["args"] == [str(SCRIPT), "stdio"]
    assert admin.post(f"/api/mcp/servers/{server['id']}/test", expect=200)["ok"]
    person = team.add("bob")
    assert person.http.post("/api/mcp/test", json=stdio()).status_code == 403


def test_a_saved_server_shows_connected_with_its_tools_before_any_turn(team: Team) -> None:
    admin = team.admin
    admin.post("/api/mcp/servers", stdio(), expect=201)
    admin.post("/api/mcp/servers", stdio("gone", args=[str(SCRIPT), "exit"]), expect=201)

    states = {s["name"]: s for s in admin.get("/api/mcp/status")}
    assert states["tools"]["state"] == "connected"
    assert {"name": "add", "description": "Add two whole numbers."} in states["tools"]["tools"]
    assert states["gone"]["state"] == "failed" and states["gone"]["error"]


@pytest.fixture
def summarizer() -> Any:
    with recording_model() as second:
        yield second


def test_a_chats_compression_model_writes_its_summary(
    team: Team, summarizer: RecordingModel
) -> None:
    admin = team.admin
    chat_model = admin.get("/api/models")[0]
    small = {"name": "small", "baseUrl": summarizer.url, "modelName": "small-writer"}
    small = admin.post("/api/models", {**small, "contextLength": 64000, "canSummarize": True})
    admin.http.patch(f"/api/models/{chat_model['id']}", json={"contextLength": 100000})
    writer = {"name": "writer", "baseUrl": summarizer.url, "modelName": "summary-writer"}
    writer = admin.post("/api/models", {**writer, "contextLength": 200000, "canSummarize": True})
    plain = admin.post(
        "/api/models", {"name": "plain", "baseUrl": summarizer.url, "modelName": "x"}
    )
    chat = admin.new_session()

    refused = admin.http.patch(
        f"/api/chat/sessions/{chat}", json={"compressionModelId": small["id"]}
    )
    assert refused.status_code == 422
    assert "smaller than the 100,000" in refused.json()["error"]["message"]
    unmarked = admin.http.patch(
        f"/api/chat/sessions/{chat}", json={"compressionModelId": plain["id"]}
    )
    assert unmarked.status_code == 422 and "summaries" in unmarked.json()["error"]["message"]
    chosen = admin.http.patch(
        f"/api/chat/sessions/{chat}", json={"compressionModelId": writer["id"]}
    )
    assert chosen.status_code == 200 and chosen.json()["compressionModelId"] == writer["id"]

    admin.http.patch(f"/api/models/{chat_model['id']}", json={"contextLength": 64000})
    _thirty_answered_questions(team, chat)
    events = ask(admin, chat, "#usage 60000\n#tool skills_list {}\n#say after compaction")
    assert any(e.event == "context_compacted" for e in events)
    summaries = [
        r.body["model"]
        for r in summarizer.requests
        if isinstance(r.body, dict) and "TURNS TO SUMMARIZE" in str(r.body.get("messages"))
    ]
    assert summaries == ["summary-writer"]


def _thirty_answered_questions(team: Team, chat: int) -> None:
    """A long chat written straight into the tree (thirty runs would take minutes here)."""
    with team.database.session() as db:
        parent = None
        for i in range(30):
            question = tree.append_message(
                db, chat, parent, MessageRole.USER, f"question {i}", MessageStatus.SENT
            )
            answer = tree.append_message(
                db, chat, question.id, MessageRole.ASSISTANT, f"answer {i}", RunStatus.SUCCESS
            )
            parent = answer.id
