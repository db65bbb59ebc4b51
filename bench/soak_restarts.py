"""The API-restart half of the soak (`bench/soak.py --api-restart-every-s 8`).

`agentchat serve` runs as a subprocess on a SQLite data folder, beside a Hermes Bridge the soak
starts itself (an external bridge: the soak restarts it after each kill; `serve`'s own local
bridge has no supervisor on this branch). Clients stream slow answers and remember the text each
one saw; some runs ask a clarify question that the client answers after a while, as a person
would. Every few seconds the API gets SIGTERM or SIGKILL (in turn) and is started again on the
same port; with `--bridge-kill-every-s` the bridge gets SIGKILL and is started again too.

At the end it counts, each of which must be 0:
- answers stored shorter than what a client saw (a SIGKILL loses what streamed after the last
  checkpoint, one log batch ≤ 200 ms, so the figure that must be 0 compares with the text the
  client had one second before its stream was cut; the strict count is printed too);
- answers left RUNNING;
- clarify waits lost across an API restart: a run waiting on a clarify when the API restarted
  that could not be answered afterwards (the answer refused, or the run did not succeed).
Waits that a bridge kill crossed are counted apart (a killed bridge loses its turns).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from agentchat.core.database.packed_text import unpack
from agentchat.protocol.sse import aparse_lines
from agentchat.scripted_llm.server import serve_in_thread
from tests.reliability.api_process import ApiProcess, start_api
from tests.support.servers import BridgeProcess, start_bridge

SLOW = ["#delay 30\n#tokens 120", "#think t\n#delay 20\n#tokens 200", "#say quick"]
CLARIFY = "#clarify Which colour? | red | blue\n#echo-tool-result"
CLARIFY_SHARE = 0.3
TERMINAL = {"workflow_complete", "workflow_error"}
SETTLE_S = 30.0  # how long a client keeps trying to answer, or to read the outcome
FAILED_PAUSE_S = 0.5


@dataclass
class Wait:
    """One clarify question a client saw, and what became of its answer."""

    asked_at: float
    answered_at: float = 0.0
    done_at: float = 0.0
    answer_status: int | None = None  # None: never answered (the API did not come back)
    outcome: str = ""


@dataclass
class Seen:
    text: dict[str, str] = field(default_factory=dict)  # run id -> answer text a client saw
    settled: dict[str, str] = field(default_factory=dict)  # the text it had 1 s before a cut
    restarts: Counter[str] = field(default_factory=Counter)
    restart_at: list[float] = field(default_factory=list)
    bridge_kill_at: list[float] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    cut_streams: int = 0
    runs: int = 0
    failed_runs: int = 0


@dataclass
class Stream:
    """What one read of a run's stream got: its last event id, whether it ended, the clarify
    id it stopped at (when asked to)."""

    last: int = 0
    ended: bool = False
    failed: bool = False
    clarify_id: str | None = None
    history: list[tuple[float, str]] = field(default_factory=list)


async def read(
    http: httpx.AsyncClient, run_id: str, seen: Seen, after: int = 0, stop_at_clarify: bool = False
) -> Stream:
    """The run's events after `after`, adding its answer text to what the client saw; stops at
    the terminal event, at a clarify question when asked to, or when the stream is cut."""
    got = Stream(last=after)
    headers = {"Last-Event-ID": str(after)} if after else None
    try:
        async with http.stream("GET", f"/api/chat/runs/{run_id}/stream", headers=headers) as stream:
            async for message in aparse_lines(stream.aiter_lines()):
                got.last = message.num if message.id is not None else got.last
                data = message.json() if message.data else {}
                kind = data.get("kind") if message.event == "node_stream" else None
                if kind == "answer_delta":
                    seen.text[run_id] = seen.text.get(run_id, "") + str(data.get("content") or "")
                    got.history.append((time.monotonic(), seen.text[run_id]))
                elif kind == "interim":  # text before tool calls leaves the answer (as on the page)
                    seen.text[run_id] = ""
                if message.event in TERMINAL:
                    got.ended = True
                    got.failed = message.event == "workflow_error"
                    return got
                if stop_at_clarify and data.get("kind") == "clarify_request":
                    got.clarify_id = str(data["meta"]["clarifyId"])
                    return got
    except httpx.HTTPError:
        pass
    return got


def note_cut(run_id: str, got: Stream, seen: Seen) -> None:
    seen.cut_streams += 1
    cut = time.monotonic()
    seen.settled[run_id] = next((t for at, t in reversed(got.history) if at <= cut - 1.0), "")


async def one_run(
    http: httpx.AsyncClient, session_id: int, text: str, seen: Seen, hold_s: float
) -> None:
    resp = await http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": text})
    if resp.status_code != 201:
        return
    run_id = str(resp.json()["runId"])
    seen.runs += 1
    got = await read(http, run_id, seen, stop_at_clarify=text == CLARIFY)
    if got.clarify_id is not None:
        await answer_later(http, run_id, got, seen, hold_s)
    elif not got.ended:
        note_cut(run_id, got, seen)
    elif got.failed:  # as a person reads the error (while the bridge restarts, runs fail fast)
        seen.failed_runs += 1
        await asyncio.sleep(FAILED_PAUSE_S)


async def answer_later(
    http: httpx.AsyncClient, run_id: str, got: Stream, seen: Seen, hold_s: float
) -> None:
    """A person answers after `hold_s` (the API may restart meanwhile); then the client reads
    on and records how the run ended."""
    wait = Wait(asked_at=time.monotonic())
    seen.waits.append(wait)
    await asyncio.sleep(hold_s)
    body = {"clarifyId": got.clarify_id, "answer": "blue"}
    wait.answer_status = await post_until_up(http, f"/api/chat/runs/{run_id}/clarify", body)
    wait.answered_at = time.monotonic()
    if wait.answer_status == 200:
        rest = await read(http, run_id, seen, after=got.last)
        if not rest.ended:
            note_cut(run_id, rest, seen)
    wait.outcome = await final_status(http, run_id)
    wait.done_at = time.monotonic()


async def post_until_up(http: httpx.AsyncClient, path: str, body: dict[str, object]) -> int | None:
    """POST, trying again while the API is down or restarting; the status it answered."""
    deadline = time.monotonic() + SETTLE_S
    while time.monotonic() < deadline:
        try:
            resp = await http.post(path, json=body)
        except httpx.HTTPError:
            await asyncio.sleep(0.2)
            continue
        if resp.status_code < 500:
            return resp.status_code
        await asyncio.sleep(0.2)
    return None


async def final_status(http: httpx.AsyncClient, run_id: str) -> str:
    """The run's status once it is no longer RUNNING (or RUNNING after SETTLE_S)."""
    deadline, status = time.monotonic() + SETTLE_S, "UNKNOWN"
    while time.monotonic() < deadline:
        try:
            status = str((await http.get(f"/api/chat/runs/{run_id}/state")).json()["status"])
        except (httpx.HTTPError, ValueError, KeyError):
            status = "UNKNOWN"
        if status not in ("RUNNING", "UNKNOWN"):
            return status
        await asyncio.sleep(0.5)
    return status


