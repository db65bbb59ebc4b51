"""A person's data: token usage per person for the administrator, and a deleted person's
chats, answers and private model gone from the SQLite file (not only from the tables)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.reliability.helpers import wait_for
from tests.support.team_stack import Team

WORD = "quokkaquorum"


def _file_holds(team: Team, word: str) -> bool:
    path = Path(str(team.database.file))
    files = [path, path.with_name(path.name + "-wal")]
    return any(word.encode() in f.read_bytes() for f in files if f.exists())


def test_usage_is_counted_per_person_model_and_day(team: Team) -> None:
    bob = team.add("bob")
    for _ in range(2):
        run = bob.start(bob.new_session(), "#say hello there")["runId"]
        assert bob.events(run)[-1].event == "workflow_complete"
    rows = [r for r in team.admin.get("/api/admin/usage?days=1") if r["username"] == "bob"]
    assert len(rows) == 1, rows
    row = rows[0]
    assert row["day"] == datetime.now(UTC).date().isoformat()
    assert (row["modelName"], row["turns"]) == ("scripted", 2)
    assert row["totalTokens"] > 0
    refused = bob.http.get("/api/admin/usage")
    assert refused.status_code == 403


def test_a_deleted_persons_chats_and_keys_leave_the_database_file(team: Team) -> None:
    bob = team.add("bob")
    chat = bob.new_session(title=f"{WORD} plans")
    run = bob.start(chat, f"#say the {WORD} met at noon")["runId"]
    assert bob.events(run)[-1].event == "workflow_complete"
    model = {
        "name": f"{WORD} model",
        "baseUrl": "http://127.0.0.1:9/v1",
        "modelName": "m",
        "apiKey": "sk-0123456789abcdef",
    }
    bob.post("/api/models", model, expect=201)
    wait_for(lambda: _file_holds(team, WORD), bool, timeout=30, what="the words on disk")

    deleted = team.admin.http.delete(f"/api/admin/users/{bob.id}")

    assert deleted.status_code == 204, deleted.text
    wait_for(
        lambda: _file_holds(team, WORD),
        lambda held: not held,
        timeout=60,
        what="the deleted person's words gone from the file and its WAL",
    )
    assert bob.http.get("/api/auth/me").status_code == 401
    assert all(u["username"] != "bob" for u in team.admin.get("/api/admin/users"))
    log = team.admin.get("/api/admin/audit?action=user_deleted")["items"]
    assert log[0]["targetName"] == "bob" and log[0]["detail"] == {"chats": 1}
