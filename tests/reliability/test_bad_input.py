"""Promise 2: bad input to the run routes gets a clear 4xx: oversized, non-UTF-8 and deeply
nested bodies, unknown ids, ids out of range, ids of the wrong kind, and racing requests."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.reliability.helpers import wait_for
from tests.support.api_stack import Stack

UNKNOWN_RUN = "0" * 32
# A run that is still going when the last of six racing starts arrives (~4 s): a `#say` answer
# can end before the slowest of them is read, and a start after its end rightly wins too.
LASTING = "#delay 100\n#tokens 40"


def _error(response: httpx.Response, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code, error
    return error


def _answered(stack: Stack) -> tuple[int, dict[str, Any], dict[str, Any]]:
    session_id = stack.new_session()
    started, events = stack.ask(session_id, "#say fine")
    assert events[-1].event == "workflow_complete"
    return session_id, started, events[-1].data


def test_run_bodies_that_are_too_big_broken_or_too_deep_are_refused(stack: Stack) -> None:
    session_id = stack.new_session()
    path = f"/api/chat/sessions/{session_id}/runs"
    headers = {"Content-Type": "application/json"}
    big = json.dumps({"message": "x" * (stack.settings.max_body_bytes + 1)})
    _error(stack.http.post(path, content=big, headers=headers), 413, "payload_too_large")
    broken = b'{"message": "\xff\xfe caf\xe9"}'
    _error(stack.http.post(path, content=broken, headers=headers), 422, "invalid")
    deep = '{"message": "x", "extra": ' + "[" * 5000 + "]" * 5000 + "}"
    _error(stack.http.post(path, content=deep, headers=headers), 422, "invalid")
    _error(stack.http.post(path, json={"message": "   "}), 422, "invalid")
    _error(stack.http.post(path, json={"message": "x", "maxIterations": "many"}), 422)
    assert stack.get(f"/api/chat/sessions/{session_id}")["messages"] == []


def test_unknown_and_out_of_range_ids_are_refused(stack: Stack) -> None:
    http = stack.http
    _error(http.post("/api/chat/sessions/999999/runs", json={"message": "x"}), 404)
    _error(http.post("/api/chat/messages/999999/regenerate"), 404)
    for path in ("state", "stream"):
        _error(http.get(f"/api/chat/runs/{UNKNOWN_RUN}/{path}"), 404)
    _error(http.post(f"/api/chat/runs/{UNKNOWN_RUN}/stop"), 404)
    answer = {"clarifyId": "c1", "answer": "yes"}
    _error(http.post(f"/api/chat/runs/{UNKNOWN_RUN}/clarify", json=answer), 404)
    huge = 2**70
    _error(http.post(f"/api/chat/sessions/{huge}/runs", json={"message": "x"}), 422, "invalid")
    _error(http.post(f"/api/chat/messages/{huge}/regenerate"), 422, "invalid")
    _error(http.post("/api/chat/sessions/-1/runs", json={"message": "x"}), 404)
    _error(http.get("/api/chat/stream", params={"runs": ",".join(["r"] * 51)}), 422)
    _error(http.get("/api/chat/stream", params={"runs": "a,b", "lastEventIds": "1"}), 422)
    _error(http.get(f"/api/chat/runs/{UNKNOWN_RUN}/stream?lastEventId=-1"), 422)


def test_ids_of_the_wrong_kind_are_refused(stack: Stack) -> None:
    session_id, started, _ = _answered(stack)
    user_id, answer_id, run_id = started["userMessageId"], started["messageId"], started["runId"]
    http = stack.http
    _error(http.post(f"/api/chat/messages/{user_id}/regenerate"), 409)
    edited = http.patch(f"/api/chat/messages/{answer_id}", json={"content": "no"})
    assert 400 <= edited.status_code < 500, edited.text
    other = stack.new_session()
    foreign = {"message": "", "parentMessageId": user_id}
    _error(http.post(f"/api/chat/sessions/{other}/runs", json=foreign), 404)
    answered = {"message": "", "parentMessageId": user_id}
    _error(http.post(f"/api/chat/sessions/{session_id}/runs", json=answered), 409)
    _error(http.post(f"/api/chat/runs/{run_id}/stop"), 409, "run_finished")
    late = {"clarifyId": "c1", "answer": "yes"}
    assert http.post(f"/api/chat/runs/{run_id}/clarify", json=late).status_code == 409
    _error(http.post(f"/api/chat/runs/{answer_id}/stop"), 404)
    detail = stack.get(f"/api/chat/sessions/{session_id}")
    assert [m["id"] for m in detail["messages"]] == [user_id, answer_id]


def test_racing_starts_and_edits_leave_one_winner_and_a_sound_tree(stack: Stack) -> None:
    session_id = stack.new_session()
    path = f"/api/chat/sessions/{session_id}/runs"
    with ThreadPoolExecutor(6) as pool:
        codes = list(
            pool.map(
                lambda _: stack.http.post(path, json={"message": LASTING}).status_code, range(6)
            )
        )
    assert sorted(codes) == [201, 409, 409, 409, 409, 409], codes
    wait_for(
        lambda: stack.get(f"/api/chat/sessions/{session_id}")["session"]["hasActiveRun"],
        lambda active: not active,
        what="the winning run to end",
    )
    user_id = stack.get(f"/api/chat/sessions/{session_id}")["messages"][0]["id"]
    patch = f"/api/chat/messages/{user_id}"
    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda i: stack.http.patch(patch, json={"content": f"v{i}"}), range(4))
        )
    assert all(r.status_code in (200, 409) for r in results), [r.text for r in results]
    assert any(r.status_code == 200 for r in results)
    versions = stack.get(f"/api/chat/messages/{user_id}/versions")
    assert sum(v["isActive"] for v in versions) == 1
    assert len(versions) == 1 + sum(r.status_code == 200 for r in results)
    branch = stack.get(f"/api/chat/sessions/{session_id}")["messages"]
    assert branch[0]["id"] == next(v["messageId"] for v in versions if v["isActive"])
