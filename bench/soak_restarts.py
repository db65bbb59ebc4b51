"""The API-restart half of the soak (`bench/soak.py --api-restart-every-s 8`).

`agentchat serve` runs as a subprocess on a SQLite data folder; clients stream slow answers
and remember the text each one saw; every few seconds the API gets SIGTERM or SIGKILL (in
turn) and is started again on the same port. At the end it counts answers stored shorter than
what a client saw and answers left RUNNING (must be 0). A SIGKILL loses what was streamed after
the last checkpoint (one log batch, ≤ 200 ms), so the figure that must be 0 compares with the
text the client had one second before its stream was cut; the strict count is printed too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sqlite3
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from agentchat.events.sse import aparse_lines
from tests.reliability.api_process import ApiProcess, start_api
from tests.support.servers import BridgeProcess, start_bridge

SLOW = ["#delay 30\n#tokens 120", "#think t\n#delay 20\n#tokens 200", "#say quick"]
TERMINAL = {"workflow_complete", "workflow_error"}


@dataclass
class Seen:
    text: dict[str, str] = field(default_factory=dict)  # run id -> answer text a client saw
    settled: dict[str, str] = field(default_factory=dict)  # the text it had 1 s before a cut
    restarts: Counter[str] = field(default_factory=Counter)
    cut_streams: int = 0
    runs: int = 0


async def one_run(http: httpx.AsyncClient, session_id: int, text: str, seen: Seen) -> None:
    resp = await http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": text})
    if resp.status_code != 201:
        return
    run_id = str(resp.json()["runId"])
    seen.runs += 1
    answer = ""
    history: list[tuple[float, str]] = []
    try:
        async with http.stream("GET", f"/api/chat/runs/{run_id}/stream") as stream:
            async for message in aparse_lines(stream.aiter_lines()):
                data = message.json() if message.data else {}
                if message.event == "node_stream" and data.get("kind") == "answer_delta":
                    answer += str(data.get("content") or "")
                    seen.text[run_id] = answer
                    history.append((time.monotonic(), answer))
                if message.event in TERMINAL:
                    return
    except httpx.HTTPError:
        pass
    seen.cut_streams += 1
    cut = time.monotonic()
    seen.settled[run_id] = next((t for at, t in reversed(history) if at <= cut - 1.0), "")


async def worker(url: str, deadline: float, rng: random.Random, seen: Seen) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        session_id: int | None = None
        while time.monotonic() < deadline:
            try:
                if session_id is None:
                    session_id = int(
                        (await http.post("/api/chat/sessions", json={})).json()["sessionId"]
                    )
                await one_run(http, session_id, rng.choice(SLOW), seen)
            except (httpx.HTTPError, ValueError, KeyError):
                await asyncio.sleep(0.2)  # the API is restarting


def restarter(
    box: list[ApiProcess],
    bridge: BridgeProcess,
    data: Path,
    every_s: float,
    deadline: float,
    seen: Seen,
    env: dict[str, str],
) -> None:
    turn = 0
    while time.monotonic() + every_s < deadline:
        time.sleep(every_s)
        sig = (signal.SIGTERM, signal.SIGKILL)[turn % 2]
        turn += 1
        api = box[0]
        api.process.send_signal(sig)
        api.process.wait(timeout=60)
        seen.restarts[sig.name] += 1
        box[0] = start_api(data, bridge, urlsplit(api.url).port, extra_env=env)


def stored(db_file: Path, grace_s: float = 30.0) -> tuple[dict[str, str], int]:
    deadline = time.monotonic() + grace_s
    while True:
        conn = sqlite3.connect(db_file)
        rows = conn.execute(
            "SELECT run_id, content, status FROM chat_message WHERE role = 'ASSISTANT'"
        ).fetchall()
        conn.close()
        running = sum(1 for r in rows if r[2] == "RUNNING")
        if not running or time.monotonic() > deadline:
            return {r[0]: r[1] or "" for r in rows if r[0]}, running
        time.sleep(0.5)


def main(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="agentchat-soak-restarts-"))
    bridge = start_bridge(root / "bridge")
    env = {"AGENTCHAT_SHUTDOWN_GRACE_S": "2", "AGENTCHAT_MAX_ACTIVE_RUNS": "50"}
    box = [start_api(root / "data", bridge, extra_env=env)]
    seen, started = Seen(), time.monotonic()
    deadline = started + args.time_limit

    async def drive() -> None:
        loop = asyncio.get_running_loop()
        chaos = loop.run_in_executor(
            None,
            restarter,
            box,
            bridge,
            root / "data",
            args.api_restart_every_s,
            deadline,
            seen,
            env,
        )
        rngs = [random.Random(args.seed + i) for i in range(args.concurrency)]
        await asyncio.gather(*(worker(box[0].url, deadline, r, seen) for r in rngs))
        await chaos

    try:
        asyncio.run(drive())
        answers, running = stored(root / "data" / "agentchat.db")
    finally:
        box[0].stop()
        bridge.stop()
    shorter = [r for r, text in seen.text.items() if not answers.get(r, "").startswith(text)]
    behind = [r for r, t in seen.settled.items() if not answers.get(r, "").startswith(t)]
    report = {
        "seconds": round(time.monotonic() - started, 1),
        "runs": seen.runs,
        "apiRestarts": dict(seen.restarts),
        "streamsCutByRestarts": seen.cut_streams,
        "answersStoredShorterThanSeen": len(shorter),
        "answersStoredShorterThanSeen1sBeforeTheCut": len(behind),
        "runsLeftRunning": running,
        "examples": shorter[:5],
    }
    print(json.dumps(report, indent=2))
    return 1 if behind or running else 0
