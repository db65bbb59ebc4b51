"""The bridge's agent pool, measured at the bridge (BridgeClient, no API in between):
first-turn latency with a cold agent (a new session) vs a warm one (the session's next turn),
turns/s of one session, and the cost of an LRU eviction (pool size 2: three sessions taking
turns round-robin, so every turn rebuilds its agent, vs two sessions, which always hit).

Run: .venv/bin/python bench/bench_pool.py [--quick]   (writes bench/results/pool.json)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from bench import common as c  # noqa: E402

POOL_SIZE = 2


async def turn(client: Any, model_url: str, session: str) -> dict[str, float]:
    """One `#say` turn: ms to the first event and ms to run_end."""
    start = time.perf_counter()
    first: list[float] = []

    def on_event(_event: Any) -> None:
        if not first:
            first.append((time.perf_counter() - start) * 1000)

    request = c.bridge_request(model_url, "#say pool turn", session, uuid.uuid4().hex)
    result = await c.drive_bridge(client, request, on_event)
    if result.status != "SUCCESS":
        raise RuntimeError(f"pool turn failed: {result.error}")
    return {"first_ms": first[0], "turn_ms": (time.perf_counter() - start) * 1000}


async def measure(bridge: c.Process, model_url: str, quick: bool) -> dict[str, Any]:
    from agentchat.bridge_client.client import BridgeClient

    samples = 3 if quick else 7
    rounds = 12 if quick else 30
    async with BridgeClient(bridge.url, bridge.secret, read_timeout=120) as client:
        await turn(client, model_url, "pool-warm-up")
        cold, warm = [], []
        for _ in range(samples):
            session = f"pool-{uuid.uuid4().hex[:8]}"
            cold.append((await turn(client, model_url, session))["first_ms"])
            warm.append((await turn(client, model_url, session))["first_ms"])
        one = "pool-one"
        await turn(client, model_url, one)
        start = time.perf_counter()
        for _ in range(rounds):
            await turn(client, model_url, one)
        turns_per_s = rounds / (time.perf_counter() - start)
        lru: dict[int, float] = {}
        for sessions in (2, 3):
            names = [f"pool-lru{sessions}-{i}" for i in range(sessions)]
            for name in names:
                await turn(client, model_url, name)
            times = [
                (await turn(client, model_url, names[i % sessions]))["turn_ms"]
                for i in range(rounds)
            ]
            lru[sessions] = c.median(times)
    return {
        "cold_first_ms": c.median(cold),
        "warm_first_ms": c.median(warm),
        "turns_per_s": turns_per_s,
        "lru_hit_turn_ms": lru[2],
        "lru_miss_turn_ms": lru[3],
        "rounds": rounds,
        "samples": samples,
    }


def figures(r: dict[str, Any]) -> list[dict[str, Any]]:
    f = c.figure
    cond = {"pool_size": POOL_SIZE, "model": "scripted, #say", "path": "bridge SSE"}
    return [
        f(
            "pool.cold_first_ms",
            "agent pool: first event, cold agent (new session), median",
            r["cold_first_ms"],
            "ms",
            baseline=("warm agent", r["warm_first_ms"]),
            conditions=cond,
            reference="hermes AIAgent() 0.10 s after the first in a process (PERFORMANCE.md)",
        ),
        f(
            "pool.warm_first_ms",
            "agent pool: first event, warm agent, median",
            r["warm_first_ms"],
            "ms",
            target=("<=", 100),
            conditions=cond,
        ),
        f(
            "pool.turns_per_s",
            "agent pool: turns/s of one session (sequential)",
            r["turns_per_s"],
            "turns/s",
            conditions={**cond, "turns": r["rounds"]},
        ),
        f(
            "pool.lru_eviction_ms",
            "agent pool: LRU eviction cost per turn (3 vs 2 sessions round-robin on a pool of 2)",
            r["lru_miss_turn_ms"] - r["lru_hit_turn_ms"],
            "ms",
            baseline=("turn with a pooled agent", r["lru_hit_turn_ms"]),
            conditions=cond,
        ),
    ]


def main() -> None:
    quick = c.is_quick()
    with tempfile.TemporaryDirectory(prefix="bench-pool-") as name:
        tmp = Path(name)
        model = c.start_timed_model(tmp)
        bridge = c.start_bridge(tmp / "bridge", AGENTCHAT_BRIDGE_POOL_SIZE=str(POOL_SIZE))
        with c.stopping(model, bridge):
            results = asyncio.run(measure(bridge, model.url, quick))
    c.write_result("pool", figures(results), raw=results)


if __name__ == "__main__":
    main()
