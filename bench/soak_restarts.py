"""The API-restart half of the soak (`bench/soak.py --api-restart-every-s 8`).

`agentchat serve` runs as a subprocess on a SQLite data folder; clients stream slow answers
and remember the text each one saw; every few seconds the API gets SIGTERM or SIGKILL (in
turn) and is started again on the same port. At the end it counts answers stored shorter than
what a client saw and answers left RUNNING (must be 0). The bridge and the model outlive the
API, so the restarted API re-attaches to the turns that went on meanwhile and finishes them
(`storedStatuses`); the figure that must be 0 compares with the text the client had one second
before its stream was cut, the strict count (all it saw) is printed too.
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
from agentchat.scripted_llm.server import serve_in_thread
from tests.reliability.api_process import ApiProcess, start_api
from tests.support.servers import BridgeProcess, start_bridge

SLOW = ["#delay 30\n#tokens 120", "#think t\n#delay 20\n#tokens 200", "#say quick"]
CLARIFY = "#clarify Which colour? | red | blue\n#echo-tool-result"
ANSWER_WITHIN_S = 30.0  # a clarify answer is retried through restarts this long
TERMINAL = {"workflow_complete", "workflow_error"}


@dataclass
class Seen:
    text: dict[str, str] = field(default_factory=dict)  # run id -> answer text a client saw
    settled: dict[str, str] = field(default_factory=dict)  # the text it had 1 s before a cut
    restarts: Counter[str] = field(default_factory=Counter)
    cut_streams: int = 0
    runs: int = 0
    clarify_runs: dict[str, str] = field(default_factory=dict)  # run id -> how it was answered


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


async def clarify_run(
    http: httpx.AsyncClient, session_id: int, rng: random.Random, seen: Seen
) -> None:
    """A run that asks back: answered after a random wait, so restarts fall in between; the
    answer is sent again while the API is down, and a 409 means the wait was lost."""
    resp = await http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": CLARIFY})
    if resp.status_code != 201:
        return
    run_id = str(resp.json()["runId"])
    seen.runs += 1
    seen.clarify_runs[run_id] = "unasked"
    clarify_id = await _clarify_id(http, run_id)
    if clarify_id is None:
        return
    await asyncio.sleep(rng.uniform(0, 4))
    give_up = time.monotonic() + ANSWER_WITHIN_S
    body = {"clarifyId": clarify_id, "answer": "blue"}
    while time.monotonic() < give_up:
        try:
            answered = await http.post(f"/api/chat/runs/{run_id}/clarify", json=body)
        except httpx.HTTPError:
            await asyncio.sleep(0.3)  # the API is restarting
            continue
        seen.clarify_runs[run_id] = "answered" if answered.status_code == 200 else "refused"
        return


async def _clarify_id(http: httpx.AsyncClient, run_id: str) -> str | None:
    """The run's pending clarify id from `/state` (polled through restarts); None once it
    ended without one."""
    give_up = time.monotonic() + ANSWER_WITHIN_S
    while time.monotonic() < give_up:
        try:
            state = (await http.get(f"/api/chat/runs/{run_id}/state")).json()
        except (httpx.HTTPError, ValueError):
            await asyncio.sleep(0.3)
            continue
        if state.get("pendingClarify"):
            return str(state["pendingClarify"]["clarifyId"])
        if state.get("status") not in (None, "RUNNING"):
            return None
        await asyncio.sleep(0.2)
    return None


async def worker(url: str, deadline: float, rng: random.Random, seen: Seen) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        session_id: int | None = None
        while time.monotonic() < deadline:
            try:
                if session_id is None:
                    session_id = int(
                        (await http.post("/api/chat/sessions", json={})).json()["sessionId"]
                    )
                if rng.random() < 0.25:
                    await clarify_run(http, session_id, rng, seen)
                else:
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


def stored(db_file: Path, grace_s: float = 30.0) -> tuple[dict[str, tuple[str, str]], int]:
    """Run id → (stored text, status) once nothing is RUNNING (or after `grace_s`)."""
    deadline = time.monotonic() + grace_s
    while True:
        conn = sqlite3.connect(db_file)
        rows = conn.execute(
            "SELECT run_id, content, status FROM chat_message WHERE role = 'ASSISTANT'"
        ).fetchall()
        conn.close()
        running = sum(1 for r in rows if r[2] == "RUNNING")
        if not running or time.monotonic() > deadline:
            return {r[0]: (r[1] or "", r[2]) for r in rows if r[0]}, running
        time.sleep(0.5)


def main(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="agentchat-soak-restarts-"))
    bridge = start_bridge(root / "bridge")
    # The model outlives the API (as a real one does), so the bridge's turns go on meanwhile
    # and the restarted API re-attaches to them.
    model_url, stop_model = serve_in_thread()
    env = {
        "AGENTCHAT_SHUTDOWN_GRACE_S": "2",
        "AGENTCHAT_MAX_ACTIVE_RUNS": "50",
        "AGENTCHAT_SCRIPTED_LLM_URL": model_url,
    }
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
        stop_model()
    statuses = Counter(status for _text, status in answers.values())
    texts = {r: text for r, (text, _status) in answers.items()}
    shorter = [r for r, text in seen.text.items() if not texts.get(r, "").startswith(text)]
    behind = [r for r, t in seen.settled.items() if not texts.get(r, "").startswith(t)]
    asked = [r for r, how in seen.clarify_runs.items() if how != "unasked"]
    lost = [
        r
        for r in asked
        if seen.clarify_runs[r] != "answered" or answers.get(r, ("", ""))[1] != "SUCCESS"
    ]
    report = {
        "seconds": round(time.monotonic() - started, 1),
        "runs": seen.runs,
        "apiRestarts": dict(seen.restarts),
        "streamsCutByRestarts": seen.cut_streams,
        "answersStoredShorterThanSeen": len(shorter),
        "answersStoredShorterThanSeen1sBeforeTheCut": len(behind),
        "runsLeftRunning": running,
        "storedStatuses": dict(statuses),
        "clarifyWaits": len(asked),
        "clarifyWaitsLostAcrossRestarts": len(lost),
        "examples": shorter[:5],
    }
    print(json.dumps(report, indent=2))
    return 1 if behind or running or lost else 0
