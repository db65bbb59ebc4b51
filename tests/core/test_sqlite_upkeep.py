"""SQLite upkeep: an older data folder (made before incremental auto-vacuum) is converted once
when `serve` prepares the schema, keeping every row; new files are made incremental, with
secure_delete and a WAL size limit on every connection; the scrubber runs its job once for a
burst of deletions, tries again while a reader holds the WAL, and runs a job still due when
the process stops."""

from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import closing
from pathlib import Path

from agentchat.core.database import Database
from agentchat.core.database.deferred_job import Scrubber
from agentchat.core.database.sqlite_upkeep import INCREMENTAL, WAL_LIMIT_BYTES
from agentchat.migrations.on_start import prepare_schema
from tests.reliability.helpers import wait_for


def _pragma(path: Path, name: str) -> int:
    with closing(sqlite3.connect(path)) as conn:
        return int(conn.execute(f"PRAGMA {name}").fetchone()[0])


def test_an_older_file_is_converted_once_at_start_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "agentchat.db"
    with closing(sqlite3.connect(path)) as old:  # as an earlier version left it
        old.execute("CREATE TABLE kept (word TEXT)")
        old.executemany("INSERT INTO kept VALUES (?)", [(f"word {i}",) for i in range(500)])
        old.commit()
    assert _pragma(path, "auto_vacuum") == 0
    said: list[str] = []

    prepare_schema(f"sqlite:///{path}", migrate=True, say=said.append)
    prepare_schema(f"sqlite:///{path}", migrate=True, say=said.append)

    assert _pragma(path, "auto_vacuum") == INCREMENTAL
    assert sum("converting" in line for line in said) == 1, said
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 500


def test_a_new_file_gives_pages_back_zeroes_them_and_limits_its_wal(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'new.db'}")
    try:
        with db.engine.connect() as conn:
            pragmas = {
                name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("auto_vacuum", "secure_delete", "journal_size_limit")
            }
        assert pragmas == {
            "auto_vacuum": INCREMENTAL,
            "secure_delete": 1,
            "journal_size_limit": WAL_LIMIT_BYTES,
        }
    finally:
        db.dispose()


def test_a_reader_left_open_delays_the_scrub_not_the_writes(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    db = Database(f"sqlite:///{path}")
    reader = sqlite3.connect(path, isolation_level=None)  # an operator's shell, left open
    try:
        with db.engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (x TEXT)")
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM t").fetchone()
        with db.engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t VALUES ('after the reader began')")

        started = time.monotonic()
        assert db.scrub() is False  # the WAL cannot be emptied under the reader
        assert time.monotonic() - started < 5.0  # not busy_timeout (10 s) of stalled writes

        reader.close()
        assert db.scrub() is True
        assert path.with_name("busy.db-wal").stat().st_size == 0
    finally:
        reader.close()
        db.dispose()


class Job:
    def __init__(self, results: list[bool]) -> None:
        self.results = results
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self) -> bool:
        with self.lock:
            self.calls += 1
            return self.results.pop(0) if self.results else True


def test_a_burst_of_requests_runs_the_job_once() -> None:
    job = Job([])
    scrubber = Scrubber(job, quiet_s=0.2)
    try:
        for _ in range(50):
            scrubber.request()
        wait_for(lambda: job.calls, lambda calls: calls >= 1, timeout=10, what="the job")
        scrubber.request()
        wait_for(lambda: job.calls, lambda calls: calls >= 2, timeout=10, what="the next job")
    finally:
        scrubber.close()
    assert job.calls == 2


def test_a_job_that_could_not_finish_is_tried_again(monkeypatch: object) -> None:
    import agentchat.core.database.deferred_job as scrub

    monkeypatch.setattr(scrub, "RETRY_S", 0.05)  # type: ignore[attr-defined]
    job = Job([False, False])
    scrubber = Scrubber(job, quiet_s=0.05)
    try:
        scrubber.request()
        wait_for(lambda: job.calls, lambda calls: calls == 3, timeout=10, what="two retries")
    finally:
        scrubber.close()


def test_a_job_still_due_runs_when_the_process_stops() -> None:
    job = Job([])
    scrubber = Scrubber(job, quiet_s=60)
    scrubber.request()
    scrubber.close()
    assert job.calls == 1
