"""What an MCP server costs a turn, through the bridge and hermes' own client.

With the scripted model on loopback and the FastMCP test server (tests/support/mcp_server.py):
- the first turn that uses a stdio server (it is started and connected during that turn)
  against a warm turn without MCP;
- a warm turn calling one MCP tool against the same turn calling a built-in tool;
- a turn calling the tool that returns 5 MB (hermes shortens what reaches the model);
- the Tools page's Test (connect, list, close) of a stdio server.
Medians of REPEATS. Prints the figures and writes bench/results/mcp.json.
Run: .venv/bin/python bench/bench_mcp.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from contextlib import aclosing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from agentchat.bridge_client.client import BridgeClient  # noqa: E402
from agentchat.protocol.bridge_api import RunRequest  # noqa: E402
from agentchat.protocol.events import RunEnd  # noqa: E402
from agentchat.protocol.mcp import McpServerWire  # noqa: E402
from agentchat.scripted_llm.server import serve_in_thread  # noqa: E402
from tests.support.mcp_servers import setup, stdio_server  # noqa: E402
from tests.support.servers import start_bridge  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "mcp.json"
REPEATS = 5
MCP_CALL = '#tool mcp__tools__add {"a": 1, "b": 2}\n#say done'
BUILTIN_CALL = "#tool skills_list {}\n#say done"
BIG_CALL = '#tool mcp__tools__big {"megabytes": 5}\n#say done'


async def turn(
    client: BridgeClient, model_url: str, message: str, session: str, **extra: Any
) -> float:
    body = {
        "runId": uuid.uuid4().hex,
        "sessionId": session,
        "userMessage": message,
        "model": {"baseUrl": model_url, "apiKey": "bench", "modelName": "scripted"},
        "maxIterations": 5,
        **extra,
    }
    start = time.perf_counter()
    async with aclosing(client.run(RunRequest.model_validate(body))) as events:
        async for event in events:
            if isinstance(event, RunEnd):
                if event.status != "SUCCESS":
                    raise RuntimeError(f"bench turn failed: {event.error}")
                return time.perf_counter() - start
    raise RuntimeError("the stream ended without run_end")


async def median_of(make: Any) -> float:
    return statistics.median([await make(i) for i in range(REPEATS)])


async def figures(client: BridgeClient, model_url: str) -> dict[str, float]:
    mcp = setup(stdio_server())
    await turn(client, model_url, "#say warm", "warm")
    plain = await median_of(lambda i: turn(client, model_url, "#say hi", "plain"))
    first = await turn(client, model_url, MCP_CALL, "first", mcp=mcp)
    tool = await median_of(lambda i: turn(client, model_url, MCP_CALL, "mcp", mcp=mcp))
    builtin = await median_of(lambda i: turn(client, model_url, BUILTIN_CALL, "builtin", mcp=mcp))
    big = await median_of(lambda i: turn(client, model_url, BIG_CALL, "big", mcp=mcp))
    wire = McpServerWire.model_validate(stdio_server("probe"))
    probes = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        assert (await client.mcp_probe(wire)).ok
        probes.append(time.perf_counter() - start)
    return {
        "turn_without_mcp_s": plain,
        "first_turn_starting_a_stdio_server_s": first,
        "turn_calling_an_mcp_tool_s": tool,
        "turn_calling_a_builtin_tool_s": builtin,
        "turn_calling_a_5_mb_tool_s": big,
        "test_button_probe_s": statistics.median(probes),
    }


def main() -> None:
    model_url, stop_model = serve_in_thread()
    with tempfile.TemporaryDirectory() as root:
        bridge = start_bridge(Path(root))
        try:

            async def measure() -> dict[str, float]:
                async with BridgeClient(bridge.url, bridge.secret, read_timeout=120) as client:
                    return await figures(client, model_url)

            result = asyncio.run(measure())
        finally:
            bridge.stop()
            stop_model()
    for name, value in result.items():
        print(f"{name:40} {value * 1000:9.0f} ms")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
