"""One hermes home per person (issue 28): the skills a person's agent makes are theirs alone,
forgetting a person removes their home, and without a `userId` (no accounts) the bridge's own
home serves as before. A real bridge with skill management on; the scripted model calls
hermes' `skill_manage` and `memory` tools."""

from __future__ import annotations

import json

import pytest

from agentchat.bridge_client.client import BridgeClient
from tests.bridge.support import Turn, run_turn
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(180)

SKILL = "---\nname: quokka-care\ndescription: How Bob's agent cares for quokkas.\n---\nFeed them.\n"


# Skill management on (the `client` fixture of conftest.py talks to this one).
bridge = own_bridge(AGENTCHAT_AGENT_SKILL_MANAGEMENT="1")


def _said(turn: Turn) -> str:
    assert turn.result is not None and turn.result.status == "SUCCESS", turn.result
    return turn.result.final_text


async def _tool(
    client: BridgeClient, model: str, tool: str, args: dict[str, object], **who: str
) -> str:
    message = f"#tool {tool} {json.dumps(args)}\n#echo-tool-result"
    return _said(await run_turn(client, model, message, **who))


async def test_a_skill_the_agent_made_for_one_person_is_no_one_elses(
    client: BridgeClient, bridge: BridgeProcess, scripted_model: str
) -> None:
    made = {"action": "create", "name": "quokka-care", "content": SKILL}
    bob = {"session": "bob-1", "userId": "user-2"}
    assert '"success": true' in await _tool(client, scripted_model, "skill_manage", made, **bob)
    assert (bridge.home / "people" / "user-2" / "skills" / "quokka-care" / "SKILL.md").is_file()
    assert not (bridge.home / "skills" / "quokka-care").exists()

    listed = {"session": "carol-1", "userId": "user-3"}
    carols = await _tool(client, scripted_model, "skills_list", {}, **listed)
    assert "quokka-care" not in carols
    unowned = await _tool(client, scripted_model, "skills_list", {}, session="nobody-1")
    assert "quokka-care" not in unowned
    bobs = await _tool(client, scripted_model, "skills_list", {}, session="bob-2", userId="user-2")
    assert "quokka-care" in bobs


async def test_forgetting_a_person_removes_their_home_and_nothing_else(
    client: BridgeClient, bridge: BridgeProcess, scripted_model: str
) -> None:
    fact = {"action": "add", "target": "user", "content": "Gina's fact GINA-FACT"}
    await _tool(client, scripted_model, "memory", fact, session="gina-1", userId="user-9")
    other = {"action": "add", "target": "user", "content": "Hal's fact HAL-FACT"}
    await _tool(client, scripted_model, "memory", other, session="hal-1", userId="user-10")
    shared = {"action": "add", "target": "user", "content": "no accounts NOBODY-FACT"}
    await _tool(client, scripted_model, "memory", shared, session="nobody-2")
    assert "GINA-FACT" in (await client.get_memory("gina-1", "user-9")).user.content

    await client.forget_person("user-9")

    assert not (bridge.home / "people" / "user-9").exists()
    assert (await client.get_memory("gina-2", "user-9")).user.content == ""
    assert "HAL-FACT" in (await client.get_memory("hal-1", "user-10")).user.content
    assert "NOBODY-FACT" in (await client.get_memory("nobody-2")).user.content
    prompt = await run_turn(
        client, scripted_model, "#system-contains GINA-FACT", session="gina-3", userId="user-9"
    )
    assert _said(prompt) == "SYSTEM CONTAINS: no"
