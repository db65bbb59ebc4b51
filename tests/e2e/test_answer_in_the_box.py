"""While the agent's question waits, the main message box answers it: a person types the answer
where they type everything else and presses Enter (on a phone, taps the button). The text goes
as the free answer to the question, once for a double Enter or a double tap, not as guidance
that would leave the agent waiting; guiding stays one button away. An input method's Enter
picks its candidate and answers nothing. Desktop in English, a touch phone in Chinese."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, expect

from tests.e2e.pages import last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.test_ime import _type_with_ime
from tests.e2e.ui_support import SIZES, PageFactory, sideways_overflow

pytestmark = pytest.mark.e2e

ASK = "#clarify Which colour? | red | blue\n#echo-tool-result"
WORDS = {
    "en": {"placeholder": "Answer the agent's question", "answer": "Answer", "guide": "Guide"},
    "zh": {"placeholder": "回答 Agent 的问题", "answer": "回答", "guide": "引导"},
}


def _posts(page: Page, ending: str) -> list[str]:
    """The POST requests to run URLs ending in `ending` (/clarify, /steer) from now on."""
    seen: list[str] = []

    def record(request: Request) -> None:
        if request.method == "POST" and request.url.endswith(ending):
            seen.append(request.post_data or "")

    page.on("request", record)
    return seen


@pytest.mark.parametrize(
    ("locale", "size", "scheme"), [("en", "desktop", "light"), ("zh", "phone", "dark")]
)
def test_the_main_box_answers_the_waiting_question_once(
    make_page: PageFactory, locale: str, size: str, scheme: str, screenshots: Path
) -> None:
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    answers, guides = _posts(page, "/clarify"), _posts(page, "/steer")
    open_chat(page)
    send(page, ASK)
    reply = last_assistant(page)
    expect(tid(reply, "clarify-panel")).to_be_visible()
    box, words = tid(page, "composer-input"), WORDS[locale]
    expect(box).to_have_attribute("placeholder", re.compile(words["placeholder"]))
    expect(box).to_have_attribute("aria-label", re.compile(words["placeholder"]))

    box.fill("green")
    expect(tid(page, "answer-button")).to_have_text(words["answer"])
    expect(tid(page, "answer-button")).to_be_enabled()
    expect(tid(page, "steer-button")).to_have_text(words["guide"])  # guiding stays possible
    assert sideways_overflow(page) == 0
    page.screenshot(path=screenshots / f"answer-in-box-{locale}-{size}-{scheme}.png")
    if size == "phone":
        box.press("Enter")  # a phone's return key writes a new line
        expect(box).to_have_value("green\n")
        tid(page, "answer-button").dblclick()  # a double tap
    else:
        box.press("Enter")
        box.press("Enter")

    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "clarify-answered")).to_contain_text("green")
    expect(tid(reply, "answer")).to_contain_text("green")  # the agent got it as the answer
    expect(tid(reply, "steered")).to_have_count(0)
    expect(box).to_have_value("")
    assert len(answers) == 1, answers
    assert guides == []
    expect(page.locator(".n-message")).to_have_count(0)  # no error toast


def test_the_enter_that_picks_a_candidate_does_not_answer(make_page: PageFactory) -> None:
    page = make_page(SIZES["desktop"])
    answers = _posts(page, "/clarify")
    open_chat(page)
    send(page, ASK)
    reply = last_assistant(page)
    expect(tid(reply, "clarify-panel")).to_be_visible()
    box = tid(page, "composer-input")
    _type_with_ime(page, box, "绿色", "lvse")
    expect(box).to_have_value("绿色")
    expect(tid(reply, "clarify-panel")).to_be_visible()  # still asking
    assert answers == []

    box.press("Enter")
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "clarify-answered")).to_contain_text("绿色")
    assert len(answers) == 1, answers


def test_once_the_question_is_answered_the_box_guides_again(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    page = make_page(SIZES["desktop"])
    guides = _posts(page, "/steer")
    open_chat(page)
    gate = f"guide-{uuid.uuid4().hex[:8]}"  # the answer runs until the guidance was shown
    send(page, f"#clarify Which colour? | red | blue\n#hold {gate}\n#tokens 30")
    reply = last_assistant(page)
    tid(tid(reply, "clarify-panel"), "clarify-choice").filter(has_text="red").click()
    expect(tid(reply, "clarify-answered")).to_contain_text("red")
    box = tid(page, "composer-input")
    expect(box).not_to_have_attribute("placeholder", re.compile("Answer"))
    expect(tid(page, "answer-button")).to_have_count(0)
    box.fill("shorter, please")
    box.press("Enter")
    expect(tid(reply, "steered")).to_contain_text("shorter, please")
    assert len(guides) == 1
    e2e_stack.release(gate)
    wait_finished(reply, "SUCCESS")
