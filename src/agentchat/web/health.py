"""GET /api/health: the API is up and its database answers."""

from __future__ import annotations

from fastapi import APIRouter
from sqlalchemy import text

from agentchat.core.deps import DatabaseDep

router = APIRouter(tags=["health"])


@router.get("/api/health", operation_id="health")
def health(database: DatabaseDep) -> dict[str, object]:
    with database.session() as session:
        session.execute(text("SELECT 1"))
    return {"status": "ok", "database": database.dialect}
