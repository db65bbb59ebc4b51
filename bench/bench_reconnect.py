"""Reconnects and replay through the API's SSE.

- 1,000 disconnect/reconnect cycles during runs: 4 runs stream at once (`#delay 2`, 500
  events/s); each client drops its connection after a random 1-20 events and reconnects with
  `Last-Event-ID`; every id and every token must arrive exactly once; the time to resume is
  reconnect → first new event. Cycles that began before the model sent the run's last token
  are counted as "during the run".
- Replay: subscribe with Last-Event-ID 0 to a finished 2,000-event run, time to read all its
  bytes (median of 5; the client does not parse them, as a browser's parser costs little).

Run: .venv/bin/python bench/bench_reconnect.py [--quick]  (writes bench/results/reconnect.json)
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from bench import common as c  # noqa: E402

RUNS = 4
REPLAY_EVENTS = 2000


async def hop(http: Any, run_id: str, last: int, budget: int | None) -> tuple[list[c.Arrival], int]:
    """One connection: events after `last`, at most `budget` of them; (events, start ns)."""
    start = time.monotonic_ns()
    got: list[c.Arrival] = []
    headers = {"Last-Event-ID": str(last)}
    async with http.stream("GET", f"/api/chat/runs/{run_id}/stream", headers=headers) as resp:
        resp.raise_for_status()
        async for arrival in c.sse_events(resp.aiter_lines()):
            got.append(arrival)
            if arrival.event in c.TERMINAL or (budget is not None and len(got) >= budget):
                break
    return got, start


async def jumpy_reader(
    http: Any, model: c.Process, cycles: int, rng: random.Random
) -> dict[str, Any]:
    tag = uuid.uuid4().hex[:12]
    tokens = cycles * 12
    session = await c.new_session(http)
    run_id = await c.start_run(http, session, c.tagged(tag, f"#delay 2\n#tokens {tokens}"))
    seen: list[c.Arrival] = []
    resumes: list[tuple[int, float]] = []
    done = 0
    while not seen or seen[-1].event not in c.TERMINAL:
        budget = rng.randint(1, 20) if done < cycles else None
        last = seen[-1].id if seen else 0
        got, start = await hop(http, run_id, last, budget)
        if seen and got:
            resumes.append((start, (got[0].at_ns - start) / 1e6))
        seen += got
        done += 1
    sends = c.fetch_sends(model, tag)
    end_ns = max(sends.values()) if sends else 0
    return {
        **c.check_run(seen, tokens),
        "cycles": done - 1,
        "live_cycles": sum(1 for start, _ms in resumes if start < end_ns),
        "resume_ms": [ms for _start, ms in resumes],
    }


async def replay(http: Any) -> tuple[float, int]:
    session = await c.new_session(http)
    run_id = await c.start_run(http, session, f"#tokens {REPLAY_EVENTS}")
    events = len(await c.read_run(http, run_id))
    times = []
    for _ in range(5):
        start = time.perf_counter()
        body = await c.read_raw(http, f"/api/chat/runs/{run_id}/stream", {"Last-Event-ID": "0"})
        times.append((time.perf_counter() - start) * 1000)
        assert body.count(b"\nid: ") + body.startswith(b"id: ") >= events - 1, events
    return c.median(times), events


async def measure(api: c.Process, model: c.Process, total: int) -> dict[str, Any]:
    rng = random.Random(8)
    async with c.api_client(api.url) as http:
        replay_ms, replay_events = await replay(http)
        runs = await asyncio.gather(
            *(
                jumpy_reader(http, model, total // RUNS, random.Random(rng.random()))
                for _ in range(RUNS)
            )
        )
    resumes = [ms for r in runs for ms in r["resume_ms"]]
    stats = c.summarize(resumes)
    return {
        "replay_ms": replay_ms,
        "replay_events": replay_events,
        "cycles": sum(r["cycles"] for r in runs),
        "live_cycles": sum(r["live_cycles"] for r in runs),
        "lost": sum(r["lost"] for r in runs),
        "duplicated": sum(r["duplicated"] for r in runs),
        "resume_p50_ms": stats["p50"],
        "resume_p99_ms": stats["p99"],
    }


def figures(r: dict[str, Any]) -> list[dict[str, Any]]:
    f = c.figure
    cond = {
        "database": "sqlite",
        "bus": "memory",
        "runs": RUNS,
        "rate": "500/s per run",
        "cycles": r["cycles"],
        "during_runs": r["live_cycles"],
    }
    return [
        f(
            "reconnect.lost",
            "reconnect cycles: events missed",
            r["lost"],
            "",
            target=("==", 0),
            conditions=cond,
        ),
        f(
            "reconnect.duplicated",
            "reconnect cycles: events duplicated",
            r["duplicated"],
            "",
            target=("==", 0),
            conditions=cond,
        ),
        f(
            "reconnect.resume_p50_ms",
            "reconnect: median time to resume (reconnect → first new event)",
            r["resume_p50_ms"],
            "ms",
            conditions=cond,
        ),
        f(
            "reconnect.resume_p99_ms",
            "reconnect: p99 time to resume",
            r["resume_p99_ms"],
            "ms",
            conditions=cond,
        ),
        f(
            "reconnect.replay_ms",
            f"replay of a finished {r['replay_events']}-event run (Last-Event-ID 0), median of 5",
            r["replay_ms"],
            "ms",
            target=("<=", 50),
            conditions={"database": "sqlite", "bus": "memory"},
            reference="DB replay of 999 events after an id 0.37 ms (PERFORMANCE.md)",
        ),
    ]


def main() -> None:
    total = 200 if c.is_quick() else 1000
    with tempfile.TemporaryDirectory(prefix="bench-reconnect-") as name:
        tmp = Path(name)
        model = c.start_timed_model(tmp)
        bridge = c.start_bridge(tmp / "bridge")
        api = c.start_api(tmp, bridge)
        with c.stopping(model, bridge, api):
            c.register_model(api.url, model.url)
            results = asyncio.run(measure(api, model, total))
    c.write_result("reconnect", figures(results), raw=results)


if __name__ == "__main__":
    main()
