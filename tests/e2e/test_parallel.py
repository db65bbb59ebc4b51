"""Live runs across sessions, reloads and tabs (spec §2.2, §5.7): parallel sessions while
switching, reload mid-run, reopening a run that waits for an answer, the two-tab lock, and more
live runs than the browser's six connections per host."""

from __future__ import annotations

import re
import time
import uuid
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import BrowserContext, Page, Request, expect

from tests.e2e.pages import (
    current_session_id,
    last_assistant,
    open_chat,
    send,
    session_row,
    tid,
    wait_finished,
)
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def tokens(n: int) -> str:
    return " ".join(f"t{i}" for i in range(1, n + 1))


# Counts the page's open multiplexed streams: one opens at fetch(), closes at abort or body end.
COUNT_STREAMS = """
(() => {
  const original = window.fetch.bind(window)
  const count = (window.__streams = { open: 0, most: 0 })
  window.fetch = (input, init) => {
    const url = typeof input === 'string' ? input : input.url
    if (!url.includes('/api/chat/stream')) return original(input, init)
    let closed = false
    const close = () => { if (!closed) { closed = true; count.open-- } }
    count.open++
    count.most = Math.max(count.most, count.open)
    init?.signal?.addEventListener('abort', close)
    return original(input, init).then((r) => {
      if (!r.body) { close(); return r }
      const body = r.body.pipeThrough(new TransformStream({ flush: close }))
      return new Response(body, { status: r.status, statusText: r.statusText, headers: r.headers })
    }, (err) => { close(); throw err })
  }
})()
"""


class StreamWatch:
    """The stream requests of one tab: which URLs, how many were open at once."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.urls: list[str] = []
        self.per_run: list[str] = []
        page.add_init_script(COUNT_STREAMS)
        page.on("request", self._started)

    def _started(self, request: Request) -> None:
        url = request.url
        if "/api/chat/runs/" in url and url.endswith("/stream"):
            self.per_run.append(url)
        if "/api/chat/stream" in url:
            self.urls.append(url)

    @property
    def widest(self) -> int:
        runs = (parse_qs(urlparse(u).query)["runs"][0].split(",") for u in self.urls)
        return max((len(r) for r in runs), default=0)

    @property
    def most_open(self) -> int:
        return int(self.page.evaluate("window.__streams.most"))


def open_row(page: Page, session_id: int) -> None:
    session_row(page, session_id).locator(".session-open").click()
    page.wait_for_url(f"**/chat/{session_id}")
    # the URL changes first; the list still shows the other session until this one is loaded
    expect(tid(page, "message-list")).to_have_attribute("data-session-id", str(session_id))


def wait_listed_first(page: Page, session_id: int) -> None:
    """A run's start reloads the chat list (300 ms later) with its chat first. A row clicked
    while the list reorders can be another chat's: the click lands where the row was."""
    first = tid(page, "session-item").first
    expect(first).to_have_attribute("data-session-id", str(session_id))


def test_two_sessions_stream_in_parallel_while_switching(page: Page, e2e_stack: E2EStack) -> None:
    a = e2e_stack.new_session("parallel A")
    b = e2e_stack.new_session("parallel B")
    open_chat(page, a)
    send(page, "#delay 100\n#tokens 80")
    expect(tid(last_assistant(page), "answer")).to_contain_text("t3 ")
    wait_listed_first(page, a)

    open_row(page, b)
    expect(tid(page, "assistant-message")).to_have_count(0)
    send(page, "#delay 100\n#tokens 50")
    expect(tid(last_assistant(page), "answer")).to_contain_text("t2 ")
    wait_listed_first(page, b)
    for sid in (a, b):
        expect(session_row(page, sid)).to_have_attribute("data-running", "true")
        expect(tid(session_row(page, sid), "session-running")).to_be_visible()
    seen_in_b = tid(last_assistant(page), "answer").inner_text()

    open_row(page, a)
    reply_a = last_assistant(page)
    shown = tid(reply_a, "answer").inner_text()
    assert len(shown.split()) > 3, shown  # what arrived while B was in view is there
    wait_finished(reply_a, "SUCCESS")
    expect(tid(reply_a, "answer")).to_have_text(tokens(80))

    open_row(page, b)
    reply_b = last_assistant(page)
    wait_finished(reply_b, "SUCCESS")
    expect(tid(reply_b, "answer")).to_have_text(tokens(50))
    assert tokens(50).startswith(seen_in_b.strip())
    for sid in (a, b):
        expect(session_row(page, sid)).to_have_attribute("data-running", "false")
    assert e2e_stack.session(a)["messages"][-1]["content"] == tokens(80)


