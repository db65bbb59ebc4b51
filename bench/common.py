"""Shared pieces of the benchmarks: statistics, machine conditions, result files, and the stack
(timed scripted model, bridge, API, fake bridge) started as separate processes.

Result files (`bench/results/<name>.json`) written with `write_result` look like
`{"name", "conditions": {...}, "figures": [Figure], ...extra}`; a Figure is
`{"key", "label", "value", "unit", "target": {"op", "value"} | null, "baseline": {"label",
"value"} | null, "conditions": {...}, "reference": str | null, "note": str | null}`.
`bench/report.py` turns every such file into the table of `latest.md`; a bench script written
by someone else may use the same shape to get its figures into the table.

Times across processes are compared with `time.monotonic_ns()` (CLOCK_MONOTONIC is one clock
for the whole machine on Linux).
"""

from __future__ import annotations

import asyncio
import bisect
import json
import math
import os
import platform
import re
import resource
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentchat.protocol.events import RunEnd
from agentchat.protocol.sse import SseMessage, SseParser, aparse_lines

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
BENCH_TAG = "bench"
REDIS_URL = os.environ.get("AGENTCHAT_BENCH_REDIS", "redis://127.0.0.1:6379/0")
REDIS_PREFIX = f"agentchat-{BENCH_TAG}:"
START_TIMEOUT_S = 120.0

# ---- statistics (pure) ---------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} is outside 0..100")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    if low == high:
        return float(ordered[low])
    return float(ordered[low] + (ordered[high] - ordered[low]) * (rank - low))


def summarize(values: list[float]) -> dict[str, float]:
    """n, mean, p50, p99 and max of a sample (empty → n 0 and NaNs)."""
    if not values:
        nan = float("nan")
        return {"n": 0, "mean": nan, "p50": nan, "p99": nan, "max": nan}
    return {
        "n": len(values),
        "mean": sum(values) / len(values),
        "p50": percentile(values, 50),
        "p99": percentile(values, 99),
        "max": max(values),
    }


def lost_and_duplicated(seen: list[int], expected: int) -> tuple[int, int]:
    """How many of 1..expected never arrived, and how many arrivals were repeats."""
    unique = set(seen)
    lost = sum(1 for n in range(1, expected + 1) if n not in unique)
    return lost, len(seen) - len(unique)


# ---- figures and result files ----------------------------------------------------------------


def figure(
    key: str,
    label: str,
    value: float | int | None,
    unit: str = "",
    *,
    target: tuple[str, float] | None = None,
    baseline: tuple[str, float] | None = None,
    conditions: dict[str, Any] | None = None,
    reference: str | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """One row of the results table; target is (op, value) with op one of >=, <=, ==."""
    return {
        "key": key,
        "label": label,
        "value": value,
        "unit": unit,
        "target": {"op": target[0], "value": target[1]} if target else None,
        "baseline": {"label": baseline[0], "value": baseline[1]} if baseline else None,
        "conditions": conditions or {},
        "reference": reference,
        "note": note,
    }


def machine() -> dict[str, Any]:
    """The conditions every figure is read against."""
    return {
        "cores": os.cpu_count(),
        "load_1m": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
    }


def cpu_counters() -> list[int] | None:
    """The machine's CPU time counters (/proc/stat's first line), None off Linux."""
    try:
        line = Path("/proc/stat").read_text().splitlines()[0]
    except OSError:
        return None
    return [int(v) for v in line.split()[1:]]


def steal_share(before: list[int] | None, after: list[int] | None) -> float | None:
    """The share of CPU time the hypervisor gave to other machines between two readings: a
    virtual machine's neighbours slow every figure without showing in the load average."""
    if not before or not after or len(before) < 8:
        return None
    total = sum(after[:8]) - sum(before[:8])
    return round((after[7] - before[7]) / total, 3) if total > 0 else None


def speed_reference_ms() -> float:
    """A fixed pure-Python workload (JSON-encode 50,000 event-shaped dicts), the best of three:
    runs on different machines compare through it."""
    event = {"type": "answer.delta", "runId": "r" * 32, "seq": 1, "text": "token "}
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for seq in range(50_000):
            json.dumps({**event, "seq": seq})
        best = min(best, time.perf_counter() - start)
    return round(best * 1000, 1)


def is_quick(argv: list[str] | None = None) -> bool:
    return "--quick" in (sys.argv[1:] if argv is None else argv)


def write_result(name: str, figures: list[dict[str, Any]], **extra: Any) -> Path:
    path = RESULTS_DIR / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"name": name, "conditions": machine(), "figures": figures, **extra}
    path.write_text(json.dumps(body, indent=2, default=str) + "\n")
    for item in figures:
        value = item["value"]
        shown = f"{value:,.3f}" if isinstance(value, float) else str(value)
        print(f"  {item['label']}: {shown} {item['unit']}", flush=True)
    return path


