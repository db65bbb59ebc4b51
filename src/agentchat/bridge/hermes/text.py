"""Small text helpers for turning hermes' display strings into clean event content."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

_LEADING_SYMBOLS = re.compile(r"^[\W_]+(?=\w)")
_TRAILING_VERB = re.compile(r"(\w+)\.\.\.$")
_WAITING = re.compile(r"waiting on .* (\d+)s with no output|no output from provider for (\d+)s")


def strip_face(text: str, faces: Iterable[str]) -> str:
    """Drop the kaomoji in front of a spinner text ("(⌐■_■) pondering..." → "pondering...")."""
    text = text.strip()
    for face in sorted(faces, key=len, reverse=True):
        if face and text.startswith(face):
            return text[len(face) :].strip()
    if text and not text[0].isalnum():
        verb = _TRAILING_VERB.search(text)
        if verb:
            return f"{verb.group(1)}..."
    return text


def wait_notice(text: str, limit_s: float | None) -> str | None:
    """hermes' notice of a silent model, in our words; None for any other text. (Its own words
    promise an "auto-reconnect" the bridge's silence limit may never let happen.)"""
    found = _WAITING.search(text)
    if found is None:
        return None
    seconds = found.group(1) or found.group(2)
    limit = f"; the answer stops after {limit_s:g} s without output" if limit_s else ""
    return f"Waiting for the model: no output for {seconds} s{limit}"


def strip_leading_symbols(text: str) -> str:
    """Drop a leading emoji or symbol run ("🗜️ Compacting" → "Compacting")."""
    return _LEADING_SYMBOLS.sub("", text.strip(), count=1)


def truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    dropped = len(text) - limit
    return f"{text[:limit]}\n… [truncated {dropped} characters]"


def compact_json(value: Any, limit: int = 200) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def looks_like_error(result: str) -> bool:
    """A tool result whose JSON object carries a top-level error."""
    try:
        data = json.loads(result)
    except (TypeError, ValueError):
        return False
    return isinstance(data, dict) and bool(data.get("error")) and not data.get("success")


def todo_list(result: str) -> list[Any] | None:
    """The full todo list from a todo tool result, or None when it has none."""
    try:
        data = json.loads(result)
    except (TypeError, ValueError):
        return None
    todos = data.get("todos") if isinstance(data, dict) else None
    return todos if isinstance(todos, list) else None
