"""MCP tool servers as the API sends them to a bridge (a wire module: pydantic only).

The API's database is the source of truth: every run request carries the servers that are
switched on (`McpSetup.servers`, secrets in clear over the bridge's authenticated channel) and
the names this turn may use (`use`: the chat's and the run's narrowing). A bridge keeps exactly
those servers: it connects one when a turn first uses it, reconnects one whose settings
changed (`fingerprint`), and closes one that is no longer sent. So every bridge, behind any
API process, follows a change on its next turn, with no restart.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from pydantic import Field

from agentchat.protocol.camel import CamelModel

# Lowercase letters, digits and single hyphens: hermes names the tools `mcp__<name>__<tool>`
# with hyphens made underscores, and a name with "__" could not be read back.
SERVER_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SERVER_NAME_MAX = 40
TOOL_PREFIX = "mcp__"
APPROVAL_KEY_PREFIX = "mcp:"  # "allow for this chat" of a server, kept with the chat's approvals

Transport = Literal["stdio", "http"]
ApprovalMode = Literal["ask", "allowed"]


class McpServerWire(CamelModel):
    """One server's settings, complete (hermes' `mcp_servers.<name>` entry is built from it)."""

    name: str = Field(pattern=SERVER_NAME.pattern, max_length=SERVER_NAME_MAX)
    transport: Transport
    command: str = Field(default="", max_length=1000)
    args: list[str] = Field(default_factory=list, max_length=100)
    env: dict[str, str] = Field(default_factory=dict, max_length=100)
    url: str = Field(default="", max_length=2000)
    headers: dict[str, str] = Field(default_factory=dict, max_length=100)
    timeout_s: float = Field(default=60.0, gt=0, le=3600)
    connect_timeout_s: float = Field(default=20.0, gt=0, le=600)
    approval: ApprovalMode = "ask"
    tools_include: list[str] = Field(default_factory=list, max_length=500)
    tools_exclude: list[str] = Field(default_factory=list, max_length=500)

    @property
    def fingerprint(self) -> str:
        """Changes with any setting that needs a new connection (not with `approval`)."""
        body = self.model_dump(exclude={"approval"})
        text = json.dumps(body, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class McpSetup(CamelModel):
    servers: list[McpServerWire] = Field(default_factory=list, max_length=100)
    use: list[str] = Field(default_factory=list, max_length=100)
    # "allow for this chat" servers, as the API keeps them with the chat (names, not keys)
    allowed: list[str] = Field(default_factory=list, max_length=100)


class McpToolInfo(CamelModel):
    name: str
    description: str = ""


class McpServerStatus(CamelModel):
    """What a bridge knows of one server. `state`: connected; failed (`error`: hermes' reason
    in one sentence); idle (no turn has used it on this bridge yet, or it was closed)."""

    name: str
    state: Literal["connected", "failed", "idle"]
    error: str | None = None
    tools: list[McpToolInfo] = Field(default_factory=list)
    fingerprint: str = ""


class McpProbe(CamelModel):
    """A connection made for the Tools page's Test button, then closed."""

    ok: bool
    error: str | None = None
    tools: list[McpToolInfo] = Field(default_factory=list)


class McpCheck(CamelModel):
    """Whether a bridge could start this server: `problem` says why not (None: it can)."""

    problem: str | None = None


def tool_origin(tool_name: str, servers: dict[str, str]) -> tuple[str, str] | None:
    """(server, tool) of an `mcp__<server>__<tool>` name, `servers` mapping hermes' sanitised
    server names (hyphens as underscores) to ours; None for any other tool."""
    if not tool_name.startswith(TOOL_PREFIX):
        return None
    rest = tool_name[len(TOOL_PREFIX) :]
    safe, sep, tool = rest.partition("__")
    if not sep or safe not in servers:
        return None
    return servers[safe], tool


def safe_name(server: str) -> str:
    """hermes' sanitised form of a server name (what its tool names carry)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", server)
