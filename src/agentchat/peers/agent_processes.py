"""The processes of the agents on this machine: every Hermes Bridge and all its descendants.

An agent given `terminal`, `code_execution` or `browser` runs programs as the bridge's user,
which is the user the API runs as when `serve` started the bridge. Those programs pass the
own-user guard and could answer the agent's own dangerous-command approval through the API or
the bridge. So both refuse a connection whose client socket a bridge's process holds.

- A bridge is a process running `agentchat bridge` (its command line, which its descendants
  cannot change). It makes itself a child subreaper (bridge/guards/own_processes.py), so a
  program of the agent's that detaches (`nohup … &`, `setsid`, a double fork) is adopted by the
  bridge and stays its descendant.
- Descendants are read from /proc/<pid>/task/<tid>/children (the whole /proc/*/stat where the
  kernel has no such file); the holder of a socket from /proc/<pid>/fd.
- A process of the agent's whose descriptors this user may not read although it runs as the
  socket's user made itself undumpable to hide: it is taken for the holder (every local
  request is refused while it lives, which the log says). A program of another user's (a
  setuid one) owns no socket of this user.

An agent that kills its own bridge leaves its programs to init: they are no longer known. That
ends the turn, and with it the approval it waited for; SECURITY.md says what else such an
agent can do.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from agentchat.peers.socket_owner import Holder

log = logging.getLogger(__name__)

PROC = Path("/proc")
RESCAN_S = 2.0  # how long a list of the machine's bridges is believed


def is_bridge_command(words: list[bytes]) -> bool:
    """`agentchat bridge …` however started: `python -m agentchat.cli bridge`, or the
    `agentchat` script (`/opt/agentchat/bin/python /opt/agentchat/bin/agentchat bridge`)."""
    for word, following in itertools.pairwise(words):
        if following == b"bridge" and (
            word == b"agentchat.cli" or os.path.basename(word) == b"agentchat"
        ):
            return True
    return False


def command_of(pid: int) -> list[bytes]:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def bridge_pids() -> list[int]:
    """Every process of this machine (this pid namespace) that runs `agentchat bridge`."""
    return [pid for pid in _pids() if is_bridge_command(command_of(pid))]


def descendants(roots: Iterable[int]) -> set[int]:
    """`roots` and every process below them."""
    try:
        return _walk(roots, children)
    except _NoChildrenFiles:
        parents = _parents()
        return _walk(roots, lambda pid: [c for c, p in parents.items() if p == pid])


def holds(pids: Iterable[int], holder: Holder) -> bool:
    """Whether one of `pids` holds the socket `holder`, or hides its descriptors although it
    runs as the socket's user."""
    target = f"socket:[{holder.inode}]"
    for pid in pids:
        folder = PROC / str(pid) / "fd"
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            continue  # it ended
        except PermissionError:
            if _uid(pid) == holder.uid:
                log.warning("process %d of an agent hides its open files: taken as holder", pid)
                return True
            continue
        for name in names:
            try:
                if os.readlink(folder / name) == target:
                    return True
            except OSError:
                continue
    return False


class AgentProcesses:
    """Is a local socket held by a process of an agent? `bridges` finds the roots (this
    machine's bridges, looked for again after `rescan_s`)."""

    def __init__(
        self,
        bridges: Callable[[], list[int]] = bridge_pids,
        rescan_s: float = RESCAN_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._bridges = bridges
        self._rescan_s = rescan_s
        self._clock = clock
        self._known: list[int] = []
        self._scanned_at: float | None = None
        self._lock = threading.Lock()

    def roots(self) -> list[int]:
        with self._lock:
            now = self._clock()
            if self._scanned_at is None or now - self._scanned_at >= self._rescan_s:
                self._known, self._scanned_at = self._bridges(), now
            return list(self._known)

    def hold(self, holder: Holder) -> bool:
        roots = self.roots()
        return bool(roots) and holds(descendants(roots), holder)

    def include(self, pid: int) -> bool:
        """Whether process `pid` is a bridge or one of its descendants."""
        roots = self.roots()
        return bool(roots) and pid in descendants(roots)


class _NoChildrenFiles(OSError):
    """This kernel keeps no /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN)."""


def _walk(roots: Iterable[int], children: Callable[[int], list[int]]) -> set[int]:
    found: set[int] = set()
    waiting = [pid for pid in roots if (PROC / str(pid)).exists()]
    while waiting:
        pid = waiting.pop()
        if pid not in found:
            found.add(pid)
            waiting.extend(children(pid))
    return found


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (an OSError where the kernel does not say)."""
    try:
        threads = os.listdir(PROC / str(pid) / "task")
    except OSError:
        return []  # it ended
    kids: list[int] = []
    for tid in threads:
        path = PROC / str(pid) / "task" / tid / "children"
        try:
            kids.extend(int(word) for word in path.read_bytes().split())
        except FileNotFoundError:
            if not path.parent.exists():
                continue  # the thread ended
            raise _NoChildrenFiles(path) from None
    return kids


def _parents() -> dict[int, int]:
    parents = {}
    for pid in _pids():
        try:
            stat = (PROC / str(pid) / "stat").read_bytes()
        except OSError:
            continue
        parents[pid] = int(stat.rsplit(b")", 1)[1].split()[1])
    return parents


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir(PROC) if name.isdigit()]
    except OSError:
        return []


def _uid(pid: int) -> int | None:
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("Uid:"):
                return int(line.split()[2])  # effective
    except (OSError, ValueError, IndexError):
        pass
    return None
