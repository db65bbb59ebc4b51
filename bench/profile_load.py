"""Profile the API or the bridge under load with py-spy (installed from PyPI; not a project
dependency): the top frames by own samples and by samples that include them.

  api     the API fed by the fake bridge: RUNS runs x RATE tokens/s (bench_parallel's load)
  bridge  the real bridge (hermes) with RUNS runs of the timed model at RATE tokens/s

Run: .venv/bin/python bench/profile_load.py api|bridge [--runs 100] [--rate 50] [--seconds 10]
     [--out bench/results/profile-api.txt]   (writes the top frames; py-spy's raw stacks beside)
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from bench import common as c  # noqa: E402

TOP = 25


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: .venv/bin/uv pip install py-spy")
    return found


def record(pid: int, seconds: int, raw: Path) -> subprocess.Popen[bytes]:
    command = [
        *(py_spy(), "record", "--pid", str(pid), "--duration", str(seconds)),
        *("--rate", "200", "--format", "raw", "--output", str(raw), "--nonblocking", "--gil"),
    ]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL)


def top_frames(raw: Path) -> str:
    """Own and inclusive sample counts per frame (function (file)) from py-spy's raw stacks."""
    own: collections.Counter[str] = collections.Counter()
    inclusive: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_short(f) for f in stack.split(";")]
        total += count
        own[frames[-1]] += count
        for frame in set(frames):
            inclusive[frame] += count
    lines = [f"samples: {total}", "", "own samples (top):"]
    lines += [f"  {n / total:6.1%}  {f}" for f, n in own.most_common(TOP)]
    lines += ["", "inclusive samples (top):"]
    lines += [f"  {n / total:6.1%}  {f}" for f, n in inclusive.most_common(TOP)]
    return "\n".join(lines) + "\n"


def _short(frame: str) -> str:
    """`fn (path/to/file.py:12)` → `fn (file.py)`: lines vary, the function matters."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")").rsplit(":", 1)[0]
    parts = Path(where).parts
    keep = "/".join(parts[-2:]) if parts else where
    return f"{name} ({keep})"


async def load(api: c.Process, script: str, runs: int, on_started: Any) -> dict[str, Any]:
    """`runs` runs of `script` at once; `on_started()` once every run has streamed a token."""
    streaming = 0
    async with c.api_client(api.url) as http:
        sessions = [await c.new_session(http) for _ in range(runs)]

        def started() -> None:
            nonlocal streaming
            streaming += 1
            if streaming == runs:
                on_started()

        async def one(session: int) -> int:
            run_id = await c.start_run(http, session, c.tagged(uuid.uuid4().hex[:12], script))
            return len(await c.read_run(http, run_id, on_token=started))

        counts = await asyncio.gather(*(one(s) for s in sessions))
    return {"runs": runs, "events": sum(counts)}


def script_for(target: str, rate: int, seconds: int) -> str:
    """Enough tokens to outlast the recording (it starts once every run streams)."""
    count = rate * (seconds + 5)
    if target == "api":
        return f"#fake {count} {rate}"
    return f"#delay {max(1, round(1000 / rate))}\n#tokens {count}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("target", choices=("api", "bridge"))
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--rate", type=int, default=50)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    out = Path(args.out or c.RESULTS_DIR / f"profile-{args.target}.txt")
    out.with_suffix(".raw").unlink(missing_ok=True)
    c.raise_fd_limit()
    with tempfile.TemporaryDirectory(prefix="bench-profile-") as name:
        tmp = Path(name)
        model = c.start_timed_model(tmp)
        if args.target == "api":
            bridge = c.start_fake_bridge(tmp)
        else:
            bridge = c.start_bridge(tmp / "bridge", AGENTCHAT_BRIDGE_POOL_SIZE="128")
        api = c.start_api(tmp, bridge)
        with c.stopping(model, bridge, api):
            c.register_model(api.url, model.url)
            pid = api.pid if args.target == "api" else bridge.pid
            raw = out.with_suffix(".raw")
            spies: list[subprocess.Popen[bytes]] = []
            script = script_for(args.target, args.rate, args.seconds)
            result = asyncio.run(
                load(api, script, args.runs, lambda: spies.append(record(pid, args.seconds, raw)))
            )
            for spy in spies:
                spy.wait(timeout=args.seconds + 120)
    header = f"{args.target}: {result}, machine {c.machine()}\n"
    out.write_text(header + top_frames(raw))
    print(out.read_text())


if __name__ == "__main__":
    main()
