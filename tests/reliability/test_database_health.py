"""Finding 5: a deleted database file is noticed by /api/health and by writes (503 with a
code, not ok and not a traceback)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.reliability.api_process import start_api
from tests.support.servers import BridgeProcess


def test_a_deleted_database_file_is_unhealthy(tmp_path: Path, bridge: BridgeProcess) -> None:
    data_dir = tmp_path / "data"
    api = start_api(data_dir, bridge)
    try:
        with httpx.Client(base_url=api.url, timeout=30) as http:
            assert http.get("/api/health").json()["status"] == "ok"
            for suffix in ("", "-wal", "-shm"):
                (data_dir / f"agentchat.db{suffix}").unlink(missing_ok=True)

            health = http.get("/api/health")
            assert health.status_code == 503, health.text
            assert health.json()["error"]["code"] == "database_unavailable"

            created = http.post("/api/chat/sessions", json={})
            assert created.status_code == 503, created.text
            assert created.json()["error"]["code"] == "database_unavailable"
    finally:
        api.stop()
