"""Parallel runs: N sessions streaming at once through the real bridge and the API, and 100 runs
x 50 events/s through one API process fed by a fake bridge (one hermes process on two cores
cannot produce 5,000 events/s; the fake bridge speaks the bridge protocol, docs/contracts.md).

Figures per level: total events/s, p99 latency (model send → client arrival), lost and
duplicated events (ids and tokens; must be 0), API and bridge RSS per active run (peak during
the level minus idle before it, divided by N).

Run: .venv/bin/python bench/bench_parallel.py [--quick]   (writes bench/results/parallel.json)
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

LEVELS = (1, 5, 20, 50)
FAKE_RUNS, FAKE_RATE = 100, 50


def tokens_for(level: int, quick: bool) -> int:
    if quick:
        return 200
    return 2000 if level <= 20 else 1000


async def one_run(http: Any, message: str, session: int | None = None) -> list[c.Arrival]:
    session = session or await c.new_session(http)
    run_id = await c.start_run(http, session, message)
    return await c.read_run(http, run_id)


async def level_runs(http: Any, messages: list[str]) -> tuple[list[list[c.Arrival]], float]:
    """The sessions are made one by one first (see `session_burst`), then the runs at once."""
    sessions = [await c.new_session(http) for _ in messages]
    start = time.monotonic()
    done = await asyncio.gather(
        *(one_run(http, m, s) for m, s in zip(messages, sessions, strict=True))
    )
    return list(done), time.monotonic() - start


async def session_burst(http: Any, count: int) -> int:
    """How many of `count` simultaneous POST /api/chat/sessions fail."""
    answers = await asyncio.gather(
        *(http.post("/api/chat/sessions", json={}) for _ in range(count))
    )
    return sum(1 for a in answers if a.status_code != 201)


def pooled(results: list[list[c.Arrival]], sends: list[dict[int, int]]) -> dict[str, float]:
    latencies: list[float] = []
    first, last, events = None, None, 0
    for arrivals, sent in zip(results, sends, strict=True):
        for index, at in c.token_arrivals(arrivals).items():
            events += 1
            first = at if first is None else min(first, at)
            last = at if last is None else max(last, at)
            if index in sent:
                latencies.append((at - sent[index]) / 1e6)
    span = ((last or 0) - (first or 0)) / 1e9
    stats = c.summarize(latencies)
    return {"events": events, "events_per_s": events / span if span else 0.0, **stats}


async def real_levels(
    api: c.Process, bridge: c.Process, model: c.Process, quick: bool
) -> tuple[list[dict[str, Any]], int]:
    out = []
    async with c.api_client(api.url) as http:
        await one_run(http, "#say warm-up")
        burst_failures = await session_burst(http, 50)
        for level in LEVELS:
            tokens = tokens_for(level, quick)
            tags = [uuid.uuid4().hex[:12] for _ in range(level)]
            idle = {"api": c.rss_bytes(api.pid), "bridge": c.rss_bytes(bridge.pid)}
            with c.RssSampler({"api": api.pid, "bridge": bridge.pid}) as rss:
                messages = [c.tagged(t, f"#tokens {tokens}") for t in tags]
                results, wall = await level_runs(http, messages)
            sends = [c.fetch_sends(model, t) for t in tags]
            checks = [c.check_run(r, tokens) for r in results]
            row = {
                "level": level,
                "tokens_per_run": tokens,
                "wall_s": wall,
                **pooled(results, sends),
                "lost": sum(x["lost"] for x in checks),
                "duplicated": sum(x["duplicated"] for x in checks),
                "api_rss_per_run_kib": (rss.peak["api"] - idle["api"]) / level / 1024,
                "bridge_rss_per_run_kib": (rss.peak["bridge"] - idle["bridge"]) / level / 1024,
            }
            print(f"  level {level}: {row}", flush=True)
            out.append(row)
    return out, burst_failures


async def fake_load(api: c.Process, seconds: int) -> dict[str, Any]:
    count = FAKE_RATE * seconds
    async with c.api_client(api.url) as http:
        await one_run(http, "#fake 10 0")
        idle = c.rss_bytes(api.pid)
        with c.RssSampler({"api": api.pid}) as rss:
            results, wall = await level_runs(http, [f"#fake {count} {FAKE_RATE}"] * FAKE_RUNS)
    latencies = [
        (a.at_ns - a.data["meta"]["sentNs"]) / 1e6
        for arrivals in results
        for a in arrivals
        if a.event == "node_stream" and "meta" in a.data
    ]
    checks = [c.check_run(r, count) for r in results]
    stats = c.summarize(latencies)
    return {
        "runs": FAKE_RUNS,
        "events_per_run": count,
        "wall_s": wall,
        "events_per_s": len(latencies) / wall,
        **stats,
        "lost": sum(x["lost"] for x in checks),
        "duplicated": sum(x["duplicated"] for x in checks),
        "api_rss_per_run_kib": (rss.peak["api"] - idle) / FAKE_RUNS / 1024,
    }


def figures(levels: list[dict[str, Any]], fake: dict[str, Any]) -> list[dict[str, Any]]:
    f = c.figure
    rows = []
    for r in levels:
        n = r["level"]
        cond = {
            "database": "sqlite",
            "bus": "memory",
            "bridge": "real (hermes)",
            "runs": n,
            "tokens_per_run": r["tokens_per_run"],
            "rate": "full speed",
        }
        rows += [
            f(
                f"parallel.{n}.events_per_s",
                f"{n} parallel runs: total events/s",
                r["events_per_s"],
                "ev/s",
                conditions=cond,
            ),
            f(
                f"parallel.{n}.p99_ms",
                f"{n} parallel runs: p99 latency model → client",
                r["p99"],
                "ms",
                conditions=cond,
            ),
            f(
                f"parallel.{n}.lost",
                f"{n} parallel runs: lost events",
                r["lost"],
                "",
                target=("==", 0),
                conditions=cond,
            ),
            f(
                f"parallel.{n}.duplicated",
                f"{n} parallel runs: duplicated events",
                r["duplicated"],
                "",
                target=("==", 0),
                conditions=cond,
            ),
            f(
                f"parallel.{n}.api_rss_per_run_kib",
                f"{n} parallel runs: API RSS per active run",
                r["api_rss_per_run_kib"],
                "KiB",
                conditions=cond,
            ),
            f(
                f"parallel.{n}.bridge_rss_per_run_kib",
                f"{n} parallel runs: bridge RSS per active run",
                r["bridge_rss_per_run_kib"],
                "KiB",
                conditions=cond,
            ),
        ]
    cond = {
        "database": "sqlite",
        "bus": "memory",
        "bridge": "fake (synthetic answer_delta)",
        "runs": fake["runs"],
        "rate": f"{FAKE_RATE}/s per run",
        "events_per_run": fake["events_per_run"],
    }
    note = "one hermes bridge on 2 cores cannot produce 5,000 ev/s; a fake bridge feeds the API"
    ref = "sse-starlette 100 streams x 50 ev/s p99 1.4 ms (PERFORMANCE.md)"
    rows += [
        f(
            "parallel.fake100.p99_ms",
            "100 runs x 50 ev/s on one API: p99 latency bridge → client",
            fake["p99"],
            "ms",
            target=("<=", 10),
            conditions=cond,
            note=note,
            reference=ref,
        ),
        f(
            "parallel.fake100.p50_ms",
            "100 runs x 50 ev/s on one API: p50 latency",
            fake["p50"],
            "ms",
            conditions=cond,
        ),
        f(
            "parallel.fake100.events_per_s",
            "100 runs x 50 ev/s on one API: events/s delivered",
            fake["events_per_s"],
            "ev/s",
            conditions=cond,
        ),
        f(
            "parallel.fake100.lost",
            "100 runs x 50 ev/s: lost events",
            fake["lost"],
            "",
            target=("==", 0),
            conditions=cond,
        ),
        f(
            "parallel.fake100.duplicated",
            "100 runs x 50 ev/s: duplicated events",
            fake["duplicated"],
            "",
            target=("==", 0),
            conditions=cond,
        ),
        f(
            "parallel.fake100.api_rss_per_run_kib",
            "100 runs x 50 ev/s: API RSS per active run",
            fake["api_rss_per_run_kib"],
            "KiB",
            conditions=cond,
        ),
    ]
    return rows


def main() -> None:
    quick = c.is_quick()
    c.raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="bench-parallel-") as name:
        tmp = Path(name)
        model = c.start_timed_model(tmp)
        bridge = c.start_bridge(tmp / "bridge", AGENTCHAT_BRIDGE_POOL_SIZE="64")
        api = c.start_api(tmp, bridge)
        fake = c.start_fake_bridge(tmp)
        fake_api = c.start_api(tmp, fake)
        with c.stopping(model, bridge, api, fake, fake_api):
            c.register_model(api.url, model.url)
            c.register_model(fake_api.url, model.url)
            levels, burst = asyncio.run(real_levels(api, bridge, model, quick))
            load = asyncio.run(fake_load(fake_api, 5 if quick else 10))
    print(f"  fake bridge load: {load}", flush=True)
    rows = figures(levels, load)
    rows.append(
        c.figure(
            "parallel.session_burst_failures",
            "50 simultaneous POST /api/chat/sessions: failed (500)",
            burst,
            "",
            target=("==", 0),
            conditions={"database": "sqlite"},
            note="SQLite 'database is locked': write transactions start deferred, not "
            "BEGIN IMMEDIATE (PERFORMANCE.md pitfall 6)",
        )
    )
    c.write_result("parallel", rows, levels=levels, fake_bridge=load, session_burst=burst)


if __name__ == "__main__":
    main()
