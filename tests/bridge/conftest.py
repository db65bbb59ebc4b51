"""Fixtures for the bridge: the scripted model in-thread, the bridge in a subprocess."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from agentchat.scripted_llm.server import serve_in_thread

START_TIMEOUT_S = 120.0  # cold import of hermes-agent without bytecode caches on a busy box


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class BridgeProcess:
    url: str
    home: Path
    process: subprocess.Popen[bytes]
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start_bridge(root: Path, env: dict[str, str] | None = None) -> BridgeProcess:
    """Start `agentchat bridge` on a free port and wait until /health answers ok."""
    home, log_path, port = root / "hermes-home", root / "bridge.out", free_port()
    skills = str(root / "skills")
    full_env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "AGENTCHAT_SKILLS_DIR": skills,
        **(env or {}),
    }
    command = [sys.executable, "-m", "agentchat.cli", "bridge", "--port", str(port)]
    with log_path.open("wb") as out:
        process = subprocess.Popen(
            [*command, "--hermes-home", str(home)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=full_env,
        )
    bridge = BridgeProcess(f"http://127.0.0.1:{port}", home, process, log_path)
    try:
        _wait_healthy(bridge)
    except BaseException:
        bridge.stop()
        raise
    return bridge


def _wait_healthy(bridge: BridgeProcess) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if bridge.process.poll() is not None:
            raise RuntimeError(f"bridge exited:\n{bridge.log_path.read_text()[-3000:]}")
        try:
            if httpx.get(f"{bridge.url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"bridge not healthy after {START_TIMEOUT_S}s")


@pytest.fixture(scope="module")
def scripted_model() -> Iterator[str]:
    url, stop = serve_in_thread()
    yield url
    stop()
