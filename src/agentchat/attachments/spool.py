"""An upload as it arrives: written to a private temporary file piece by piece (never held in
memory whole), hashed, measured against the size limit as it grows, its first bytes kept for
sniffing, and checked for UTF-8 text on the way."""

from __future__ import annotations

import codecs
import hashlib
import os
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from agentchat.attachments.sniff import HEAD_BYTES
from agentchat.protocol.errors import Invalid, PayloadTooLarge

DECODE_BYTES = 16 * 1024


@dataclass
class Spooled:
    """A received file on disk; `remove()` it when done."""

    path: Path
    size: int = 0
    digest: str = ""
    head: bytes = b""
    is_utf8_text: bool = True
    chars: int = 0
    _hash: hashlib._Hash = field(default_factory=hashlib.sha256, repr=False)
    _decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8-sig")(), repr=False
    )

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        self._hash.update(piece)
        if len(self.head) < HEAD_BYTES:
            self.head += piece[: HEAD_BYTES - len(self.head)]
        # Decoded a slice at a time: the text of a whole piece would be one more piece
        view = memoryview(piece)
        for start in range(0, len(view), DECODE_BYTES):
            if not self.is_utf8_text:
                break
            self._text(view[start : start + DECODE_BYTES], final=False)

    def close(self) -> None:
        self.digest = self._hash.hexdigest()
        if self.is_utf8_text:
            self._text(b"", final=True)

    def _text(self, piece: bytes | memoryview, *, final: bool) -> None:
        try:
            text = self._decoder.decode(piece, final)
        except UnicodeDecodeError:
            self.is_utf8_text = False
            return
        if "\x00" in text:
            self.is_utf8_text = False
        self.chars += len(text)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"The file is larger than {limit // (1024 * 1024)} MB (AGENTCHAT_MAX_UPLOAD_MB); "
        "it was not stored.",
        code="file_too_large",
        limit=limit,
    )


async def spool(body: AsyncIterator[bytes], folder: Path, limit: int) -> Spooled:
    """The body in a new file under `folder` (created 0700); 413 as soon as it passes `limit`
    bytes, 422 when it is empty. Nothing is left on disk when it fails."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix="upload-", dir=folder)
    spooled = Spooled(Path(name))
    try:
        with os.fdopen(fd, "wb") as out:
            async for piece in body:
                spooled.add(piece)
                if spooled.size > limit:
                    raise too_large(limit)
                out.write(piece)
        spooled.close()
        if spooled.size == 0:
            raise Invalid("The file is empty; it was not stored.", code="empty_file")
    except BaseException:
        spooled.remove()
        raise
    return spooled
