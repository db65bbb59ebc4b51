"""Another user of the machine names the server's own user's connection in X-Forwarded-For.

Behind a proxy on this machine the operator sets AGENTCHAT_FORWARDED_ALLOW_IPS=127.0.0.1 so
that the rate limits count the real client. Every login on the machine connects from
127.0.0.1 too, so its headers are believed as well. The proxy-headers layer puts the
forwarded `host:port` in place of the connection's address, and the own-user guard used to
look that address up: an attacker who named the port of a connection the server's user holds
(the page's open tab, read from the world-readable /proc/net/tcp) was taken for that user and
read every chat. The guard must judge the socket the request came on, whatever a header says.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.test_other_local_user import (
    as_other_user,
    exchange,
    raw_request,
    serving_a_secret_chat,
)
from tests.support.serve_process import Served

SECRET_TITLE = "forwarded secret plans"
ESTABLISHED = "01"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="acting as another user needs root")


def owners_ports(server_port: int, owner_uid: int) -> list[int]:
    """What any login reads in /proc/net/tcp: the local ports of `owner_uid`'s connections
    to `server_port` on 127.0.0.1."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    found = []
    for row in rows:
        fields = row.split()
        local, remote, state, uid = fields[1], fields[2], fields[3], int(fields[7])
        if state == ESTABLISHED and uid == owner_uid and remote.endswith(f":{server_port:04X}"):
            found.append(int(local.rsplit(":", 1)[1], 16))
    return found


def pretend_to_be_the_owner(url: str, owner_uid: int) -> tuple[int, dict[str, object]]:
    """The attacker's whole job: find the owner's open connection, name it, ask for the chats."""
    port = int(url.rsplit(":", 1)[1])
    ports = owners_ports(port, owner_uid)
    assert ports, "the owner's connection is not in /proc/net/tcp"
    request = raw_request(url, "GET", "/api/chat/sessions", X_Forwarded_For=f"127.0.0.1:{ports[0]}")
    return exchange(url, request)


@pytest.fixture
def served_behind_a_proxy(tmp_path: Path) -> Iterator[Served]:
    proxied = {"AGENTCHAT_FORWARDED_ALLOW_IPS": "127.0.0.1"}
    with serving_a_secret_chat(tmp_path, SECRET_TITLE, proxied) as server:
        yield server


def test_a_forwarded_address_does_not_make_another_user_the_owner(
    served_behind_a_proxy: Served,
) -> None:
    url = served_behind_a_proxy.url
    host, port = url.removeprefix("http://").rsplit(":", 1)
    owner_uid = os.geteuid()
    with socket.create_connection((host, int(port)), timeout=20):  # the owner's open tab
        status, body = as_other_user(lambda: pretend_to_be_the_owner(url, owner_uid))
    assert SECRET_TITLE not in json.dumps(body)
    assert (status, body["error"]["code"]) == (403, "other_user")


def test_the_owner_still_gets_in_with_a_forwarded_address(served_behind_a_proxy: Served) -> None:
    """A proxy run by the server's own user forwards someone's address: the request came on
    the owner's socket, so it passes (the proxy is the operator's guard to choose)."""
    url = served_behind_a_proxy.url
    request = raw_request(url, "GET", "/api/chat/sessions", X_Forwarded_For="203.0.113.9")
    status, body = exchange(url, request)
    assert status == 200, body
    assert [item["title"] for item in body["items"]] == [SECRET_TITLE]  # type: ignore[index]
