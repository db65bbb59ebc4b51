"""The local bridge's log files kept small: `DATA_DIR/logs/bridge.out` (its output) and
`HERMES_HOME/logs/bridge.log` (its log lines) grew for ever. Every `check_s` seconds
(AGENTCHAT_LOG_CHECK_S, default CHECK_S) a file past `max_bytes` is copied to `<name>.1` (older
copies move up to `<name>.KEPT`, the oldest goes) and emptied in place: the bridge, which
outlives the API, keeps writing to the same open file (opened for appending, so it writes at the
new end). Lines written between the copy and the emptying are lost (logrotate's copytruncate
does the same)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

log = logging.getLogger(__name__)

KEPT = 3
CHECK_S = 5.0


def trim(path: Path, max_bytes: int, kept: int = KEPT) -> bool:
    """Copy `path` aside and empty it when it is larger than `max_bytes`; whether it did."""
    try:
        if path.stat().st_size <= max_bytes:
            return False
    except FileNotFoundError:
        return False
    for n in range(kept - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            os.replace(older, path.with_name(f"{path.name}.{n + 1}"))
    shutil.copyfile(path, path.with_name(f"{path.name}.1"))
    os.truncate(path, 0)
    return True


class LogTrimmer:
    """A daemon thread that trims `paths` every `check_s` seconds until stopped."""

    def __init__(self, paths: Sequence[Path], max_bytes: int, check_s: float = CHECK_S) -> None:
        self._paths = list(paths)
        self._max_bytes = max_bytes
        self._check_s = check_s
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="log-trimmer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def _run(self) -> None:
        while not self._stopped.wait(self._check_s):
            for path in self._paths:
                with contextlib.suppress(OSError):
                    if trim(path, self._max_bytes):
                        log.info(
                            "%s passed %d bytes: copied to %s.1", path, self._max_bytes, path.name
                        )
