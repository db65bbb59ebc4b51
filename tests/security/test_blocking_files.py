"""Issue 13, finding 6: a skill file that blocks on open (a FIFO named SKILL.md) froze the
whole API: the run start opened it while holding the SQLite write slot. Now skill files are
opened without blocking and only read when regular, so nothing waits on it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentchat.app import create_app
from agentchat.core.settings import Settings
from tests.support.servers import serve_app

pytestmark = pytest.mark.timeout(60)
QUICK_S = 5.0


@pytest.fixture
def api(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    settings = Settings(data_dir=tmp_path / "data", start_bridge=False, start_scripted_llm=False)
    from agentchat.migrations import upgrade

    settings.data_dir.mkdir(parents=True)
    upgrade(settings.resolved_database_url)
    url, stop = serve_app(create_app(settings))
    try:
        yield url, settings.resolved_skills_dir
    finally:
        stop()


def _plant_fifo(skills: Path) -> None:
    folder = skills / "trap"
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "SKILL.md")


def test_a_fifo_skill_file_freezes_nothing(api: tuple[str, Path]) -> None:
    url, skills = api
    _plant_fifo(skills)
    with httpx.Client(base_url=url, timeout=QUICK_S) as http:
        listed = http.get("/api/skills")
        assert listed.status_code == 200
        trap = next(s for s in listed.json() if s["folderName"] == "trap")
        assert "not a regular file" in trap["error"]
        assert "not a regular file" in http.get("/api/skills/trap").json()["error"]

        model = {"name": "m", "baseUrl": "http://127.0.0.1:9/v1", "modelName": "g"}
        assert http.post("/api/models", json=model).status_code == 201
        session = http.post("/api/chat/sessions", json={"skillFolder": "trap"}).json()["session"]
        started = http.post(f"/api/chat/sessions/{session['id']}/runs", json={"message": "hi"})
        assert started.status_code in (201, 422), started.text
        assert http.get("/api/health").status_code in (200, 503)
        second = http.post("/api/chat/sessions", json={"title": "still writable"})
        assert second.status_code == 201
