"""Child process of test_held_state.py: one real bridge app (real hermes-agent) in this
process, a new chat per turn through its routes, then what the process holds per session,
printed as JSON. A process of its own: hermes binds HERMES_HOME at import.

    python -m tests.bridge.held_state_child ROOT MODEL_URL CHATS POOL_SIZE
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from agentchat.bridge.server.main import create_app
from agentchat.bridge.settings import BridgeSettings
from tests.bridge.support import model

SECRET = "held-state-secret"
HEADERS = {"Authorization": f"Bearer {SECRET}"}
WRITE = '#tool write_file {"path": "note.txt", "content": "%s"}\n#say done'


def turn(client: TestClient, model_url: str, session: str, message: str) -> str:
    """One turn through POST /run, read to its end and released as the API does."""
    run_id = uuid.uuid4().hex
    body = {
        "runId": run_id,
        "sessionId": session,
        "userMessage": message,
        "model": model(model_url),
        "toolsets": ["file"],
    }
    with client.stream("POST", "/run", json=body, headers=HEADERS) as response:
        response.raise_for_status()
        stream = b"".join(response.iter_bytes()).decode()
    client.delete(f"/runs/{run_id}", headers=HEADERS).raise_for_status()
    return stream


def held(app: Any, sessions: list[str]) -> dict[str, Any]:
    from tools import terminal_tool

    pool = app.state.bridge.pool
    pooled = pool.keys()
    ours = [f"agentchat-{s}" for s in sessions]
    return {
        "pooled": sorted({key[0] for key in pooled}),
        "inTurn": [s for s in sessions if pool.in_turn(s)],
        "taskOverrides": {t: terminal_tool._task_env_overrides[t]["cwd"] for t in ours
                          if t in terminal_tool._task_env_overrides},
        "sessionCwds": [t for t in ours if terminal_tool.get_session_cwd(t) is not None],
    }  # fmt: skip


def main(root: Path, model_url: str, chats: int, pool_size: int) -> None:
    settings = BridgeSettings(
        hermes_home=root / "hermes-home",
        skills_dir=root / "skills",
        secret=SECRET,
        pool_size=pool_size,
        toolsets="clarify,todo,memory,skills,file",
    )
    app = create_app(settings)
    sessions = [f"chat-{n}" for n in range(chats)]
    with TestClient(app) as client:
        ends = [turn(client, model_url, session, WRITE % session) for session in sessions]
        after_all = held(app, sessions)
        back = turn(client, model_url, sessions[0], WRITE % "back")  # evicted, it comes back
        after_back = held(app, sessions)
    report = {
        "completed": sum("run_end" in end and '"SUCCESS"' in end for end in [*ends, back]),
        "afterAll": after_all,
        "afterBack": after_back,
        "workspace": str(settings.home / "workspaces"),
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
