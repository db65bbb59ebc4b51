"""The schema check every `agentchat serve` (and `agentchat migrate`) makes before it starts.

Migrations run under a lock shared by every process on the same database, so N processes
started together on an empty schema migrate it once: PostgreSQL an advisory lock per schema,
MySQL/MariaDB a named lock per database, SQLite an exclusive lock on a file beside the
database. Without migrating, a schema that is behind (or newer than this code) is refused with
one line that says what to do."""

from __future__ import annotations

import fcntl
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, make_url, text
from sqlalchemy.exc import DBAPIError, OperationalError

from agentchat.core.database import sqlite_file
from agentchat.core.database.sqlite_upkeep import make_incremental
from agentchat.migrations import alembic_config, upgrade
from agentchat.web.log_redact import mask_query

Say = Callable[[str], object]
LOCK_TIMEOUT_S = 600
_PG_LOCK_CLASS = 0x61676368  # "agch": our half of the two-int advisory lock key
_LOCK_TIMED_OUT = f"another process held the migration lock for {LOCK_TIMEOUT_S} s; try again"
_MYSQL_LOCK = "CONCAT('agentchat-migrate:', LEFT(SHA2(COALESCE(DATABASE(), ''), 256), 40))"


class SchemaProblem(Exception):
    """The schema cannot be used by this code as it is; the message says what to do."""


def head_revisions() -> set[str]:
    return set(ScriptDirectory.from_config(alembic_config("")).get_heads())


def current_revisions(connection: Connection) -> set[str]:
    return set(MigrationContext.configure(connection).get_current_heads())


def prepare_schema(url: str, *, migrate: bool, say: Say = print) -> None:
    """Bring the schema at `url` up to date under the migration lock (`migrate`), or check that
    it is. Raises SchemaProblem when it cannot be used; `say` reports what was done."""
    engine = _check_engine(url)
    try:
        _reachable(engine)
        _postgresql_fits(engine)
        if not migrate:
            _check(engine, migrate=False)
            return
        with migration_lock(engine, on_wait=say):
            if _check(engine, migrate=True):
                _upgrade(engine, url)
                say(f"database migrated to {', '.join(sorted(head_revisions()))}")
            if file := sqlite_file(url):
                make_incremental(file, say)
    finally:
        engine.dispose()


def _check_engine(url: str) -> Engine:
    """PostgreSQL: the client speaks UTF-8 whatever the database's encoding, so that even an
    SQL_ASCII database (whose text comes back as bytes) can be told what is wrong."""
    if make_url(url).get_backend_name() == "postgresql":
        return create_engine(url, connect_args={"client_encoding": "utf8"})
    return create_engine(url)


def _where(engine: Engine) -> str:
    """The database's URL as a start line may show it: no password, neither after the user nor
    in the query (psycopg and PyMySQL take `?password=`, psycopg `?sslpassword=`)."""
    return mask_query(engine.url.render_as_string(hide_password=True))


def _reachable(engine: Engine) -> None:
    try:
        with engine.connect():
            pass
    except DBAPIError as exc:
        where = _where(engine)
        reason = " ".join(str(exc.orig).split())  # psycopg's message spans lines
        raise SchemaProblem(f"cannot reach the database {where}: {reason}") from exc


def _postgresql_fits(engine: Engine) -> None:
    """PostgreSQL fixes a database's encoding when it is created: LATIN1 refused Chinese and
    emoji with 500s, SQL_ASCII hands text to psycopg as bytes (a crash at start). MariaDB's
    character set is converted by the migrations instead (0008). A search_path that names no
    existing schema made the migration lock wait on nothing, then fail with a traceback."""
    if engine.dialect.name != "postgresql":
        return
    where = _where(engine)
    with engine.connect() as conn:
        encoding = conn.execute(text("SHOW server_encoding")).scalar()
        schema = conn.execute(text("SELECT current_schema()")).scalar()
        search_path = conn.execute(text("SHOW search_path")).scalar()
    if encoding != "UTF8":
        raise SchemaProblem(
            f"the database {where} has the encoding {encoding}, which cannot hold every "
            "character: create it with ENCODING 'UTF8' TEMPLATE template0"
        )
    if schema is None:
        raise SchemaProblem(
            f"no schema of the search_path ({search_path}) exists in the database {where}: "
            "create it (CREATE SCHEMA ...) or correct the URL"
        )


