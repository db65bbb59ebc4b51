"""What refusing the agent's programs costs the API (web/agent_refusal.py): the look-up of a
request's client socket among every bridge's processes on this machine.

A real bridge (hermes imported, its threads and files open) with the terminal toolset, the
scripted model on loopback. Measured for a socket no agent holds (the page's): the first
look-up of a connection (bridges found, their process tree walked, every descriptor read),
once with the bridge idle and once with 20 programs of the agent's running below it; and a
request on a connection already found clean (keep-alive: the verdict is kept 5 s). Medians of
REPEATS. Prints the figures and writes bench/results/agent_check.json.
Run: .venv/bin/python bench/bench_agent_check.py
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from agentchat.bridge_client.client import BridgeClient  # noqa: E402
from agentchat.peers.agent_processes import AgentProcesses, bridge_pids, descendants  # noqa: E402
from agentchat.peers.socket_owner import socket_holder  # noqa: E402
from agentchat.scripted_llm.server import serve_in_thread  # noqa: E402
from agentchat.web.agent_refusal import AgentRefusalMiddleware  # noqa: E402
from tests.bridge.support import run_turn  # noqa: E402
from tests.support.servers import start_bridge  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "agent_check.json"
REPEATS = 200
PROGRAMS = 20


def _median_ms(action: object, repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


def _page_socket() -> tuple[socket.socket, socket.socket, socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    accepted, _ = server.accept()
    return server, client, accepted


def main() -> None:
    model, stop_model = serve_in_thread()
    bridge = start_bridge(Path(tempfile.mkdtemp()), AGENTCHAT_AGENT_TOOLSETS="terminal")
    server, client, accepted = _page_socket()
    try:
        holder = socket_holder(client.getsockname(), accepted.getsockname())
        assert holder is not None
        fresh = lambda: AgentProcesses().hold(holder)  # noqa: E731  (bridges looked for too)
        figures = {"idle_first_lookup_ms": _median_ms(fresh, 50)}
        known = AgentProcesses()
        figures["idle_tree_walk_ms"] = _median_ms(lambda: known.hold(holder))
        start = f"for i in $(seq {PROGRAMS}); do (setsid sleep 120 &); done; echo started"
        message = f"#tool terminal {json.dumps({'command': start})}\n#say ok"

        async def turn() -> None:
            async with BridgeClient(bridge.url, bridge.secret) as c:
                await run_turn(c, model, message, toolsets=["terminal"])

        asyncio.run(turn())
        figures["agent_processes"] = len(descendants(bridge_pids())) - len(bridge_pids())
        figures["busy_tree_walk_ms"] = _median_ms(lambda: known.hold(holder))
        middleware = AgentRefusalMiddleware(app=None, agents=known)  # type: ignore[arg-type]
        scope = {"client": client.getsockname(), "server": accepted.getsockname()}
        middleware._from_agent(scope)  # found clean once
        figures["keep_alive_request_ms"] = _median_ms(lambda: middleware._from_agent(scope))
    finally:
        for sock in (client, accepted, server):
            sock.close()
        for pid in descendants([bridge.process.pid]) - {bridge.process.pid}:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)  # the programs the turn started
        bridge.stop()
        stop_model()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    for name, value in figures.items():
        print(f"{name:>24}: {value}")


if __name__ == "__main__":
    main()
