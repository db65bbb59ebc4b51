"""Room for an SQLite database to grow. With the disk full, `SELECT 1` still answers but no
write can be stored, so health checks the free space of the folder that holds the file."""

from __future__ import annotations

import os

from agentchat.protocol.errors import DatabaseUnavailable

# A few WAL frames and pages: below this, the next commit of any size may not fit.
MIN_FREE_BYTES = 256 * 1024


def check_room(path: str, min_free: int = MIN_FREE_BYTES) -> None:
    """Raise DatabaseUnavailable when the disk holding `path` has less than `min_free` bytes
    left for this process."""
    try:
        stat = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return  # a folder that is gone is the file guard's to report
    free = stat.f_bavail * stat.f_frsize
    if free < min_free:
        raise DatabaseUnavailable(
            f"the disk holding the database is full ({free // 1024} KiB free): "
            "answers cannot be stored"
        )
