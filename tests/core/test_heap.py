"""The start-up heap is frozen while the API serves (full collections skip it) and handed back
to the collector when the app stops."""

from __future__ import annotations

import gc

from fastapi import FastAPI


async def test_the_start_up_heap_is_frozen_while_serving_and_thawed_after(app: FastAPI) -> None:
    async with app.router.lifespan_context(app):  # start-up, then shutdown on leaving
        assert gc.get_freeze_count() > 10_000  # modules, the app, the ORM
    assert gc.get_freeze_count() == 0