def _upgrade(engine: Engine, url: str) -> None:
    """The migrations; a refusal of the database (rights, a missing schema) in one line."""
    try:
        upgrade(url)
    except DBAPIError as exc:
        where = _where(engine)
        kept = (
            "; MariaDB keeps what the migration did so far, and the next start carries on "
            "from there"
            if engine.dialect.name in ("mysql", "mariadb")
            else ""
        )
        raise SchemaProblem(
            f"could not migrate the database {where}: {_first_line(exc)} (the "
            "database user needs the right to create and alter tables there, or run "
            f"`agentchat migrate` once as a user who has it{kept})"
        ) from exc


def _first_line(exc: DBAPIError) -> str:
    return (str(exc.orig).strip().splitlines() or [type(exc.orig).__name__])[0]


def _check(engine: Engine, *, migrate: bool) -> bool:
    """True when migrations are due; raises SchemaProblem when they are due but not allowed,
    or when the database holds a revision this code does not know."""
    with engine.connect() as conn:
        current = current_revisions(conn)
    heads = head_revisions()
    if current == heads:
        return False
    if unknown := current - _known_revisions():
        raise SchemaProblem(
            f"the database schema ({', '.join(sorted(unknown))}) is newer than this agentchat "
            f"knows (up to {', '.join(sorted(heads))}): install the newer agentchat"
        )
    if not migrate:
        at = ", ".join(sorted(current)) or "empty"
        raise SchemaProblem(
            f"the database schema is behind (at {at}, this agentchat needs "
            f"{', '.join(sorted(heads))}): run `agentchat migrate`, or start without --no-migrate"
        )
    return True


def _known_revisions() -> set[str]:
    scripts = ScriptDirectory.from_config(alembic_config(""))
    return {script.revision for script in scripts.walk_revisions()}


@contextmanager
def migration_lock(engine: Engine, on_wait: Say | None = None) -> Iterator[None]:
    """Held by one process at a time per database (PostgreSQL: per schema). `on_wait` is
    called with a line when another process holds it."""
    dialect = engine.dialect.name
    if dialect == "postgresql":
        with _pg_lock(engine, on_wait):
            yield
    elif dialect in ("mysql", "mariadb"):
        with _mysql_lock(engine, on_wait):
            yield
    elif dialect == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        with _file_lock(Path(f"{engine.url.database}.migrate-lock"), on_wait):
            yield
    else:
        yield


def _waiting(on_wait: Say | None) -> None:
    if on_wait is not None:
        on_wait("waiting for another process to finish migrating the database")


@contextmanager
def _pg_lock(engine: Engine, on_wait: Say | None) -> Iterator[None]:
    key = {"cls": _PG_LOCK_CLASS}
    lock_args = "CAST(:cls AS integer), hashtext(current_schema())"
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if not conn.execute(text(f"SELECT pg_try_advisory_lock({lock_args})"), key).scalar():
            _waiting(on_wait)
            conn.execute(text(f"SET lock_timeout = '{LOCK_TIMEOUT_S}s'"))
            try:
                conn.execute(text(f"SELECT pg_advisory_lock({lock_args})"), key)
            except OperationalError as exc:
                raise SchemaProblem(_LOCK_TIMED_OUT) from exc
        try:
            yield
        finally:
            conn.execute(text(f"SELECT pg_advisory_unlock({lock_args})"), key)


@contextmanager
def _mysql_lock(engine: Engine, on_wait: Say | None) -> Iterator[None]:
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        if conn.execute(text(f"SELECT GET_LOCK({_MYSQL_LOCK}, 0)")).scalar() != 1:
            _waiting(on_wait)
            got = conn.execute(text(f"SELECT GET_LOCK({_MYSQL_LOCK}, {LOCK_TIMEOUT_S})"))
            if got.scalar() != 1:
                raise SchemaProblem(_LOCK_TIMED_OUT)
        try:
            yield
        finally:
            conn.execute(text(f"SELECT RELEASE_LOCK({_MYSQL_LOCK})"))


@contextmanager
def _file_lock(path: Path, on_wait: Say | None) -> Iterator[None]:
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _waiting(on_wait)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
