"""Many requests at once on SQLite: none fails, none waits for a lock it can never get."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.support.servers import serve_app


def test_a_burst_of_writes_beyond_the_worker_threads_all_succeed(
    tmp_path: Path, database: Database
) -> None:
    settings = Settings(
        data_dir=tmp_path,
        start_bridge=False,
        start_scripted_llm=False,
        bridge_url="http://127.0.0.1:9",
        run_rate_per_minute=0,
    )
    url, stop = serve_app(create_app(settings, database=database))

    async def burst(count: int) -> list[int]:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            responses = await asyncio.gather(
                *[http.post("/api/chat/sessions", json={}) for _ in range(count)]
            )
        return [r.status_code for r in responses]

    try:
        codes = asyncio.run(burst(120))  # more than the 40 worker threads and the pool
    finally:
        stop()
    assert codes == [201] * 120
