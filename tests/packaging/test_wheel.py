"""Issue 18: Agent Chat installs like a Python application. The wheel built from this checkout
carries the page; installed into a fresh virtual environment with no Node on PATH, `agentchat
serve --data-dir <empty folder>` serves the page, the API and a real run through its bridge.

Dependencies come from requirements.lock through uv's cache (seconds, not minutes)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

import agentchat
from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter
from tests.support.sse import read_events, until_terminal

pytestmark = [pytest.mark.packaging, pytest.mark.timeout(420)]

ROOT = Path(__file__).parents[2]
UV = Path(sys.executable).with_name("uv")  # installed into .venv by `make`
BASE_PYTHON = getattr(sys, "_base_executable", sys.executable)
PAGE = ROOT / "src/agentchat/static/index.html"
START_TIMEOUT_S = 240.0  # the bridge imports hermes-agent, slow on a loaded machine
INSTALL_TIMEOUT_S = 180.0


@dataclass
class Installed:
    wheel: Path
    venv: Path
    path: str  # PATH for its processes: the venv's bin only, no Node

    def run(self, *args: str) -> str:
        env = {"PATH": self.path, "HOME": str(self.venv.parent)}
        done = subprocess.run(
            args, env=env, capture_output=True, text=True, timeout=60, cwd=self.venv.parent
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()


def _uv(*args: str, path: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """uv with this environment (its cache, certificates) but PATH replaced: no Node."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run(
        [str(UV), *args],
        env={**env, "PATH": path, "UV_NO_CONFIG": "1"},
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        cwd=cwd,
    )


def _uv_ok(*args: str, path: str) -> None:
    done = _uv(*args, path=path)
    assert done.returncode == 0, f"uv {' '.join(args)}:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built and installed the way README's "Install from a wheel" says, Node-less."""
    assert PAGE.is_file(), "the page is not built: run `make frontend` (make test does)"
    root = tmp_path_factory.mktemp("wheel")
    venv = root / "venv"
    path = str(venv / "bin")
    assert shutil.which("node", path=path) is None and shutil.which("npm", path=path) is None
    _uv_ok("build", "--wheel", "--python", BASE_PYTHON, "--out-dir", str(root / "dist"), path=path)
    (wheel,) = (root / "dist").glob("agentchat-*.whl")
    _uv_ok("venv", "--quiet", "--python", BASE_PYTHON, str(venv), path=path)
    python = str(venv / "bin" / "python")
    _uv_ok("pip", "sync", "--quiet", "--python", python, "requirements.lock", path=path)
    _uv_ok("pip", "install", "--quiet", "--no-deps", "--python", python, str(wheel), path=path)
    _uv_ok("pip", "check", "--python", python, path=path)  # the wheel's requirements are met
    return Installed(wheel, venv, path)


@pytest.fixture(scope="module")
def server(installed: Installed) -> Iterator[Served]:
    data_dir = installed.venv.parent / "empty-data"
    data_dir.mkdir()
    with ServeStarter() as started:
        yield started.start(
            installed.venv.parent / "logs",
            *("--data-dir", str(data_dir)),
            command=[str(installed.venv / "bin" / "agentchat")],
            env={"PATH": installed.path, "AGENTCHAT_START_BRIDGE": "true"},
            inherit=False,
            timeout=START_TIMEOUT_S,
        )


def test_the_wheel_carries_the_built_page(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    assert "agentchat/static/index.html" in names
    assets = re.findall(r'(?:src|href)="/(assets/[^"]+)"', PAGE.read_text())
    assert assets and {f"agentchat/static/{a}" for a in assets} <= names
    assert "agentchat/migrations/versions/0001_initial_schema.py" in names


def test_the_installed_command_reports_the_one_version(installed: Installed) -> None:
    agentchat_bin = str(installed.venv / "bin" / "agentchat")
    assert installed.run(agentchat_bin, "--version") == f"agentchat {agentchat.__version__}"
    assert installed.wheel.name.startswith(f"agentchat-{agentchat.__version__}-")
    where = installed.run(
        str(installed.venv / "bin" / "python"), "-c", "import agentchat; print(agentchat.__file__)"
    )
    assert where.startswith(str(installed.venv)), where  # the installed copy, not this checkout


def test_serve_on_an_empty_folder_gives_the_page_and_the_api(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        health = http.get("/api/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        page = http.get("/")
        assert page.status_code == 200 and '<div id="app">' in page.text
        script = re.search(r'src="(/assets/[^"]+\.js)"', page.text)
        assert script is not None, page.text
        asset = http.get(script.group(1))
        assert asset.status_code == 200 and "javascript" in asset.headers["content-type"]
        assert http.get("/api/info").json()["version"] == agentchat.__version__


def test_a_run_answers_through_the_installed_bridge(server: Served) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        started = http.post(
            f"/api/chat/sessions/{session_id}/runs", json={"message": "#say hello from a wheel"}
        )
        assert started.status_code == 201, started.text
        run_id = started.json()["runId"]
    events = read_events(f"{server.url}/api/chat/runs/{run_id}/stream", stop=until_terminal)
    assert events[-1].event == "workflow_complete", [e.event for e in events]
    assert events[-1].data["finalText"] == "hello from a wheel"


def test_without_the_built_page_the_build_stops_with_a_clear_message(tmp_path: Path) -> None:
    source = tmp_path / "checkout"
    source.mkdir()
    for name in ("pyproject.toml", "hatch_build.py", "README.md", "requirements.lock"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("static"))
    done = _uv(
        *("build", "--wheel", "--python", BASE_PYTHON, "--out-dir", str(tmp_path)),
        path=str(tmp_path),
        cwd=source,
    )
    assert done.returncode != 0
    assert "the page is not built" in done.stderr and "make frontend" in done.stderr
    assert not list(tmp_path.glob("*.whl"))
