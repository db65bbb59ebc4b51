"""The hermes toolsets an agent gets unless the operator says otherwise (none touches the host),
and how a chat or a run narrows the operator's list."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from agentchat.protocol.errors import Invalid

DEFAULT_TOOLSETS = ("clarify", "todo", "memory", "skills")


class ToolsetNotAllowed(Invalid):
    """422: a chat or a run asked for a toolset the server does not enable."""

    code = "toolset_not_allowed"


def narrow(allowed: Sequence[str], chosen: Sequence[str] | None) -> list[str]:
    """The server's toolsets narrowed to `chosen` (None: all of them), in the server's order;
    a toolset outside them is refused, never added."""
    if chosen is None:
        return list(allowed)
    outside = sorted(set(chosen) - set(allowed))
    if outside:
        raise ToolsetNotAllowed(
            f"toolsets: {', '.join(outside)} not enabled on this server "
            f"(enabled: {', '.join(allowed) or 'none'})"
        )
    return [name for name in allowed if name in chosen]


def within(allowed: Sequence[str], stored: Sequence[str] | None) -> list[str]:
    """A chat's stored choice as far as the server still enables it (None: all of them): the
    operator may have narrowed the list since the choice was made."""
    if stored is None:
        return list(allowed)
    return [name for name in allowed if name in stored]


def toolset_list(value: str) -> str:
    """A comma-separated list of hermes toolsets whose names hermes knows (a typo such as `wbe`
    was taken silently and the agent ran without it); not checked where hermes is not
    installed (an API on its own: its bridges check their own list)."""
    try:
        from toolsets import get_toolset_names, validate_toolset
    except ImportError:
        return value
    names = [t.strip() for t in value.split(",") if t.strip()]
    unknown = [name for name in names if not validate_toolset(name)]
    if unknown:
        known = sorted(get_toolset_names())
        hints = [
            f"{name} (did you mean {close[0]}?)"
            if (close := difflib.get_close_matches(name, known, 1))
            else name
            for name in unknown
        ]
        raise ValueError(f"unknown hermes toolset: {', '.join(hints)}")
    return value
