"""A dangerous command waits for the person's approval: the page asks with three buttons (Allow
once, Allow for this chat, Deny), no free-text answer (the bridge takes any other text for a
denial), the command shown as code, and the question and buttons in the page's language.

This module runs its own API and bridge that allow the `terminal` and `browser` toolsets (the
shared stack's agent has no command tools), on a database of its own. Where those are switched
on, the page says what they reach on the server's machine (issue 33)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.own_stack import own_stack
from tests.e2e.pages import last_assistant, open_chat, send, settled_box, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory, run_axe, sideways_overflow

pytestmark = pytest.mark.e2e

TOOLSETS = "clarify,todo,terminal,browser"
REFUSED = {
    "en": "requests to Agent Chat itself are refused",
    "zh": "对 Agent Chat 本身的请求会被拒绝",
}
CHOICES = {
    "en": ["Allow once", "Allow for this chat", "Deny"],
    "zh": ["允许一次", "在本对话中允许", "拒绝"],
}


@pytest.fixture(scope="module")
def terminal_stack(
    tmp_path_factory: pytest.TempPathFactory, e2e_stack: E2EStack
) -> Iterator[E2EStack]:
    with own_stack(
        tmp_path_factory,
        "terminal",
        e2e_stack.scripted_url,  # the shared scripted model
        bridge_env={"AGENTCHAT_AGENT_TOOLSETS": TOOLSETS},
        agent_toolsets=TOOLSETS,
    ) as stack:
        yield stack


@pytest.fixture
def page_stack(terminal_stack: E2EStack) -> E2EStack:
    return terminal_stack


@pytest.mark.parametrize(
    ("locale", "size", "scheme"), [("en", "desktop", "light"), ("zh", "phone", "dark")]
)
def test_a_dangerous_command_is_allowed_or_denied_with_buttons_only(
    make_page: PageFactory,
    tmp_path: Path,
    screenshots: Path,
    locale: str,
    size: str,
    scheme: str,
) -> None:
    target = tmp_path / "precious"
    (target / "inside").mkdir(parents=True)
    command = f"rm -rf {target}"
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    open_chat(page)
    send(page, f"#tool terminal {json.dumps({'command': command})}\n#echo-tool-result")
    reply = last_assistant(page)
    panel = tid(reply, "clarify-panel")
    expect(tid(panel, "clarify-choice")).to_have_text(CHOICES[locale])
    expect(tid(panel, "clarify-input")).to_have_count(0)  # no free text to be taken for Deny
    expect(tid(panel, "approval-command")).to_have_text(command)
    question = tid(panel, "clarify-question")
    if locale == "zh":
        expect(question).to_contain_text("允许")
        expect(question).to_contain_text("删除")  # why it is dangerous, in Chinese too
        expect(panel).not_to_contain_text("Allow")
        expect(question).not_to_contain_text("delete")
    else:
        expect(question).to_contain_text("Allow this command")
    page.screenshot(path=screenshots / f"approval-{locale}-{size}-{scheme}.png")
    assert run_axe(page) == []

    tid(panel, "clarify-choice").filter(has_text=CHOICES[locale][2]).click()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "clarify-answered")).to_contain_text(CHOICES[locale][2])
    assert (target / "inside").is_dir()  # denied: nothing was deleted


@pytest.mark.parametrize(
    ("locale", "size", "scheme"), [("en", "desktop", "dark"), ("zh", "phone", "light")]
)
def test_the_page_says_what_toolsets_acting_on_the_machine_reach(
    make_page: PageFactory, screenshots: Path, locale: str, size: str, scheme: str
) -> None:
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    open_chat(page)
    button = tid(page, "toolsets")
    expect(tid(button, "host-toolsets-mark")).to_be_visible()
    button.click()
    warnings = tid(page, "host-toolset-warning")
    expect(warnings).to_have_count(2)  # terminal and browser; clarify and todo say nothing
    expect(warnings.nth(1)).to_contain_text(REFUSED[locale])
    expect(warnings.nth(0)).to_contain_text("Agent Chat")
    settled_box(warnings.nth(1))  # the popover has faded in
    assert sideways_overflow(page) == 0
    page.screenshot(path=screenshots / f"host-toolsets-{locale}-{size}-{scheme}.png")
    assert run_axe(page) == []

    choice = tid(page, "toolsets-choice")
    for name in ("terminal", "browser"):  # this chat narrows them away
        choice.get_by_text(name, exact=True).click()
    expect(tid(button, "host-toolsets-mark")).to_have_count(0)
    expect(warnings).to_have_count(2)  # still said beside the boxes that would switch them on
