"""Fixtures for the bridge: the scripted model in-thread, the bridge in a subprocess
(tests.support.servers.start_bridge)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentchat.scripted_llm.server import serve_in_thread

START_TIMEOUT_S = 120.0  # cold import of hermes-agent without bytecode caches on a busy box


@pytest.fixture(scope="module")
def scripted_model() -> Iterator[str]:
    url, stop = serve_in_thread()
    yield url
    stop()
