"""The bridge end to end: real hermes-agent, the scripted model, loopback only."""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
import time
from pathlib import Path

import pytest

from agentchat.bridge_client.client import BridgeClient, BridgeUnavailable
from agentchat.local_stack import free_port
from tests.bridge.support import Event, Turn, chat_history, model, run_turn
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(90)

SKILL_MD = """---
name: demo-skill
description: A skill the app ships in its skills directory.
---
Always answer in haiku.
"""


# terminal and file are enabled for the tests that use them; a request narrows them away
bridge = own_bridge(
    skills={"demo-skill": SKILL_MD},
    AGENTCHAT_AGENT_TOOLSETS="clarify,todo,memory,skills,terminal,file",
)


async def test_scripted_turn_emits_every_kind_in_order(
    client: BridgeClient, scripted_model: str
) -> None:
    message = "#think weighing options\n#todo Plan; Build\n#tool skills_list {}\n#say All done"
    turn = await run_turn(client, scripted_model, message)

    assert turn.result is not None and turn.result.status == "SUCCESS"
    kinds = [k for k in turn.kinds() if k != "status"]
    first = {k: kinds.index(k) for k in dict.fromkeys(kinds)}
    order = ["thinking", "tool_call", "tool_result", "todo_update", "answer_delta"]
    assert [k for k in first if k in order] == order
    assert "".join(e.content for e in turn.of("thinking")) == "weighing options"
    assert [e.tool_name for e in turn.of("tool_call")] == ["todo", "skills_list"]
    todos = json.loads(turn.of("todo_update")[0].content)
    assert [(t["content"], t["status"]) for t in todos] == [
        ("Plan", "in_progress"),
        ("Build", "pending"),
    ]
    statuses = [e.content for e in turn.of("status")]
    assert statuses and all(s[0].isalnum() for s in statuses), statuses
    assert turn.answer().strip() == "All done" == turn.result.final_text


async def test_run_end_messages_are_this_turn_only_and_clean(
    client: BridgeClient, scripted_model: str
) -> None:
    history = chat_history([("earlier question", "earlier answer")])
    message = "#tool skills_list {}\n#say listed"
    turn = await run_turn(client, scripted_model, message, history=history)

    assert turn.result is not None and not turn.result.compacted
    messages = turn.result.messages
    assert messages[0] == {"role": "user", "content": message}
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["tool_calls"][0]["function"]["name"] == "skills_list"
    assert messages[-1]["content"] == "listed"
    assert not [k for m in messages for k in m if k.startswith("_")]
    assert turn.result.usage.api_calls == 2 and turn.result.usage.prompt_tokens > 0


async def test_echo_context_sees_exactly_the_history_sent(
    client: BridgeClient, scripted_model: str
) -> None:
    history = chat_history([("first question", "a1"), ("second question", "a2")])
    turn = await run_turn(client, scripted_model, "third\n#echo-context", history=history)
    assert turn.result is not None
    assert turn.result.final_text == "CONTEXT: first question | second question | third"

    again = await run_turn(client, scripted_model, "only\n#echo-context", history=[])
    assert again.result is not None and again.result.final_text == "CONTEXT: only"


async def test_clarify_round_trip(client: BridgeClient, scripted_model: str) -> None:
    async def answer(event: Event, turn: Turn) -> None:
        if event.kind == "clarify_request":
            assert event.meta is not None
            await client.clarify(turn.run_id, event.meta["clarifyId"], "blue")

    message = "#clarify Which colour? | red | blue\n#echo-tool-result"
    turn = await run_turn(client, scripted_model, message, on_event=answer)

    assert turn.result is not None and turn.result.status == "SUCCESS"
    (request,) = turn.of("clarify_request")
    assert request.meta is not None
    assert request.meta["question"] == "Which colour?"
    assert request.meta["choices"] == ["red", "blue"]
    clarify_call = next(e for e in turn.of("tool_call") if e.tool_name == "clarify")
    assert clarify_call.meta is not None
    assert request.meta["clarifyId"] == clarify_call.meta["toolCallId"]
    (answered,) = turn.of("clarify_answered")
    assert answered.meta == {"clarifyId": request.meta["clarifyId"], "answer": "blue"}
    assert "blue" in turn.result.final_text


async def test_clarify_with_unknown_id_is_a_conflict(
    client: BridgeClient, scripted_model: str
) -> None:
    async def answer(event: Event, turn: Turn) -> None:
        if event.kind == "clarify_request":
            assert event.meta is not None
            with pytest.raises(BridgeUnavailable) as wrong:
                await client.clarify(turn.run_id, "not-the-id", "x")
            assert wrong.value.status_code == 409
            await client.clarify(turn.run_id, event.meta["clarifyId"], "ok")

    turn = await run_turn(client, scripted_model, "#clarify Sure?\n#say fine", on_event=answer)
    assert turn.result is not None and turn.result.status == "SUCCESS"


