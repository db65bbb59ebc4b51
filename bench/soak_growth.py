"""Growth soak: thousands of turns through one `agentchat serve` (its local bridge, real
hermes-agent, SQLite), watching what a month of use would pile up. Prints figures.

    .venv/bin/python bench/soak_growth.py --turns 2000 --concurrency 4 --vanish-every 5

Each turn is a new chat (the worst case for per-session state) or, with `--turns-per-chat`,
one more turn of a chat; with `--vanish-every K` every Kth run also gets two readers that
drop their connection mid-answer (one reset, one left half-open until the run ends).
Sampled every `--sample-every` turns: resident memory, open descriptors and threads of the
API and of the bridge, and the sizes of the SQLite file, its WAL, hermes' logs and the number
of scratch folders. At the end every chat is deleted and it reports what the data folder gave
back, and in how many files the chats' marker word is still found (must be 0).
Growth is reported per 1,000 turns over the second half (after warm-up): a plateau is ~0.
`--idle-s S` samples once more after S seconds without turns (the bridge trims its heap then).
With `--probe DIR` the bridge loads bench/memprobe (never the product) and writes a report of
what it holds at each sample (`DIR/<turns>.json`; `--probe-frames N` adds tracemalloc
snapshots); `bench/memprobe/compare.py DIR A B` prints what grew between two.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import struct
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.local_bridge import bridge_state, stop_local_bridges
from tests.support.serve_process import Served, spawn_serve

MARKER = "xylofernquartz"
PROBE = Path(__file__).resolve().parent / "memprobe"
TERMINAL = (b"event: workflow_complete", b"event: workflow_error")


def proc(pid: int) -> dict[str, int]:
    """Resident KiB, open descriptors and threads of `pid`."""
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return {
        "rssKiB": int(status["VmRSS"].split()[0]),
        "fds": len(list(Path(f"/proc/{pid}/fd").iterdir())),
        "threads": int(status["Threads"]),
    }


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def disk(data: Path) -> dict[str, int]:
    home = data / "hermes-home"
    workspaces = home / "workspaces"
    return {
        "dbBytes": size(data / "agentchat.db"),
        "walBytes": size(data / "agentchat.db-wal"),
        "hermesLogBytes": size(home / "logs"),
        "dataLogBytes": size(data / "logs"),
        "scratchFolders": len(list(workspaces.iterdir())) if workspaces.exists() else 0,
        "dataBytes": size(data),
    }


def holding(folder: Path, word: bytes) -> list[str]:
    found = []
    for path in folder.rglob("*"):
        try:
            if path.is_file() and word in path.read_bytes():
                found.append(str(path.relative_to(folder)))
        except OSError:
            continue
    return found


async def vanish(url: str, run_id: str) -> asyncio.StreamWriter:
    """Two readers of the run that go away mid-answer: one resets its connection at once,
    the other (returned) stops reading and stays open."""
    host, port = url.removeprefix("http://").split(":")
    writers = []
    for _ in range(2):
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(f"GET /api/chat/runs/{run_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        await reader.read(200)
        writers.append(writer)
    sock = writers[0].get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writers[0].close()
    return writers[1]


async def one_turn(http: httpx.AsyncClient, chat: int, n: int, vanishing: bool) -> int:
    text = f"#think about {MARKER}{n}\n#tokens 80\n#say {MARKER}{n}"
    started = await http.post(f"/api/chat/sessions/{chat}/runs", json={"message": text})
    started.raise_for_status()
    run_id = started.json()["runId"]
    left = await vanish(str(http.base_url).rstrip("/"), run_id) if vanishing else None
    async with http.stream("GET", f"/api/chat/runs/{run_id}/stream") as response:
        async for line in response.aiter_lines():
            if line.encode().startswith(TERMINAL):
                break
    if left is not None:
        left.close()
    return chat


async def drive(served: Served, args: argparse.Namespace, pids: dict[str, int]) -> dict:
    data: Path = args.data
    samples: list[dict[str, Any]] = []
    chats: list[int] = []
    done = 0
    limits = httpx.Limits(max_connections=args.concurrency * 2)
    async with httpx.AsyncClient(base_url=served.url, timeout=120, limits=limits) as http:

        async def new_chat() -> int:
            chat = int((await http.post("/api/chat/sessions", json={})).json()["sessionId"])
            chats.append(chat)
            return chat

        async def worker(first: int) -> None:
            nonlocal done
            chat, turns = await new_chat(), 0
            for n in range(first, args.turns, args.concurrency):
                if turns == args.turns_per_chat:
                    chat, turns = await new_chat(), 0
                vanishing = args.vanish_every > 0 and n % args.vanish_every == 0
                await one_turn(http, chat, n, vanishing)
                turns += 1
                done += 1

        async def sampler() -> None:
            next_at = 0
            while True:
                if done >= next_at:
                    if args.probe is not None:
                        (args.probe / f"want-{done:06d}").touch()
                    samples.append(
                        {"turns": done, **{k: proc(p) for k, p in pids.items()}, **disk(data)}
                    )
                    next_at += args.sample_every
                await asyncio.sleep(0.2)

        sampling = asyncio.create_task(sampler())
        started = time.monotonic()
        await asyncio.gather(*(worker(i) for i in range(args.concurrency)))
        seconds = time.monotonic() - started
        await asyncio.sleep(2)
        sampling.cancel()
        samples.append({"turns": done, **{k: proc(p) for k, p in pids.items()}, **disk(data)})
        idle = None
        if args.idle_s > 0:  # what the bridge keeps once no turn runs (it trims its heap)
            await asyncio.sleep(args.idle_s)
            idle = {k: proc(p) for k, p in pids.items()}
        if args.probe is not None:
            await trimmed_report(args.probe, done)
        before = disk(data)
        for chat in chats:
            (await http.delete(f"/api/chat/sessions/{chat}")).raise_for_status()
    return {
        "seconds": round(seconds, 1),
        "chats": len(chats),
        "samples": samples,
        "idle": idle,
        "full": before,
    }


async def trimmed_report(folder: Path, turns: int, timeout: float = 120.0) -> None:
    """The probe's last report, before and after the allocator gave back what it holds free."""
    (folder / f"trim-{turns:06d}-end").touch()
    deadline = time.monotonic() + timeout
    while not (folder / f"{turns:06d}-end-trimmed.json").exists():
        if time.monotonic() > deadline:
            return
        await asyncio.sleep(0.5)


