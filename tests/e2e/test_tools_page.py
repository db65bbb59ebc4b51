"""The Tools page and a chat's MCP servers in the browser: an administrator adds a stdio MCP
server (the FastMCP test server) with a secret, tests it, a refused command says why, a chat
turns the server off and on from its tools popover, an MCP call shows its server, tool and the
image it returned, and an "ask" server's call waits on the approval panel. Desktop and phone,
light and dark, English and Chinese.

This module runs its own API and bridge (MCP servers reach every chat of a server)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.own_stack import own_stack
from tests.e2e.pages import (
    current_session_id,
    last_assistant,
    open_chat,
    send,
    tid,
    wait_finished,
)
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory, run_axe, sideways_overflow
from tests.support.mcp_servers import SCRIPT

pytestmark = pytest.mark.e2e

SECRET = "page-secret-value-9876"
VIEWS = [("en", "desktop", "light"), ("zh", "phone", "dark")]


@pytest.fixture(scope="module")
def tools_stack(
    tmp_path_factory: pytest.TempPathFactory, e2e_stack: E2EStack
) -> Iterator[E2EStack]:
    with own_stack(tmp_path_factory, "tools", e2e_stack.scripted_url) as stack:
        yield stack


@pytest.fixture
def page_stack(tools_stack: E2EStack) -> E2EStack:
    return tools_stack


@pytest.fixture
def no_servers(tools_stack: E2EStack) -> Iterator[None]:
    yield
    for server in tools_stack.call("GET", "/api/mcp/servers"):
        tools_stack.call("DELETE", f"/api/mcp/servers/{server['id']}", expect=204)


def add_server(stack: E2EStack, name: str = "tools", approval: str = "allowed") -> None:
    body = {
        "name": name,
        "transport": "stdio",
        "command": sys.executable,
        "args": [str(SCRIPT), "stdio"],
        "approval": approval,
    }
    stack.call("POST", "/api/mcp/servers", body, expect=201)


def fill_secret(page: Page, name: str, value: str) -> None:
    tid(page, "mcp-secret-add").click()
    tid(page, "mcp-secret-name").last.fill(name)
    tid(page, "mcp-secret-value").last.fill(value)


def turn_off_and_ask(page: Page) -> None:
    """The chat's tools popover turns the server `tools` off: the next turn has none of its
    tools."""
    tid(page, "toolsets").click()
    choice = tid(page, "mcp-choice").get_by_role("checkbox", name="tools")
    expect(choice).to_be_checked()
    choice.click()
    expect(choice).not_to_be_checked()
    page.keyboard.press("Escape")
    send(page, "#echo-tools")
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).not_to_contain_text("mcp__tools__")


@pytest.mark.usefixtures("no_servers")
@pytest.mark.parametrize(("locale", "size", "scheme"), VIEWS)
def test_an_administrator_adds_tests_and_edits_a_server(
    make_page: PageFactory, screenshots: Path, tmp_path: Path, locale: str, size: str, scheme: str
) -> None:
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    page.goto("/tools")
    expect(tid(page, "tools-empty")).to_be_visible()

    tid(page, "mcp-add").click()
    tid(page, "mcp-name").fill("tools")
    tid(page, "mcp-command").fill(str(tmp_path / "no-such-server"))
    tid(page, "mcp-save").click()
    expect(tid(page, "mcp-form-error")).to_contain_text("does not exist")  # refused, kept open

    tid(page, "mcp-command").fill(sys.executable)
    tid(page, "mcp-args").fill(f"{SCRIPT}\nstdio")
    fill_secret(page, "SERVICE_TOKEN", SECRET)
    tid(page, "mcp-form-test").click()  # the form's values, before they are saved
    tested = tid(page, "mcp-form-tested")
    expect(tested).to_have_attribute("data-ok", "true")
    expect(tested).to_contain_text("add")
    tid(page, "mcp-save").click()
    row = page.locator('[data-testid="mcp-row"][data-name="tools"]')
    expect(row).to_be_visible()
    # connected by the agent service as soon as it is saved, before any turn
    expect(tid(row, "mcp-state")).to_have_attribute("data-state", "connected")

    tid(row, "mcp-test").click()
    tools = tid(row, "mcp-tools")
    expect(tools).to_be_visible()
    tools.locator("summary").click()
    expect(tools).to_contain_text("Add two whole numbers.")
    assert SECRET not in page.content()
    page.screenshot(path=screenshots / f"tools-{locale}-{size}-{scheme}.png")
    assert run_axe(page) == []
    assert sideways_overflow(page) == 0

    tid(row, "mcp-edit").click()
    value = tid(page, "mcp-secret-value").first
    expect(value).to_have_value("")
    kept = {"en": "stored (…9876); leave empty to keep it", "zh": "已保存（…9876）；留空则保留"}  # noqa: RUF001
    expect(value).to_have_attribute("placeholder", kept[locale])


@pytest.mark.usefixtures("no_servers")
@pytest.mark.parametrize(("locale", "size", "scheme"), VIEWS)
def test_a_chat_turns_a_server_off_and_sees_its_calls(
    make_page: PageFactory,
    tools_stack: E2EStack,
    screenshots: Path,
    locale: str,
    size: str,
    scheme: str,
) -> None:
    add_server(tools_stack)
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    open_chat(page)
    send(page, "#tool mcp__tools__picture {}\n#say seen")
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    tid(reply, "thinking-summary").click()
    call = reply.locator('[data-testid="tool-call"][data-tool="mcp__tools__picture"]')
    expect(call).to_be_visible()
    expect(tid(reply, "tool-server")).to_have_text("tools")
    image = tid(reply, "tool-media-image")
    expect(image).to_be_visible()
    assert image.evaluate("(img) => img.naturalWidth") == 4  # the PNG the tool returned
    page.screenshot(path=screenshots / f"mcp-call-{locale}-{size}-{scheme}.png")

    turn_off_and_ask(page)
    assert run_axe(page) == []


@pytest.mark.usefixtures("no_servers")
def test_an_ask_server_waits_on_the_approval_panel(
    make_page: PageFactory, tools_stack: E2EStack, screenshots: Path
) -> None:
    add_server(tools_stack, approval="ask")
    page = make_page(SIZES["desktop"], "light")
    open_chat(page)
    send(page, '#tool mcp__tools__echo {"text": "hello"}\n#echo-tool-result')
    reply = last_assistant(page)
    panel = tid(reply, "clarify-panel")
    expect(tid(panel, "clarify-question")).to_have_text(
        "Allow the tool echo of the MCP server tools?"
    )
    expect(tid(panel, "clarify-choice")).to_have_text(["Allow once", "Allow for this chat", "Deny"])
    page.screenshot(path=screenshots / "mcp-approval.png")
    tid(panel, "clarify-choice").filter(has_text="Allow once").click()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_contain_text("echo: hello")


@pytest.mark.usefixtures("no_servers")
def test_a_new_chat_turns_a_server_off_before_its_first_question(
    make_page: PageFactory, tools_stack: E2EStack
) -> None:
    """The chat is not made yet: the popover's choice waits and is saved with it."""
    add_server(tools_stack)
    page = make_page(SIZES["desktop"], "light")
    open_chat(page)
    turn_off_and_ask(page)
    chat = current_session_id(page)
    assert tools_stack.call("GET", f"/api/chat/sessions/{chat}")["session"]["mcpOff"] == ["tools"]
    tid(page, "toolsets").click()
    expect(tid(page, "mcp-choice").get_by_role("checkbox", name="tools")).not_to_be_checked()
