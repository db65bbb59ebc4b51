"""The Models form says what is wrong on the field itself, in the page's language, and nothing
of it lingers after a good save; a failed Test shows in the model's row with a hint that fits its
URL; and the page's own words are in its language everywhere (issue 33: pydantic's "Value
error" toasts; on the Chinese page the server's "No answer from…", the demo model's English name
and the screen-reader labels "close" and "loading")."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import open_chat, session_row, tid
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import SIZES, PageFactory, builtin_demo_model

pytestmark = pytest.mark.e2e

ZH = {"agentchat.locale": "zh"}
WORDS = {
    "en": {
        "scheme": "http:// or https://",
        "most": "At most 1,000,000",
        "v1": "usually end in /v1",
        "no_answer": "No model API answered",
    },
    "zh": {
        "scheme": "http:// 或 https://",
        "most": "最多 1,000,000",
        "v1": "/v1",
        "no_answer": "没有模型 API 响应",
    },
}


def field_feedback(page: Page, testid: str) -> str:
    item = page.locator(".n-form-item").filter(has=tid(page, testid))
    return item.locator(".n-form-item-feedback").inner_text()


@pytest.mark.parametrize(
    ("locale", "size", "scheme"), [("en", "desktop", "light"), ("zh", "phone", "dark")]
)
def test_a_refused_model_form_says_so_on_its_fields_and_a_good_save_clears_it(
    make_page: PageFactory, e2e_stack: E2EStack, locale: str, size: str, scheme: str
) -> None:
    words = WORDS[locale]
    page = make_page(SIZES[size], scheme, storage={"agentchat.locale": locale})
    page.goto("/models")
    tid(page, "model-add").click()
    tid(page, "model-name").fill(f"form check {locale}")
    tid(page, "model-base-url").fill("ftp://models.example")
    tid(page, "model-model-name").fill("tiny")
    tid(page, "model-max-output").fill("2000000")
    tid(page, "model-save").click()
    expect(page.locator(".n-form-item-feedback").first).to_be_visible()
    assert words["scheme"] in field_feedback(page, "model-base-url")
    assert words["most"] in field_feedback(page, "model-max-output")
    expect(page.locator(".n-message")).to_have_count(0)  # no toast, no "Value error"
    expect(page.get_by_text("Value error")).to_have_count(0)

    tid(page, "model-base-url").fill(f"{e2e_stack.scripted_url}")
    expect(page.locator(".n-form-item-feedback").filter(has_text=words["scheme"])).to_have_count(0)
    tid(page, "model-max-output").fill("")
    tid(page, "model-save").click()
    expect(tid(page, "model-form")).to_have_count(0)
    expect(page.locator(".n-message").filter(has_text=words["scheme"])).to_have_count(0)
    row = tid(page, "model-row").filter(has_text=f"form check {locale}")
    expect(row).to_have_count(1)


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_a_failed_test_shows_in_the_row_with_a_hint_that_fits_the_url(
    make_page: PageFactory, e2e_stack: E2EStack, locale: str
) -> None:
    words = WORDS[locale]
    closed = "http://127.0.0.1:9"  # the discard port: nothing answers
    ids = {}
    for name, url in (("with v1", f"{closed}/v1"), ("without v1", f"{closed}/api")):
        body = {"name": f"{name} {locale}", "baseUrl": url, "modelName": "m"}
        ids[name] = e2e_stack.call("POST", "/api/models", body, expect=201)["id"]
    page = make_page(SIZES["desktop"], storage={"agentchat.locale": locale})
    page.goto("/models")
    for name, model_id in ids.items():
        row = page.locator(f'[data-testid="model-row"][data-model-id="{model_id}"]')
        tid(row, "model-test").click()
        result = tid(row, "model-test-result")
        expect(result).to_contain_text(words["no_answer"])
        if name == "with v1":
            expect(result).not_to_contain_text(words["v1"])
        else:
            expect(result).to_contain_text(words["v1"])
        expect(result).not_to_contain_text("No answer from")  # the server's English stays out
        e2e_stack.call("DELETE", f"/api/models/{model_id}", expect=204)


def test_the_chinese_page_names_the_built_in_demo_model_in_chinese(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    with builtin_demo_model(e2e_stack) as demo:
        e2e_stack.call("PATCH", f"/api/models/{demo['id']}", {"isDefault": True})
        try:
            page = make_page(SIZES["desktop"], storage=ZH)
            open_chat(page)
            select = tid(page, "model-select")
            expect(select).to_contain_text("脚本演示模型")
            expect(select).not_to_contain_text("Scripted demo model")
            page.goto("/models")
            row = page.locator(f'[data-testid="model-row"][data-model-id="{demo["id"]}"]')
            expect(row).to_contain_text("脚本演示模型")
        finally:
            body = {"isDefault": True}
            e2e_stack.call("PATCH", f"/api/models/{e2e_stack.model_id}", body)


def test_screen_reader_labels_are_in_the_pages_language(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("labels")
    page = make_page(SIZES["desktop"], storage=ZH)
    open_chat(page, session_id)
    tid(page, "session-search").fill("lab")
    expect(page.locator('[aria-label="close"], [aria-label="loading"]')).to_have_count(0)
    tid(session_row(page, session_id), "session-delete").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator('[aria-label="关闭"]')).to_have_count(1)
    expect(page.locator('[aria-label="close"], [aria-label="loading"]')).to_have_count(0)
