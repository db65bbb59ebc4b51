"""Database engine, sessions and the column types that differ per dialect."""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import (
    BigInteger,
    DateTime,
    Integer,
    MetaData,
    Text,
    create_engine,
    event,
    make_url,
    text,
)
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Engine
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from agentchat.core.database.deferred_job import Scrubber
from agentchat.core.database.file_check import SqliteFileGuard
from agentchat.core.database.free_space import check_room
from agentchat.core.database.packed_text import register_sqlite_functions
from agentchat.core.database.sqlite_upkeep import merge_and_shrink, truncate_wal, tune
from agentchat.private_files import private_file
from agentchat.protocol.errors import DatabaseUnavailable

# BIGINT ids that still autoincrement on SQLite (which only does so for INTEGER PRIMARY KEY).
BigId = BigInteger().with_variant(Integer(), "sqlite")
# Table options of a table whose ids are never given twice: SQLite otherwise gives a deleted
# newest row's id to the next one (migration 0009); other databases never do.
NEVER_REUSED = {"sqlite_autoincrement": True}
# Millisecond timestamps on MariaDB, whose DATETIME drops fractions by default.
Timestamp = DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
# Long text: MariaDB's TEXT stops at 64 KiB, which one tool result can exceed.
LongText = Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # The driver's own deferred BEGIN is turned off: see SqliteWriteLock.
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    tune(cur)
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()
    register_sqlite_functions(dbapi_conn)


class SqliteWriteLock:
    """One write transaction at a time per process, queued on a lock instead of SQLite's busy
    polling: with many request threads the polling starves some of them past busy_timeout.
    Every transaction begins IMMEDIATE (a deferred one that reads then writes cannot wait
    for a writer at all: SQLite answers "database is locked" at once)."""

    HELD = "agentchat_write_lock"
    TIMEOUT_S = 30.0

    def __init__(self) -> None:
        self._lock = threading.Lock()  # released by whichever thread ends the transaction

    def begin(self, conn: Any) -> None:
        if not self._lock.acquire(timeout=self.TIMEOUT_S):
            raise TimeoutError("the database is busy; try again")
        conn.info[self.HELD] = True
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            self.end(conn)
            raise

    def held(self) -> bool:
        """Whether some transaction of this process holds the write slot now."""
        return self._lock.locked()

    def run(self, work: Callable[[], None]) -> None:
        """`work` holding the write slot (for statements that open their own transaction)."""
        if not self._lock.acquire(timeout=self.TIMEOUT_S):
            raise TimeoutError("the database is busy; try again")
        try:
            work()
        finally:
            self._lock.release()

    def end(self, conn: Any, *_: Any) -> None:
        if conn.info.pop(self.HELD, False):
            self._lock.release()

    def install(self, engine: Engine) -> None:
        event.listen(engine, "begin", self.begin)
        event.listen(engine, "commit", self.end)
        event.listen(engine, "rollback", self.end)
        event.listen(engine.pool, "reset", self._on_reset)
        event.listen(engine.pool, "invalidate", self._on_invalidate)

    def _on_reset(self, _dbapi: Any, record: Any, _state: Any) -> None:
        self.end(record)

    def _on_invalidate(self, _dbapi: Any, record: Any, _exc: Any) -> None:
        self.end(record)


_WRITE_LOCKS: weakref.WeakKeyDictionary[Engine, SqliteWriteLock] = weakref.WeakKeyDictionary()
_SCRUBBERS: weakref.WeakKeyDictionary[Engine, Scrubber] = weakref.WeakKeyDictionary()


def write_slot_held(engine: Engine) -> bool:
    """Whether a write transaction holds the SQLite write slot (never, on other databases)."""
    lock = _WRITE_LOCKS.get(engine)
    return lock is not None and lock.held()


def scrub_after_commit(session: Session) -> None:
    """Rows were deleted in this session: once it commits, an SQLite file drops their words
    and gives their pages back (`Database.scrub`, on a thread, shortly after). Other databases
    reclaim space themselves (autovacuum, InnoDB purge)."""
    scrubber = _SCRUBBERS.get(session.get_bind())  # type: ignore[arg-type]
    if scrubber is not None:
        event.listen(session, "after_commit", lambda _s: scrubber.request(), once=True)


def _mysql_recursion(dbapi_conn: Any, _record: Any) -> None:
    """Deep branches: MariaDB stops recursive CTEs at 1,000 levels unless told otherwise."""
    cur = dbapi_conn.cursor()
    cur.execute("SELECT VERSION()")
    mariadb = "mariadb" in str(cur.fetchone()[0]).lower()
    var = "max_recursive_iterations" if mariadb else "cte_max_recursion_depth"
    cur.execute(f"SET SESSION {var} = 4294967295")
    cur.close()


