"""The keyboard: Escape stops a running answer only from the question box or the page itself,
never from another box that uses Escape (search, the clarify answer, dialogs)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import last_assistant, open_chat, send, tid, wait_finished

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
