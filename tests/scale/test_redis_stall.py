"""Issue 34, finding 1: a Redis stall of a few seconds must not end answers whose bridges still
hold them. Two `agentchat serve` on one PostgreSQL and a Redis of the test's own, each with its
own local bridge (neither can ask the other's), the real hermes-agent and the scripted model;
Redis is paused (SIGSTOP) for 7 s or 15 s, or killed and started again empty, while two answers
stream on each process. All four were stored INTERRUPTED with a ninth of their text ("The
server restarted during this answer…"): the driver let go of its run when the bus did not
answer, and the other process's sweeper, which cannot see that bridge, ended it. Now every
answer ends SUCCESS with its whole text, in the database and on its stream."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest

from tests.reliability.helpers import streamed_text, wait_for
from tests.scale.conftest import Api, Cluster, new_cluster
from tests.support.redis_server import OwnRedis
from tests.support.sse import Sse, read_events, until_terminal

pytestmark = pytest.mark.timeout(420)

QUESTION = "#delay 60\n#tokens 300"
WHOLE = " ".join(f"t{n}" for n in range(1, 301))  # 1,391 characters
END_WITHIN_S = 240.0
ROOMY = {"AGENTCHAT_MAX_ACTIVE_RUNS": "8"}


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, redis: OwnRedis) -> Iterator[Cluster]:
    with new_cluster(tmp_path_factory, redis.url) as cluster:
        cluster.start_api("a", own_bridge=True, **ROOMY)  # registers the scripted model first
        cluster.start_api("b", own_bridge=True, **ROOMY)
        yield cluster


@pytest.fixture
def alone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cluster, OwnRedis]]:
    server = OwnRedis(tmp_path_factory.mktemp("redis-alone"))
    server.start()
    try:
        with new_cluster(tmp_path_factory, server.url) as cluster:
            cluster.start_api("solo", own_bridge=True, **ROOMY)
            yield cluster, server
    finally:
        server.stop()


@dataclass
class Watcher:
    """A page following one run's stream across the outage: it reconnects with
    `Last-Event-ID` whenever the stream breaks or ends without its terminal event."""

    url: str
    events: list[Sse] = field(default_factory=list)
    thread: threading.Thread | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._follow, daemon=True)
        self.thread.start()

    def _follow(self) -> None:
        deadline = time.monotonic() + END_WITHIN_S
        while time.monotonic() < deadline and not until_terminal(self.events):
            last = self.events[-1].num if self.events else 0
            try:
                self.events += read_events(
                    self.url, headers={"Last-Event-ID": str(last)}, timeout=END_WITHIN_S
                )
            except (httpx.HTTPError, TimeoutError):
                time.sleep(0.5)  # the page's own retry delay

    def join(self) -> list[Sse]:
        assert self.thread is not None
        self.thread.join(END_WITHIN_S)
        return self.events


@dataclass
class Asked:
    api: Api
    session_id: int
    run_id: str
    watcher: Watcher


def _ask(api: Api) -> Asked:
    session_id = api.new_session()
    run_id = api.start(session_id, QUESTION)["runId"]
    watcher = Watcher(f"{api.url}/api/chat/runs/{run_id}/stream")
    watcher.start()
    return Asked(api, session_id, run_id, watcher)


def _streaming(asked: Asked) -> None:
    wait_for(
        lambda: asked.api.get(f"/api/chat/runs/{asked.run_id}/state")["eventCount"],
        lambda count: count >= 20,
        timeout=90,
        what=f"run {asked.run_id} to stream",
    )


def _answer(asked: Asked) -> dict[str, object]:
    messages = asked.api.get(f"/api/chat/sessions/{asked.session_id}")["messages"]
    return dict(messages[-1])


def _ended(asked: Asked) -> dict[str, object]:
    return wait_for(
        lambda: _answer(asked),
        lambda m: m["status"] != "RUNNING",
        timeout=END_WITHIN_S,
        what=f"the answer of run {asked.run_id} to end",
    )


def _outage(redis: OwnRedis, apis: list[Api], kind: str) -> None:
    if kind.startswith("stall"):
        redis.pause()
        try:
            time.sleep(float(kind.removeprefix("stall-")))  # the stall itself: the scenario
        finally:
            redis.resume()
        return
    redis.stop()
    for api in apis:
        wait_for(
            lambda api=api: api.get("/api/health")["status"],  # type: ignore[misc]
            lambda status: status == "degraded",
            timeout=30,
            what=f"{api.name} to see Redis gone",
        )
    redis.start()


def _check_whole(runs: list[Asked], reader: Api) -> None:
    """Every answer is stored SUCCESS with its whole text, its stream from the start (read
    through `reader`) carries the whole text in order and ends complete, and the page that
    followed it live across the outage saw the same."""
    ended = [_ended(asked) for asked in runs]
    assert [(m["status"], m["content"]) for m in ended] == [("SUCCESS", WHOLE)] * len(runs), [
        (m["status"], len(str(m["content"] or "")), m.get("error")) for m in ended
    ]
    for asked in runs:
        replay = reader.events(asked.run_id, timeout=60)
        assert replay[-1].event == "workflow_complete", replay[-1]
        assert replay[-1].data["finalText"] == WHOLE
        assert streamed_text(replay) == WHOLE
        assert [e.num for e in replay] == list(range(1, len(replay) + 1))
        live = asked.watcher.join()
        assert live and live[-1].event == "workflow_complete", live[-3:]
        assert streamed_text(live) == WHOLE
        assert [e.num for e in live] == list(range(1, len(live) + 1))


@pytest.mark.parametrize("kind", ["stall-7", "stall-15", "restart"])
def test_answers_on_two_processes_outlive_a_redis_outage(
    pair: Cluster, redis: OwnRedis, kind: str
) -> None:
    a, b = pair.a, pair.b
    runs = [_ask(a), _ask(b), _ask(a), _ask(b)]
    for asked in runs:
        _streaming(asked)
    _outage(redis, [a, b], kind)
    _check_whole(runs, reader=b)
    # the bus decides again once it is back: new runs start and answer on either process
    for api in (a, b):
        _, events = api.ask(api.new_session(), "#say after")
        assert events[-1].event == "workflow_complete", events[-1]


def test_answers_of_one_process_outlive_redis_restarted_empty(
    alone: tuple[Cluster, OwnRedis],
) -> None:
    """One process alone: one of three answers was cut (an error on an old connection where
    the run was attached again, not retried)."""
    cluster, redis = alone
    solo = cluster.apis[0]
    runs = [_ask(solo) for _ in range(3)]
    for asked in runs:
        _streaming(asked)
    _outage(redis, [solo], "restart")
    _check_whole(runs, reader=solo)
