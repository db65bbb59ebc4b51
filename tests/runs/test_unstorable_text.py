"""Text no later step could carry, from the model and from a tool, through the real hermes-agent
on every database: a surrogate pair split over two chunks, a lone surrogate, a NUL. The run
ends and what was streamed is what is stored (the pair joined, the rest U+FFFD); the next run
of the process still stores its log lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.core.database import Database
from tests.support.api_stack import Stack, make_stack
from tests.support.servers import BridgeProcess
from tests.support.sse import Sse

pytestmark = pytest.mark.timeout(120)

ANSWER = r"#say-escaped ok \ud83d\ude00 nul:\u0000 lone:\ud800 end"
SHOWN = "ok \U0001f600 nul:\ufffd lone:\ufffd end"
TOOL = '#tool todo {"todos":[{"id":"1","content":"a\\ud800b\\u0000c","status":"pending"}]}'


@pytest.fixture
def any_stack(
    tmp_path: Path, any_database: Database, bridge: BridgeProcess, scripted_url: str
) -> Iterator[Stack]:
    value, close = make_stack(tmp_path, any_database, bridge, scripted_url)
    yield value
    close()


def _streamed(events: list[Sse]) -> str:
    return "".join(e.data["content"] for e in events if e.data.get("kind") == "answer_delta")


def test_an_answer_with_unstorable_text_is_stored_as_shown(any_stack: Stack) -> None:
    session_id = any_stack.new_session()
    _, events = any_stack.ask(session_id, ANSWER)
    assert events[-1].event == "workflow_complete", events[-1].data
    assert _streamed(events) == SHOWN
    assert events[-1].data["finalText"] == SHOWN
    answer = any_stack.get(f"/api/chat/sessions/{session_id}")["messages"][-1]
    assert (answer["status"], answer["content"]) == ("SUCCESS", SHOWN)


def test_a_tool_call_with_unstorable_text_ends_and_the_next_run_keeps_its_logs(
    any_stack: Stack,
) -> None:
    session_id = any_stack.new_session()
    _, events = any_stack.ask(session_id, f"{TOOL}\n#say planned")
    assert events[-1].event == "workflow_complete", events[-1].data
    todos = [e.data["content"] for e in events if e.data.get("kind") == "todo_update"]
    assert todos and json.loads(todos[-1])[0]["content"] == "a\ufffdb\x00c"  # JSON holds NUL

    _, again = any_stack.ask(session_id, "#think still here\n#say fine")
    assert again[-1].event == "workflow_complete", again[-1].data
    messages = any_stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    assert [m["status"] for m in messages if m["role"] == "ASSISTANT"] == ["SUCCESS"] * 2
    kinds = [line["kind"] for line in messages[-1]["logs"]]
    assert "thinking" in kinds, kinds  # the log writer was not left stuck on the bad rows
