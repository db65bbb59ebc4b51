"""The start gate that makes count-then-insert of run starts atomic across API processes: held
from `lock_run_starts` until the transaction ends (PostgreSQL, MariaDB); SQLite is one process."""

from __future__ import annotations

import threading

from agentchat.core.database import Database
from agentchat.runs import store

BLOCKED_CHECK_S = 0.5
RELEASE_WITHIN_S = 10.0


def test_the_start_gate_is_held_until_the_transaction_ends(any_database: Database) -> None:
    holding, release, second_in = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with any_database.session() as db:
            store.lock_run_starts(db)
            holding.set()
            release.wait(RELEASE_WITHIN_S)

    def second() -> None:
        holding.wait(RELEASE_WITHIN_S)
        with any_database.session() as db:
            store.lock_run_starts(db)
            second_in.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    try:
        assert holding.wait(RELEASE_WITHIN_S)
        blocked = not second_in.wait(BLOCKED_CHECK_S)
        assert blocked == (any_database.dialect != "sqlite"), any_database.dialect
    finally:
        release.set()
        for thread in threads:
            thread.join(RELEASE_WITHIN_S)
    assert second_in.is_set()
