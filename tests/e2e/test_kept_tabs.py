"""A kept tab handed to the next test is as empty as a new one (tests/e2e/page_pool.py): nothing
one test stored, signed in, visited, resized or emulated reaches the next."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.page_pool import PagePool, may_share, names_needing_own_context
from tests.e2e.pages import open_chat
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

LEAVE_TRACES = """async () => {
    localStorage.setItem('left', '1');
    sessionStorage.setItem('left', '1');
    document.cookie = 'left=1; path=/';
    await new Promise((done) => {
        const open = indexedDB.open('left-db');
        open.onupgradeneeded = () => open.result.createObjectStore('s');
        open.onsuccess = () => { open.result.close(); done(null); };
    });
}"""
TRACES = """async () => [
    localStorage.length, sessionStorage.length, document.cookie,
    (await indexedDB.databases()).map((db) => db.name),
    innerWidth, innerHeight,
    matchMedia('(prefers-color-scheme: dark)').matches,
    matchMedia('(prefers-reduced-motion: reduce)').matches,
    matchMedia('print').matches,
]"""


def test_a_kept_tab_comes_back_empty(browser: Browser, e2e_stack: E2EStack) -> None:
    pool = PagePool(browser)
    try:
        page = pool.take(e2e_stack.url)
        open_chat(page)
        page.evaluate(LEAVE_TRACES)
        page.set_viewport_size({"width": 390, "height": 700})
        page.emulate_media(media="print", color_scheme="dark", reduced_motion="reduce")
        page.goto("/models")
        pool.give_back(test_failed=False)

        again = pool.take(e2e_stack.url)
        assert again is page and pool.reused == 1
        assert again.url == "about:blank"
        assert again.evaluate("history.length") == 1
        open_chat(again)
        assert again.evaluate(TRACES) == [0, 0, "", [], 1280, 720, False, False, False]
        again.context.new_page()  # a second tab: this one is not kept
        pool.give_back(test_failed=False)
        assert not pool.kept
    finally:
        pool.close()


def test_a_failed_tests_tab_is_closed(browser: Browser, e2e_stack: E2EStack) -> None:
    pool = PagePool(browser)
    try:
        page = pool.take(e2e_stack.url)
        pool.give_back(test_failed=True)
        assert page.is_closed() and not pool.kept
        expect(pool.take(e2e_stack.url).locator("body")).to_be_attached()
        assert pool.opened == 2
        pool.give_back(test_failed=False)
    finally:
        pool.close()


def _adds_a_listener(page: object) -> None:
    page.on("dialog", print)  # type: ignore[attr-defined]


def _calls_the_listeners_helper(page: object) -> None:
    _adds_a_listener(page)


def test_what_outlives_a_test_keeps_it_off_kept_tabs(request: pytest.FixtureRequest) -> None:
    unshareable = names_needing_own_context(sys.modules[__name__])
    assert unshareable is not None
    # the helper that adds a listener, and the one that only calls it
    assert {"_adds_a_listener", "_calls_the_listeners_helper"} <= unshareable
    assert "test_a_kept_tab_comes_back_empty" not in unshareable
    assert may_share(_sibling(request, "test_a_kept_tab_comes_back_empty"))
    assert not may_share(request.node)  # it names the helpers (as words, even)


def _sibling(request: pytest.FixtureRequest, name: str) -> pytest.Item:
    items = [item for item in request.session.items if item.name == name]
    assert items, f"{name} was not collected"
    return items[0]
