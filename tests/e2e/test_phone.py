"""A phone (390 px, touch): with the on-screen keyboard up the conversation keeps a usable height
and the send button stays on the screen."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, Request, expect

from tests.e2e.pages import last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PHONE, PageFactory, builtin_demo_model

pytestmark = pytest.mark.e2e

KEYBOARD_UP = {"width": 390, "height": 400}  # what the keyboard leaves of an 844 px screen
LINES = "\n".join(f"line {i} of a long multi-line message" for i in range(1, 15))


def box_of(target: Locator) -> dict[str, float]:
    box = target.bounding_box()
    assert box is not None
    return box


def on_screen(page: Page, target: Locator) -> bool:
    box, height = box_of(target), page.viewport_size["height"]  # type: ignore[index]
    return box["y"] >= 0 and box["y"] + box["height"] <= height + 0.5


def test_with_the_keyboard_up_the_conversation_keeps_its_height_and_send_stays_on_screen(
    make_page: PageFactory, e2e_stack: E2EStack, screenshots: Path
) -> None:
    with builtin_demo_model(e2e_stack) as demo:  # its notice takes room too
        session_id = e2e_stack.new_session("keyboard up")
        e2e_stack.call("PATCH", f"/api/chat/sessions/{session_id}", {"modelId": demo["id"]})
        e2e_stack.start(session_id, "#tokens 400")
        e2e_stack.wait_idle(session_id)
        page = make_page(PHONE)
        open_chat(page, session_id)
        expect(tid(page, "demo-notice")).to_be_visible()
        reply = last_assistant(page)
        wait_finished(reply, "SUCCESS")
        listing, box = tid(page, "message-list"), tid(page, "composer-input")
        box.focus()
        page.set_viewport_size(KEYBOARD_UP)
        expect(tid(page, "demo-notice")).to_be_visible()  # still said, in one line
        for typed in ("", LINES):
            box.fill(typed)
            page.wait_for_function(  # the composer has settled to its rows
                "(el) => el.getBoundingClientRect().bottom <= window.innerHeight",
                arg=tid(page, "composer").element_handle(),
            )
            assert box_of(listing)["height"] >= 150, (typed[:6], box_of(listing))
            assert on_screen(page, tid(page, "send-button")), box_of(tid(page, "send-button"))
            assert on_screen(page, tid(page, "model-select"))
        # the latest answer stayed in view as the keyboard opened (no hidden end, no jump)
        gap = "(el) => el.scrollHeight - el.scrollTop - el.clientHeight"
        assert listing.evaluate(gap) < 2
        expect(tid(page, "jump-latest")).to_have_count(0)
        page.screenshot(path=screenshots / "phone-keyboard-up.png")
        tid(page, "send-button").click()
        expect(tid(page, "user-message").last).to_contain_text("line 14 of a long")

        page.set_viewport_size(PHONE)  # the keyboard goes down: everything is back
        expect(tid(page, "memory-button")).to_be_visible()
        box.fill("\n".join(LINES.splitlines()[:8]))
        assert box_of(listing)["height"] >= 360, box_of(listing)


def test_on_a_phone_enter_makes_a_new_line_and_the_send_button_sends(
    make_page: PageFactory,
) -> None:
    """Phone keyboards have no Shift+Enter: their return key must write a new line."""
    page = make_page(PHONE)
    open_chat(page)
    box = tid(page, "composer-input")
    box.fill("Here is my list:")
    box.press("Enter")
    box.press_sequentially("milk")
    expect(box).to_have_value("Here is my list:\nmilk")
    expect(tid(page, "user-message")).to_have_count(0)  # nothing was sent
    expect(box).not_to_have_attribute("aria-label", re.compile("Enter"))
    tid(page, "send-button").click()
    expect(tid(page, "user-message").last).to_have_text("Here is my list:\nmilk")
    expect(box).to_have_value("")


LONG_CHOICES = [
    "Use the existing PostgreSQL database on the staging server (recommended)",
    "Create a brand new MySQL instance in the eu-west-1 region for this",
    "Keep SQLite",
]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_long_clarify_choices_wrap_on_a_phone(
    make_page: PageFactory, scheme: str, screenshots: Path
) -> None:
    page = make_page(PHONE, scheme)
    open_chat(page)
    send(page, "#clarify Which database should I use? | " + " | ".join(LONG_CHOICES))
    panel = tid(last_assistant(page), "clarify-panel")
    choices = tid(panel, "clarify-choice")
    expect(choices).to_have_text(LONG_CHOICES)
    right = box_of(panel)["x"] + box_of(panel)["width"]
    for i in range(len(LONG_CHOICES)):
        choice = choices.nth(i)
        assert box_of(choice)["x"] + box_of(choice)["width"] <= right, (i, box_of(choice))
        assert choice.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1"), i  # nothing cut
    page.screenshot(path=screenshots / f"phone-clarify-long-choices-{scheme}.png")
    choices.last.click()
    wait_finished(last_assistant(page), "SUCCESS")


def test_a_double_tap_on_a_clarify_choice_answers_once(make_page: PageFactory) -> None:
    page = make_page(PHONE)
    answers: list[str] = []

    def count(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/clarify"):
            answers.append(request.url)

    page.on("request", count)
    open_chat(page)
    send(page, "#clarify Which colour? | red | blue\n#echo-tool-result")
    reply = last_assistant(page)
    panel = tid(reply, "clarify-panel")
    expect(tid(reply, "thinking-status")).to_have_text("Waiting for your answer")
    tid(panel, "clarify-choice").first.dblclick()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "clarify-answered")).to_contain_text("red")
    assert len(answers) == 1, answers
    expect(page.locator(".n-message")).to_have_count(0)  # no error toast


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_reconnect_badge_stays_inside_the_thinking_panel(
    make_page: PageFactory, e2e_stack: E2EStack, scheme: str
) -> None:
    page = make_page(PHONE, scheme)
    open_chat(page)
    stream = re.compile(r"/api/chat/stream")
    page.route(stream, lambda route: route.abort())  # the connection is lost
    gate = f"badge-{uuid.uuid4().hex[:8]}"  # the answer stays live until the badge is measured
    send(page, f"#hold {gate}\n#tokens 200")
    reply = last_assistant(page)
    badge = tid(reply, "reconnect-badge")
    expect(badge).to_contain_text("Connection lost")  # the longest words it says
    panel = box_of(tid(reply, "thinking-panel"))
    own = box_of(badge)
    assert own["x"] + own["width"] <= panel["x"] + panel["width"], (own, panel)
    assert own["x"] + own["width"] <= PHONE["width"]
    page.unroute(stream)
    e2e_stack.release(gate)
    wait_finished(reply, "SUCCESS")
