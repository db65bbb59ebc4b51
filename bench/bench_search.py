"""Benchmark session search (titles and message content) at 10,000 sessions on each database.

Seeds 10,000 sessions of two turns each (40,000 messages of about 60 words drawn from a
2,000-word vocabulary), then prints the median time of the list route's first page for
queries of different selectivity: a word in 10 sessions, a word in most sessions, two words
together, a title substring, and a word that is nowhere. Target: every query <= 50 ms.
Results also go to bench/results/search.json.

Run: .venv/bin/python bench/bench_search.py [sqlite] [postgresql] [mariadb]
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from sqlalchemy import insert, text  # noqa: E402

from agentchat.chat.presenters import session_page  # noqa: E402
from agentchat.chat.tables import ChatMessage, ChatSession  # noqa: E402
from agentchat.core.database import Database  # noqa: E402
from bench.common import write_result  # noqa: E402
from tests.support.databases import drop_database, fresh_database_url  # noqa: E402

SESSIONS = 10_000
WORDS_PER_MESSAGE = 60
RUNS = 20
TARGET_MS = 50.0
T0 = datetime(2026, 1, 1)
QUERIES = {
    "rare_word": "zanzibarite",
    "common_word": "wordalpha",
    "two_words": "wordalpha wordbeta",
    "title_substring": "versation 123",
    "no_match": "nowherequux",
    "cjk_word": "周末",  # matched as a substring: read from the messages, not an index
    "cjk_no_match": "海豚",
}


def _vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(4, 9))) for _ in range(2_000)]


def _text(rng: random.Random, vocabulary: list[str], n: int) -> str:
    words = rng.choices(vocabulary, k=WORDS_PER_MESSAGE)
    if n % 3 == 0:
        words[5] = "wordalpha"
    if n % 7 == 0:
        words[9] = "wordbeta"
    if n % 1_000 == 0:
        words[0] = "zanzibarite"
    if n % 50 == 0:
        words[3] = "这个周末我们去爬山"
    return " ".join(words)


def seed(db: Database) -> int:
    rng = random.Random(7)
    vocabulary = _vocabulary(rng)
    sessions, messages = [], []
    next_id = 1
    for n in range(1, SESSIONS + 1):
        at = T0 + timedelta(seconds=n)
        sessions.append(
            {
                "id": n,
                "session_uuid": f"00000000-0000-4000-8000-{n:012d}",
                "title": f"Conversation {n}",
                "status": "ACTIVE",
                "created_at": at,
                "updated_at": at,
                "last_message_at": at,
                "activity_at": at,
            }
        )
        parent = None
        for depth, role in enumerate(("USER", "ASSISTANT", "USER", "ASSISTANT")):
            messages.append(
                {
                    "id": next_id,
                    "session_id": n,
                    "parent_id": parent,
                    "depth": depth,
                    "role": role,
                    "status": "SENT" if role == "USER" else "SUCCESS",
                    "content": _text(rng, vocabulary, n),
                    "is_active": True,
                    "branch_order": 0,
                    "created_at": at,
                }
            )
            parent = next_id
            next_id += 1
    with db.session() as s:
        s.execute(insert(ChatSession), sessions)
        for start in range(0, len(messages), 2_000):
            s.execute(insert(ChatMessage), messages[start : start + 2_000])
    _analyze(db)
    return len(messages)


def _analyze(db: Database) -> None:
    statement = {"postgresql": "ANALYZE", "sqlite": "ANALYZE"}.get(db.dialect)
    if statement is None:
        statement = "ANALYZE TABLE chat_session, chat_message"
    with db.engine.connect() as conn:
        conn.execute(text(statement))
        conn.commit()


def search_once(db: Database, q: str) -> int:
    with db.session() as s:
        page = session_page(s, "ACTIVE", q, 50, None)
        page.model_dump(mode="json", by_alias=True)
        return len(page.items)


def median_ms(action: Callable[[], int]) -> float:
    for _ in range(3):
        action()
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 2)


def bench(dialect: str, tmp: Path) -> dict[str, Any]:
    db = Database(fresh_database_url(dialect, tmp, tag="bench_search"))
    try:
        started = time.perf_counter()
        messages = seed(db)
        result: dict[str, Any] = {
            "messages": messages,
            "seed_seconds": round(time.perf_counter() - started, 1),
        }
        for name, q in QUERIES.items():
            result[f"{name}_hits"] = search_once(db, q)
            result[f"{name}_ms"] = median_ms(lambda q=q: search_once(db, q))
        return result
    finally:
        db.dispose()
        drop_database(dialect, "bench_search")


def _figures(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "key": f"search_{dialect}_{name}",
            "label": f"search {SESSIONS:,} sessions, {dialect}, {name} ({QUERIES[name]!r})",
            "value": r[f"{name}_ms"],
            "unit": "ms",
            "target": {"op": "<=", "value": TARGET_MS},
            "baseline": None,
            "conditions": {"sessions": SESSIONS, "messages": r["messages"], "page": 50},
            "reference": None,
            "note": f"{r[f'{name}_hits']} sessions on the first page",
        }
        for dialect, r in results.items()
        for name in QUERIES
    ]


def main(argv: list[str]) -> None:
    dialects = argv or ["sqlite", "postgresql", "mariadb"]
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for dialect in dialects:
            r = results[dialect] = bench(dialect, Path(tmp))
            timings = ", ".join(
                f"{name} {r[f'{name}_ms']} ms ({r[f'{name}_hits']} hits)" for name in QUERIES
            )
            print(f"{dialect:>10}: seeded in {r['seed_seconds']} s | {timings}", flush=True)
    write_result("search", _figures(results), sessions=SESSIONS, runs=RUNS)


if __name__ == "__main__":
    main(sys.argv[1:])
