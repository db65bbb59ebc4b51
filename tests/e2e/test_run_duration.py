"""A run's duration reads the same while the page watched it end and after a reload (issue 33:
"Thought for 6 s" became "7 s"), even on a device whose clock is off: both are the server's
times of the answer, not this device's clock against the server's."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import current_session_id, last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e


def stored_seconds(stack: E2EStack, session_id: int) -> int:
    messages: list[dict[str, Any]] = stack.session(session_id)["messages"]
    answer = messages[-1]
    start = datetime.fromisoformat(answer["createdAt"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(answer["completedAt"].replace("Z", "+00:00"))
    return math.floor((end - start).total_seconds() + 0.5)  # as the page rounds


def test_a_runs_duration_is_the_same_live_and_after_a_reload(
    page: Page, e2e_stack: E2EStack
) -> None:
    page.clock.install(time=datetime.now() + timedelta(seconds=30))  # this device runs 30 s fast
    open_chat(page)
    for turn in range(2):  # the first answer of a new chat, then a follow-up
        send(page, f"question {turn}\n#think a short thought\n#delay 40\n#tokens 30")
        reply = last_assistant(page)
        wait_finished(reply, "SUCCESS")
    seconds = stored_seconds(e2e_stack, current_session_id(page))
    expected = f"Thought for {seconds} s"
    expect(tid(reply, "thinking-summary")).to_contain_text(expected)
    page.reload()
    expect(tid(last_assistant(page), "thinking-summary")).to_contain_text(expected)


def test_a_runs_duration_is_the_same_live_and_after_a_reload_on_a_slow_network(
    page: Page, e2e_stack: E2EStack
) -> None:
    """A phone on mobile data: a second before each answer to a request (the run's start came
    back a second after the server began it, so the live count began late: "Thought for 6 s",
    then "7 s" after a reload)."""
    open_chat(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    slow = {"offline": False, "latency": 1000, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", slow)
    send(page, "question\n#think a short thought\n#delay 40\n#tokens 30")
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    seconds = stored_seconds(e2e_stack, current_session_id(page))
    expected = f"Thought for {seconds} s"
    expect(tid(reply, "thinking-summary")).to_contain_text(expected)
    page.reload()
    expect(tid(last_assistant(page), "thinking-summary")).to_contain_text(expected)
