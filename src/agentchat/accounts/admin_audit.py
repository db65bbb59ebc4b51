"""The audit log's entries for what administrators change outside /api/admin: the shared
models and the MCP servers every agent may use (a person's own private models, and the
checks that change nothing, `…/test`, are not logged). The routes of /api/admin log their
own actions."""

from __future__ import annotations

import re

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentchat.accounts.audit import Action, Origin, record
from agentchat.accounts.gate import AccountsGate
from agentchat.accounts.sign_in_sessions import client_of
from agentchat.principal import STATE_KEY, Principal

CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
AUDITED = re.compile(r"/api/(?P<kind>models|mcp/servers)(?:/(?P<id>[^/]+))?")
_KINDS = {"models": "model", "mcp/servers": "mcp_server"}


class AdminAuditMiddleware:
    """Inside the sign-in middleware (the request's principal is known): a change an
    administrator made, answered below 400, is recorded once its answer has gone."""

    def __init__(self, app: ASGIApp, gate: AccountsGate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        matched = AUDITED.fullmatch(scope["path"]) if scope["type"] == "http" else None
        if matched is None or scope["method"] not in CHANGES:
            await self.app(scope, receive, send)
            return
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        await self.app(scope, receive, watch)
        principal = scope.get("state", {}).get(STATE_KEY)
        if (
            status < 400
            and isinstance(principal, Principal)
            and principal.user_id is not None
            and principal.is_admin
            and self.gate.database is not None
        ):
            await self._record(scope, principal, matched, status)

    async def _record(
        self, scope: Scope, who: Principal, matched: re.Match[str], status: int
    ) -> None:
        database = self.gate.database
        assert database is not None
        agent = _header(scope, b"user-agent")
        origin = Origin(ip=client_of(scope), user_agent=agent[:255] if agent else None)
        detail = {
            "method": scope["method"],
            "object": _KINDS[matched["kind"]],
            "objectId": matched["id"],
            "status": status,
        }

        def write() -> None:
            with database.session() as db:
                record(db, Action.ADMIN_CHANGE, origin, actor=who, **detail)

        await anyio.to_thread.run_sync(write)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            return str(value.decode("latin-1"))
    return None
