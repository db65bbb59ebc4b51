"""Issue 13, findings 1 and 2, attacked as reported: a real bridge process, the real hermes-agent
and the scripted model obeying `#tool …` directives.

1. a bridge never runs open, and a request cannot widen its toolsets or pick its folder;
2. the user's skills are read-only to the agent, and skill_view stays inside the skills folder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from agentchat.bridge_client.client import BridgeClient
from agentchat.local_stack import free_port
from agentchat.skills.service import install_samples
from tests.bridge.support import Turn, model, run_turn
from tests.models.fake_provider import serve
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(180)

DEPLOY_ENV = {
    "AGENTCHAT_AUTH_TOKEN": "planted-auth-token-0123456789",
    "AGENTCHAT_DATABASE_URL": "postgresql+psycopg://app:planted-db-password@db/agentchat",
    "AGENTCHAT_SECRET_KEY": "planted-secret-key-abcdef",
}
OUTSIDE_SKILL = "---\nname: outside\ndescription: lives outside\n---\nTOP-SECRET-OUTSIDE\n"
KEY_FILE = "TOP-SECRET-KEY-FILE-0123\n"  # as secret.key or bridge.json beside the skills


def _skills_root(root: Path) -> Path:
    """The samples, a folder that links out, and a real folder whose SKILL.md and a flat
    `notes.md` link out to a file beside the skills (as a cloned third-party skill can)."""
    skills = root / "skills"
    install_samples(skills)
    outside = root / "outside" / "linked"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text(OUTSIDE_SKILL, encoding="utf-8")
    (skills / "linked").symlink_to(outside, target_is_directory=True)
    (root / "secret.key").write_text(KEY_FILE, encoding="utf-8")
    (skills / "innocent").mkdir()
    (skills / "innocent" / "SKILL.md").symlink_to("../../secret.key")
    (skills / "innocent" / "notes.md").symlink_to("../../secret.key")
    return skills


default_bridge = own_bridge(name="default_bridge", prepare=_skills_root)
# An operator who enabled the terminal and skill management; DEPLOY_ENV as a shared
# EnvironmentFile gives them (deploy/systemd).
managing_bridge = own_bridge(
    name="managing_bridge",
    prepare=_skills_root,
    AGENTCHAT_AGENT_TOOLSETS="skills,terminal",
    AGENTCHAT_AGENT_SKILL_MANAGEMENT="1",
    **DEPLOY_ENV,
)


async def _client(bridge: BridgeProcess) -> AsyncIterator[BridgeClient]:
    async with BridgeClient(bridge.url, secret=bridge.secret) as client:
        yield client


@pytest.fixture
async def default_client(default_bridge: BridgeProcess) -> AsyncIterator[BridgeClient]:
    async for client in _client(default_bridge):
        yield client


@pytest.fixture
async def managing_client(managing_bridge: BridgeProcess) -> AsyncIterator[BridgeClient]:
    async for client in _client(managing_bridge):
        yield client


def _tool(name: str, args: dict[str, object]) -> str:
    return f"#tool {name} {json.dumps(args)}\n#echo-tool-result"


def _answer(turn: Turn) -> str:
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    return turn.result.final_text


# --- finding 1: the bridge is never open -----------------------------------------------------


@pytest.mark.parametrize("secret", [None, "short"])
def test_a_bridge_without_a_usable_secret_refuses_to_start(
    tmp_path: Path, secret: str | None
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AGENTCHAT_BRIDGE_SECRET"}
    if secret is not None:
        env["AGENTCHAT_BRIDGE_SECRET"] = secret
    command = [sys.executable, "-m", "agentchat.cli", "bridge", "--host", "0.0.0.0"]
    command += ["--port", str(free_port()), "--hermes-home", str(tmp_path / "home")]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "AGENTCHAT_BRIDGE_SECRET" in done.stderr


async def test_run_without_the_secret_is_refused(default_bridge: BridgeProcess) -> None:
    async with httpx.AsyncClient(base_url=default_bridge.url) as http:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            answer = await http.post("/run", json={}, headers=headers)
            assert answer.status_code == 401
            assert answer.json()["error"]["code"] == "unauthorized"


async def test_a_request_cannot_widen_the_toolsets_or_choose_its_folder(
    default_client: BridgeClient, scripted_model: str, tmp_path: Path
) -> None:
    message = _tool("terminal", {"command": "touch pwned"})
    turn = await run_turn(
        default_client,
        scripted_model,
        message,
        session="widen",
        toolsets=["terminal", "todo"],
        workingDir=str(tmp_path),
    )
    assert "Tool 'terminal' does not exist" in _answer(turn)
    assert not (tmp_path / "pwned").exists()
    assert list(tmp_path.iterdir()) == []


async def test_the_bridge_chooses_the_working_folder(
    managing_client: BridgeClient,
    managing_bridge: BridgeProcess,
    scripted_model: str,
    tmp_path: Path,
) -> None:
    message = _tool("terminal", {"command": "pwd"})
    turn = await run_turn(
        managing_client, scripted_model, message, session="../../x", workingDir=str(tmp_path)
    )
    answer = _answer(turn)
    assert str(managing_bridge.home / "workspaces" / "_.._x") in answer
    assert str(tmp_path) not in answer


async def test_a_bridge_started_with_the_shared_env_file_leaks_none_of_it(
    managing_client: BridgeClient, managing_bridge: BridgeProcess, scripted_model: str
) -> None:
    pid = managing_bridge.process.pid
    command = f"env; cat /proc/{pid}/environ /proc/$PPID/environ | tr '\\0' '\\n'"
    printed = _answer(
        await run_turn(managing_client, scripted_model, _tool("terminal", {"command": command}))
    )
    assert "PATH=" in printed
    for value in [*DEPLOY_ENV.values(), str(managing_bridge.secret)]:
        assert value not in printed
    assert "AGENTCHAT_BRIDGE_SECRET" not in printed


async def test_the_agent_cannot_call_its_bridge_over_tcp_even_with_its_secret(
    managing_client: BridgeClient, managing_bridge: BridgeProcess, scripted_model: str
) -> None:
    """Issue 34, finding 2: with the bridge's secret (bridge.json is readable to the bridge's
    user) the agent could answer its own approval at the bridge. A bridge on a TCP port (the
    systemd units) refuses its own agent's programs as the local one does."""
    auth = f"Authorization: Bearer {managing_bridge.secret}"
    command = f"curl -s -H '{auth}' {managing_bridge.url}/runs; echo; echo EXIT=$?"
    printed = _answer(
        await run_turn(managing_client, scripted_model, _tool("terminal", {"command": command}))
    )
    assert "agent_process" in printed, printed
    assert '"runId"' not in printed


