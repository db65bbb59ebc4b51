"""The start-up heap is frozen while the API serves (full collections skip it) and handed back
to the collector when the app stops."""

from __future__ import annotations

import gc

import pytest
from fastapi import FastAPI

from agentchat import gc_freeze, lifecycle


async def test_the_start_up_heap_is_frozen_while_serving_and_thawed_after(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the real freeze, collection included (tests/support/heap.py leaves the collection out)
    monkeypatch.setattr(lifecycle, "freeze_startup_heap", gc_freeze.freeze_startup_heap)
    async with app.router.lifespan_context(app):  # start-up, then shutdown on leaving
        assert gc.get_freeze_count() > 10_000  # modules, the app, the ORM
    assert gc.get_freeze_count() == 0
