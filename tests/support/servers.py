"""Real servers for integration tests: the bridge in a subprocess, an ASGI app on a thread."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from agentchat.local_stack import PortTaken, free_port, wait_for_health
from agentchat.protocol.bridge_env import clean_bridge_environment
from tests.support.zygote import (
    ForkedProcess,
    bridge_zygote_started,
    fork_bridge,
    zygote_enabled,
)

__all__ = ["BridgeProcess", "PortTaken", "serve_app", "start_bridge"]

BRIDGE_START_TIMEOUT_S = 120.0


@dataclass
class BridgeProcess:
    url: str
    secret: str | None
    home: Path
    process: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=10)


def start_bridge(
    root: Path,
    port: int | None = None,
    *,
    secret: str | None = "auto",
    fork: bool = True,
    **env: str,
) -> BridgeProcess:
    """`agentchat bridge` on a free loopback port, healthy on return. `secret`: "auto" for a
    random shared secret, None for none, or the secret to use. PortTaken when another process
    answers on `port`; a port of its own choosing that was taken meanwhile is chosen again.
    `fork=False`: exec'd, never forked from the zygote (see below)."""
    for _ in range(2):
        try:
            return _start_bridge(root, port or free_port(), secret, fork, env)
        except PortTaken:
            if port:
                raise
    return _start_bridge(root, free_port(), secret, fork, env)


def _start_bridge(
    root: Path, port: int, secret: str | None, fork: bool, env: dict[str, str]
) -> BridgeProcess:
    root.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(16) if secret == "auto" else secret
    home, log_path = root / "hermes-home", root / f"bridge-{port}.out"
    full_env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "AGENTCHAT_SKILLS_DIR": str(root / "skills"),
        **({"AGENTCHAT_BRIDGE_SECRET": secret} if secret else {}),
        **env,
    }
    command = [sys.executable, "-m", "agentchat.cli", "bridge", "--port", str(port)]
    command += ["--hermes-home", str(home)]
    clean, _ = clean_bridge_environment(full_env)
    # Started clean, as `serve` starts its bridge (its secret on stdin): a bridge started with
    # more would replace itself with a clean one at once (clean_start.py), ~0.2 s of CPU more.
    # A test that hands it a variable the allow-list drops tests that replacement: it gets it.
    # A clean start is forked from the worker's bridge zygote (tests/support/zygote.py) from
    # the second on, unless `fork` is false (a test that reads /proc/PID/cmdline or environ).
    started_clean = bool(secret) and all(name in clean for name in env)
    with log_path.open("ab") as out:
        process: subprocess.Popen[bytes] | ForkedProcess
        if started_clean and zygote_enabled() and bridge_zygote_started() and fork:
            argv = ["agentchat", *command[3:], "--secret-stdin"]
            process = fork_bridge(argv, clean, Path.cwd(), out.fileno(), f"{secret}\n")
        else:
            process = subprocess.Popen(
                [*command, "--secret-stdin"] if started_clean else command,
                stdin=subprocess.PIPE if started_clean else None,
                stdout=out,
                stderr=subprocess.STDOUT,
                env=clean if started_clean else full_env,
            )
    if isinstance(process, subprocess.Popen) and process.stdin is not None:
        process.stdin.write(f"{secret}\n".encode())
        process.stdin.close()
    bridge = BridgeProcess(f"http://127.0.0.1:{port}", secret, home, process, log_path)
    try:
        wait_for_health(bridge.url, process, BRIDGE_START_TIMEOUT_S, pid=process.pid)
    except BaseException:
        bridge.stop()
        raise
    return bridge


def serve_app(app: FastAPI, timeout: float = 60.0) -> tuple[str, Callable[[], None]]:
    """Serve an ASGI app (lifespan on) on a thread; returns its base URL and a stop callable."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    if not server.started:
        server.should_exit = True
        sock.close()
        raise RuntimeError("the app did not start")

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=15)
        if thread.is_alive():
            server.force_exit = True
            thread.join(timeout=5)
        sock.close()

    return f"http://127.0.0.1:{port}", stop
