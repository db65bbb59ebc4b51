"""Without a token the API answers only the user of this machine that runs it.

Loopback is shared by every user of the machine: without this guard anyone with a login on it,
or a service running as another user, could read every chat and drive the agent through
127.0.0.1. A token (`AGENTCHAT_AUTH_TOKEN`) lets other people in deliberately, and
`--insecure-public` says something else guards the server; with either the guard is off. So is
it where the system does not say who holds a connection (`serve` says so when it starts), and
once the server has accounts: every request then signs in as one of them.
"""

from __future__ import annotations

import logging
import os
from typing import Any, cast

from fastapi import FastAPI
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from agentchat.accounts.gate import AccountsGate
from agentchat.core.settings import Settings
from agentchat.peers import socket_owner
from agentchat.web.asgi import send_error
from agentchat.web.bind_rules import configured_token

log = logging.getLogger(__name__)

REFUSED = (
    "This server answers only the user of this machine that runs it. To let others in, its "
    "operator sets AGENTCHAT_AUTH_TOKEN and gives them the token."
)


class OwnUserMiddleware:
    """403 `other_user` for a request whose client socket is not an open socket of `uid`;
    off once the server has accounts (each request then signs in as a person)."""

    def __init__(self, app: ASGIApp, uid: int, gate: AccountsGate | None = None) -> None:
        self.app = app
        self.uid = uid
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.gate is not None and await self.gate.accounts_on():
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and not self._own(scope):
            log.warning(
                "refused %s %s: not from this server's user", scope["method"], scope["path"]
            )
            await send_error(send, 403, "other_user", REFUSED)
            return
        await self.app(scope, receive, send)

    def _own(self, scope: Scope) -> bool:
        client, server = scope.get("client"), scope.get("server")
        if not client or not server:
            return False
        owner = socket_owner.socket_owner(
            (str(client[0]), int(client[1])), (str(server[0]), int(server[1]))
        )
        return owner == self.uid


def guarded(settings: Settings) -> bool:
    """Whether `serve` puts the guard in front: no token, no --insecure-public, and a system
    that says who holds a connection."""
    open_on_purpose = bool(configured_token(settings)) or settings.insecure_public
    return not open_on_purpose and socket_owner.supported()


def guard_own_user(app: FastAPI, settings: Settings) -> ASGIApp:
    """`app` as `serve` puts it on its socket, with uvicorn's proxy headers off: only
    AGENTCHAT_FORWARDED_ALLOW_IPS' X-Forwarded-* are believed (uvicorn's default believes any
    client on 127.0.0.1), and inside the guard, which looks up the socket the request came on.
    Behind them it looked up the `host:port` a believed client named (every login connects
    from 127.0.0.1): the port of a connection the server's user holds open let anyone in."""
    gate: AccountsGate | None = getattr(app.state, "accounts", None)
    served: ASGIApp = app
    allowed = settings.forwarded_allow_ips.strip()
    if allowed:
        served = cast(ASGIApp, ProxyHeadersMiddleware(cast(Any, app), trusted_hosts=allowed))
    return OwnUserMiddleware(served, os.geteuid(), gate) if guarded(settings) else served


def own_user_note(settings: Settings) -> str | None:
    """What `serve` says when nothing keeps the machine's other users out."""
    if guarded(settings) or configured_token(settings) or settings.insecure_public:
        return None
    return (
        "this system does not say who holds a loopback connection, so without "
        "AGENTCHAT_AUTH_TOKEN every user of this machine can use the API."
    )