def raise_fd_limit() -> int:
    """Lift the soft open-files limit to the hard one (children inherit it)."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def rss_bytes(pid: int) -> int:
    import psutil

    return int(psutil.Process(pid).memory_info().rss)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    import psutil

    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


# ---- processes ------------------------------------------------------------------------------


def free_port() -> int:
    from agentchat.local_stack import free_port as pick

    return int(pick())


@dataclass
class Process:
    """A server we started: its URL, its Popen and where its output goes."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    secret: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def spawn(command: list[str], log_path: Path, env: dict[str, str] | None = None) -> Any:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": _pythonpath(), **(env or {})}
    with log_path.open("ab") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=full_env, cwd=ROOT
        )


def _pythonpath() -> str:
    parts = [str(ROOT), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    return os.pathsep.join(p for p in parts if p)


def wait_http(url: str, process: subprocess.Popen[bytes], timeout: float = START_TIMEOUT_S) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the process exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def start_timed_model(tmp: Path) -> Process:
    """The scripted model in its own process, recording when each `tN` token leaves."""
    port = free_port()
    command = [sys.executable, str(ROOT / "bench" / "timed_model.py"), str(port)]
    process = spawn(command, tmp / f"model-{port}.out")
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/v1/models", process)
    return Process(f"{url}/v1", process, tmp / f"model-{port}.out")


def start_fake_bridge(tmp: Path) -> Process:
    port = free_port()
    command = [sys.executable, str(ROOT / "bench" / "fake_bridge.py"), str(port)]
    process = spawn(command, tmp / f"fake-bridge-{port}.out")
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/health", process)
    return Process(url, process, tmp / f"fake-bridge-{port}.out")


def start_bridge(tmp: Path, **env: str) -> Process:
    """`agentchat bridge` with a secret and its own HERMES_HOME (tests.support.servers)."""
    from tests.support.servers import start_bridge as start

    bridge = start(tmp, **env)
    return Process(bridge.url, bridge.process, bridge.log_path, bridge.secret)


def database_url(dialect: str, tmp: Path) -> str:
    """A fresh, migrated bench schema (PostgreSQL schema / MariaDB database `ac_bench`)."""
    from tests.support.databases import fresh_database_url

    return str(fresh_database_url(dialect, tmp, tag=BENCH_TAG))


def start_api(
    tmp: Path,
    bridge: Process,
    *,
    db_url: str | None = None,
    redis_url: str | None = None,
    max_active_runs: int = 200,
) -> Process:
    """The API (`bench/serve_api.py`, uvicorn, one process) on a fresh SQLite database."""
    port = free_port()
    data = tmp / f"api-{port}"
    env = {
        "AGENTCHAT_DATA_DIR": str(data),
        "AGENTCHAT_DATABASE_URL": db_url or f"sqlite:///{data / 'bench.db'}",
        "AGENTCHAT_BRIDGE_URL": bridge.url,
        "AGENTCHAT_BRIDGE_SECRET": bridge.secret or "fake",
        "AGENTCHAT_START_BRIDGE": "false",
        "AGENTCHAT_START_SCRIPTED_LLM": "false",
        "AGENTCHAT_MAX_ACTIVE_RUNS": str(max_active_runs),
        "AGENTCHAT_RUN_RATE_PER_MINUTE": "0",
        "AGENTCHAT_BENCH_REDIS_PREFIX": REDIS_PREFIX,
        "AGENTCHAT_REDIS_PREFIX": REDIS_PREFIX,
    }
    if redis_url:
        env["AGENTCHAT_REDIS_URL"] = redis_url
    else:
        env["AGENTCHAT_REDIS_URL"] = ""
    if not db_url:
        from agentchat.migrations import upgrade

        data.mkdir(parents=True, exist_ok=True)
        upgrade(env["AGENTCHAT_DATABASE_URL"])
    command = [sys.executable, str(ROOT / "bench" / "serve_api.py"), str(port)]
    process = spawn(command, tmp / f"api-{port}.out", env)
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/api/health", process)
    return Process(
        url, process, tmp / f"api-{port}.out", extra={"db_url": env["AGENTCHAT_DATABASE_URL"]}
    )


def register_model(api_url: str, model_url: str) -> int:
    import httpx

    body = {"name": "scripted", "baseUrl": model_url, "modelName": "scripted", "isDefault": True}
    response = httpx.post(f"{api_url}/api/models", json=body, timeout=30)
    response.raise_for_status()
    return int(response.json()["id"])


@contextmanager
def stopping(*processes: Process) -> Iterator[None]:
    try:
        yield
    except BaseException:
        for process in processes:
            lines = process.log_path.read_text(errors="replace").splitlines()[-25:]
            print(f"--- {process.log_path.name} (last lines)", *lines, sep="\n", file=sys.stderr)
        raise
    finally:
        for process in reversed(processes):
            process.stop()


def fetch_sends(model: Process, tag: str) -> dict[int, int]:
    """{token index: monotonic ns when the timed model sent it} for the run tagged `tag`."""
    import httpx

    base = model.url.removesuffix("/v1")
    response = httpx.get(f"{base}/bench/sends/{tag}", timeout=30)
    response.raise_for_status()
    return {int(k): int(v) for k, v in response.json().items()}


def tagged(tag: str, script: str) -> str:
    """A user message: the tag on a plain line (the model ignores it) and the directives."""
    return f"benchtag-{tag}\n{script}"


# ---- an SSE reader that notes when each event arrives ---------------------------------------


@dataclass
class Arrival:
    id: int
    event: str
    data: dict[str, Any]
    at_ns: int


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[Arrival]:
    """Parse SSE lines; each event carries the monotonic time its blank line was read."""
    async for message in aparse_lines(lines):
        yield Arrival(message.num, message.event, message.json(), time.monotonic_ns())


async def drive_bridge(client: Any, request: Any, on_event: Any) -> Any:
    """One bridge turn: `on_event(typed event)` for each event; returns its `RunEnd`."""
    async with aclosing(client.run(request)) as events:
        async for event in events:
            if isinstance(event, RunEnd):
                return event
            on_event(event)
    raise RuntimeError("the bridge stream ended without run_end")


TERMINAL = frozenset({"workflow_complete", "workflow_error"})


_TOKEN = re.compile(r"(?<!\S)t(\d+)(?:@(\d+))?(?!\S)")


def token_marks(content: str) -> list[tuple[int, int | None]]:
    """Every token of an answer delta (the bridge joins tokens): `t12` → (12, None); the fake
    bridge's `t12@NS` → (12, NS), NS the monotonic ns when it was made."""
    return [(int(n), int(ns) if ns else None) for n, ns in _TOKEN.findall(content)]


def token_indices(content: str) -> list[int]:
    """` t1 t2 t3` → [1, 2, 3]."""
    return [n for n, _ in token_marks(content)]


def token_index(content: str) -> int | None:
    """The first token of a delta: `t12` or ` t12` (a `#tokens` piece) → 12."""
    found = token_indices(content)
    return found[0] if found else None


def stamped_latencies(arrivals: list[Arrival]) -> list[float]:
    """Model → client ms of every `tN@NS` token (the fake bridge's), per token."""
    out: list[float] = []
    for item in arrivals:
        if item.event == "node_stream" and item.data.get("kind") == "answer_delta":
            for _n, sent in token_marks(str(item.data.get("content", ""))):
                if sent is not None:
                    out.append((item.at_ns - sent) / 1e6)
    return out


async def wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"gave up waiting for {what}")
        await asyncio.sleep(0.01)


