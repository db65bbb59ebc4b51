"""Issue 34 item 6: `serve` died of SIGBUS, with no log line, when the SQLite `-shm` file (the
WAL index SQLite maps into memory) was cut short by another program while it ran: the next
touch of a mapped page beyond the file's new end is a bus error. Now the cut is noticed before
the next transaction, the file gets its size back (SQLite rebuilds the index from the WAL), a
line says what happened, and serve keeps answering with every chat still there."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from tests.support.serve_process import spawn_serve


def test_a_shm_file_cut_short_while_serving_is_survived_and_told(tmp_path: Path) -> None:
    data = tmp_path / "data"
    served = spawn_serve(tmp_path, "--data-dir", str(data))
    try:
        served.wait_healthy()
        with httpx.Client(base_url=served.url, timeout=10) as http:
            made = [http.post("/api/chat/sessions", json={}).json()["sessionId"] for _ in range(5)]
            shm = data / "agentchat.db-shm"
            assert shm.stat().st_size >= 32768
            os.truncate(shm, 0)
            for _ in range(5):
                created = http.post("/api/chat/sessions", json={})
                assert created.status_code == 201, created.text
                made.append(created.json()["sessionId"])
            listed = http.get("/api/chat/sessions", params={"limit": 50}).json()["items"]
            assert {item["id"] for item in listed} == set(made)
        assert served.process.poll() is None, served.log()
        served.wait_for_log("agentchat.db-shm", timeout=5)
    finally:
        served.stop()
