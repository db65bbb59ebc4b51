"""The words around a search hit, for the session list: a line of a message, cut at graphemes
(never through an emoji or a letter and its accent) and between words where there are spaces."""

from __future__ import annotations

from wcwidth import iter_graphemes

from agentchat.chat.titles import ELLIPSIS, cut

BEFORE = 40  # graphemes of context before the first word found
LENGTH = 120  # graphemes shown in all


def snippet_around(text: str, words: list[str]) -> str:
    """One line around the first of `words` (lowercase) in `text`; the start when none is
    found as such (a word matched as a prefix of a longer one is found too)."""
    line = " ".join(text.split())
    lower = line.lower()
    hits = [at for at in (lower.find(w) for w in words) if at >= 0]
    start = _start_before(line, min(hits)) if hits else 0
    shown, more = cut(line[start:], LENGTH)
    if more and " " in shown[LENGTH // 2 :]:
        shown = shown[: shown.rindex(" ")]
    return (ELLIPSIS if start else "") + shown.strip() + (ELLIPSIS if more else "")


def _start_before(line: str, hit: int) -> int:
    """Where the snippet starts: up to BEFORE graphemes before the hit, at a word's start."""
    graphemes = list(iter_graphemes(line[:hit]))
    if len(graphemes) <= BEFORE:
        return 0
    start = hit - len("".join(graphemes[-BEFORE:]))
    space = line.find(" ", start, hit)
    return space + 1 if space >= 0 else start
