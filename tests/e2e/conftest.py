"""Browser tests: Debian's Chromium (Playwright) against the real stack — scripted model on a
thread, the bridge (hermes-agent) in a subprocess, the API serving the built page on a thread.

One stack per worker process (the bridge takes seconds to import hermes-agent). A test gets a
tab whose storage, cookies and history are empty: a kept one emptied after the last test where
nothing of that test can outlive it, else one of a new context (tests/e2e/page_pool.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from agentchat.scripted_llm.server import serve_in_thread
from tests.e2e.build import ensure_page_built
from tests.e2e.chromium_launch import launch_chromium
from tests.e2e.own_stack import own_stack
from tests.e2e.page_pool import PagePool, may_share, new_context
from tests.e2e.stack import E2EStack
from tests.e2e.timeouts import EXPECT_TIMEOUT_MS
from tests.e2e.ui_support import PageFactory, page_factory

CHROMIUM = os.environ.get("AGENTCHAT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
TEST_FAILED = pytest.StashKey[bool]()
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture(scope="session")
def e2e_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EStack]:
    ensure_page_built()
    scripted_url, stop_scripted = serve_in_thread()
    try:
        with own_stack(
            tmp_path_factory,
            "shared",
            scripted_url,
            bridge_env={"AGENTCHAT_BRIDGE_POOL_SIZE": "12"},
            max_active_runs=12,
        ) as stack:
            yield stack
    finally:
        stop_scripted()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance: Playwright) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run `make browser`")
    instance = launch_chromium(playwright_instance.chromium, CHROMIUM, CHROMIUM_ARGS)
    yield instance
    instance.close()


PAGE_OPTIONS: dict[str, Any] = {
    "viewport": {"width": 1280, "height": 800},
    "accept_downloads": True,
}


@pytest.fixture
def context(browser: Browser, e2e_stack: E2EStack) -> Iterator[BrowserContext]:
    ctx = new_context(browser, e2e_stack.url, **PAGE_OPTIONS)
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def page_pool(browser: Browser) -> Iterator[PagePool]:
    pool = PagePool(browser)
    yield pool
    pool.close()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    ARTIFACTS.mkdir(exist_ok=True)
    counts = f"tabs of a new context: {pool.opened}, kept tabs reused: {pool.reused}\n"
    (ARTIFACTS / f"kept-tabs-{worker}.txt").write_text(counts)


@pytest.fixture
def shared_tabs(request: pytest.FixtureRequest, page_pool: PagePool) -> Iterator[PagePool | None]:
    """The kept tabs when this test may use one (tests/e2e/page_pool.py), else None."""
    if not may_share(request.node):
        yield None
        return
    yield page_pool
    page_pool.give_back(test_failed=request.node.stash.get(TEST_FAILED, False))


@pytest.fixture
def page(
    request: pytest.FixtureRequest,
    browser: Browser,
    e2e_stack: E2EStack,
    shared_tabs: PagePool | None,
) -> Iterator[Page]:
    """An empty tab: of the test's `context` if it takes one, else a kept one or a new one."""
    if "context" in request.fixturenames:
        yield request.getfixturevalue("context").new_page()
    elif shared_tabs is not None:
        yield shared_tabs.take(e2e_stack.url, **PAGE_OPTIONS)
    else:
        ctx = new_context(browser, e2e_stack.url, **PAGE_OPTIONS)
        yield ctx.new_page()
        ctx.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    if report.failed:  # type: ignore[attr-defined]
        item.stash[TEST_FAILED] = True
    return report


@pytest.fixture
def page_stack(e2e_stack: E2EStack) -> E2EStack:
    """The stack `make_page`'s pages open; a module with a stack of its own overrides this."""
    return e2e_stack


@pytest.fixture
def make_page(
    browser: Browser, page_stack: E2EStack, shared_tabs: PagePool | None
) -> Iterator[PageFactory]:
    """Empty tabs of a size, colour scheme and stored settings: kept ones where the test may
    share them, else of contexts of their own, closed after the test."""
    with page_factory(browser, page_stack, shared_tabs) as make:
        yield make


@pytest.fixture(scope="session")
def screenshots() -> Path:
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
