"""Several API processes: tokens/s and send → arrival latency (p50/p99) of many parallel runs
through 1 API process and through 2, on PostgreSQL and Redis (the multi-process layout).

Both layouts use the same two fake bridge workers (bench/fake_bridge.py speaks the bridge
protocol and stamps each token with the time it was made; one hermes process on two cores cannot
produce this load), the same PostgreSQL schema and Redis. With 2 processes each run is started
on one process and streamed from the other, as a load balancer without sticky sessions would.
The client runs on the same machine: on two cores it competes with the servers for CPU.

Run: .venv/bin/python bench/bench_scale.py [--quick]   (writes bench/results/scale.json)
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

RUNS = 20  # parallel runs in each phase
RATE = 25  # latency phase: tokens/s per run (500 tokens/s offered, within what 2 cores carry)
BURST = 1_000  # throughput phase: tokens per run, sent as fast as the bridge can
SECONDS, QUICK_SECONDS = 10, 4
PREFIX = f"agentchat-bench-scale:{uuid.uuid4().hex[:8]}:"
SCHEMA_TAG = "bench_scale"


def start_api(tmp: Path, name: str, db_url: str, bridges: list[c.Process]) -> c.Process:
    """`agentchat serve` (one process) on the shared schema, Redis prefix and bridges."""
    port = c.free_port()
    env = {
        "AGENTCHAT_DATA_DIR": str(tmp / name),
        "AGENTCHAT_BRIDGE_SECRET": "fake",
        "AGENTCHAT_START_BRIDGE": "false",
        "AGENTCHAT_START_SCRIPTED_LLM": "false",
        "AGENTCHAT_MAX_ACTIVE_RUNS": str(RUNS * 2),
        "AGENTCHAT_RUN_RATE_PER_MINUTE": "0",
        "AGENTCHAT_REDIS_PREFIX": PREFIX,
    }
    command = [
        *(sys.executable, "-m", "agentchat.cli", "serve", "--port", str(port)),
        *("--database-url", db_url, "--redis-url", c.REDIS_URL),
        *("--bridge-url", ",".join(b.url for b in bridges)),
    ]
    log_path = tmp / f"api-{name}.out"
    process = c.spawn(command, log_path, env)
    url = f"http://127.0.0.1:{port}"
    c.wait_http(f"{url}/api/health", process)
    return c.Process(url, process, log_path)


async def one_run(start_http: Any, stream_http: Any, message: str) -> list[c.Arrival]:
    session_id = await c.new_session(start_http)
    run_id = await c.start_run(start_http, session_id, message)
    return await c.read_run(stream_http, run_id)


async def load(apis: list[c.Process], count: int, rate: int) -> dict[str, Any]:
    """RUNS runs of `count` deltas at `rate`/s (0: at once); run i starts on process i and
    streams from process i + 1."""
    clients = [c.api_client(api.url) for api in apis]
    try:
        await one_run(clients[0], clients[-1], "#fake 10 0")  # warm up
        n = len(clients)
        begin = time.monotonic()
        results = await asyncio.gather(
            *(
                one_run(clients[i % n], clients[(i + 1) % n], f"#fake {count} {rate}")
                for i in range(RUNS)
            )
        )
        wall = time.monotonic() - begin
    finally:
        for http in clients:
            await http.aclose()
    latencies = [ms for arrivals in results for ms in c.stamped_latencies(arrivals)]
    checks = [c.check_run(r, count) for r in results]
    stats = c.summarize(latencies)
    return {
        "api_processes": n,
        "runs": RUNS,
        "tokens_per_run": count,
        "rate_per_run": rate,
        "wall_s": wall,
        "tokens_per_s": len(latencies) / wall,
        "latency_p50_ms": stats["p50"],
        "latency_p99_ms": stats["p99"],
        "lost": sum(x["lost"] for x in checks),
        "duplicated": sum(x["duplicated"] for x in checks),
    }


def figures(results: dict[int, dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    f = c.figure
    where = {"database": "postgresql", "bus": "redis", "bridges": "2 fake", "runs": RUNS}
    rows = []
    for n, phases in results.items():
        paced, burst = phases["paced"], phases["burst"]
        cond = {**where, "api_processes": n}
        rows += [
            f(
                f"scale.api{n}.burst_tokens_per_s",
                f"{RUNS} runs x {BURST} tokens at once, {n} API process(es): tokens/s",
                burst["tokens_per_s"],
                "tokens/s",
                conditions=cond,
            ),
            f(
                f"scale.api{n}.latency_p99_ms",
                f"{RUNS} runs x {RATE} tokens/s, {n} API process(es): p99 send → client arrival",
                paced["latency_p99_ms"],
                "ms",
                conditions={**cond, "offered_tokens_per_s": RUNS * RATE},
            ),
            f(
                f"scale.api{n}.lost_or_duplicated",
                f"{n} API process(es), both phases: tokens or events lost or duplicated",
                sum(p["lost"] + p["duplicated"] for p in (paced, burst)),
                "",
                target=("==", 0),
                conditions=cond,
            ),
        ]
    one, two = results[1]["burst"], results[2]["burst"]
    rows.append(
        f(
            "scale.api2_vs_api1_tokens_ratio",
            "burst tokens/s with 2 API processes / with 1",
            two["tokens_per_s"] / one["tokens_per_s"],
            "x",
            conditions=where,
            note="the client, both API processes, the bridges, PostgreSQL and Redis share 2 cores",
        )
    )
    return rows


def main() -> None:
    seconds = QUICK_SECONDS if c.is_quick() else SECONDS
    c.raise_fd_limit()
    from tests.support.databases import PG_SERVER, fresh_database_url

    started: list[c.Process] = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as name:
        tmp = Path(name)
        db_url = str(fresh_database_url("postgresql", tmp, tag=SCHEMA_TAG))
        try:
            bridges = [c.start_fake_bridge(tmp) for _ in range(2)]
            started += bridges
            for api_name in ("a", "b"):
                started.append(start_api(tmp, api_name, db_url, bridges))
            apis = started[2:]
            with c.stopping(*started):
                c.register_model(apis[0].url, "http://127.0.0.1:9/v1")  # never called
                results = {}
                for n in (1, 2):
                    paced = asyncio.run(load(apis[:n], RATE * seconds, RATE))
                    burst = asyncio.run(load(apis[:n], BURST, 0))
                    results[n] = {"paced": paced, "burst": burst}
                    print(f"  {n} API process(es): {results[n]}", flush=True)
        finally:
            for process in reversed(started):
                process.stop()
            c.clear_redis_prefix(prefix=PREFIX)
            _drop_schema(PG_SERVER, f"ac_{SCHEMA_TAG}")
    c.write_result("scale", figures(results), **{f"api{n}": r for n, r in results.items()})


def _drop_schema(server: str, schema: str) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    admin.dispose()


if __name__ == "__main__":
    main()
