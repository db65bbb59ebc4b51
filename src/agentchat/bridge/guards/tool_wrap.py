"""Wrap hermes tools' registered handlers, once: a guard installed twice wraps nothing more."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Handler = Callable[..., Any]


def wrap_tools(names: Iterable[str], wrapper: Callable[[Handler], Handler], marker: str) -> None:
    """Replace each named tool's handler by `wrapper(handler)`, marked with `marker` (a tool
    hermes did not register is left out)."""
    from tools.registry import registry

    for name in names:
        entry = registry.get_entry(name)
        if entry is None or getattr(entry.handler, marker, False):
            continue
        wrapped = wrapper(entry.handler)
        setattr(wrapped, marker, True)
        entry.handler = wrapped
