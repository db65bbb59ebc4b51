"""One bridge per hermes home: two bridges on one home would share memory files, config.yaml
and workspaces under each other's feet. The lock is an exclusive `flock` on
`HERMES_HOME/.agentchat-bridge.lock`, held for the life of the process (the kernel releases it
when the process ends, however it ends); the file holds the holder's pid for the message."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = ".agentchat-bridge.lock"
_held: list[int] = []  # the open descriptor: closing it would release the lock


class HomeTaken(Exception):
    def __init__(self, home: Path, pid: str) -> None:
        super().__init__(f"hermes home {home} is already served by the bridge with pid {pid}")


def hold_home(home: Path) -> None:
    """Take the home's lock for this process, or raise `HomeTaken` naming the holder."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        raise HomeTaken(home, holder) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _held.append(fd)
