"""CPU seconds one `agentchat serve` start and one `agentchat bridge` start cost the test suite
(issue 29): started as the tests start them (tests/support/serve_process.py spawn_serve, SQLite,
no bridge; tests/support/servers.py start_bridge, the real hermes-agent), exec'd and forked from
their zygote, each until it answers its health check. A child's CPU is read from
/proc/PID/stat just before it is stopped (neither has children here); each zygote's own start
is reported once, separately.

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
from tests.support.servers import start_bridge  # noqa: E402

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


def _bridge_starts(count: int, folder: Path, fork: bool) -> tuple[float, float]:
    """Mean CPU seconds per bridge start and mean wall seconds to healthy."""
    cpu = wall = 0.0
    for index in range(count):
        begun = time.monotonic()
        bridge = start_bridge(folder / str(index), fork=fork)
        wall += time.monotonic() - begun
        cpu += _cpu_s(bridge.process.pid)
        bridge.stop()
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
        own = _cpu_s(zygote._running["serve"].process.pid)
        bridge_execd = _bridge_starts(count, Path(folder) / "bridge-exec", fork=False)
        bridge_forked = _bridge_starts(count, Path(folder) / "bridge-fork", fork=True)
        bridge_own = _cpu_s(zygote._running["bridge"].process.pid)
        zygote.close_zygote()
    for name, (cpu, wall) in (
        ("serve exec'd", execd),
        ("serve forked", forked),
        ("bridge exec'd", bridge_execd),
        ("bridge forked", bridge_forked),
    ):
        print(f"{name}: {cpu:.2f} s CPU per start, {wall:.2f} s to healthy ({count} starts)")
    print(f"serve zygote: {own:.2f} s CPU, bridge zygote: {bridge_own:.2f} s, once per worker")


if __name__ == "__main__":
    main()
