"""The agent sees exactly the branch it extends: multi-turn, regenerate, edit, reset."""

from __future__ import annotations

import json

from agentchat.chat import tree
from tests.support.api_stack import Stack


def _final(events: list) -> str:  # type: ignore[type-arg]
    assert events[-1].event == "workflow_complete", events[-1]
    return str(events[-1].data["finalText"])


def test_follow_up_turns_carry_the_conversation(stack: Stack) -> None:
    session_id = stack.new_session()
    stack.ask(session_id, "first question")
    stack.ask(session_id, "second question\n#tool skills_list {}\n#say ok")
    _, events = stack.ask(session_id, "#echo-context")
    assert _final(events) == "CONTEXT: first question | second question"


def test_regenerate_sends_the_same_history_and_keeps_the_old_version(stack: Stack) -> None:
    session_id = stack.new_session()
    stack.ask(session_id, "alpha")
    first, events = stack.ask(session_id, "#echo-context")
    assert _final(events) == "CONTEXT: alpha"
    regenerated = stack.post(f"/api/chat/messages/{first['messageId']}/regenerate", expect=201)
    again = stack.events(regenerated["runId"])
    assert _final(again) == "CONTEXT: alpha"
    versions = stack.get(f"/api/chat/messages/{regenerated['newMessageId']}/versions")
    assert [v["messageId"] for v in versions] == [first["messageId"], regenerated["newMessageId"]]
    assert [v["isActive"] for v in versions] == [False, True]


def test_edit_and_resend_hides_the_abandoned_branch_from_the_agent(stack: Stack) -> None:
    session_id = stack.new_session()
    stack.ask(session_id, "keep me")
    old, _ = stack.ask(session_id, "abandoned question")
    edited = stack.http.patch(
        f"/api/chat/messages/{old['userMessageId']}", json={"content": "better question"}
    )
    assert edited.status_code == 200, edited.text
    new_user = edited.json()["newMessageId"]
    started = stack.start(session_id, "", parentMessageId=new_user)
    assert started["userMessageId"] == new_user
    stack.events(started["runId"])
    _, events = stack.ask(session_id, "#echo-context")
    assert _final(events) == "CONTEXT: keep me | better question"
    # switching back to the first version restores what the agent sees
    stack.post(f"/api/chat/messages/{old['userMessageId']}/activate", expect=200)
    _, events = stack.ask(session_id, "#echo-context")
    assert _final(events) == "CONTEXT: keep me | abandoned question"


def test_reset_starts_the_agent_afresh_but_keeps_what_the_page_shows(stack: Stack) -> None:
    session_id = stack.new_session()
    stack.ask(session_id, "before reset")
    result = stack.post(f"/api/chat/sessions/{session_id}/reset", {"keepHistory": True}, expect=200)
    _, events = stack.ask(session_id, "#echo-context")
    assert _final(events) == "CONTEXT:"
    messages = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    assert [m["role"] for m in messages][:3] == ["USER", "ASSISTANT", "SYSTEM"]
    assert messages[2]["status"] == "RESET" and messages[2]["id"] == result["dividerMessageId"]


def test_reset_without_history_archives_the_earlier_messages(stack: Stack) -> None:
    session_id = stack.new_session()
    stack.ask(session_id, "old talk")
    stack.post(f"/api/chat/sessions/{session_id}/reset", {"keepHistory": False}, expect=200)
    messages = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    assert [(m["role"], m["status"]) for m in messages] == [("SYSTEM", "RESET")]


def _seed_turns(stack: Stack, session_id: int, count: int) -> None:
    """`count` finished question/answer turns, as earlier runs would have stored them."""
    with stack.database.session() as db:
        leaf = tree.active_leaf(db, session_id)
        parent = leaf.id if leaf else None
        for i in range(count):
            user = tree.append_message(db, session_id, parent, "USER", f"question {i}", "SENT")
            turn = [
                {"role": "user", "content": f"question {i}"},
                {"role": "assistant", "content": f"answer {i}"},
            ]
            answer = tree.append_message(
                db,
                session_id,
                user.id,
                "ASSISTANT",
                f"answer {i}",
                "SUCCESS",
                agent_messages=json.dumps(turn),
            )
            parent = answer.id


def test_compaction_stores_a_summary_and_the_next_turn_starts_from_it(stack: Stack) -> None:
    model = stack.http.post(
        "/api/models",
        json={
            "name": "small",
            "baseUrl": stack.get("/api/models")[0]["baseUrl"],
            "modelName": "scripted",
            "contextLength": 64000,
        },
    ).json()
    session_id = stack.new_session()
    _seed_turns(stack, session_id, 30)
    started, events = stack.ask(
        session_id,
        "#usage 60000\n#tool skills_list {}\n#say after compaction",
        modelId=model["id"],
    )
    compacted = [e for e in events if e.event == "context_compacted"]
    assert compacted and compacted[0].data["summary"].strip()
    assert _final(events) == "after compaction"
    messages = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    summary = messages[-1]
    assert (summary["role"], summary["status"]) == ("SYSTEM", "SUMMARY")
    assert summary["id"] == compacted[0].data["summaryMessageId"]
    assert summary["parentId"] == started["messageId"]
    stats = stack.get(f"/api/chat/sessions/{session_id}/stats")
    assert stats["compressions"] == 1 and stats["lastCompressionAt"]
    # the next turn gets the compacted history, not the 30 turns again
    _, events = stack.ask(session_id, "#echo-context", modelId=model["id"])
    echoed = _final(events)
    assert echoed.startswith("CONTEXT:")
    assert 0 < echoed.count("question ") < 30
