"""Usage on the page (issue 15, finding 6): the answer shows the tokens it used, the chat shows
how full the model's context window is, and a model's request options are set on the Models
page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.pages import last_assistant, open_chat, send, settled_box, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PHONE, page_factory

pytestmark = pytest.mark.e2e


def test_an_answer_shows_its_usage_and_the_chat_its_context_meter(page: Page) -> None:
    open_chat(page)
    send(page, "#usage 4321\n#say counted")
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "usage-prompt")).to_have_text("4,321 in")
    expect(tid(page, "context-meter-value")).to_have_text("4.3k/131.1k")
    expect(tid(page, "context-meter")).to_have_attribute("data-level", "ok")

    page.reload()
    expect(tid(last_assistant(page), "usage-prompt")).to_have_text("4,321 in")
    expect(tid(page, "context-meter-value")).to_have_text("4.3k/131.1k")


def test_models_page_sets_max_output_and_reasoning_effort(page: Page, e2e_stack: E2EStack) -> None:
    page.goto("/models")
    tid(page, "model-add").click()
    form = tid(page, "model-form")
    tid(form, "model-name").fill("tuned model")
    tid(form, "model-base-url").fill(e2e_stack.scripted_url)
    tid(form, "model-model-name").fill("scripted")
    tid(form, "model-max-output").fill("2048")
    effort = tid(form, "model-reasoning-effort")
    effort.click()
    option = page.locator(".n-base-select-option").filter(has_text=re.compile(r"^high$"))
    expect(option).to_be_visible()
    settled_box(option)  # the menu slides in: a click during the slide can miss
    option.click()
    expect(effort).to_contain_text("high")  # chosen before the form is saved
    tid(form, "model-save").click()

    row = tid(page, "model-row").filter(has_text="tuned model")
    expect(tid(row, "model-options")).to_contain_text("Max output tokens: 2048")
    expect(tid(row, "model-options")).to_contain_text("Reasoning effort: high")
    tid(row, "model-delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(row).to_have_count(0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_touch_screen_reads_what_the_usage_figures_mean(
    browser: Browser, e2e_stack: E2EStack, scheme: str
) -> None:
    with page_factory(browser, e2e_stack) as make:
        page = make(PHONE, scheme)  # a touch screen: no hover, no title tooltips
        open_chat(page)
        send(page, "#usage 4321\n#say counted")
        reply = last_assistant(page)
        wait_finished(reply, "SUCCESS")
        tid(reply, "message-usage").click()
        expect(tid(reply, "usage-explained")).to_be_visible()
        expect(tid(reply, "usage-explained")).to_contain_text("Tokens this answer used")
        tid(page, "context-meter").click()
        expect(tid(page, "context-explained")).to_be_visible()
        expect(tid(page, "context-explained")).to_contain_text("compacts older turns")
