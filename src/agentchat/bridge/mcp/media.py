"""The images, sounds and files an MCP tool returned, for the thinking panel.

hermes writes an image or sound block of an MCP tool's result into its cache and puts
`MEDIA:<path>` in the result text; an embedded file becomes "[MCP resource saved to <path>
(<type>, <n> bytes) …]". Those files are read back here, only from hermes' cache folders
(a path elsewhere, or a link out of them, is ignored: the result text is the server's), and
sent with the tool result: in base64 up to `ITEM_MAX_BYTES` each and `RESULT_MAX_BYTES` in
all, else named with their size only.

The files are read back as soon as the tool returns; hermes' gateway prunes its caches every
hour, but the bridge runs no gateway, so `MediaSweeper` does: files older than a day go.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import os
import re
import threading
import time
from pathlib import Path

from agentchat.protocol.events import ToolMedia

ITEM_MAX_BYTES = 512 * 1024
RESULT_MAX_BYTES = 1024 * 1024
MAX_ITEMS = 8
_CACHE_FOLDERS = ("cache", "image_cache", "audio_cache", "document_cache")
# Where hermes caches what tools return (its current folders and those of older versions);
# only these are swept, never the rest of its cache folder.
_SWEPT_FOLDERS = (
    "cache/images",
    "cache/audio",
    "cache/documents",
    "image_cache",
    "audio_cache",
    "document_cache",
)
MEDIA_KEPT_S = 24 * 3600.0
SWEEP_EVERY_S = 3600.0
_MEDIA = re.compile(r"MEDIA:(\S+)")
_SAVED = re.compile(r"\[MCP resource saved to (\S+) \(")


def cache_roots(home: Path) -> list[Path]:
    return [Path(os.path.realpath(home / name)) for name in _CACHE_FOLDERS]


def media_of(result: str, roots: list[Path]) -> list[ToolMedia]:
    """The cached files a tool result names, read back within the limits."""
    paths = _named_paths(_text_of(result))
    media: list[ToolMedia] = []
    budget = RESULT_MAX_BYTES
    for path in paths[:MAX_ITEMS]:
        item = _read(path, roots, budget)
        if item is not None:
            media.append(item)
            budget -= item.size if item.data is not None else 0
    return media


def _text_of(result: str) -> str:
    """hermes' MCP results are `{"result": text}` JSON; the text, else the result as is."""
    try:
        body = json.loads(result)
    except (ValueError, TypeError):
        return result
    inner = body.get("result") if isinstance(body, dict) else None
    return inner if isinstance(inner, str) else result


def _named_paths(text: str) -> list[str]:
    found = [m.group(1) for m in _MEDIA.finditer(text)]
    found += [m.group(1) for m in _SAVED.finditer(text)]
    return list(dict.fromkeys(found))


def _read(named: str, roots: list[Path], budget: int) -> ToolMedia | None:
    real = Path(os.path.realpath(named))
    if not any(real.is_relative_to(root) for root in roots) or not real.is_file():
        return None
    size = real.stat().st_size
    mime = mimetypes.guess_type(real.name)[0] or "application/octet-stream"
    kind = (
        "image" if mime.startswith("image/") else "audio" if mime.startswith("audio/") else "file"
    )
    data = None
    if size <= min(ITEM_MAX_BYTES, budget):
        data = base64.b64encode(real.read_bytes()).decode("ascii")
    return ToolMedia(kind=kind, name=real.name, mime=mime, size=size, data=data)


def sweep(home: Path, older_than_s: float = MEDIA_KEPT_S, now: float | None = None) -> int:
    """Remove the files of hermes' media caches under `home` last changed more than
    `older_than_s` ago (a link is removed itself, never followed); how many went."""
    cutoff = (time.time() if now is None else now) - older_than_s
    removed = 0
    for name in _SWEPT_FOLDERS:
        try:
            entries = list(os.scandir(home / name))
        except OSError:  # not there (yet)
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    continue
                if entry.stat(follow_symlinks=False).st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
    return removed


class MediaSweeper:
    """`maybe()` sweeps hermes' media caches when the last sweep is `every_s` old (called at
    start and after each turn, off the event loop)."""

    def __init__(
        self, home: Path, every_s: float = SWEEP_EVERY_S, kept_s: float = MEDIA_KEPT_S
    ) -> None:
        self.home, self.every_s, self.kept_s = home, every_s, kept_s
        self._lock = threading.Lock()
        self._last: float | None = None

    def maybe(self) -> int:
        with self._lock:
            now = time.monotonic()
            if self._last is not None and now - self._last < self.every_s:
                return 0
            self._last = now
        return sweep(self.home, self.kept_s)
