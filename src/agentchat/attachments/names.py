"""A file name a person's browser sent, made safe to store, show, download and write into a
workspace: no folder parts, no control or invisible format characters (a right-to-left
override turns `exe.txt` around on screen), no leading dots, at most MAX_BYTES of UTF-8, cut
between graphemes with the extension kept."""

from __future__ import annotations

import unicodedata

from wcwidth import iter_graphemes

MAX_BYTES = 200
FALLBACK = "file"


def safe_name(raw: str | None, extension: str | None = None) -> str:
    """`raw` as a safe file name; `extension` (".png") replaces the name's own, as a file that
    was re-encoded (a HEIC photo stored as JPEG) or is known by its bytes needs."""
    name = _last_part(unicodedata.normalize("NFC", raw or ""))
    name = "".join(" " if ch.isspace() else ch for ch in name if _visible(ch))
    name = " ".join(name.split()).strip(". ")
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        stem, ext = name, ""
    if extension is not None:
        ext = extension.lstrip(".")
    stem = stem.strip(". ") or FALLBACK
    ext = _cut(ext, 16)
    suffix = f".{ext}" if ext else ""
    return _cut(stem, MAX_BYTES - len(suffix.encode())) + suffix


def _last_part(name: str) -> str:
    for separator in ("/", "\\"):
        name = name.rsplit(separator, 1)[-1]
    return name


def _visible(ch: str) -> bool:
    """Not a control (Cc), format (Cf: bidi overrides, zero-width), surrogate or private-use
    character, nor one a file system or a download header treats specially."""
    if ch in '<>:"|?*':
        return False
    return unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Cn")


def _cut(text: str, max_bytes: int) -> str:
    """The longest run of whole graphemes of `text` within `max_bytes` of UTF-8."""
    if len(text.encode()) <= max_bytes:
        return text
    kept, size = [], 0
    for grapheme in iter_graphemes(text):
        size += len(grapheme.encode())
        if size > max_bytes:
            break
        kept.append(grapheme)
    return "".join(kept).rstrip(". ")
