"""Issue 14, finding 2: the turn outlives its API. An external `agentchat bridge` keeps the
run going while the API is killed or shut down; the API that comes back on the same database
re-attaches to it, so the answer completes, a stream client resumes with `Last-Event-ID`
with no gap and no duplicate, and a waiting clarify can still be answered. A run its bridge
lost is stored INTERRUPTED with its text."""

from __future__ import annotations

import signal
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.reliability.api_process import ApiProcess, start_api
from tests.reliability.conftest import FAST_FAIL_ENV
from tests.reliability.helpers import last_answer, streamed_text, wait_for
from tests.support.servers import BridgeProcess, start_bridge
from tests.support.sse import Sse, read_events, until_terminal

TOKENS = 300
SLOW = f"#delay 40\n#tokens {TOKENS}"  # about 12 s of answer
FULL_TEXT = " ".join(f"t{i}" for i in range(1, TOKENS + 1))
SHORT = "#delay 20\n#tokens 40"
SHORT_TEXT = " ".join(f"t{i}" for i in range(1, 41))
CLARIFY = "#clarify Which colour? | red | blue\n#echo-tool-result"
SIGNALS = [signal.SIGKILL, signal.SIGTERM]
pytestmark = pytest.mark.timeout(300)  # two API starts and a bridge on a shared machine


class Api:
    """`agentchat serve` on one data folder and one external bridge, restartable on its port;
    the scripted model lives in the test process, so it outlives the API too."""

    def __init__(self, data_dir: Path, bridge: BridgeProcess, scripted_url: str) -> None:
        self.data_dir, self.bridge = data_dir, bridge
        self.env = {"AGENTCHAT_SCRIPTED_LLM_URL": scripted_url, "AGENTCHAT_SHUTDOWN_GRACE_S": "1"}
        self.process: ApiProcess = start_api(data_dir, bridge, extra_env=self.env)

    @property
    def url(self) -> str:
        return self.process.url

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30)

    def restart_after(
        self, sig: signal.Signals, meanwhile: Callable[[], None] | None = None
    ) -> None:
        """Stop the API with `sig`, run `meanwhile` while it is down, start it again."""
        self.process.process.send_signal(sig)
        self.process.process.wait(timeout=60)
        if meanwhile is not None:
            meanwhile()
        port = urlsplit(self.url).port
        self.process = start_api(self.data_dir, self.bridge, port, extra_env=self.env)

    def start(self, message: str) -> tuple[int, str]:
        with self.http() as http:
            session_id = int(http.post("/api/chat/sessions", json={}).json()["sessionId"])
            started = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": message})
            assert started.status_code == 201, started.text
            return session_id, str(started.json()["runId"])

    def ask_clarify(self) -> tuple[int, str, list[Sse], str]:
        """A run waiting on a clarify, its pause stored: session, run, events so far, its id."""
        session_id, run_id = self.start(CLARIFY)
        asked = self.events(
            run_id, stop=lambda evs: any(e.data.get("kind") == "clarify_request" for e in evs)
        )
        with self.http() as http:
            wait_for(
                lambda: http.get(f"/api/chat/runs/{run_id}/state").json()["pendingClarify"],
                lambda pending: pending is not None,
                what="the clarify pause to be stored",
            )
        return session_id, run_id, asked, asked[-1].data["meta"]["clarifyId"]

    def events(self, run_id: str, after: int = 0, **options: Any) -> list[Sse]:
        headers = {"Last-Event-ID": str(after)} if after else None
        return read_events(f"{self.url}/api/chat/runs/{run_id}/stream", headers=headers, **options)


@pytest.fixture
def api(tmp_path: Path, bridge: BridgeProcess, scripted_url: str) -> Iterator[Api]:
    value = Api(tmp_path / "data", bridge, scripted_url)
    yield value
    value.process.stop()


@pytest.mark.parametrize("sig", SIGNALS, ids=["kill", "term"])
def test_a_restarted_api_finishes_the_answer_its_bridge_kept_going(
    api: Api, sig: signal.Signals
) -> None:
    session_id, run_id = api.start(SLOW)
    before = api.events(run_id, stop=lambda evs: len(streamed_text(evs)) >= 100)
    api.restart_after(sig)

    after = api.events(run_id, before[-1].num, stop=until_terminal)
    assert after[-1].event == "workflow_complete", after[-1].data
    ids = [e.num for e in before + after]
    assert ids == list(range(1, len(ids) + 1))  # no gap, no duplicate
    assert streamed_text(before) + streamed_text(after) == FULL_TEXT
    assert after[-1].data["finalText"] == FULL_TEXT
    with api.http() as http:
        answer = last_answer(http, session_id)
        assert (answer["status"], answer["content"]) == ("SUCCESS", FULL_TEXT)
        again = api.events(run_id)  # a page that reloads reads the same run from the start
        assert [e.num for e in again] == ids and streamed_text(again) == FULL_TEXT


