"""The programs the agent starts stay known as the agent's, and see no other process's secrets.

- The bridge is a child subreaper (Linux): a program of the agent's that detaches (`nohup … &`,
  `setsid`, a double fork) is adopted by the bridge instead of init, so it stays below the
  bridge, where the API and the bridge look for the agent's processes (peers.agent_processes)
  to refuse their connections. The adopted ones are reaped here when they end; children that
  the bridge started itself (hermes' commands, MCP servers) are left to whoever waits for them.
- A bridge running as root takes from every program it starts the capabilities that read an
  undumpable process's memory and environment (CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON:
  each alone does, as measured on Linux 6.18): `serve` makes itself undumpable so that its
  environment (the API token, the database password) cannot be read from
  /proc/<pid>/environ.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import gc
import logging
import multiprocessing
import os
import subprocess
import sys
import threading
import time

from agentchat.peers.agent_processes import PROC, children

log = logging.getLogger(__name__)

PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON = 19, 21, 38
REAP_EVERY_S = 1.0


def keep_the_agents_programs() -> None:
    """Adopt what the agent's programs leave behind, and reap it (Linux; elsewhere nothing)."""
    if not sys.platform.startswith("linux") or not _prctl(PR_SET_CHILD_SUBREAPER, 1):
        log.warning("the bridge could not become a subreaper: detached programs escape it")
        return
    threading.Thread(target=_reap_forever, name="bridge-reaper", daemon=True).start()


def no_ptrace_for_programs() -> None:
    """As root: the programs this process starts (it stays as it is) hold none of the
    capabilities that read another process's memory (dropped from its bounding set)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return
    for capability in (CAP_SYS_PTRACE, CAP_SYS_ADMIN, CAP_PERFMON):
        if not _prctl(PR_CAPBSET_DROP, capability):
            log.warning("the bridge runs as root and could not drop capability %d", capability)


def _prctl(option: int, value: int) -> bool:
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return int(libc.prctl(option, value, 0, 0, 0)) == 0


def _reap_forever() -> None:
    reaper = Reaper()
    while True:
        time.sleep(REAP_EVERY_S)
        try:
            reaper.reap()
        except Exception:  # the reaper must outlive a surprise
            log.exception("reaping adopted programs failed")


class Reaper:
    """Reaps the ended children nobody waits for: ended at two looks in a row, and not a child
    this process started (a live Popen or multiprocessing child, which its owner waits for)."""

    def __init__(self) -> None:
        self._ended_before: set[int] = set()
        self._spared: set[int] = set()  # ended, but someone here waits for them

    def reap(self) -> list[int]:
        try:
            ended = {pid for pid in children(os.getpid()) if _ended(pid)}
        except OSError:
            return []  # no /proc children files: nothing found to reap
        self._spared &= ended
        candidates = (ended & self._ended_before) - self._spared
        self._ended_before = ended
        if candidates:
            waited = _waited_for()
            self._spared |= candidates & waited
            candidates -= waited
        for pid in candidates:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
        return sorted(candidates)


def _ended(pid: int) -> bool:
    try:
        stat = (PROC / str(pid) / "stat").read_bytes()
    except OSError:
        return False
    return stat.rsplit(b")", 1)[1].split()[0] == b"Z"


def _waited_for() -> set[int]:
    """The pids of the children this process started and still means to wait for."""
    pids = {p.pid for p in gc.get_objects() if isinstance(p, subprocess.Popen)}
    pids |= {int(p.pid) for p in multiprocessing.active_children() if p.pid}
    return pids
