"""What keeps an SQLite data folder from growing for ever and from keeping deleted chats.

Left to its defaults SQLite never gives a page back to the disk (deleting hundreds of chats
shrinks nothing), a WAL file stays as large as the longest reader ever let it grow, and the
words of a deleted chat stay on disk: in the FTS5 index (a 'delete' only adds a tombstone
segment; the tokens stay until their segment is merged), in freed pages (unless secure_delete
is on, which is a build default on some systems only) and in WAL frames no checkpoint has
overwritten yet.

So every connection turns on `secure_delete` (freed content is zeroed), incremental
auto-vacuum (a new file; an older one is converted once at start, `make_incremental`) and a
WAL size limit; and after chats are deleted `merge_and_shrink` merges the search index and
gives the free pages back, and `truncate_wal` empties the WAL.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

# The WAL is checkpointed at 1,000 pages (~4 MiB); a larger one is cut back to this size
# after its next checkpoint.
WAL_LIMIT_BYTES = 4 * 1024 * 1024
INCREMENTAL = 2  # PRAGMA auto_vacuum's value for INCREMENTAL
CHECKPOINT_WAIT_MS = 200
FTS_TABLE = "chat_message_fts"

# Before journal_mode: auto_vacuum only takes on a file that holds no table yet.
CONNECT_PRAGMAS = (
    "PRAGMA auto_vacuum=INCREMENTAL",
    "PRAGMA secure_delete=ON",
    f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}",
)
# executescript steps each statement to its end: `PRAGMA incremental_vacuum` frees one page
# per step, so a plain execute() would free one page only.
_MERGE_AND_SHRINK = (
    f"BEGIN IMMEDIATE; INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('optimize'); "
    "PRAGMA incremental_vacuum; COMMIT;"
)
_SHRINK = "BEGIN IMMEDIATE; PRAGMA incremental_vacuum; COMMIT;"


def tune(cursor: Any) -> None:
    """The upkeep pragmas, on a new connection."""
    for pragma in CONNECT_PRAGMAS:
        cursor.execute(pragma)


def merge_and_shrink(conn: sqlite3.Connection) -> None:
    """After rows were deleted, on a driver connection outside any transaction, holding the
    process's write slot: rewrite the search index without the deleted rows' tokens and give
    the free pages back to the disk."""
    indexed = conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (FTS_TABLE,)).fetchone()
    conn.executescript(_MERGE_AND_SHRINK if indexed else _SHRINK)


def truncate_wal(conn: sqlite3.Connection) -> bool:
    """Copy the WAL into the file and truncate it; False when a reader kept it (try later).
    While it waits for readers no writer may start, so it waits briefly: an operator's shell
    left in a transaction must not hold the answers being written."""
    usual = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute(f"PRAGMA busy_timeout={CHECKPOINT_WAIT_MS}")
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.execute(f"PRAGMA busy_timeout={int(usual)}")
    return int(busy) == 0


def make_incremental(path: str, say: Callable[[str], object]) -> None:
    """Convert an SQLite file made before incremental auto-vacuum (once: a VACUUM, which needs
    about twice the file's size free on its disk; without that room it is left as it is)."""
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] == INCREMENTAL:
            return
        size = Path(path).stat().st_size
        if shutil.disk_usage(Path(path).parent).free < 2 * size + WAL_LIMIT_BYTES:
            say(f"not enough free disk to let {path} give deleted chats' space back; later")
            return
        say(f"converting {path} ({size // 2**20} MiB) to give deleted chats' space back (once)")
        try:
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            conn.execute("VACUUM")
            truncate_wal(conn)
        except sqlite3.OperationalError as exc:  # another process is writing: at a later start
            say(f"could not convert {path} now ({exc}); it is tried again at the next start")
