"""A Redis password given in the URL's query, as redis-py documents it for a Unix socket
(`unix:///run/redis.sock?password=…`; `redis://host/0?password=…` works too).

`serve` says in one line when Redis does not answer, and /api/health, which anyone may read
(it answers without the token: load balancers ask it), says why answers cannot stream. Both
named the URL with only its `user:password@` part hidden: the query's password went to the
operator's logs and to anyone who could reach the port.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.reliability.helpers import wait_for
from tests.security.conftest import TOKEN
from tests.support.redis_server import RedisServer
from tests.support.serve_process import Served, spawn_serve

PASSWORD = "redis-pw-5e0c1d9a7b"


class SocketRedis(RedisServer):
    """A redis-server of this test's own on a Unix socket, with a password."""

    def __init__(self, root: Path) -> None:
        self.socket = root / "redis.sock"
        args = ["--port", "0", "--unixsocket", str(self.socket), "--requirepass", PASSWORD]
        super().__init__(f"unix://{self.socket}?password={PASSWORD}&db=0", args)


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[SocketRedis]:
    server = SocketRedis(tmp_path)
    yield server
    server.stop()


def test_serve_does_not_print_the_password_when_redis_does_not_answer(
    tmp_path: Path, redis: SocketRedis
) -> None:
    served = spawn_serve(
        tmp_path, "--data-dir", str(tmp_path / "data"), env={"AGENTCHAT_REDIS_URL": redis.url}
    )
    try:
        assert served.wait_exit() == 2
    finally:
        served.stop()
    log = served.log()
    assert "does not answer" in log, log
    assert PASSWORD not in log


@pytest.fixture
def served_with_redis(tmp_path: Path, redis: SocketRedis) -> Iterator[Served]:
    redis.start()
    env = {"AGENTCHAT_REDIS_URL": redis.url, "AGENTCHAT_AUTH_TOKEN": TOKEN}
    served = spawn_serve(tmp_path, "--data-dir", str(tmp_path / "data"), env=env)
    try:
        served.wait_healthy()
        yield served
    finally:
        served.stop()


def test_health_does_not_tell_anyone_the_password_when_redis_goes(
    served_with_redis: Served, redis: SocketRedis
) -> None:
    redis.stop()
    answer = wait_for(
        lambda: httpx.get(f"{served_with_redis.url}/api/health", timeout=10).json(),
        lambda body: body["status"] == "degraded",
        timeout=30,
        what="health to say Redis is gone",
    )
    assert "does not answer" in answer["reason"], answer
    assert PASSWORD not in str(answer)
    assert PASSWORD not in served_with_redis.log()
