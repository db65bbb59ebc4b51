"""A run re-attached by an API that came back knows its question as the agent received it,
attachments included (the first API composed it when the run started; the one that comes
back rebuilds it from the question's rows): the turn it stores refers to the question rather
than holding a second copy of it and of the attached file's text, as a run that never lost
its API stores it, and the next question's history has the file's text once."""

from __future__ import annotations

import json
import signal
import sqlite3
from typing import Any

import pytest

from agentchat.core.database.packed_text import unpack
from tests.reliability.helpers import last_answer, streamed_text
from tests.reliability.test_reattach import SLOW, Api, api  # noqa: F401 (fixture)
from tests.support.sse import until_terminal

pytestmark = pytest.mark.timeout(300)  # two API starts and a bridge on a shared machine
SECRET = "the password of the vault is periwinkle-42"


def _start_with_file(api: Api, message: str) -> tuple[int, str]:  # noqa: F811
    with api.http() as http:
        session_id = int(http.post("/api/chat/sessions", json={}).json()["sessionId"])
        uploaded = http.post(
            f"/api/chat/sessions/{session_id}/attachments",
            params={"name": "vault.txt"},
            content=SECRET.encode(),
            headers={"content-type": "application/octet-stream"},
        )
        assert uploaded.status_code == 201, uploaded.text
        body = {"message": message, "attachmentIds": [uploaded.json()["id"]]}
        started = http.post(f"/api/chat/sessions/{session_id}/runs", json=body)
        assert started.status_code == 201, started.text
        assert started.json()["deliveries"] == ["inline"]
        return session_id, str(started.json()["runId"])


def _stored_turn(api: Api, message_id: int) -> list[Any]:  # noqa: F811
    with sqlite3.connect(api.data_dir / "agentchat.db") as db:
        (raw,) = db.execute(
            "SELECT agent_messages FROM chat_message WHERE id = ?", (message_id,)
        ).fetchone()
    text = unpack(raw)
    return list(json.loads(text)) if text else []


def test_a_reattached_run_stores_its_question_with_attachments_as_a_reference(
    api: Api,  # noqa: F811
) -> None:
    session_id, run_id = _start_with_file(api, SLOW)
    before = api.events(run_id, stop=lambda evs: len(streamed_text(evs)) >= 100)
    api.restart_after(signal.SIGKILL)

    after = api.events(run_id, before[-1].num, stop=until_terminal, timeout=90)
    assert after[-1].event == "workflow_complete", after[-1].data
    with api.http() as http:
        answer = last_answer(http, session_id)
        assert answer["status"] == "SUCCESS"
        assert SECRET not in json.dumps(_stored_turn(api, answer["id"]))

        follow = http.post(
            f"/api/chat/sessions/{session_id}/runs", json={"message": "#echo-context"}
        )
        assert follow.status_code == 201, follow.text
    done = api.events(str(follow.json()["runId"]), stop=until_terminal, timeout=90)
    assert done[-1].event == "workflow_complete", done[-1].data
    assert done[-1].data["finalText"].count("periwinkle-42") == 1
