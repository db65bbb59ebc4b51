"""A password written in a bridge or Redis URL stays out of the one-line start errors (the
operator's logs keep them)."""

from __future__ import annotations

import pytest

from agentchat.core.setting_values import bridge_urls
from agentchat.events.redis_health import redis_problem

PASSWORD = "hunter2-secret"


def test_a_bridge_url_without_a_scheme_is_refused_without_its_password() -> None:
    with pytest.raises(ValueError) as refused:
        bridge_urls(f"admin:{PASSWORD}@bridge.internal:8200")
    assert PASSWORD not in str(refused.value)
    assert "bridge.internal:8200" in str(refused.value)


def test_a_redis_url_that_cannot_be_parsed_is_one_line_without_its_password() -> None:
    problem = redis_problem(f"redis://:{PASSWORD}@127.0.0.1:notaport/0")
    assert problem is not None and "\n" not in problem
    assert PASSWORD not in problem
