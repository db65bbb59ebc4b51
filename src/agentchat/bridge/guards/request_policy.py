"""What a bridge request may ask for. The bridge owns its toolsets and working folders: a
request may narrow the operator's toolsets, never widen them, and never picks a folder."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from agentchat.bridge.settings import BridgeSettings
from agentchat.protocol.toolsets import toolset_list

log = logging.getLogger(__name__)

MIN_SECRET_CHARS = 16
READ_ONLY_SKILLS = "agentchat-skills-read"  # hermes toolset registered by bridge.guards.skills
MAX_ERROR_CHARS = 300
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_HTML = re.compile(r"<(?:!doctype|html|head|body|title|div|p|h\d|pre)\b.*", re.I | re.S)


class BridgeMisconfigured(RuntimeError):
    """The bridge refuses to start (no shared secret, one too short, an unknown toolset)."""


def check_secret(settings: BridgeSettings) -> None:
    """A bridge is never open: it needs a shared secret of at least 16 characters."""
    secret = settings.secret.get_secret_value().strip() if settings.secret else ""
    if not secret:
        raise BridgeMisconfigured(
            "AGENTCHAT_BRIDGE_SECRET is not set: the bridge runs tools and refuses to start "
            "without a shared secret (`agentchat serve` gives its local bridge a random one)"
        )
    if len(secret) < MIN_SECRET_CHARS:
        raise BridgeMisconfigured(
            f"AGENTCHAT_BRIDGE_SECRET is shorter than {MIN_SECRET_CHARS} characters"
        )
    try:
        toolset_list(settings.toolsets)
    except ValueError as exc:
        raise BridgeMisconfigured(f"AGENTCHAT_AGENT_TOOLSETS: {exc}") from exc


def effective_toolsets(settings: BridgeSettings, requested: list[str] | None) -> list[str]:
    """The operator's toolsets, narrowed to those requested; a request never adds one."""
    allowed = settings.default_toolsets
    if requested is None:
        return list(allowed)
    refused = [name for name in requested if name not in allowed]
    if refused:
        log.warning("request asked for toolsets the bridge does not allow: %s", refused)
    return [name for name in allowed if name in requested]


def hermes_toolsets(settings: BridgeSettings, toolsets: list[str]) -> list[str]:
    """Our toolset names as hermes knows them: `skills` is read-only unless the operator
    enabled skill management (whose writes bridge.guards.skills keeps in the hermes home)."""
    if settings.skill_management:
        return list(toolsets)
    return [READ_ONLY_SKILLS if name == "skills" else name for name in toolsets]


def task_id(session_id: str) -> str:
    """hermes' task id of the session's turns (it keys their working-folder override)."""
    return f"agentchat-{_SAFE_NAME.sub('_', session_id)}"


def workspace(settings: BridgeSettings, session_id: str) -> Path:
    """The session's working folder, chosen by the bridge under its hermes home."""
    name = _SAFE_NAME.sub("_", session_id).lstrip(".") or "_"
    return settings.home / "workspaces" / name


def public_error(text: str) -> str:
    """A model error as the page may show it: no HTML page an endpoint sent back, one line,
    at most 300 characters."""
    text = _HTML.sub("[an HTML page, not shown]", text)
    text = " ".join(text.split())
    return text[:MAX_ERROR_CHARS] + ("…" if len(text) > MAX_ERROR_CHARS else "")
