"""The shell around a chat (issue 33): the Chat tab is current on /chat/:id, the browser tab is
named by the chat, the phone's list is a modal drawer that keeps the keyboard inside it, the
phone's empty state points at the menu, and an archived chat says so and waits to be restored."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_chat, session_row, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PHONE, SIZES, PageFactory

pytestmark = pytest.mark.e2e

FOCUS_IN_LIST = "() => Boolean(document.activeElement?.closest('#session-list'))"


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_chat_tab_is_current_and_the_browser_tab_named_by_the_open_chat(
    make_page: PageFactory, e2e_stack: E2EStack, size: str
) -> None:
    session_id = e2e_stack.new_session("Trip to Lyon")
    page = make_page(SIZES[size])
    open_chat(page, session_id)
    expect(tid(page, "nav-chat")).to_have_attribute("aria-current", "page")
    expect(page).to_have_title("Trip to Lyon · Agent Chat")
    tid(page, "nav-models").click()
    expect(tid(page, "nav-models")).to_have_attribute("aria-current", "page")
    expect(tid(page, "nav-chat")).not_to_have_attribute("aria-current", "page")
    expect(page).to_have_title("Models · Agent Chat")
    page.go_back()
    expect(page).to_have_title("Trip to Lyon · Agent Chat")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_phone_drawer_keeps_the_keyboard_inside_it(
    make_page: PageFactory, e2e_stack: E2EStack, scheme: str
) -> None:
    e2e_stack.new_session("a chat in the list")
    page = make_page(PHONE, scheme, touch=False)  # a phone with a keyboard attached
    open_chat(page)
    menu = tid(page, "menu-button")
    menu.focus()
    page.keyboard.press("Enter")
    drawer = page.locator("#session-list")
    expect(drawer).to_have_attribute("role", "dialog")
    expect(drawer).to_have_attribute("aria-modal", "true")
    page.wait_for_function(FOCUS_IN_LIST)
    for key in ["Tab"] * 12 + ["Shift+Tab"] * 16:
        page.keyboard.press(key)
        assert page.evaluate(FOCUS_IN_LIST), (
            key,
            page.evaluate("document.activeElement.outerHTML"),
        )
    page.keyboard.press("Escape")
    expect(drawer).not_to_be_visible()
    expect(menu).to_be_focused()
    expect(tid(page, "composer-input")).to_be_enabled()  # the conversation is usable again


def test_the_phones_empty_state_points_at_the_menu(make_page: PageFactory) -> None:
    page = make_page(PHONE)
    open_chat(page)
    empty = page.locator(".empty-state")
    expect(empty).not_to_contain_text("on the left")
    expect(empty).to_contain_text("☰")
    desktop = make_page(SIZES["desktop"])
    open_chat(desktop)
    expect(desktop.locator(".empty-state")).to_contain_text("on the left")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_archiving_the_open_chat_says_so_and_it_waits_to_be_restored(
    make_page: PageFactory, e2e_stack: E2EStack, size: str
) -> None:
    session_id = e2e_stack.new_session(f"archive me {size}")
    page = make_page(SIZES[size])
    open_chat(page, session_id)
    if size == "phone":
        tid(page, "menu-button").click()
    tid(session_row(page, session_id), "session-archive").click()
    if size == "phone":
        page.keyboard.press("Escape")
    notice = tid(page, "archived-notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("archived")
    expect(tid(page, "composer-input")).to_be_disabled()
    tid(notice, "archived-restore").click()
    expect(notice).to_have_count(0)
    expect(tid(page, "composer-input")).to_be_enabled()
    detail = e2e_stack.session(session_id)
    assert detail["session"]["status"] == "ACTIVE"


def test_an_archived_chat_opened_by_its_address_says_so(page: Page, e2e_stack: E2EStack) -> None:
    session_id = e2e_stack.new_session("archived earlier")
    e2e_stack.call("PATCH", f"/api/chat/sessions/{session_id}", {"status": "ARCHIVED"})
    open_chat(page, session_id)
    expect(tid(page, "archived-notice")).to_be_visible()
    expect(tid(page, "composer-input")).to_be_disabled()
