"""What a file is, from its bytes alone (the `filetype` library reads the first bytes; the
name and the browser's type are never asked). Text is what no signature matches and decodes
as UTF-8 with no NUL; HTML and SVG are text here, never served as a page or an image."""

from __future__ import annotations

from dataclasses import dataclass

import filetype

from agentchat.attachments.kinds import Kind
from agentchat.protocol.errors import UnsupportedMediaType

HEAD_BYTES = 8192  # what `filetype` needs (an office file's first zip entries)

# Images Pillow decodes and we re-encode, with the format they are stored in.
IMAGE_FORMATS: dict[str, str] = {
    "image/png": "PNG",
    "image/jpeg": "JPEG",
    "image/gif": "GIF",
    "image/webp": "WEBP",
    "image/bmp": "PNG",
    "image/tiff": "PNG",
}
STORED_IMAGE_TYPES = {
    "PNG": ("image/png", ".png"),
    "JPEG": ("image/jpeg", ".jpg"),
    "GIF": ("image/gif", ".gif"),
    "WEBP": ("image/webp", ".webp"),
}
DOCUMENTS: dict[str, str] = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
}
TEXT_TYPE = "text/plain"
ACCEPTED = (
    "images (PNG, JPEG, GIF, WebP, BMP, TIFF), UTF-8 text and code, PDF, Word, Excel, PowerPoint"
)


@dataclass(frozen=True)
class Sniffed:
    kind: Kind
    media_type: str  # what the bytes are (before an image is re-encoded)


def sniff(head: bytes, is_utf8_text: bool) -> Sniffed:
    """The kind of a file whose first bytes are `head`; `is_utf8_text`: all its bytes decode
    as UTF-8 and hold no NUL. 415 for anything else."""
    guess = filetype.guess(head) if head else None
    mime = guess.mime if guess is not None else None
    if mime in IMAGE_FORMATS:
        return Sniffed(Kind.IMAGE, mime)
    if mime in DOCUMENTS:
        return Sniffed(Kind.DOCUMENT, mime)
    if mime is None and is_utf8_text:
        return Sniffed(Kind.TEXT, TEXT_TYPE)
    what = mime or "binary data that is not UTF-8 text"
    raise UnsupportedMediaType(f"This kind of file cannot be attached ({what}). Attach {ACCEPTED}.")
