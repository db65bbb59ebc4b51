"""/api/auth for a signed-in person: who am I, my sign-in sessions, sign out everywhere, my
password; and the public doors into an account: sign-up and invitations."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response, status
from sqlalchemy.orm import Session

from agentchat.accounts import invitations, passwords, sessions, users
from agentchat.accounts.audit import Action, record
from agentchat.accounts.cookies import drop_session_cookie, set_session_cookie
from agentchat.accounts.deps import GateDep, OriginDep, transact
from agentchat.accounts.errors import AccountsOff, PasswordWrong, SignupClosed
from agentchat.accounts.schemas import (
    Ended,
    InvitationAccept,
    InvitationInfo,
    Me,
    PasswordChange,
    SignInSession,
    SignupRequest,
    SignupResult,
)
from agentchat.accounts.signin_routes import me, session_ttl
from agentchat.core.deps import DatabaseDep, SettingsDep
from agentchat.principal import PENDING, USER, Principal, PrincipalDep
from agentchat.protocol.camel import ERROR_RESPONSES

router = APIRouter(prefix="/api/auth", tags=["auth"], responses=ERROR_RESPONSES)


def _account(who: Principal) -> int:
    """The person's account id (409 `accounts_off` for the one person of a server without)."""
    if who.user_id is None:
        raise AccountsOff("This server has no accounts yet.")
    return who.user_id


@router.get("/me", operation_id="getMe")
def get_me(who: PrincipalDep) -> Me:
    """Who this request is signed in as (`mode` single: the server has no accounts)."""
    return me(who)


@router.get("/sessions", operation_id="listMySessions")
async def list_sessions(who: PrincipalDep, database: DatabaseDep) -> list[SignInSession]:
    """The person's live sign-in sessions, most recently used first; `current` is this one."""
    user_id = _account(who)
    rows = await transact(database, lambda db: sessions.list_of(db, user_id))
    return [SignInSession.of(row, who.session_id) for row in rows]


@router.delete(
    "/sessions/{session_id}", operation_id="endMySession", status_code=status.HTTP_204_NO_CONTENT
)
async def end_session(
    session_id: int, who: PrincipalDep, database: DatabaseDep, gate: GateDep, origin: OriginDep
) -> Response:
    """End one of the person's sessions (404 for one that is not theirs)."""
    user_id = _account(who)

    def end(db: Session) -> str:
        ended = sessions.end_one(db, user_id, session_id)
        record(db, Action.SESSION_REVOKED, origin, actor=who, session=session_id)
        return ended

    token_digest = await transact(database, end)
    await gate.ended(digests=[token_digest])
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/logout-everywhere", operation_id="logoutEverywhere")
async def logout_everywhere(
    who: PrincipalDep, database: DatabaseDep, gate: GateDep, origin: OriginDep, response: Response
) -> Ended:
    """End every session of the person, this one included (open streams end too)."""
    user_id = _account(who)

    def end(db: Session) -> list[str]:
        ended = sessions.end_all(db, user_id)
        record(db, Action.SIGNOUT_EVERYWHERE, origin, actor=who, sessions=len(ended))
        return ended

    ended = await transact(database, end)
    await gate.ended(user_id=user_id, digests=ended)
    drop_session_cookie(response)
    return Ended(ended=len(ended))


@router.post("/password", operation_id="changeMyPassword")
async def change_password(
    body: PasswordChange, who: PrincipalDep, database: DatabaseDep, gate: GateDep, origin: OriginDep
) -> Ended:
    """Change the person's password (the current one first: 403 `password_wrong`); their other
    sessions end, this one stays."""
    user_id = _account(who)
    passwords.check_policy(body.new_password)

    def change(db: Session) -> list[str] | PasswordWrong:
        user = users.get_user(db, user_id)
        if not passwords.verify(user.password_hash, body.current_password):
            record(db, Action.SIGNIN_FAILED, origin, target=user, reason="password_change")
            return PasswordWrong("The current password is wrong.")
        users.set_password(db, user, body.new_password)
        record(db, Action.PASSWORD_CHANGED, origin, actor=user, target=user)
        return sessions.end_all(db, user_id, keep=who.session_id)

    outcome = await transact(database, change)
    if isinstance(outcome, PasswordWrong):
        raise outcome
    await gate.ended(digests=outcome)
    return Ended(ended=len(outcome))


@router.post("/signup", operation_id="signUp", status_code=status.HTTP_201_CREATED)
async def sign_up(
    body: SignupRequest,
    request: Request,
    response: Response,
    database: DatabaseDep,
    settings: SettingsDep,
    gate: GateDep,
    origin: OriginDep,
) -> SignupResult:
    """Ask for an account (AGENTCHAT_SIGNUP): `open` signs in at once, `approval` waits for an
    administrator (status pending), `off` answers 403 `signup_closed`."""
    if not await gate.accounts_on():
        raise AccountsOff("This server has no accounts yet: its administrator creates the first.")
    if settings.signup == "off":
        raise SignupClosed("This server does not take sign-ups: ask its administrator.")
    role = USER if settings.signup == "open" else PENDING

    def create(db: Session) -> str | None:
        user = users.create_user(db, body.username, body.password, role)
        record(db, Action.SIGNUP, origin, actor=user, target=user, role=role)
        if role == PENDING:
            return None
        return sessions.start(db, user, "signup", origin, session_ttl(settings))

    token = await transact(database, create)
    if token is None:
        return SignupResult(status="pending")
    return SignupResult(status="active", user=await _signed_in(request, response, gate, token))


@router.get("/invitations/{token}", operation_id="getInvitation")
async def get_invitation(token: str, database: DatabaseDep) -> InvitationInfo:
    """Public: whether an invitation link is still good (404 `invitation_invalid`)."""
    row = await transact(database, lambda db: invitations.usable(db, token))
    return InvitationInfo(role=row.role or USER, expires_at=row.expires_at)


@router.post("/invitations/{token}/accept", operation_id="acceptInvitation", status_code=201)
async def accept_invitation(
    token: str,
    body: InvitationAccept,
    request: Request,
    response: Response,
    database: DatabaseDep,
    settings: SettingsDep,
    gate: GateDep,
    origin: OriginDep,
) -> Me:
    """Create the invited account (the role the invitation grants) and sign in; the link is
    used up (a second accept: 404 `invitation_invalid`)."""

    def accept(db: Session) -> str:
        invitation = invitations.usable(db, token)
        if not users.accounts_exist(db):
            raise AccountsOff("This server has no accounts.")
        user = users.create_user(db, body.username, body.password, invitation.role or USER)
        invitations.use(db, invitation, user.id)
        record(db, Action.INVITATION_ACCEPTED, origin, actor=user, target=user, role=user.role)
        return sessions.start(db, user, "invite", origin, session_ttl(settings))

    session_token = await transact(database, accept)
    return await _signed_in(request, response, gate, session_token)


async def _signed_in(request: Request, response: Response, gate: GateDep, token: str) -> Me:
    settings = request.app.state.settings
    set_session_cookie(response, request, token, int(session_ttl(settings).total_seconds()))
    found = await gate.who(token)
    assert found is not None
    return me(found.principal)
