"""Searching the chat list (issue 33): one clear button (ours, not the browser's as well), a
search that finds nothing says so (not "No chats yet"), and a chat found by its messages shows
the words around the hit, the query's words marked."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e import seed
from tests.e2e.pages import open_chat, session_row, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory

pytestmark = pytest.mark.e2e

# the browser draws its own clear button in a type=search box, unless styled away
BROWSER_CLEAR = (
    "(el) => el.type === 'search' && "
    "getComputedStyle(el, '::-webkit-search-cancel-button').display !== 'none'"
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_search_shows_why_each_chat_was_found_and_says_when_none_was(
    make_page: PageFactory, e2e_stack: E2EStack, size: str, scheme: str
) -> None:
    word = f"tartiflette{size}{scheme}"
    session_id = seed.new_session(e2e_stack.database, "Dinner ideas")
    question = seed.append(e2e_stack.database, session_id, None, "USER", "Savoy food?", "SENT")
    answer = f"Cheese is the heart of it: a {word} with reblochon, potatoes and onions."
    seed.append(e2e_stack.database, session_id, question, "ASSISTANT", answer, "SUCCESS")
    page = make_page(SIZES[size], scheme)
    open_chat(page)
    if size == "phone":
        tid(page, "menu-button").click()
    search = tid(page, "session-search")
    search.fill(word.upper())
    row = session_row(page, session_id)
    expect(row).to_have_count(1)
    match = tid(row, "session-match")
    expect(match).to_contain_text(f"a {word} with reblochon")
    expect(match.locator("mark")).to_have_text(word)
    assert search.evaluate(BROWSER_CLEAR) is False  # Naive UI's clear button is the one
    expect(page.locator("#session-list .n-base-clear")).to_have_count(1)

    search.fill("nothing-is-called-this")
    list_ = page.locator("#session-list .sessions")
    expect(list_).to_contain_text('No chat matches "nothing-is-called-this"')
    expect(list_).not_to_contain_text("No chats yet")