def test_reload_mid_run_resumes_without_duplicates(page: Page) -> None:
    open_chat(page)
    send(page, "#delay 100\n#tokens 80")
    session_id = current_session_id(page)
    expect(tid(last_assistant(page), "answer")).to_contain_text("t5 ")
    page.reload()
    reply = last_assistant(page)
    expect(reply).to_have_attribute("data-status", "RUNNING")
    expect(tid(page, "stop-button")).to_be_visible()
    expect(tid(reply, "thinking-panel")).to_have_attribute("data-state", "running")
    expect(tid(reply, "answer")).to_contain_text("t40 ")  # still streaming after the reload
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_have_text(tokens(80))
    assert page.url.endswith(f"/chat/{session_id}")


def test_reopened_page_shows_the_pending_question(
    context: BrowserContext, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("waiting")
    run = e2e_stack.start(session_id, "#clarify Ship it? | yes | no\n#echo-tool-result")
    deadline = time.monotonic() + 30
    while not e2e_stack.call("GET", f"/api/chat/runs/{run['runId']}/state")["pendingClarify"]:
        assert time.monotonic() < deadline, "the run never asked"
        time.sleep(0.1)

    page = context.new_page()  # a browser opened after the question was asked
    open_chat(page, session_id)
    expect(session_row(page, session_id)).to_have_attribute("data-waiting", "true")
    reply = last_assistant(page)
    expect(tid(reply, "clarify-question")).to_have_text("Ship it?")
    tid(reply, "clarify-choice").filter(has_text="no").click()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_contain_text('"user_response": "no"')


def test_second_tab_cannot_send_into_a_session_running_in_the_first(
    context: BrowserContext, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("two tabs")
    first, second = context.new_page(), context.new_page()
    open_chat(first, session_id)
    open_chat(second, session_id)
    # a second tab that has not caught up with the first yet (it would show the run by itself)
    branch_end = re.compile(r"/api/chat/sessions/\d+/messages\?limit=2$")
    second.route(branch_end, lambda route: route.abort())
    send(first, "#delay 100\n#tokens 60")
    expect(tid(last_assistant(first), "answer")).to_contain_text("t2 ")

    send(second, "#say from the second tab")
    expect(second.get_by_text("This chat is running in another tab.")).to_be_visible()
    second.unroute(branch_end)
    reply = last_assistant(second)  # the second tab now shows and follows the first tab's run
    expect(reply).to_have_attribute("data-status", "RUNNING")
    expect(tid(second, "stop-button")).to_be_visible()
    wait_finished(last_assistant(first), "SUCCESS")
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_have_text(tokens(60))
    assert len(e2e_stack.session(session_id)["messages"]) == 2

    send(second, "#say from the second tab")  # the run is over: the lock is free again
    wait_finished(last_assistant(second), "SUCCESS")
    expect(tid(last_assistant(second), "answer")).to_have_text("from the second tab")


def test_more_live_runs_than_browser_connections_across_two_tabs(
    context: BrowserContext, e2e_stack: E2EStack
) -> None:
    count, length = 8, 60
    gate = f"many-{uuid.uuid4().hex[:8]}"  # every run stays live until the test lets them go
    sessions = [e2e_stack.new_session(f"many {i}") for i in range(count)]
    tabs = [context.new_page(), context.new_page()]
    streams = [StreamWatch(tab) for tab in tabs]
    for tab in tabs:
        open_chat(tab)

    started = time.monotonic()
    for i, sid in enumerate(sessions):
        tab = tabs[i % 2]
        open_row(tab, sid)
        send(tab, f"#hold {gate}\n#delay 50\n#tokens {length}")
        expect(last_assistant(tab)).to_have_attribute("data-status", "RUNNING")
        wait_listed_first(tab, sid)
    live = [s for s in e2e_stack.call("GET", "/api/chat/sessions")["items"] if s["hasActiveRun"]]
    assert len(live) == count, f"{len(live)} live after {time.monotonic() - started:.1f} s"

    for tab in tabs:  # the page still answers while eight runs stream
        tab.get_by_test_id("nav-models").click()
        expect(tid(tab, "model-row").first).to_be_visible(timeout=5000)
        tab.get_by_test_id("nav-chat").click()
        expect(tid(tab, "composer")).to_be_visible(timeout=5000)

    e2e_stack.release(gate)
    for sid in sessions:
        detail = e2e_stack.wait_idle(sid, timeout=60)
        assert detail["messages"][-1]["status"] == "SUCCESS"
        assert detail["messages"][-1]["content"] == tokens(length)
    for i, sid in enumerate(sessions):
        expect(session_row(tabs[i % 2], sid)).to_have_attribute("data-running", "false")
    open_row(tabs[0], sessions[-2])
    expect(tid(last_assistant(tabs[0]), "answer")).to_have_text(tokens(length))

    for watch in streams:  # one multiplexed stream per tab carried its runs (and the other's)
        assert not watch.per_run, f"per-run streams opened: {watch.per_run}"
        assert watch.widest >= count // 2, watch.urls
        assert watch.most_open == 1, f"{watch.most_open} streams open at once in one tab"


def test_a_second_tab_shows_the_turns_of_the_first(context: BrowserContext) -> None:
    """Two tabs of one browser on one chat: B shows A's turn without being reloaded."""
    a = context.new_page()
    open_chat(a)
    send(a, "#say from tab A")
    session_id = current_session_id(a)
    wait_finished(last_assistant(a), "SUCCESS")
    b = context.new_page()
    open_chat(b, session_id)
    send(a, "#delay 50\n#tokens 60")
    expect(tid(b, "user-message")).to_have_count(2)  # A's new turn, in B
    wait_finished(last_assistant(b), "SUCCESS")
    expect(tid(last_assistant(b), "answer")).to_contain_text("t60")


def test_a_tab_coming_back_shows_what_changed_meanwhile(page: Page, e2e_stack: E2EStack) -> None:
    """Another device (the API here: no storage shared with the tab) asked in this chat: the
    tab shows it, and follows the answer still running, when it becomes visible again."""
    session_id = e2e_stack.new_session("came back")
    open_chat(page, session_id)
    expect(tid(page, "user-message")).to_have_count(0)
    gate = f"back-{uuid.uuid4().hex[:8]}"  # the answer runs until the tab has shown it running
    e2e_stack.start(session_id, f"#hold {gate}\n#tokens 200")
    page.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    reply = last_assistant(page)
    expect(reply).to_have_attribute("data-status", "RUNNING")  # followed live
    e2e_stack.release(gate)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_contain_text("t200")


def test_sending_into_a_chat_that_moved_on_shows_its_new_turns_first(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("moved on")
    open_chat(page, session_id)
    e2e_stack.start(session_id, "#say answered elsewhere")
    e2e_stack.wait_idle(session_id)
    box = tid(page, "composer-input")
    box.fill("#say my question")
    box.press("Enter")
    expect(tid(page, "user-message")).to_have_count(1)
    expect(tid(page, "user-message").first).to_contain_text("answered elsewhere")
    expect(box).to_have_value("#say my question")  # not sent into what the person did not see
    box.press("Enter")
    expect(tid(page, "user-message")).to_have_count(2)
    wait_finished(last_assistant(page), "SUCCESS")
    stored = [m["content"] for m in e2e_stack.session(session_id)["messages"]]
    assert stored == [
        "#say answered elsewhere",
        "answered elsewhere",
        "#say my question",
        "my question",
    ]
