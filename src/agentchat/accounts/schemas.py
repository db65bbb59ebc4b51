"""The accounts API's shapes (docs/contracts.md, "Accounts")."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field, PlainSerializer

from agentchat.accounts.tables import AccountSession, AppUser, AuditEvent
from agentchat.core.clock import iso
from agentchat.protocol.camel import CamelModel

Role = Literal["admin", "user", "pending"]
NameText = Annotated[str, Field(min_length=1, max_length=256)]
PasswordText = Annotated[str, Field(min_length=1, max_length=4096)]


# A time as ISO 8601 in JSON. A typed serializer keeps the OpenAPI document's field types (a
# model-wide serializer returning Any made every field `unknown` in the page's types).
UtcDateTime = Annotated[datetime, PlainSerializer(iso, return_type=str, when_used="json")]


class Timestamps(CamelModel):
    """A response with times (UtcDateTime fields)."""


class Me(CamelModel):
    """Who the request signs in as. `mode` single: the server has no accounts (its one person:
    id null, role admin)."""

    id: int | None
    username: str
    role: Role
    mode: Literal["single", "accounts"]


class PasswordChange(CamelModel):
    current_password: PasswordText
    new_password: PasswordText


class SignupRequest(CamelModel):
    username: NameText
    password: PasswordText


class SignupResult(CamelModel):
    """`active`: signed in (the cookie is set); `pending`: an administrator approves first."""

    status: Literal["active", "pending"]
    user: Me | None = None


class SignInSession(Timestamps):
    """A sign-in session of the person (its token is never shown again)."""

    id: int
    method: str
    ip: str | None
    user_agent: str | None
    created_at: UtcDateTime
    last_seen_at: UtcDateTime
    expires_at: UtcDateTime
    current: bool

    @classmethod
    def of(cls, row: AccountSession, current_id: int | None) -> SignInSession:
        return cls(
            id=row.id,
            method=row.method,
            ip=row.ip,
            user_agent=row.user_agent,
            created_at=row.created_at,
            last_seen_at=row.last_seen_at,
            expires_at=row.expires_at,
            current=row.id == current_id,
        )


class Ended(CamelModel):
    ended: int


class UserPublic(Timestamps):
    id: int
    username: str
    role: Role
    disabled: bool
    has_password: bool
    single_sign_on: bool
    created_at: UtcDateTime
    last_signin_at: UtcDateTime | None

    @classmethod
    def of(cls, user: AppUser) -> UserPublic:
        return cls(
            id=user.id,
            username=user.username,
            role=user.role,
            disabled=user.disabled,
            has_password=user.password_hash is not None,
            single_sign_on=user.oidc_subject is not None,
            created_at=user.created_at,
            last_signin_at=user.last_signin_at,
        )


class UserCreate(CamelModel):
    username: NameText
    password: PasswordText
    role: Role = "user"


class UserUpdate(CamelModel):
    """The fields sent change: a role (pending → user approves a sign-up), or disabled (which
    ends every session of the person at once, open streams included)."""

    role: Role | None = None
    disabled: bool | None = None


class PasswordReset(CamelModel):
    password: PasswordText


class InvitationCreate(CamelModel):
    role: Literal["admin", "user"] = "user"
    expires_in_hours: float | None = Field(default=None, gt=0, le=24 * 90)


class InvitationPublic(Timestamps):
    id: int
    role: str
    created_at: UtcDateTime
    expires_at: UtcDateTime
    created_by: int | None


class InvitationCreated(InvitationPublic):
    """`token` is shown once; `path` is the page's address for it (`/invite/{token}`)."""

    token: str
    path: str


class InvitationInfo(Timestamps):
    role: str
    expires_at: UtcDateTime


class InvitationAccept(CamelModel):
    username: NameText
    password: PasswordText


class UsageRow(CamelModel):
    """One person's stored token usage on one model on one day (UTC)."""

    user_id: int
    username: str
    day: str
    model_id: int | None
    model_name: str | None
    turns: int
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class AuditPublic(Timestamps):
    id: int
    at: UtcDateTime
    action: str
    actor_id: int | None
    actor_name: str | None
    target_id: int | None
    target_name: str | None
    ip: str | None
    user_agent: str | None
    detail: dict[str, Any] | None

    @classmethod
    def of(cls, row: AuditEvent) -> AuditPublic:
        return cls(
            id=row.id,
            at=row.at,
            action=row.action,
            actor_id=row.actor_id,
            actor_name=row.actor_name,
            target_id=row.target_id,
            target_name=row.target_name,
            ip=row.ip,
            user_agent=row.user_agent,
            detail=json.loads(row.detail) if row.detail else None,
        )


class AuditPage(CamelModel):
    items: list[AuditPublic]
    next_before: int | None
