"""Redis (the event bus of several API processes) goes away and comes back: health says so,
requests that need it answer 503 `bus_unavailable` (they answered 500 `internal`, also on the
first request after Redis was back), nothing is half written, and runs start again after."""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentchat.scripted_llm.server import serve_in_thread
from tests.reliability.helpers import wait_for
from tests.support.redis_server import OwnRedis
from tests.support.serve_starter import ServeStarter
from tests.support.servers import BridgeProcess, start_bridge
from tests.support.sse import read_events, until_terminal

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[OwnRedis]:
    value = OwnRedis(tmp_path)
    value.start()
    yield value
    value.stop()


@pytest.fixture
def server(redis: OwnRedis, served: ServeStarter, tmp_path: Path) -> str:
    """`serve` on PostgreSQL and `redis`, with an external bridge and scripted model."""
    database = served.fresh_database("postgresql", tmp_path, "redis", migrate=True)
    scripted, stop_scripted = serve_in_thread()
    served.after(stop_scripted)
    bridge: BridgeProcess = start_bridge(tmp_path / "bridge")
    served.after(bridge.stop)
    env = {
        "AGENTCHAT_DATA_DIR": str(tmp_path / "data"),
        "AGENTCHAT_BRIDGE_SECRET": bridge.secret or "",
        "AGENTCHAT_SCRIPTED_LLM_URL": scripted,
        "AGENTCHAT_REDIS_PREFIX": f"test-redis-{uuid.uuid4().hex}:",
    }
    args = ["--database-url", database, "--redis-url", redis.url, "--bridge-url", bridge.url]
    return served.start(tmp_path, *args, env=env, timeout=60).url


def test_health_and_run_starts_follow_redis(server: str, redis: OwnRedis) -> None:
    with httpx.Client(base_url=server, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        assert http.get("/api/health").json()["status"] == "ok"

        redis.stop()
        degraded = wait_for(
            lambda: http.get("/api/health").json(),
            lambda body: body["status"] == "degraded",
            timeout=30,
            what="health to say the bus is gone",
        )
        assert "Redis" in degraded["reason"], degraded
        refused = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": "#say x"})
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "bus_unavailable"

        redis.start()
        wait_for(lambda: http.get("/api/health").json()["status"], lambda s: s == "ok", 30)
        started = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": "#say back"})
        assert started.status_code == 201, started.text
        run_id = started.json()["runId"]
        events = read_events(f"{server}/api/chat/runs/{run_id}/stream", stop=until_terminal)
        assert events[-1].event == "workflow_complete", events[-1]
        messages = http.get(f"/api/chat/sessions/{session_id}").json()["messages"]
    # the refused start left no question behind; the one after it is answered
    assert [(m["role"], m["status"]) for m in messages] == [
        ("USER", "SENT"),
        ("ASSISTANT", "SUCCESS"),
    ]


WHOLE = " ".join(f"t{n}" for n in range(1, 201))


@pytest.mark.parametrize("outage", ["pause", "restart"])
def test_an_answer_streaming_across_an_outage_is_stored_whole(
    server: str, redis: OwnRedis, outage: str
) -> None:
    """It was stored FAILED ("The run failed: Timeout reading from …"), cut at a fifth of its
    text, though its bridge finished it. The run is now left to its bridge while Redis is
    away and re-attached once it is back."""
    with httpx.Client(base_url=server, timeout=30) as http:
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        body = {"message": "#delay 40\n#tokens 200"}
        run_id = http.post(f"/api/chat/sessions/{session_id}/runs", json=body).json()["runId"]
        wait_for(
            lambda: http.get(f"/api/chat/runs/{run_id}/state").json()["eventCount"],
            lambda count: count >= 20,
            timeout=30,
            what="the answer to stream",
        )
        assert redis.process is not None
        if outage == "pause":
            redis.process.send_signal(signal.SIGSTOP)
            try:
                wait_for(
                    lambda: http.get("/api/health").json()["status"],
                    lambda s: s == "degraded",
                    timeout=30,
                )
            finally:
                redis.process.send_signal(signal.SIGCONT)
        else:
            redis.stop()
            wait_for(
                lambda: http.get("/api/health").json()["status"],
                lambda s: s == "degraded",
                timeout=30,
            )
            redis.start()
        answer = wait_for(
            lambda: http.get(f"/api/chat/sessions/{session_id}").json()["messages"][-1],
            lambda m: m["status"] != "RUNNING",
            timeout=120,
            what="the answer to end",
        )
    assert (answer["status"], answer["content"]) == ("SUCCESS", WHOLE), answer
