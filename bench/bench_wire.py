"""On the wire: the bytes of a 10,000-token answer's SSE stream, and idle streams per API
process (SSE connections to a run that waits for a clarify answer; the API's RSS growth per
open stream). The full run opens 5,000 streams, `--quick` 1,000 (the per-stream figure is
the same measure; the count is printed beside it).

Run: .venv/bin/python bench/bench_wire.py [--quick]   (writes bench/results/wire.json)
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from bench import common as c  # noqa: E402

ANSWER_TOKENS = 10_000
CONNECT_BATCH = 200


async def answer_bytes(http: Any) -> tuple[int, int]:
    session = await c.new_session(http)
    run_id = await c.start_run(http, session, f"#tokens {ANSWER_TOKENS}")
    body = await c.read_raw(http, f"/api/chat/runs/{run_id}/stream")
    return len(body), body.count(b"\n\n")


async def idle_stream(host: str, port: int, path: str) -> asyncio.StreamWriter:
    """A raw SSE connection, returned once the replay (up to the clarify request) arrived."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    seen = b""
    async with asyncio.timeout(60):
        while b"clarify_request" not in seen:
            chunk = await reader.read(65536)
            if not chunk:
                raise RuntimeError(f"stream closed: {seen[:300]!r}")
            seen += chunk
    return writer


async def idle_streams(http: Any, api: c.Process, count: int) -> dict[str, Any]:
    session = await c.new_session(http)
    run_id = await c.start_run(http, session, "#clarify Which one?|a|b")
    path = f"/api/chat/runs/{run_id}/stream"
    await c.wait_for_event(http, path, "clarify_request")
    host, port = api.url.removeprefix("http://").split(":")
    warm = [await idle_stream(host, int(port), path) for _ in range(20)]
    for writer in warm:
        writer.close()
    await asyncio.sleep(0.5)
    before = c.rss_bytes(api.pid)
    writers: list[asyncio.StreamWriter] = []
    start = time.perf_counter()
    for first in range(0, count, CONNECT_BATCH):
        batch = min(CONNECT_BATCH, count - first)
        writers += await asyncio.gather(*(idle_stream(host, int(port), path) for _ in range(batch)))
    opened_s = time.perf_counter() - start
    await asyncio.sleep(1.0)
    after = c.rss_bytes(api.pid)
    for writer in writers:
        writer.close()
    await http.post(f"/api/chat/runs/{run_id}/stop")
    return {
        "streams": len(writers),
        "open_seconds": opened_s,
        "rss_before_mib": before / 2**20,
        "rss_after_mib": after / 2**20,
        "kib_per_stream": (after - before) / len(writers) / 1024,
    }


async def measure(api: c.Process, count: int) -> dict[str, Any]:
    async with c.api_client(api.url) as http:
        size, events = await answer_bytes(http)
        idle = await idle_streams(http, api, count)
    return {"answer_bytes": size, "answer_events": events, **idle}


def figures(r: dict[str, Any]) -> list[dict[str, Any]]:
    f = c.figure
    streams = r["streams"]
    note = None
    if streams < 5000:
        note = f"measured with {streams} streams (--quick); 5,000 assumed to cost the same each"
    return [
        f(
            "wire.answer_mib",
            f"{ANSWER_TOKENS:,}-token answer on the wire (SSE body)",
            r["answer_bytes"] / 2**20,
            "MiB",
            target=("<=", 2.0),
            conditions={"events": r["answer_events"]},
            reference="one app sent 208 MiB for 10,000 tokens (PERFORMANCE.md pitfall 4)",
        ),
        f(
            "wire.bytes_per_event",
            "bytes per SSE event (10,000-token answer)",
            r["answer_bytes"] / r["answer_events"],
            "bytes",
        ),
        f(
            "wire.idle_streams",
            "idle SSE streams held open by one API process",
            streams,
            "streams",
            target=(">=", 5000),
            conditions={"bus": "memory"},
            note=note,
        ),
        f(
            "wire.idle_kib_per_stream",
            "API RSS per idle SSE stream",
            r["kib_per_stream"],
            "KiB",
            target=("<=", 64),
            conditions={"bus": "memory", "streams": streams},
            reference="idle SSE connection 27-31 KiB (PERFORMANCE.md)",
            note=f"RSS {r['rss_before_mib']:.0f} → {r['rss_after_mib']:.0f} MiB",
        ),
    ]


def main() -> None:
    count = 1000 if c.is_quick() else 5000
    c.raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="bench-wire-") as name:
        tmp = Path(name)
        model = c.start_timed_model(tmp)
        bridge = c.start_bridge(tmp / "bridge")
        api = c.start_api(tmp, bridge)
        with c.stopping(model, bridge, api):
            c.register_model(api.url, model.url)
            results = asyncio.run(measure(api, count))
    c.write_result("wire", figures(results), raw=results)


if __name__ == "__main__":
    main()
