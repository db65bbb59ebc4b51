"""Volume over time, on disk: what a deleted chat leaves behind, and whether a data folder that
has been busy for weeks gives its space back.

A person who deletes a chat expects its words gone. They used to stay: in the SQLite file (the
full-text index keeps the tokens of deleted rows until its segments merge, freed pages and stale
WAL frames keep the text), in the agent's scratch folder (hermes-home/workspaces/<session>:
files the agent wrote, and one folder per chat forever) and in hermes' own log (agent.log keeps
the first 80 characters of every question). And the SQLite file never shrank: deleting hundreds
of chats gave nothing back, and a WAL that a long-lived reader let grow stayed that size.

Real `agentchat serve` processes with their local bridge (real hermes-agent), a real SQLite
file; every process a test starts is ended by it."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentchat.core.database.sqlite_upkeep import WAL_LIMIT_BYTES
from tests.reliability.helpers import wait_for
from tests.support.local_bridge import stop_local_bridges
from tests.support.serve_process import Served, spawn_serve
from tests.support.sse import read_events, until_terminal

pytestmark = pytest.mark.timeout(400)
START_TIMEOUT_S = 180.0
FILE_TOOLSETS = "clarify,todo,memory,skills,file"


class Stack:
    """One `agentchat serve` with its local bridge on a data folder; ended after the test."""

    def __init__(self, root: Path, **env: str) -> None:
        self.data_dir = root / "data"
        self.served: Served = spawn_serve(
            root / "logs",
            *("--data-dir", str(self.data_dir)),
            env={"AGENTCHAT_START_BRIDGE": "true", **env},
        )
        self.http = httpx.Client(base_url=self.served.url, timeout=30)

    def close(self) -> None:
        self.http.close()
        self.served.stop()
        stop_local_bridges(self.data_dir)

    def new_chat(self) -> int:
        return int(self.http.post("/api/chat/sessions", json={}).json()["sessionId"])

    def ask(self, session_id: int, message: str) -> dict[str, Any]:
        """The terminal event's data of one turn."""
        started = self.http.post(f"/api/chat/sessions/{session_id}/runs", json={"message": message})
        assert started.status_code == 201, started.text
        url = f"{self.served.url}/api/chat/runs/{started.json()['runId']}/stream"
        events = read_events(url, stop=until_terminal)
        assert events[-1].event == "workflow_complete", events[-1]
        return events[-1].data

    def delete(self, session_id: int) -> None:
        response = self.http.delete(f"/api/chat/sessions/{session_id}")
        assert response.status_code == 204, response.text

    @property
    def db_file(self) -> Path:
        return self.data_dir / "agentchat.db"

    def db_bytes(self) -> int:
        wal = self.db_file.with_name("agentchat.db-wal")
        return self.db_file.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


@pytest.fixture
def make_stack(tmp_path: Path) -> Iterator[Any]:
    started: list[Stack] = []

    def make(**env: str) -> Stack:
        stack = Stack(tmp_path / f"stack-{len(started)}", **env)
        started.append(stack)
        stack.served.wait_healthy(START_TIMEOUT_S)
        return stack

    yield make
    for stack in started:
        stack.close()


def files_holding(folder: Path, word: bytes) -> list[str]:
    """The regular files under `folder` whose bytes contain `word`."""
    found = []
    for path in sorted(folder.rglob("*")):
        try:
            if path.is_file() and not path.is_symlink() and word in path.read_bytes():
                found.append(str(path.relative_to(folder)))
        except OSError:  # a file removed while we walk
            continue
    return found


def test_a_deleted_chat_leaves_its_words_nowhere_in_the_data_folder(make_stack: Any) -> None:
    stack: Stack = make_stack(AGENTCHAT_AGENT_TOOLSETS=FILE_TOOLSETS)
    kept = stack.new_chat()
    stack.ask(kept, "#say a chat that stays")
    gone = stack.new_chat()
    note = {"path": "notes.txt", "content": "quokkaquill notes the agent wrote"}
    script = f"#tool write_file {json.dumps(note)}\n#think pondering quokkaquill\n#say quokkaquill"
    assert "quokkaquill" in stack.ask(gone, f"{script}\nquokkaquill question")["finalText"]
    stack.ask(gone, "#say a second turn about quokkaquill")
    before = files_holding(stack.data_dir, b"quokkaquill")
    assert any("workspaces" in f for f in before), before  # the agent's file is there

    stack.delete(gone)

    left = wait_for(
        lambda: files_holding(stack.data_dir, b"quokkaquill"),
        lambda found: found == [],
        timeout=60,
        what="the deleted chat's words to leave the data folder",
    )
    assert left == []
    workspaces = stack.data_dir / "hermes-home" / "workspaces"
    assert len(list(workspaces.iterdir())) == 1  # the kept chat's folder only
    assert stack.http.get(f"/api/chat/sessions/{kept}").status_code == 200
    assert stack.ask(kept, "#say still here")["finalText"] == "still here"


def test_deleting_chats_gives_their_space_back_to_the_disk(make_stack: Any) -> None:
    stack: Stack = make_stack()
    empty = stack.db_bytes()
    chats = [stack.new_chat() for _ in range(30)]
    for chat in chats:
        # 30 tokens a chunk: the same stored answers in a 30th of the chunks hermes parses
        stack.ask(chat, "#think a long thought\n#tokens 3000 30")
    full = wait_for(stack.db_bytes, lambda size: size > empty + 2_000_000, what="a fuller file")

    for chat in chats:
        stack.delete(chat)

    shrunk = wait_for(
        stack.db_bytes,
        lambda size: size < empty + (full - empty) // 4,
        timeout=60,
        what=f"the SQLite file ({full} bytes with the chats, {empty} empty) to shrink",
    )
    assert shrunk < full


def test_the_wal_shrinks_back_after_a_long_reader_lets_go(make_stack: Any) -> None:
    stack: Stack = make_stack()
    wal = stack.db_file.with_name("agentchat.db-wal")
    reader = sqlite3.connect(stack.db_file, isolation_level=None)  # an operator's shell
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM chat_message").fetchone()  # holds its snapshot
        chat = stack.new_chat()
        while wal.stat().st_size <= 2 * WAL_LIMIT_BYTES:
            stack.ask(chat, "#tokens 4000 40")
    finally:
        reader.close()

    chat = stack.new_chat()
    size = wait_for(
        lambda: (stack.ask(chat, "#say one more"), wal.stat().st_size)[1],
        lambda size: size <= WAL_LIMIT_BYTES,
        timeout=120,
        what="the WAL to come back under its limit",
    )
    assert size <= WAL_LIMIT_BYTES
