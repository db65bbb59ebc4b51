"""Another user of the machine, on loopback, against a server with no token.

Loopback is shared by every user of the machine. The attacker here is a second login (uid
65534) with no access to the data folder: before, it read every chat and could drive the agent
through 127.0.0.1. A real `agentchat serve` runs as this test's user; the attacker's requests
come from a forked child that has dropped to the other user, over a real TCP connection.
"""

from __future__ import annotations

import json
import os
import pickle
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.security.conftest import TOKEN
from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

OTHER_UID = 65534  # nobody
SECRET_TITLE = "my secret plans"
REFUSAL = "refused POST /api/chat/sessions"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="acting as another user needs root")


def as_other_user(work: Callable[[], Any]) -> Any:
    """`work()` in a forked child that runs as OTHER_UID; its pickled result comes back."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to the other user, do the work, report, exit at once
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(OTHER_UID)
            os.setuid(OTHER_UID)
            outcome: Any = ("ok", work())
        except BaseException as exc:
            outcome = ("error", repr(exc))
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(pickle.dumps(outcome))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        kind, value = pickle.loads(pipe.read())
    os.waitpid(pid, 0)
    assert kind == "ok", value
    return value


def raw_request(url: str, method: str, path: str, body: bytes = b"", **headers: str) -> bytes:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    if body:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def exchange(url: str, request: bytes) -> tuple[int, dict[str, Any]]:
    """Send `request` and read the whole answer: (status, JSON body)."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=20) as conn:
        conn.sendall(request)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body or b"null")


def send_and_vanish(url: str, request: bytes) -> None:
    """Send `request` and close at once, before the answer: the client socket is gone (or
    waiting in TIME_WAIT, which the kernel lists as nobody's) while the server handles it."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=20)
    conn.sendall(request)
    conn.shutdown(socket.SHUT_WR)
    conn.close()


@contextmanager
def serving_a_secret_chat(
    folder: Path, title: str = SECRET_TITLE, env: dict[str, str] | None = None
) -> Iterator[Served]:
    """A real `serve` on `folder`, holding one chat titled `title`, made by its own user."""
    with ServeStarter() as started:
        server = started.start(folder, "--data-dir", str(folder / "data"), env=env)
        made = httpx.post(f"{server.url}/api/chat/sessions", json={"title": title})
        assert made.status_code == 201, made.text
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving_a_secret_chat(tmp_path_factory.mktemp("own-user")) as server:
        yield server


def session_titles(url: str) -> list[str]:
    listed = httpx.get(f"{url}/api/chat/sessions")
    assert listed.status_code == 200, listed.text
    return [item["title"] for item in listed.json()["items"]]


def test_another_user_of_the_machine_cannot_read_the_chats(server: Served) -> None:
    request = raw_request(server.url, "GET", "/api/chat/sessions")
    status, body = as_other_user(lambda: exchange(server.url, request))
    assert status == 403
    assert body["error"]["code"] == "other_user"
    assert SECRET_TITLE not in json.dumps(body)
    assert "AGENTCHAT_AUTH_TOKEN" in body["error"]["message"]
    assert session_titles(server.url) == [SECRET_TITLE]  # the server's own user still gets in


def test_another_user_cannot_change_anything(server: Served) -> None:
    body = json.dumps({"title": "planted"}).encode()
    request = raw_request(server.url, "POST", "/api/chat/sessions", body)
    status, answer = as_other_user(lambda: exchange(server.url, request))
    assert (status, answer["error"]["code"]) == (403, "other_user")
    assert "planted" not in session_titles(server.url)


def test_a_request_whose_socket_is_already_closed_does_not_pass(server: Served) -> None:
    """A closed socket waiting in TIME_WAIT is listed with uid 0 and no inode: it is nobody's,
    not root's, so a request sent and abandoned at once is refused too (each refusal is
    logged, which is how the test knows the server has handled the request)."""
    marker = f"vanished-{os.getpid()}"
    request = raw_request(
        server.url, "POST", "/api/chat/sessions", json.dumps({"title": marker}).encode()
    )
    before = server.log().count(REFUSAL)
    for attempt in range(1, 6):
        as_other_user(lambda: send_and_vanish(server.url, request))
        server.wait_until(
            lambda n=before + attempt: server.log().count(REFUSAL) >= n, "to refuse it"
        )
    assert marker not in session_titles(server.url)


def test_with_a_token_another_user_signs_in_like_anyone(
    tmp_path: Path, served: ServeStarter
) -> None:
    env = {"AGENTCHAT_AUTH_TOKEN": TOKEN}
    server = served.start(tmp_path, "--data-dir", str(tmp_path / "data"), env=env)
    bare = raw_request(server.url, "GET", "/api/chat/sessions")
    signed = raw_request(server.url, "GET", "/api/chat/sessions", Authorization=f"Bearer {TOKEN}")
    assert as_other_user(lambda: exchange(server.url, bare))[0] == 401
    status, body = as_other_user(lambda: exchange(server.url, signed))
    assert status == 200, body
