"""`served`: the `serve` processes a test starts (tests/support/serve_starter.py), ended after
it. A fixture of wider scope opens a `ServeStarter` of its own with `with`."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.serve_starter import ServeStarter


@pytest.fixture
def served() -> Iterator[ServeStarter]:
    with ServeStarter() as started:
        yield started
