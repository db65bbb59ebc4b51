"""Read and write hermes' long-term memory files (MEMORY.md, USER.md) in its § entry format."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from agentchat.protocol.bridge_api import MemoryFile, MemoryUpdate, MemoryView
from agentchat.protocol.errors import Invalid, ServiceUnavailable

ENTRY_DELIMITER = "\n§\n"
_FILES = {"memory": "MEMORY.md", "user": "USER.md"}


def split_entries(raw: str) -> list[str]:
    return [e.strip() for e in raw.split(ENTRY_DELIMITER) if e.strip()]


def join_entries(entries: list[str]) -> str:
    return ENTRY_DELIMITER.join(e.strip() for e in entries if e.strip())


class MemoryFiles:
    """Memory is per HERMES_HOME: every session of this bridge shares it."""

    def __init__(self, home: Path, memory_limit: int, user_limit: int) -> None:
        self._dir = home / "memories"
        self._limits = {"memory": memory_limit, "user": user_limit}

    def read(self) -> MemoryView:
        return MemoryView(memory=self._read("memory"), user=self._read("user"))

    def write(self, update: MemoryUpdate) -> MemoryView:
        targets = {"memory": update.memory, "user": update.user}
        prepared = {t: self._prepare(t, v) for t, v in targets.items() if v is not None}
        for target, content in prepared.items():
            self._write(target, content)
        return self.read()

    def _read(self, target: str) -> MemoryFile:
        path = self._dir / _FILES[target]
        raw = path.read_text(encoding="utf-8") if path.exists() else ""
        entries = split_entries(raw)
        content = join_entries(entries)
        return MemoryFile(
            content=content, entries=entries, chars=len(content), char_limit=self._limits[target]
        )

    def _prepare(self, target: str, value: str | list[str]) -> str:
        entries = split_entries(value) if isinstance(value, str) else value
        content = join_entries(entries)
        if len(content) > self._limits[target]:
            raise Invalid(
                f"{_FILES[target]} would hold {len(content)} characters; "
                f"the limit is {self._limits[target]}"
            )
        return content

    def _write(self, target: str, content: str) -> None:
        """Replace the file whole; when that fails (a full disk), the old one stays and no
        temporary file is left behind."""
        path = self._dir / _FILES[target]
        tmp: str | None = None
        try:
            self._dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self._dir, prefix=".mem_", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(content)
            os.replace(tmp, path)
        except OSError as exc:
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
            raise ServiceUnavailable(
                f"{_FILES[target]} was not saved: {exc.strerror or exc}", code="memory_not_saved"
            ) from exc
