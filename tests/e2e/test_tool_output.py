"""What the agent's tools wrote, shown as text a person reads (issue 33): terminal colour codes
are not shown as boxes and brackets, the memory drawer shows long arguments cut (with "Show
all") like the thinking panel, and on a phone the drawer's tabs stay on one row and its
figures on one line."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from agentchat.chat.tables import ChatMessage
from tests.e2e import seed
from tests.e2e.pages import last_assistant, open_chat, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SETTLED, SIZES, PageFactory

pytestmark = pytest.mark.e2e

COLOURED = "\x1b[1;31mFAILED\x1b[0m tests/test_x.py::test_y\n\x1b[32m3 passed\x1b[0m in 0.2s"
LONG_ARGS = {
    "path": "notes.txt",
    "content": "\n".join(f"line {i} of the file" for i in range(2000)),
}
USAGE = {
    "promptTokens": 3100,
    "completionTokens": 40,
    "contextTokens": 3100,
    "contextLength": 131072,
}


# how many lines the element's text takes (its box may be taller: a row's other cell wraps)
LINES_OF_TEXT = """(el) => {
    const range = document.createRange()
    range.selectNodeContents(el)
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size
}"""


def seed_tools(stack: E2EStack, title: str) -> int:
    db = stack.database
    session_id = seed.new_session(db, title)
    question = seed.append(db, session_id, None, "USER", "run the tests", "SENT")
    logs: list[seed.LogLine] = [
        ("tool_call", "{}", "terminal", {"toolCallId": "t1", "args": {"command": "pytest -q"}}),
        ("tool_result", COLOURED, "terminal", {"toolCallId": "t1", "durationMs": 200}),
        ("tool_call", "{}", "write_file", {"toolCallId": "t2", "args": LONG_ARGS}),
        ("tool_result", "written", "write_file", {"toolCallId": "t2", "durationMs": 10}),
    ]
    answer = seed.append(db, session_id, question, "ASSISTANT", "Done.", "SUCCESS", logs)
    with db.session() as s:
        message = s.get(ChatMessage, answer)
        assert message is not None
        message.usage_json = json.dumps(USAGE)
    return session_id


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_terminal_colour_codes_are_not_shown_as_text(
    make_page: PageFactory, e2e_stack: E2EStack, size: str, scheme: str
) -> None:
    session_id = seed_tools(e2e_stack, f"colours {size} {scheme}")
    page = make_page(SIZES[size], scheme)
    open_chat(page, session_id)
    reply = last_assistant(page)
    tid(reply, "thinking-summary").click()
    call = tid(reply, "tool-call").first
    call.locator("summary").click()
    result = tid(call, "tool-result")
    expect(result).to_contain_text("FAILED tests/test_x.py::test_y")
    expect(result).to_contain_text("3 passed in 0.2s")
    assert "\x1b" not in result.inner_text() and "[0m" not in result.inner_text()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_memory_drawer_cuts_long_arguments_and_fits_a_phone(
    make_page: PageFactory, e2e_stack: E2EStack, size: str
) -> None:
    session_id = seed_tools(e2e_stack, f"drawer {size}")
    page = make_page(SIZES[size])
    open_chat(page, session_id)
    tid(page, "memory-button").click()
    drawer = tid(page, "memory-drawer")
    tabs = page.locator(".memory-tabs .n-tabs-tab")
    expect(tabs).to_have_count(4)
    tops = {round(box["y"]) for box in (tabs.nth(i).bounding_box() for i in range(4)) if box}
    assert len(tops) == 1, tops  # one row of tabs
    page.locator('.n-tabs-tab[data-name="short"]').click()
    calls = tid(drawer, "recent-tool")
    expect(calls).to_have_count(2)
    # The tab's pane slides in: a click while it moves can land beside the summary (run 44:
    # the call stayed closed, its "Show all" hidden from the role query for 20 s).
    page.wait_for_function(SETTLED)
    writer = calls.filter(has_text="write_file")
    writer.locator("summary").click()
    expect(writer).to_have_attribute("open", "")
    args = tid(writer, "recent-args")
    expect(args).to_contain_text("line 0 of the file")
    expect(args).not_to_contain_text("line 1999 of the file")  # cut...
    args.get_by_role("button", name="Show all").click()  # ...until asked
    expect(args).to_contain_text("line 1999 of the file")
    terminal = calls.filter(has_text="terminal")
    terminal.locator("summary").click()
    assert "\x1b" not in terminal.inner_text()

    page.locator('.n-tabs-tab[data-name="stats"]').click()
    context = tid(drawer, "session-stats").locator("td").filter(has_text="/")
    expect(context).to_have_count(1)
    lines = context.evaluate(LINES_OF_TEXT)
    assert lines <= 1, lines
