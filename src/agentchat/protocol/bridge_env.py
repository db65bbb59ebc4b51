"""The environment a bridge child process gets: an allow-list, never the API's own.

The agent's tools (a terminal, code execution) see this environment, so it carries no API
token, no database URL or password, no Redis URL, no encryption key and no provider keys.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

_SYSTEM = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "TMPDIR",
    "XDG_CACHE_HOME",
    "VIRTUAL_ENV", "PYTHONPATH", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE",
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
)  # fmt: skip
_BRIDGE_SETTINGS = (
    "AGENTCHAT_HERMES_HOME", "AGENTCHAT_SKILLS_DIR", "AGENTCHAT_AGENT_TOOLSETS",
    "AGENTCHAT_AGENT_SKILL_MANAGEMENT", "AGENTCHAT_AGENT_MCP_TRANSPORTS",
)  # fmt: skip
_BRIDGE_PREFIX = "AGENTCHAT_BRIDGE_"
_HERMES_PREFIX = "HERMES_"  # hermes-agent's own tuning, set by the operator
_NEVER = ("AGENTCHAT_BRIDGE_URL", "HERMES_YOLO_MODE")


def bridge_environment(
    settings_env: Mapping[str, str], source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """What the bridge child inherits from `source` (default: this process), plus its
    settings. Only names on the allow-list pass."""
    source = os.environ if source is None else source
    kept = {name: value for name, value in source.items() if _allowed(name)}
    return {**kept, **settings_env}


def _allowed(name: str) -> bool:
    if name in _SYSTEM or name.startswith("LC_") or name in _BRIDGE_SETTINGS:
        return True
    prefixed = name.startswith(_BRIDGE_PREFIX) or name.startswith(_HERMES_PREFIX)
    return prefixed and name not in _NEVER


def clean_bridge_environment(source: Mapping[str, str]) -> tuple[dict[str, str], str | None]:
    """The environment a bridge process should run with, and the shared secret taken out of
    it (the agent's tools could read it there, even from /proc)."""
    clean = bridge_environment({}, source)
    secret = clean.pop("AGENTCHAT_BRIDGE_SECRET", None)
    return clean, secret
