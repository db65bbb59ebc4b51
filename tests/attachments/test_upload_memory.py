"""An upload streams: storing a file holds a few pieces of it, never the file, and not even
two chunks (issue 30: peak growth at most twice the chunk size). Measured exactly: Python's
allocations (tracemalloc) and SQLite's own (sqlite3_memory_highwater) above what they held
before, while `AttachmentService.upload` stores a text file fed as the server hands a body."""

from __future__ import annotations

import _sqlite3
import ctypes
import json
import subprocess
import sys
import tracemalloc
from collections.abc import AsyncIterator
from pathlib import Path

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


async def _measure(url: str, data_dir: str) -> dict[str, int]:
    """The upload measured in a process of its own: SQLite's figures are the whole process's,
    and a test worker holds other tests' connections, caches and threads."""
    database = Database(url)
    settings = Settings(data_dir=Path(data_dir), start_bridge=False, start_scripted_llm=False)
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
    return {"size": stored.size, "expected": len(data), "python": python, "sqlite": sqlite}


def test_storing_a_large_file_allocates_less_than_two_chunks(
    database: Database, settings: Settings
) -> None:
    child = subprocess.run(
        [sys.executable, "-c", PROBE, database.url, str(settings.data_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert child.returncode == 0, child.stderr
    figures = json.loads(child.stdout.strip().splitlines()[-1])
    python, sqlite = figures["python"], figures["sqlite"]

    assert figures["size"] == figures["expected"]
    assert python + sqlite <= 2 * CHUNK_BYTES, (python // 1024, sqlite // 1024)
    expected_chunks = -(-2 * MB // CHUNK_BYTES) + -(-figures["expected"] // CHUNK_BYTES)
    assert stored_counts(database)[2] == expected_chunks


PROBE = """
import asyncio, json, sys
from tests.attachments.test_upload_memory import _measure
print(json.dumps(asyncio.run(_measure(sys.argv[1], sys.argv[2]))))
"""
