"""The composer's pickers on a phone (issue 33: the model and skill pickers were cut to
"Scripted der", then "Sc" when Guide and Answer appeared, and their menus cut the names): the
menus of the model, the skill and the tools open inside the screen with whole names, and the
pickers keep a readable width while the agent runs and waits on a question."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.pages import assert_on_screen, last_assistant, open_chat, send, settled_box, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import DEMO_NAME, SIZES, PageFactory, builtin_demo_model

pytestmark = pytest.mark.e2e


CUT = "(el) => [el, ...el.querySelectorAll('*')].some((e) => e.scrollWidth > e.clientWidth + 1)"


def assert_not_cut(options: Locator) -> None:
    expect(options.first).to_be_visible()
    for i in range(options.count()):
        assert not options.nth(i).evaluate(CUT), options.nth(i).inner_text()


def open_menu(page: Page, testid: str) -> Locator:
    tid(page, testid).click()
    menu = page.locator(".n-base-select-menu:visible")
    expect(menu).to_be_visible()
    return menu


def close_menu(page: Page, testid: str) -> None:
    tid(page, testid).click()
    expect(page.locator(".n-base-select-menu:visible")).to_be_hidden()


@pytest.mark.parametrize(
    ("size", "scheme"), [("phone", "light"), ("phone", "dark"), ("desktop", "light")]
)
def test_the_pickers_menus_open_inside_the_screen_with_whole_names(
    make_page: PageFactory, e2e_stack: E2EStack, size: str, scheme: str, screenshots
) -> None:
    with builtin_demo_model(e2e_stack):
        page = make_page(SIZES[size], scheme)
        open_chat(page)
        menu = open_menu(page, "model-select")
        expect(menu).to_contain_text(DEMO_NAME)
        assert_on_screen(page, menu)
        assert_not_cut(menu.locator(".n-base-select-option"))
        page.screenshot(path=screenshots / f"pickers-model-{size}-{scheme}.png")
        close_menu(page, "model-select")

        menu = open_menu(page, "skill-select")
        expect(menu).to_contain_text("meeting-notes")
        assert_on_screen(page, menu)
        assert_not_cut(menu.locator(".n-base-select-option"))
        page.screenshot(path=screenshots / f"pickers-skill-{size}-{scheme}.png")
        close_menu(page, "skill-select")

        tid(page, "toolsets").click()
        choice = tid(page, "toolsets-choice")
        expect(choice).to_be_visible()
        assert_on_screen(page, page.locator(".n-popover").filter(has=choice))
        page.keyboard.press("Escape")
        expect(choice).to_be_hidden()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_pickers_keep_a_readable_width_while_guide_and_answer_show(
    make_page: PageFactory, scheme: str, screenshots
) -> None:
    page = make_page(SIZES["phone"], scheme)
    open_chat(page)
    send(page, "#clarify Which colour? | red | blue\n#echo-tool-result")
    reply = last_assistant(page)
    expect(tid(reply, "clarify-panel")).to_be_visible()
    tid(page, "composer-input").fill("green, please")
    expect(tid(page, "steer-button")).to_be_visible()
    expect(tid(page, "answer-button")).to_be_visible()
    for picker in ("model-select", "skill-select"):
        width = settled_box(tid(page, picker))["width"]
        assert width >= 120, (picker, width)
    assert_on_screen(page, tid(page, "stop-button"))
    page.screenshot(path=screenshots / f"pickers-running-phone-{scheme}.png")
    tid(page, "answer-button").click()
    expect(reply).to_have_attribute("data-status", "SUCCESS")
