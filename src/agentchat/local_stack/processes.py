"""Starting and looking at processes: free ports, health waits, the bridge's command line, pids
that may or may not still be a bridge."""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from agentchat.bridge_client import address
from agentchat.core.settings import Settings
from agentchat.protocol.bridge_env import bridge_environment

BRIDGE_START_TIMEOUT_S = 60.0
MAX_SOCKET_PATH = 100  # a socket address holds 108 bytes on Linux, 104 on macOS
BRIDGE_STOP_TIMEOUT_S = 10.0


LOWEST_FREE_PORT = 10000
_handed_out: set[int] = set()


class PortTaken(RuntimeError):
    """Another process answers on the port a server was started on."""


def free_port() -> int:
    """A loopback port nothing listens on, chosen at random below the kernel's ephemeral range:
    a port from `bind(0)` is one the kernel may give the next outgoing connection or another
    process's `bind(0)`, which then takes it before the server this port is for."""
    below = _ephemeral_low()
    for _ in range(200):
        port = random.randrange(LOWEST_FREE_PORT, below)
        if port not in _handed_out and _bindable(port):
            _handed_out.add(port)
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _ephemeral_low() -> int:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return max(low, LOWEST_FREE_PORT + 1000)


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_for_health(
    url: str,
    process: subprocess.Popen[bytes] | None,
    timeout: float,
    path: str = "/health",
    pid: int | None = None,
) -> None:
    """Wait until GET url+path answers 200; fail early when the process has exited. `pid`:
    the process that must answer (its health body says `pid`); PortTaken when another does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{url} exited with code {process.returncode} during start-up")
        try:
            response = address.get(url, path, timeout=1.0)
        except httpx.HTTPError:
            response = None
        if response is not None and response.status_code == 200:
            if pid is not None and response.json().get("pid") != pid:
                raise PortTaken(f"{url}: another process (pid {response.json().get('pid')})")
            return
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not become healthy within {timeout:.0f} s")


def bridge_socket(data_dir: Path) -> str:
    """Where the local bridge listens: `DATA_DIR/bridge.sock`; when that path is too long for
    a socket address, a socket named after the data folder in a folder of this user's own in
    the temporary directory (refused when someone else owns it or may write in it)."""
    path = data_dir.resolve() / "bridge.sock"
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return str(path)
    folder = Path(tempfile.gettempdir()) / f"agentchat-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise RuntimeError(f"{folder} is not a private folder of this user: remove it")
    digest = hashlib.sha256(os.fsencode(data_dir.resolve())).hexdigest()[:16]
    return str(folder / f"{digest}.sock")


def bridge_settings_env(settings: Settings) -> dict[str, str]:
    """The settings the local bridge is started with (also its configuration fingerprint)."""
    return {
        "AGENTCHAT_HERMES_HOME": str(settings.resolved_hermes_home),
        "AGENTCHAT_SKILLS_DIR": str(settings.resolved_skills_dir),
        "AGENTCHAT_AGENT_TOOLSETS": ",".join(settings.toolsets),
        "AGENTCHAT_AGENT_SKILL_MANAGEMENT": str(settings.agent_skill_management),
        "AGENTCHAT_BRIDGE_ORPHAN_S": str(settings.bridge_orphan_s),
    }


def spawn_bridge(settings: Settings, socket: str, secret: str) -> subprocess.Popen[bytes]:
    """`agentchat bridge` on the Unix socket `socket`, in its own session (it outlives this
    process), its secret on stdin (never in its environment, which the agent can read)."""
    log_dir = settings.data_dir.resolve() / "logs"
    log_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    env = bridge_environment(bridge_settings_env(settings))
    command = [sys.executable, "-m", "agentchat.cli", "bridge", "--uds", socket]
    with (log_dir / "bridge.out").open("ab") as out:
        process = subprocess.Popen(
            [*command, "--secret-stdin"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    assert process.stdin is not None
    process.stdin.write(f"{secret}\n".encode())
    process.stdin.close()
    return process


def pid_alive(pid: int) -> bool:
    """The process exists and is not a zombie (Linux /proc; elsewhere: it can be signalled)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        return _signallable(pid)
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def pid_stopped(pid: int) -> bool:
    """The process is stopped (SIGSTOP, or a debugger): alive, and answering nothing."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] in ("T", "t")


def _signallable(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_bridge(pid: int) -> bool:
    """Whether `pid` runs `agentchat bridge` (a recorded pid may have been reused since)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"agentchat.cli" in words and b"bridge" in words and pid_alive(pid)


def stop_pid(pid: int, timeout: float = BRIDGE_STOP_TIMEOUT_S) -> None:
    """SIGTERM a bridge that is not our child, then SIGKILL when it lingers."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not pid_alive(pid):
                return
            time.sleep(0.05)
