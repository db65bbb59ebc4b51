"""A server's settings as hermes' `mcp_servers.<name>` entry, and whether this bridge can
start it (pure, plus `shutil.which` for the command)."""

from __future__ import annotations

import os
import shutil
from typing import Any
from urllib.parse import urlsplit

from agentchat.protocol.mcp import McpServerWire

MAX_ERROR_CHARS = 300
_UTILITIES = {
    "resources": {"list_resources", "read_resource"},
    "prompts": {"list_prompts", "get_prompt"},
}


def hermes_entry(server: McpServerWire) -> dict[str, Any]:
    """Sampling (the server asking our model for completions) and elicitation (the server
    asking the person for input) stay off: neither is the person's choice on the page."""
    entry: dict[str, Any] = {
        "enabled": True,
        "timeout": server.timeout_s,
        "connect_timeout": server.connect_timeout_s,
        "sampling": {"enabled": False},
        "elicitation": {"enabled": False},
    }
    tools = _tool_filter(server.tools_include, server.tools_exclude)
    if tools:
        entry["tools"] = tools
    if server.transport == "http":
        entry["url"] = server.url
        entry["headers"] = dict(server.headers)
    else:
        entry["command"] = server.command
        entry["args"] = list(server.args)
        entry["env"] = dict(server.env)
    return entry


def _tool_filter(include: list[str], exclude: list[str]) -> dict[str, Any]:
    """hermes' `tools` filter. Its resource and prompt helpers (list_resources, read_resource,
    list_prompts, get_prompt) are not filtered by name there: a family is kept only when an
    include list names one of it, or when an exclude list names none of it."""
    tools: dict[str, Any] = {}
    if include:
        tools["include"] = list(include)
    if exclude:
        tools["exclude"] = list(exclude)
    for family, names in _UTILITIES.items():
        if include:
            tools[family] = bool(set(include) & names)
        elif set(exclude) & names:
            tools[family] = False
    return tools


def start_problem(server: McpServerWire) -> str | None:
    """Why this bridge could not start the server (None: it can try). For stdio: the command
    must resolve, in the environment the server would get, to an executable file."""
    if server.transport == "http":
        return _url_problem(server.url)
    return command_problem(server.command, server.env)


def command_problem(command: str, env: dict[str, str]) -> str | None:
    command = command.strip()
    if not command:
        return "no command is set"
    path = _path_of(env)
    if os.sep in command:
        found = os.path.expanduser(command)
        if not os.path.exists(found):
            return f"the command {command!r} does not exist on the agent's host"
    else:
        found = shutil.which(command, path=path) or ""
        if not found:
            return f"the command {command!r} is not found on the agent's PATH ({path})"
    if os.path.isdir(found):
        return f"the command {command!r} is a folder, not a program"
    if not os.access(found, os.X_OK):
        return f"the command {command!r} is not executable"
    return None


def _path_of(env: dict[str, str]) -> str:
    return env.get("PATH") or os.environ.get("PATH", os.defpath)


def _url_problem(url: str) -> str | None:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return f"{url!r} is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "the URL must start with http:// or https:// and name a host"
    return None


def one_sentence(text: str) -> str:
    """An error as the page shows it: one line, at most 300 characters."""
    line = " ".join(str(text).split())
    return line[:MAX_ERROR_CHARS] + ("…" if len(line) > MAX_ERROR_CHARS else "")
