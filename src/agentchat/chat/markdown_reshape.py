"""Chat text reshaped to sit inside the Markdown export, parsed by markdown-it (CommonMark).

- Headings go two levels deeper (at most `######`): the export's own `## User` and
  `## Assistant` stay above an answer's `# Plan` and `## Afternoon`. Setext headings
  (`Evening` over `---`) become ATX headings at their new level.
- A question's single line breaks stay line breaks (a hard break: two trailing spaces), as
  the page shows a question as it was typed; a viewer would join them into one line.

Code blocks, code spans and HTML blocks are left as they are: only the lines that markdown-it
maps to headings and paragraphs are touched.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

HEADING_SHIFT = 2
_PARSER = MarkdownIt("commonmark")
_MAX_LEVEL = 6


def reshape(text: str, *, keep_line_breaks: bool) -> str:
    lines = text.replace("\r\n", "\n").split("\n")
    tokens = _PARSER.parse("\n".join(lines))
    edits: list[tuple[int, int, list[str]]] = []  # (first line, end line, new lines)
    for i, token in enumerate(tokens):
        if token.map is None:
            continue
        if token.type == "heading_open":
            edits.append(_deeper(token, tokens[i + 1], lines))
        elif token.type == "paragraph_open" and keep_line_breaks:
            edits.append(_hard_breaks(token.map, lines))
    for start, end, new in sorted(edits, reverse=True):
        lines[start:end] = new
    return "\n".join(lines)


def _level(token: Token) -> int:
    return min(int(token.tag[1]) + HEADING_SHIFT, _MAX_LEVEL)


def _deeper(token: Token, inline: Token, lines: list[str]) -> tuple[int, int, list[str]]:
    start, end = token.map or (0, 0)
    marks = "#" * _level(token)
    if token.markup.startswith("#"):  # ATX: the first run of exactly that many #
        run = re.compile(rf"(?<!#){re.escape(token.markup)}(?=[ \t]|$)")
        return start, start + 1, [run.sub(marks, lines[start], count=1)]
    # setext: the text lines, then the underline
    first = inline.content.split("\n", 1)[0]
    at = lines[start].find(first)
    prefix = lines[start][:at] if at >= 0 else ""
    return start, end, [f"{prefix}{marks} {' '.join(inline.content.split())}"]


def _hard_breaks(span: list[int], lines: list[str]) -> tuple[int, int, list[str]]:
    start, end = span
    kept = lines[start:end]
    broken = [_broken(line) for line in kept[:-1]] + kept[-1:]
    return start, end, broken


def _broken(line: str) -> str:
    stripped = line.rstrip(" \t")
    return stripped if stripped.endswith("\\") else stripped + "  "
