"""The bridge's pure parts, without hermes-agent: text, translator, clarify gate, pool, SSE."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentchat.bridge.hermes.memory_files import MemoryFiles
from agentchat.bridge.hermes.pool import AgentPool, pool_key
from agentchat.bridge.hermes.stall_usage import with_estimates
from agentchat.bridge.hermes.text import strip_face, strip_leading_symbols, truncate
from agentchat.bridge.hermes.translate import TurnTranslator
from agentchat.bridge.hermes.turn import clean_message, new_messages
from agentchat.bridge.live.clarify_gate import ClarifyGate, ClarifyOutcome
from agentchat.protocol.bridge_api import MemoryUpdate
from agentchat.protocol.errors import Invalid
from agentchat.protocol.events import BridgeEvent
from agentchat.protocol.sse import aparse_lines
from agentchat.protocol.usage import Usage

FACES = ["( •_•)>⌐■-■", "(⌐■_■)", "( ͡° ͜ʖ ͡°)"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("( •_•)>⌐■-■ pondering...", "pondering..."),
        ("(⌐■_■) musing...", "musing..."),
        ("( ͡° ͜ʖ ͡°) reasoning...", "reasoning..."),
        ("{•‿•} computing...", "computing..."),
        (
            "⏳ waiting on model — 45s with no response yet…",
            "⏳ waiting on model — 45s with no response yet…",
        ),
    ],
)
def test_spinner_faces_are_stripped(text: str, expected: str) -> None:
    assert strip_face(text, FACES) == expected


def test_status_emoji_and_long_results_are_trimmed() -> None:
    assert strip_leading_symbols("🗜️ Compacting context — 40 msgs") == "Compacting context — 40 msgs"
    assert strip_leading_symbols("❌ API failed") == "API failed"
    cut = truncate("x" * 30, 10)
    assert cut.startswith("x" * 10) and "truncated 20 characters" in cut


def _translator(gate: ClarifyGate | None = None) -> tuple[TurnTranslator, list[tuple[str, Any]]]:
    events: list[tuple[str, Any]] = []
    translator = TurnTranslator(
        lambda event: events.append((event.EVENT, event.wire())),
        gate or ClarifyGate(5),
        faces=FACES,
        summary_of=lambda messages: "the summary" if messages else "",
    )
    return translator, events


def test_translator_maps_callbacks_to_events() -> None:
    translator, events = _translator()
    translator.on_thinking("(⌐■_■) musing...")
    translator.on_thinking("")
    translator.on_reasoning("hmm")
    translator.on_stream_delta(None)
    translator.on_stream_delta("Hello")
    todo = {"todos": [{"id": "1", "content": "A", "status": "pending"}]}
    translator.on_tool_start("c1", "todo", {"todos": []})
    translator.on_tool_complete("c1", "todo", {}, json.dumps(todo))
    translator.on_tool_complete("c2", "memory", {}, json.dumps({"error": "nope"}))
    translator.on_compressed([{"role": "user", "content": "x"}])
    translator.on_event("session:compress", {})

    kinds = [(e, d.get("kind")) for e, d in events]
    assert kinds == [
        ("node_stream", "status"),
        ("node_stream", "thinking"),
        ("node_stream", "answer_delta"),
        ("node_stream", "tool_call"),
        ("node_stream", "tool_result"),
        ("node_stream", "todo_update"),
        ("node_stream", "tool_result"),
        ("context_compacted", None),
    ]
    assert events[0][1]["content"] == "musing..."
    assert json.loads(events[5][1]["content"]) == todo["todos"]
    assert events[6][1]["meta"] == {"toolCallId": "c2", "isError": True}
    assert events[7][1] == {"summary": "the summary"}
    assert translator.streamed_answer == "Hello" and translator.compacted


def test_thinking_callback_never_raises() -> None:
    def broken(event: BridgeEvent) -> None:
        raise RuntimeError("queue gone")

    translator = TurnTranslator(broken, ClarifyGate(1), faces=FACES)
    translator.on_thinking("(⌐■_■) musing...")


def test_clarify_uses_the_tool_call_id_and_waits_for_the_answer() -> None:
    gate = ClarifyGate(5)
    translator, events = _translator(gate)
    translator.on_tool_start("call-7", "clarify", {"question": "Q?"})
    answers: list[str] = []
    worker = threading.Thread(target=lambda: answers.append(translator.on_clarify("Q?", ["a"])))
    worker.start()
    while gate.pending is None:
        worker.join(0.01)
    assert gate.pending.clarify_id == "call-7"
    assert not gate.answer("other-id", "x")
    assert gate.answer("call-7", "a")
    worker.join(5)
    assert answers == ["a"]
    assert events[-1][1]["meta"] == {"clarifyId": "call-7", "answer": "a"}


def test_clarify_gate_timeout_and_abort() -> None:
    gate = ClarifyGate(0.01)
    pending = gate.open("q1", "Q?", [])
    assert pending is not None and gate.wait(pending) is ClarifyOutcome.TIMED_OUT

    gate = ClarifyGate(60)
    pending = gate.open("q2", "Q?", [])
    assert pending is not None
    gate.close()
    assert gate.wait(pending) is ClarifyOutcome.ABORTED
    assert gate.open("q3", "again?", []) is None


def test_pool_evicts_least_recently_used() -> None:
    pool: AgentPool[str] = AgentPool(2)
    keys = [pool_key(f"s{i}", "/home", "m", "key") for i in range(3)]
    pool.get_or_create(keys[0], lambda: "a0")
    pool.get_or_create(keys[1], lambda: "a1")
    assert pool.get_or_create(keys[0], lambda: "new") == ("a0", False)
    pool.get_or_create(keys[2], lambda: "a2")
    assert pool.keys() == [keys[0], keys[2]]
    assert pool.drop_session("s0") == 1 and pool.keys() == [keys[2]]
    assert "key" not in pool_key("s", "/h", "m", "key")[2]


def test_memory_files_keep_the_entry_format(tmp_path: Path) -> None:
    files = MemoryFiles(tmp_path, memory_limit=50, user_limit=20)
    view = files.write(MemoryUpdate(memory="one\n§\ntwo", user=["me"]))
    assert view.memory.entries == ["one", "two"] and view.memory.chars == len("one\n§\ntwo")
    assert (tmp_path / "memories" / "USER.md").read_text(encoding="utf-8") == "me"
    with pytest.raises(Invalid):
        files.write(MemoryUpdate(user="x" * 21))


async def test_sse_parser_handles_comments_and_multiline_data() -> None:
    async def lines() -> AsyncIterator[str]:
        for line in [": keep-alive", "", "event: node_stream", "id: 1", "data: {", "data: }", ""]:
            yield line

    events = [e async for e in aparse_lines(lines())]
    assert [(e.event, e.data, e.id) for e in events] == [("node_stream", "{\n}", "1")]


def test_new_messages_are_what_follows_the_history() -> None:
    history = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    added = [{"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]
    assert new_messages(history, history + added) == added
    assert clean_message({"role": "user", "_db_persisted": True, "content": "x"}) == {
        "role": "user",
        "content": "x",
    }


def test_the_bridge_process_does_not_load_the_api_database_layer() -> None:
    """The bridge shares only the event contract and wire schemas with the API."""
    probe = (
        "import sys, agentchat.cli, agentchat.bridge.server.main, agentchat.bridge_client.client;"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('sqlalchemy', 'alembic', 'redis') or m.startswith(('agentchat.runs', 'agentchat.chat',"
        " 'agentchat.core.database', 'agentchat.events.bus')))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "", done.stdout


def test_tool_results_take_hermes_duration_and_error_from_its_progress() -> None:
    translator, events = _translator()
    translator.on_tool_start("c1", "terminal", {})
    translator.on_tool_progress("tool.started", "terminal", "ls", {})
    translator.on_tool_progress(
        "tool.completed", "terminal", None, None, {"duration": 1.25, "is_error": True}
    )
    translator.on_tool_complete("c1", "terminal", {}, "exit 2")
    translator.on_tool_start("c2", "memory", {})
    translator.on_tool_complete("c2", "memory", {}, "saved")  # no progress: our own timing

    results = [d["meta"] for _, d in events if d.get("kind") == "tool_result"]
    assert results[0] == {
        "toolCallId": "c1",
        "durationMs": 1250,
        "isError": True,
        "timedBy": "hermes",
    }
    assert "timedBy" not in results[1] and isinstance(results[1]["durationMs"], int)


def test_a_cut_off_attempt_is_estimated_and_counted() -> None:
    nudge = "[System: the stream was cut. Continue exactly where you left off.]"
    messages = [
        {"role": "user", "content": "question"},
        {"role": "assistant", "content": "partial ans"},
        {"role": "user", "content": nudge},
        {"role": "assistant", "content": "partial answer, whole"},
    ]
    sent: list[list[dict[str, Any]]] = []

    def request_tokens(msgs: list[dict[str, Any]], system: str, tools: Any) -> int:
        sent.append(msgs)
        return 100 + len(system)

    usage = Usage(prompt_tokens=50, completion_tokens=5, total_tokens=55)
    counted = with_estimates(usage, messages, "sys", None, request_tokens, lambda t: len(t))
    assert sent == [messages[:1]]
    assert counted.estimated_prompt_tokens == 103
    assert counted.estimated_completion_tokens == len("partial ans")
    assert counted.prompt_tokens == 153 and counted.completion_tokens == 16
    assert counted.total_tokens == 169
    assert with_estimates(usage, messages[:2], "", None, request_tokens, len) == usage
