"""Folders and files only this user may read: the data folder and the SQLite database hold
chats, memory and encrypted keys."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path


def private_dir(path: Path) -> None:
    """Create `path` (and parents) as 0700; a folder we create ourselves is tightened too."""
    existed = path.exists()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not existed:
        with contextlib.suppress(OSError):
            path.chmod(0o700)  # mkdir's mode is masked by the umask


def private_file(path: Path) -> None:
    """Create `path` empty as 0600 unless it exists; an existing one is tightened to 0600."""
    private_dir(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)


# What Agent Chat keeps in its data folder.
DATA_ENTRIES = (
    "agentchat.db",
    "agentchat.db-wal",
    "agentchat.db-shm",
    "agentchat.db.migrate-lock",
    "secret.key",
    "bridge.json",
    "bridge.lock",
    "demo-model.port",
    "skills",
    "logs",
    "run-owners",
    "hermes-home",
)
HERMES_HOME = "hermes-home"


def private_data_dir(path: Path) -> None:
    """The data folder and what Agent Chat keeps there, private (folders 0700, files 0600),
    however they were made before: by hand (`mkdir data`, 0755) or an older version. The
    folder itself is tightened only when it is this user's and not a shared one (sticky, like
    /tmp): there the other files are someone else's."""
    private_dir(path)
    info = path.stat()
    if info.st_uid == os.getuid() and not info.st_mode & stat.S_ISVTX:
        _tighten(path)
    for name in DATA_ENTRIES:
        _tighten(path / name)
    home = path / HERMES_HOME
    if home.is_dir() and not home.is_symlink():
        for entry in home.iterdir():
            _tighten(entry)


def _tighten(path: Path) -> None:
    """Take group and other rights off `path` (not through a link), if it is there."""
    with contextlib.suppress(OSError):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid():
            return
        mode = stat.S_IMODE(info.st_mode)
        if mode & 0o077:
            path.chmod(mode & ~0o077)
