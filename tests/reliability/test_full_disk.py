"""Finding 4 in its real form: the data folder of a real `agentchat serve` (SQLite) is a small
tmpfs that fills up while an answer streams.

While the disk is full: the run still ends (no RUNNING for ever), health says 503, stop and
delete answer at once. Once there is room again: the run is settled, the session takes a new
run, and after a restart the stored answer holds every word a client saw."""

from __future__ import annotations

import errno
import os
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.reliability.api_process import ApiProcess, start_api
from tests.reliability.helpers import wait_for
from tests.support.servers import BridgeProcess
from tests.support.sse import Sse, read_events, until_terminal

DISK = "12m"
SLOW = "#delay 40\n#tokens 150"
QUICK_S = 2.0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 12 MiB tmpfs mounted for this test (root only), unmounted afterwards."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK}", "tmpfs", str(mount_point)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}): needs root")
    try:
        yield mount_point
    finally:
        if subprocess.run(["umount", str(mount_point)]).returncode != 0:
            subprocess.run(["umount", "-l", str(mount_point)], check=True)


def _fill(disk: Path) -> Path:
    """Write a file until the disk refuses another byte."""
    filler = disk / "filler"
    chunk = 1 << 20
    with filler.open("wb", buffering=0) as out:
        while chunk >= 512:
            try:
                out.write(b"\0" * chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                chunk //= 4
    os.sync()
    return filler


def _text(events: list[Sse]) -> str:
    return "".join(str(e.data.get("content") or "") for e in events if _is_delta(e))


def _is_delta(event: Sse) -> bool:
    return event.data.get("kind") == "answer_delta"


def _timed(call: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    began = time.monotonic()
    response = call()
    return response, time.monotonic() - began


def test_an_answer_that_fills_the_disk_is_settled_and_kept(
    tmp_path: Path, small_disk: Path, bridge: BridgeProcess
) -> None:
    data_dir = small_disk / "data"
    api: ApiProcess | None = start_api(data_dir, bridge, log_dir=tmp_path)
    try:
        assert api is not None
        http = httpx.Client(base_url=api.url, timeout=30)
        session_id = http.post("/api/chat/sessions", json={}).json()["sessionId"]
        run = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": SLOW})
        assert run.status_code == 201, run.text
        run_id = run.json()["runId"]
        stream = f"{api.url}/api/chat/runs/{run_id}/stream"
        head = read_events(stream, stop=lambda ev: sum(map(_is_delta, ev)) >= 20)
        filler = _fill(small_disk)

        rest = read_events(stream, headers={"Last-Event-ID": str(head[-1].num)}, timeout=60)
        assert until_terminal(rest), "the stream never ended"
        seen = _text(head + rest)
        assert seen.startswith("t1 t2 t3")

        health = http.get("/api/health")
        assert health.status_code == 503, health.text
        assert health.json()["error"]["code"] == "database_unavailable"
        stopped, took = _timed(lambda: http.post(f"/api/chat/runs/{run_id}/stop"))
        assert took < QUICK_S and stopped.status_code in (200, 409, 503), stopped.text
        if stopped.status_code == 200:
            assert stopped.json()["status"] != "RUNNING"
        deleted, took = _timed(lambda: http.delete(f"/api/chat/sessions/{session_id}"))
        assert took < QUICK_S and deleted.status_code in (409, 503), deleted.text

        filler.unlink()  # room again
        state = wait_for(
            lambda: http.get(f"/api/chat/runs/{run_id}/state").json(),
            lambda s: s.get("status") not in (None, "RUNNING"),
            timeout=15,
            what="the sweeper to settle the run",
        )
        assert state["status"] == "SUCCESS", state
        assert http.get("/api/health").status_code == 200
        again = http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": "#say next"})
        assert again.status_code == 201, again.text
        end = read_events(f"{api.url}/api/chat/runs/{again.json()['runId']}/stream")[-1]
        assert end.event == "workflow_complete", end.data
        http.close()

        api.stop()
        api = start_api(data_dir, bridge, log_dir=tmp_path)
        with httpx.Client(base_url=api.url, timeout=30) as fresh:
            detail = fresh.get(f"/api/chat/sessions/{session_id}").json()
        stored = next(m for m in detail["messages"] if m.get("runId") == run_id)
        assert stored["status"] == "SUCCESS"
        assert stored["content"].startswith(seen.strip()), (stored["content"][-80:], seen[-80:])
    finally:
        if api is not None:
            api.stop()
