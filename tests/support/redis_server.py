"""A redis-server of a test's own (the shared one is never stopped): started, killed and
started again by the test, answering PING at `url` once `start()` returns."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from redis import Redis

from agentchat.local_stack import free_port
from tests.reliability.helpers import wait_for


class RedisServer:
    """`redis-server` with `args` (no persistence), reached at `url`."""

    def __init__(self, url: str, args: list[str]) -> None:
        self.url = url
        self.args = args
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = ["redis-server", *self.args, "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        client = Redis.from_url(self.url, socket_connect_timeout=1)
        try:
            wait_for(lambda: _pings(client), bool, timeout=20, what="redis to start")
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a paused one ends too
            self.process.kill()
            self.process.wait(timeout=10)

    def pause(self) -> None:
        """SIGSTOP: Redis holds every connection open and answers nothing (a stall)."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)


class OwnRedis(RedisServer):
    """A redis-server of the test's own on a free port (the shared one is not touched)."""

    def __init__(self, root: Path) -> None:
        port = free_port()
        args = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(root)]
        super().__init__(f"redis://127.0.0.1:{port}/0", args)


def _pings(client: Redis) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False
