"""One scripted model and one fast-failing bridge shared by the reliability tests.

The bridge gives up on a silent model after 5 s with no retries (AGENTCHAT_BRIDGE_* and
HERMES_STREAM_RETRIES), so a model fault ends a run in seconds rather than minutes. (It was
2 s: on a CPU-saturated `make test` a starved bridge went 2 s without a token in tests that
are not about faults, three times in six fresh-clone runs.)
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.own_bridge import own_bridge

FAST_FAIL_ENV = {
    "AGENTCHAT_BRIDGE_REQUEST_TIMEOUT_S": "5",
    "AGENTCHAT_BRIDGE_API_MAX_RETRIES": "0",
    "HERMES_STREAM_RETRIES": "0",
}


bridge = own_bridge(scope="package", **FAST_FAIL_ENV)


@pytest.fixture
def stack_settings() -> dict[str, Any]:
    return {"run_rate_per_minute": 0}
