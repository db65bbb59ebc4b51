"""Promise 1: an API killed mid-run leaves nothing RUNNING after a restart, and keeps what it
had saved (the question, the logs flushed so far, the earlier answers). The demo model lives
in the killed API and comes back on its port with the restarted one, so the turn its bridge
kept going asks it again: it completes when the model is back before hermes gives up, else
it fails on the model; the restarted API re-attaches and stores that end."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.reliability.api_process import start_api
from tests.reliability.helpers import SETTLED, answers, log_kinds, wait_for
from tests.support.servers import BridgeProcess
from tests.support.sse import read_events, until_terminal

LONG = "#think working slowly\n#todo step one; step two\n#delay 40\n#tokens 400"
WHOLE = " ".join(f"t{n}" for n in range(1, 401))


def _detail(http: httpx.Client, session_id: int) -> dict[str, Any]:
    response = http.get(f"/api/chat/sessions/{session_id}")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _start(http: httpx.Client, session_id: int, message: str) -> str:
    response = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": message})
    assert response.status_code == 201, response.text
    return str(response.json()["runId"])


def test_a_killed_api_leaves_no_answer_running_after_restart(
    tmp_path: Path, bridge: BridgeProcess
) -> None:
    data_dir = tmp_path / "data"
    api = start_api(data_dir, bridge)
    try:
        with httpx.Client(base_url=api.url, timeout=30) as http:
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            first = _start(http, session_id, "#think first\n#say saved answer")
            done = read_events(f"{api.url}/api/chat/runs/{first}/stream", stop=until_terminal)
            assert done[-1].event == "workflow_complete"
            run_id = _start(http, session_id, LONG)
            wait_for(
                lambda: answers(_detail(http, session_id))[-1],
                lambda m: {"thinking", "todo_update"} <= set(log_kinds(m)),
                what="the running answer's first logs to be flushed",
            )
            saved = _detail(http, session_id)["messages"]
        api.kill()

        api = start_api(data_dir, bridge, urlsplit(api.url).port)
        with httpx.Client(base_url=api.url, timeout=30) as http:
            detail = wait_for(
                lambda: _detail(http, session_id),
                lambda d: not d["session"]["hasActiveRun"],
                timeout=60,
                what="the re-attached answer to end",
            )
            statuses = [m["status"] for m in detail["messages"]]
            assert statuses[:3] == ["SENT", "SUCCESS", "SENT"] and statuses[3] in SETTLED
            assert detail["messages"][:3] == saved[:3]
            ended_answer = detail["messages"][-1]
            assert ended_answer["runId"] == run_id
            if ended_answer["status"] == "SUCCESS":
                assert ended_answer["content"] == WHOLE
            else:
                assert ended_answer["error"]
            assert {"thinking", "todo_update"} <= set(log_kinds(ended_answer))
            state = http.get(f"/api/chat/runs/{run_id}/state").json()
            assert state["status"] == ended_answer["status"]
            ended = read_events(f"{api.url}/api/chat/runs/{run_id}/stream", stop=until_terminal)
            assert ended[-1].event in ("workflow_complete", "workflow_error")
            assert [e.num for e in ended] == list(range(1, len(ended) + 1))

            # A new version of the question the restart crossed: a branch of its own.
            edited = http.patch(
                f"/api/chat/messages/{detail['messages'][2]['id']}",
                json={"content": "#say after the restart"},
            )
            assert edited.status_code == 200, edited.text
            again = http.post(
                f"/api/chat/sessions/{session_id}/runs",
                json={"message": "", "parentMessageId": edited.json()["newMessageId"]},
            ).json()["runId"]
            end = read_events(f"{api.url}/api/chat/runs/{again}/stream", stop=until_terminal)
            assert end[-1].event == "workflow_complete", end[-1]
            assert end[-1].data["finalText"] == "after the restart"
            statuses = {m["status"] for m in answers(_detail(http, session_id))}
            assert statuses <= SETTLED
    finally:
        api.stop()
