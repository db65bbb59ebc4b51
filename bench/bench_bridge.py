"""Benchmark the Hermes Bridge against hermes-agent called in-process.

Measures, with the scripted model on loopback:
- cold start: bridge process start until /health answers, and the first turn's first event;
- warm first-event latency (median of several turns of one session);
- answer tokens/s (median of 3) of a `#tokens 2000` turn through the bridge's SSE, and of the
  same turn with hermes-agent called in-process (in a subprocess, same config), and their ratio.
  Tokens, not events: the bridge coalesces the answer's tokens into fewer, larger events.

Prints the figures and writes bench/results/bridge.json. Run: .venv/bin/python bench/bench_bridge.py
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import aclosing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "bridge.json"
TOKENS_TURN = "#tokens 2000"
WARM_TURNS = 5
REPEATS = 3  # token turns per side; the median is reported


def _model(base_url: str) -> dict[str, Any]:
    return {
        "baseUrl": base_url,
        "apiKey": "bench",
        "modelName": "scripted",
        "provider": "openai-compatible",
    }


def _tokens(event: Any) -> int:
    """Answer tokens an event carries (the scripted model's `tN ` words)."""
    if getattr(event, "kind", None) != "answer_delta":
        return 0
    return len(str(event.content).split())


async def _timed_turn(client: Any, base_url: str, message: str, session: str) -> dict[str, float]:
    """(seconds to first event, answer tokens, seconds from first event to run_end)."""
    start = time.perf_counter()
    marks: dict[str, float] = {"events": 0}

    from agentchat.protocol.bridge_api import RunRequest
    from agentchat.protocol.events import RunEnd

    request = RunRequest.model_validate(
        {
            "runId": uuid.uuid4().hex,
            "sessionId": session,
            "userMessage": message,
            "history": [],
            "model": _model(base_url),
            "maxIterations": 5,
        }
    )

    result = None
    async with aclosing(client.run(request)) as events:
        async for event in events:
            if isinstance(event, RunEnd):
                result = event
                break
            marks.setdefault("first", time.perf_counter() - start)
            marks["events"] += _tokens(event)
    if result is None:
        raise RuntimeError("the bridge stream ended without run_end")
    if result.status != "SUCCESS":
        raise RuntimeError(f"bench turn failed: {result.error}")
    total = time.perf_counter() - start
    return {"first": marks["first"], "events": marks["events"], "stream": total - marks["first"]}


async def _bridge_figures(
    bridge_url: str, secret: str, base_url: str, started: float
) -> dict[str, Any]:
    from agentchat.bridge_client.client import BridgeClient

    async with BridgeClient(bridge_url, secret, read_timeout=120) as client:
        cold = await _timed_turn(client, base_url, "#say cold start", "bench-cold")
        warm = [
            (await _timed_turn(client, base_url, f"#say warm {i}", "bench-warm"))["first"]
            for i in range(WARM_TURNS + 1)
        ][1:]
        rates = []
        for _ in range(REPEATS):
            tokens = await _timed_turn(client, base_url, TOKENS_TURN, "bench-tokens")
            rates.append(tokens["events"] / tokens["stream"])
    return {
        "cold_start_to_health_s": started,
        "cold_first_event_s": cold["first"],
        "warm_first_event_s": statistics.median(warm),
        "bridge_tokens": tokens["events"],
        "bridge_tokens_per_s": statistics.median(rates),
    }


def _start_bridge(home: Path) -> tuple[subprocess.Popen[bytes], str, str, float]:
    """`agentchat bridge` with a fresh secret (it refuses to start without one)."""
    import secrets

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "agentchat.cli", "bridge", "--port", str(port)]
    started = time.perf_counter()
    secret = secrets.token_urlsafe(24)
    env = {**os.environ, "AGENTCHAT_BRIDGE_SECRET": secret}
    process = subprocess.Popen(
        [*command, "--hermes-home", str(home)], stdout=subprocess.DEVNULL, env=env
    )
    url = f"http://127.0.0.1:{port}"
    deadline = started + 180
    while time.perf_counter() < deadline and process.poll() is None:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return process, url, secret, time.perf_counter() - started
        except httpx.HTTPError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the bridge did not start")


def _in_process_figures(base_url: str, home: Path) -> dict[str, Any]:
    out = home / "inprocess.json"
    command = [sys.executable, __file__, "--in-process", base_url, str(home), str(out)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=300)
    return dict(json.loads(out.read_text()))


def in_process(base_url: str, home: str, out: str) -> None:
    """Child mode: the same turn through hermes-agent directly (no HTTP between)."""
    from agentchat.bridge.hermes import agents as hermes_api
    from agentchat.bridge.hermes.agents import ModelSpec
    from agentchat.bridge.hermes.home import import_hermes, prepare_home
    from agentchat.bridge.hermes.translate import TurnTranslator
    from agentchat.bridge.live.clarify_gate import ClarifyGate
    from agentchat.bridge.settings import BridgeSettings

    settings = BridgeSettings(hermes_home=Path(home) / "inprocess-home")
    prepare_home(settings)
    import_hermes()
    spec = ModelSpec(base_url, "bench", "scripted", "openai", 131072)
    slot = hermes_api.build_agent(spec, "bench", settings.default_toolsets, 5)
    marks: dict[str, float] = {"events": 0}

    def emit(event: Any) -> None:
        marks.setdefault("first", time.perf_counter())
        marks["events"] += _tokens(event)

    slot.translator = TurnTranslator(emit, ClarifyGate(1), faces=hermes_api.thinking_faces())
    slot.agent.run_conversation("#say warm-up", conversation_history=[])
    firsts, rates = [], []
    for _ in range(REPEATS):
        marks.clear()
        marks["events"] = 0
        start = time.perf_counter()
        slot.agent.run_conversation(TOKENS_TURN, conversation_history=[])
        end = time.perf_counter()
        firsts.append(marks["first"] - start)
        rates.append(marks["events"] / (end - marks["first"]))
    figures = {
        "inprocess_first_event_s": statistics.median(firsts),
        "inprocess_tokens": marks["events"],
        "inprocess_tokens_per_s": statistics.median(rates),
    }
    Path(out).write_text(json.dumps(figures))


def main() -> None:
    from agentchat.scripted_llm.server import serve_in_thread

    base_url, stop_model = serve_in_thread()
    with tempfile.TemporaryDirectory(prefix="bench-bridge-") as tmp:
        home = Path(tmp)
        process, bridge_url, secret, started = _start_bridge(home / "hermes-home")
        try:
            figures = asyncio.run(_bridge_figures(bridge_url, secret, base_url, started))
        finally:
            process.terminate()
            process.wait(timeout=10)
        figures |= _in_process_figures(base_url, home)
    stop_model()
    figures["sse_vs_inprocess_ratio"] = (
        figures["bridge_tokens_per_s"] / figures["inprocess_tokens_per_s"]
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    for name, value in figures.items():
        print(f"{name:28} {value:10.3f}" if isinstance(value, float) else f"{name:28} {value:10}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--in-process":
        os.environ.setdefault("PYTHONUNBUFFERED", "1")
        in_process(*sys.argv[2:])
    else:
        main()