async def test_abort_during_streaming_keeps_the_partial_answer(
    client: BridgeClient, scripted_model: str
) -> None:
    aborted = asyncio.Event()

    async def abort_after_three(event: Event, turn: Turn) -> None:
        if len(turn.of("answer_delta")) == 3 and not aborted.is_set():
            aborted.set()
            await client.abort(turn.run_id)

    started = time.monotonic()
    turn = await run_turn(
        client, scripted_model, "#delay 50\n#tokens 400", on_event=abort_after_three
    )
    assert turn.result is not None and turn.result.status == "STOPPED"
    assert time.monotonic() - started < 15
    assert turn.result.final_text.startswith("t1 t2 t3")
    assert "t400" not in turn.result.final_text


async def test_abort_releases_a_waiting_clarify(client: BridgeClient, scripted_model: str) -> None:
    async def abort_on_question(event: Event, turn: Turn) -> None:
        if event.kind == "clarify_request":
            await client.abort(turn.run_id)

    started = time.monotonic()
    turn = await run_turn(
        client, scripted_model, "#clarify Wait?\n#say never", on_event=abort_on_question
    )
    assert turn.result is not None and turn.result.status == "STOPPED"
    assert time.monotonic() - started < 15
    assert "never" not in turn.result.final_text
    assert not turn.of("clarify_answered")


async def test_abort_of_an_unknown_run_is_not_found(client: BridgeClient) -> None:
    with pytest.raises(BridgeUnavailable) as missing:
        await client.abort("no-such-run")
    assert missing.value.status_code == 404


async def test_reset_drops_the_sessions_agents(client: BridgeClient, scripted_model: str) -> None:
    await run_turn(client, scripted_model, "#say hi", session="to-reset")
    before = (await client.health())["agents"]
    await client.reset("to-reset")
    assert (await client.health())["agents"] == before - 1
    turn = await run_turn(client, scripted_model, "#say again", session="to-reset")
    assert turn.result is not None and turn.result.final_text == "again"


