"""A chat deleted in another tab or on another device while this tab shows it: the tab says so
as soon as it looks again (back to the tab, or the next question), drops the chat from its
list, and what the person had typed waits in a new chat instead of being lost."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import last_assistant, open_chat, session_row, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

BACK_TO_THE_TAB = "() => document.dispatchEvent(new Event('visibilitychange'))"


def answered_chat(stack: E2EStack, title: str) -> int:
    session_id = stack.new_session(title)
    stack.start(session_id, "#say ready")
    stack.wait_idle(session_id)
    return session_id


def expect_gone(page: Page, session_id: int) -> None:
    expect(tid(page, "session-not-found")).to_be_visible()
    expect(tid(page, "assistant-message")).to_have_count(0)
    expect(session_row(page, session_id)).to_have_count(0)


def test_a_question_to_a_chat_deleted_elsewhere_moves_to_a_new_chat(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = answered_chat(e2e_stack, "deleted while open")
    open_chat(page, session_id)
    wait_finished(last_assistant(page), "SUCCESS")
    e2e_stack.call("DELETE", f"/api/chat/sessions/{session_id}", expect=204)

    box = tid(page, "composer-input")
    box.fill("my carefully written follow-up")
    box.press("Enter")
    expect_gone(page, session_id)

    page.get_by_role("button", name="Start a new chat").click()
    expect(page).to_have_url("/chat")
    expect(tid(page, "composer-input")).to_have_value("my carefully written follow-up")


def test_back_to_a_tab_whose_chat_was_deleted_elsewhere_says_so(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = answered_chat(e2e_stack, "deleted while away")
    open_chat(page, session_id)
    wait_finished(last_assistant(page), "SUCCESS")
    tid(page, "composer-input").fill("half a thought")
    e2e_stack.call("DELETE", f"/api/chat/sessions/{session_id}", expect=204)

    page.evaluate(BACK_TO_THE_TAB)
    expect_gone(page, session_id)
    page.get_by_role("button", name="Start a new chat").click()
    expect(tid(page, "composer-input")).to_have_value("half a thought")


def test_a_chat_deleted_in_another_tab_is_gone_from_this_one_at_once(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = answered_chat(e2e_stack, "deleted in the next tab")
    open_chat(page, session_id)
    wait_finished(last_assistant(page), "SUCCESS")
    other = page.context.new_page()  # a second tab of the same browser
    open_chat(other, session_id)
    tid(session_row(other, session_id), "session-delete").click()
    other.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(session_row(other, session_id)).to_have_count(0)
    expect_gone(page, session_id)  # no look back at the tab, no question sent
