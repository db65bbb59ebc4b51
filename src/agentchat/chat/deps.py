"""Named dependencies of the routes that name a chat, a message or a run: the owner check is
written here once. Another user's object answers 404, exactly as one that does not exist
(nobody learns that it does); without accounts every object is the one person's.

`ChatSessionDep` and `OwnedMessageDep` load in the request's transaction (sync routes). The
`Owned*Id` dependencies are for async routes, which must not hold a transaction while they
await (SQLite has one writer: a run start would wait on it): they check in a short
transaction of their own and hand the route the id."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from agentchat.chat.tables import ChatMessage, ChatSession
from agentchat.core.deps import DatabaseDep, DbSession
from agentchat.principal import Principal, PrincipalDep
from agentchat.protocol.errors import NotFound


def owned(stmt: Select[Any], who: Principal) -> Select[Any]:
    """`stmt` (over ChatSession, or joined to it) narrowed to the chats `who` owns."""
    if who.owner_id is None:
        return stmt
    return stmt.where(ChatSession.owner_id == who.owner_id)


def load_session(db: Session, session_id: int, who: Principal) -> ChatSession:
    chat = db.scalar(owned(select(ChatSession).where(ChatSession.id == session_id), who))
    if chat is None:
        raise NotFound(f"chat session {session_id} not found")
    return chat


def load_message(db: Session, message_id: int, who: Principal) -> ChatMessage:
    stmt = (
        select(ChatMessage)
        .join(ChatSession, ChatSession.id == ChatMessage.session_id)
        .where(ChatMessage.id == message_id)
    )
    message = db.scalar(owned(stmt, who))
    if message is None:
        raise NotFound(f"message {message_id} not found")
    return message


def check_run(db: Session, run_id: str, who: Principal) -> None:
    stmt = (
        select(ChatMessage.id)
        .join(ChatSession, ChatSession.id == ChatMessage.session_id)
        .where(ChatMessage.run_id == run_id)
        .limit(1)
    )
    if db.scalar(owned(stmt, who)) is None:
        raise NotFound(f"run {run_id} not found")


def existing_session(session_id: int, db: DbSession, who: PrincipalDep) -> ChatSession:
    return load_session(db, session_id, who)


def existing_message(message_id: int, db: DbSession, who: PrincipalDep) -> ChatMessage:
    return load_message(db, message_id, who)


def owned_session_id(session_id: int, database: DatabaseDep, who: PrincipalDep) -> int:
    if who.owner_id is not None:
        with database.session() as db:
            load_session(db, session_id, who)
    return session_id


def owned_message_id(message_id: int, database: DatabaseDep, who: PrincipalDep) -> int:
    if who.owner_id is not None:
        with database.session() as db:
            load_message(db, message_id, who)
    return message_id


def owned_run_id(run_id: str, database: DatabaseDep, who: PrincipalDep) -> str:
    if who.owner_id is not None:
        with database.session() as db:
            check_run(db, run_id, who)
    return run_id


def owned_run_ids(run_ids: list[str], database: DatabaseDep, who: Principal) -> None:
    """Every run of a multiplexed stream is `who`'s (404 names the first that is not)."""
    if who.owner_id is None:
        return
    with database.session() as db:
        for run_id in run_ids:
            check_run(db, run_id, who)


ChatSessionDep = Annotated[ChatSession, Depends(existing_session)]
OwnedMessageDep = Annotated[ChatMessage, Depends(existing_message)]
OwnedSessionId = Annotated[int, Depends(owned_session_id)]
OwnedMessageId = Annotated[int, Depends(owned_message_id)]
OwnedRunId = Annotated[str, Depends(owned_run_id)]
