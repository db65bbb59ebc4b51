"""CPU seconds one `agentchat serve` start costs the test suite (issue 29): started as the tests
start it (tests/support/serve_process.py spawn_serve, SQLite, no bridge), exec'd
(AGENTCHAT_TEST_ZYGOTE=0) and forked from the zygote, each until it answers /api/health.
A child's CPU is read from /proc/PID/stat just before it is stopped (serve has no children
here); the zygote's own start is reported once, separately.

Run: .venv/bin/python bench/bench_serve_start.py [--starts N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.support import zygote  # noqa: E402
from tests.support.serve_process import spawn_serve  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _starts(count: int, folder: Path) -> tuple[float, float]:
    """Mean CPU seconds per start and mean wall seconds to healthy."""
    cpu = wall = 0.0
    for index in range(count):
        data = folder / str(index)
        begun = time.monotonic()
        served = spawn_serve(data, "--data-dir", str(data / "data"))
        served.wait_healthy()
        wall += time.monotonic() - begun
        cpu += _cpu_s(served.process.pid)
        served.stop()
    return cpu / count, wall / count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=5)
    count = parser.parse_args().starts
    with tempfile.TemporaryDirectory() as folder:
        os.environ["AGENTCHAT_TEST_ZYGOTE"] = "0"
        execd = _starts(count, Path(folder) / "exec")
        os.environ["AGENTCHAT_TEST_ZYGOTE"] = "1"
        null = os.open(os.devnull, os.O_WRONLY)
        zygote.fork_serve(["agentchat", "--help"], dict(os.environ), Path(folder), null).wait(60)
        forked = _starts(count, Path(folder) / "fork")
        assert zygote._running is not None
        own = _cpu_s(zygote._running.process.pid)
        zygote.close_zygote()
    print(f"exec'd: {execd[0]:.2f} s CPU per start, {execd[1]:.2f} s to healthy ({count} starts)")
    print(f"forked: {forked[0]:.2f} s CPU per start, {forked[1]:.2f} s to healthy ({count} starts)")
    print(f"zygote: {own:.2f} s CPU once per worker (its imports)")


if __name__ == "__main__":
    main()
