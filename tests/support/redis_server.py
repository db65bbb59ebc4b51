"""A redis-server of a test's own (the shared one is never stopped): started, killed and
started again by the test, answering PING at `url` once `start()` returns."""

from __future__ import annotations

import subprocess

from redis import Redis

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
            self.process.kill()
            self.process.wait(timeout=10)


def _pings(client: Redis) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False
