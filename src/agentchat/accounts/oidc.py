"""Single sign-on with an OpenID Connect provider, through Authlib's client: discovery, the
authorization code flow with PKCE (S256) and a nonce, and the ID token checked (signature
against the provider's keys, issuer, audience, expiry, nonce).

The flow's secrets (state, nonce, PKCE verifier) wait in the database as a one-time token
(kind `oidc`, ten minutes), so the provider may return to any API process; the state is bound
to the browser that started by a cookie only its SHA-256 is kept of (a link that carries
someone else's state signs no one in)."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from authlib.deprecate import AuthlibDeprecationWarning
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from agentchat.accounts import sessions, users
from agentchat.accounts.audit import Action, Origin, record
from agentchat.accounts.errors import AccountDisabled, AccountPending
from agentchat.accounts.names import MAX_CHARS, parse_username
from agentchat.accounts.signin import Outcome
from agentchat.accounts.tables import AccountToken, AppUser
from agentchat.core.clock import utcnow
from agentchat.core.settings import Settings
from agentchat.principal import ADMIN, PENDING, USER
from agentchat.protocol.errors import AppError, Invalid

# Authlib says once, at import, that it prefers httpx2 over httpx. Its own module sets an
# "always" filter for that warning when first imported, so the "ignore" goes in after it.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", AuthlibDeprecationWarning)
    from authlib.integrations.starlette_client import OAuth

KIND = "oidc"
FLOW_TTL = timedelta(minutes=10)
SCOPES = "openid profile email"
_NAME_JUNK = re.compile(r"[^\w.-]+")


class SignOnFailed(AppError):
    status_code = 400
    code = "oidc_failed"


class StateInvalid(AppError):
    status_code = 400
    code = "oidc_state_invalid"


@dataclass(frozen=True)
class Flow:
    """What the callback needs, kept from the start."""

    nonce: str
    verifier: str
    redirect_uri: str
    next_path: str


class Provider:
    """One configured provider (AGENTCHAT_OIDC_*)."""

    def __init__(self, settings: Settings) -> None:
        assert settings.oidc_issuer and settings.oidc_client_id
        self.issuer = settings.oidc_issuer.rstrip("/")
        secret = settings.oidc_client_secret
        self.client = OAuth().register(
            "agentchat",
            client_id=settings.oidc_client_id,
            client_secret=secret.get_secret_value() if secret else None,
            server_metadata_url=f"{self.issuer}/.well-known/openid-configuration",
            client_kwargs={"scope": SCOPES, "code_challenge_method": "S256"},
        )

    async def authorization(self, redirect_uri: str) -> dict[str, str]:
        """The provider's authorization URL and this flow's state, nonce and verifier."""
        found: dict[str, str] = await self.client.create_authorization_url(redirect_uri)
        return found

    async def claims(self, code: str, flow: Flow) -> dict[str, Any]:
        """Trade the code for tokens and check the ID token; its claims."""
        try:
            token = await self.client.fetch_access_token(
                redirect_uri=flow.redirect_uri, code=code, code_verifier=flow.verifier
            )
            info = await self.client.parse_id_token(token, nonce=flow.nonce)
        except Exception as exc:  # Authlib raises several kinds; the page gets one code
            raise SignOnFailed(f"The provider's answer could not be used: {exc}") from exc
        if info is None:
            raise SignOnFailed("The provider sent no ID token.")
        claims = dict(info)
        if str(claims.get("iss", "")).rstrip("/") != self.issuer:
            raise SignOnFailed("The ID token comes from another issuer.")
        return claims


def remember(db: Session, state: str, browser: str, flow: Flow) -> None:
    now = utcnow()
    payload = {**flow.__dict__, "browser": sessions.digest(browser)}
    db.add(
        AccountToken(
            kind=KIND,
            token_digest=sessions.digest(state),
            payload=json.dumps(payload),
            created_at=now,
            expires_at=now + FLOW_TTL,
        )
    )


def recall(db: Session, state: str, browser: str | None) -> Flow:
    """The flow of `state`, used up; 400 `oidc_state_invalid` for an unknown, used or expired
    one, or one another browser started."""
    row = db.scalar(
        select(AccountToken).where(
            AccountToken.kind == KIND, AccountToken.token_digest == sessions.digest(state)
        )
    )
    payload = json.loads(row.payload or "{}") if row is not None else {}
    fresh = row is not None and row.used_at is None and row.expires_at > utcnow()
    if not fresh or not browser or payload.get("browser") != sessions.digest(browser):
        raise StateInvalid("This sign-in link is unknown, used, expired or from another browser.")
    assert row is not None
    used = db.execute(
        update(AccountToken)
        .where(AccountToken.id == row.id, AccountToken.used_at.is_(None))
        .values(used_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    if used.rowcount != 1:  # type: ignore[attr-defined]
        raise StateInvalid("This sign-in link was used already.")
    del payload["browser"]
    return Flow(**payload)


def role_of(claims: dict[str, Any], settings: Settings) -> str:
    value = claims.get(settings.oidc_role_claim)
    values = value if isinstance(value, list) else [value]
    return ADMIN if settings.oidc_admin_value in [str(v) for v in values] else USER


def sign_on(
    db: Session, issuer: str, claims: dict[str, Any], settings: Settings, origin: Origin
) -> Outcome:
    """The account of the provider's subject (made at the first sign-in; its role follows the
    claim each time) and a new session's token. A disabled or pending account is a refusal
    returned, not raised: the transaction commits the account made (a pending one waits for
    an administrator) and the failure's audit entry; the caller raises it afterwards."""
    subject = str(claims.get("sub") or "")
    if not subject:
        raise SignOnFailed("The ID token names no subject.")
    if not users.accounts_exist(db):
        raise Invalid("Create the first account before signing on.", code="accounts_off")
    role = role_of(claims, settings)
    user = db.scalar(
        select(AppUser).where(AppUser.oidc_issuer == issuer, AppUser.oidc_subject == subject)
    )
    if user is None:
        first_role = PENDING if settings.signup == "approval" and role != ADMIN else role
        user = users.create_user(
            db, _free_name(db, claims), None, first_role, oidc=(issuer, subject)
        )
        record(db, Action.USER_CREATED, origin, actor=user, target=user, method="oidc")
    elif user.role != PENDING and user.role != role:
        _follow_role(db, user, role, origin)
    if user.disabled:
        record(db, Action.SIGNIN_FAILED, origin, target=user, reason="disabled", method="oidc")
        return Outcome(refusal=AccountDisabled("This account is disabled."))
    if user.role == PENDING:
        record(db, Action.SIGNIN_FAILED, origin, target=user, reason="pending", method="oidc")
        return Outcome(refusal=AccountPending("An administrator has not approved this account."))
    token = sessions.start(db, user, "oidc", origin, timedelta(hours=settings.session_ttl_hours))
    record(db, Action.SIGNIN, origin, actor=user, method="oidc")
    return Outcome(token=token, user_id=user.id)


def _follow_role(db: Session, user: AppUser, role: str, origin: Origin) -> None:
    before = user.role
    try:
        users.set_role(db, user, role)
    except users.LastAdmin:
        return  # the provider cannot demote the last administrator
    record(db, Action.ROLE_CHANGED, origin, target=user, before=before, after=role, by="oidc")


def _free_name(db: Session, claims: dict[str, Any]) -> str:
    """preferred_username, else the e-mail's name, else the subject; made a valid name, and
    `-2`, `-3`… while it is taken or looks like a taken one."""
    email = str(claims.get("email") or "")
    wanted = str(claims.get("preferred_username") or email.partition("@")[0] or claims["sub"])
    base = _NAME_JUNK.sub("-", wanted).strip(".-_")[: MAX_CHARS - 4] or "user"
    try:
        parse_username(base)
    except AppError:
        base = "user"
    for n in range(1, 1000):
        name = base if n == 1 else f"{base}-{n}"
        parsed = parse_username(name)
        taken = db.scalar(
            select(AppUser.id).where(
                (AppUser.username_key == parsed.key) | (AppUser.lookalike_key == parsed.lookalike)
            )
        )
        if taken is None:
            return name
    raise SignOnFailed("No free user name could be made from the provider's claims.")
