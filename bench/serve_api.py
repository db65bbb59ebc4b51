"""The API for benchmarks: `agentchat serve` settings from AGENTCHAT_* variables, with the Redis
keys (when Redis is configured) under the bench key prefix so a bench never touches other data.

Run: python bench/serve_api.py PORT
"""

from __future__ import annotations

import os
import sys

import uvicorn

from agentchat.app import create_app
from agentchat.core.settings import Settings


def main(port: int) -> None:
    prefix = os.environ.get("AGENTCHAT_BENCH_REDIS_PREFIX", "agentchat-bench:")
    settings = Settings(redis_prefix=prefix)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    uvicorn.run(create_app(settings), host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main(int(sys.argv[1]))
