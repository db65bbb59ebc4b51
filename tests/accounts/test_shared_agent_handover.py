"""Issue 28: when the first account is made, what existed becomes the first administrator's:
the chats (test_accounts_migration), and the agent's memory and the skills it made, which the
local bridge kept in its own hermes home for the server's one person. Real hermes-agent: the
one person's agent remembers a fact through its memory tool; after accounts come, the first
administrator's agent knows it, another person's does not, and the shared home holds it no
more."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from agentchat.accounts.shared_agent import ENTRY_DELIMITER, hand_over
from agentchat.app import create_app
from agentchat.core.database import Database
from tests.accounts.test_agent_memory import _memory_text, _prompt_holds
from tests.support.api_stack import add_scripted_model, api_settings
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess, serve_app
from tests.support.sse import read_events, until_terminal
from tests.support.team_stack import PASSWORD, sign_in

FACT = "The team's build server is called HANDOVER-FACT-3"
SKILL = "---\nname: deploy-notes\ndescription: Made by the one person's agent.\n---\nDeploy.\n"


# A bridge of each test's own, whose hermes home is the API's (the local bridge's arrangement).
handover_bridge = own_bridge(scope="function", name="handover_bridge")


def _turn(http: httpx.Client, url: str, message: str) -> str:
    chat = http.post("/api/chat/sessions", json={}).json()["sessionId"]
    started = http.post(f"/api/chat/sessions/{chat}/runs", json={"message": message})
    assert started.status_code == 201, started.text
    events = read_events(
        f"{url}/api/chat/runs/{started.json()['runId']}/stream",
        headers=dict(http.headers),
        stop=until_terminal,
    )
    assert events[-1].event == "workflow_complete", events[-1]
    return str(events[-1].data["finalText"])


def test_the_first_administrator_takes_the_agents_memory_and_skills(
    tmp_path: Path,
    database: Database,
    handover_bridge: BridgeProcess,
    scripted_url: str,
) -> None:
    settings = api_settings(
        tmp_path / "data", handover_bridge, hermes_home=handover_bridge.home, run_rate_per_minute=0
    )
    url, stop = serve_app(create_app(settings, database=database))
    try:
        with httpx.Client(base_url=url, timeout=30) as single:
            add_scripted_model(single, scripted_url)
            args = {"action": "add", "target": "user", "content": FACT}
            said = _turn(single, url, f"#tool memory {json.dumps(args)}\n#echo-tool-result")
            assert '"success": true' in said, said
            shared = handover_bridge.home / "memories" / "USER.md"
            assert "HANDOVER-FACT-3" in shared.read_text(encoding="utf-8")  # the shared home's
            (handover_bridge.home / "skills" / "deploy-notes").mkdir(parents=True)
            (handover_bridge.home / "skills" / "deploy-notes" / "SKILL.md").write_text(SKILL)

            first = single.post(
                "/api/admin/users", json={"username": "alice", "password": PASSWORD}
            )
            assert first.status_code == 201, first.text
        alice = sign_in(url, "alice")
        alice.post("/api/admin/users", {"username": "bob", "password": PASSWORD}, expect=201)
        bob = sign_in(url, "bob")

        assert _prompt_holds(alice, "HANDOVER-FACT-3")  # her agent knows what it knew
        assert "HANDOVER-FACT-3" in _memory_text(alice.get("/api/memory"))
        assert not _prompt_holds(bob, "HANDOVER-FACT-3")
        assert "HANDOVER-FACT-3" not in _memory_text(bob.get("/api/memory"))
        skills = {s["folderName"]: s for s in alice.get("/api/skills")}
        assert skills["deploy-notes"]["agentMade"] is True
        assert "deploy-notes" not in {s["folderName"] for s in bob.get("/api/skills")}

        assert not shared.exists()  # the bridge's own home holds it no more
        assert not (handover_bridge.home / "skills" / "deploy-notes").exists()
        alice_home = handover_bridge.home / "people" / f"user-{alice.id}"
        assert oct((alice_home / "memories" / "USER.md").stat().st_mode & 0o777) == "0o600"
        alice.http.close()
        bob.http.close()
    finally:
        stop()


def test_a_memory_the_administrator_already_has_gets_the_entries_it_lacks(
    tmp_path: Path,
) -> None:
    """An account added by `agentchat users add` while no bridge ran: serve's next start hands
    over, and the administrator may have written memory meanwhile."""
    home = tmp_path / "hermes-home"
    (home / "memories").mkdir(parents=True)
    (home / "memories" / "MEMORY.md").write_text(ENTRY_DELIMITER.join(["old one", "both"]))
    (home / "skills" / "same-name").mkdir(parents=True)
    (home / "skills" / "same-name" / "SKILL.md").write_text("the shared one")
    mine = home / "people" / "user-1"
    (mine / "memories").mkdir(parents=True)
    (mine / "memories" / "MEMORY.md").write_text(ENTRY_DELIMITER.join(["mine", "both"]))
    (mine / "skills" / "same-name").mkdir(parents=True)
    (mine / "skills" / "same-name" / "SKILL.md").write_text("her own")

    assert hand_over(home, 1) == ["memories/MEMORY.md"]
    merged = (mine / "memories" / "MEMORY.md").read_text(encoding="utf-8")
    assert merged.split(ENTRY_DELIMITER) == ["mine", "both", "old one"]
    assert not (home / "memories" / "MEMORY.md").exists()
    assert (mine / "skills" / "same-name" / "SKILL.md").read_text() == "her own"
    (home / "memories" / "USER.md").write_text("written later by no one's agent")
    assert hand_over(home, 1) == []  # once: nothing is handed over twice
    assert (home / "memories" / "USER.md").exists()
