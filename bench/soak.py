"""Soak: many runs through the whole stack with random faults; prints what it survived.

    .venv/bin/python bench/soak.py --runs 1000 --concurrency 4 --time-limit 900

Starts the scripted model (thread), a Hermes Bridge (subprocess) and the API (thread) on a
fresh SQLite database, then runs sessions in parallel. Each run is one of: a plain answer, a
client that disconnects and resumes with Last-Event-ID, a stop, a clarify answered, a model
failure; now and then the bridge is killed and restarted on the same port. At the end it waits
for every run to settle and counts: outcomes, events lost or duplicated on any stream, runs
stuck RUNNING (must be 0), unexpected server errors. Exit status 1 when anything was lost.
With `--api-restart-every-s N` it soaks API restarts instead (bench/soak_restarts.py), with
bridge kills every `--bridge-kill-every-s`: answers stored shorter than a client saw, runs left
RUNNING and clarify waits lost across an API restart, each must be 0. Not part of `make test`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.protocol.sse import aparse_lines
from agentchat.scripted_llm.server import serve_in_thread
from tests.support.databases import fresh_database_url
from tests.support.servers import BridgeProcess, serve_app, start_bridge

RUN_LIMIT_S = 60.0
TERMINAL = {"workflow_complete", "workflow_error"}
KINDS = ["plain", "plain", "plain", "disconnect", "stop", "clarify", "fail"]
PLAIN = ["#say ok", "#think t\n#delay 2\n#tokens 30", "#todo a; b\n#say done"]


@dataclass
class Tally:
    outcomes: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    lost: int = 0
    duplicated: int = 0
    server_errors: int = 0
    surprises: list[str] = field(default_factory=list)
    bridge_restarts: int = 0
    hung: int = 0
    current: dict[int, str] = field(default_factory=dict)

    def server_error(self, resp: httpx.Response) -> None:
        """A 500 (or other 5xx) is a bug; 502/503 while the bridge is down are honest answers."""
        if resp.status_code >= 500 and resp.status_code not in (502, 503):
            self.server_errors += 1
            where = f"{resp.request.method} {resp.request.url.path}"
            self.note(f"{where}: {resp.status_code} {resp.text[:200]}")

    def note(self, text: str) -> None:
        if len(self.surprises) < 20:
            self.surprises.append(text)


async def read_stream(
    http: httpx.AsyncClient,
    run_id: str,
    after: int,
    tally: Tally,
    limit: int | None = None,
    until_kind: str | None = None,
) -> list[tuple[int, str, dict[str, Any]]]:
    """Events after `after` (all, the first `limit`, or up to one of `until_kind`), checking
    that ids are dense."""
    events: list[tuple[int, str, dict[str, Any]]] = []
    headers = {"Last-Event-ID": str(after)}
    expected = after + 1
    async with http.stream("GET", f"/api/chat/runs/{run_id}/stream", headers=headers) as resp:
        if resp.status_code >= 500:
            tally.server_errors += 1
        async for message in aparse_lines(resp.aiter_lines()):
            if message.id is None:
                continue
            num = message.num
            tally.lost += max(num - expected, 0)
            tally.duplicated += int(num < expected)
            expected = max(expected, num + 1)
            events.append((num, message.event, message.json()))
            last = events[-1]
            if last[1] in TERMINAL or (limit and len(events) >= limit):
                return events
            if until_kind and last[2].get("kind") == until_kind:
                return events
    return events


async def new_session(http: httpx.AsyncClient) -> int:
    return int((await http.post("/api/chat/sessions", json={})).json()["sessionId"])


async def start(http: httpx.AsyncClient, session_id: int, text: str, tally: Tally) -> str | None:
    resp = await http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": text})
    tally.server_error(resp)
    if resp.status_code != 201:
        tally.note(f"start {resp.status_code}: {resp.text[:200]}")
        return None
    return str(resp.json()["runId"])


async def one_run(
    http: httpx.AsyncClient, session_id: int, rng: random.Random, t: Tally
) -> str | None:
    kind = rng.choice(KINDS)
    t.kinds[kind] += 1
    t.current[session_id] = kind
    script = {
        "plain": rng.choice(PLAIN),
        "disconnect": "#delay 5\n#tokens 60",
        "stop": "#delay 20\n#tokens 300",
        "clarify": "#clarify Which? | red | blue\n#echo-tool-result",
        "fail": "#fail 500",
    }[kind]
    run_id = await start(http, session_id, script, t)
    if run_id is None:
        return None
    if kind == "disconnect":
        first = await read_stream(http, run_id, 0, t, limit=rng.randint(1, 10))
        events = first + await read_stream(http, run_id, first[-1][0] if first else 0, t)
    elif kind == "stop":
        events = await read_stream(http, run_id, 0, t, limit=3)
        resp = await http.post(f"/api/chat/runs/{run_id}/stop")
        t.server_error(resp)
        events += await read_stream(http, run_id, events[-1][0] if events else 0, t)
    elif kind == "clarify":
        events = await read_stream(http, run_id, 0, t, until_kind="clarify_request")
        ask = next((e for e in events if e[2].get("kind") == "clarify_request"), None)
        if ask is not None and events[-1][1] not in TERMINAL:
            body = {"clarifyId": ask[2]["meta"]["clarifyId"], "answer": "blue"}
            resp = await http.post(f"/api/chat/runs/{run_id}/clarify", json=body)
            t.server_error(resp)
        if events and events[-1][1] not in TERMINAL:
            events += await read_stream(http, run_id, events[-1][0], t)
    else:
        events = await read_stream(http, run_id, 0, t)
    state = (await http.get(f"/api/chat/runs/{run_id}/state")).json()
    t.outcomes[state["status"]] += 1
    check(kind, events, state, t)
    return str(state["status"])


def check(kind: str, events: list[tuple[int, str, dict[str, Any]]], state: dict, t: Tally) -> None:
    if not events or events[-1][1] not in TERMINAL:
        t.note(f"{kind}: stream ended without a terminal event ({state['status']})")
        return
    end = events[-1][2]
    if events[-1][1] == "workflow_complete":
        deltas = "".join(e[2]["content"] for e in events if e[2].get("kind") == "answer_delta")
        if deltas.strip() != end["finalText"].strip():
            t.note(f"{kind}: deltas {deltas[-60:]!r} != final {end['finalText'][-60:]!r}")
    elif kind in ("plain", "disconnect", "clarify") and "unavailable" not in end["message"]:
        t.note(f"{kind}: ended {state['status']}: {end['message'][:160]}")


async def chaos(
    bridge_box: list[BridgeProcess],
    root: Path,
    rng: random.Random,
    t: Tally,
    stop: asyncio.Event,
    every_s: float,
) -> None:
    """Kill the bridge now and then and bring a new one up on the same port and secret."""
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), timeout=rng.uniform(0.5, 1.5) * every_s)
            return
        except TimeoutError:
            pass
        old = bridge_box[0]
        old.kill()
        port = urlsplit(old.url).port
        bridge_box[0] = await asyncio.to_thread(
            start_bridge, root / f"bridge-{t.bridge_restarts + 1}", port, secret=old.secret
        )
        t.bridge_restarts += 1


async def soak(
    args: argparse.Namespace, url: str, db: Database, bridge_box: list[BridgeProcess], root: Path
) -> Tally:
    tally, rng = Tally(), random.Random(args.seed)
    deadline = time.monotonic() + args.time_limit
    budget = iter(range(args.runs))
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as http:

        async def worker(seed: int) -> None:
            local = random.Random(seed)
            session_id = await new_session(http)
            for _ in budget:
                if time.monotonic() > deadline:
                    return
                try:
                    run = one_run(http, session_id, local, tally)
                    await asyncio.wait_for(run, RUN_LIMIT_S)
                except TimeoutError:
                    tally.hung += 1
                    kind = tally.current.get(session_id)
                    tally.note(f"a {kind} run took over {RUN_LIMIT_S} s (session {session_id})")
                    return
                except (httpx.HTTPError, KeyError, ValueError) as exc:
                    tally.note(f"client error: {type(exc).__name__}: {exc}")

        monkey = (
            asyncio.create_task(chaos(bridge_box, root, rng, tally, stop, args.bridge_kill_every_s))
            if args.bridge_kill_every_s > 0
            else None
        )
        await asyncio.gather(*(worker(args.seed + i) for i in range(args.concurrency)))
        stop.set()
        if monkey is not None:
            await monkey
    return tally


def stuck_runs(db: Database, grace_s: float = 30.0) -> int:
    from sqlalchemy import func, select

    from agentchat.chat.tables import ChatMessage

    deadline = time.monotonic() + grace_s
    while True:
        with db.session() as s:
            stmt = select(func.count()).where(ChatMessage.status == "RUNNING")
            count = int(s.scalar(stmt) or 0)
        if count == 0 or time.monotonic() > deadline:
            return count
        time.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds of new runs")
    parser.add_argument("--bridge-kill-every-s", type=float, default=30.0, help="0: never")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--api-restart-every-s",
        type=float,
        default=0.0,
        help="> 0: the API-restart soak instead (SIGTERM, SIGKILL in turn: bench/soak_restarts.py)",
    )
    args = parser.parse_args()
    if args.api_restart_every_s > 0:
        from bench.soak_restarts import main as restart_soak

        return restart_soak(args)

    root = Path(tempfile.mkdtemp(prefix="agentchat-soak-"))
    db = Database(fresh_database_url("sqlite", root, tag="soak"))
    scripted_url, stop_model = serve_in_thread()
    bridge_box = [start_bridge(root / "bridge-0")]
    settings = Settings(
        data_dir=root / "data",
        bridge_url=bridge_box[0].url,
        bridge_secret=bridge_box[0].secret,
        start_bridge=False,
        start_scripted_llm=False,
        run_rate_per_minute=0,
        max_active_runs=max(args.concurrency, 5),
    )
    url, stop_api = serve_app(create_app(settings, database=db))
    started = time.monotonic()
    try:
        resp = httpx.post(
            f"{url}/api/models",
            timeout=10,
            json={
                "name": "scripted",
                "baseUrl": scripted_url,
                "modelName": "scripted",
                "isDefault": True,
            },
        )
        resp.raise_for_status()
        tally = asyncio.run(soak(args, url, db, bridge_box, root))
        stuck = stuck_runs(db)
    finally:
        stop_api()
        bridge_box[0].stop()
        stop_model()
        db.dispose()
    report = {
        "runs": sum(tally.outcomes.values()),
        "seconds": round(time.monotonic() - started, 1),
        "kinds": dict(tally.kinds),
        "completed": tally.outcomes["SUCCESS"],
        "failed": tally.outcomes["FAILED"],
        "stopped": tally.outcomes["STOPPED"],
        "stillRunningAtRead": tally.outcomes["RUNNING"],
        "bridgeRestarts": tally.bridge_restarts,
        "eventsLost": tally.lost,
        "eventsDuplicated": tally.duplicated,
        "serverErrors": tally.server_errors,
        "stuckRuns": stuck,
        "hungRuns": tally.hung,
        "surprises": tally.surprises,
    }
    print(json.dumps(report, indent=2))
    bad = stuck or tally.hung or tally.lost or tally.duplicated or tally.server_errors
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
