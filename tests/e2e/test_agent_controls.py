"""Issue 15 in the browser: the Guide button reaches the running agent, the toolset checkboxes
are kept with the chat (reload, another tab, the runs), interim text stays before its tool
call, and the memory drawer says the memory is shared by all chats. Desktop and phone sizes;
the phone runs in the dark theme."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from agentchat.runs.store import keep_approvals
from tests.e2e.pages import current_session_id, last_assistant, open_chat, send, tid, wait_finished
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

SIZES = {
    "desktop": ({"width": 1366, "height": 800}, "light"),
    "phone": ({"width": 390, "height": 844}, "dark"),
}


def _size(page: Page, name: str) -> None:
    viewport, scheme = SIZES[name]
    page.set_viewport_size(viewport)
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]


def _stored(
    stack: E2EStack, session_id: int, key: str, want: list[str], timeout: float = 10
) -> None:
    """Wait until the server holds `want` as the session's `key` (toolsets, approvals)."""
    deadline = time.monotonic() + timeout
    while (found := stack.session(session_id)["session"][key]) != want:
        assert time.monotonic() < deadline, f"stored {key} {found}, expected {want}"
        time.sleep(0.1)


@pytest.mark.parametrize("size", SIZES)
def test_the_guide_button_reaches_the_running_agent(
    page: Page, size: str, screenshots: Path
) -> None:
    _size(page, size)
    open_chat(page)
    send(page, "#clarify Which colour? | red | blue\n#echo-tool-result")
    reply = last_assistant(page)
    expect(tid(reply, "clarify-panel")).to_be_visible()

    tid(page, "composer-input").fill("Prefer the blue one.")
    tid(page, "steer-button").click()
    expect(tid(reply, "steered")).to_contain_text("Prefer the blue one.")
    expect(tid(page, "composer-input")).to_have_value("")
    page.screenshot(path=screenshots / f"guide-{size}.png")

    tid(tid(reply, "clarify-panel"), "clarify-choice").filter(has_text="red").click()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_contain_text("Prefer the blue one.")  # hermes handed it on


@pytest.mark.parametrize("size", SIZES)
def test_toolset_checkboxes_are_kept_with_the_chat(
    page: Page, context: BrowserContext, e2e_stack: E2EStack, size: str
) -> None:
    _size(page, size)
    open_chat(page)
    send(page, "#say hello")
    session_id = current_session_id(page)
    wait_finished(last_assistant(page), "SUCCESS")

    tid(page, "toolsets").click()
    tid(page, "toolsets-choice").get_by_text("memory", exact=True).click()
    expect(tid(page, "toolsets")).to_have_text("Tools: clarify, todo, skills")
    _stored(e2e_stack, session_id, "toolsets", ["clarify", "todo", "skills"])

    page.reload()
    expect(tid(page, "toolsets")).to_have_text("Tools: clarify, todo, skills")
    other = context.new_page()
    _size(other, size)
    open_chat(other, session_id)
    expect(tid(other, "toolsets")).to_have_text("Tools: clarify, todo, skills")
    send(other, "#echo-tools")
    reply = last_assistant(other)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_contain_text("todo")
    expect(tid(reply, "answer")).not_to_contain_text("memory")  # the agent was not offered it
    other.close()


@pytest.mark.parametrize("size", SIZES)
def test_what_was_allowed_for_this_chat_is_shown_and_can_be_taken_back(
    page: Page, e2e_stack: E2EStack, size: str
) -> None:
    """The keys stand for "Allow for this chat" answers given earlier (the API test gives them
    through a real dangerous command; here they are stored as the run's end stores them)."""
    _size(page, size)
    open_chat(page)
    send(page, "#say hello")
    session_id = current_session_id(page)
    wait_finished(last_assistant(page), "SUCCESS")
    with e2e_stack.database.session() as db:
        keep_approvals(db, session_id, ("recursive delete", "kill all processes"))

    page.reload()
    tid(page, "toolsets").click()
    allowed = tid(page, "approval")
    expect(allowed).to_have_count(2)
    tid(allowed.filter(has_text="recursive delete"), "revoke-approval").click()
    expect(allowed).to_have_count(1)
    expect(allowed).to_have_text(re.compile("kill all processes"))
    _stored(e2e_stack, session_id, "approvals", ["kill all processes"])


@pytest.mark.parametrize("size", SIZES)
def test_interim_text_stays_before_its_tool_call(
    page: Page, e2e_stack: E2EStack, size: str
) -> None:
    _size(page, size)
    open_chat(page)
    gate = f"interim-{size}-{time.monotonic_ns()}"
    send(page, f"#say Let me check.\n#tool skills_list {{}}\n#hold {gate}\n#say All checked.")
    session_id = current_session_id(page)
    reply = last_assistant(page)
    expect(tid(reply, "tool-said")).to_have_text("Let me check.")  # while it runs
    e2e_stack.release(gate)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_have_text("All checked.")

    tid(reply, "thinking-summary").click()
    expect(tid(reply, "tool-said")).to_have_text("Let me check.")
    page.reload()
    open_chat(page, session_id)
    reply = last_assistant(page)
    tid(reply, "thinking-summary").click()
    expect(tid(reply, "tool-said")).to_have_text("Let me check.")
    expect(tid(reply, "answer")).not_to_contain_text("Let me check.")


@pytest.mark.parametrize("size", SIZES)
def test_the_memory_drawer_says_memory_is_shared_by_all_chats(page: Page, size: str) -> None:
    _size(page, size)
    open_chat(page)
    send(page, "#say hello")
    wait_finished(last_assistant(page), "SUCCESS")
    tid(page, "memory-button").click()
    scope = tid(tid(page, "memory-drawer"), "memory-scope")
    expect(scope).to_be_visible()
    expect(scope).to_contain_text("shared by all chats")
