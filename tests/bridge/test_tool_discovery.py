"""hermes' tool modules found once and remembered (bridge/hermes/tool_discovery.py): a later
import of the real hermes-agent parses none of their sources and registers the same tools; a
missing, broken, stale or unwritable cache only costs the parse."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.servers import start_bridge

# hermes imported as the bridge imports it, counting the tool modules whose source it parses.
PROBE = """
import ast, json
from pathlib import Path
parsed = []
real_parse = ast.parse
def parse(source, filename="<unknown>", *args, **kwargs):
    if Path(str(filename)).parent.name == "tools":
        parsed.append(Path(filename).name)
    return real_parse(source, filename, *args, **kwargs)
ast.parse = parse
from agentchat.bridge.hermes.home import import_hermes
import_hermes()
from tools.registry import registry
print(json.dumps({"tools": sorted(registry.get_all_tool_names()), "parsed": parsed}))
"""


def _import_hermes(tmp_path: Path, cache_home: Path) -> dict[str, Any]:
    home = tmp_path / "hermes-home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HERMES_HOME": str(home), "XDG_CACHE_HOME": str(cache_home)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


STALE = "0" * 64  # the digest of no file of this release


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """hermes imported with a cache that holds only another release's answer."""
    root = tmp_path_factory.mktemp("cold")
    kept = root / "cache" / "agentchat" / "hermes-tool-modules.json"
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps({"registers": {STALE: True}}))
    return _import_hermes(root, root / "cache"), kept


def test_a_second_import_parses_no_tool_module_and_registers_the_same_tools(
    tmp_path: Path, cold: tuple[dict[str, Any], Path]
) -> None:
    first, kept = cold
    assert len(first["parsed"]) >= 20  # hermes' own discovery ran: the stale answer unused
    assert {"terminal", "todo", "memory", "clarify"} <= set(first["tools"])
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    answers = json.loads(kept.read_text())["registers"]
    assert STALE not in answers  # only this release's answers are kept
    assert len(answers) > len(first["parsed"])  # one per tool module, parsed or not
    assert 10 <= sum(answers.values()) <= len(first["parsed"])  # those that register

    second = _import_hermes(tmp_path, kept.parents[1])
    assert second["parsed"] == []
    assert second["tools"] == first["tools"]


def test_a_broken_or_unwritable_cache_costs_only_the_parse(
    tmp_path: Path, cold: tuple[dict[str, Any], Path]
) -> None:
    reference, _ = cold
    kept = tmp_path / "cache" / "agentchat" / "hermes-tool-modules.json"
    kept.parent.mkdir(mode=0o700, parents=True)
    kept.write_text("{not json")
    broken = _import_hermes(tmp_path, tmp_path / "cache")
    assert broken["tools"] == reference["tools"]
    assert broken["parsed"] == reference["parsed"]
    assert json.loads(kept.read_text())["registers"]  # written again, whole

    not_a_folder = tmp_path / "a-file"
    not_a_folder.write_text("")
    unwritable = _import_hermes(tmp_path, not_a_folder)
    assert unwritable["tools"] == reference["tools"]
    assert unwritable["parsed"] == reference["parsed"]


def test_a_bridge_started_clean_keeps_its_answers_in_the_cache_folder(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    bridge = start_bridge(tmp_path / "bridge", XDG_CACHE_HOME=str(cache))
    try:
        answers = json.loads((cache / "agentchat" / "hermes-tool-modules.json").read_text())
        assert any(answers["registers"].values())
        assert stat.S_IMODE((cache / "agentchat").stat().st_mode) == 0o700  # made by the bridge
    finally:
        bridge.stop()
