"""Chat test fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import update

from agentchat.chat.tables import ChatMessage
from agentchat.core.database import Database


@pytest.fixture(autouse=True)
def _unlink_trees(request: pytest.FixtureRequest) -> Iterator[None]:
    """Set parent_id to NULL before the shared fixture empties the tables.

    Emptying chat_message otherwise cascades once per tree level, past SQLite's trigger depth
    (1000) and MariaDB's cascade depth (15).
    """
    used = [
        request.getfixturevalue(name)
        for name in ("database", "any_database")
        if name in request.fixturenames
    ]
    yield
    for db in used:
        assert isinstance(db, Database)
        with db.session() as s:
            s.execute(update(ChatMessage).values(parent_id=None))