# ---- the API as a client sees it ------------------------------------------------------------


async def new_session(http: Any) -> int:
    response = await http.post("/api/chat/sessions", json={})
    response.raise_for_status()
    return int(response.json()["sessionId"])


async def start_run(http: Any, session_id: int, message: str) -> str:
    response = await http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": message})
    if response.status_code != 201:
        raise RuntimeError(f"POST /runs answered {response.status_code}: {response.text}")
    return str(response.json()["runId"])


async def read_run(
    http: Any, run_id: str, last: int | None = None, on_token: Any = None
) -> list[Arrival]:
    """Every event of the run (after `last`) until the terminal one, read off the socket.

    The load generator must not measure itself: 100 streams x 50 tokens/s is ~4,000 events/s
    into this one process, and read through httpx (h11, anyio, a line generator and a JSON
    parse per event) that took a share of the cores the API runs on, and an event counted as
    arrived only once the client got round to parsing it. Here each read is stamped with the
    monotonic time and kept; the body is parsed after the run ended, each event getting the
    time of the read that brought its last byte. `on_token()` is called once, at the first
    read that holds an answer delta."""
    url = http.base_url
    reader, writer = await asyncio.open_connection(url.host, url.port)
    head = [f"GET /api/chat/runs/{run_id}/stream HTTP/1.1", f"Host: {url.host}:{url.port}"]
    if last is not None:
        head.append(f"Last-Event-ID: {last}")
    writer.write(("\r\n".join([*head, "Accept: text/event-stream", "", ""])).encode())
    reads = RawReads()
    try:
        async with asyncio.timeout(STREAM_TIMEOUT_S):
            while chunk := await reader.read(65536):
                reads.add(time.monotonic_ns(), chunk)
                if on_token is not None and b"answer_delta" in chunk:
                    on_token()
                    on_token = None
                if reads.complete():
                    break
    finally:
        writer.close()
    return reads.arrivals()


