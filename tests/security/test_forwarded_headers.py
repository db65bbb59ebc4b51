"""X-Forwarded-For attacked as reported, on a real `agentchat serve` (uvicorn's own handling of
the header): a client on loopback must not choose the address the failed sign-in throttle and
the rate limits count, unless the operator names it as a proxy."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.security.conftest import TOKEN
from tests.support.serve_process import QUIET_ENV
from tests.support.serve_starter import ServeStarter


def _guesses(url: str, count: int) -> list[int]:
    """Wrong tokens, each from a "new" client address, as an attacker spoofs it."""
    with httpx.Client(base_url=url, timeout=10) as c:
        return [
            c.get(
                "/api/models",
                headers={"Authorization": "Bearer guess", "X-Forwarded-For": f"203.0.113.{n}"},
            ).status_code
            for n in range(count)
        ]


def test_a_loopback_client_cannot_choose_its_address(tmp_path: Path, served: ServeStarter) -> None:
    env = {**QUIET_ENV, "AGENTCHAT_AUTH_TOKEN": TOKEN, "AGENTCHAT_AUTH_FAILURES_PER_MINUTE": "5"}
    served.spawn(tmp_path, env=env)
    served[0].wait_healthy()
    assert _guesses(served[0].url, 8) == [401] * 5 + [429] * 3


def test_a_named_proxy_gives_the_real_client_address(tmp_path: Path, served: ServeStarter) -> None:
    env = {
        **QUIET_ENV,
        "AGENTCHAT_AUTH_TOKEN": TOKEN,
        "AGENTCHAT_AUTH_FAILURES_PER_MINUTE": "5",
        "AGENTCHAT_FORWARDED_ALLOW_IPS": "127.0.0.1",
    }
    served.spawn(tmp_path, env=env)
    served[0].wait_healthy()
    assert _guesses(served[0].url, 8) == [401] * 8  # eight clients behind the proxy
