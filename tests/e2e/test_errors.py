"""What a person reads when a request is refused, on the Chinese page: the rate limit, a message
or a title that is too long, a paste larger than the server takes, all in Chinese and in
words one can act on (no byte counts, no internal ids)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.pages import last_assistant, open_chat, session_row, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import DESKTOP, PageFactory

pytestmark = pytest.mark.e2e

ZH = {"agentchat.locale": "zh"}
# The API's answer to the per-IP rate limit (the shared stack runs without one).
RATE_LIMITED = {
    "error": {
        "code": "too_many_requests",
        "message": "Too many requests from this address; try again in a moment.",
    }
}


def last_toast(page: Page) -> str:
    toast = page.locator(".n-message").last
    expect(toast).to_be_visible()
    return toast.inner_text()


def dismiss_toasts(page: Page) -> None:
    page.evaluate(
        "() => document.querySelectorAll('.n-message-wrapper').forEach((e) => e.remove())"
    )


def test_refused_requests_are_explained_in_chinese(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("errors")
    page = make_page(DESKTOP, storage=ZH)
    open_chat(page, session_id)
    box = tid(page, "composer-input")

    def refuse(route: Route) -> None:
        route.fulfill(status=429, content_type="application/json", body=json.dumps(RATE_LIMITED))

    runs = re.compile(r"/api/chat/sessions/\d+/runs$")
    page.route(runs, refuse)
    box.fill("你好")
    box.press("Enter")
    assert "请求过多" in last_toast(page)
    expect(box).to_have_value("你好")  # kept to send again
    page.unroute(runs)
    dismiss_toasts(page)

    box.fill("字" * 100_001)
    box.press("Enter")
    text = last_toast(page)
    assert "太长" in text and "100000" in text.replace(",", ""), text
    assert "String should" not in text
    dismiss_toasts(page)

    box.fill("x" * 2_000_000)
    box.press("Enter")
    text = last_toast(page)
    assert "太大" in text and "bytes" not in text, text
    dismiss_toasts(page)

    row = session_row(page, session_id)
    row.hover()
    tid(row, "session-rename").click()
    rename = tid(row, "session-rename-input").locator("input")
    rename.fill("名" * 300)
    rename.press("Enter")
    text = last_toast(page)
    assert "标题" in text and "255" in text and "String should" not in text, text


def test_the_banner_and_the_live_status_speak_chinese(make_page: PageFactory) -> None:
    page = make_page(DESKTOP, storage=ZH)
    page.route("**/api/health", lambda route: route.abort())  # the server cannot be reached
    open_chat(page)
    banner = tid(page, "service-banner")
    expect(banner).to_contain_text("暂时无法连接到服务器")
    expect(banner).not_to_contain_text("Failed to fetch")  # the browser's words, not ours
    page.unroute("**/api/health")

    page.evaluate(
        """() => { window.statuses = new Set();
        new MutationObserver(() => document.querySelectorAll('[data-testid="thinking-status"]')
          .forEach((el) => window.statuses.add(el.innerText.trim())))
          .observe(document.body, { subtree: true, childList: true, characterData: true }) }"""
    )
    box = tid(page, "composer-input")
    box.fill("#delay 60\n#tokens 60")
    box.press("Enter")
    wait_finished(last_assistant(page), "SUCCESS")
    statuses = page.evaluate("() => [...window.statuses]")
    english = [s for s in statuses if re.search(r"[a-z]{4,}", s)]
    assert statuses and not english, statuses
