"""Typing through an input method (Chinese pinyin, Japanese kana): the Enter that picks a
candidate belongs to the input method. It must neither send the question nor commit a rename
with the half-typed letters; the Enter after the text is composed does.

The composition is Chromium's own (DevTools `Input.imeSetComposition`), so the page sees what
it sees from a real input method: a keydown whose `isComposing` is true, and one with keyCode
229 (Safari and Chromium on some systems send the confirming Enter that way)."""

from __future__ import annotations

import pytest
from playwright.sync_api import CDPSession, Locator, Page, expect

from tests.e2e.pages import last_assistant, open_chat, session_row, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def _compose(cdp: CDPSession, text: str) -> None:
    cdp.send(
        "Input.imeSetComposition",
        {"text": text, "selectionStart": len(text), "selectionEnd": len(text)},
    )


def _enter_while_composing(cdp: CDPSession) -> None:
    """The keydown of the Enter that confirms a candidate (no text of its own)."""
    key = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
    cdp.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **key})
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **key})


def _confirming_enter_after_composition(target: Locator) -> None:
    """Safari's order: compositionend first, then a keydown Enter with keyCode 229."""
    target.evaluate(
        """(el) => el.dispatchEvent(new KeyboardEvent('keydown', {
            key: 'Enter', code: 'Enter', keyCode: 229, bubbles: true, cancelable: true }))"""
    )


def _type_with_ime(page: Page, target: Locator, composed: str, reading: str) -> None:
    cdp = page.context.new_cdp_session(page)
    try:
        target.focus()
        _compose(cdp, reading)
        _enter_while_composing(cdp)
        cdp.send("Input.insertText", {"text": composed})  # the candidate is committed
        _confirming_enter_after_composition(target)
    finally:
        cdp.detach()


def test_the_enter_that_picks_a_candidate_does_not_send(page: Page, e2e_stack: E2EStack) -> None:
    session_id = e2e_stack.new_session("ime composer")
    open_chat(page, session_id)
    box = tid(page, "composer-input")
    _type_with_ime(page, box, "你好", "nihao")
    expect(box).to_have_value("你好")
    assert e2e_stack.session(session_id)["messages"] == []  # nothing was sent

    box.press("End")
    box.press_sequentially(" #say the composed answer")
    box.press("Enter")
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(reply).to_contain_text("the composed answer")
    sent = [m for m in e2e_stack.session(session_id)["messages"] if m["role"] == "USER"]
    assert [m["content"] for m in sent] == ["你好 #say the composed answer"]


def test_the_enter_that_picks_a_candidate_does_not_commit_a_rename(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("ime rename")
    open_chat(page, session_id)
    row = session_row(page, session_id)
    tid(row, "session-title").dblclick()
    box = tid(row, "session-rename-input").locator("input")
    box.fill("")
    _type_with_ime(page, box, "周报", "zhoubao")
    expect(box).to_be_visible()  # still editing
    expect(box).to_have_value("周报")
    assert e2e_stack.session(session_id)["session"]["title"] == "ime rename"

    box.press("Enter")
    expect(tid(row, "session-title")).to_have_text("周报")
    assert e2e_stack.session(session_id)["session"]["title"] == "周报"
