"""`agentchat users add|passwd|list`: the password comes from a prompt or standard input,
never the command line; the first account is the administrator."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from agentchat.accounts import passwords, users
from agentchat.core.database import Database


def _users(data_dir: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCHAT_")}
    env["AGENTCHAT_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "agentchat.cli", "users", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_users_add_then_passwd_from_standard_input(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = _users(data, "add", "alice", "--password-stdin", stdin="first password\n")
    assert first.returncode == 0, first.stderr
    assert "added admin alice" in first.stdout and "first account" in first.stdout
    second = _users(data, "add", "bob", "--password-stdin", stdin="bob's password\n")
    assert "added user bob" in second.stdout
    taken = _users(data, "add", "ALICE", "--password-stdin", stdin="whatever123\n")
    assert taken.returncode == 2 and "taken" in taken.stderr
    short = _users(data, "add", "carol", "--password-stdin", stdin="short\n")
    assert short.returncode == 2 and "at least 8" in short.stderr

    changed = _users(data, "passwd", "bob", "--password-stdin", stdin="another password\n")
    assert changed.returncode == 0, changed.stderr
    assert _users(data, "list").stdout.splitlines() == ["alice\tadmin", "bob\tuser"]

    database = Database(f"sqlite:///{data / 'agentchat.db'}")
    try:
        with database.session() as db:
            bob = users.find_by_name(db, "bob")
            assert bob is not None and passwords.verify(bob.password_hash, "another password")
    finally:
        database.dispose()
