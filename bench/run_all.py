"""`make bench`: run every bench/bench_*.py, then write bench/results/latest.md and latest.json.

Each script runs as its own process (one that fails or is absent is reported, the others
still run); scripts that know `--quick` get it when this runner is given it. The figures are
printed as the last lines. Exit status 0 even when targets are missed or a bench fails (the
table says so); 2 only for a wrong command line.

Run: .venv/bin/python bench/run_all.py [--quick] [--only relay,wire]
  --quick   smaller sizes (about 6 minutes instead of about 15): 200-500 tokens per run, 1,000
            idle streams instead of 5,000, 200 reconnect cycles instead of 1,000.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from bench import common as c  # noqa: E402
from bench import report  # noqa: E402

# Known scripts first, in this order; any other bench/bench_*.py runs after them.
ORDER = (
    "relay",
    "parallel",
    "persistence",
    "pool",
    "reconnect",
    "wire",
    "bridge",
    "bus",
    "chat_queries",
    "scale",
    "page",
)
TIMEOUT_S = 1200


def scripts() -> list[Path]:
    found = {p.stem.removeprefix("bench_"): p for p in (ROOT / "bench").glob("bench_*.py")}
    names = [n for n in ORDER if n in found] + sorted(set(found) - set(ORDER))
    return [found[n] for n in names]


def run_one(script: Path, quick: bool) -> dict[str, Any]:
    command = [sys.executable, str(script)]
    if quick and "--quick" in script.read_text():
        command.append("--quick")
    print(f"\n=== {script.name} {' '.join(command[2:])}", flush=True)
    start = time.monotonic()
    counters = c.cpu_counters()
    try:
        rc = subprocess.run(command, cwd=ROOT, timeout=TIMEOUT_S, check=False).returncode
        status = "ok" if rc == 0 else f"failed (exit {rc})"
    except subprocess.TimeoutExpired:
        status = f"failed (over {TIMEOUT_S} s)"
    seconds = round(time.monotonic() - start, 1)
    steal = c.steal_share(counters, c.cpu_counters())
    return {"status": status, "seconds": seconds, "steal": steal}


def previous_runs() -> dict[str, dict[str, Any]]:
    """With --only, the other benches keep the status of the run that wrote their files."""
    latest = c.RESULTS_DIR / "latest.json"
    if not latest.exists():
        return {}
    runs: dict[str, dict[str, Any]] = json.loads(latest.read_text()).get("runs", {})
    return {k: v for k, v in runs.items() if not str(v.get("status")).startswith("absent")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Run every benchmark and write the table.")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, about 6 minutes")
    parser.add_argument("--only", default="", help="comma-separated names, e.g. relay,wire")
    args = parser.parse_args(argv)
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    machine = {**c.machine(), "quick": args.quick, "speed_reference_ms": c.speed_reference_ms()}
    runs: dict[str, dict[str, Any]] = previous_runs() if only else {}
    for script in scripts():
        name = script.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        runs[name] = run_one(script, args.quick)
    for name in ("scale", "page"):
        runs.setdefault(name, {"status": "absent (no bench script yet)", "seconds": None})
    items = report.build(c.RESULTS_DIR, runs, machine)
    print("\n=== figures (bench/results/latest.md)", flush=True)
    for name, run in runs.items():
        print(f"{name}: {run['status']} ({run['seconds']} s)")
    for item in items:
        stale = " (stale: not measured in this run)" if item["stale"] else ""
        print(report.summary_line(item) + stale)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
