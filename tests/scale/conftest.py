"""Several processes on loopback: API processes (`agentchat serve` subprocesses) sharing one
PostgreSQL schema and one Redis key prefix, and bridge workers sharing one secret.

PostgreSQL (127.0.0.1:5432) and Redis (AGENTCHAT_TEST_REDIS_URL, default 127.0.0.1:6379) must
be reachable: the tests fail rather than skip. The bridges and the two API processes start once
for the package; tests that kill a process start their own.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from redis import Redis
from sqlalchemy import create_engine, text

from agentchat.local_stack import free_port, wait_for_health
from agentchat.scripted_llm.server import serve_in_thread
from tests.reliability.api_process import spawn
from tests.support.databases import PG_SERVER, fresh_database_url, worker_tag
from tests.support.local_bridge import stop_local_bridges
from tests.support.servers import BridgeProcess, start_bridge
from tests.support.sse import Sse, read_events, until_terminal
from tests.support.zygote import ForkedProcess

REDIS_URL = os.environ.get("AGENTCHAT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
API_START_TIMEOUT_S = 60.0
MAX_ACTIVE_RUNS = 3


@dataclass
class Api:
    """One API process and an HTTP client on it."""

    name: str
    url: str
    process: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def post(self, path: str, body: Any = None, expect: int | None = None) -> Any:
        response = self.http.post(path, json=body)
        if expect is not None:
            assert response.status_code == expect, (self.name, response.text)
        return response.json() if response.content else None

    def get(self, path: str, expect: int = 200) -> Any:
        response = self.http.get(path)
        assert response.status_code == expect, (self.name, response.text)
        return response.json()

    def new_session(self) -> int:
        return int(self.post("/api/chat/sessions", {}, expect=201)["sessionId"])

    def start(self, session_id: int, message: str) -> dict[str, Any]:
        body = {"message": message}
        started: dict[str, Any] = self.post(
            f"/api/chat/sessions/{session_id}/runs", body, expect=201
        )
        return started

    def events(self, run_id: str, last: int | None = None, **kw: Any) -> list[Sse]:
        headers = {"Last-Event-ID": str(last)} if last is not None else None
        kw.setdefault("stop", until_terminal)
        kw.setdefault("timeout", 60.0)
        return read_events(f"{self.url}/api/chat/runs/{run_id}/stream", headers=headers, **kw)

    def ask(self, session_id: int, message: str) -> tuple[dict[str, Any], list[Sse]]:
        started = self.start(session_id, message)
        return started, self.events(started["runId"])

    def stop(self) -> None:
        self.http.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a host dies."""
        self.http.close()
        self.process.kill()
        self.process.wait(timeout=10)


@dataclass
class Cluster:
    root: Path
    database_url: str
    redis_prefix: str
    scripted_url: str
    secret: str
    bridges: list[BridgeProcess]
    apis: list[Api] = field(default_factory=list)
    redis_url: str = REDIS_URL
    # data folders of the APIs that started a local bridge (it outlives its API on purpose)
    local_bridges: list[Path] = field(default_factory=list)

    @property
    def a(self) -> Api:
        return self.apis[0]

    @property
    def b(self) -> Api:
        return self.apis[1]

    def start_api(
        self,
        name: str,
        bridge_urls: list[str] | None = None,
        *,
        own_bridge: bool = False,
        **env: str,
    ) -> Api:
        """An `agentchat serve` subprocess on a free port, healthy on return; stopped with
        the cluster (a test may stop or kill it earlier). With `own_bridge` it starts its own
        local bridge (no bridge URL, as a single `serve` does) instead of the cluster's."""
        port = free_port()
        urls = bridge_urls or [b.url for b in self.bridges]
        full_env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "AGENTCHAT_DATA_DIR": str(self.root / name),
            "AGENTCHAT_BRIDGE_SECRET": self.secret,
            "AGENTCHAT_REDIS_PREFIX": self.redis_prefix,
            "AGENTCHAT_SCRIPTED_LLM_URL": self.scripted_url,
            "AGENTCHAT_START_BRIDGE": "false",
            "AGENTCHAT_MAX_ACTIVE_RUNS": str(MAX_ACTIVE_RUNS),
            "AGENTCHAT_RUN_RATE_PER_MINUTE": "0",
            **env,
        }
        command = [
            *(sys.executable, "-m", "agentchat.cli", "serve", "--port", str(port)),
            *("--database-url", self.database_url, "--redis-url", self.redis_url),
        ]
        if own_bridge:  # its bridge gets a secret of its own
            self.local_bridges.append(self.root / name)
            for key in (
                "AGENTCHAT_BRIDGE_SECRET",
                "AGENTCHAT_START_BRIDGE",
                "AGENTCHAT_BRIDGE_URL",
            ):
                full_env.pop(key, None)
        else:
            command += ["--bridge-url", ",".join(urls)]
        log_path = self.root / f"api-{name}.out"
        with log_path.open("ab") as out:
            process = spawn(command, full_env, self.root, out.fileno())
        api = Api(name, f"http://127.0.0.1:{port}", process, log_path)
        self.apis.append(api)
        wait_for_health(api.url, process, API_START_TIMEOUT_S, path="/api/health")
        return api

    def start_bridge(self, name: str) -> BridgeProcess:
        bridge = start_bridge(self.root / name, AGENTCHAT_BRIDGE_SECRET=self.secret)
        self.bridges.append(bridge)
        return bridge

    def stop(self) -> None:
        for api in self.apis:
            api.stop()
        for bridge in self.bridges:
            bridge.stop()
        for data_dir in self.local_bridges:
            stop_local_bridges(data_dir)


def drop_schema(url_schema: str) -> None:
    admin = create_engine(PG_SERVER, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP SCHEMA IF EXISTS {url_schema} CASCADE"))
    admin.dispose()


def delete_keys(prefix: str) -> None:
    client = Redis.from_url(REDIS_URL)
    try:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        if keys:
            client.delete(*keys)
    finally:
        client.close()


@contextmanager
def new_cluster(
    tmp_path_factory: pytest.TempPathFactory, redis_url: str = REDIS_URL
) -> Iterator[Cluster]:
    """An empty cluster (one PostgreSQL schema, one Redis prefix, the scripted model); its
    processes are stopped and its data dropped on exit."""
    root = tmp_path_factory.mktemp("scale")
    tag = f"scale_{worker_tag()}_{uuid.uuid4().hex[:6]}"
    database_url = fresh_database_url("postgresql", root, tag=tag)
    prefix = f"agentchat-test:{uuid.uuid4().hex}:"
    scripted_url, stop_scripted = serve_in_thread()
    cluster = Cluster(
        root, database_url, prefix, scripted_url, secrets.token_urlsafe(16), [], [], redis_url
    )
    try:
        yield cluster
    finally:
        cluster.stop()
        stop_scripted()
        if redis_url == REDIS_URL:  # a test's own Redis goes with its data
            delete_keys(prefix)
        drop_schema(f"ac_{tag}")


@pytest.fixture(scope="package")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Two bridge workers and two API processes on one PostgreSQL schema and Redis prefix."""
    with new_cluster(tmp_path_factory) as cluster:
        cluster.start_bridge("bridge-1")
        cluster.start_bridge("bridge-2")
        cluster.start_api("a")  # registers the scripted model before b starts
        cluster.start_api("b")
        yield cluster
