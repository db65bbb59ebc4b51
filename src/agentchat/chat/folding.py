"""The one case folding of search: Unicode's, done here, so every database compares the same
folded text byte for byte (SQLite's lower() and LIKE fold ASCII only, PostgreSQL's lower()
follows the server's locale, MariaDB's collations also ignore accents)."""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """`text` for comparing without case: NFKC, then Unicode case folding (ÉCOLE → école,
    Straße → strasse, İ → i̇; é stays apart from e)."""
    return unicodedata.normalize("NFKC", text).casefold()