def per_thousand(samples: list[dict[str, Any]], read: Any) -> float:
    """Growth per 1,000 turns between the middle sample and the last."""
    mid, last = samples[len(samples) // 2], samples[-1]
    turns = last["turns"] - mid["turns"]
    return round((read(last) - read(mid)) * 1000 / turns, 1) if turns else 0.0


def settle(data: Path, timeout: float = 60.0) -> tuple[dict[str, int], list[str]]:
    """What the data folder holds once deletions settled (the marker gone, or timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        left = holding(data, MARKER.encode())
        if not left or time.monotonic() > deadline:
            return disk(data), left
        time.sleep(1.0)


def report(result: dict, after: dict[str, int], left: list[str]) -> dict[str, Any]:
    samples = result["samples"]
    growth = {
        f"{who}.{what}": per_thousand(samples, lambda s, w=who, k=what: s[w][k])
        for who in ("api", "bridge")
        for what in ("rssKiB", "fds", "threads")
    }
    for key in ("dbBytes", "hermesLogBytes", "scratchFolders"):
        growth[key] = per_thousand(samples, lambda s, k=key: s[k])
    return {
        "turns": samples[-1]["turns"],
        "chats": result["chats"],
        "seconds": result["seconds"],
        "first": samples[0],
        "last": samples[-1],
        "growthPer1000TurnsSecondHalf": growth,
        "bridgeRssKiBByTurns": [[s["turns"], s["bridge"]["rssKiB"]] for s in samples],
        "idleAfterLast": result["idle"],
        "beforeDeletingAll": result["full"],
        "afterDeletingAll": after,
        "filesStillHoldingDeletedWords": left,
    }


def probe_env(folder: Path, frames: int) -> dict[str, str]:
    """What makes the bridge load the memory probe (it passes PYTHONPATH and AGENTCHAT_BRIDGE_*
    on to its bridge)."""
    paths = [str(PROBE), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {
        "PYTHONPATH": os.pathsep.join(paths),
        "AGENTCHAT_BRIDGE_MEMPROBE_DIR": str(folder),
        "AGENTCHAT_BRIDGE_MEMPROBE_FRAMES": str(frames),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--turns-per-chat", type=int, default=1)
    parser.add_argument("--vanish-every", type=int, default=0, help="0: no vanishing readers")
    parser.add_argument("--sample-every", type=int, default=100)
    parser.add_argument("--idle-s", type=float, default=0, help="sample again after idling")
    parser.add_argument("--probe", type=Path, help="folder for the bridge's memory reports")
    parser.add_argument("--probe-frames", type=int, default=0, help="tracemalloc frames; 0: off")
    parser.add_argument(
        "--probe-set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a probe experiment (bench/memprobe/sitecustomize.py): MALLOPT=-8:2, TRIM_S=10",
    )
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="agentchat-growth-"))
    args.data = root / "data"
    env = {"AGENTCHAT_START_BRIDGE": "true", "AGENTCHAT_MAX_ACTIVE_RUNS": "20"}
    if args.probe is not None:
        args.probe = args.probe.resolve()
        args.probe.mkdir(parents=True, exist_ok=True)
        env |= probe_env(args.probe, args.probe_frames)
        pairs = (item.split("=", 1) for item in args.probe_set)
        env |= {f"AGENTCHAT_BRIDGE_MEMPROBE_{name}": value for name, value in pairs}
    served = spawn_serve(root / "logs", "--data-dir", str(args.data), env=env)
    try:
        served.wait_healthy(180)
        state = bridge_state(args.data)
        assert state is not None, "no local bridge recorded"
        pids = {"api": served.process.pid, "bridge": int(state["pid"])}
        result = asyncio.run(drive(served, args, pids))
        after, left = settle(args.data)
    finally:
        served.stop()
        stop_local_bridges(args.data)
    print(json.dumps(report(result, after, left), indent=2))
    return 1 if left else 0


if __name__ == "__main__":
    raise SystemExit(main())
