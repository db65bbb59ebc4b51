"""Relay overhead: the scripted model's tokens through (a) hermes-agent in-process, (b) the
bridge's SSE, (c) bridge → API → SSE client, and (d) the model read directly.

Figures: tokens/s at full speed (`#tokens N`, median of 5; a, b and c run in turn, five
rounds, so that a change in the machine's load falls on all three; the bridge joins tokens into
fewer events, issue 17) and per-token latency (model send → client arrival, CLOCK_MONOTONIC across
processes); the ratios c/a, b/a, c/b (the streamed answer vs the model read directly is
retired: hermes itself caps it near 0.04, and what a user sees is model token → painted,
bench_page.py); latency at 200 tokens/s (`#delay 5`) for b, c (memory bus) and c (Redis bus),
the added latency c - b per percentile; first event after POST /runs, cold (first run of a
new session on a fresh bridge) and warm (median of 5 later turns of that session); API +
bridge idle RSS.

Run: .venv/bin/python bench/bench_relay.py [--quick]   (writes bench/results/relay.json)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

import httpx  # noqa: E402

from agentchat.protocol.sse import aparse_lines  # noqa: E402
from bench import common as c  # noqa: E402

REPEATS = 5
WARM_TURNS = 5


def sizes(quick: bool) -> dict[str, int]:
    return {"fast": 500 if quick else 3000, "paced": 300 if quick else 1000}


# ---- (a) hermes in-process, in a child with its own HERMES_HOME -----------------------------


def in_process_child(model_url: str, home: str) -> None:
    """Child mode: one agent; each stdin line `TAG COUNT` is one `#tokens COUNT` turn, answered
    with one stdout line of JSON (token index → monotonic ns when the translator emitted it)."""
    import os

    protocol = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # whatever hermes prints stays off the pipe

    from agentchat.bridge.hermes import agents as hermes_api
    from agentchat.bridge.hermes.agents import ModelSpec
    from agentchat.bridge.hermes.home import import_hermes, prepare_home
    from agentchat.bridge.hermes.translate import TurnTranslator
    from agentchat.bridge.live.clarify_gate import ClarifyGate
    from agentchat.bridge.settings import BridgeSettings

    settings = BridgeSettings(hermes_home=Path(home))
    prepare_home(settings)
    import_hermes()
    spec = ModelSpec(model_url, "bench", "scripted", "openai", 131072)
    slot = hermes_api.build_agent(spec, "bench", settings.default_toolsets, 5)
    marks: dict[int, int] = {}

    def emit(event: Any) -> None:
        if getattr(event, "kind", None) == "answer_delta":
            now = time.monotonic_ns()
            for index in c.token_indices(event.content):
                marks.setdefault(index, now)

    slot.translator = TurnTranslator(emit, ClarifyGate(1), faces=hermes_api.thinking_faces())
    slot.agent.run_conversation("#say warm-up", conversation_history=[])
    for line in sys.stdin:
        tag, count = line.split()
        marks.clear()
        slot.agent.run_conversation(c.tagged(tag, f"#tokens {count}"), conversation_history=[])
        protocol.write(json.dumps(marks) + "\n")
        protocol.flush()


class InProcess:
    """The child that runs hermes in-process, one turn per call (interleaved with b and c, so
    a change in the machine's load falls on every path alike)."""

    def __init__(self, model: c.Process, tmp: Path) -> None:
        self.model = model
        command = [sys.executable, __file__, "--in-process", model.url, str(tmp / "inproc-home")]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT
        )

    def turn(self, count: int) -> dict[str, float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        tag = uuid.uuid4().hex[:12]
        self.process.stdin.write(f"{tag} {count}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the in-process child exited ({self.process.wait()})")
        marks = {int(k): v for k, v in json.loads(line).items()}
        return c.rate_and_latency(marks, c.fetch_sends(self.model, tag))

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


# ---- (b) the bridge's SSE, (c) the API's SSE, (d) the model directly ------------------------


async def bridge_turn(bridge: c.Process, model: c.Process, script: str) -> dict[str, float]:
    from agentchat.bridge_client.client import BridgeClient

    tag = uuid.uuid4().hex[:12]
    marks: dict[int, int] = {}

    def on_event(event: Any) -> None:
        if getattr(event, "kind", None) == "answer_delta":
            now = time.monotonic_ns()
            for index in c.token_indices(event.content):
                marks.setdefault(index, now)

    async with BridgeClient(bridge.url, bridge.secret, read_timeout=120) as client:
        request = c.bridge_request(model.url, c.tagged(tag, script), f"relay-{tag}", tag)
        result = await c.drive_bridge(client, request, on_event)
    if result.status != "SUCCESS":
        raise RuntimeError(f"bridge turn failed: {result.error}")
    return c.rate_and_latency(marks, c.fetch_sends(model, tag))


async def api_turn(http: httpx.AsyncClient, model: c.Process, script: str) -> dict[str, float]:
    tag = uuid.uuid4().hex[:12]
    session = await c.new_session(http)
    run_id = await c.start_run(http, session, c.tagged(tag, script))
    arrivals = await c.read_run(http, run_id)
    if arrivals[-1].event != "workflow_complete":
        raise RuntimeError(f"API run failed: {arrivals[-1].data}")
    return c.rate_and_latency(c.token_arrivals(arrivals), c.fetch_sends(model, tag))


async def model_direct(model: c.Process, count: int) -> dict[str, float]:
    tag = uuid.uuid4().hex[:12]
    body = {
        "model": "scripted",
        "stream": True,
        "messages": [{"role": "user", "content": c.tagged(tag, f"#tokens {count}")}],
    }
    marks: dict[int, int] = {}
    async with (
        httpx.AsyncClient(timeout=120) as http,
        http.stream("POST", f"{model.url}/chat/completions", json=body) as resp,
    ):
        async for message in aparse_lines(resp.aiter_lines()):
            if not message.data.startswith("{"):
                continue
            now = time.monotonic_ns()
            choices = message.json().get("choices") or [{}]
            delta = choices[0].get("delta") or {}
            for index in c.token_indices(str(delta.get("content") or "")):
                marks.setdefault(index, now)
    return c.rate_and_latency(marks, c.fetch_sends(model, tag))


async def first_event_ms(http: httpx.AsyncClient, session: int, message: str) -> float:
    """POST /runs → the first SSE event of the run, in ms (the rest of the run is read too)."""
    start = time.monotonic_ns()
    run_id = await c.start_run(http, session, message)
    first: float | None = None
    async with http.stream("GET", f"/api/chat/runs/{run_id}/stream") as resp:
        async for arrival in c.sse_events(resp.aiter_lines()):
            if first is None:
                first = (arrival.at_ns - start) / 1e6
            if arrival.event in c.TERMINAL:
                break
    if first is None:
        raise RuntimeError(f"run {run_id} sent no event")
    return first


def best(runs: list[dict[str, float]]) -> dict[str, float]:
    """The run with the median events/s (its latency figures go with it)."""
    ordered = sorted(runs, key=lambda r: r["events_per_s"])
    return ordered[len(ordered) // 2]


async def measure(
    model: c.Process,
    bridge: c.Process,
    api: c.Process,
    api_redis: c.Process,
    in_process: InProcess,
    n: dict[str, int],
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with (
        httpx.AsyncClient(base_url=api.url, timeout=120) as http,
        httpx.AsyncClient(base_url=api_redis.url, timeout=120) as http_redis,
    ):
        session = await c.new_session(http)
        out["cold_first_event_ms"] = await first_event_ms(http, session, "#say cold start")
        warm = [await first_event_ms(http, session, f"#say warm {i}") for i in range(WARM_TURNS)]
        out["warm_first_event_ms"] = c.median(warm)
        fast = f"#tokens {n['fast']}"
        out["d"] = best([await model_direct(model, n["fast"]) for _ in range(REPEATS)])
        runs: dict[str, list[dict[str, float]]] = {"a": [], "b": [], "c": []}
        for _ in range(REPEATS):  # a, b, c in turn: the load at each moment falls on all three
            runs["a"].append(await asyncio.to_thread(in_process.turn, n["fast"]))
            runs["b"].append(await bridge_turn(bridge, model, fast))
            runs["c"].append(await api_turn(http, model, fast))
        out |= {path: best(found) for path, found in runs.items()}
        paced = f"#delay 5\n#tokens {n['paced']}"
        out["b_200"] = await bridge_turn(bridge, model, paced)
        out["c_200"] = await api_turn(http, model, paced)
        out["c_200_redis"] = await api_turn(http_redis, model, paced)
    return out


# ---- figures --------------------------------------------------------------------------------


def figures(r: dict[str, Any], n: dict[str, int]) -> list[dict[str, Any]]:
    a, b, cc, d = r["a"], r["b"], r["c"], r["d"]
    cond = {"database": "sqlite", "bus": "memory", "events": n["fast"], "processes": 4}
    paced = {**cond, "events": n["paced"], "rate": "200/s"}
    f = c.figure
    rows = [
        f(
            "relay.a.events_per_s",
            "(a) hermes in-process, tokens/s",
            a["events_per_s"],
            "tokens/s",
            conditions=cond,
        ),
        f(
            "relay.b.events_per_s",
            "(b) bridge SSE, tokens/s",
            b["events_per_s"],
            "tokens/s",
            baseline=("(a) in-process", a["events_per_s"]),
            conditions=cond,
        ),
        f(
            "relay.c.events_per_s",
            "(c) bridge → API → SSE client, tokens/s",
            cc["events_per_s"],
            "tokens/s",
            baseline=("(a) in-process", a["events_per_s"]),
            conditions=cond,
            reference="one SSE stream: uvicorn+Starlette ~137,000 ev/s (PERFORMANCE.md)",
        ),
        f(
            "relay.d.events_per_s",
            "(d) scripted model read directly, tokens/s",
            d["events_per_s"],
            "tokens/s",
            conditions=cond,
        ),
        f(
            "relay.ratio_c_a",
            "relay ratio c/a (whole path / hermes in-process, tokens/s)",
            cc["events_per_s"] / a["events_per_s"],
            "x",
            target=(">=", 0.9),
            conditions=cond,
        ),
        f(
            "relay.ratio_b_a",
            "relay ratio b/a (bridge SSE / hermes in-process)",
            b["events_per_s"] / a["events_per_s"],
            "x",
            conditions=cond,
        ),
        f(
            "relay.ratio_c_b",
            "relay ratio c/b (API path / bridge directly, issue 5)",
            cc["events_per_s"] / b["events_per_s"],
            "x",
            target=(">=", 0.8),
            conditions=cond,
        ),
    ]
    for name, key in (("a", "a"), ("b", "b"), ("c", "c")):
        for q in ("p50", "p99"):
            rows.append(
                f(
                    f"relay.{key}.latency_{q}_ms",
                    f"({name}) latency model → reader at full speed, {q}",
                    r[key][f"latency_{q}_ms"],
                    "ms",
                    conditions=cond,
                )
            )
    for q, limit, ref in (("p50", 0.6, "0.17"), ("p99", 3.0, "0.38")):
        b200, c200 = r["b_200"][f"latency_{q}_ms"], r["c_200"][f"latency_{q}_ms"]
        rows.append(
            f(
                f"relay.added_{q}_ms",
                f"added latency per event (c - b) at 200 ev/s, {q}",
                c200 - b200,
                "ms",
                target=("<=", limit),
                baseline=("(b) bridge direct, model → reader", b200),
                conditions=paced,
                reference=f"sse-starlette one-way {q} {ref} ms (PERFORMANCE.md)",
            )
        )
    for q, limit, ref in (("p50", None, "0.41"), ("p99", 4.0, "0.94")):
        b200, c200 = r["b_200"][f"latency_{q}_ms"], r["c_200_redis"][f"latency_{q}_ms"]
        rows.append(
            f(
                f"relay.added_{q}_ms_redis",
                f"added latency per event through Redis (c - b) at 200 ev/s, {q}",
                c200 - b200,
                "ms",
                target=("<=", limit) if limit else None,
                baseline=("(b) bridge direct, model → reader", b200),
                conditions={**paced, "bus": "redis"},
                reference=f"Redis XADD → XREAD → SSE {q} {ref} ms (PERFORMANCE.md)",
            )
        )
    rows += [
        f(
            "relay.first_event_warm_ms",
            "first event after POST /runs, warm agent (median of 5)",
            r["warm_first_event_ms"],
            "ms",
            target=("<=", 100),
            conditions={"database": "sqlite"},
            reference="Open WebUI first token ~205 ms",
        ),
        f(
            "relay.first_event_cold_ms",
            "first event after POST /runs, cold (new session, fresh bridge)",
            r["cold_first_event_ms"],
            "ms",
            target=("<=", 700),
            conditions={"database": "sqlite"},
            reference="hermes AIAgent() 0.50-0.55 s first in a process, 0.10 s next",
        ),
        f(
            "relay.idle_rss_mib",
            "resident memory idle, API + bridge",
            r["idle_rss_mib"],
            "MiB",
            target=("<=", 350),
            reference="Open WebUI 835 MiB",
            note=f"API {r['idle_rss_api_mib']:.0f} MiB + bridge {r['idle_rss_bridge_mib']:.0f} MiB",
        ),
    ]
    return rows


def main() -> None:
    n = sizes(c.is_quick())
    with tempfile.TemporaryDirectory(prefix="bench-relay-") as name:
        tmp = Path(name)
        model = c.start_timed_model(tmp)
        bridge = c.start_bridge(tmp / "bridge")
        api = c.start_api(tmp, bridge)
        api_redis = c.start_api(tmp, bridge, redis_url=c.REDIS_URL)
        with c.stopping(model, bridge, api, api_redis):
            c.register_model(api.url, model.url)
            c.register_model(api_redis.url, model.url)
            rss_api, rss_bridge = c.rss_bytes(api.pid) / 2**20, c.rss_bytes(bridge.pid) / 2**20
            child = InProcess(model, tmp)
            try:
                results = asyncio.run(measure(model, bridge, api, api_redis, child, n))
            finally:
                child.close()
        c.clear_redis_prefix()
    results |= {
        "idle_rss_api_mib": rss_api,
        "idle_rss_bridge_mib": rss_bridge,
        "idle_rss_mib": rss_api + rss_bridge,
    }
    c.write_result("relay", figures(results, n), raw=results)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--in-process":
        in_process_child(*sys.argv[2:])
    else:
        main()
