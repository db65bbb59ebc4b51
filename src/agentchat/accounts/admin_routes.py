"""/api/admin: people (add, role, disable, reset password, delete with their data),
invitations, token usage per person, the audit log. Administrators only (403 `admin_only`);
without accounts the server's one person is the administrator, and adding the first account
turns accounts on."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from agentchat.accounts import audit, invitations, sessions, users
from agentchat.accounts.audit import Action, record
from agentchat.accounts.deps import GateDep, OriginDep, transact
from agentchat.accounts.errors import AccountsOff, OwnAccount
from agentchat.accounts.schemas import (
    AuditPage,
    AuditPublic,
    InvitationCreate,
    InvitationCreated,
    InvitationPublic,
    PasswordReset,
    UsageRow,
    UserCreate,
    UserPublic,
    UserUpdate,
)
from agentchat.accounts.shared_agent import hand_over
from agentchat.accounts.tables import AccountToken
from agentchat.accounts.usage import usage_table
from agentchat.core.clock import utcnow
from agentchat.core.deps import DatabaseDep, SettingsDep
from agentchat.principal import AdminDep, Principal, agent_key
from agentchat.protocol.camel import ERROR_RESPONSES

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=ERROR_RESPONSES)
MAX_AUDIT_PAGE = 200
MAX_USAGE_DAYS = 366


@router.get("/users", operation_id="listUsers")
async def list_users(_: AdminDep, database: DatabaseDep) -> list[UserPublic]:
    rows = await transact(database, users.list_users)
    return [UserPublic.of(row) for row in rows]


@router.post("/users", operation_id="createUser", status_code=status.HTTP_201_CREATED)
async def create_user(
    body: UserCreate,
    who: AdminDep,
    database: DatabaseDep,
    settings: SettingsDep,
    gate: GateDep,
    origin: OriginDep,
) -> UserPublic:
    """Add a person. The first account is an administrator whatever `role` says, takes every
    chat that exists and the agent's memory and skills, and turns accounts on: from then
    everyone signs in."""

    def create(db: Session) -> tuple[UserPublic, bool]:
        first = not users.accounts_exist(db)
        user = users.create_user(db, body.username, body.password, body.role)
        record(db, Action.USER_CREATED, origin, actor=_actor(who), target=user, role=user.role)
        return UserPublic.of(user), first

    created, first = await transact(database, create)
    if first:
        await run_in_threadpool(hand_over, settings.resolved_hermes_home, created.id)
        await gate.announce_on()
    return created


@router.patch("/users/{user_id}", operation_id="updateUser")
async def update_user(
    user_id: int,
    body: UserUpdate,
    who: AdminDep,
    database: DatabaseDep,
    gate: GateDep,
    origin: OriginDep,
) -> UserPublic:
    """Change a role (pending → user approves a sign-up) or disable / enable. Disabling ends
    every session of the person at once, open streams included. 409 `last_admin` when it
    would leave no administrator who can sign in."""

    def change(db: Session) -> tuple[UserPublic, bool]:
        user = users.get_user(db, user_id)
        ends = False
        if body.role is not None and body.role != user.role:
            before = user.role
            users.set_role(db, user, body.role)
            record(
                db,
                Action.ROLE_CHANGED,
                origin,
                actor=_actor(who),
                target=user,
                before=before,
                after=body.role,
            )
            ends = body.role == "pending"
        if body.disabled is not None and body.disabled != user.disabled:
            users.set_disabled(db, user, body.disabled)
            action = Action.USER_DISABLED if body.disabled else Action.USER_ENABLED
            record(db, action, origin, actor=_actor(who), target=user)
            ends = ends or body.disabled
        if ends:
            sessions.end_all(db, user.id)
        return UserPublic.of(user), ends

    public, ends = await transact(database, change)
    if ends:
        await gate.ended(user_id=user_id)
    return public


@router.post("/users/{user_id}/password", operation_id="resetUserPassword")
async def reset_password(
    user_id: int,
    body: PasswordReset,
    who: AdminDep,
    database: DatabaseDep,
    gate: GateDep,
    origin: OriginDep,
) -> UserPublic:
    """Set a person's password; their sessions end (they sign in with the new one)."""

    def reset(db: Session) -> UserPublic:
        user = users.get_user(db, user_id)
        users.set_password(db, user, body.password)
        sessions.end_all(db, user.id)
        record(db, Action.PASSWORD_RESET, origin, actor=_actor(who), target=user)
        return UserPublic.of(user)

    public = await transact(database, reset)
    await gate.ended(user_id=user_id)
    return public


