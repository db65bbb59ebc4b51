"""A server with accounts may bind beyond loopback without AGENTCHAT_AUTH_TOKEN: every request
signs in as a person (README, Accounts, step 2). Without accounts the same start is refused
before anything is created (tests/security/test_bind.py)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from agentchat.accounts import users
from agentchat.accounts.users import accounts_in
from agentchat.core.database import Database
from tests.support.databases import DIALECTS, fresh_database_url, worker_tag
from tests.support.serve_starter import ServeStarter

PASSWORD = "correct horse battery"


def _outward_address() -> str | None:
    """An address of this machine that is not loopback (None on a machine without one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # UDP: nothing is sent
        except OSError:
            return None
        address: str = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def _add_admin(data_dir: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCHAT_")}
    env["AGENTCHAT_DATA_DIR"] = str(data_dir)
    command = [sys.executable, "-m", "agentchat.cli", "users", "add", "alice", "--admin"]
    added = subprocess.run(
        [*command, "--password-stdin"],
        input=PASSWORD + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr


def test_serve_with_accounts_binds_all_interfaces_without_a_token(
    tmp_path: Path, served: ServeStarter
) -> None:
    data_dir = tmp_path / "data"
    _add_admin(data_dir)
    outward = _outward_address()
    hosts = "127.0.0.1,localhost" + (f",{outward}" if outward else "")
    env = {"AGENTCHAT_ALLOWED_HOSTS": hosts}
    serve = served.spawn(tmp_path, "--host", "0.0.0.0", "--data-dir", str(data_dir), env=env)
    serve.wait_healthy()
    assert "Refusing" not in serve.log()
    assert "serve it over HTTPS" in serve.log()  # passwords cross the network: the note says so
    assert "every user of this machine can use the API" not in serve.log()

    urls = [serve.url] + ([serve.url.replace("127.0.0.1", outward)] if outward else [])
    for url in urls:  # loopback, and the machine's outward address when it has one
        with httpx.Client(base_url=url, timeout=30) as anonymous:
            assert anonymous.get("/api/chat/sessions").status_code == 401
            assert anonymous.get("/api/auth/status").json()["mode"] == "accounts"
            wrong = {"username": "alice", "password": "not the password"}
            assert anonymous.post("/api/auth/login", json=wrong).status_code == 401
        with httpx.Client(base_url=url, timeout=30) as alice:
            right = {"username": "alice", "password": PASSWORD}
            signed_in = alice.post("/api/auth/login", json=right)
            assert signed_in.status_code == 200, signed_in.text
            assert alice.get("/api/chat/sessions").status_code == 200


def test_serve_without_accounts_still_refuses_all_interfaces(
    tmp_path: Path, served: ServeStarter
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o700)
    (data_dir / "agentchat.db").write_bytes(b"")  # a database file without the accounts table
    serve = served.spawn(tmp_path, "--host", "0.0.0.0", "--data-dir", str(data_dir))
    assert serve.wait_exit() == 2, serve.log()
    assert "Refusing to serve on '0.0.0.0'" in serve.log()
    assert "agentchat users add" in serve.log()


@pytest.mark.db
@pytest.mark.parametrize("dialect", DIALECTS)
def test_serve_finds_an_account_without_creating_anything(dialect: str, tmp_path: Path) -> None:
    """`accounts_in` on each database: no schema yet, the schema without accounts, one
    account; a database that does not answer holds none (serve then refuses)."""
    bare = fresh_database_url(dialect, tmp_path, f"{worker_tag()}_bind", migrate=False)
    assert accounts_in(bare) is False
    url = fresh_database_url(dialect, tmp_path, f"{worker_tag()}_bind")
    assert accounts_in(url) is False
    database = Database(url)
    try:
        with database.session() as db:
            users.create_user(db, "alice", PASSWORD, "admin")
    finally:
        database.dispose()
    assert accounts_in(url) is True
    assert accounts_in(f"sqlite:///{tmp_path / 'none' / 'agentchat.db'}") is False
    assert not (tmp_path / "none").exists()
    assert accounts_in("postgresql+psycopg://nobody:x@127.0.0.1:9/db") is False
