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

from agentchat.app import create_app
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.scripted_llm.server import serve_in_thread
from tests.e2e.build import ensure_page_built
from tests.e2e.stack import E2EStack
from tests.support.databases import fresh_database_url, worker_tag
from tests.support.servers import serve_app, start_bridge

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
EXPECT_TIMEOUT_MS = 20_000
expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture(scope="session")
def e2e_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[E2EStack]:
    ensure_page_built()
    root = tmp_path_factory.mktemp("e2e")
    database = Database(fresh_database_url("sqlite", root, tag=f"e2e_{worker_tag()}"))
    scripted_url, stop_scripted = serve_in_thread()
    bridge = start_bridge(root / "bridge", AGENTCHAT_BRIDGE_POOL_SIZE="12")
    settings = Settings(
        data_dir=root / "data",
        skills_dir=root / "bridge" / "skills",
        bridge_url=bridge.url,
        bridge_secret=bridge.secret,
        start_bridge=False,
        start_scripted_llm=False,
        max_active_runs=12,
        run_rate_per_minute=0,
    )
    url, stop_app = serve_app(create_app(settings, database=database))
    stack = E2EStack(url, database, scripted_url)
    try:
        stack.register_model()
        yield stack
    finally:
        stack.close()
        stop_app()
        bridge.stop()
        stop_scripted()
        database.dispose()


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


@pytest.fixture(scope="session")
def screenshots() -> Path:
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
