"""Reading on a phone (issue 33: the demo banner, the context bar and the composer took over a
third of the screen while reading): the demo notice keeps to one line and can be put away for
the tab's session, and while the person reads higher up the composer keeps to its box (the
pickers, the chat's tools and the context meter come back at the bottom or on focus)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_chat, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import DESKTOP, PHONE, PageFactory, builtin_demo_model

pytestmark = pytest.mark.e2e

FOLDED = ("model-select", "skill-select", "composer-meta", "context-meter")


@pytest.fixture(scope="module")
def long_demo_chat(e2e_stack: E2EStack) -> Iterator[int]:
    with builtin_demo_model(e2e_stack) as demo:
        session_id = e2e_stack.new_session("reading on a phone")
        path = f"/api/chat/sessions/{session_id}"
        e2e_stack.call("PATCH", path, {"modelId": demo["id"]})
        for turn in range(2):
            e2e_stack.start(session_id, f"question {turn}\n#tokens 300")
            e2e_stack.wait_idle(session_id)
        yield session_id


def height(page: Page, testid: str) -> float:
    box = tid(page, testid).bounding_box()
    assert box is not None
    return box["height"]


def read_higher_up(page: Page) -> None:
    listing = tid(page, "message-list")
    listing.hover()
    page.mouse.wheel(0, -800)
    expect(tid(page, "jump-latest")).to_be_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_demo_notice_is_one_line_and_can_be_put_away_for_the_session(
    make_page: PageFactory, long_demo_chat: int, scheme: str, screenshots: Path
) -> None:
    page = make_page(PHONE, scheme)
    open_chat(page, long_demo_chat)
    notice = tid(page, "demo-notice")
    expect(notice).to_contain_text("offline demo model")  # whole, for screen readers
    assert height(page, "demo-notice") <= 30, height(page, "demo-notice")
    expect(notice.get_by_role("link")).to_be_in_viewport()
    page.screenshot(path=screenshots / f"phone-demo-notice-{scheme}.png")
    tid(page, "demo-notice-dismiss").click()
    expect(notice).to_have_count(0)
    page.reload()
    expect(tid(page, "model-select")).to_contain_text("Scripted demo model")
    expect(notice).to_have_count(0)  # put away for the tab's session
    other = make_page(PHONE, scheme)  # another session of the browser: said again
    open_chat(other, long_demo_chat)
    expect(tid(other, "demo-notice")).to_be_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_while_reading_higher_up_the_composer_keeps_to_its_box(
    make_page: PageFactory, long_demo_chat: int, scheme: str, screenshots: Path
) -> None:
    page = make_page(PHONE, scheme)
    open_chat(page, long_demo_chat)
    for testid in FOLDED:
        expect(tid(page, testid)).to_be_visible()
    at_bottom = height(page, "message-list")

    read_higher_up(page)
    for testid in FOLDED:
        expect(tid(page, testid)).to_be_hidden()
    expect(tid(page, "composer-input")).to_be_visible()
    expect(tid(page, "send-button")).to_be_visible()
    expect(tid(page, "demo-notice")).to_be_visible()  # one line, put away by its own button
    reading = height(page, "message-list")
    assert reading >= at_bottom + 100, (reading, at_bottom)
    assert reading >= PHONE["height"] * 0.6, reading
    page.screenshot(path=screenshots / f"phone-reading-{scheme}.png")

    tid(page, "composer-input").focus()  # about to write: everything is back
    for testid in FOLDED:
        expect(tid(page, testid)).to_be_visible()
    tid(page, "composer-input").blur()
    expect(tid(page, "model-select")).to_be_hidden()

    tid(page, "jump-latest").click()  # back at the bottom: everything is back
    expect(tid(page, "jump-latest")).to_have_count(0)
    for testid in FOLDED:
        expect(tid(page, testid)).to_be_visible()
    page.wait_for_function(  # and stays there as the composer grows back
        "(el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2",
        arg=tid(page, "message-list").element_handle(),
    )


def test_a_desktop_reading_higher_up_keeps_its_composer(
    make_page: PageFactory, long_demo_chat: int
) -> None:
    page = make_page(DESKTOP)
    open_chat(page, long_demo_chat)
    read_higher_up(page)
    for testid in FOLDED:
        expect(tid(page, testid)).to_be_visible()
