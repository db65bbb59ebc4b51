"""Limits and errors of the run endpoints."""

from __future__ import annotations

from pathlib import Path

from agentchat.core.database import Database
from tests.reliability.helpers import wait_for
from tests.support.api_stack import Stack, make_stack
from tests.support.servers import BridgeProcess


def test_one_run_per_session_and_a_global_cap(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> None:
    stack, close = make_stack(tmp_path, database, bridge, scripted_url, max_active_runs=2)
    try:
        a, b, c = (stack.new_session() for _ in range(3))
        run_a = stack.start(a, "#sleep 3000\n#say a")["runId"]
        busy = stack.http.post(f"/api/chat/sessions/{a}/runs", json={"message": "again"})
        assert busy.status_code == 409
        assert busy.json()["error"]["runId"] == run_a
        run_b = stack.start(b, "#sleep 3000\n#say b")["runId"]
        full = stack.http.post(f"/api/chat/sessions/{c}/runs", json={"message": "hi"})
        assert full.status_code == 429
        assert full.json()["error"]["code"] == "too_many_requests"
        for run_id in (run_a, run_b):
            stack.post(f"/api/chat/runs/{run_id}/stop", expect=200)
        stack.ask(c, "#say now there is room")
    finally:
        close()


def test_bad_requests_get_clear_errors(stack: Stack) -> None:
    session_id = stack.new_session()
    cases = [
        ("post", f"/api/chat/sessions/{session_id}/runs", {"message": ""}, 422),
        ("post", "/api/chat/sessions/999999/runs", {"message": "x"}, 404),
        ("post", f"/api/chat/sessions/{session_id}/runs", {"message": "x", "modelId": 0}, 422),
        (
            "post",
            f"/api/chat/sessions/{session_id}/runs",
            {"message": "x", "skillFolder": "../etc"},
            422,
        ),
        (
            "post",
            f"/api/chat/sessions/{session_id}/runs",
            {"message": "x", "parentMessageId": 987654},
            404,
        ),
        ("get", "/api/chat/runs/unknown-run/state", None, 404),
        ("get", "/api/chat/runs/unknown-run/stream", None, 404),
        ("post", "/api/chat/runs/unknown-run/stop", None, 404),
        ("post", "/api/chat/runs/unknown-run/clarify", {"clarifyId": "c", "answer": "a"}, 404),
        ("post", "/api/chat/messages/999999/regenerate", None, 404),
    ]
    for method, path, body, status in cases:
        response = getattr(stack.http, method)(path, **({"json": body} if body else {}))
        assert response.status_code == status, (path, response.text)
        assert set(response.json()["error"]) >= {"code", "message"}


def test_regenerate_refuses_user_messages(stack: Stack) -> None:
    session_id = stack.new_session()
    started, _ = stack.ask(session_id, "#say hi")
    response = stack.http.post(f"/api/chat/messages/{started['userMessageId']}/regenerate")
    assert response.status_code == 409


def test_a_skill_whose_file_links_out_cannot_be_chosen(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> None:
    """The Skills page cannot read it (the file is opened without following links), so a run
    may not preload it either: the bridge's hermes would follow the link."""
    skills = tmp_path / "skills"
    (skills / "innocent").mkdir(parents=True)
    (tmp_path / "secret.key").write_text("TOP-SECRET\n", encoding="utf-8")
    (skills / "innocent" / "SKILL.md").symlink_to("../../secret.key")
    stack, close = make_stack(tmp_path, database, bridge, scripted_url, skills_dir=skills)
    try:
        session_id = stack.new_session()
        body = {"message": "#say hi", "skillFolder": "innocent"}
        refused = stack.http.post(f"/api/chat/sessions/{session_id}/runs", json=body)
        assert refused.status_code == 422, refused.text
        assert "innocent" in refused.json()["error"]["message"]
        assert stack.get(f"/api/chat/sessions/{session_id}")["messages"] == []
    finally:
        close()


ASK = "#clarify Which colour? | red | blue\n#echo-tool-result"
WORK = "#sleep 30000\n#say done"


def test_runs_waiting_for_an_answer_count_apart_from_the_cap(
    tmp_path: Path, any_database: Database, bridge: BridgeProcess, scripted_url: str
) -> None:
    """Issue 34, finding 8: questions waiting for the person held the global cap (for up to
    30 minutes each), so as many waiting questions as the cap turned every new run away with
    429. Now up to AGENTCHAT_MAX_WAITING_RUNS of them do not count; more count as at work."""
    stack, close = make_stack(
        tmp_path, any_database, bridge, scripted_url, max_active_runs=2, max_waiting_runs=2
    )
    started: list[str] = []

    def start(message: str) -> str:
        run_id = stack.start(stack.new_session(), message)["runId"]
        started.append(run_id)
        return run_id

    def refused() -> None:
        full = stack.http.post(
            f"/api/chat/sessions/{stack.new_session()}/runs", json={"message": "x"}
        )
        assert full.status_code == 429, full.text
        assert full.json()["error"]["code"] == "too_many_requests"

    try:
        for _ in range(2):
            _until_waiting(stack, start(ASK))
        first_at_work = start(WORK)  # two questions wait: they left the two places free
        start(WORK)
        refused()  # the runs at work still hold the cap
        stack.post(f"/api/chat/runs/{first_at_work}/stop", expect=200)
        _until_waiting(stack, start(ASK))
        refused()  # a third waiting question is one more than AGENTCHAT_MAX_WAITING_RUNS
    finally:
        for run_id in started:
            stack.http.post(f"/api/chat/runs/{run_id}/stop")
        close()


def _until_waiting(stack: Stack, run_id: str) -> None:
    wait_for(
        lambda: stack.get(f"/api/chat/runs/{run_id}/state")["pendingClarify"],
        lambda pending: pending is not None,
        timeout=60,
        what=f"run {run_id} to ask its question",
    )
