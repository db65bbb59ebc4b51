"""The bridge answers no program of an agent's, its own agent's included.

`agentchat serve` records its bridge's secret in DATA_DIR/bridge.json, readable by the user
the bridge runs as, so an agent with `terminal` can read it and answer its own
dangerous-command approval at the bridge. A connection whose other end a bridge or a process
below it holds (peers.agent_processes) is answered 403 and closed before HTTP is read: on the
Unix socket `serve` gives its bridge the kernel names the connecting process, on TCP the client
socket is looked up as the API looks it up.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import struct
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

from agentchat.peers import socket_owner
from agentchat.peers.agent_processes import AgentProcesses

log = logging.getLogger(__name__)

_MESSAGE = "The agent's own programs may not use the bridge."
_BODY = json.dumps({"error": {"code": "agent_process", "message": _MESSAGE}}).encode()
REFUSAL = (
    b"HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\n"
    + f"content-length: {len(_BODY)}\r\nconnection: close\r\n\r\n".encode()
    + _BODY
)
_PEERCRED = struct.Struct("3i")  # pid, uid, gid


def from_agent(sock: Any, agents: AgentProcesses) -> bool:
    """Whether the other end of the accepted connection `sock` is a process of an agent."""
    if sock is None:
        return False
    if sock.family == socket.AF_UNIX:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
        pid = _PEERCRED.unpack(raw)[0]
        return pid > 0 and agents.include(pid)
    if sock.family in (socket.AF_INET, socket.AF_INET6):
        client, server = sock.getpeername()[:2], sock.getsockname()[:2]
        holder = socket_owner.socket_holder(client, server)
        return holder is not None and agents.hold(holder)
    return False


class AgentRefusingProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol, refusing connections from an agent's processes: the request's
    head is read (closing on unread bytes would reset the connection before the answer
    arrives), then answered 403 and the connection closed."""

    agents = AgentProcesses()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._refused: asyncio.Transport | None = None
        self._head = b""
        if _from_agent(transport, self.agents):
            log.warning("refused a connection from a process of an agent")
            self._refused = transport  # type: ignore[assignment]
            return
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        refused = self._refused
        if refused is None:
            super().data_received(data)
            return
        seen = self._head + data
        self._head = seen[-3:]  # the end of a head may come split
        if b"\r\n\r\n" in seen and not refused.is_closing():
            refused.write(REFUSAL)
            refused.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused is None:
            super().connection_lost(exc)


def _from_agent(transport: asyncio.BaseTransport, agents: AgentProcesses) -> bool:
    try:
        return from_agent(transport.get_extra_info("socket"), agents)
    except OSError:
        return False  # the connection is already gone
