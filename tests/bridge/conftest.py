"""Fixtures for the bridge's tests: `client` on `bridge` (the worker's, with `scripted_model`,
in tests/support/worker_stack.py; or the module's own, tests/support/own_bridge.py), and a
`recorder` of what hermes sends a model."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from agentchat.bridge_client.client import BridgeClient
from tests.support.recording_model import RecordingModel, recording_model
from tests.support.servers import BridgeProcess

START_TIMEOUT_S = 120.0  # cold import of hermes-agent without bytecode caches on a busy box


@pytest.fixture(scope="module")
def recorder() -> Iterator[RecordingModel]:
    """A model stand-in that records every request hermes sends it."""
    with recording_model() as model:
        yield model


@pytest.fixture
async def client(bridge: BridgeProcess) -> AsyncIterator[BridgeClient]:
    """A client of `bridge`: the worker's (tests/support/worker_stack.py), or the module's own
    (tests/support/own_bridge.py)."""
    async with BridgeClient(bridge.url, bridge.secret) as value:
        yield value
