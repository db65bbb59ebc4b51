"""Browser tests: Debian's Chromium (Playwright) against the real stack — scripted model on a
thread, the bridge (hermes-agent) in a subprocess, the API serving the built page on a thread.

One stack per worker process (the bridge takes seconds to import hermes-agent); a fresh browser
context per test, so storage, cookies and tabs never leak between tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
from tests.e2e.own_stack import own_stack
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
    instance = playwright_instance.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield instance
    instance.close()


@pytest.fixture
def context(browser: Browser, e2e_stack: E2EStack) -> Iterator[BrowserContext]:
    ctx = browser.new_context(
        base_url=e2e_stack.url,
        viewport={"width": 1280, "height": 800},
        locale="en-US",
        accept_downloads=True,
    )
    ctx.set_default_timeout(EXPECT_TIMEOUT_MS)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


@pytest.fixture
def page_stack(e2e_stack: E2EStack) -> E2EStack:
    """The stack `make_page`'s pages open; a module with a stack of its own overrides this."""
    return e2e_stack


@pytest.fixture
def make_page(browser: Browser, page_stack: E2EStack) -> Iterator[PageFactory]:
    """Pages of their own context (size, colour scheme, stored settings), closed after the test."""
    with page_factory(browser, page_stack) as make:
        yield make


@pytest.fixture(scope="session")
def screenshots() -> Path:
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
