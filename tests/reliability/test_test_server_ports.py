"""The test servers' ports: a bridge whose port another server already holds is not taken
for healthy (a CI run lost a whole module to 401s from another worker's bridge)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI

from agentchat.local_stack import free_port
from tests.support import servers
from tests.support.servers import PortTaken, serve_app, start_bridge

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def other_server() -> Iterator[int]:
    """Something else answering 200 on /health, as another worker's bridge would."""
    app = FastAPI()

    @app.get("/health")
    def health() -> dict[str, object]:
        return {"status": "ok", "pid": os.getpid()}

    url, stop = serve_app(app)
    try:
        yield int(url.rsplit(":", 1)[1])
    finally:
        stop()


def test_a_bridge_on_a_port_another_server_holds_fails_to_start(
    tmp_path: Path, other_server: int
) -> None:
    with pytest.raises(PortTaken, match=str(other_server)):
        start_bridge(tmp_path, other_server)


def test_a_bridge_on_a_chosen_port_taken_meanwhile_moves_to_another(
    tmp_path: Path, other_server: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ports = iter([other_server])
    monkeypatch.setattr(servers, "free_port", lambda: next(ports, None) or free_port())

    bridge = start_bridge(tmp_path)
    try:
        assert not bridge.url.endswith(f":{other_server}")
        assert bridge.process.poll() is None
    finally:
        bridge.stop()


def test_free_ports_are_outside_the_range_outgoing_connections_use() -> None:
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ports = [free_port() for _ in range(50)]

    assert all(not low <= port <= high for port in ports)
    for port in ports[:5]:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))