async def test_a_request_may_narrow_the_toolsets(
    managing_client: BridgeClient, scripted_model: str
) -> None:
    message = _tool("terminal", {"command": "echo hi"})
    turn = await run_turn(managing_client, scripted_model, message, toolsets=["skills"])
    assert "Tool 'terminal' does not exist" in _answer(turn)


# --- finding 2: the user's skills are not the agent's to change -------------------------------


@pytest.mark.parametrize("name", ["innocent", "notes"])
async def test_skill_view_refuses_a_skill_file_that_links_out(
    default_client: BridgeClient, scripted_model: str, name: str
) -> None:
    turn = await run_turn(default_client, scripted_model, _tool("skill_view", {"name": name}))
    answer = _answer(turn)
    assert "TOP-SECRET-KEY-FILE" not in answer
    assert '"success": false' in answer


async def test_a_skill_file_that_links_out_is_neither_listed_nor_in_the_prompt(
    default_client: BridgeClient, scripted_model: str
) -> None:
    listed = _answer(await run_turn(default_client, scripted_model, _tool("skills_list", {})))
    assert "readme-gen" in listed
    assert "TOP-SECRET" not in listed and "innocent" not in listed
    prompt = await run_turn(default_client, scripted_model, "#system-contains TOP-SECRET")
    assert _answer(prompt) == "SYSTEM CONTAINS: no"


async def test_a_preloaded_skill_that_links_out_is_refused(
    default_client: BridgeClient, scripted_model: str
) -> None:
    turn = await run_turn(
        default_client, scripted_model, "#system-contains TOP-SECRET", skills=["innocent"]
    )
    assert turn.result is not None
    assert turn.result.status != "SUCCESS" or turn.result.final_text == "SYSTEM CONTAINS: no"
    assert "TOP-SECRET-KEY-FILE" not in json.dumps(turn.result.model_dump())


@pytest.mark.parametrize(
    "args",
    [
        {"action": "edit", "name": "readme-gen", "content": "---\nname: x\n---\nINJECTED"},
        {
            "action": "write_file",
            "name": "code-review",
            "file_path": "scripts/evil.sh",
            "file_content": "echo evil",
        },
        {"action": "delete", "name": "meeting-notes"},
    ],
)
async def test_default_agent_cannot_change_skills(
    default_client: BridgeClient,
    default_bridge: BridgeProcess,
    scripted_model: str,
    args: dict[str, object],
) -> None:
    skills = default_bridge.home.parent / "skills"
    before = _snapshot(skills)
    turn = await run_turn(default_client, scripted_model, _tool("skill_manage", args))
    assert "Tool 'skill_manage' does not exist" in _answer(turn)
    assert _snapshot(skills) == before


