"""Attachments: time to store a 20 MB file and a 5 MB image through the API, and how much the
API process's memory grows meanwhile (it must stream: the growth stays within about two
chunks, not the file's size; an image is decoded in a child process, not in the API).

The API (`bench/serve_api.py`, SQLite) runs in its own process; its peak resident memory is
read from /proc (VmHWM, reset through clear_refs before each upload). That figure is coarse:
it counts pages the allocator had not touched before (it varies from run to run by several
hundred KiB for the same code), and it includes the HTTP server's own receiving (uvloop reads
the socket 256 KiB at a time; httptools and uvicorn copy each read once more before the
route sees it). The figures the target is read against are exact: the same upload through
`AttachmentService.upload` in this process, fed 64 KiB pieces as the server hands them,
its peak Python allocations (tracemalloc) plus SQLite's own (sqlite3_memory_highwater) above
what was allocated before.

Run: .venv/bin/python bench/bench_attachments.py [--quick]   (writes bench/results/attachments.json)
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

import httpx  # noqa: E402

from bench import common as c  # noqa: E402

MB = 1024 * 1024
PIECE = 64 * 1024
WARM_UPS, WARM_UP_BYTES = 3, 4 * MB


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def reset_peak(pid: int) -> None:
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def text_file(size: int) -> bytes:
    line = b"2026-12-03 10:00:00 INFO a line of a long server log, numbered %08d\n"
    out, i = io.BytesIO(), 0
    while out.tell() < size:
        out.write(line % i)
        i += 1
    return out.getvalue()[:size]


def noisy_png(size: int) -> bytes:
    """A PNG of random pixels (incompressible) of about `size` bytes."""
    from PIL import Image

    side = int((size / 3) ** 0.5)
    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def pieces(data: bytes) -> Iterator[bytes]:
    for start in range(0, len(data), PIECE):
        yield data[start : start + PIECE]


def upload(api: c.Process, chat: int, name: str, data: bytes) -> tuple[float, int]:
    """Seconds until the API answered 201 (stored), and its memory growth meanwhile."""
    time.sleep(0.5)  # let the API settle after the last request
    before = c.rss_bytes(api.pid)
    reset_peak(api.pid)
    start = time.perf_counter()
    response = httpx.post(
        f"{api.url}/api/chat/sessions/{chat}/attachments",
        params={"name": name},
        content=pieces(data),
        timeout=300,
    )
    took = time.perf_counter() - start
    response.raise_for_status()
    return took, peak_rss(api.pid) - before


def _sqlite_memory() -> tuple[Callable[[int], int], Callable[[], int]]:
    """SQLite's sqlite3_memory_highwater(reset) and sqlite3_memory_used(), as the driver's
    library counts them."""
    import _sqlite3
    import ctypes

    lib = ctypes.CDLL(_sqlite3.__file__)
    highwater, used = lib.sqlite3_memory_highwater, lib.sqlite3_memory_used
    highwater.restype, highwater.argtypes = ctypes.c_int64, [ctypes.c_int]
    used.restype = ctypes.c_int64
    return highwater, used


def service_growth(tmp: Path, files: list[tuple[str, bytes]]) -> list[tuple[int, int]]:
    """Per file: the peak bytes allocated by Python and by SQLite above what they held before,
    while `AttachmentService.upload` stores it (the first files warm up the statement caches)."""
    import asyncio
    import tracemalloc

    from agentchat.attachments.service import AttachmentService
    from agentchat.chat.schemas import SessionCreate
    from agentchat.chat.sessions import create_session
    from agentchat.core.database import Database
    from agentchat.core.settings import Settings
    from agentchat.migrations import upgrade

    url = f"sqlite:///{tmp / 'in-process.db'}"
    upgrade(url)
    settings = Settings(data_dir=tmp / "in-process", database_url=url, redis_url="")
    database = Database(url)
    with database.session() as db:
        chat = create_session(db, SessionCreate()).id
    service = AttachmentService(database, settings)
    highwater, used = _sqlite_memory()

    async def body(path: Path) -> AsyncIterator[bytes]:
        with path.open("rb") as source:
            while piece := source.read(PIECE):
                yield piece

    async def run() -> list[tuple[int, int]]:
        out = []
        for name, data in files:
            path = tmp / f"in-process-{name}"
            path.write_bytes(data)
            tracemalloc.start()
            python_before = tracemalloc.get_traced_memory()[0]
            highwater(1)
            sqlite_before = used()
            await service.upload(chat, name, body(path))
            python_peak = tracemalloc.get_traced_memory()[1]
            sqlite_peak = highwater(0)
            tracemalloc.stop()
            path.unlink()
            out.append((python_peak - python_before, sqlite_peak - sqlite_before))
        return out

    try:
        return asyncio.run(run())
    finally:
        database.dispose()


def main() -> None:
    quick = c.is_quick()
    from agentchat.attachments.tables import CHUNK_BYTES

    big, image_size = (8 if quick else 20) * MB, (2 if quick else 5) * MB
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        bridge = c.start_fake_bridge(tmp)
        api = c.start_api(tmp, bridge)
        with c.stopping(api, bridge):
            chat = httpx.post(f"{api.url}/api/chat/sessions", json={}).json()["sessionId"]
            # Warm-up: imports, and SQLite's page cache (2 MB a connection, bounded) filled
            for i in range(WARM_UPS):
                upload(api, chat, f"warm-up-{i}.txt", text_file(WARM_UP_BYTES + i))
            file_s, file_growth = upload(api, chat, "server.log", text_file(big))
            png = noisy_png(image_size)
            image_s, image_growth = upload(api, chat, "photo.png", png)
        warm = [(f"warm-up-{i}.txt", text_file(WARM_UP_BYTES + i)) for i in range(WARM_UPS)]
        measured = service_growth(tmp, [*warm, ("server.log", text_file(big)), ("photo.png", png)])
        (file_py, file_sql), (image_py, image_sql) = measured[-2:]
    limit = 2 * CHUNK_BYTES
    conditions = {"chunk_bytes": CHUNK_BYTES, "database": "sqlite", "quick": quick}
    figures = [
        c.figure(
            "file_stored_s",
            f"{big // MB} MB text file: upload to stored",
            file_s,
            "s",
            conditions=conditions,
        ),
        c.figure(
            "file_growth_kib",
            f"{big // MB} MB text file: API peak memory growth",
            file_growth / 1024,
            "KiB",
            conditions=conditions,
            note="resident pages, with the HTTP server's receiving; see the module's docstring",
        ),
        c.figure(
            "image_stored_s",
            f"{len(png) / MB:.1f} MB PNG: upload to stored (re-encoded)",
            image_s,
            "s",
            conditions=conditions,
        ),
        c.figure(
            "image_growth_kib",
            f"{len(png) / MB:.1f} MB PNG: API peak memory growth",
            image_growth / 1024,
            "KiB",
            conditions=conditions,
            note="resident pages, with the HTTP server's receiving; see the module's docstring",
        ),
    ]
    for key, what, python, sqlite in (
        ("file", f"{big // MB} MB text file", file_py, file_sql),
        ("image", f"{len(png) / MB:.1f} MB PNG", image_py, image_sql),
    ):
        figures.append(
            c.figure(
                f"{key}_allocated_kib",
                f"{what}: peak allocated while storing (Python + SQLite)",
                (python + sqlite) / 1024,
                "KiB",
                target=("<=", limit / 1024),
                conditions=conditions,
                note=f"Python {python / 1024:.0f} KiB + SQLite {sqlite / 1024:.0f} KiB",
            )
        )
    c.write_result("attachments", figures)


if __name__ == "__main__":
    main()
