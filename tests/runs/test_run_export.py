"""A real turn (hermes-agent and the scripted model) exported, and in the short-term view."""

from __future__ import annotations

from tests.support.api_stack import Stack

SCRIPT = "Which skills?\n#think let me look at the skills\n#tool skills_list {}\n#say all done"


def test_a_real_turn_exports_as_steps_and_its_tool_call_is_recent(stack: Stack) -> None:
    session_id = stack.new_session()
    _, events = stack.ask(session_id, SCRIPT)
    statuses = [e.data["content"] for e in events if e.data.get("kind") == "status"]
    assert statuses and events[-1].event == "workflow_complete"

    r = stack.http.get(f"{stack.url}/api/chat/sessions/{session_id}/export?format=md")
    assert r.status_code == 200
    markdown = r.text
    assert markdown.count("> **Thinking**") == 1
    assert "let me look at the skills" in markdown
    assert "<summary>Tool call: <code>skills_list</code>" in markdown
    assert "status: completed" in markdown and "all done" in markdown
    assert "**status**" not in markdown
    for status in statuses:  # spinner words are progress, not content
        assert status not in markdown.split("---", 1)[1]

    (call,) = stack.get(f"/api/chat/sessions/{session_id}/tool-calls")
    assert call["toolName"] == "skills_list" and call["args"] == {}
    assert call["toolCallId"] and isinstance(call["durationMs"], int)
    assert '"success"' in call["result"]
