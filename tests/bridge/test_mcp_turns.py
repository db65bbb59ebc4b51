"""MCP servers through the real hermes-agent: the scripted model calls their tools by name,
hermes' own client talks to a FastMCP server over stdio or streamable HTTP (no mocks)."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.bridge_client.client import BridgeClient
from agentchat.protocol.mcp import McpServerWire
from tests.bridge.support import Event, Turn, run_turn
from tests.support.mcp_servers import served_over_http, setup, stdio_server
from tests.support.own_bridge import own_bridge

pytestmark = pytest.mark.timeout(120)

ADD = '#tool mcp__tools__add {"a": 2, "b": 3}\n#echo-tool-result'


bridge = own_bridge()  # its MCP server processes are this module's alone


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with served_over_http("s3cret-token") as url:
        yield url


def statuses(turn: Turn) -> list[str]:
    return [e.content for e in turn.of("status")]


def result_of(turn: Turn, tool: str) -> Event:
    return next(e for e in turn.of("tool_result") if e.tool_name == tool)


async def test_a_stdio_servers_tool_is_called_through_hermes(
    client: BridgeClient, scripted_model: str
) -> None:
    turn = await run_turn(client, scripted_model, ADD, mcp=setup(stdio_server()))

    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    assert "sum: 5" in turn.answer()
    call = next(e for e in turn.of("tool_call") if e.tool_name == "mcp__tools__add")
    assert call.meta is not None and call.meta["mcp"] == {"server": "tools", "tool": "add"}
    assert call.meta["args"] == {"a": 2, "b": 3}
    result = result_of(turn, "mcp__tools__add")
    assert result.meta is not None and result.meta["mcp"] == {"server": "tools", "tool": "add"}
    assert "durationMs" in result.meta and "sum: 5" in result.content


async def test_an_http_server_gets_its_headers(
    client: BridgeClient, scripted_model: str, http_url: str
) -> None:
    server = {
        "name": "remote",
        "transport": "http",
        "url": http_url,
        "headers": {"Authorization": "Bearer s3cret-token"},
        "approval": "allowed",
    }
    message = '#tool mcp__remote__echo {"text": "over http"}\n#echo-tool-result'
    turn = await run_turn(client, scripted_model, message, mcp=setup(server))

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert "echo: over http" in turn.answer()


async def test_a_server_that_refuses_is_left_out_and_the_turn_goes_on(
    client: BridgeClient, scripted_model: str, http_url: str
) -> None:
    server = {"name": "locked", "transport": "http", "url": http_url, "approval": "allowed"}
    turn = await run_turn(
        client, scripted_model, "#echo-tools", session="s-locked", mcp=setup(server)
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert "mcp__locked__" not in turn.answer()
    (line,) = [s for s in statuses(turn) if "locked" in s and "left out" in s]
    assert "401" in line or "nauthorized" in line


async def test_a_chat_that_turned_a_server_off_is_not_offered_its_tools(
    client: BridgeClient, scripted_model: str
) -> None:
    both = setup(stdio_server(), stdio_server("other"), use=["other"])
    turn = await run_turn(client, scripted_model, "#echo-tools", session="s-narrow", mcp=both)

    assert "mcp__other__echo" in turn.answer()
    assert "mcp__tools__" not in turn.answer()


async def test_a_stdio_server_starts_with_the_clean_environment_and_its_own(
    client: BridgeClient, scripted_model: str
) -> None:
    server = stdio_server(env={"MY_SERVICE_TOKEN": "abc123"})
    message = "#tool mcp__tools__env_names {}\n#echo-tool-result"
    turn = await run_turn(client, scripted_model, message, session="s-env", mcp=setup(server))

    names = result_of(turn, "mcp__tools__env_names").content
    assert "MY_SERVICE_TOKEN" in names and "PATH" in names
    # the bridge's own settings (its secret above all) and the test run's never reach it
    assert "AGENTCHAT_" not in names
    assert os.environ.get("AGENTCHAT_TEST_NS") is None or "AGENTCHAT_TEST_NS" not in names


async def test_ask_before_each_call_pauses_for_the_person(
    client: BridgeClient, scripted_model: str
) -> None:
    answers = iter(["Deny", "Allow for this chat"])
    asked: list[Event] = []

    async def answer(event: Event, turn: Turn) -> None:
        if event.kind == "clarify_request":
            asked.append(event)
            await client.clarify(turn.run_id, event.meta["clarifyId"], next(answers))

    server = stdio_server(approval="ask")
    message = (
        '#tool mcp__tools__echo {"text": "first"}\n'
        '#tool mcp__tools__echo {"text": "second"}\n#echo-tool-result'
    )
    turn = await run_turn(
        client, scripted_model, message, session="s-ask", mcp=setup(server), on_event=answer
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert len(asked) == 2
    approval = asked[0].meta["approval"]
    assert approval["mcp"] == {"server": "tools", "tool": "echo"}
    first, second = turn.of("tool_result")
    assert "BLOCKED" in first.content and "first" not in first.content
    assert "echo: second" in second.content
    assert "mcp:tools" in turn.result.approvals

    # the chat's approval comes back with the next run: no question
    again = await run_turn(
        client,
        scripted_model,
        '#tool mcp__tools__echo {"text": "third"}\n#echo-tool-result',
        session="s-ask",
        mcp=setup(server),
        approvals=turn.result.approvals,
    )
    assert not again.of("clarify_request")
    assert "echo: third" in again.answer()


async def test_a_server_that_hangs_is_cut_at_its_timeout(
    client: BridgeClient, scripted_model: str
) -> None:
    hanging = stdio_server("stuck", mode="hang", connectTimeoutS=2)
    turn = await run_turn(
        client, scripted_model, "#say still here", session="s-hang", mcp=setup(hanging)
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert turn.answer() == "still here"
    assert any("stuck" in s and "connect timeout" in s for s in statuses(turn))


async def test_a_tool_call_that_hangs_is_cut_at_the_servers_timeout(
    client: BridgeClient, scripted_model: str
) -> None:
    server = stdio_server(timeoutS=2)
    message = '#tool mcp__tools__wait {"seconds": 60}\n#say went on'
    turn = await run_turn(client, scripted_model, message, session="s-wait", mcp=setup(server))

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert "timed out" in result_of(turn, "mcp__tools__wait").content
    assert turn.answer().strip() == "went on"


async def test_a_server_that_exits_is_left_out(client: BridgeClient, scripted_model: str) -> None:
    gone = stdio_server("gone", mode="exit", connectTimeoutS=15)
    turn = await run_turn(client, scripted_model, "#say fine", session="s-exit", mcp=setup(gone))

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert any("gone" in s and "left out" in s for s in statuses(turn))


async def test_a_server_that_dies_mid_call_gives_an_error_result(
    client: BridgeClient, scripted_model: str
) -> None:
    server = stdio_server("dies")
    message = "#tool mcp__dies__quit {}\n#say carried on"
    turn = await run_turn(client, scripted_model, message, session="s-quit", mcp=setup(server))

    assert turn.result is not None and turn.result.status == "SUCCESS"
    result = result_of(turn, "mcp__dies__quit")
    assert result.meta is not None and result.meta.get("isError") is True
    assert turn.answer().strip() == "carried on"


async def test_a_command_that_does_not_exist_is_named(
    client: BridgeClient, scripted_model: str, tmp_path: Path
) -> None:
    missing = {**stdio_server("nowhere"), "command": str(tmp_path / "no-such-server")}
    turn = await run_turn(
        client, scripted_model, "#say ok", session="s-missing", mcp=setup(missing)
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    assert any("nowhere" in s and "does not exist" in s for s in statuses(turn))
    check = await client.mcp_check(McpServerWire.model_validate(missing))
    assert check.problem is not None and "does not exist" in check.problem
    not_executable = tmp_path / "plain.txt"
    not_executable.write_text("not a program")
    plain = McpServerWire.model_validate({**missing, "command": str(not_executable)})
    assert "not executable" in str((await client.mcp_check(plain)).problem)


async def test_a_tool_that_returns_5_mb_does_not_swamp_the_turn(
    client: BridgeClient, scripted_model: str
) -> None:
    message = '#tool mcp__tools__big {"megabytes": 5}\n#echo-tool-result'
    turn = await run_turn(
        client, scripted_model, message, session="s-big", mcp=setup(stdio_server())
    )

    assert turn.result is not None and turn.result.status == "SUCCESS"
    shown = result_of(turn, "mcp__tools__big").content
    assert 20_000 <= len(shown) < 21_000 and "truncated" in shown
    # what the model was given back is hermes' bounded preview, not 5 MB
    assert 0 < len(turn.answer()) < 200_000


async def test_images_and_files_a_tool_returns_come_with_its_result(
    client: BridgeClient, scripted_model: str
) -> None:
    message = "#tool mcp__tools__picture {}\n#tool mcp__tools__document {}\n#say seen"
    turn = await run_turn(
        client, scripted_model, message, session="s-media", mcp=setup(stdio_server())
    )

    image = result_of(turn, "mcp__tools__picture").meta["media"]
    assert [m["kind"] for m in image] == ["image"] and image[0]["mime"] == "image/png"
    assert base64.b64decode(image[0]["data"]).startswith(b"\x89PNG")
    (document,) = result_of(turn, "mcp__tools__document").meta["media"]
    assert document["kind"] == "file" and document["name"].endswith(".pdf")
    assert base64.b64decode(document["data"]).startswith(b"%PDF")


async def test_changed_settings_reconnect_and_a_removed_server_is_closed(
    client: BridgeClient, scripted_model: str
) -> None:
    first = stdio_server("swap", env={"WHICH": "one"})
    message = '#tool mcp__swap__env_value {"name": "WHICH"}\n#echo-tool-result'
    turn = await run_turn(client, scripted_model, message, session="s-swap", mcp=setup(first))
    assert "one" in turn.answer()

    second = {**first, "env": {"WHICH": "two"}}
    turn = await run_turn(client, scripted_model, message, session="s-swap", mcp=setup(second))
    assert "two" in turn.answer()
    (status,) = [s for s in await client.mcp_status() if s.name == "swap"]
    assert status.state == "connected" and "env_value" in {t.name for t in status.tools}

    await run_turn(client, scripted_model, "#say bye", session="s-swap", mcp=setup())
    assert not [s for s in await client.mcp_status() if s.name == "swap"]


async def test_probe_lists_the_tools_with_their_descriptions(
    client: BridgeClient, tmp_path: Path
) -> None:
    probe = await client.mcp_probe(McpServerWire.model_validate(stdio_server("probe")))
    assert probe.ok, probe.error
    tools = {t.name: t.description for t in probe.tools}
    assert tools["add"] == "Add two whole numbers."

    hanging = stdio_server("probe-hang", mode="hang", connectTimeoutS=2)
    failed = await client.mcp_probe(McpServerWire.model_validate(hanging))
    assert not failed.ok and "connect timeout" in str(failed.error)
    assert json.dumps(failed.model_dump())  # one plain sentence, nothing else


async def test_only_the_tools_a_server_is_limited_to_are_offered(
    client: BridgeClient, scripted_model: str
) -> None:
    server = stdio_server("picky", toolsInclude=["add", "echo"], toolsExclude=["echo"])
    turn = await run_turn(
        client, scripted_model, "#echo-tools", session="s-picky", mcp=setup(server)
    )

    offered = [n for n in turn.answer().split() if n.startswith("mcp__picky__")]
    assert offered == ["mcp__picky__add", "mcp__picky__echo"]  # include wins over exclude
