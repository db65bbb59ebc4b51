"""Benchmark the chat reads: list page and session detail on SQLite and PostgreSQL.

Seeds 10,000 sessions (a short conversation each) and one session whose active branch is 5,000
messages deep with dead branches beside it (plus one 50 deep, to compare), then prints the
median time of a list page (50) and of a session detail (last 50 messages) as the routes build
them, and the number of SQL statements each issues. Targets: list <= 10 ms, detail <= 20 ms, a
statement count that does not grow with depth. Results also go to bench/results/chat_queries.json.

Run: .venv/bin/python bench/bench_chat_queries.py [sqlite] [postgresql]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from sqlalchemy import event, insert, text  # noqa: E402

from agentchat.chat import tree  # noqa: E402
from agentchat.chat.presenters import session_detail, session_page  # noqa: E402
from agentchat.chat.tables import ChatMessage, ChatMessageLog, ChatSession  # noqa: E402
from agentchat.core.database import Database  # noqa: E402
from tests.support.databases import drop_database, fresh_database_url  # noqa: E402

SESSIONS = 10_000
DEEP = 5_000
SHALLOW = 50
RUNS = 30
T0 = datetime(2026, 1, 1)
RESULTS = ROOT / "bench" / "results" / "chat_queries.json"


class Ids:
    """Hands out explicit ids so the rows can be inserted in bulk."""

    def __init__(self) -> None:
        self.next = {"session": 1, "message": 1, "log": 1}

    def take(self, kind: str) -> int:
        value = self.next[kind]
        self.next[kind] += 1
        return value


def _message(ids: Ids, session_id: int, parent: dict[str, Any] | None, **kw: Any) -> dict[str, Any]:
    role = kw.pop("role", "USER" if parent is None or parent["role"] != "USER" else "ASSISTANT")
    return {
        "id": ids.take("message"),
        "session_id": session_id,
        "parent_id": None if parent is None else parent["id"],
        "depth": 0 if parent is None else parent["depth"] + 1,
        "role": role,
        "status": "SENT" if role == "USER" else "SUCCESS",
        "content": kw.pop("content", f"{role.lower()} text " * 8),
        "is_active": kw.pop("is_active", True),
        "branch_order": kw.pop("branch_order", 0),
        "created_at": kw.pop("created_at", T0),
    }


def _session(ids: Ids, n: int, title: str) -> dict[str, Any]:
    at = T0 + timedelta(seconds=n)
    return {
        "id": ids.take("session"),
        "session_uuid": f"00000000-0000-4000-8000-{n:012d}",
        "title": title,
        "hermes_session": f"chat-{n}",
        "status": "ARCHIVED" if n % 50 == 0 else "ACTIVE",
        "created_at": at,
        "updated_at": at,
        "last_message_at": at,
        "activity_at": at,
        "active_leaf_id": None,
    }


def _chain(ids: Ids, session_id: int, depth: int) -> tuple[list[dict[str, Any]], list[int]]:
    """An active branch `depth` deep; every 10th level a dead sibling with a reply under it."""
    rows: list[dict[str, Any]] = []
    parent: dict[str, Any] | None = None
    for level in range(depth):
        node = _message(ids, session_id, parent, created_at=T0 + timedelta(seconds=level))
        rows.append(node)
        if level % 10 == 5 and parent is not None:
            dead = _message(
                ids,
                session_id,
                parent,
                role=node["role"],
                is_active=False,
                branch_order=1,
                content="an abandoned version",
            )
            rows += [dead, _message(ids, session_id, dead, content="below a dead version")]
        parent = node
    assistants = [r["id"] for r in rows if r["role"] == "ASSISTANT" and r["is_active"]]
    return rows, assistants


def seed(db: Database) -> dict[str, int]:
    ids = Ids()
    sessions, messages, logs = [], [], []
    for n in range(SESSIONS):
        chat = _session(ids, n, f"Conversation {n}")
        sessions.append(chat)
        question = _message(ids, chat["id"], None)
        answer = _message(ids, chat["id"], question)
        messages += [question, answer]
        chat["active_leaf_id"] = answer["id"]  # as tree.append_message records it
    deep = _session(ids, SESSIONS + 1, "Deep")
    shallow = _session(ids, SESSIONS + 2, "Shallow")
    sessions += [deep, shallow]
    for chat, depth in ((deep, DEEP), (shallow, SHALLOW)):
        rows, assistants = _chain(ids, chat["id"], depth)
        messages += rows
        for message_id in assistants:
            for seq, kind in enumerate(("thinking", "tool_call", "tool_result")):
                logs.append(
                    {
                        "id": ids.take("log"),
                        "message_id": message_id,
                        "seq": seq,
                        "kind": kind,
                        "content": f"{kind} line",
                        "created_at": T0,
                    }
                )
    with db.session() as s:
        s.execute(insert(ChatSession), sessions)
        for start in range(0, len(messages), 5_000):
            s.execute(insert(ChatMessage), messages[start : start + 5_000])
        s.execute(insert(ChatMessageLog), logs)
    _after_bulk(db)
    with db.session() as s:
        for chat in (deep, shallow):
            tree.refresh_active_leaf(s, chat["id"])
    return {
        "deep": deep["id"],
        "shallow": shallow["id"],
        "messages": len(messages),
        "logs": len(logs),
    }


def _after_bulk(db: Database) -> None:
    if db.dialect != "postgresql":
        return
    with db.engine.connect() as conn:
        for table in ("chat_session", "chat_message", "chat_message_log"):
            conn.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT max(id) FROM {table}))"
                )
            )
        conn.commit()
        conn.execute(text("ANALYZE"))
        conn.commit()


@contextmanager
def count_statements(db: Database) -> Iterator[list[str]]:
    seen: list[str] = []

    def listener(*args: Any) -> None:
        seen.append(args[2])

    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        yield seen
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)


def list_once(db: Database) -> int:
    with db.session() as s:
        page = session_page(s, "ACTIVE", None, 50, None)
        page.model_dump(mode="json", by_alias=True)
        return len(page.items)


def detail_once(db: Database, session_id: int) -> int:
    with db.session() as s:
        chat = s.get(ChatSession, session_id)
        assert chat is not None
        detail = session_detail(s, chat)
        detail.model_dump(mode="json", by_alias=True)
        return len(detail.messages)


def median_ms(action: Callable[[], int]) -> float:
    for _ in range(3):
        action()
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 2)


def statements(db: Database, action: Callable[[], int]) -> int:
    with count_statements(db) as seen:
        action()
    return len(seen)


def bench(dialect: str, tmp: Path) -> dict[str, Any]:
    db = Database(fresh_database_url(dialect, tmp, tag="bench"))
    try:
        started = time.perf_counter()
        seeded = seed(db)
        seconds = round(time.perf_counter() - started, 1)
        deep, shallow = seeded["deep"], seeded["shallow"]
        assert list_once(db) == 50 and detail_once(db, deep) == 50
        return {
            "seed_seconds": seconds,
            "messages": seeded["messages"],
            "logs": seeded["logs"],
            "list_ms": median_ms(lambda: list_once(db)),
            "detail_ms": median_ms(lambda: detail_once(db, deep)),
            "detail_depth50_ms": median_ms(lambda: detail_once(db, shallow)),
            "list_statements": statements(db, lambda: list_once(db)),
            "detail_statements": statements(db, lambda: detail_once(db, deep)),
            "detail_depth50_statements": statements(db, lambda: detail_once(db, shallow)),
        }
    finally:
        db.dispose()
        drop_database(dialect, "bench")


def main(argv: list[str]) -> None:
    dialects = argv or ["sqlite", "postgresql"]
    results: dict[str, Any] = {"sessions": SESSIONS, "depth": DEEP, "runs": RUNS}
    with tempfile.TemporaryDirectory() as tmp:
        for dialect in dialects:
            r = bench(dialect, Path(tmp))
            results[dialect] = r
            print(
                f"{dialect:>10}: seeded {r['messages']} messages in {r['seed_seconds']} s | "
                f"list(50) {r['list_ms']} ms, {r['list_statements']} statements | "
                f"detail(last 50, depth {DEEP}) {r['detail_ms']} ms, "
                f"{r['detail_statements']} statements | depth {SHALLOW}: "
                f"{r['detail_depth50_ms']} ms, {r['detail_depth50_statements']} statements"
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    figures = " ".join(
        f"{d}: list={results[d]['list_ms']}ms/{results[d]['list_statements']}st "
        f"detail={results[d]['detail_ms']}ms/{results[d]['detail_statements']}st "
        f"detail@{SHALLOW}={results[d]['detail_depth50_ms']}ms/"
        f"{results[d]['detail_depth50_statements']}st"
        for d in dialects
    )
    print(f"RESULT chat_queries targets list<=10ms detail<=20ms | {figures}")


if __name__ == "__main__":
    main(sys.argv[1:])
