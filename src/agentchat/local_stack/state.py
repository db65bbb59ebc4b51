"""`DATA_DIR/bridge.json`: where the local bridge runs, so a restarted `serve` finds it and
re-uses it instead of starting a second one. Written atomically, readable by this user only
(it holds the bridge's secret). `DATA_DIR/bridge.lock` serialises the deciding between the
`serve` processes of one data folder."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

STATE_FILE = "bridge.json"
LOCK_FILE = "bridge.lock"


@dataclass(frozen=True)
class BridgeState:
    url: str
    pid: int
    secret: str
    hermes_home: str
    started_at: str
    config: str  # fingerprint of what the bridge was started with (version, settings)


def read_state(data_dir: Path) -> BridgeState | None:
    """The recorded bridge, or None when there is none or the file is unreadable."""
    try:
        raw = json.loads((data_dir / STATE_FILE).read_text(encoding="utf-8"))
        return BridgeState(**raw)
    except (OSError, ValueError, TypeError):
        return None


def write_state(data_dir: Path, state: BridgeState) -> None:
    """Replace the state file in one step (a reader never sees half of it), mode 0600."""
    fd, tmp = tempfile.mkstemp(prefix=".bridge-", suffix=".json", dir=data_dir)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:  # mkstemp creates it 0600
            json.dump(asdict(state), out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, data_dir / STATE_FILE)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def deciding(data_dir: Path) -> Iterator[None]:
    """Hold the data folder's bridge lock: one `serve` at a time reads the state, starts a
    bridge if needed and writes the state."""
    fd = os.open(data_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
