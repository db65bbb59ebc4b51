"""Issue 28, "the agent's memory is per person": hermes' long-term memory (MEMORY.md, USER.md)
and the skills an agent makes belong to one person.

A real API with accounts, a real bridge and hermes-agent, the scripted model calling hermes'
`memory` tool as the person's agent would. Before, every agent of a bridge shared one hermes
home: what Bob told his agent went into Carol's system prompt and her memory drawer.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.servers import BridgeProcess
from tests.support.team_stack import Person, Team

FACT = "Bob keeps three quokkas QUOKKA-FACT-7"


def _ask(person: Person, message: str, chat: int | None = None) -> dict[str, Any]:
    """The final event's data of one turn in a new chat (or `chat`)."""
    session = chat if chat is not None else person.new_session()
    run = person.start(session, message)
    events = person.events(run["runId"])
    assert events[-1].event == "workflow_complete", events[-1]
    return dict(events[-1].data)


def _remember(person: Person, fact: str) -> None:
    args = {"action": "add", "target": "user", "content": fact}
    done = _ask(person, f"#tool memory {json.dumps(args)}\n#echo-tool-result")
    assert '"success": true' in done["finalText"], done


def _prompt_holds(person: Person, text: str) -> bool:
    answer = _ask(person, f"#system-contains {text}")["finalText"]
    assert answer in ("SYSTEM CONTAINS: yes", "SYSTEM CONTAINS: no"), answer
    return bool(answer == "SYSTEM CONTAINS: yes")


def _memory_text(view: dict[str, Any]) -> str:
    return json.dumps(view)


def test_one_persons_memory_never_reaches_anothers_agent(team: Team) -> None:
    bob, carol = team.add("bob"), team.add("carol")
    bobs_chat = bob.new_session()
    _remember(bob, FACT)

    assert not _prompt_holds(carol, "QUOKKA-FACT-7")  # Carol's new chat: not in her prompt
    assert _prompt_holds(bob, "QUOKKA-FACT-7")  # Bob's new chat knows it

    assert "QUOKKA-FACT-7" in _memory_text(bob.get("/api/memory"))
    assert "QUOKKA-FACT-7" in _memory_text(bob.get(f"/api/chat/sessions/{bobs_chat}/memory"))
    carols_chat = carol.new_session()
    assert "QUOKKA-FACT-7" not in _memory_text(carol.get("/api/memory"))
    assert "QUOKKA-FACT-7" not in _memory_text(
        carol.get(f"/api/chat/sessions/{carols_chat}/memory")
    )
    assert "QUOKKA-FACT-7" not in _memory_text(team.admin.get("/api/memory"))


def test_what_a_person_writes_in_the_drawer_is_theirs_alone(team: Team) -> None:
    dave, erin = team.add("dave"), team.add("erin")
    put = dave.http.put("/api/memory", json={"user": "Dave prefers tea DRAWER-FACT"})
    assert put.status_code == 200, put.text
    assert _prompt_holds(dave, "DRAWER-FACT")
    assert not _prompt_holds(erin, "DRAWER-FACT")
    assert "DRAWER-FACT" not in _memory_text(erin.get("/api/memory"))


def test_a_deleted_persons_memory_is_gone_from_the_bridge(
    team: Team, bridge: BridgeProcess
) -> None:
    frank = team.add("frank")
    _remember(frank, "Frank's secret FRANK-FACT")
    homes = bridge.home / "people"
    held = [p for p in homes.rglob("*.md") if "FRANK-FACT" in p.read_text(encoding="utf-8")]
    assert held, "the memory was written in the person's home"

    deleted = team.admin.http.delete(f"/api/admin/users/{frank.id}")
    assert deleted.status_code == 204, deleted.text

    assert not any(p.exists() for p in held)
    left = [p for p in bridge.home.rglob("*.md") if "FRANK-FACT" in p.read_text("utf-8")]
    assert left == []


def test_the_skills_page_lists_the_skills_of_the_persons_own_agent(team: Team) -> None:
    """The page reads the local bridge's hermes home: a skill Ivy's agent made sits in her
    home there (tests/bridge/test_person_homes.py shows hermes putting it there)."""
    ivy, jon = team.add("ivy"), team.add("jon")
    home = team.settings.resolved_hermes_home / "people" / f"user-{ivy.id}" / "skills"
    (home / "ivy-notes").mkdir(parents=True)
    (home / "ivy-notes" / "SKILL.md").write_text(
        "---\nname: ivy-notes\ndescription: Made by Ivy's agent.\n---\nTake notes.\n"
    )
    ivys = {s["folderName"]: s for s in ivy.get("/api/skills")}
    assert ivys["ivy-notes"]["agentMade"] is True
    assert "ivy-notes" not in {s["folderName"] for s in jon.get("/api/skills")}
    assert jon.get("/api/skills/ivy-notes", expect=404)["error"]["code"] == "not_found"
