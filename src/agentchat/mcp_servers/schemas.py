"""JSON of the Tools page. The values of a server's environment and headers are write-only:
responses name them and show their last four characters."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, field_serializer, model_validator

from agentchat.core.clock import iso
from agentchat.protocol.camel import CamelModel
from agentchat.protocol.mcp import (
    SERVER_NAME,
    SERVER_NAME_MAX,
    ApprovalMode,
    McpToolInfo,
    Transport,
)

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)
_RESERVED_HEADERS = {"host", "content-length", "content-type", "transfer-encoding", "connection"}


def _printable(value: str) -> str:
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise ValueError("must not contain control characters (a line break, a tab…)")
    return value


def _url(value: str) -> str:
    value = _printable(value.strip())
    if not value:
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http:// or https:// URL with a host")
    if parts.username is not None or parts.password is not None:
        raise ValueError("must not contain a user or password; put a token in a header")
    return value


def _env(values: dict[str, Any]) -> dict[str, Any]:
    for name, value in values.items():
        if not _ENV_NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not an environment variable name")
        if value is not None and "\x00" in value:
            raise ValueError(f"the value of {name} must not contain a NUL character")
    return values


def _headers(values: dict[str, Any]) -> dict[str, Any]:
    for name, value in values.items():
        if not _HEADER_NAME.fullmatch(name) or name.lower() in _RESERVED_HEADERS:
            raise ValueError(f"{name!r} cannot be sent as a header")
        if value is not None:
            _printable(value)
    return values


def _args(values: list[str]) -> list[str]:
    if any("\x00" in v for v in values):
        raise ValueError("an argument must not contain a NUL character")
    return values


Name = Annotated[str, Field(pattern=SERVER_NAME.pattern, max_length=SERVER_NAME_MAX)]
Command = Annotated[str, Field(max_length=1000), AfterValidator(_printable)]
Args = Annotated[list[Annotated[str, Field(max_length=4000)]], Field(max_length=100)]
Url = Annotated[str, Field(max_length=2000), AfterValidator(_url)]
Timeout = Annotated[float, Field(gt=0, le=3600)]
ConnectTimeout = Annotated[float, Field(gt=0, le=600)]
ToolNames = Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=500)]
# A secret's value up to 8,000 characters; None (on a change) keeps the stored one.
Secret = Annotated[str, Field(max_length=8000)]
Env = Annotated[dict[str, Secret | None], Field(max_length=100), AfterValidator(_env)]
Headers = Annotated[dict[str, Secret | None], Field(max_length=100), AfterValidator(_headers)]
NewEnv = Annotated[dict[str, Secret], Field(max_length=100), AfterValidator(_env)]
NewHeaders = Annotated[dict[str, Secret], Field(max_length=100), AfterValidator(_headers)]


class McpServerCreate(CamelModel):
    """stdio: `command` (and `args`, `env`) run on the agent's host; http: `url` (and
    `headers`) of a streamable HTTP server. `approval` "ask": the person allows each call."""

    name: Name
    transport: Transport
    command: Command = ""
    args: Annotated[Args, AfterValidator(_args)] = Field(default_factory=list)
    env: NewEnv = Field(default_factory=dict)
    url: Url = ""
    headers: NewHeaders = Field(default_factory=dict)
    enabled: bool = True
    approval: ApprovalMode = "ask"
    timeout_s: Timeout = 60.0
    connect_timeout_s: ConnectTimeout = 20.0
    tools_include: ToolNames = Field(default_factory=list)
    tools_exclude: ToolNames = Field(default_factory=list)

    @model_validator(mode="after")
    def _complete(self) -> McpServerCreate:
        check_complete(self.transport, self.command, self.url)
        return self


class McpServerUpdate(CamelModel):
    """The fields sent change (the name stays). `env` and `headers`, when sent, are the whole
    set: a name with null keeps its stored value, a name left out is removed."""

    transport: Transport | None = None
    command: Command | None = None
    args: Annotated[Args, AfterValidator(_args)] | None = None
    env: Env | None = None
    url: Url | None = None
    headers: Headers | None = None
    enabled: bool | None = None
    approval: ApprovalMode | None = None
    timeout_s: Timeout | None = None
    connect_timeout_s: ConnectTimeout | None = None
    tools_include: ToolNames | None = None
    tools_exclude: ToolNames | None = None


def check_complete(transport: str, command: str, url: str) -> None:
    if transport == "stdio" and not command.strip():
        raise ValueError("a stdio server needs a command")
    if transport == "http" and not url.strip():
        raise ValueError("an http server needs a URL")


class SecretHint(CamelModel):
    name: str
    last4: str


class McpServerPublic(CamelModel):
    id: int
    name: str
    transport: Transport
    command: str
    args: list[str]
    env: list[SecretHint]
    url: str
    headers: list[SecretHint]
    enabled: bool
    approval: ApprovalMode
    timeout_s: float
    connect_timeout_s: float
    tools_include: list[str]
    tools_exclude: list[str]
    created_at: datetime
    updated_at: datetime

    @field_serializer("created_at", "updated_at")
    def _iso(self, value: datetime) -> str | None:
        return iso(value)


class McpServerState(CamelModel):
    """A server as the agent services see it. `state`: connected; failed (`error`: hermes'
    reason in one sentence); idle (switched on, no turn has used it yet); off (switched off);
    unknown (no agent service answered)."""

    name: str
    state: Literal["connected", "failed", "idle", "off", "unknown"]
    error: str | None = None
    tools: list[McpToolInfo] = Field(default_factory=list)


class McpTestResult(CamelModel):
    ok: bool
    error: str | None = None
    tools: list[McpToolInfo] = Field(default_factory=list)


class McpOffered(CamelModel):
    """A server a chat can use or turn off (the chat's tools popover)."""

    name: str
    transport: Transport
    approval: ApprovalMode
