"""CPU seconds per kind of process while something runs (issue 29: where a `make test` spends).

    python3 scripts/cpu_by_process.py OUT.txt -- bash .ci/run

Samples /proc once a second (under 1 % of a core) and keeps each process's last user + system
time; a process that lives less than a second between two samples is missed, so the figures are
a floor (Chromium renderers of a closed context are the ones most often missed). Prints and
writes one line per kind, most CPU first; the command's exit status is this script's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

HZ = os.sysconf("SC_CLK_TCK")
KINDS = (  # first match wins: (words in the command line, kind)
    (("chrom",), "chromium"),
    # A zygote and its children share one command line (tests/support/zygote.py).
    (("zygote_server.py", " bridge"), "bridge (forked, and its zygote)"),
    (("zygote_server.py", " serve"), "serve (forked, and its zygote)"),
    (("agentchat.cli", "bridge"), "bridge"),
    (("agentchat", "serve"), "serve"),
    (("execnet",), "pytest worker"),
    (("import sys;exec(eval(sys.stdin.readline()))",), "pytest worker"),
    (("mcp",), "MCP server"),
    (("pytest",), "pytest"),
    (("postgres",), "postgres"),
    (("mariadb",), "mariadb"),
    (("mysqld",), "mariadb"),
    (("redis",), "redis"),
    (("mypy",), "mypy"),
    (("vue-tsc",), "vue-tsc"),
    (("vitest",), "vitest"),
    (("vite",), "vite"),
    (("playwright",), "playwright driver"),
    (("ruff",), "lint"),
    (("lint-imports",), "lint"),
    (("uv",), "install"),
    (("npm",), "install"),
)


def kind_of(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            command = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None
    if not command:
        return None
    for words, kind in KINDS:
        if all(word in command for word in words):
            if kind.startswith("pytest"):
                return kind + _lane(pid)
            return kind + _chromium_type(command) if kind == "chromium" else kind
    return "other: " + command.split()[0].rsplit("/", 1)[-1]


def _lane(pid: str) -> str:
    """' (LANE)' for a pytest of `make test`'s lanes: its AGENTCHAT_TEST_NS, 'main' if none."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            names = dict(item.split(b"=", 1) for item in fh.read().split(b"\0") if b"=" in item)
    except OSError:
        return ""
    lane = names.get(b"AGENTCHAT_TEST_NS", b"").decode(errors="replace").strip("_")
    return f" ({lane or 'main'})"


def _chromium_type(command: str) -> str:
    """' renderer', ' gpu-process', ' utility' (network, storage, audio...) or ' browser'."""
    for word in command.split():
        if word.startswith("--type="):
            return " " + word.removeprefix("--type=")
    return " browser"


def cpu_ticks(pid: str) -> tuple[str, int] | None:
    """(start time, user + system ticks) of a live process."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19], int(fields[11]) + int(fields[12])


def sample(seen: dict[tuple[str, str], list], before: bool = False) -> None:
    """Each process's [kind, ticks when first seen if it ran `before` the command, last ticks]."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        found = cpu_ticks(pid)
        if found is None:
            continue
        key = (pid, found[0])
        if key in seen:
            seen[key][2] = found[1]
        elif (kind := kind_of(pid)) is not None:
            seen[key] = [kind, found[1] if before else 0, found[1]]


def main() -> int:
    out, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1 :]
    seen: dict[tuple[str, str], list] = {}
    sample(seen, before=True)
    child = subprocess.Popen(command)
    while child.poll() is None:
        sample(seen)
        time.sleep(1.0)
    seconds, processes = Counter[str](), Counter[str]()
    for kind, first, last in seen.values():
        if last > first:
            seconds[kind] += (last - first) / HZ
            processes[kind] += 1
    lines = [f"{s:9.1f} s  {processes[k]:5d} processes  {k}" for k, s in seconds.most_common()]
    report = "\n".join(lines) + "\n"
    with open(out, "w") as fh:
        fh.write(report)
    print(report, end="")
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
