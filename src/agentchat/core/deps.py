"""Request-scoped dependencies: one transaction per request, owned here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from agentchat.core.database import Database
from agentchat.core.settings import Settings


def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_db(database: Annotated[Database, Depends(get_database)]) -> Iterator[Session]:
    with database.session() as session:
        yield session


# scope="function": commit before the response goes out, so a client that acts on the
# response at once (a new id, say) always finds the row.
DbSession = Annotated[Session, Depends(get_db, scope="function")]
DatabaseDep = Annotated[Database, Depends(get_database)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
