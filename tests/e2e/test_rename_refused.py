"""A rename the server refuses (a title over the API's 255 characters) keeps the rename box open
with what was typed and the error said, so the person shortens it instead of typing it again."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_chat, session_row, tid
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def test_a_title_over_the_limit_keeps_the_edit_open(page: Page, e2e_stack: E2EStack) -> None:
    session_id = e2e_stack.new_session("before")
    open_chat(page, session_id)
    row = session_row(page, session_id)
    tid(row, "session-title").dblclick()
    box = tid(row, "session-rename-input").locator("input")
    long = "A long title " * 25  # 325 characters
    box.fill(long)
    box.press("Enter")

    expect(page.locator(".n-message").last).to_contain_text("255")  # the error is said
    expect(box).to_be_visible()  # and the edit is kept
    expect(box).to_have_value(long)
    expect(box).to_have_attribute("aria-invalid", "true")
    expect(box).to_be_focused()
    assert e2e_stack.session(session_id)["session"]["title"] == "before"

    box.press("End")
    for _ in range(len(long) - 255):
        box.press("Backspace")
    expect(box).not_to_have_attribute("aria-invalid", "true")
    box.press("Enter")
    expect(tid(row, "session-title")).to_have_text(long[:255].strip())
    expect(tid(row, "session-rename-input")).to_have_count(0)
    assert e2e_stack.session(session_id)["session"]["title"] == long[:255].strip()
