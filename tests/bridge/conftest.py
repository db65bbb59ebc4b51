"""Fixtures for the bridge: the scripted model in-thread, the bridge in a subprocess
(tests.support.servers.start_bridge)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from agentchat.bridge_client.client import BridgeClient
from agentchat.scripted_llm.server import serve_in_thread
from tests.support.recording_model import RecordingModel, recording_model
from tests.support.servers import BridgeProcess, start_bridge

START_TIMEOUT_S = 120.0  # cold import of hermes-agent without bytecode caches on a busy box


@pytest.fixture(scope="module")
def scripted_model() -> Iterator[str]:
    url, stop = serve_in_thread()
    yield url
    stop()


@pytest.fixture(scope="module")
def recorder() -> Iterator[RecordingModel]:
    """A model stand-in that records every request hermes sends it."""
    with recording_model() as model:
        yield model


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    """A bridge with the default settings (modules that need others define their own)."""
    process = start_bridge(tmp_path_factory.mktemp("bridge"))
    yield process
    process.stop()


@pytest.fixture
async def client(bridge: BridgeProcess) -> AsyncIterator[BridgeClient]:
    async with BridgeClient(bridge.url, bridge.secret) as value:
        yield value