async def test_memory_read_and_write(client: BridgeClient, bridge: BridgeProcess) -> None:
    view = await client.put_memory("s1", memory=["likes tea", "works nights"], user="Name: Ada")
    assert view.memory.entries == ["likes tea", "works nights"]
    assert view.memory.char_limit == 2200 and view.user.char_limit == 1375
    assert view.user.content == "Name: Ada" and view.user.chars == 9
    disk = (bridge.home / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert disk == "likes tea\n§\nworks nights"
    assert (await client.get_memory("s1")) == view

    with pytest.raises(BridgeUnavailable) as too_long:
        await client.put_memory("s1", user="x" * 1376)
    assert too_long.value.status_code == 422


async def test_compaction_emits_summary_and_returns_the_whole_history(
    client: BridgeClient, scripted_model: str
) -> None:
    history = chat_history([(f"question {i}", f"answer {i}") for i in range(30)])
    message = "#usage 60000\n#tool skills_list {}\n#say after compaction"
    turn = await run_turn(
        client, scripted_model, message, history=history, model=model(scripted_model, 64000)
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    (compacted,) = turn.of("context_compacted")
    assert compacted.content.strip()
    assert turn.result.compacted
    messages = turn.result.messages
    assert len(messages) < len(history)
    assert messages[-1]["content"] == "after compaction"
    assert not [k for m in messages for k in m if k.startswith("_")]


async def test_eight_sessions_in_parallel_without_cross_talk(
    client: BridgeClient, scripted_model: str
) -> None:
    async def one(i: int) -> Turn:
        history = chat_history([(f"topic-{i}", f"noted-{i}")])
        message = f"#delay 5\n#say alpha-{i} beta-{i} gamma-{i}\n#echo-context"
        return await run_turn(client, scripted_model, message, session=f"par-{i}", history=history)

    turns = await asyncio.gather(*(one(i) for i in range(8)))
    for i, turn in enumerate(turns):
        assert turn.result is not None and turn.result.status == "SUCCESS"
        words = turn.answer().split()
        assert [w for w in words if "-" in w and not w.endswith(f"-{i}")] == []
        assert turn.result.final_text.endswith(f"CONTEXT: topic-{i}")


async def test_unreachable_model_endpoint_fails_fast(client: BridgeClient) -> None:
    dead = f"http://127.0.0.1:{free_port()}/v1"
    started = time.monotonic()
    turn = await run_turn(client, dead, "#say hello", session="dead-endpoint")
    assert turn.result is not None and turn.result.status == "FAILED"
    assert turn.result.error
    assert time.monotonic() - started < 30


async def test_provider_error_ends_in_failed(client: BridgeClient, scripted_model: str) -> None:
    turn = await run_turn(client, scripted_model, "#fail 500", session="failing")
    assert turn.result is not None and turn.result.status == "FAILED"
    assert "500" in (turn.result.error or "")


async def test_nothing_is_printed_to_stdout(
    client: BridgeClient, scripted_model: str, bridge: BridgeProcess
) -> None:
    await run_turn(client, scripted_model, "#fail 502", session="noisy")
    await run_turn(client, scripted_model, "#tool no_such_tool {}\n#say ok", session="noisy")
    assert bridge.log_path.read_text(encoding="utf-8") == ""


async def test_tool_outside_enabled_toolsets_is_refused(
    client: BridgeClient, scripted_model: str, bridge: BridgeProcess
) -> None:
    target = bridge.home / "should-not-exist.txt"
    args = json.dumps({"path": str(target), "content": "x"})
    message = f"#tool write_file {args}\n#echo-tool-result"
    safe = ["clarify", "todo", "memory", "skills"]
    turn = await run_turn(client, scripted_model, message, session="refused", toolsets=safe)
    assert turn.result is not None
    assert "does not exist" in turn.result.final_text
    assert not target.exists()


async def test_each_session_gets_its_own_working_directory(
    client: BridgeClient, scripted_model: str, bridge: BridgeProcess
) -> None:
    args = json.dumps({"command": "pwd"})
    message = f"#tool terminal {args}\n#echo-tool-result"
    turn = await run_turn(client, scripted_model, message, session="cwd-a", toolsets=["terminal"])
    assert turn.result is not None
    assert str(Path(bridge.home) / "workspaces" / "cwd-a") in turn.result.final_text


async def test_app_skills_are_visible_to_hermes(client: BridgeClient, scripted_model: str) -> None:
    message = '#tool skill_view {"name": "demo-skill"}\n#echo-tool-result'
    turn = await run_turn(client, scripted_model, message, session="skills")
    assert turn.result is not None
    assert "Always answer in haiku." in turn.result.final_text


async def test_empty_toolsets_offer_no_tools(client: BridgeClient, scripted_model: str) -> None:
    message = "#tool todo {}\n#echo-tool-result"
    turn = await run_turn(client, scripted_model, message, session="no-tools", toolsets=[])
    assert turn.result is not None
    assert "does not exist" in turn.result.final_text


async def test_dead_bridge_raises_bridge_unavailable_quickly(scripted_model: str) -> None:
    started = time.monotonic()
    async with BridgeClient(f"http://127.0.0.1:{free_port()}") as dead:
        with pytest.raises(BridgeUnavailable, match="cannot be reached"):
            await run_turn(dead, scripted_model, "#say hi")
    assert time.monotonic() - started < 5


async def test_concurrent_calls_of_one_tool_each_get_their_own_result(
    client: BridgeClient, scripted_model: str, bridge: BridgeProcess
) -> None:
    folder = bridge.home / "workspaces" / "concurrent"  # the file tools read only there
    folder.mkdir(parents=True, exist_ok=True)
    files = {"alpha.txt": "ALPHA-CONTENT", "bravo.txt": "BRAVO-CONTENT"}
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    paths = {name: str(folder / name) for name in files}
    message = (
        f"#tool read_file {json.dumps({'path': paths['alpha.txt']})}\n"
        f"#also read_file {json.dumps({'path': paths['bravo.txt']})}\n"
        "#say read both"
    )
    turn = await run_turn(client, scripted_model, message, session="concurrent", toolsets=["file"])

    assert turn.result is not None and turn.result.status == "SUCCESS"
    calls, results = turn.of("tool_call"), turn.of("tool_result")
    assert [c.tool_name for c in calls] == ["read_file", "read_file"]
    # hermes ran them as one concurrent batch: both calls started before either result
    kinds = [k for k in turn.kinds() if k in ("tool_call", "tool_result")]
    assert kinds == ["tool_call", "tool_call", "tool_result", "tool_result"]
    args_by_id = {c.meta["toolCallId"]: c.meta["args"] for c in calls if c.meta}
    assert len(args_by_id) == 2
    assert sorted(a["path"] for a in args_by_id.values()) == sorted(paths.values())
    for result in results:
        assert result.meta is not None
        path = args_by_id[result.meta["toolCallId"]]["path"]
        assert files[Path(path).name] in result.content
        assert isinstance(result.meta["durationMs"], int) and result.meta["durationMs"] >= 0
    assert {r.meta["toolCallId"] for r in results if r.meta} == set(args_by_id)


async def test_a_connection_reset_without_an_answer_says_so() -> None:
    """A bridge killed while it holds a request (the connection is reset): the error names
    what happened (it read "broke ()": httpx's ReadError has no message)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def close_the_first_connection() -> None:
            connection, _ = server.accept()
            connection.recv(65536)
            linger_off = struct.pack("ii", 1, 0)  # close with a reset, not a goodbye
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger_off)
            connection.close()

        closer = threading.Thread(target=close_the_first_connection, daemon=True)
        closer.start()
        async with BridgeClient(f"http://127.0.0.1:{port}") as client:
            with pytest.raises(BridgeUnavailable) as raised:
                await client.get_memory("s")
        closer.join(5)
    assert "broke (" in str(raised.value) and "()" not in str(raised.value), raised.value
