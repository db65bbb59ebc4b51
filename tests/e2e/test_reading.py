"""Reading while the agent writes: scrolling up during a streaming answer leaves the reader where
they scrolled to, with a finger on a phone and with a trackpad's small steps on a desktop, and
the live thinking box follows its newest text unless the reader scrolled it up."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e import seed
from tests.e2e.pages import last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory

pytestmark = pytest.mark.e2e

GAP = "(el) => Math.round(el.scrollHeight - el.scrollTop - el.clientHeight)"


def finger_drag(page: Page, over: Locator, dy: int, steps: int = 20) -> None:
    """A real touch drag (CDP): the finger moves down by `dy`, so the content scrolls up."""
    box = over.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + 60
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, steps + 1):
        point = {"x": x, "y": y + dy * i / steps}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        page.wait_for_timeout(16)  # one frame between moves, as a finger moves
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def trackpad_up(page: Page, over: Locator, steps: int = 15, step_px: int = 25) -> None:
    box = over.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(steps):
        page.mouse.wheel(0, -step_px)
        page.wait_for_timeout(20)  # a trackpad's rhythm of small steps


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_scrolling_up_while_an_answer_streams_stays_where_the_reader_is(
    make_page: PageFactory, e2e_stack: E2EStack, size: str
) -> None:
    session_id = seed.new_session(e2e_stack.database, f"reading {size}")
    seed.turns(e2e_stack.database, session_id, 6)  # earlier turns to scroll back to
    page = make_page(SIZES[size])
    open_chat(page, session_id)
    send(page, "#delay 40\n#tokens 900")
    reply = last_assistant(page)
    answer = tid(reply, "answer")
    expect(answer).to_contain_text("t20 ")
    listing = tid(page, "message-list")
    assert listing.evaluate(GAP) < 2  # following the answer
    if size == "phone":
        finger_drag(page, listing, 300)
    else:
        trackpad_up(page, listing)
    jump = tid(page, "jump-latest")
    expect(jump).to_be_visible()
    away = listing.evaluate(GAP)
    assert away > 100, away
    seen = answer.inner_text()
    expect(answer).not_to_have_text(seen)  # more tokens arrive meanwhile...
    grown = "([el, before]) => el.innerText.length > before + 200"
    page.wait_for_function(grown, arg=[answer.element_handle(), len(seen)])
    assert listing.evaluate(GAP) >= away  # ...below the reader, who stays put
    expect(jump).to_be_visible()
    jump.click()
    expect(jump).to_have_count(0)
    tid(page, "stop-button").click()
    wait_finished(reply, "STOPPED")


def thought(count: int) -> str:
    """Long words, each a chunk of the stream: the box scrolls after fewer chunks than with short
    words (it did after about 90 on a desktop, 40 on a phone); the last 50 leave time to measure
    the box before the finished answer folds it."""
    return " ".join(f"w{i}-of-a-long-thought" for i in range(1, count + 1))


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_live_thinking_box_follows_its_newest_text_unless_scrolled_up(
    make_page: PageFactory, size: str
) -> None:
    page = make_page(SIZES[size])
    open_chat(page)
    send(page, f"#delay 30\n#think {thought(200)}\n#say done")
    reply = last_assistant(page)
    thinking = tid(reply, "thinking-stream")
    expect(thinking).to_contain_text("w1-")
    overflows = "(el) => el.scrollHeight > el.clientHeight + 100"  # the box scrolls
    page.wait_for_function(overflows, arg=thinking.element_handle())
    follows = "(el) => el.isConnected && el.scrollHeight - el.scrollTop - el.clientHeight < 2"
    page.wait_for_function(follows, arg=thinking.element_handle())  # the newest words in view
    if size == "phone":
        finger_drag(page, thinking, 120, steps=10)
    else:
        trackpad_up(page, thinking, steps=6)
    away = thinking.evaluate(GAP)
    assert away > 40, away
    expect(thinking).to_contain_text("w150-")  # more words arrive below the reader...
    assert thinking.evaluate(GAP) >= away  # ...who stays where they scrolled to
    wait_finished(reply, "SUCCESS")
