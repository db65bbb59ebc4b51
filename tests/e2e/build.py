"""The browser tests need the built page: build it when it is missing or older than its sources.

A build that cannot run fails the tests with the reason; nothing is skipped.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRONTEND = ROOT / "frontend"
INDEX = ROOT / "src" / "agentchat" / "static" / "index.html"
BUILD_TIMEOUT_S = 300


def _newest_source() -> float:
    sources = [FRONTEND / "index.html", *FRONTEND.glob("vite.config.*")]
    sources += [p for p in (FRONTEND / "src").rglob("*") if p.is_file()]
    return max(p.stat().st_mtime for p in sources if p.exists())


def is_stale() -> bool:
    return not INDEX.is_file() or INDEX.stat().st_mtime < _newest_source()


def ensure_page_built() -> None:
    """Build under a lock so that parallel test workers build once."""
    with (Path(tempfile.gettempdir()) / "agentchat-e2e-build.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if is_stale():
            _build()


def _build() -> None:
    npm = shutil.which("npm")
    if npm is None or not (FRONTEND / "node_modules").is_dir():
        pytest.fail(f"{INDEX} is missing or stale and cannot be built here: run `make frontend`")
    result = subprocess.run(
        [npm, "run", "build", "--silent"],
        cwd=FRONTEND,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
        check=False,
    )
    if result.returncode != 0 or not INDEX.is_file():
        pytest.fail(f"front-end build failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
