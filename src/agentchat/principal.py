"""Who a request acts for: set by the sign-in middleware (web.auth), read by the routes.

Without accounts the server serves one person (the machine's user that runs it, or whoever
holds AGENTCHAT_AUTH_TOKEN): `SINGLE`, who owns every object. With accounts each request acts
for one signed-in user, and objects carry the id of the user who owns them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from agentchat.protocol.errors import AppError, Unauthorized

ADMIN = "admin"
USER = "user"
PENDING = "pending"
STATE_KEY = "principal"


class AdminOnly(AppError):
    status_code = 403
    code = "admin_only"


@dataclass(frozen=True)
class Principal:
    """`user_id` None: the one person of a server without accounts (owns everything)."""

    user_id: int | None
    role: str
    username: str = ""
    session_id: int | None = None  # the sign-in session's row (accounts mode)

    @property
    def is_admin(self) -> bool:
        return self.role == ADMIN

    @property
    def owner_id(self) -> int | None:
        """The owner every object this request touches must have; None: any owner."""
        return self.user_id

    @property
    def agent_key(self) -> str | None:
        return agent_key(self.user_id)


def agent_key(owner_id: int | None) -> str | None:
    """The opaque id the bridge keys a person's memory by (None: the one person's)."""
    return None if owner_id is None else f"user-{owner_id}"


SINGLE = Principal(user_id=None, role=ADMIN, username="")


def get_principal(request: Request) -> Principal:
    """Fail closed: a request the sign-in middleware did not vouch for is refused."""
    principal = getattr(request.state, STATE_KEY, None)
    if not isinstance(principal, Principal):
        raise Unauthorized("Sign in first.")
    return principal


def get_admin(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
    if not principal.is_admin:
        raise AdminOnly("Only an administrator may do this.")
    return principal


PrincipalDep = Annotated[Principal, Depends(get_principal)]
AdminDep = Annotated[Principal, Depends(get_admin)]
