"""A chat's title cut for display, and the file name an export takes from it.

Lengths count graphemes (what a reader sees as one character: an emoji of several code points,
a flag, a letter with its accent), so a cut never splits one (wcwidth's UAX #29 segmentation).
"""

from __future__ import annotations

import re
from urllib.parse import quote

from wcwidth import iter_graphemes

AUTO_TITLE_GRAPHEMES = 30
FILE_NAME_GRAPHEMES = 80
ELLIPSIS = "…"
# Not in a file name on any common system; a slash becomes a dash (it often joins two words).
_UNSAFE = re.compile(r'[:*?"<>|\x00-\x1f\x7f]')
_SLASHES = re.compile(r"[/\\]+")
_ENDS = " .-"


def cut(text: str, limit: int) -> tuple[str, bool]:
    """The first `limit` graphemes of `text`, and whether anything was left out."""
    kept: list[str] = []
    for grapheme in iter_graphemes(text):
        if len(kept) == limit:
            return "".join(kept), True
        kept.append(grapheme)
    return "".join(kept), False


def auto_title(content: str) -> str | None:
    """A question as a title: one line, at most 30 graphemes, cut between words where a word
    boundary lies in its second half, and marked with an ellipsis when cut."""
    line = " ".join(content.split())
    title, was_cut = cut(line, AUTO_TITLE_GRAPHEMES)
    if not was_cut:
        return title or None
    if not line[len(title)].isspace():
        space = title.rfind(" ")
        if space >= len(title) // 2:
            title = title[:space]
    return title.rstrip() + ELLIPSIS


def file_stem(title: str | None) -> str:
    """The title as a file name (without extension): characters no file system takes dropped,
    slashes made dashes, spaces kept, at most 80 graphemes; empty when nothing is left."""
    text = _SLASHES.sub("-", _UNSAFE.sub("", title or ""))
    stem, _ = cut(" ".join(text.split()).strip(_ENDS), FILE_NAME_GRAPHEMES)
    return stem.strip(_ENDS)


def attachment_header(title: str | None, suffix: str, fallback: str) -> str:
    """Content-Disposition for a download named after `title` (RFC 6266): `filename*` in UTF-8,
    `filename` its ASCII letters for older clients, `fallback` where a name has none."""
    stem = file_stem(title) or fallback
    plain = file_stem(stem.encode("ascii", "ignore").decode()) or fallback
    encoded = quote(stem + suffix, safe="")
    return f"attachment; filename=\"{plain}{suffix}\"; filename*=UTF-8''{encoded}"
