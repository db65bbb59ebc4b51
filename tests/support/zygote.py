"""`agentchat serve` and `agentchat bridge` started by a fork of a process that has imported
them already (issue 29): about 2 s of CPU less per `serve`, 0.8 s per bridge. One zygote
(tests/support/zygote_server.py) per kind and test worker, started on first use and ended with
the session (`close_zygote`). `AGENTCHAT_TEST_ZYGOTE=0` turns them off: `zygote_enabled()` is
then false and serve_process.py and servers.py use subprocess.Popen.

What differs from an exec: /proc/PID/cmdline and /proc/PID/environ of the child are the
zygote's (its os.environ is the requested one); tests that read those ask for `fork=False`.
The bridges' zygote starts with the environment a bridge is given (`clean_bridge_environment`)
and preloads no module of hermes-agent, which reads its environment as it is imported."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentchat.protocol.bridge_env import clean_bridge_environment

SERVER = Path(__file__).with_name("zygote_server.py")
READY_TIMEOUT_S = 120.0


def zygote_enabled() -> bool:
    return os.environ.get("AGENTCHAT_TEST_ZYGOTE", "1") != "0"


class ForkedProcess:
    """The part of subprocess.Popen the tests use, for a child of the zygote."""

    def __init__(self, conn: socket.socket, args: list[str]) -> None:
        self.args = args
        self._conn = conn
        self._read = b""  # what came and is not a whole line yet
        self.pid = int(self._line(READY_TIMEOUT_S))
        self.returncode: int | None = None

    def _line(self, timeout: float | None) -> str:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._read:
            if deadline is not None:
                left = max(deadline - time.monotonic(), 0.0)
                if not select.select([self._conn], [], [], left)[0]:
                    raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
            chunk = self._conn.recv(64)
            if not chunk:
                raise RuntimeError("the zygote ended before its child did")
            self._read += chunk
        line, self._read = self._read.split(b"\n", 1)
        return line.decode()

    def poll(self) -> int | None:
        if self.returncode is None:
            try:
                self.returncode = int(self._line(0.0))
            except subprocess.TimeoutExpired:
                return None
            self._close()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = int(self._line(timeout))
            self._close()
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def _close(self) -> None:
        self._conn.close()


class _Zygote:
    """Started (not waited for) on construction: it preloads while the caller goes on."""

    def __init__(self, kind: str, env: dict[str, str] | None) -> None:
        self.folder = tempfile.mkdtemp(prefix="agentchat-zygote-")
        self.path = os.path.join(self.folder, "socket")
        self.process = subprocess.Popen(
            [sys.executable, "-u", "-P", str(SERVER), self.path, kind],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        self.ready = False

    def _wait_ready(self) -> None:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], READY_TIMEOUT_S)
        line = self.process.stdout.readline() if ready else b""
        if line.strip() != b"ready":
            self.process.kill()
            raise RuntimeError(f"the zygote did not start: {line!r}")
        self.ready = True

    def spawn(
        self,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        log_fd: int,
        new_session: bool,
        stdin: str | None = None,
    ) -> ForkedProcess:
        if not self.ready:
            self._wait_ready()
        request = {"argv": argv, "env": env, "cwd": str(cwd), "start_new_session": new_session}
        if stdin is not None:
            request["stdin"] = stdin
        payload = json.dumps(request).encode()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(self.path)
        socket.send_fds(conn, [struct.pack("!I", len(payload))], [log_fd])
        conn.sendall(payload)
        return ForkedProcess(conn, argv)

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()  # its signal to end
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        Path(self.path).unlink(missing_ok=True)
        os.rmdir(self.folder)


_running: dict[str, _Zygote] = {}


def _zygote(kind: str, env: dict[str, str] | None = None) -> _Zygote:
    zygote = _running.get(kind)
    if zygote is None or zygote.process.poll() is not None:
        zygote = _running[kind] = _Zygote(kind, env)
    return zygote


def fork_serve(
    argv: list[str], env: dict[str, str], cwd: Path, log_fd: int, *, new_session: bool = True
) -> ForkedProcess:
    """Start `python -m agentchat.cli ARGV[1:]` (ARGV[0] is only its name) as a zygote's child,
    its stdout and stderr on `log_fd`."""
    return _zygote("serve").spawn(argv, env, cwd, log_fd, new_session)


def bridge_zygote_started() -> bool:
    """Whether this worker's bridge zygote runs; the first call starts it (preloading while
    the caller starts its first bridge the usual way) and answers False."""
    if "bridge" in _running and _running["bridge"].process.poll() is None:
        return True
    _zygote("bridge", clean_bridge_environment(dict(os.environ))[0])
    return False


def fork_bridge(
    argv: list[str], env: dict[str, str], cwd: Path, log_fd: int, stdin: str
) -> ForkedProcess:
    """Start `python -m agentchat.cli ARGV[1:]` (`bridge ...`) as a child of the bridges'
    zygote (in its session), reading `stdin`, its stdout and stderr on `log_fd`."""
    return _zygote("bridge").spawn(argv, env, cwd, log_fd, False, stdin)


def close_zygote() -> None:
    while _running:
        _running.popitem()[1].close()
