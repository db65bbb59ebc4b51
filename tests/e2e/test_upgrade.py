"""A tab left open across an upgrade: the server now serves a new build, and the old page's
pages (its chunks, named by their hash) are gone. Opening another page used to do nothing at
all (the router's import failed silently); the page now loads itself again, at the address the
person asked for, and does not loop when the chunk stays missing."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.pages import open_chat, tid
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

MODELS_CHUNK = re.compile(r"/assets/ModelsPage-[^/]+\.js$")


def test_a_chunk_gone_after_an_upgrade_reloads_the_page_where_the_person_went(
    page: Page, e2e_stack: E2EStack
) -> None:
    open_chat(page, e2e_stack.new_session("before the upgrade"))
    missing = {"count": 0}

    def gone_once(route: Route) -> None:
        if missing["count"] == 0:
            missing["count"] += 1
            route.fulfill(
                status=404, content_type="application/json", body='{"detail":"Not Found"}'
            )
        else:
            route.continue_()

    page.route(MODELS_CHUNK, gone_once)
    tid(page, "nav-models").click()
    expect(page).to_have_url(f"{e2e_stack.url}/models")
    expect(tid(page, "models-page")).to_be_visible()
    assert missing["count"] == 1


def test_a_chunk_that_stays_missing_reloads_once_not_forever(
    page: Page, e2e_stack: E2EStack
) -> None:
    open_chat(page, e2e_stack.new_session("a broken upgrade"))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if MODELS_CHUNK.search(r.url) else None)
    page.route(MODELS_CHUNK, lambda route: route.fulfill(status=404, body="gone"))
    navigations: list[str] = []
    page.on("framenavigated", lambda f: navigations.append(f.url) if f == page.main_frame else None)

    tid(page, "nav-models").click()
    expect(page).to_have_url(f"{e2e_stack.url}/models")
    # One reload; its own failed import gives up with a message instead of reloading again.
    expect(tid(page, "page-load-failed")).to_be_visible()
    assert len(navigations) <= 2, navigations
