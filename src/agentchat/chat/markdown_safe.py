"""Make chat text safe to paste into a Markdown file: a viewer must not run or fetch anything.

Outside code, raw HTML is escaped (`<` → `&lt;`, so `<img onerror>` or `<script>` show as
text) and images become plain links (`![a](url)` → `[image: a](url)`), so opening the file
fetches nothing. Code spans and fenced blocks are left exactly as written: a viewer shows
them as text already.
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
BACKTICKS = re.compile(r"`+")
IMAGE = re.compile(r"!\[")


def safe_markdown(text: str) -> str:
    """Escape HTML and turn images into links, outside fenced blocks and code spans."""
    out: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opener = FENCE.match(line)
        if fence is None and opener:
            out.extend([_safe_prose("\n".join(prose))] if prose else [])
            prose = []
            fence = opener.group(1)
            out.append(line)
        elif fence is not None:
            out.append(line)
            if _closes(line, fence):
                fence = None
        else:
            prose.append(line)
    if prose:
        out.append(_safe_prose("\n".join(prose)))
    return "\n".join(out)


def _closes(line: str, fence: str) -> bool:
    """A closing fence: the same character, at least as long, nothing after it."""
    closer = FENCE.match(line)
    if closer is None or closer.group(1)[0] != fence[0] or len(closer.group(1)) < len(fence):
        return False
    return not line.strip().strip(fence[0])


def safe_inline(text: str) -> str:
    """One line of text for a heading or an HTML `<summary>`: no markup at all."""
    flat = " ".join(text.split())
    return flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def fence_for(text: str, char: str = "`") -> str:
    """A code fence longer than any run of backticks in `text`."""
    longest = max((len(run) for run in BACKTICKS.findall(text)), default=0)
    return char * max(3, longest + 1)


def _safe_prose(text: str) -> str:
    """Escape everything but code spans (a backtick run closed by a run of the same length)."""
    parts: list[str] = []
    pos = 0
    while pos < len(text):
        span = _next_code_span(text, pos)
        if span is None:
            parts.append(_escape(text[pos:]))
            break
        start, end = span
        parts.append(_escape(text[pos:start]))
        parts.append(text[start:end])
        pos = end
    return "".join(parts)


def _next_code_span(text: str, pos: int) -> tuple[int, int] | None:
    for opener in BACKTICKS.finditer(text, pos):
        run = opener.group(0)
        closer = re.compile(rf"(?<!`){run}(?!`)").search(text, opener.end())
        if closer:
            return opener.start(), closer.end()
    return None


def _escape(text: str) -> str:
    return IMAGE.sub("[image: ", text.replace("<", "&lt;"))
