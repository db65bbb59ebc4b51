"""Seed chat rows with plain SQL, for migration tests: the schema is the one of some revision,
not the models' (the ORM would write columns that revision may not have)."""

from __future__ import annotations

from sqlalchemy import create_engine, text

SESSION = (
    "INSERT INTO chat_session (id, session_uuid, status, created_at, updated_at, activity_at) "
    "VALUES (1, 's1', 'ACTIVE', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
)
MESSAGE = (
    "INSERT INTO chat_message (id, session_id, parent_id, role, content, status, created_at) "
    "VALUES (:id, 1, :parent, :role, :content, :status, CURRENT_TIMESTAMP)"
)


def seed_chain(url: str, messages: list[tuple[int, str, str, str]]) -> None:
    """Session 1 and its messages `(id, role, content, status)`, each under the one before."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text(SESSION))
            for n, role, content, status in messages:
                row = {"id": n, "parent": n - 1 or None, "role": role, "content": content}
                conn.execute(text(MESSAGE), row | {"status": status})
    finally:
        engine.dispose()
