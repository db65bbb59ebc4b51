"""Text every part of the path can carry: valid Unicode without NUL.

A model or a tool can produce what no later step takes: a lone UTF-16 surrogate (a JSON
`\\ud83d` whose other half came in another chunk, or never) cannot be encoded as UTF-8, so the
bridge's event stream could not be written at all; a NUL character cannot be stored in a
PostgreSQL text column, so the answer could never be saved. Both become U+FFFD (the
replacement character, as a browser shows bytes it cannot read); a surrogate pair split over
two strings is joined back into its character when the strings are joined (`SurrogateJoiner`).

Shared with the bridge (a wire module): pure Python, no imports of ours.
"""

from __future__ import annotations

from typing import Any

REPLACEMENT = "\ufffd"
_HIGH = range(0xD800, 0xDC00)


def is_clean(text: str) -> bool:
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_text(text: str) -> str:
    """`text` with surrogate pairs joined, lone surrogates and NUL replaced by U+FFFD."""
    if is_clean(text):
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return joined.replace("\x00", REPLACEMENT)


def clean_value(value: Any) -> Any:
    """`value` (JSON-like: dicts, lists, strings) with every string cleaned; the same object
    when nothing in it needed cleaning."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        pairs = [(clean_value(k), clean_value(v)) for k, v in value.items()]
        originals = value.items()
        changed = any(
            a is not k or b is not v for (a, b), (k, v) in zip(pairs, originals, strict=True)
        )
        return dict(pairs) if changed else value
    if isinstance(value, list | tuple):
        items = [clean_value(v) for v in value]
        changed = any(a is not b for a, b in zip(items, value, strict=True))
        return type(value)(items) if changed else value
    return value


class SurrogateJoiner:
    """Cleans a text that arrives in pieces: a piece that ends in the first half of a
    surrogate pair keeps it back until the next piece, which may start with the other."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        self._held = ""
        if text and ord(text[-1]) in _HIGH:
            text, self._held = text[:-1], text[-1]
        return clean_text(text)

    def flush(self) -> str:
        """What is still held back (a half pair that never got its other half)."""
        held, self._held = self._held, ""
        return clean_text(held)
