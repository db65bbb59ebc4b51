"""GET /api/health: the API is up and its database answers (503 `database_unavailable` when
the database file is gone or replaced, or the database does not answer)."""

from __future__ import annotations

from fastapi import APIRouter

from agentchat.core.deps import DatabaseDep

router = APIRouter(tags=["health"])


@router.get("/api/health", operation_id="health")
def health(database: DatabaseDep) -> dict[str, object]:
    database.check()
    return {"status": "ok", "database": database.dialect}
