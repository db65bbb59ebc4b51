"""An arrived file made ready to store: an image re-encoded (with its thumbnail), a document's
text extracted, a text file's text read if short; the name made safe and, for an image, given
the extension of the format it is stored in."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from agentchat.attachments import processing
from agentchat.attachments.kinds import Kind
from agentchat.attachments.limits import EXCERPT_CHARS, INLINE_MAX_CHARS
from agentchat.attachments.names import safe_name
from agentchat.attachments.sniff import (
    DOCUMENTS,
    IMAGE_FORMATS,
    STORED_IMAGE_TYPES,
    Sniffed,
)
from agentchat.attachments.spool import Spooled


@dataclass
class Prepared:
    """Files to store (`file`, and `text_file` unless it is `file` itself); `cleanup()` removes
    the temporary ones."""

    kind: Kind
    media_type: str
    name: str
    file: Path
    width: int | None = None
    height: int | None = None
    thumbnail: bytes | None = None
    text_file: Path | None = None
    text_chars: int | None = None
    inline_text: str | None = None
    temporary: list[Path] = field(default_factory=list)
    digest: str | None = None  # the sha256 of `file`, when known already (the upload's own)

    def cleanup(self) -> None:
        for path in self.temporary:
            path.unlink(missing_ok=True)


async def prepare(spooled: Spooled, sniffed: Sniffed, raw_name: str | None) -> Prepared:
    if sniffed.kind is Kind.IMAGE:
        return await _image(spooled, sniffed, raw_name)
    if sniffed.kind is Kind.DOCUMENT:
        return await _document(spooled, sniffed, raw_name)
    return _text(spooled, raw_name)


async def _image(spooled: Spooled, sniffed: Sniffed, raw_name: str | None) -> Prepared:
    fmt = IMAGE_FORMATS[sniffed.media_type]
    media_type, extension = STORED_IMAGE_TYPES[fmt]
    out, thumb = _beside(spooled.path, ".image"), _beside(spooled.path, ".thumb")
    prepared = Prepared(
        Kind.IMAGE, media_type, safe_name(raw_name, extension), out, temporary=[out, thumb]
    )
    try:
        size = await processing.reencode_image(spooled.path, fmt, out, thumb)
        prepared.width, prepared.height = size.width, size.height
        prepared.thumbnail = thumb.read_bytes()
    except BaseException:
        prepared.cleanup()
        raise
    return prepared


async def _document(spooled: Spooled, sniffed: Sniffed, raw_name: str | None) -> Prepared:
    text = _beside(spooled.path, ".txt")
    name = safe_name(raw_name, DOCUMENTS[sniffed.media_type])
    prepared = Prepared(
        Kind.DOCUMENT,
        sniffed.media_type,
        name,
        spooled.path,
        text_file=text,
        temporary=[text],
        digest=spooled.digest,
    )
    try:
        result = await processing.extract_text(spooled.path, sniffed.media_type, text)
    except BaseException:
        prepared.cleanup()
        raise
    prepared.text_chars = result.chars
    prepared.inline_text = _short_text(text, result.chars)
    return prepared


def _text(spooled: Spooled, raw_name: str | None) -> Prepared:
    prepared = Prepared(
        Kind.TEXT,
        "text/plain",
        safe_name(raw_name),
        spooled.path,
        text_file=spooled.path,
        digest=spooled.digest,
    )
    prepared.text_chars = spooled.chars
    prepared.inline_text = _short_text(spooled.path, spooled.chars)
    return prepared


def _short_text(path: Path, chars: int) -> str | None:
    """The whole text when it may go into a question, else its first EXCERPT_CHARS (for an
    agent without file tools); a BOM left out."""
    keep = chars if chars <= INLINE_MAX_CHARS else EXCERPT_CHARS
    with contextlib.suppress(UnicodeDecodeError), path.open(encoding="utf-8-sig") as text:
        return text.read(keep)
    return None


def _beside(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)
