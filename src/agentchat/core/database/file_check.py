"""The SQLite file the engine writes is the one on disk: a deleted or replaced file is noticed.

SQLite keeps writing into a file that was unlinked (its open handles still point at it), so
without this check a deleted database answers 201 to writes nobody will ever read back.

Its `-shm` file (the WAL index, mapped into memory by every connection) cut short by another
program killed the process with SIGBUS at the next touch of a page past the new end, without a
word. Each transaction first looks at its size: one smaller than seen before gets that size
back (zeros: SQLite finds no valid index and rebuilds it from the WAL), with a log line.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from agentchat.protocol.errors import DatabaseUnavailable

log = logging.getLogger(__name__)


class SqliteFileGuard:
    """Records the file's identity (device, inode) at the first connection; every transaction
    checks it is still the file at that path (one stat, a few microseconds)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._identity: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._shm = f"{path}-shm"
        self._shm_size = 0  # the largest size seen: what the connections may have mapped

    def install(self, engine: Engine) -> None:
        event.listen(engine, "connect", self._on_connect)
        event.listen(engine, "begin", self._on_begin)

    def check(self) -> None:
        """Raise DatabaseUnavailable when the file is gone or is another file than ours."""
        current = self._stat()
        with self._lock:
            expected = self._identity
        if current is None:
            raise DatabaseUnavailable(f"the database file {self.path} is missing")
        if expected is not None and current != expected:
            raise DatabaseUnavailable(f"the database file {self.path} was replaced")

    def _stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_dev, st.st_ino)

    def _on_connect(self, _dbapi: Any, _record: Any) -> None:
        with self._lock:
            if self._identity is None:
                self._identity = self._stat()

    def _on_begin(self, _conn: Any) -> None:
        self.check()
        self.check_shm()

    def check_shm(self) -> None:
        """Give the `-shm` file back the size it was cut from (see the module's docstring);
        DatabaseUnavailable when that cannot be done."""
        try:
            size = os.stat(self._shm).st_size
        except FileNotFoundError:
            return
        with self._lock:
            seen = self._shm_size
            if size >= seen:
                self._shm_size = size
                return
            try:
                os.truncate(self._shm, seen)
            except OSError as exc:
                raise DatabaseUnavailable(
                    f"the database's {self._shm} was cut to {size} bytes by another program "
                    f"and cannot be restored: {exc.strerror}"
                ) from exc
        log.error(
            "the database's %s was cut from %d to %d bytes by another program; its size is "
            "restored and SQLite rebuilds its index from the write-ahead log",
            self._shm,
            seen,
            size,
        )
