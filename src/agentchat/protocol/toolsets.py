"""The hermes toolsets an agent gets unless the operator says otherwise (none touches the host),
and how a chat or a run narrows the operator's list."""

from __future__ import annotations

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
