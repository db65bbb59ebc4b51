"""Menus, confirms and tooltips open where they can be read and go away as expected: the Export
menu and the Delete confirms next to or over the page (not in its top-left corner, not cut off
on a phone), Escape closes them, and a tap leaves no tooltip behind."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, expect

from tests.e2e.pages import assert_on_screen, open_chat, session_row, settled_box, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory, builtin_demo_model

pytestmark = pytest.mark.e2e


def assert_next_to(popup: Locator, trigger: Locator) -> None:
    """The popup touches its trigger: above or below it, overlapping it sideways."""
    p, t = settled_box(popup), settled_box(trigger)
    vertical = min(abs(p["y"] + p["height"] - t["y"]), abs(t["y"] + t["height"] - p["y"]))
    assert vertical < 16, (p, t)
    assert p["x"] < t["x"] + t["width"] and t["x"] < p["x"] + p["width"], (p, t)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_export_menu_and_the_delete_confirms_open_where_they_can_be_read(
    make_page: PageFactory, e2e_stack: E2EStack, size: str
) -> None:
    session_id = e2e_stack.new_session(f"popups on a {size}")
    e2e_stack.start(session_id, "#say hello")
    e2e_stack.wait_idle(session_id)
    page = make_page(SIZES[size])
    open_chat(page, session_id)

    export = tid(page, "export-button")
    export.click()
    menu = page.locator(".n-dropdown-menu")
    expect(menu).to_be_visible()
    assert_next_to(menu, export)
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)

    if size == "phone":
        tid(page, "menu-button").click()
    row = session_row(page, session_id)
    tid(row, "session-delete").click()
    # Over the phone's drawer, itself a dialog whose rows say "Delete" too: the confirm is the
    # dialog that names the chat (while the drawer was still in the accessibility tree, a
    # filter on "Delete" alone found both, on a busy machine).
    title = f'Delete "popups on a {size}"'
    confirm = page.get_by_role("dialog").filter(has_text=title)
    expect(confirm).to_be_visible()
    expect(confirm).to_contain_text(title)
    assert_on_screen(page, confirm, slack=0)
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_have_count(0)
    expect(row).to_have_count(1)

    with builtin_demo_model(e2e_stack) as demo:
        page.goto("/models")
        model = page.locator(f'[data-testid="model-row"][data-model-id="{demo["id"]}"]')
        tid(model, "model-delete").click()
        confirm = page.get_by_role("dialog")
        expect(confirm).to_contain_text(f'Delete the model "{demo["name"]}"?')
        assert_on_screen(page, confirm, slack=0)
        page.keyboard.press("Escape")
        expect(confirm).to_have_count(0)


def test_a_tap_leaves_no_tooltip_behind(make_page: PageFactory, e2e_stack: E2EStack) -> None:
    """On a touch screen a tapped icon's tooltip stayed up (over the drawer it opened): the
    icons' names are their aria-labels there, and no tooltip shows."""
    session_id = e2e_stack.new_session("tap tooltips")
    e2e_stack.start(session_id, "#say hello")
    e2e_stack.wait_idle(session_id)
    page = make_page(SIZES["phone"])
    open_chat(page, session_id)
    tooltips = page.locator(".n-tooltip")
    for name in ("menu-button", "drawer-close", "copy-answer", "memory-button"):
        tid(page, name).tap()
        page.wait_for_timeout(800)  # well past the tooltips' 300 ms delay: one would show now
        expect(tooltips).to_have_count(0)
    expect(tid(page, "memory-drawer")).to_be_visible()
