"""Prepare HERMES_HOME (config.yaml, environment) before hermes-agent is imported.

hermes-agent reads HERMES_HOME into module constants at import time, so the home is
configured once per process and hermes is only imported afterwards (lazily).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import yaml

from agentchat.bridge.settings import BridgeSettings

log = logging.getLogger(__name__)

_PROVIDER_IDS = ("custom", "openai-api", "openrouter", "anthropic")


def hermes_config(settings: BridgeSettings) -> dict[str, Any]:
    """The config.yaml that keeps hermes fast, quiet and offline-friendly."""
    ctx = settings.default_context_length
    skills = [str(settings.skills_dir.expanduser().resolve())] if settings.skills_dir else []
    timeout = {"request_timeout_seconds": settings.hermes_request_timeout_s}
    return {
        # ollama_num_ctx 0: no Ollama detection probes at start, and no options.num_ctx sent;
        # bridge/hermes/providers.py sets it per agent for Ollama models only.
        "model": {"context_length": ctx, "ollama_num_ctx": 0},
        "agent": {
            "environment_probe": False,
            "api_max_retries": settings.api_max_retries,
        },
        "memory": {
            "nudge_interval": 0,
            "memory_char_limit": settings.memory_char_limit,
            "user_char_limit": settings.user_char_limit,
        },
        "skills": {"creation_nudge_interval": 0, "external_dirs": skills},
        "compression": {
            "enabled": True,
            "threshold": 0.50,
            "target_ratio": 0.20,
            "protect_last_n": 20,
            "protect_first_n": 3,
            "in_place": True,
        },
        "providers": {name: dict(timeout) for name in _PROVIDER_IDS},
        # hermes would append or substitute its CLI advice ("⚠️ No reply: … send `continue`")
        # as the answer; bridge/hermes/non_answers.py tells those turns apart instead.
        "display": {"turn_completion_explainer": False},
        # hermes pip-installs a provider's SDK at its first use; everything it needs is in
        # requirements.lock instead (an install at run time fails offline and changes the venv).
        "security": {"allow_lazy_installs": False},
    }


def prepare_home(settings: BridgeSettings) -> Path:
    """Create the home, write config.yaml and point HERMES_HOME at it."""
    home = settings.home
    for sub in ("memories", "skills", "logs", "workspaces"):
        (home / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    text = yaml.safe_dump(hermes_config(settings), sort_keys=False, allow_unicode=True)
    (home / "config.yaml").write_text(text, encoding="utf-8")
    os.environ["HERMES_HOME"] = str(home)
    return home


def install_bridge_log(home: Path) -> None:
    """Write the bridge's own log lines to HERMES_HOME/logs/bridge.log."""
    handler = logging.FileHandler(home / "logs" / "bridge.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    bridge_logger = logging.getLogger("agentchat.bridge")
    bridge_logger.addHandler(handler)
    bridge_logger.setLevel(logging.INFO)


def import_hermes() -> None:
    """Import hermes-agent once HERMES_HOME is set (it loads tools and logging)."""
    if "HERMES_HOME" not in os.environ:
        raise RuntimeError("HERMES_HOME must be set before hermes-agent is imported")
    from agentchat.bridge.hermes.tool_discovery import cache_file, remembered_tool_discovery

    with remembered_tool_discovery(cache_file()):
        import run_agent  # noqa: F401

    log.info("hermes-agent imported with HERMES_HOME=%s", os.environ["HERMES_HOME"])
