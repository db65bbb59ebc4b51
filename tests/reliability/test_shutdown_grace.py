"""SIGTERM with an answer streaming to a client: the runs get `shutdown_grace_s` once, counted
from the signal. uvicorn first waits up to the grace for open streams, then the lifespan's run
shutdown waited a whole grace again, so a stop took twice what the operator set (and a service
manager's stop timeout set to the grace killed the API in the middle of storing its runs)."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import httpx

from tests.reliability.api_process import start_api
from tests.reliability.helpers import wait_for
from tests.support.servers import BridgeProcess

GRACE_S = 6.0
SLOW = "#delay 50\n#tokens 2000"  # about 100 s of answer: still going when the grace ends


def _follow(url: str, chunks: list[bytes], ended: threading.Event) -> None:
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(60.0)) as response:
            for chunk in response.iter_raw():
                chunks.append(chunk)
    except httpx.HTTPError:
        pass  # the API went away mid-stream: that is what is tested
    finally:
        ended.set()


def test_sigterm_with_a_stream_open_waits_one_grace_not_two(
    tmp_path: Path, bridge: BridgeProcess
) -> None:
    env = {"AGENTCHAT_SHUTDOWN_GRACE_S": str(GRACE_S)}
    api = start_api(tmp_path / "data", bridge, extra_env=env)
    ended = threading.Event()
    try:
        with httpx.Client(base_url=api.url, timeout=30) as http:
            session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
            started = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": SLOW})
            assert started.status_code == 201, started.text
            run_id = started.json()["runId"]
        chunks: list[bytes] = []
        url = f"{api.url}/api/chat/runs/{run_id}/stream"
        reader = threading.Thread(target=_follow, args=(url, chunks, ended), daemon=True)
        reader.start()
        wait_for(lambda: b"answer_delta" in b"".join(chunks), bool, 30, "the answer to stream")

        signalled = time.monotonic()
        api.process.send_signal(signal.SIGTERM)
        api.process.wait(timeout=30)
        took = time.monotonic() - signalled

        assert ended.wait(5), "the client's stream did not end with the API"
        # One grace and the time to store the runs, not two graces (13 s before the fix).
        assert took < GRACE_S * 1.5, f"SIGTERM took {took:.1f} s with a {GRACE_S} s grace"
    finally:
        api.stop()
