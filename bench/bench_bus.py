"""Benchmark the event buses: in-process and Redis Streams (publisher and subscriber on two bus
instances, as two API processes would be).

Measures per bus:
- events/s publish → one subscriber (publish one by one, and publish_many by 50);
- fan-out: 100 subscribers x 2,000 events, events delivered per second;
- replay of a finished 10,000-event run, events/s;
- one-way latency publish → subscriber at 200 events/s, p50 / p99 (ms).

Prints the figures and writes bench/results/bus.json.
Run: .venv/bin/python bench/bench_bus.py [--redis-url redis://127.0.0.1:6379/0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from agentchat.events import EventBus, InProcessEventBus, RedisEventBus

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "bus.json"
THROUGHPUT_EVENTS = 20_000
FANOUT_SUBSCRIBERS, FANOUT_EVENTS = 100, 2_000
REPLAY_EVENTS = 10_000
LATENCY_RATE, LATENCY_EVENTS = 200, 1_000
DONE = ("workflow_complete", {"finalText": "done"})

Pair = tuple[EventBus, EventBus]  # (publisher's bus, subscriber's bus)


def delta(n: int) -> tuple[str, dict[str, Any]]:
    return "node_stream", {"runId": "bench", "kind": "answer_delta", "content": f"token {n} "}


async def _drain(bus: EventBus, run_id: str) -> int:
    return sum([1 async for _ in bus.subscribe(run_id)])


async def _subscribed(bus: EventBus, run_id: str, count: int) -> None:
    async with asyncio.timeout(10):
        while bus.subscriber_count(run_id) < count:
            await asyncio.sleep(0.001)


async def throughput(pair: Pair, batch: int) -> float:
    pub, sub = pair
    run_id = uuid.uuid4().hex
    await pub.register(run_id, {})
    received = asyncio.create_task(_drain(sub, run_id))
    await _subscribed(sub, run_id, 1)
    start = time.perf_counter()
    for n in range(0, THROUGHPUT_EVENTS, batch):
        if batch == 1:
            await pub.publish(run_id, *delta(n))
        else:
            await pub.publish_many(run_id, [delta(n + i) for i in range(batch)])
        if n % 100 == 0:  # a real run awaits the bridge between events
            await asyncio.sleep(0)
    await pub.publish(run_id, *DONE)
    count = await received
    assert count == THROUGHPUT_EVENTS + 1, count
    return count / (time.perf_counter() - start)


async def fanout(pair: Pair) -> float:
    pub, sub = pair
    run_id = uuid.uuid4().hex
    await pub.register(run_id, {})
    tasks = [asyncio.create_task(_drain(sub, run_id)) for _ in range(FANOUT_SUBSCRIBERS)]
    await _subscribed(sub, run_id, FANOUT_SUBSCRIBERS)
    start = time.perf_counter()
    for n in range(0, FANOUT_EVENTS, 50):
        await pub.publish_many(run_id, [delta(n + i) for i in range(50)])
        await asyncio.sleep(0)
    await pub.publish(run_id, *DONE)
    counts = await asyncio.gather(*tasks)
    assert set(counts) == {FANOUT_EVENTS + 1}, set(counts)
    return sum(counts) / (time.perf_counter() - start)


async def replay(pair: Pair) -> float:
    pub, sub = pair
    run_id = uuid.uuid4().hex
    await pub.register(run_id, {})
    for n in range(0, REPLAY_EVENTS, 500):
        await pub.publish_many(run_id, [delta(n + i) for i in range(500)])
    await pub.publish(run_id, *DONE)
    start = time.perf_counter()
    count = await _drain(sub, run_id)
    assert count == REPLAY_EVENTS + 1, count
    return count / (time.perf_counter() - start)


async def latency(pair: Pair) -> tuple[float, float]:
    pub, sub = pair
    run_id = uuid.uuid4().hex
    await pub.register(run_id, {})
    samples: list[float] = []

    async def listen() -> None:
        async for event in sub.subscribe(run_id):
            if "sentNs" in event.data:
                samples.append((time.perf_counter_ns() - event.data["sentNs"]) / 1e6)

    listener = asyncio.create_task(listen())
    await _subscribed(sub, run_id, 1)
    start = time.perf_counter()
    for n in range(LATENCY_EVENTS):
        await asyncio.sleep(max(0.0, start + n / LATENCY_RATE - time.perf_counter()))
        await pub.publish(run_id, "node_stream", {"n": n, "sentNs": time.perf_counter_ns()})
    await pub.publish(run_id, *DONE)
    await listener
    cuts = statistics.quantiles(samples, n=100)
    return statistics.median(samples), cuts[98]


async def measure(name: str, make: Callable[[], Awaitable[Pair]]) -> dict[str, float]:
    pair = await make()
    try:
        figures = {
            "events_per_s_single": await throughput(pair, 1),
            "events_per_s_batch50": await throughput(pair, 50),
            "fanout_delivered_per_s": await fanout(pair),
            "replay_events_per_s": await replay(pair),
        }
        p50, p99 = await latency(pair)
        figures |= {"latency_p50_ms": p50, "latency_p99_ms": p99}
    finally:
        for bus in set(pair):
            await bus.close()
    print(f"{name:8}" + "".join(f"{v:>16,.2f}" for v in figures.values()), flush=True)
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    url = parser.parse_args().redis_url
    prefix = f"agentchat-bench:{uuid.uuid4().hex}:"

    async def memory() -> Pair:
        bus = InProcessEventBus()
        return bus, bus

    async def redis() -> Pair:
        return (
            RedisEventBus.from_url(url, prefix=prefix, retention_s=60),
            RedisEventBus.from_url(url, prefix=prefix, retention_s=60),
        )

    columns = ["ev/s single", "ev/s batch50", "fan-out ev/s", "replay ev/s", "p50 ms", "p99 ms"]
    print(f"{'bus':8}" + "".join(f"{c:>16}" for c in columns), flush=True)
    results = {"memory": await measure("memory", memory)}
    try:
        results["redis"] = await measure("redis", redis)
    finally:
        await _delete_prefix(url, prefix)
    results["context"] = {
        "load_average_1m": os.getloadavg()[0],
        "redis_ping_ms_median": await _ping_ms(url),
        "baseline_redis_xadd_xread_sse_p50_ms": 0.41,  # PERFORMANCE.md, idle 2-core machine
        "baseline_redis_xadd_xread_sse_p99_ms": 0.94,
    }
    print(f"context: {results['context']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


async def _ping_ms(url: str) -> float:
    """The round trip to Redis now, to read the figures against (the machine may be busy)."""
    client = Redis.from_url(url)
    try:
        samples = []
        for _ in range(200):
            start = time.perf_counter()
            await client.ping()
            samples.append((time.perf_counter() - start) * 1000)
        return statistics.median(samples)
    finally:
        await client.aclose()


async def _delete_prefix(url: str, prefix: str) -> None:
    client = Redis.from_url(url)
    try:
        keys = [k async for k in client.scan_iter(match=f"{prefix}*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


if __name__ == "__main__":
    asyncio.run(main())
