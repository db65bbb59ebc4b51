"""While the agent service is down the page says so before anyone sends a question: a banner
under the header (from `/api/health`, polled), gone once the bridge is back. A real `serve`
with its local bridge: the bridge killed with SIGKILL and its hermes home held by the test, so
that the supervisor's restarts fail (a second bridge on a home exits) until the test lets go;
the page at desktop size in the light theme and at phone size in the dark one."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from agentchat.bridge.server.home_lock import LOCK_NAME
from tests.e2e.build import ensure_page_built
from tests.e2e.conftest import EXPECT_TIMEOUT_MS
from tests.support.local_bridge import bridges_on, kill
from tests.support.serve_process import Served
from tests.support.serve_starter import ServeStarter

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]
START_TIMEOUT_S = 180.0
BANNER_TIMEOUT_MS = 40_000
OK_POLL_MS = 10_000  # the page polls health this often while all is well...
PROBLEM_POLL_MS = 3_000  # ...and this often while its banner shows
RECOVERY_TIMEOUT_MS = 120_000  # the supervisor's back-off after failed restarts reaches 30 s
Scheme = Literal["light", "dark"]
SIZES: list[tuple[int, int, Scheme]] = [(1280, 800, "light"), (390, 844, "dark")]  # desktop, phone


@pytest.fixture
def server(served: ServeStarter, tmp_path: Path) -> Served:
    """`serve` with its local bridge (ended with it: tests/support/serve_process.py)."""
    ensure_page_built()
    args = ("--data-dir", str(tmp_path / "data"))
    env = {"AGENTCHAT_START_BRIDGE": "true"}
    return served.start(tmp_path / "logs", *args, env=env, timeout=START_TIMEOUT_S)


@contextlib.contextmanager
def bridge_kept_down(home: Path) -> Iterator[None]:
    """Kill the home's bridge and hold the home's lock, so that restarts fail meanwhile."""
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        while True:  # a restart may take the lock between the kill and ours: kill it again
            for pid in bridges_on(home):
                with contextlib.suppress(ProcessLookupError):
                    kill(pid)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                continue
        yield
    finally:
        os.close(fd)  # lets go of the lock


def _degraded(url: str) -> bool:
    return bool(httpx.get(url + "/api/health", timeout=2.0).json()["status"] == "degraded")


def _contexts(browser: Browser, url: str) -> Iterator[BrowserContext]:
    for width, height, scheme in SIZES:
        ctx = browser.new_context(
            base_url=url,
            viewport={"width": width, "height": height},
            color_scheme=scheme,
            locale="en-US",
        )
        ctx.set_default_timeout(EXPECT_TIMEOUT_MS)
        yield ctx


def test_a_banner_shows_while_the_agent_service_is_down(
    browser: Browser, server: Served, tmp_path: Path, screenshots: Path
) -> None:
    contexts = list(_contexts(browser, server.url))
    try:
        pages = [ctx.new_page() for ctx in contexts]
        for page in pages:
            page.clock.install()  # the page's own clock, so that its next poll need not be sat out
            page.goto("/chat")
            expect(page.locator("header.app-header")).to_be_visible()
            expect(page.get_by_test_id("service-banner")).to_have_count(0)

        with bridge_kept_down(tmp_path / "data" / "hermes-home"):
            server.wait_until(lambda: _degraded(server.url), "to say the agent is down")
            for page in pages:
                page.clock.fast_forward(OK_POLL_MS)  # the poll that finds it is due now
                banner = page.get_by_test_id("service-banner")
                expect(banner).to_be_visible(timeout=BANNER_TIMEOUT_MS)
                expect(banner).to_have_attribute("data-kind", "agent")
                expect(banner).to_contain_text("The agent service is not answering")
                box = banner.bounding_box()
                width = page.viewport_size["width"] if page.viewport_size else 0
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
                page.screenshot(path=screenshots / f"service-banner-{width}.png")
        recovery_s = RECOVERY_TIMEOUT_MS / 1000
        server.wait_until(lambda: not _degraded(server.url), "to say it is back", recovery_s)
        for page in pages:  # the supervisor restarted the bridge: the banner goes by itself
            page.clock.fast_forward(PROBLEM_POLL_MS)  # at the page's next poll, due now
            expect(page.get_by_test_id("service-banner")).to_have_count(
                0, timeout=RECOVERY_TIMEOUT_MS
            )
    finally:
        for ctx in contexts:
            ctx.close()
