"""Issue 34, finding 5: the local bridge frozen by SIGSTOP (alive, its socket open, answering
nothing). Runs asked for meanwhile were accepted and failed with no text; they are refused at
once now (503 `bridge_unavailable`, no row written). The answer that was streaming when it froze
is cut when the frozen bridge is replaced (its turn dies with it): it keeps every character the
page was shown and says plainly what happened, instead of "The agent service is unavailable"."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.reliability.helpers import streamed_text, wait_for
from tests.reliability.test_bridge_lifetime import START_TIMEOUT_S, Serves
from tests.support.local_bridge import alive
from tests.support.sse import Sse, read_events, until_terminal

pytestmark = pytest.mark.timeout(400)


@pytest.fixture
def serves(tmp_path: Path) -> Iterator[Serves]:
    value = Serves(tmp_path)
    yield value
    value.close()


def test_a_frozen_bridge_refuses_new_runs_and_its_answer_keeps_what_was_shown(
    serves: Serves,
) -> None:
    served = serves.start()
    with httpx.Client(base_url=served.url, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        body = {"message": "#delay 60\n#tokens 300"}
        run_id = http.post(f"/api/chat/sessions/{session_id}/runs", json=body).json()["runId"]
        shown: list[Sse] = []
        page = threading.Thread(target=_follow, args=(served.url, run_id, shown), daemon=True)
        page.start()
        wait_for(lambda: len(shown), lambda n: n >= 20, timeout=60, what="the answer to stream")

        frozen = serves.bridge_pid()
        os.kill(frozen, signal.SIGSTOP)
        try:
            other = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            refused = http.post(f"/api/chat/sessions/{other}/runs", json={"message": "#say x"})
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "bridge_unavailable"
            assert "frozen" in refused.json()["error"]["message"]
            assert http.get(f"/api/chat/sessions/{other}").json()["messages"] == []

            page.join(START_TIMEOUT_S)
        finally:
            if alive(frozen):
                os.kill(frozen, signal.SIGKILL)
        answer = wait_for(
            lambda: _last_answer(http, session_id),
            lambda m: m["status"] != "RUNNING",
            timeout=START_TIMEOUT_S,
            what="the answer to end",
        )
        assert shown[-1].event == "workflow_error", shown[-1]
        text = streamed_text(shown)
        assert text and len(text) < 1391  # cut, not finished
        assert answer["content"] == text  # every character shown, none more
        assert answer["status"] == "INTERRUPTED", answer
        assert "stopped answering" in answer["error"] and "restarted" in answer["error"], answer
        assert shown[-1].data["message"] == answer["error"]

        wait_for(
            lambda: http.get("/api/health").json()["status"],
            lambda status: status == "ok",
            timeout=START_TIMEOUT_S,
            what="the bridge to be back",
        )
        again = http.post(f"/api/chat/sessions/{other}/runs", json={"message": "#say back"})
        assert again.status_code == 201, again.text
        events = read_events(
            f"{served.url}/api/chat/runs/{again.json()['runId']}/stream", stop=until_terminal
        )
        assert events[-1].event == "workflow_complete", events[-1]


def _follow(url: str, run_id: str, shown: list[Sse]) -> None:
    """The page: the run's stream from its first event to its end, `shown` as it comes."""

    def seen(events: list[Sse]) -> bool:
        shown[len(shown) :] = events[len(shown) :]
        return until_terminal(events)

    read_events(f"{url}/api/chat/runs/{run_id}/stream", stop=seen, timeout=START_TIMEOUT_S)


def _last_answer(http: httpx.Client, session_id: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = http.get(f"/api/chat/sessions/{session_id}").json()["messages"]
    return messages[-1]
