"""Long texts stored deflated on SQLite, which compresses nothing itself.

PostgreSQL compresses a value past about 2 KB (TOAST) and MariaDB's chat tables are
ROW_FORMAT=COMPRESSED; SQLite stores every character as it came. A `PackedText` column keeps
its text as it is on those databases and, on SQLite, stores a text of `MIN_BYTES` or more as
a BLOB: one format byte, then raw deflate, when that is at most `MAX_RATIO` of its UTF-8.
A TEXT value is always read as it is, so rows written before (or short ones) need no change.

SQL that needs the text itself on SQLite (the full-text index's triggers and view, a preview's
`substr`) reads it through the function `agentchat_text`, which every connection the app
makes registers (`register_sqlite_functions`); `readable(column)` writes that call on SQLite
and the bare column elsewhere. A plain `sqlite3` shell has no such function: a statement there
that writes chat messages fails with "no such function: agentchat_text", and reads show BLOBs.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Callable
from typing import Any

from sqlalchemy import Text
from sqlalchemy.dialects import mysql
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import TypeDecorator, TypeEngine

DEFLATE = b"\x01"  # the format byte: raw deflate (wbits -15) of the UTF-8 text
MIN_BYTES = 128
MAX_RATIO = 0.9
SQL_FUNCTION = "agentchat_text"


def pack(text: str) -> str | bytes:
    """`text` as SQLite stores it: deflated when that saves at least a tenth, else as it is."""
    if len(text) < MIN_BYTES // 4:  # under MIN_BYTES whatever its characters
        return text
    try:
        raw = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: the driver refuses it, as before
        return text
    if len(raw) < MIN_BYTES:
        return text
    deflater = zlib.compressobj(6, zlib.DEFLATED, -15)
    packed = DEFLATE + deflater.compress(raw) + deflater.flush()
    return packed if len(packed) <= len(raw) * MAX_RATIO else text


def unpack(value: str | bytes | None) -> str | None:
    """The text of a stored value (TEXT as it is; a BLOB of ours inflated)."""
    if value is None or isinstance(value, str):
        return value
    raw = bytes(value)
    if raw[:1] == DEFLATE:
        with contextlib.suppress(zlib.error):  # not ours after all: shown as its bytes
            raw = zlib.decompress(raw[1:], -15)
    return raw.decode("utf-8", "replace")


class PackedText(TypeDecorator[str]):
    """A text column deflated on SQLite (see the module). `keep_plain(text)` true keeps a
    text as it is, for one that SQL must read as it is (a LIKE over the column)."""

    impl = Text
    cache_ok = True

    def __init__(self, keep_plain: Callable[[str], bool] | None = None) -> None:
        super().__init__()
        self.keep_plain = keep_plain

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name in ("mysql", "mariadb"):  # TEXT stops at 64 KiB there
            return dialect.type_descriptor(mysql.LONGTEXT())
        return dialect.type_descriptor(Text())

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | bytes | None:
        if value is None or dialect.name != "sqlite":
            return value
        if self.keep_plain is not None and self.keep_plain(value):
            return value
        return pack(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> str | None:
        return unpack(value)


class readable(FunctionElement[str]):
    """The text of a PackedText column inside SQL: `agentchat_text(col)` on SQLite."""

    type = Text()
    inherit_cache = True
    name = "readable"


@compiles(readable)
def _readable_default(element: readable, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(readable, "sqlite")
def _readable_sqlite(element: readable, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{SQL_FUNCTION}({compiler.process(element.clauses, **kw)})"


def register_sqlite_functions(dbapi_conn: Any) -> None:
    """Give an SQLite connection `agentchat_text(value)`: the text of a stored value."""
    dbapi_conn.create_function(SQL_FUNCTION, 1, unpack, deterministic=True)