async def test_default_agent_still_reads_skills(
    default_client: BridgeClient, scripted_model: str
) -> None:
    listed = _answer(await run_turn(default_client, scripted_model, _tool("skills_list", {})))
    assert "readme-gen" in listed
    viewed = await run_turn(
        default_client, scripted_model, _tool("skill_view", {"name": "readme-gen"})
    )
    assert "README" in _answer(viewed)


@pytest.mark.parametrize("which", ["default", "managing"])
async def test_skill_view_refuses_a_link_out_of_the_skills_folder(
    default_client: BridgeClient, managing_client: BridgeClient, scripted_model: str, which: str
) -> None:
    client = default_client if which == "default" else managing_client
    turn = await run_turn(client, scripted_model, _tool("skill_view", {"name": "linked"}))
    answer = _answer(turn)
    assert "TOP-SECRET-OUTSIDE" not in answer
    assert "leaves the skills folder" in answer


@pytest.mark.parametrize(
    "args",
    [
        {"action": "edit", "name": "readme-gen", "content": "---\nname: x\n---\nINJECTED"},
        {"action": "patch", "name": "readme-gen", "old_string": "README", "new_string": "EVIL"},
        {
            "action": "write_file",
            "name": "code-review",
            "file_path": "scripts/evil.sh",
            "file_content": "echo evil",
        },
        {"action": "delete", "name": "meeting-notes"},
    ],
)
async def test_skill_management_leaves_the_users_skills_alone(
    managing_client: BridgeClient,
    managing_bridge: BridgeProcess,
    scripted_model: str,
    args: dict[str, object],
) -> None:
    skills = managing_bridge.home.parent / "skills"
    before = _snapshot(skills)
    turn = await run_turn(managing_client, scripted_model, _tool("skill_manage", args))
    assert "read-only to the agent" in _answer(turn)
    assert _snapshot(skills) == before


async def test_skill_management_creates_skills_in_the_hermes_home(
    managing_client: BridgeClient, managing_bridge: BridgeProcess, scripted_model: str
) -> None:
    content = "---\nname: agent-notes\ndescription: Made by the agent.\n---\nTake notes.\n"
    args = {"action": "create", "name": "agent-notes", "content": content}
    turn = await run_turn(managing_client, scripted_model, _tool("skill_manage", args))
    assert '"success": true' in _answer(turn)
    assert (managing_bridge.home / "skills" / "agent-notes" / "SKILL.md").is_file()
    assert not (managing_bridge.home.parent / "skills" / "agent-notes").exists()
    patch = {"action": "patch", "name": "agent-notes", "old_string": "Take", "new_string": "Keep"}
    patched = await run_turn(managing_client, scripted_model, _tool("skill_manage", patch))
    assert '"success": true' in _answer(patched)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink() and "outside" not in p.parts
    }


def _html_endpoint() -> FastAPI:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def page() -> HTMLResponse:
        body = "<html><title>Jenkins</title><body>internal build 4711 " + "x" * 900 + "</body>"
        return HTMLResponse(body, status_code=500)

    return app


async def test_a_run_error_echoes_no_html_page_of_the_endpoint(
    default_client: BridgeClient,
) -> None:
    with serve(_html_endpoint()) as url:
        turn = await run_turn(
            default_client, url, "hi", session="html-error", model=model(f"{url}/v1")
        )
    assert turn.result is not None and turn.result.status == "FAILED"
    error = turn.result.error or ""
    assert "Jenkins" not in error and "4711" not in error
    assert 0 < len(error) <= 301


async def test_the_bridge_publishes_no_documents_without_its_secret(
    default_bridge: BridgeProcess,
) -> None:
    async with httpx.AsyncClient(base_url=default_bridge.url, timeout=10) as c:
        for path in ("/docs", "/redoc"):
            assert (await c.get(path)).status_code == 404, path
        assert (await c.get("/openapi.json")).status_code == 401
        secret = {"Authorization": f"Bearer {default_bridge.secret}"}
        document = await c.get("/openapi.json", headers=secret)
        assert document.status_code == 200 and "/run" in document.json()["paths"]
