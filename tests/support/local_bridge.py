"""The local bridge `agentchat serve` starts is detached from it on purpose (it outlives the
API), so tests find it themselves: by `DATA_DIR/bridge.json` and by /proc (every `agentchat
bridge` process serving a hermes home), and end it themselves."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def bridge_state(data_dir: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads((data_dir / "bridge.json").read_text())
    except (OSError, ValueError):
        return None
    return state


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def bridges_on(home: Path) -> list[int]:
    """Pids of the live `agentchat bridge` processes whose hermes home is `home`."""
    wanted = f"AGENTCHAT_HERMES_HOME={home.resolve()}".encode()
    flag = str(home.resolve()).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        ours = wanted in environ or flag in words
        if ours and b"bridge" in words and b"agentchat.cli" in words and alive(int(entry.name)):
            found.append(int(entry.name))
    return sorted(found)


def wait_gone(pid: int, timeout: float) -> bool:
    """Whether `pid` ended within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid, 10), f"{pid} survived SIGKILL"


def stop_local_bridges(data_dir: Path, home: Path | None = None) -> None:
    """End every bridge on the data folder's hermes home (SIGTERM, then SIGKILL)."""
    for pid in bridges_on(home or data_dir / "hermes-home"):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        if not wait_gone(pid, 10):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            wait_gone(pid, 10)


def _bind(port: int) -> socket.socket | None:
    squatter = socket.socket()
    squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        squatter.bind(("127.0.0.1", port))
    except OSError:
        squatter.close()
        return None
    return squatter


@contextlib.contextmanager
def squatting(port: int, api_pid: int, kill_bridge: Callable[[], None]) -> Iterator[None]:
    """Kill the bridge and hold its port before its supervisor can restart it there: the API
    (where the supervisor runs) is paused meanwhile, so there is no race to bind."""
    os.kill(api_pid, signal.SIGSTOP)
    try:
        kill_bridge()
        deadline = time.monotonic() + 20
        while (squatter := _bind(port)) is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the port is free once the killed bridge's socket is closed
    finally:
        os.kill(api_pid, signal.SIGCONT)
    assert squatter is not None
    with squatter:
        squatter.listen()
        yield
