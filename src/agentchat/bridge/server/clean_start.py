"""The bridge runs the agent's tools, which see its environment (and /proc/<pid>/environ).
A bridge started with more than it needs (a shared EnvironmentFile with the API token and
the database password, the secret itself) replaces itself at once with a process holding
only the allow-listed variables, and reads the secret from a pipe instead."""

from __future__ import annotations

import os
import sys

from agentchat.protocol.bridge_env import clean_bridge_environment

SECRET_FLAG = "--secret-stdin"


def restart_clean_if_needed(secret_from_stdin: str | None) -> None:
    """Return when the environment is already clean; otherwise exec a clean bridge."""
    clean, env_secret = clean_bridge_environment(os.environ)
    if clean == dict(os.environ):
        return
    secret = secret_from_stdin or env_secret or ""
    read_end, write_end = os.pipe()
    os.write(write_end, f"{secret}\n".encode())
    os.close(write_end)
    os.dup2(read_end, 0)
    os.close(read_end)
    args = [a for a in sys.argv[1:] if a != SECRET_FLAG] + [SECRET_FLAG]
    os.execve(sys.executable, [sys.executable, "-m", "agentchat.cli", *args], clean)
