"""An upload streams: storing a file holds a few pieces of it, never the file, and not even
two chunks (issue 30: peak growth at most twice the chunk size). Measured exactly: Python's
allocations (tracemalloc) and SQLite's own (sqlite3_memory_highwater) above what they held
before, while `AttachmentService.upload` stores a text file fed as the server hands a body."""

from __future__ import annotations

import _sqlite3
import ctypes
import tracemalloc
from collections.abc import AsyncIterator

from agentchat.attachments.service import AttachmentService
from agentchat.attachments.tables import CHUNK_BYTES
from agentchat.chat.schemas import SessionCreate
from agentchat.chat.sessions import create_session
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.attachments.conftest import stored_counts

PIECE = 64 * 1024
MB = 1024 * 1024


def _text(size: int, mark: int) -> bytes:
    line = b"2026-12-03 10:00:00 INFO a line of a long server log, numbered %08d\n"
    out = bytearray()
    i = mark * 1_000_000
    while len(out) < size:
        out += line % i
        i += 1
    return bytes(out[:size])


async def _pieces(data: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(data), PIECE):
        yield data[start : start + PIECE]


def _sqlite_memory() -> tuple[ctypes._CFunctionType, ctypes._CFunctionType]:  # type: ignore[name-defined]
    lib = ctypes.CDLL(_sqlite3.__file__)
    highwater, used = lib.sqlite3_memory_highwater, lib.sqlite3_memory_used
    highwater.restype, highwater.argtypes = ctypes.c_int64, [ctypes.c_int]
    used.restype = ctypes.c_int64
    return highwater, used


async def test_storing_a_large_file_allocates_less_than_two_chunks(
    database: Database, settings: Settings
) -> None:
    with database.session() as db:
        chat = create_session(db, SessionCreate()).id
    service = AttachmentService(database, settings)
    highwater, used = _sqlite_memory()
    await service.upload(chat, "warm-up.log", _pieces(_text(2 * MB, 0)))  # statement caches
    data = _text(12 * MB + 12345, 1)  # held by the test, before the measuring starts
    tracemalloc.start()
    try:
        python_before = tracemalloc.get_traced_memory()[0]
        highwater(1)
        sqlite_before = used()
        stored = await service.upload(chat, "server.log", _pieces(data))
        python = tracemalloc.get_traced_memory()[1] - python_before
        sqlite = highwater(0) - sqlite_before
    finally:
        tracemalloc.stop()

    assert stored.size == len(data)
    assert python + sqlite <= 2 * CHUNK_BYTES, (python // 1024, sqlite // 1024)
    assert stored_counts(database)[2] == -(-2 * MB // CHUNK_BYTES) + -(-len(data) // CHUNK_BYTES)
