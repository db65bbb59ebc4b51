"""Which API process drives a run, without Redis: processes on one machine that share a data
folder (two `serve` on it, an old one still draining while a new one starts) each hold an
exclusive lock (flock) on a file per run they drive, `DATA_DIR/run-owners/<runId>.lock`. The
kernel drops the lock when the process ends, however it ends: no heartbeat, no expiry. A
RUNNING answer whose file no process holds lost its process, and the sweeper re-attaches or
ends it; one whose file another process holds is left to that process (it used to be taken
over too: two drivers, every log line stored twice)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import socket
import uuid
from pathlib import Path

from agentchat.private_files import private_dir

_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")


class FileRunOwners:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        private_dir(folder)
        self._held: dict[str, int] = {}
        self.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def _path(self, run_id: str) -> Path:
        if not _RUN_ID.fullmatch(run_id):
            raise ValueError(f"not a run id: {run_id!r}")
        return self.folder / f"{run_id}.lock"

    def _lock(self, run_id: str) -> int | None:
        """An open file holding the run's lock, or None when another process holds it."""
        fd = os.open(self._path(run_id), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    async def claim(self, run_id: str) -> None:
        """Take a new run before its RUNNING row is committed."""
        if run_id not in self._held:
            fd = self._lock(run_id)
            if fd is None:
                raise RuntimeError(f"run {run_id} is already driven by another process")
            self._held[run_id] = fd

    async def adopt(self, run_id: str) -> bool:
        """Take a run whose process ended; False when another process holds it."""
        if run_id in self._held:
            return True
        fd = self._lock(run_id)
        if fd is None:
            return False
        self._held[run_id] = fd
        return True

    async def place(self, run_id: str, bridge_url: str) -> None:
        """Nothing to record: the processes on one data folder share its bridges."""

    async def bridges_of(self, run_ids: list[str]) -> dict[str, str] | None:
        return None

    async def release(self, run_id: str) -> None:
        fd = self._held.pop(run_id, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                self._path(run_id).unlink()
            os.close(fd)

    async def heartbeat(self) -> None:
        """Nothing to refresh: a lock lasts as long as its process."""

    async def alive(self, run_ids: list[str]) -> set[str]:
        """The runs among `run_ids` that a live process (this one or another) drives."""
        return {r for r in run_ids if r in self._held or self._held_elsewhere(r)}

    def _held_elsewhere(self, run_id: str) -> bool:
        if not self._path(run_id).exists():
            return False
        fd = self._lock(run_id)
        if fd is None:
            return True
        os.close(fd)  # nobody holds it: its process ended (the file stays for the adopter)
        return False

    async def aclose(self) -> None:
        for run_id in list(self._held):
            await self.release(run_id)
