"""User names: one spelling per person, and no two names that look alike.

A name is stored as typed after Unicode NFKC (full-width letters, ligatures and compatibility
forms become their plain letters). Sign-in finds it case-insensitively (`username_key`: NFKC,
case folded). Two accounts may not share a `lookalike_key` either: the name with each
character replaced by the plainest character it is confusable with, case folded (Unicode's
confusables, through the confusable_homoglyphs package), so `admin` spelt with a Cyrillic
`a`, or `paypal` and `paypa1`, cannot both exist. Names that mix scripts are refused outright.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from confusable_homoglyphs import confusables

from agentchat.protocol.errors import Invalid

MAX_CHARS = 64
_HOPS = 3
# Letters and digits of any script, and . _ - between them.
_SHAPE = re.compile(r"[^\W_](?:[\w.-]*[^\W_])?")


class UsernameInvalid(Invalid):
    code = "username_invalid"


@dataclass(frozen=True)
class Username:
    display: str
    key: str
    lookalike: str


def parse_username(raw: str) -> Username:
    """The name as stored, or 422 `username_invalid` saying what is wrong with it."""
    display = unicodedata.normalize("NFKC", raw).strip()
    if not display:
        raise UsernameInvalid("Choose a user name.")
    if len(display) > MAX_CHARS:
        raise UsernameInvalid(f"A user name has at most {MAX_CHARS} characters.")
    if not _SHAPE.fullmatch(display):
        raise UsernameInvalid(
            "A user name holds letters and digits, with . _ or - between them (no spaces)."
        )
    if confusables.is_mixed_script(display, allowed_aliases=["COMMON", "INHERITED"]):
        raise UsernameInvalid(
            "A user name is written in one script (not, say, Latin and Cyrillic letters mixed)."
        )
    return Username(display=display, key=username_key(display), lookalike=lookalike_key(display))


def username_key(name: str) -> str:
    """How sign-in looks a name up: NFKC, case folded (again NFKC: folding may un-normalise)."""
    folded = unicodedata.normalize("NFKC", name).strip().casefold()
    return unicodedata.normalize("NFKC", folded)


def lookalike_key(name: str) -> str:
    """Mapped before case folding (a capital I looks like l, a small i does not) and after."""
    plain = "".join(_plainest(ch) for ch in name).casefold()
    return "".join(_plainest(ch) for ch in plain)


@lru_cache(maxsize=4096)
def _plainest(ch: str) -> str:
    """The character with the lowest code point among `ch` and the one-character homoglyphs
    reachable from it (Unicode's table is not symmetric: I→l, l→1; a few steps reach ASCII)."""
    seen, frontier = {ch}, [ch]
    for _ in range(_HOPS):
        frontier = [g for c in frontier for g in _homoglyphs(c) if g not in seen]
        seen.update(frontier)
    return min(seen)


def _homoglyphs(ch: str) -> list[str]:
    found = confusables.is_confusable(ch, greedy=True) or []
    return [g["c"] for entry in found for g in entry["homoglyphs"] if len(g["c"]) == 1]
