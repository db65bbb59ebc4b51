"""Without a token the server binds loopback only, unless told --insecure-public."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentchat import cli
from agentchat.local_stack import free_port
from agentchat.web.bind_rules import UnsafeBind, bind_note, check_bind, is_loopback
from tests.security.conftest import TOKEN, make_settings

SERVE_ENV_NAMES = (
    "AGENTCHAT_AUTH_TOKEN",
    "AGENTCHAT_INSECURE_PUBLIC",
    "AGENTCHAT_HOST",
    "AGENTCHAT_PORT",
    "AGENTCHAT_DATA_DIR",
)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "localhost", "::1", "[::1]"])
def test_loopback_addresses_are_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "192.168.1.5", "example.com", "10.0.0.1"])
def test_public_addresses_are_refused_without_a_token(tmp_path: Path, host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(UnsafeBind, match="AGENTCHAT_AUTH_TOKEN"):
        check_bind(host, make_settings(tmp_path))


def test_a_token_or_insecure_public_allows_a_public_bind(tmp_path: Path) -> None:
    check_bind("0.0.0.0", make_settings(tmp_path, auth_token=TOKEN))
    check_bind("0.0.0.0", make_settings(tmp_path, insecure_public=True))
    with pytest.raises(UnsafeBind):
        check_bind("0.0.0.0", make_settings(tmp_path, auth_token=""))


def test_serve_on_all_interfaces_without_a_token_exits_with_a_message(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in SERVE_ENV_NAMES}
    command = [sys.executable, "-m", "agentchat.cli", "serve", "--host", "0.0.0.0"]
    command += ["--port", str(free_port()), "--data-dir", str(tmp_path / "data")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "Refusing to serve on '0.0.0.0'" in done.stderr
    assert "--insecure-public" in done.stderr
    assert not (tmp_path / "data").exists()


def test_the_insecure_public_flag_reaches_the_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process, with uvicorn.run replaced: nothing is actually served."""
    for name in SERVE_ENV_NAMES:
        monkeypatch.setenv(name, "")  # restored after the test; the command writes some
        monkeypatch.delenv(name)
    served: list[tuple[str, int]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, host, port, **kw: served.append((host, port)))
    args = ["serve", "--host", "0.0.0.0", "--port", "1", "--data-dir", str(tmp_path / "d")]
    refused = CliRunner().invoke(cli.app, args)
    assert refused.exit_code == 2
    assert served == []
    allowed = CliRunner().invoke(cli.app, [*args, "--insecure-public"])
    assert allowed.exit_code == 0, allowed.output
    assert served == [("0.0.0.0", 1)]
    assert "AGENTCHAT_ALLOWED_HOSTS" in allowed.output


def test_bind_note_only_for_all_interfaces(tmp_path: Path) -> None:
    assert bind_note("127.0.0.1", make_settings(tmp_path)) is None
    assert bind_note("0.0.0.0", make_settings(tmp_path, allowed_hosts="*")) is None
    note = bind_note("0.0.0.0", make_settings(tmp_path, allowed_hosts="chat.lan"))
    assert note is not None and "chat.lan" in note
