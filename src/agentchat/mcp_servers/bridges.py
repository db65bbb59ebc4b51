"""What the agent services say of MCP servers: whether they can start one (before a save),
a test connection, and each server's state on every bridge, merged into one line."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from agentchat.bridge_client.client import BridgeClient, BridgeUnavailable
from agentchat.bridge_client.workers import BridgeWorkers
from agentchat.mcp_servers.schemas import McpServerState, McpTestResult
from agentchat.protocol.errors import Invalid, ServiceUnavailable
from agentchat.protocol.mcp import McpServerStatus, McpServerWire, McpSetup

STATUS_TIMEOUT_S = 5.0


class CommandRefused(Invalid):
    """422: an agent service cannot start this server (its command is missing, say)."""

    code = "mcp_server_refused"


async def check(bridges: BridgeWorkers, server: McpServerWire) -> None:
    """Every agent service that answers must be able to start the server; at least one must
    answer (a command nobody checked is not saved)."""
    answered = 0
    for client in _all(bridges):
        try:
            result = await client.mcp_check(server)
        except BridgeUnavailable:
            continue
        answered += 1
        if result.problem:
            where = f" (agent service {client.base_url})" if len(bridges.urls) > 1 else ""
            raise CommandRefused(f"This server cannot be started: {result.problem}{where}.")
    if not answered:
        raise ServiceUnavailable(
            "No agent service could be reached to check this server's command; try again "
            "when it is running."
        )


async def test(bridges: BridgeWorkers, server: McpServerWire) -> McpTestResult:
    """Connect through the first agent service that answers, list the tools, disconnect."""
    last_error = "no agent service could be reached"
    for client in _all(bridges):
        try:
            probe = await client.mcp_probe(server)
        except BridgeUnavailable as exc:
            last_error = str(exc)
            continue
        return McpTestResult(ok=probe.ok, error=probe.error, tools=probe.tools)
    return McpTestResult(ok=False, error=last_error)


async def states(
    bridges: BridgeWorkers, servers: Sequence[tuple[McpServerWire, bool]]
) -> list[McpServerState]:
    """Each (server, switched on) as the bridges that answered hold it: failed on any of them
    wins, then connected; a bridge that holds older settings of it does not count. Each
    bridge is first asked to connect the servers switched on that it does not hold yet (as
    its next turn would), so a server shows connected, with its tools, before any turn."""
    on = [server for server, enabled in servers if enabled]
    setup = McpSetup(servers=on, use=[server.name for server in on])
    reports = await asyncio.gather(*(_status(c, setup) for c in _all(bridges)))
    answered = [r for r in reports if r is not None]
    return [_merged(server, on, answered) for server, on in servers]


def _merged(
    server: McpServerWire, on: bool, reports: list[list[McpServerStatus]]
) -> McpServerState:
    if not on:
        return McpServerState(name=server.name, state="off")
    if not reports:
        return McpServerState(name=server.name, state="unknown")
    current = [
        s
        for report in reports
        for s in report
        if s.name == server.name and s.fingerprint == server.fingerprint
    ]
    failed = next((s for s in current if s.state == "failed"), None)
    if failed is not None:
        return McpServerState(name=server.name, state="failed", error=failed.error)
    connected = next((s for s in current if s.state == "connected"), None)
    if connected is not None:
        return McpServerState(name=server.name, state="connected", tools=connected.tools)
    return McpServerState(name=server.name, state="idle")


async def _status(client: BridgeClient, setup: McpSetup) -> list[McpServerStatus] | None:
    longest = max((server.connect_timeout_s for server in setup.servers), default=0)
    try:
        return await asyncio.wait_for(client.mcp_connect(setup), longest + STATUS_TIMEOUT_S)
    except (BridgeUnavailable, TimeoutError):
        return None


def _all(bridges: BridgeWorkers) -> list[BridgeClient]:
    return bridges.candidates("mcp")