@pytest.mark.parametrize("sig", SIGNALS, ids=["kill", "term"])
def test_a_waiting_clarify_is_answered_after_the_api_restarts(
    api: Api, sig: signal.Signals
) -> None:
    session_id, run_id, asked, clarify_id = api.ask_clarify()
    api.restart_after(sig)

    with api.http() as http:
        state = http.get(f"/api/chat/runs/{run_id}/state").json()
        assert state["status"] == "RUNNING", state
        assert state["pendingClarify"]["clarifyId"] == clarify_id
        answered = http.post(
            f"/api/chat/runs/{run_id}/clarify", json={"clarifyId": clarify_id, "answer": "blue"}
        )
        assert answered.status_code == 200, answered.text
    rest = api.events(run_id, asked[-1].num, stop=until_terminal)
    assert rest[-1].event == "workflow_complete", rest[-1].data
    assert "blue" in rest[-1].data["finalText"]
    assert [e.num for e in rest] == list(range(asked[-1].num + 1, rest[-1].num + 1))
    with api.http() as http:
        answer = last_answer(http, session_id)
        assert answer["status"] == "SUCCESS" and "blue" in answer["content"]
        kinds = [log["kind"] for log in answer["logs"]]
        assert kinds.count("clarify_request") == 1 and kinds.count("clarify_answered") == 1


def test_an_answer_stored_but_not_sent_before_the_api_died_reaches_the_agent(api: Api) -> None:
    """The API stores a clarify answer, then sends it to the bridge (so that a run ending at
    once finds it answered). Killed in between, it left the page showing the question answered
    while the agent waited for it until its clarify timeout (30 minutes). The API that comes
    back sends it again when it re-attaches to a run its bridge says is waiting."""
    session_id, run_id, asked, clarify_id = api.ask_clarify()

    def answer_stored_not_sent() -> None:  # what the API leaves when it dies in between
        with sqlite3.connect(api.data_dir / "agentchat.db") as db:
            stored = db.execute(
                "UPDATE workflow_pause SET status = 'ANSWERED', answer = 'blue', "
                "answered_at = CURRENT_TIMESTAMP WHERE run_id = ? AND clarify_id = ?",
                (run_id, clarify_id),
            )
            assert stored.rowcount == 1

    api.restart_after(signal.SIGKILL, meanwhile=answer_stored_not_sent)

    rest = api.events(run_id, asked[-1].num, stop=until_terminal, timeout=60)
    assert rest[-1].event == "workflow_complete", rest[-1].data
    assert "blue" in rest[-1].data["finalText"]
    with api.http() as http:
        answer = last_answer(http, session_id)
        assert answer["status"] == "SUCCESS" and "blue" in answer["content"]
        assert http.get(f"/api/chat/runs/{run_id}/state").json()["pendingClarify"] is None


def test_an_end_the_api_read_but_could_not_store_is_stored_after_a_restart(api: Api) -> None:
    """The bridge let an ended run go once a client had read its end. An API that read it and
    died before storing it (here: the database locked, then SIGKILL) came back to a run no
    bridge held: INTERRUPTED, without the last part of the text and the agent's messages. The
    bridge now keeps an ended run until the API says it stored it (or its retention)."""
    session_id, run_id = api.start(SHORT)
    seen = api.events(run_id, stop=lambda evs: len(streamed_text(evs)) > 0)
    log = next(api.data_dir.glob("api-*.out"))
    with sqlite3.connect(api.data_dir / "agentchat.db", isolation_level=None) as db:
        db.execute("BEGIN IMMEDIATE")  # no write goes through: the end waits in the API
        wait_for(
            lambda: log.read_text(errors="replace"),
            lambda text: f"could not save the end of run {run_id}" in text,
            timeout=60,
            what="the API to have read the run's end and failed to store it",
        )
        api.process.kill()
        db.execute("ROLLBACK")
    api.restart_after(signal.SIGKILL)  # already dead: it starts again

    rest = api.events(run_id, seen[-1].num, stop=until_terminal, timeout=30)
    assert rest[-1].event == "workflow_complete", rest[-1].data
    assert streamed_text(seen) + streamed_text(rest) == SHORT_TEXT
    with api.http() as http:
        answer = last_answer(http, session_id)
        assert (answer["status"], answer["content"]) == ("SUCCESS", SHORT_TEXT)


def test_a_run_whose_bridge_died_with_the_api_is_stored_interrupted(
    tmp_path: Path, scripted_url: str
) -> None:
    # not the package's 2 s silence limit: this answer must still be streaming when both die,
    # and on a busy machine a starved bridge once went 2 s without a token and ended it FAILED
    bridge = start_bridge(
        tmp_path / "bridge", **{**FAST_FAIL_ENV, "AGENTCHAT_BRIDGE_REQUEST_TIMEOUT_S": "30"}
    )
    api: Api | None = None
    try:  # the bridge is stopped also when the API does not start
        api = Api(tmp_path / "data", bridge, scripted_url)
        session_id, run_id = api.start(SLOW)
        seen = streamed_text(api.events(run_id, stop=lambda evs: len(streamed_text(evs)) >= 100))
        with api.http() as http:
            wait_for(
                lambda: last_answer(http, session_id)["content"],
                lambda text: len(text) >= len(seen),
                timeout=5,
                what="the streamed text to be checkpointed",
            )
        api.process.kill()
        bridge.kill()
        api.restart_after(signal.SIGKILL)  # nothing left to signal: it starts again

        with api.http() as http:
            answer = last_answer(http, session_id)
            assert answer["status"] == "INTERRUPTED", answer
            assert answer["content"].startswith(seen)
            assert "no longer had it" in answer["error"]
            detail = http.get(f"/api/chat/sessions/{session_id}").json()
            assert not detail["session"]["hasActiveRun"]
        ended = api.events(run_id, timeout=10)
        assert [e.event for e in ended] == ["workflow_error"]
        assert ended[0].data.get("interrupted") is True
    finally:
        if api is not None:
            api.process.stop()
        bridge.stop()
