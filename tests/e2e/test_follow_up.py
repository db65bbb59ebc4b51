"""The newest part of a chat stays in view (issue 33): an answer that ends, a question sent while
the reader was scrolled up, and the copy/regenerate row after Stop are all on the screen; "Jump
to latest" shows only while the list is away from its bottom, on a background of its own."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e import seed
from tests.e2e.pages import assistants, last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory

pytestmark = pytest.mark.e2e

AT_BOTTOM = "(el) => el.scrollHeight - el.scrollTop - el.clientHeight < 2"
LONG_ANSWER = "#tokens 220"


def in_view(target: Locator, listing: Locator) -> bool:
    """Whether the whole of `target` lies inside the list's visible box."""
    box, view = target.bounding_box(), listing.bounding_box()
    assert box is not None and view is not None
    return bool(
        box["y"] >= view["y"] - 1 and box["y"] + box["height"] <= view["y"] + view["height"] + 1
    )


def settled_at_bottom(page: Page, listing: Locator) -> None:
    page.wait_for_function(AT_BOTTOM, arg=listing.element_handle())


def scroll_up(page: Page, listing: Locator, px: int) -> None:
    box = listing.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    top = listing.evaluate("(el) => el.scrollTop")
    page.mouse.wheel(0, -px)
    # by its scrollTop: on a phone the composer folds while reading, and the list grows below
    away = "([el, top]) => el.scrollTop <= top + 2"
    page.wait_for_function(away, arg=[listing.element_handle(), top - px])


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_an_answer_that_ends_and_a_question_sent_while_scrolled_up_are_in_view(
    make_page: PageFactory, size: str
) -> None:
    page = make_page(SIZES[size])
    open_chat(page)
    listing = tid(page, "message-list")
    for turn in range(3):  # a new chat: each answer's end, copy row included, is on the screen
        send(page, f"question {turn}\n{LONG_ANSWER}")
        reply = last_assistant(page)
        wait_finished(reply, "SUCCESS")
        expect(tid(reply, "copy-answer")).to_be_visible()
        settled_at_bottom(page, listing)
        assert in_view(tid(reply, "copy-answer"), listing)
    scroll_up(page, listing, 40)  # a little, as a reader does to see the last lines again
    send(page, f"a follow-up\n{LONG_ANSWER}")
    question = tid(page, "user-message").last
    assert in_view(question, listing) or listing.evaluate(AT_BOTTOM)
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    settled_at_bottom(page, listing)
    expect(tid(page, "jump-latest")).to_have_count(0)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_after_stop_the_copy_and_regenerate_row_is_in_view(
    make_page: PageFactory, size: str
) -> None:
    page = make_page(SIZES[size])
    open_chat(page)
    send(page, "#delay 30\n#tokens 900")
    reply = last_assistant(page)
    expect(tid(reply, "answer")).to_contain_text("t60 ")
    tid(page, "stop-button").click()
    wait_finished(reply, "STOPPED")
    listing = tid(page, "message-list")
    expect(tid(reply, "regenerate-button")).to_be_visible()
    settled_at_bottom(page, listing)
    assert in_view(tid(reply, "regenerate-button"), listing)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_jump_to_latest_has_its_own_background_and_shows_only_away_from_the_bottom(
    make_page: PageFactory, e2e_stack: E2EStack, size: str, scheme: str
) -> None:
    session_id = seed.new_session(e2e_stack.database, f"jump {size} {scheme}")
    seed.turns(e2e_stack.database, session_id, 8)
    page = make_page(SIZES[size], scheme)
    open_chat(page, session_id)
    listing = tid(page, "message-list")
    wait_finished(assistants(page).last, "SUCCESS")
    settled_at_bottom(page, listing)
    jump = tid(page, "jump-latest")
    expect(jump).to_have_count(0)
    scroll_up(page, listing, 400)
    expect(jump).to_be_visible()
    background = jump.evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert background.startswith("rgb("), background  # opaque: the answer does not show through
    page.mouse.wheel(0, 2000)  # the reader scrolls back down by hand
    settled_at_bottom(page, listing)
    expect(jump).to_have_count(0)
