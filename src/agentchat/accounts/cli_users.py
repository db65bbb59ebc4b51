"""What `agentchat users ...` does, in one transaction each (the command line is an
administrator: its actions are in the audit log as the command line's)."""

from __future__ import annotations

from pathlib import Path

from agentchat.accounts import sessions, users
from agentchat.accounts.audit import COMMAND_LINE, Action, record
from agentchat.accounts.shared_agent import hand_over
from agentchat.core.database import Database
from agentchat.principal import ADMIN, USER
from agentchat.protocol.errors import NotFound


def add_user(
    database: Database, name: str, password: str, admin: bool, hermes_home: Path | None = None
) -> str:
    """`hermes_home`: the local bridge's, whose agent memory and skills the first account
    takes (accounts.shared_agent)."""
    with database.session() as db:
        first = not users.accounts_exist(db)
        user = users.create_user(db, name, password, ADMIN if admin else USER)
        record(db, Action.USER_CREATED, COMMAND_LINE, target=user, role=user.role)
        line = f"added {user.role} {user.username}"
        user_id = user.id
    if first:
        if hermes_home is not None:
            hand_over(hermes_home, user_id)
        return (
            f"{line}: the first account. From now on everyone signs in, and the chats and the "
            "agent's memory that existed are this account's."
        )
    return line


def set_user_password(database: Database, name: str, password: str) -> str:
    """The account's sessions end in the database; API processes drop their cached copy of
    a session within a few seconds (accounts.gate.CACHE_S)."""
    with database.session() as db:
        user = users.find_by_name(db, name)
        if user is None:
            raise NotFound(f"no account is named {name!r}")
        users.set_password(db, user, password)
        ended = sessions.end_all(db, user.id)
        record(db, Action.PASSWORD_RESET, COMMAND_LINE, target=user)
        return f"password of {user.username} set; {len(ended)} sign-in session(s) ended"


def list_lines(database: Database) -> list[str]:
    with database.session() as db:
        return [
            "\t".join([u.username, u.role, *(["disabled"] if u.disabled else [])])
            for u in users.list_users(db)
        ]
