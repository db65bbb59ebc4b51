"""The agent's own programs may not use the API, whatever else lets a request in.

An agent with `terminal`, `code_execution` or `browser` runs programs as the bridge's user.
On this machine that is usually the API's user, so they pass the own-user guard; with a token
they need only read it. One wrote a script that polled the API and answered its own
dangerous-command approval with "Allow for this chat": `rm -rf` ran and the chat stored the
approval as the person's. A request whose client socket is held by a bridge or a process below
it (peers.agent_processes) gets 403 `agent_process`, with a token, with accounts, or without
either. Connections from elsewhere (another machine, a socket the system cannot name) are not
judged here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from agentchat.peers import socket_owner
from agentchat.peers.agent_processes import AgentProcesses
from agentchat.peers.socket_owner import Holder
from agentchat.web.asgi import send_error

log = logging.getLogger(__name__)

REFUSED = (
    "The agent's own programs may not use this server: this connection comes from a process "
    "of a Hermes Bridge."
)
CLEAN_FOR_S = 5.0  # a socket found held by no agent stays so (keep-alive requests)
_MAX_REMEMBERED = 4096


class AgentRefusalMiddleware:
    """403 `agent_process` for a request whose client socket an agent's process holds."""

    def __init__(
        self,
        app: ASGIApp,
        agents: AgentProcesses | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.agents = agents or AgentProcesses()
        self._clock = clock
        self._clean: dict[int, float] = {}  # socket inode -> when its verdict expires

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and self._from_agent(scope):
            log.warning(
                "refused %s %s: from a process of an agent", scope.get("method"), scope["path"]
            )
            await send_error(send, 403, "agent_process", REFUSED)
            return
        await self.app(scope, receive, send)

    def _from_agent(self, scope: Scope) -> bool:
        client, server = scope.get("client"), scope.get("server")
        if not client or not server:
            return False
        holder = socket_owner.socket_holder(
            (str(client[0]), int(client[1])), (str(server[0]), int(server[1]))
        )
        return holder is not None and not self._known_clean(holder) and self._judge(holder)

    def _known_clean(self, holder: Holder) -> bool:
        return self._clean.get(holder.inode, 0.0) > self._clock()

    def _judge(self, holder: Holder) -> bool:
        if self.agents.hold(holder):
            return True
        if len(self._clean) >= _MAX_REMEMBERED:
            now = self._clock()
            self._clean = {k: v for k, v in self._clean.items() if v > now}
            if len(self._clean) >= _MAX_REMEMBERED:
                self._clean.clear()
        self._clean[holder.inode] = self._clock() + CLEAN_FOR_S
        return False


def refuse_agents(app: ASGIApp) -> ASGIApp:
    """`app` behind the refusal, where the system says who holds a connection."""
    return AgentRefusalMiddleware(app) if socket_owner.supported() else app
