"""Real hermes-agent turns against the scripted model (in a subprocess: HERMES_HOME is global)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentchat.scripted_llm.server import serve_in_thread

SCRIPT = Path(__file__).with_name("hermes_turns.py")


@pytest.fixture(scope="module")
def turns() -> Iterator[dict[str, dict[str, Any]]]:
    url, stop = serve_in_thread()
    try:
        done = subprocess.run(
            [sys.executable, str(SCRIPT), url],
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
    finally:
        stop()
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(ln) for ln in done.stdout.splitlines() if ln.startswith("{")]
    yield {turn["turn"]: turn for turn in lines}


def _deltas(turn: dict[str, Any]) -> str:
    return "".join(e[1] or "" for e in turn["events"] if e[0] == "delta")


def test_hermes_completes_a_say_turn(turns: dict[str, dict[str, Any]]) -> None:
    assert (turns["say"]["final"], turns["say"]["failed"]) == ("hello", False)
    assert _deltas(turns["say"]) == "hello"


def test_hermes_runs_the_todo_tool_then_answers(turns: dict[str, dict[str, Any]]) -> None:
    turn = turns["todo"]
    assert turn["final"] == "done"
    assert ["thinking", "hmm"] in turn["events"]
    (tool,) = [e for e in turn["events"] if e[0] == "tool"]
    assert tool[1] == "todo"
    assert [t["content"] for t in json.loads(tool[2])["todos"]] == ["a", "b"]


def test_hermes_gets_the_demo_answer_after_one_todo_round(
    turns: dict[str, dict[str, Any]],
) -> None:
    turn = turns["demo"]
    assert "built-in scripted model" in turn["final"]
    assert "What can you do?" in turn["final"]
    assert [e[1] for e in turn["events"] if e[0] == "tool"] == ["todo"]


def test_hermes_reports_fail_as_a_failed_turn(turns: dict[str, dict[str, Any]]) -> None:
    assert turns["fail"]["failed"] is True
    assert "500" in (turns["fail"]["final"] or "")


def test_usage_makes_hermes_compact_with_the_scripted_summary(
    turns: dict[str, dict[str, Any]],
) -> None:
    turn = turns["compaction"]
    assert turn["final"] == "done after compaction"
    assert ["event", "session:compress"] in turn["events"]
    assert any("Summary: the user asked about" in m for m in turn["messages"])
