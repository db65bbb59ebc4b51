"""One scripted model and one fast-failing bridge shared by the reliability tests.

The bridge gives up on a silent model after 2 s with no retries (AGENTCHAT_BRIDGE_* and
HERMES_STREAM_RETRIES), so a model fault ends a run in seconds rather than minutes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.core.database import Database
from tests.runs.conftest import Stack, make_stack
from tests.support.servers import BridgeProcess, start_bridge

FAST_FAIL_ENV = {
    "AGENTCHAT_BRIDGE_REQUEST_TIMEOUT_S": "2",
    "AGENTCHAT_BRIDGE_API_MAX_RETRIES": "0",
    "HERMES_STREAM_RETRIES": "0",
}


@pytest.fixture(scope="package")
def scripted_url(worker_scripted_url: str) -> str:
    """The worker's scripted model (tests/support/worker_stack.py)."""
    return worker_scripted_url


@pytest.fixture(scope="package")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    process = start_bridge(tmp_path_factory.mktemp("reliability-bridge"), **FAST_FAIL_ENV)
    yield process
    process.stop()


@pytest.fixture
def stack(
    tmp_path: Path, database: Database, bridge: BridgeProcess, scripted_url: str
) -> Iterator[Stack]:
    value, close = make_stack(tmp_path, database, bridge, scripted_url, run_rate_per_minute=0)
    yield value
    close()
