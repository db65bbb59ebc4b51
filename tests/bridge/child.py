"""A child process of a bridge test (a real bridge app with the real hermes-agent in a process of
its own: hermes binds HERMES_HOME at import) and the JSON report it prints last."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def run_child(module: str, cwd: Path, *args: str, timeout: float = 150) -> dict[str, Any]:
    """`python -m MODULE ARGS` in `cwd` with this checkout importable; its last line as JSON."""
    paths = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    done = subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report
