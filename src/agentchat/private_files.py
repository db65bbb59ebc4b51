"""Folders and files only this user may read: the data folder and the SQLite database hold
chats, memory and encrypted keys."""

from __future__ import annotations

import contextlib
import os
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
