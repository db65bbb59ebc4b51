"""An answer whose Markdown nests very deep (a runaway list, quotes inside quotes) on a 390 px
phone: every level still reads on the screen, one word to a line at worst never, and the
conversation does not scroll sideways."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e import seed
from tests.e2e.pages import last_assistant, open_chat, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PHONE, PageFactory, sideways_overflow

pytestmark = pytest.mark.e2e

DEPTH = 40
NESTED_LIST = "".join("  " * i + f"- level {i}\n" for i in range(DEPTH))
NESTED_ORDERED = "".join("   " * i + f"1. step {i}\n" for i in range(DEPTH))
NESTED_QUOTES = ">" * DEPTH + " the innermost quote"

# Each inner element's box against the phone's width: (left, right, width).
BOXES = """(root) => [...root.querySelectorAll('li, blockquote > p')].map((el) => {
  const r = el.getBoundingClientRect()
  return [Math.round(r.left), Math.round(r.right), Math.round(r.width)]
})"""


@pytest.mark.parametrize(
    ("kind", "answer"),
    [("list", NESTED_LIST), ("ordered", NESTED_ORDERED), ("quotes", NESTED_QUOTES)],
    ids=["list", "ordered", "quotes"],
)
def test_a_deeply_nested_answer_stays_readable_on_a_phone(
    make_page: PageFactory, e2e_stack: E2EStack, screenshots: Path, kind: str, answer: str
) -> None:
    db = e2e_stack.database
    session_id = seed.new_session(db, f"deep {kind}")
    leaf = seed.append(db, session_id, None, "USER", "Nest it", "SENT")
    seed.append(db, session_id, leaf, "ASSISTANT", answer, "SUCCESS")

    page = make_page(PHONE)
    open_chat(page, session_id)
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    body = tid(reply, "answer")
    expect(body).to_contain_text("39" if kind != "quotes" else "innermost")
    listing = tid(page, "message-list")
    page.screenshot(path=screenshots / f"phone-deep-{kind}.png")
    assert listing.evaluate("(el) => el.scrollWidth - el.clientWidth") <= 1
    assert sideways_overflow(page) == 0
    for left, right, width in body.evaluate(BOXES):
        assert left >= 0 and right <= PHONE["width"], (left, right)
        assert width >= 150, width  # a line of words, not a letter per line