async def worker(url: str, deadline: float, rng: random.Random, seen: Seen, hold_s: float) -> None:
    """Runs one after another on a session of its own; a clarify is answered after a random
    part of `hold_s`."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        session_id: int | None = None
        while time.monotonic() < deadline:
            try:
                if session_id is None:
                    session_id = int(
                        (await http.post("/api/chat/sessions", json={})).json()["sessionId"]
                    )
                text = CLARIFY if rng.random() < CLARIFY_SHARE else rng.choice(SLOW)
                await one_run(http, session_id, text, seen, rng.uniform(0.2, 1.0) * hold_s)
            except (httpx.HTTPError, ValueError, KeyError):
                await asyncio.sleep(0.2)  # the API is restarting


def restarter(
    box: list[ApiProcess],
    bridges: list[BridgeProcess],
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
        seen.restart_at.append(time.monotonic())
        api.process.send_signal(sig)
        api.process.wait(timeout=60)
        seen.restarts[sig.name] += 1
        box[0] = start_api(data, bridges[0], urlsplit(api.url).port, extra_env=env)


def bridge_killer(
    bridges: list[BridgeProcess], root: Path, every_s: float, deadline: float, seen: Seen
) -> None:
    """SIGKILL the bridge now and then and start a new one on the same port and secret."""
    while time.monotonic() + every_s < deadline:
        time.sleep(every_s)
        old = bridges[0]
        seen.bridge_kill_at.append(time.monotonic())
        old.kill()
        kills = len(seen.bridge_kill_at)
        port = urlsplit(old.url).port
        bridges[0] = start_bridge(root / f"bridge-{kills}", port, secret=old.secret)


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
            return {r[0]: unpack(r[1]) or "" for r in rows if r[0]}, running
        time.sleep(0.5)


def kept(stored: str, seen: str) -> bool:
    """Whether the stored answer holds the text a client saw (the server strips the answer's
    surrounding whitespace)."""
    return stored.strip().startswith(seen.strip())


def clarify_counts(seen: Seen) -> dict[str, int]:
    """Clarify waits that an API restart (or a bridge kill) crossed, and those of them lost."""

    def crossed(wait: Wait, times: list[float], until_done: bool = False) -> bool:
        end = (wait.done_at if until_done else wait.answered_at) or float("inf")
        return any(wait.asked_at <= t <= end for t in times)

    def lost(wait: Wait) -> bool:
        return wait.answer_status != 200 or wait.outcome != "SUCCESS"

    by_kill = [w for w in seen.waits if crossed(w, seen.bridge_kill_at)]
    by_restart = [w for w in seen.waits if crossed(w, seen.restart_at) and w not in by_kill]
    faults = seen.restart_at + seen.bridge_kill_at
    calm = [w for w in seen.waits if not crossed(w, faults, until_done=True)]
    return {
        "clarifyWaits": len(seen.waits),
        "clarifyWaitsAcrossApiRestart": len(by_restart),
        "clarifyWaitsLostAcrossApiRestart": sum(map(lost, by_restart)),
        "clarifyWaitsAcrossBridgeKill": len(by_kill),
        "clarifyWaitsLostAcrossBridgeKill": sum(map(lost, by_kill)),
        "clarifyWaitsLostWithoutAnyFault": sum(map(lost, calm)),
    }


def main(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="agentchat-soak-restarts-"))
    bridges = [start_bridge(root / "bridge")]
    # The model outlives the API (as a real one does), so the bridge's turns go on meanwhile
    # and the restarted API re-attaches to them.
    model_url, stop_model = serve_in_thread()
    env = {
        "AGENTCHAT_SHUTDOWN_GRACE_S": "2",
        "AGENTCHAT_MAX_ACTIVE_RUNS": "50",
        "AGENTCHAT_SCRIPTED_LLM_URL": model_url,
    }
    box = [start_api(root / "data", bridges[0], extra_env=env)]
    seen, started = Seen(), time.monotonic()
    deadline = started + args.time_limit
    chaos = [
        threading.Thread(
            target=restarter,
            args=(box, bridges, root / "data", args.api_restart_every_s, deadline, seen, env),
        )
    ]
    if args.bridge_kill_every_s > 0:
        chaos.append(
            threading.Thread(
                target=bridge_killer,
                args=(bridges, root, args.bridge_kill_every_s, deadline, seen),
            )
        )

    async def drive() -> None:
        rngs = [random.Random(args.seed + i) for i in range(args.concurrency)]
        hold_s = args.api_restart_every_s
        await asyncio.gather(*(worker(box[0].url, deadline, r, seen, hold_s) for r in rngs))

    try:
        for thread in chaos:
            thread.start()
        asyncio.run(drive())
        for thread in chaos:
            thread.join()
        answers, running = stored(root / "data" / "agentchat.db")
    finally:
        box[0].stop()
        bridges[0].stop()
        stop_model()
    shorter = [r for r, text in seen.text.items() if not kept(answers.get(r, ""), text)]
    behind = [r for r, text in seen.settled.items() if not kept(answers.get(r, ""), text)]
    clarify = clarify_counts(seen)
    report = {
        "seconds": round(time.monotonic() - started, 1),
        "runs": seen.runs,
        "runsFailedOnTheirStream": seen.failed_runs,
        "apiRestarts": dict(seen.restarts),
        "bridgeKills": len(seen.bridge_kill_at),
        "streamsCutByRestarts": seen.cut_streams,
        "answersStoredShorterThanSeen": len(shorter),
        "answersStoredShorterThanSeen1sBeforeTheCut": len(behind),
        "runsLeftRunning": running,
        **clarify,
        "examples": [
            {"runId": r, "seen": seen.text[r][-60:], "stored": answers.get(r, "")[-60:]}
            for r in shorter[:5]
        ],
    }
    print(json.dumps(report, indent=2))
    return 1 if behind or running or clarify["clarifyWaitsLostAcrossApiRestart"] else 0
