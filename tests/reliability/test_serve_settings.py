"""Issue 14 item 7: every AGENTCHAT_* variable the README documents is a setting, and
`agentchat serve` honours them; a flag given on the command line overrides its variable."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
import typer.main

from agentchat.bridge.settings import BridgeSettings
from agentchat.cli import app
from agentchat.core.settings import Settings
from agentchat.local_stack import free_port
from tests.support.serve_starter import ServeStarter

README = Path(__file__).parents[2] / "README.md"
_ROW = re.compile(r"^\| `AGENTCHAT_(\w+)` \|\s*(`--[\w-]+`)?\s*\|", re.MULTILINE)
_BRIDGE_ROW = re.compile(r"^\| `(AGENTCHAT_\w+)` \| [^|]* \| [^|]+ \|$", re.MULTILINE)


def _readme_rows() -> list[tuple[str, str | None]]:
    rows = [
        (name.lower(), flag.strip("`") or None) for name, flag in _ROW.findall(README.read_text())
    ]
    assert len(rows) >= 10, "the README's configuration table was not found"
    return rows


def _serve_flags() -> set[str]:
    command = typer.main.get_command(app).commands["serve"]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in [*param.opts, *param.secondary_opts]}


def test_every_readme_variable_is_a_setting_and_its_flag_a_serve_option() -> None:
    fields, flags = set(Settings.model_fields), _serve_flags()
    for name, flag in _readme_rows():
        assert name in fields, f"AGENTCHAT_{name.upper()} is documented but not a setting"
        assert flag is None or flag in flags, f"{flag} is documented but `serve` has no such flag"


def test_every_bridge_variable_of_the_readme_is_a_bridge_setting() -> None:
    """The bridge's own settings (AGENTCHAT_AGENT_MCP_TRANSPORTS, AGENTCHAT_BRIDGE_POOL_SIZE…)
    are in the README's second table: a bridge reads each of them."""
    rows = _BRIDGE_ROW.findall(README.read_text())
    assert "AGENTCHAT_AGENT_MCP_TRANSPORTS" in rows
    read = set()
    for name, field in BridgeSettings.model_fields.items():
        aliases = getattr(field.validation_alias, "choices", None)
        read.add(str(aliases[0]) if aliases else f"AGENTCHAT_BRIDGE_{name.upper()}")
    assert set(rows) <= read, set(rows) - read


def test_serve_binds_and_stores_where_the_variables_say(
    tmp_path: Path, served: ServeStarter
) -> None:
    port, data_dir = free_port(), tmp_path / "from-env"
    env = {
        "AGENTCHAT_HOST": "127.0.0.2",
        "AGENTCHAT_PORT": str(port),
        "AGENTCHAT_DATA_DIR": str(data_dir),
    }
    served.spawn(tmp_path, env=env, url=f"http://127.0.0.2:{port}")
    served[0].wait_healthy()
    assert (data_dir / "agentchat.db").is_file()


def test_flags_override_the_variables(tmp_path: Path, served: ServeStarter) -> None:
    env_port, flag_port = free_port(), free_port()
    env = {
        "AGENTCHAT_HOST": "127.0.0.2",
        "AGENTCHAT_PORT": str(env_port),
        "AGENTCHAT_DATA_DIR": str(tmp_path / "from-env"),
    }
    flags = ("--host", "127.0.0.1", "--port", str(flag_port), "--data-dir", str(tmp_path / "flag"))
    served.spawn(tmp_path, *flags, env=env)
    served[0].wait_healthy()
    assert (tmp_path / "flag" / "agentchat.db").is_file()
    assert not (tmp_path / "from-env").exists()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.2:{env_port}/api/health", timeout=2)