STREAM_TIMEOUT_S = 600.0
_LAST_CHUNK = b"\r\n0\r\n\r\n"


@dataclass
class RawReads:
    """The raw bytes of one HTTP response as they came, with the time of each read."""

    times: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)  # bytes received up to each read's end
    chunks: list[bytes] = field(default_factory=list)
    tail: bytes = b""

    def add(self, at_ns: int, chunk: bytes) -> None:
        self.times.append(at_ns)
        self.ends.append((self.ends[-1] if self.ends else 0) + len(chunk))
        self.chunks.append(chunk)
        self.tail = (self.tail + chunk)[-len(_LAST_CHUNK) :]

    def complete(self) -> bool:
        """The chunked body's last chunk came (the stream ends after the terminal event), or
        an answer that is not a stream (an error with a Content-Length) is whole."""
        if self.tail.endswith(_LAST_CHUNK):
            return True
        raw = self.chunks[0]
        if raw.startswith(b"HTTP/1.1 200"):
            return False
        head, sep, body = b"".join(self.chunks).partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        return bool(sep) and length is not None and len(body) >= int(length.group(1))

    def time_of(self, offset: int) -> int:
        """When the byte at `offset` was read."""
        return self.times[bisect.bisect_right(self.ends, offset)]

    def arrivals(self) -> list[Arrival]:
        raw = b"".join(self.chunks)
        head_end = raw.index(b"\r\n\r\n") + 4
        if not raw.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"the stream answered {raw[:300]!r}")
        body, starts = bytearray(), []  # starts: (body offset, raw offset) of each chunk
        for offset, data in dechunk(raw, head_end):
            starts.append((len(body), offset))
            body += data
        out: list[Arrival] = []
        for end, message in frames_with_ends(bytes(body)):
            index = bisect.bisect_right(starts, (end, float("inf"))) - 1
            body_start, raw_start = starts[index]
            at = self.time_of(raw_start + end - body_start)
            out.append(Arrival(message.num, message.event, message.json(), at))
        return out


def dechunk(raw: bytes, start: int) -> list[tuple[int, bytes]]:
    """An HTTP/1.1 chunked body from `start`: (raw offset, data) of each chunk."""
    out: list[tuple[int, bytes]] = []
    pos = start
    while (line_end := raw.find(b"\r\n", pos)) != -1:
        size = int(raw[pos:line_end].split(b";")[0], 16)
        pos = line_end + 2
        if size == 0:
            break
        out.append((pos, raw[pos : pos + size]))
        pos += size + 2
    return out


def frames_with_ends(body: bytes) -> list[tuple[int, SseMessage]]:
    """Each SSE message of a body with the offset of its frame's last byte."""
    out: list[tuple[int, SseMessage]] = []
    parser, pos = SseParser(), 0
    while (end := body.find(b"\n\n", pos)) != -1:
        for line in body[pos:end].decode().split("\n"):
            parser.feed(line)
        message = parser.flush()
        if message is not None:
            out.append((end + 1, message))
        pos = end + 2
    return out


