"""The scripted model and a bridge with the default settings, started once per test worker and
shared by every module that asks for `bridge`, `scripted_url` or `scripted_model` without
settings of its own (tests/runs, tests/accounts, tests/mcp_servers, tests/bridge, the
reliability tests that need no fast-failing bridge).

Starting a bridge imports hermes-agent (seconds of CPU); once per module it cost more than a
minute of the suite. Tests keep their isolation through what they own: a new database content
per test, new sessions (the bridge's agents, workspaces and runs are per session), new people.
A module or folder that needs a bridge with other settings declares its own `bridge`
(tests/support/own_bridge.py), which takes the place of this one there.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentchat.scripted_llm.server import serve_in_thread
from tests.support.servers import BridgeProcess, start_bridge


@pytest.fixture(scope="session")
def worker_scripted_url() -> Iterator[str]:
    """The scripted model on a thread of this worker."""
    url, stop = serve_in_thread()
    yield url
    stop()


@pytest.fixture(scope="session")
def worker_bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    """`agentchat bridge` with the default settings, for this worker's whole run."""
    process = start_bridge(tmp_path_factory.mktemp("worker-bridge"))
    yield process
    process.stop()


@pytest.fixture(scope="session")
def scripted_url(worker_scripted_url: str) -> str:
    """The scripted model the stack fixtures register (the worker's)."""
    return worker_scripted_url


@pytest.fixture(scope="session")
def scripted_model(worker_scripted_url: str) -> str:
    """The same, by the name the tests of the bridge alone use (they pass it as a turn's model
    URL)."""
    return worker_scripted_url


@pytest.fixture(scope="session")
def bridge(worker_bridge: BridgeProcess) -> BridgeProcess:
    """The bridge the stack fixtures talk to: the worker's, unless a module or folder declares
    its own (tests/support/own_bridge.py)."""
    return worker_bridge
