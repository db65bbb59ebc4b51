"""History replay (issue 6 item 6): an old session rebuilds each answer's thinking panel from its
stored logs, older messages load on scroll-up, summaries and resets render as dividers."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed
from tests.e2e.pages import assistants, open_chat, tid
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def test_replayed_answers_show_their_stored_thinking(page: Page, e2e_stack: E2EStack) -> None:
    db = e2e_stack.database
    session_id = seed.new_session(db, "replayed")
    leaf = seed.turns(db, session_id, 2, tools=3)
    leaf = seed.append(db, session_id, leaf, "SYSTEM", "The user asked two questions.", "SUMMARY")
    leaf = seed.turns(db, session_id, 1, leaf)
    leaf = seed.append(db, session_id, leaf, "SYSTEM", "", "RESET")
    seed.turns(db, session_id, 1, leaf)

    open_chat(page, session_id)
    expect(assistants(page)).to_have_count(4)
    first = assistants(page).first
    panel = tid(first, "thinking-panel")
    expect(panel).to_have_attribute("data-state", "done")
    expect(tid(panel, "thinking-summary")).to_contain_text("3 tool calls")
    expect(tid(first, "answer").locator("strong")).to_have_text("answer 0")
    expect(tid(first, "answer").locator("pre code")).to_have_text("print(0)\n")

    tid(panel, "thinking-summary").click()
    expect(tid(panel, "todo-item")).to_have_attribute("data-status", "completed")
    expect(tid(panel, "thinking-stream")).to_contain_text("Thinking about question 0.")
    calls = panel.locator('[data-testid="tool-call"][data-tool="skills_list"]')
    expect(calls).to_have_count(3)
    calls.first.locator("summary").click()
    expect(tid(calls.first, "tool-result")).to_have_text("result 0.0")

    divider = tid(page, "summary-divider")
    expect(divider).to_have_count(1)
    expect(tid(divider, "summary-content")).to_have_count(0)
    divider.get_by_role("button").click()
    expect(tid(divider, "summary-content")).to_have_text("The user asked two questions.")
    expect(tid(page, "reset-divider")).to_have_count(1)


def test_older_messages_load_on_scroll_up(page: Page, e2e_stack: E2EStack) -> None:
    db = e2e_stack.database
    session_id = seed.new_session(db, "long history")
    seed.turns(db, session_id, 60)  # 120 messages; the page opens with the last 50

    open_chat(page, session_id)
    users = tid(page, "user-content")
    expect(users.last).to_have_text("question 59")
    expect(users).to_have_count(25)
    tid(page, "message-list").evaluate("(el) => { el.scrollTop = 0 }")
    expect(users).to_have_count(50)
    tid(page, "message-list").evaluate("(el) => { el.scrollTop = 0 }")
    expect(users).to_have_count(60)
    expect(users.first).to_have_text("question 0")
    expect(tid(page, "load-older")).to_have_count(0)
    expect(users.last).to_have_text("question 59")


def test_an_interrupted_answer_keeps_its_text_with_a_mark_and_retry(
    page: Page, e2e_stack: E2EStack
) -> None:
    db = e2e_stack.database
    session_id = seed.new_session(db, "interrupted")
    question = seed.append(db, session_id, None, "USER", "#say back again", "SENT")
    seed.append(db, session_id, question, "ASSISTANT", "The text so far", "INTERRUPTED")

    open_chat(page, session_id)
    reply = assistants(page).last
    expect(reply).to_have_attribute("data-status", "INTERRUPTED")
    expect(tid(reply, "answer")).to_have_text("The text so far")
    expect(tid(reply, "message-interrupted")).to_contain_text("Interrupted")
    expect(tid(reply, "message-error")).to_have_count(0)
    tid(reply, "retry-button").click()
    expect(assistants(page).last).to_have_attribute("data-status", "SUCCESS", timeout=60_000)
    expect(tid(assistants(page).last, "answer")).to_have_text("back again")
