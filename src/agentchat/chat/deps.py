"""Named dependencies of the chat routes: the 404 check is written once."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from agentchat.chat.sessions import get_session
from agentchat.chat.tables import ChatSession
from agentchat.core.deps import DbSession


def existing_session(session_id: int, db: DbSession) -> ChatSession:
    return get_session(db, session_id)


ChatSessionDep = Annotated[ChatSession, Depends(existing_session)]
