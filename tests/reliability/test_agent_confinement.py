"""Promise 4: by default the agent cannot run commands, write files or search the web; a call
to a tool that is not enabled is refused through the whole stack, and the page can see which
toolsets are on (GET /api/info)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.support.api_stack import Stack, make_stack
from tests.support.servers import BridgeProcess

DEFAULT_TOOLSETS = ["clarify", "todo", "memory", "skills"]


def _tool_result(stack: Stack, tool: str, args: dict[str, object]) -> tuple[str, list[str]]:
    """The answer to a scripted call of `tool`, and the tool names the run logged."""
    session_id = stack.new_session()
    script = f"#tool {tool} {json.dumps(args)}\n#echo-tool-result"
    _, events = stack.ask(session_id, script)
    assert events[-1].event == "workflow_complete", events[-1]
    tools = [e.data.get("toolName") or "" for e in events if e.data.get("kind") == "tool_result"]
    return str(events[-1].data["finalText"]), tools


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("terminal", {"command": "touch {target}"}),
        ("write_file", {"path": "{target}", "content": "escaped"}),
        ("patch", {"path": "{target}", "old_string": "", "new_string": "escaped"}),
        ("execute_code", {"code": "open('{target}', 'w').write('escaped')"}),
        ("web_search", {"query": "agent chat"}),
        ("web_extract", {"urls": ["http://127.0.0.1:9/"]}),
        ("browser_navigate", {"url": "http://127.0.0.1:9/"}),
    ],
)
def test_a_disabled_tool_is_refused_and_touches_nothing(
    stack: Stack, tmp_path: Path, tool: str, args: dict[str, object]
) -> None:
    target = tmp_path / f"escaped-{tool}"
    filled = json.loads(json.dumps(args).replace("{target}", str(target)))
    answer, _ = _tool_result(stack, tool, filled)
    assert f"Tool '{tool}' does not exist" in answer
    assert "terminal" not in answer.split("Available tools:", 1)[-1]
    assert not target.exists()


def test_the_default_toolsets_are_the_safe_ones() -> None:
    assert Settings(_env_file=None).toolsets == DEFAULT_TOOLSETS  # type: ignore[call-arg]


def test_info_shows_version_toolsets_access_and_bridges(stack: Stack) -> None:
    info = stack.get("/api/info")
    assert info == {
        "version": info["version"],
        "toolsets": DEFAULT_TOOLSETS,
        "authRequired": False,
        "bridgeCount": 1,
    }
    assert info["version"].count(".") >= 1


def test_agent_toolsets_from_the_environment_reach_the_agent(
    tmp_path: Path,
    database: Database,
    bridge: BridgeProcess,
    scripted_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTCHAT_AGENT_TOOLSETS", "todo")
    stack, close = make_stack(tmp_path, database, bridge, scripted_url)
    try:
        assert stack.get("/api/info")["toolsets"] == ["todo"]
        answer, _ = _tool_result(stack, "clarify", {"question": "which one?"})
        assert "Tool 'clarify' does not exist" in answer
        assert answer.rstrip().endswith("Available tools: todo")
        todo, tools = _tool_result(stack, "todo", {"todos": [{"id": "1", "content": "a"}]})
        assert "does not exist" not in todo and tools == ["todo"]
    finally:
        close()
