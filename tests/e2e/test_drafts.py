"""A question being typed is a draft of its own chat: it stays with that chat when the person
opens another one (it used to follow them there, to be sent into the wrong chat), comes back
with it, survives a reload or a closed tab, and is gone once sent."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import last_assistant, open_chat, session_row, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def _open_from_list(page: Page, session_id: int) -> None:
    session_row(page, session_id).locator(".session-open").click()
    expect(tid(page, "message-list")).to_have_attribute("data-session-id", str(session_id))


def test_a_draft_stays_with_its_chat_and_survives_a_reload(page: Page, e2e_stack: E2EStack) -> None:
    first = e2e_stack.new_session("draft one")
    second = e2e_stack.new_session("draft two")
    open_chat(page, first)
    box = tid(page, "composer-input")
    box.fill("half a question for the first chat")

    _open_from_list(page, second)
    expect(box).to_have_value("")
    box.fill("another for the second")

    _open_from_list(page, first)
    expect(box).to_have_value("half a question for the first chat")

    page.reload()
    expect(tid(page, "message-list")).to_have_attribute("data-session-id", str(first))
    expect(box).to_have_value("half a question for the first chat")

    box.fill("half a question for the first chat #say drafted and sent")
    box.press("Enter")
    wait_finished(last_assistant(page), "SUCCESS")
    expect(box).to_have_value("")
    page.reload()
    expect(tid(page, "message-list")).to_have_attribute("data-session-id", str(first))
    expect(box).to_have_value("")
    _open_from_list(page, second)
    expect(box).to_have_value("another for the second")
    assert e2e_stack.session(second)["messages"] == []


def test_a_new_chats_draft_survives_a_reload_and_goes_with_its_first_message(
    page: Page, e2e_stack: E2EStack
) -> None:
    open_chat(page)
    box = tid(page, "composer-input")
    box.fill("a brand new question #say the new chat answers")
    page.reload()
    expect(box).to_have_value("a brand new question #say the new chat answers")

    box.press("Enter")
    wait_finished(last_assistant(page), "SUCCESS")
    expect(last_assistant(page)).to_contain_text("the new chat answers")
    expect(box).to_have_value("")
    tid(page, "new-session").click()
    expect(page).to_have_url(f"{e2e_stack.url}/chat")
    expect(box).to_have_value("")