def sqlite_file(url: str) -> str | None:
    """The file of an SQLite URL; None for other databases and in-memory SQLite."""
    if not url.startswith("sqlite"):
        return None
    path = make_url(url).database  # None for "sqlite://", the in-memory database
    return path if path and path != ":memory:" and not path.startswith("file:") else None


def _lock_timeout(dialect: str, seconds: float) -> Callable[[Any, Any], None]:
    """A connect hook: wait at most `seconds` for a lock another client holds (PostgreSQL
    waits for ever by default, MariaDB a day for a table lock), then fail with the error
    `is_lock_timeout` knows."""
    ms = max(1, round(seconds * 1000))
    if dialect == "postgresql":
        statements = [f"SET lock_timeout = {ms}"]
    else:
        whole = max(1, round(seconds))
        statements = [
            f"SET SESSION lock_wait_timeout = {whole}",
            f"SET SESSION innodb_lock_wait_timeout = {whole}",
        ]

    def on_connect(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        for statement in statements:
            cur.execute(statement)
        cur.close()
        dbapi_conn.commit()  # PostgreSQL: a SET in a transaction rolled back would not stay

    return on_connect


def is_lock_timeout(exc: BaseException) -> bool:
    """Whether a driver error is a lock wait that ran out (PostgreSQL 55P03, MariaDB 1205,
    SQLite's busy timeout)."""
    orig = getattr(exc, "orig", exc)
    if getattr(orig, "sqlstate", None) == "55P03":
        return True
    if type(orig).__module__.startswith("pymysql") and orig.args and orig.args[0] == 1205:
        return True
    return isinstance(orig, sqlite3.OperationalError) and "database is locked" in str(orig)


def make_engine(url: str, lock_timeout_s: float | None = None, **kwargs: Any) -> Engine:
    """An engine with the per-dialect settings the app relies on; `lock_timeout_s` bounds a
    wait for another client's lock (PostgreSQL, MariaDB; SQLite has its busy timeout)."""
    if url.startswith("sqlite"):
        on_disk = sqlite_file(url)
        if on_disk:
            private_file(Path(on_disk))  # chats, memory, encrypted keys: 0600
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 10}, **kwargs
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        if on_disk:
            SqliteFileGuard(on_disk).install(engine)  # before the write lock
        lock = SqliteWriteLock()
        lock.install(engine)
        _WRITE_LOCKS[engine] = lock
        return engine
    if url.startswith("mysql") or url.startswith("mariadb"):
        kwargs.setdefault("pool_recycle", 3600)
        kwargs.setdefault("isolation_level", "READ COMMITTED")
        kwargs.setdefault("pool_pre_ping", True)
        engine = create_engine(url, pool_size=20, max_overflow=20, **kwargs)
        event.listen(engine, "connect", _mysql_recursion)
        if lock_timeout_s is not None:
            event.listen(engine, "connect", _lock_timeout("mysql", lock_timeout_s))
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    kwargs.setdefault("pool_size", 20)
    kwargs.setdefault("max_overflow", 20)
    engine = create_engine(url, **kwargs)
    if lock_timeout_s is not None and engine.dialect.name == "postgresql":
        event.listen(engine, "connect", _lock_timeout("postgresql", lock_timeout_s))
    return engine


class Database:
    """Owns the engine and hands out short-lived sessions."""

    def __init__(self, url: str, lock_timeout_s: float | None = None, **engine_kwargs: Any) -> None:
        self.url = url
        self.file = sqlite_file(url)
        self.engine = make_engine(url, lock_timeout_s, **engine_kwargs)
        self.sessionmaker = sessionmaker(self.engine, expire_on_commit=False)
        self.scrubber = Scrubber(self.scrub) if self.file else None
        if self.scrubber is not None:
            _SCRUBBERS[self.engine] = self.scrubber

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: commit on success, roll back on error."""
        session = self.sessionmaker()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def check(self) -> None:
        """A trivial query through the engine (the SQLite file guard runs with it) and, for an
        SQLite file, room on its disk; raises DatabaseUnavailable when the database cannot
        answer or cannot store a write."""
        if self.file:
            check_room(self.file)
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except DatabaseUnavailable:
            raise
        except (OperationalError, InterfaceError) as exc:
            raise DatabaseUnavailable(f"the database does not answer: {exc.orig}") from exc

    def scrub(self) -> bool:
        """SQLite file: merge the search index, give free pages back, truncate the WAL
        (`sqlite_upkeep`). False when a reader kept the WAL (the scrubber tries again)."""
        raw = self.engine.raw_connection()
        try:
            conn = raw.driver_connection
            assert isinstance(conn, sqlite3.Connection)
            _WRITE_LOCKS[self.engine].run(lambda: merge_and_shrink(conn))
            return truncate_wal(conn)
        finally:
            raw.close()

    def dispose(self) -> None:
        if self.scrubber is not None:
            self.scrubber.close()  # a scrub still due runs first
        self.engine.dispose()
