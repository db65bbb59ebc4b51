"""Accounts: create, find, change role, disable, set a password, delete with their data.

Services take a SQLAlchemy Session and only flush(); the caller's transaction commits. The
audit log is written by the callers that know who asked (routes, the command line)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import create_engine, func, inspect, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from agentchat.accounts import passwords
from agentchat.accounts.names import Username, parse_username, username_key
from agentchat.accounts.sessions import end_all
from agentchat.accounts.tables import AppUser
from agentchat.chat.sessions import delete_session
from agentchat.chat.tables import ChatSession
from agentchat.core.clock import utcnow
from agentchat.core.database import sqlite_file
from agentchat.models.service import delete_model
from agentchat.models.tables import AiModelConfig
from agentchat.principal import ADMIN, PENDING, USER
from agentchat.protocol.errors import Conflict, Invalid, NotFound

ROLES = (ADMIN, USER, PENDING)


class LastAdmin(Conflict):
    code = "last_admin"


def accounts_exist(db: Session) -> bool:
    return db.scalar(select(AppUser.id).limit(1)) is not None


def accounts_in(url: str) -> bool:
    """Whether the database at `url` holds an account, looked at before `serve` creates or
    migrates anything: a missing SQLite file or table, or a database that does not answer,
    holds none."""
    file = sqlite_file(url)
    if url.startswith("sqlite") and (file is None or not Path(file).is_file()):
        return False
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            if not inspect(conn).has_table(AppUser.__tablename__):
                return False
            return conn.scalar(select(AppUser.id).limit(1)) is not None
    except SQLAlchemyError:
        return False
    finally:
        engine.dispose()


def get_user(db: Session, user_id: int) -> AppUser:
    user = db.get(AppUser, user_id)
    if user is None:
        raise NotFound(f"user {user_id} not found", code="user_not_found")
    return user


def find_by_name(db: Session, name: str) -> AppUser | None:
    return db.scalar(select(AppUser).where(AppUser.username_key == username_key(name)))


def list_users(db: Session) -> list[AppUser]:
    return list(db.scalars(select(AppUser).order_by(AppUser.id)))


def check_role(role: str) -> str:
    if role not in ROLES:
        raise Invalid(f"role: one of {', '.join(ROLES)}", code="role_invalid")
    return role


def create_user(
    db: Session,
    name: str,
    password: str | None,
    role: str,
    *,
    oidc: tuple[str, str] | None = None,
) -> AppUser:
    """A new account (409 `username_taken` / `username_lookalike` when its name is another's).
    The first account is an administrator whatever `role` says, and takes every chat that
    exists (the server had one person until now)."""
    username = parse_username(name)
    _check_free(db, username)
    first = not accounts_exist(db)
    user = AppUser(
        username=username.display,
        username_key=username.key,
        lookalike_key=username.lookalike,
        role=ADMIN if first else check_role(role),
        password_hash=passwords.hash_password(password) if password is not None else None,
        oidc_issuer=oidc[0] if oidc else None,
        oidc_subject=oidc[1] if oidc else None,
        created_at=utcnow(),
    )
    db.add(user)
    db.flush()
    if first:
        adopt_unowned(db, user.id)
    return user


def _check_free(db: Session, username: Username) -> None:
    same = db.scalar(select(AppUser.id).where(AppUser.username_key == username.key))
    if same is not None:
        raise Conflict(f"The user name {username.display!r} is taken.", code="username_taken")
    alike = db.scalar(select(AppUser.username).where(AppUser.lookalike_key == username.lookalike))
    if alike is not None:
        raise Conflict(
            f"The user name {username.display!r} looks like an existing one ({alike!r}).",
            code="username_lookalike",
        )


def adopt_unowned(db: Session, admin_id: int) -> int:
    """Chats without an owner (made before accounts existed) become `admin_id`'s."""
    result = db.execute(
        update(ChatSession)
        .where(ChatSession.owner_id.is_(None))
        .values(owner_id=admin_id)
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount)  # type: ignore[attr-defined]


def adopt_at_start(db: Session) -> None:
    """With accounts, chats left without an owner (made by a process that had not noticed
    the first account yet) become the first administrator's."""
    admin_id = first_admin_id(db)
    if admin_id is not None:
        adopt_unowned(db, admin_id)


def first_admin_id(db: Session) -> int | None:
    stmt = select(AppUser.id).where(AppUser.role == ADMIN).order_by(AppUser.id).limit(1)
    return db.scalar(stmt)


def set_password(db: Session, user: AppUser, password: str) -> None:
    user.password_hash = passwords.hash_password(password)
    user.failed_signins = 0
    user.signin_blocked_until = None
    db.flush()


def set_role(db: Session, user: AppUser, role: str) -> None:
    check_role(role)
    if user.role == ADMIN and role != ADMIN:
        _keep_an_admin(db, user)
    user.role = role
    db.flush()


def set_disabled(db: Session, user: AppUser, disabled: bool) -> None:
    if disabled and user.role == ADMIN:
        _keep_an_admin(db, user)
    user.disabled = disabled
    db.flush()


def _keep_an_admin(db: Session, leaving: AppUser) -> None:
    """409 `last_admin` when `leaving` is the last administrator who can sign in."""
    others = db.scalar(
        select(func.count())
        .select_from(AppUser)
        .where(AppUser.role == ADMIN, AppUser.disabled.is_(False), AppUser.id != leaving.id)
    )
    if not others:
        raise LastAdmin("This is the last administrator: make someone else one first.")


def delete_user(db: Session, user: AppUser) -> list[str]:
    """Delete the account with its chats (409 `run_active` while one runs), private models
    (their keys) and sign-in sessions; the hermes sessions of its chats are returned (their
    agents live on in the bridges until told). The freed pages are scrubbed after commit."""
    if user.role == ADMIN:
        _keep_an_admin(db, user)
    user_id = user.id
    chats = list(db.scalars(select(ChatSession).where(ChatSession.owner_id == user_id)))
    forgotten = [h for chat in chats if (h := delete_session(db, chat))]
    model_ids = db.scalars(select(AiModelConfig.id).where(AiModelConfig.owner_id == user_id))
    for model_id in list(model_ids):
        delete_model(db, model_id)
    end_all(db, user_id)
    db.delete(get_user(db, user_id))  # delete_session expunged every loaded row
    db.flush()
    return forgotten