def token_arrivals(arrivals: list[Arrival]) -> dict[int, int]:
    """{token index: arrival ns} of the run's answer deltas (several tokens per delta)."""
    marks: dict[int, int] = {}
    for item in arrivals:
        if item.event == "node_stream" and item.data.get("kind") == "answer_delta":
            for index in token_indices(str(item.data.get("content", ""))):
                marks.setdefault(index, item.at_ns)
    return marks


def rate_and_latency(arrived: dict[int, int], sent: dict[int, int]) -> dict[str, float]:
    """Events/s between the first and the last token, and send → arrival latency in ms."""
    times = sorted(arrived.values())
    span = (times[-1] - times[0]) / 1e9 if len(times) > 1 else float("nan")
    latencies = [(arrived[i] - sent[i]) / 1e6 for i in arrived if i in sent]
    stats = summarize(latencies)
    return {
        "events": len(arrived),
        "events_per_s": (len(times) - 1) / span if span and span > 0 else float("nan"),
        "latency_p50_ms": stats["p50"],
        "latency_p99_ms": stats["p99"],
        "matched": stats["n"],
    }


def median(values: list[float]) -> float:
    return percentile(values, 50)


def clear_redis_prefix(url: str = REDIS_URL, prefix: str = REDIS_PREFIX) -> int:
    """Delete the bench's Redis keys; returns how many."""
    from redis import Redis

    client = Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
        return len(keys)
    finally:
        client.close()


def bridge_request(model_url: str, message: str, session: str, run_id: str) -> Any:
    """A turn's `RunRequest` (imported here: the other benches need no agentchat import)."""
    from agentchat.protocol.bridge_api import RunRequest

    return RunRequest.model_validate(
        {
            "runId": run_id,
            "sessionId": session,
            "userMessage": message,
            "history": [],
            "model": {
                "baseUrl": model_url,
                "apiKey": "",
                "modelName": "scripted",
                "provider": "openai-compatible",
            },
            "maxIterations": 5,
        }
    )


def api_client(url: str, timeout: float = 300.0) -> Any:
    """An httpx client for many parallel streams (the default pool stops at 100)."""
    import httpx

    limits = httpx.Limits(max_connections=20_000, max_keepalive_connections=200)
    return httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits)


def check_run(arrivals: list[Arrival], tokens: int) -> dict[str, int]:
    """Lost and duplicated events (ids 1..last) and tokens (1..tokens) of one run's stream."""
    ids = [a.id for a in arrivals]
    pieces = [
        index
        for a in arrivals
        if a.event == "node_stream" and a.data.get("kind") == "answer_delta"
        for index in token_indices(str(a.data.get("content", "")))
    ]
    lost_ids, dup_ids = lost_and_duplicated(ids, max(ids, default=0))
    lost_tokens, dup_tokens = lost_and_duplicated(pieces, tokens)
    ended = bool(arrivals) and arrivals[-1].event == "workflow_complete"
    return {
        "lost": lost_ids + lost_tokens + (0 if ended else 1),
        "duplicated": dup_ids + dup_tokens,
    }


class RssSampler:
    """Peak RSS of some processes, sampled every `every` s on a thread while active."""

    def __init__(self, pids: dict[str, int], every: float = 0.1) -> None:
        import threading

        self.pids = pids
        self.every = every
        self.peak = {name: rss_bytes(pid) for name, pid in pids.items()}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            for name, pid in self.pids.items():
                self.peak[name] = max(self.peak[name], rss_bytes(pid))

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


async def read_raw(http: Any, path: str, headers: dict[str, str] | None = None) -> bytes:
    """The whole body of a finite SSE response (a finished run), unparsed."""
    chunks: list[bytes] = []
    async with http.stream("GET", path, headers=headers or {}) as resp:
        resp.raise_for_status()
        async for chunk in resp.aiter_raw():
            chunks.append(chunk)
    return b"".join(chunks)


async def wait_for_event(http: Any, path: str, kind: str, timeout: float = 120.0) -> None:
    """Read the stream at `path` until a node_stream of `kind` arrives (then drop it)."""
    async with asyncio.timeout(timeout), http.stream("GET", path) as resp:
        async for arrival in sse_events(resp.aiter_lines()):
            if arrival.data.get("kind") == kind or arrival.event in TERMINAL:
                return
