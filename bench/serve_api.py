"""The API for benchmarks: `agentchat serve` settings from AGENTCHAT_* variables, with the Redis
bus (when configured) under the bench key prefix so a bench never touches other data.

Run: python bench/serve_api.py PORT
"""

from __future__ import annotations

import os
import sys
from typing import Any

import uvicorn

from agentchat import lifecycle
from agentchat.app import create_app
from agentchat.core.settings import Settings
from agentchat.events.bus import EventBus
from agentchat.events.factory import make_bus


def _bench_bus(redis_url: str | None, **opts: Any) -> EventBus:
    if redis_url:
        opts.setdefault(
            "prefix", os.environ.get("AGENTCHAT_BENCH_REDIS_PREFIX", "agentchat-bench:")
        )
    return make_bus(redis_url, **opts)


def main(port: int) -> None:
    lifecycle.make_bus = _bench_bus  # type: ignore[assignment]
    settings = Settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(int(sys.argv[1]))
