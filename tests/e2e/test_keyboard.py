"""The keyboard: Escape stops a running answer only from the question box or the page itself,
never from another box that uses Escape (search, the clarify answer, dialogs); the skip link
lands in the question box; the Delete confirm and the toolsets popover take the focus and
close on Escape."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import last_assistant, open_chat, send, session_row, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def test_escape_in_the_search_box_clears_it_and_the_answer_goes_on(page: Page) -> None:
    open_chat(page)
    send(page, "#delay 50\n#tokens 400")
    reply = last_assistant(page)
    answer = tid(reply, "answer")
    expect(answer).to_contain_text("t10 ")
    search = tid(page, "session-search")
    search.fill("plan")
    search.press("Escape")
    expect(search).to_have_value("")  # Escape clears the search...
    expect(answer).to_contain_text("t40 ")  # ...and the answer goes on
    expect(reply).to_have_attribute("data-status", "RUNNING")
    tid(page, "composer-input").press("Escape")  # from the question box Escape stops it
    wait_finished(reply, "STOPPED")


def test_escape_in_the_clarify_answer_box_does_not_stop_the_run(page: Page) -> None:
    open_chat(page)
    send(page, "#clarify Which colour? | red | blue\n#echo-tool-result")
    reply = last_assistant(page)
    box = tid(tid(reply, "clarify-panel"), "clarify-input")
    box.fill("gre")
    box.press("Escape")
    box.fill("green")
    tid(reply, "clarify-submit").click()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_contain_text("green")


def test_the_skip_link_lands_in_the_question_box(page: Page, e2e_stack: E2EStack) -> None:
    for i in range(3):
        e2e_stack.new_session(f"skip {i}")  # rows whose buttons the link skips
    open_chat(page)
    page.keyboard.press("Tab")
    skip = page.get_by_role("link", name="Skip to the conversation")
    expect(skip).to_be_focused()
    page.keyboard.press("Enter")
    expect(tid(page, "composer-input")).to_be_focused()


def test_the_delete_confirm_and_the_toolsets_popover_answer_the_keyboard(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("keyboard delete")
    open_chat(page)
    row = session_row(page, session_id)
    row.locator(".session-open").focus()
    for _ in range(3):  # rename, archive, delete
        page.keyboard.press("Tab")
    expect(tid(row, "session-delete")).to_be_focused()
    page.keyboard.press("Enter")
    confirm = page.get_by_role("dialog")
    expect(confirm).to_contain_text('Delete "keyboard delete"')
    page.keyboard.press("Tab")  # the confirm's buttons come next, not the rest of the page
    assert confirm.evaluate("(el) => el.contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(confirm).to_have_count(0)
    expect(row).to_have_count(1)

    toolsets = tid(page, "toolsets")
    toolsets.focus()
    page.keyboard.press("Enter")
    choice = tid(page, "toolsets-choice")
    expect(choice).to_be_visible()
    page.keyboard.press("Tab")  # into the popover's checkboxes
    assert choice.evaluate("(el) => el.contains(document.activeElement)")
    page.keyboard.press("Escape")
    expect(choice).to_be_hidden()
    expect(toolsets).to_be_focused()
