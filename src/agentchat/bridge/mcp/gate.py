"""Every call to an MCP server's tools passes this gate first (imported after hermes-agent).

hermes builds each MCP tool's handler with `tools.mcp_tool._make_tool_handler` (and the
resource and prompt helpers with their own factories) whenever it registers a server's tools,
also after a reconnect: `install` wraps those factories, so every handler it makes asks the
turn's gate. A turn sets its gate on its thread (`turn`); hermes copies the context into the
threads that run tool calls side by side. The gate refuses a server the turn may not use,
lets an "allowed" server's calls through, and for an "ask before each call" server pauses for
the person's answer in the page (the approval panel of dangerous commands): allow once, allow
for this chat (kept by the API with the chat, as `mcp:<server>`), or deny.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from agentchat.protocol.events import APPROVAL_CHOICES
from agentchat.protocol.mcp import APPROVAL_KEY_PREFIX

log = logging.getLogger(__name__)

Ask = Callable[[str, str, dict[str, Any]], str]  # (server, tool, arguments) -> a choice
_FACTORIES = (
    "_make_tool_handler",
    "_make_list_resources_handler",
    "_make_read_resource_handler",
    "_make_list_prompts_handler",
    "_make_get_prompt_handler",
)
_UTILITY_TOOLS = {
    "_make_list_resources_handler": "list_resources",
    "_make_read_resource_handler": "read_resource",
    "_make_list_prompts_handler": "list_prompts",
    "_make_get_prompt_handler": "get_prompt",
}
DENIED = (
    "BLOCKED: the person denied this call of an MCP server's tool in the chat page (or did "
    "not answer in time). Do not call it again in this turn unless they ask."
)
_ALLOW_ONCE, _ALLOW_CHAT, _DENY = APPROVAL_CHOICES


@dataclass
class TurnGate:
    """One turn's MCP servers (name → "ask" | "allowed") and those allowed for the chat."""

    modes: dict[str, str]
    ask: Ask
    allowed: set[str] = field(default_factory=set)

    def refusal(self, server: str, tool: str, args: dict[str, Any]) -> str | None:
        """None when the call may go ahead; else the tool result the model gets."""
        mode = self.modes.get(server)
        if mode is None:
            return f"MCP server '{server}' is not enabled for this chat."
        if mode == "allowed" or server in self.allowed:
            return None
        answer = (self.ask(server, tool, args) or _DENY).strip().lower()
        if answer == _ALLOW_CHAT.lower():
            self.allowed.add(server)
            return None
        return None if answer == _ALLOW_ONCE.lower() else DENIED

    def approval_keys(self) -> list[str]:
        return sorted(f"{APPROVAL_KEY_PREFIX}{name}" for name in self.allowed)


_current: ContextVar[TurnGate | None] = ContextVar("agentchat_mcp_gate", default=None)


@contextlib.contextmanager
def turn(gate: TurnGate) -> Iterator[TurnGate]:
    token = _current.set(gate)
    try:
        yield gate
    finally:
        _current.reset(token)


def allowed_servers(approvals: list[str]) -> set[str]:
    """The servers among a chat's approval keys."""
    return {k[len(APPROVAL_KEY_PREFIX) :] for k in approvals if k.startswith(APPROVAL_KEY_PREFIX)}


def without_servers(approvals: list[str]) -> list[str]:
    """The chat's approval keys that are hermes' own (dangerous-command patterns)."""
    return [k for k in approvals if not k.startswith(APPROVAL_KEY_PREFIX)]


def install() -> None:
    """Wrap hermes' MCP handler factories (idempotent)."""
    from tools import mcp_tool

    for name in _FACTORIES:
        factory = getattr(mcp_tool, name)
        if not getattr(factory, "_agentchat_gated", False):
            setattr(mcp_tool, name, _gated_factory(factory, _UTILITY_TOOLS.get(name)))


def _gated_factory(factory: Callable[..., Any], utility: str | None) -> Callable[..., Any]:
    def make(server: str, *rest: Any) -> Any:
        handler = factory(server, *rest)
        tool = utility or str(rest[0])
        return _gated(server, tool, handler)

    make._agentchat_gated = True  # type: ignore[attr-defined]
    return make


def _gated(server: str, tool: str, handler: Callable[..., str]) -> Callable[..., str]:
    def call(args: dict[str, Any], **kwargs: Any) -> str:
        gate = _current.get()
        if gate is None:
            refusal: str | None = f"MCP server '{server}' is not enabled here."
        else:
            refusal = gate.refusal(server, tool, args if isinstance(args, dict) else {})
        if refusal is not None:
            return json.dumps({"error": refusal}, ensure_ascii=False)
        return handler(args, **kwargs)

    return call
