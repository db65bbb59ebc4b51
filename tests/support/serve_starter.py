"""The `serve` processes one test (or one module) starts, with the databases made for them:
every one ended, and every database dropped, when it closes. Each test file passes what it
varies (flags, environment, database) as arguments."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.databases import drop_database, fresh_database_url, worker_tag
from tests.support.serve_process import START_TIMEOUT_S, Served, spawn_serve


class ServeStarter:
    def __init__(self) -> None:
        self.started: list[Served] = []
        self._cleanups: list[Callable[[], object]] = []

    def spawn(self, log_dir: Path, *args: str, **options: Any) -> Served:
        """`spawn_serve(log_dir, *args, **options)`, not waiting; ended at close."""
        served = spawn_serve(log_dir, *args, **options)
        self.started.append(served)
        return served

    def start(
        self, log_dir: Path, *args: str, timeout: float = START_TIMEOUT_S, **options: Any
    ) -> Served:
        """`spawn`, then wait until it answers /api/health."""
        served = self.spawn(log_dir, *args, **options)
        served.wait_healthy(timeout)
        return served

    def fresh_database(
        self, dialect: str, folder: Path, name: str, *, migrate: bool = False
    ) -> str:
        """A database of its own on `dialect` (empty unless `migrate`), dropped at close."""
        tag = f"{name}_{worker_tag()}_{uuid.uuid4().hex[:6]}"
        url = fresh_database_url(dialect, folder, tag=tag, migrate=migrate)
        self.after(lambda: drop_database(dialect, tag))
        return url

    def after(self, cleanup: Callable[[], object]) -> None:
        """Run `cleanup` at close, once the processes are ended (the last added first)."""
        self._cleanups.append(cleanup)

    def close(self) -> None:
        try:
            for served in self.started:
                served.stop()
        finally:
            while self._cleanups:
                self._cleanups.pop()()

    def __getitem__(self, index: int) -> Served:
        return self.started[index]

    def __iter__(self) -> Iterator[Served]:
        return iter(self.started)

    def __len__(self) -> int:
        return len(self.started)

    def __enter__(self) -> ServeStarter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