@router.delete(
    "/users/{user_id}", operation_id="deleteUser", status_code=status.HTTP_204_NO_CONTENT
)
async def delete_user(
    user_id: int,
    request: Request,
    who: AdminDep,
    database: DatabaseDep,
    gate: GateDep,
    origin: OriginDep,
) -> Response:
    """Delete a person with their data: chats (409 `run_active` while one runs), private
    models and their keys, sessions; the freed database pages are scrubbed, their chats'
    agents dropped from the bridges, and their agent's long-term memory and skills too. Not
    oneself (409 `own_account`), not the last administrator (409 `last_admin`)."""
    if who.user_id == user_id:
        raise OwnAccount("You cannot delete your own account.")

    def delete(db: Session) -> list[str]:
        user = users.get_user(db, user_id)
        name = user.username
        forgotten = users.delete_user(db, user)
        record(
            db,
            Action.USER_DELETED,
            origin,
            actor=_actor(who),
            target_name=name,
            chats=len(forgotten),
        )
        return forgotten

    forgotten = await transact(database, delete)
    await gate.ended(user_id=user_id)
    forget = getattr(request.app.state, "forget_agent", None)
    if forget is not None:
        for hermes_session in forgotten:
            await forget(hermes_session)
    forget_person = getattr(request.app.state, "forget_person", None)
    key = agent_key(user_id)
    if forget_person is not None and key is not None:  # their agent's memory and skills
        await forget_person(key)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/invitations", operation_id="createInvitation", status_code=201)
async def create_invitation(
    body: InvitationCreate,
    who: AdminDep,
    database: DatabaseDep,
    settings: SettingsDep,
    gate: GateDep,
    origin: OriginDep,
) -> InvitationCreated:
    """A link for one new account with `role`, good once until it expires (default
    AGENTCHAT_INVITATION_TTL_HOURS). The token is shown only here."""
    if not await gate.accounts_on():
        raise AccountsOff("Create your own account first: the first account is yours.")
    hours = body.expires_in_hours or settings.invitation_ttl_hours

    def create(db: Session) -> tuple[AccountToken, str]:
        row, token = invitations.create(db, body.role, timedelta(hours=hours), who.user_id)
        record(
            db,
            Action.INVITATION_CREATED,
            origin,
            actor=_actor(who),
            role=body.role,
            invitation=row.id,
        )
        return row, token

    row, token = await transact(database, create)
    return InvitationCreated(**_invitation(row).model_dump(), token=token, path=f"/invite/{token}")


@router.get("/invitations", operation_id="listInvitations")
async def list_invitations(_: AdminDep, database: DatabaseDep) -> list[InvitationPublic]:
    """The invitations not used and not expired yet."""
    rows = await transact(database, invitations.open_ones)
    return [_invitation(row) for row in rows]


@router.delete(
    "/invitations/{invitation_id}",
    operation_id="revokeInvitation",
    status_code=status.HTTP_204_NO_CONTENT,
)
async def revoke_invitation(
    invitation_id: int, who: AdminDep, database: DatabaseDep, origin: OriginDep
) -> Response:
    def revoke(db: Session) -> None:
        invitations.revoke(db, invitation_id)
        record(db, Action.INVITATION_REVOKED, origin, actor=_actor(who), invitation=invitation_id)

    await transact(database, revoke)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/usage", operation_id="usagePerUser")
async def usage(
    _: AdminDep,
    database: DatabaseDep,
    days: Annotated[int, Query(ge=1, le=MAX_USAGE_DAYS, description="The last N days")] = 30,
) -> list[UsageRow]:
    """Stored token usage per person, per model, per day (UTC), oldest day first."""
    until = utcnow() + timedelta(minutes=1)
    since = datetime.combine((until - timedelta(days=days - 1)).date(), datetime.min.time())
    return await transact(database, lambda db: usage_table(db, since, until))


@router.get("/audit", operation_id="auditLog")
async def audit_log(
    _: AdminDep,
    database: DatabaseDep,
    limit: Annotated[int, Query(ge=1, le=MAX_AUDIT_PAGE)] = 50,
    before: Annotated[int | None, Query(ge=1, description="nextBefore of the last page")] = None,
    action: Annotated[str | None, Query(max_length=32)] = None,
) -> AuditPage:
    """Sign-ins, failed sign-ins, administrators' actions and role changes, newest first."""
    rows = await transact(database, lambda db: audit.page(db, limit, before, action))
    items = [AuditPublic.of(row) for row in rows]
    return AuditPage(items=items, next_before=rows[-1].id if len(rows) == limit else None)


def _actor(who: Principal) -> Principal | None:
    """The single-mode person is nobody in the log (the machine's user, or the token's)."""
    return who if who.user_id is not None else None


def _invitation(row: AccountToken) -> InvitationPublic:
    return InvitationPublic(
        id=row.id,
        role=row.role or "user",
        created_at=row.created_at,
        expires_at=row.expires_at,
        created_by=row.created_by,
    )
