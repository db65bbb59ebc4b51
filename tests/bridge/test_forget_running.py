"""Issue 33: a reset or delete during a running turn left the chat's scratch folder behind.

The API tells the bridge it is done with a hermes session when the chat is reset or deleted;
a turn of it may still be running there (the person pressed Stop and the agent's tool has not
given up yet). The bridge kept nothing for it then, and nothing once the turn ended: the folder
with the agent's files stayed for ever. A real bridge and hermes-agent; the scripted model
holds the turn at a gate until the reset is in.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from agentchat.bridge_client.client import BridgeClient
from tests.bridge.support import Event, Turn, run_turn
from tests.support.own_bridge import own_bridge
from tests.support.servers import BridgeProcess

pytestmark = pytest.mark.timeout(180)


# Its agent writes files (the `client` fixture of conftest.py talks to this one).
bridge = own_bridge(AGENTCHAT_AGENT_TOOLSETS="todo,file")


def _wait_gone(folder: Path, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not folder.exists():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("ending", ["finishes", "is stopped"])
async def test_a_session_forgotten_during_its_turn_loses_its_folder_when_the_turn_ends(
    client: BridgeClient, bridge: BridgeProcess, scripted_model: str, ending: str
) -> None:
    session = f"forgotten-{ending.replace(' ', '-')}"
    gate = f"{session}-gate"
    folder = bridge.home / "workspaces" / session
    note = {"path": "notes.txt", "content": "the agent's notes"}
    message = f"#tool write_file {json.dumps(note)}\n#hold {gate}\n#say done"

    async def forget_meanwhile(event: Event, turn: Turn) -> None:
        if event.kind != "tool_result":
            return
        assert (folder / "notes.txt").is_file()
        await client.reset(session)  # the chat was reset or deleted meanwhile
        assert folder.is_dir()  # not under the running turn
        if ending == "is stopped":
            await client.abort(turn.run_id)
        httpx.post(f"{scripted_model}/_gates/{gate}")

    turn = await run_turn(
        client, scripted_model, message, session=session, on_event=forget_meanwhile
    )

    assert turn.result is not None
    assert turn.result.status == ("SUCCESS" if ending == "finishes" else "STOPPED")
    assert _wait_gone(folder), sorted(p.name for p in folder.iterdir())
