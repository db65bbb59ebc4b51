"""`served`: the `serve` processes a test starts (tests/support/serve_starter.py), ended after
it. A fixture of wider scope opens a `ServeStarter` of its own with `with`. The worker's
zygote (tests/support/zygote.py) ends with the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.serve_starter import ServeStarter
from tests.support.zygote import close_zygote


@pytest.fixture
def served() -> Iterator[ServeStarter]:
    with ServeStarter() as started:
        yield started


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    close_zygote()
