"""Hostile or huge agent output outside the answer — tool names, arguments and results, the to-do
list, the agent's questions and their records, interim text — on a 390 px phone: it is shown
as text (nothing runs, nothing loads), the conversation never scrolls sideways however long an
unbroken word, and a tool call with a 10,000-item JSON, a 2 MB result or a run of 2,000 tool
calls does not freeze the tab when the person opens it (long tasks measured with a
PerformanceObserver): the first entries, characters and the latest calls are shown, the rest
on request."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Dialog, Locator, Page, expect

from tests.e2e import seed
from tests.e2e.pages import last_assistant, open_chat, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PHONE, PageFactory, sideways_overflow

pytestmark = pytest.mark.e2e

HTML = '<img src=x onerror=alert(1)><script>alert(2)</script><a href="javascript:alert(3)">x</a>'
ANSI = "\x1b[31mred\x1b[0m"
WORD = "w" * 3000  # one word, no place to break
# Anything agent words could have made: elements that run or load, a handler, a link (the
# page's own icons are lucide SVGs).
INERT = """(root) => [...root.querySelectorAll('*')].filter((el) =>
    ['IMG', 'SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'A'].includes(el.tagName) ||
    (el.tagName === 'svg' && !el.classList.contains('lucide')) ||
    [...el.attributes].some((a) => a.name.startsWith('on')))
  .map((el) => el.outerHTML.slice(0, 80))"""


def _log(kind: str, content: str | None, tool: str | None = None, **meta: object) -> seed.LogLine:
    return (kind, content, tool, meta or None)


HOSTILE_LOGS = [
    _log("thinking", f"{HTML} {ANSI} {WORD}"),
    _log("todo_update", json.dumps([{"id": "1", "content": HTML + WORD, "status": "pending"}])),
    _log("interim", f"Let me look. {WORD}"),
    _log(
        "tool_call",
        "{}",
        HTML + WORD,
        toolCallId="c1",
        args={"url": "javascript:alert(1)", "html": HTML, "word": WORD},
    ),
    _log("tool_result", f"{HTML}\n{ANSI}\n{WORD}", HTML + WORD, toolCallId="c1"),
    _log("tool_call", "{}", "clarify", toolCallId="c2", args={"question": WORD}),
    _log(
        "clarify_request",
        "",
        None,
        clarifyId="k1",
        question=HTML + WORD,
        choices=[WORD, "short"],
    ),
    _log("clarify_answered", "", None, clarifyId="k1", answer=WORD),
    _log("tool_result", WORD, "clarify", toolCallId="c2"),
    _log("steered", WORD),
]


def _stored_reply(stack: E2EStack, title: str, logs: list[seed.LogLine]) -> int:
    db = stack.database
    session_id = seed.new_session(db, title)
    leaf = seed.append(db, session_id, None, "USER", "Go", "SENT")
    seed.append(db, session_id, leaf, "ASSISTANT", "Done.", "SUCCESS", logs)
    return session_id


def _watch_dialogs(page: Page) -> list[str]:
    seen: list[str] = []

    def on_dialog(dialog: Dialog) -> None:
        seen.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return seen


def _fits(page: Page) -> None:
    """Nothing scrolls sideways: neither the page nor the conversation."""
    listing = tid(page, "message-list")
    assert listing.evaluate("(el) => el.scrollWidth - el.clientWidth") <= 1
    assert sideways_overflow(page) == 0


def _settled(page: Page) -> None:
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))")


def _open_panel(reply: Locator) -> None:
    tid(reply, "thinking-summary").click()
    expect(tid(reply, "run-step").first).to_be_visible()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_hostile_words_outside_the_answer_are_text_and_fit_a_phone(
    make_page: PageFactory, e2e_stack: E2EStack, scheme: str, screenshots: Path
) -> None:
    session_id = _stored_reply(e2e_stack, "hostile tools", HOSTILE_LOGS)
    page = make_page(PHONE, scheme)
    dialogs = _watch_dialogs(page)
    open_chat(page, session_id)
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    _open_panel(reply)
    call = tid(reply, "tool-call").first
    call.locator("summary").click()
    expect(tid(call, "tool-result")).to_contain_text("<script>alert(2)</script>")
    expect(tid(reply, "todo-item")).to_contain_text("<img src=x onerror=alert(1)>")
    expect(tid(reply, "clarify-answered")).to_contain_text("<img src=x")
    expect(tid(reply, "steered")).to_be_visible()
    _settled(page)
    page.screenshot(path=screenshots / f"phone-hostile-tools-{scheme}.png")
    _fits(page)
    panel = tid(reply, "thinking-panel")
    assert panel.evaluate(INERT) == []
    expect(tid(page, "send-button")).to_be_in_viewport()
    assert dialogs == []


def test_a_waiting_question_of_unbroken_words_fits_a_phone(
    make_page: PageFactory, screenshots: Path
) -> None:
    page = make_page(PHONE, "dark")
    open_chat(page)
    long_choices = " | ".join(f"{i}" * 1500 for i in range(1, 4))
    box = tid(page, "composer-input")
    box.fill(f"#clarify {'Q' * 2000} | {long_choices} | short")
    tid(page, "send-button").click()
    reply = last_assistant(page)
    panel = tid(reply, "clarify-panel")
    expect(tid(panel, "clarify-choice")).to_have_count(4)
    _settled(page)
    page.screenshot(path=screenshots / "phone-clarify-unbroken.png")
    _fits(page)
    expect(tid(page, "stop-button")).to_be_in_viewport()
    tid(panel, "clarify-choice").last.click()
    wait_finished(reply, "SUCCESS")
    _fits(page)


HUGE_LIST = [{"row": i, "name": f"item {i}"} for i in range(10_000)]
HUGE_LOGS = [
    _log("thinking", "Fetching everything."),
    _log("tool_call", "{}", "fetch_rows", toolCallId="a", args={"rows": HUGE_LIST}),
    _log("tool_result", json.dumps(HUGE_LIST, indent=1), "fetch_rows", toolCallId="a"),
    _log("tool_call", "{}", "dump", toolCallId="b", args={"what": "all"}),
    _log("tool_result", "z" * 2_000_000, "dump", toolCallId="b"),
]


def test_a_huge_tool_call_opens_in_parts(make_page: PageFactory, e2e_stack: E2EStack) -> None:
    session_id = _stored_reply(e2e_stack, "huge tool output", HUGE_LOGS)
    page = make_page(PHONE)
    open_chat(page, session_id)
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    _settled(page)

    _open_panel(reply)
    rows, dump = tid(reply, "tool-call").nth(0), tid(reply, "tool-call").nth(1)
    rows.locator("summary").click()
    expect(tid(rows, "tool-args")).to_contain_text("item 0")
    expect(tid(rows, "tool-result")).to_contain_text("item 0")
    dump.locator("summary").click()
    expect(tid(dump, "tool-result")).to_contain_text("zzzz")
    _settled(page)
    _fits(page)

    # the rest stays reachable: more of the list, all of the text
    more = tid(rows, "tool-args").get_by_role("button", name="Show")
    more.first.click()
    expect(tid(rows, "tool-args")).to_contain_text("item 150")
    tid(dump, "tool-result").get_by_role("button", name="Show all").click()
    # the text and the button's label change in one render: read the text once it has happened
    expect(tid(dump, "tool-result").get_by_role("button", name="Show less")).to_be_visible()
    length = tid(dump, "tool-result").locator("pre").evaluate("(el) => el.textContent.length")
    assert length == 2_000_000


def test_a_run_of_two_thousand_tool_calls_opens_its_latest_hundred(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    logs = [_log("thinking", "Many small steps.")]
    for i in range(2000):
        logs.append(_log("tool_call", "{}", "skills_list", toolCallId=f"c{i}", args={"page": i}))
        logs.append(_log("tool_result", f"page {i}", "skills_list", toolCallId=f"c{i}"))
    session_id = _stored_reply(e2e_stack, "two thousand calls", logs)
    page = make_page(PHONE)
    open_chat(page, session_id)
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "thinking-summary")).to_contain_text("2000 tool calls")
    _settled(page)
    _open_panel(reply)
    calls = tid(reply, "tool-call")
    expect(calls).to_have_count(100)  # the latest; earlier ones on request
    last = calls.last
    last.scroll_into_view_if_needed()
    last.locator("summary").click()
    expect(tid(last, "tool-result")).to_have_text("page 1999")
    _settled(page)
    _fits(page)

    earlier = tid(reply, "earlier-tools")
    expect(earlier).to_have_text("Show 500 earlier tool calls (1900 not shown)")
    earlier.click()
    expect(calls).to_have_count(600)
    expect(calls.first).to_contain_text("page: 1400")


def test_a_long_thinking_stream_in_small_pieces_arrives_whole(
    make_page: PageFactory,
) -> None:
    """20,000 thinking pieces of three characters, live (what each piece costs is measured by
    bench/bench_page.py, never by a timed test; frontend/tests/longThinking.test.ts pins the
    mechanism)."""
    page = make_page(PHONE)
    open_chat(page)
    tid(page, "composer-input").fill("#think " + "ab " * 20_000 + "\n#say done")
    _settled(page)
    tid(page, "send-button").click()
    reply = last_assistant(page)
    expect(reply).to_have_attribute("data-status", "SUCCESS", timeout=120_000)
    _open_panel(reply)
    stream = tid(reply, "thinking-stream")
    assert stream.evaluate("(el) => el.textContent.length") == len("ab " * 20_000) - 1
    _fits(page)
