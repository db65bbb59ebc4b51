"""Build assets sent gzipped to a browser that accepts it, compressed once per file.

Compressed in a worker thread the first time a file is asked for and kept (the build's text
assets are under a megabyte together), so no request compresses on the event loop that carries
the live answers. A Range request, a browser that refuses gzip and small or binary files get
the file as it is; both forms name `Vary: Accept-Encoding` and have ETags of their own.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import anyio
from fastapi.responses import FileResponse, Response
from starlette.datastructures import Headers

COMPRESSIBLE = frozenset({".js", ".mjs", ".css", ".svg", ".json", ".map", ".txt", ".html"})
MIN_BYTES = 1024  # below this the gzip header and a round trip's packet make no difference

_Key = tuple[str, int, int]  # path, mtime_ns, size


def compressible(path: str | os.PathLike[str]) -> bool:
    return Path(path).suffix.lower() in COMPRESSIBLE


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether `Accept-Encoding` takes gzip (named, or `*`, without `q=0`)."""
    for part in accept_encoding.split(","):
        name, _, params = part.partition(";")
        if name.strip().lower() not in ("gzip", "*"):
            continue
        quality = params.strip().lower().removeprefix("q=").strip() if params else "1"
        try:
            return float(quality) > 0
        except ValueError:
            return True
    return False


class GzipCache:
    def __init__(self) -> None:
        self._bodies: dict[_Key, bytes] = {}

    async def respond(self, plain: FileResponse, request: Headers) -> Response:
        """`plain` (a 200 for a compressible file), or its gzipped form when the request takes
        it; a 304 when the browser holds that form already."""
        plain.headers["Vary"] = "Accept-Encoding"
        stat = plain.stat_result
        if stat is None or stat.st_size < MIN_BYTES or "range" in request:
            return plain
        if not accepts_gzip(request.get("accept-encoding", "")):
            return plain
        etag = plain.headers["etag"].removesuffix('"') + '-gz"'
        headers = {
            "ETag": etag,
            "Vary": "Accept-Encoding",
            "Content-Encoding": "gzip",
            "Last-Modified": plain.headers["last-modified"],
        }
        if etag in request.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        body = await self._body(Path(plain.path), (str(plain.path), stat.st_mtime_ns, stat.st_size))
        return Response(body, media_type=plain.media_type, headers=headers)

    async def _body(self, path: Path, key: _Key) -> bytes:
        body = self._bodies.get(key)
        if body is None:
            raw = await anyio.to_thread.run_sync(path.read_bytes)
            body = await anyio.to_thread.run_sync(lambda: gzip.compress(raw, 9, mtime=0))
            self._bodies[key] = body
        return body
