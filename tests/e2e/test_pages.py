"""The session list (new, rename, search, archive, delete), the models page (the key is
write-only) and the skills page, plus the agent's toolsets shown beside the composer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Response, expect

from tests.e2e.pages import current_session_id, open_chat, send, session_row, tid
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

SECRET = "sk-e2e-very-secret-key-4321"


def search(page: Page, text: str) -> None:
    tid(page, "session-search").fill(text)


def _session_count(e2e_stack: E2EStack) -> int:
    return len(e2e_stack.http.get("/api/chat/sessions?status=ALL&limit=200").json()["items"])


def test_session_list_new_rename_search_archive_delete(page: Page, e2e_stack: E2EStack) -> None:
    e2e_stack.new_session("zebra notes")
    open_chat(page, e2e_stack.new_session("elsewhere"))
    before = _session_count(e2e_stack)
    tid(page, "new-session").click()
    expect(page).to_have_url(re.compile(r"/chat$"))
    tid(page, "new-session").click()
    assert _session_count(e2e_stack) == before  # no row until the first message is sent
    send(page, "Plan my week please, thank you kindly\n#say the marmalade answer")
    created = current_session_id(page)
    row = session_row(page, created)
    expect(row).to_have_attribute("aria-current", "page")
    expect(tid(page, "session-item").first).to_have_attribute("data-session-id", str(created))
    expect(tid(row, "session-title")).to_have_text("Plan my week please, thank you…")
    assert _session_count(e2e_stack) == before + 1

    tid(row, "session-title").dblclick()
    box = tid(row, "session-rename-input").locator("input")
    box.fill("quokka plans")
    box.press("Enter")
    expect(tid(row, "session-title")).to_have_text("quokka plans")
    expect(tid(page, "conversation-title")).to_have_text("quokka plans")
    assert e2e_stack.session(created)["session"]["title"] == "quokka plans"

    search(page, "quokka")
    expect(tid(page, "session-item")).to_have_count(1)
    search(page, "marmalade")  # a word of the answer, not of the title
    expect(tid(page, "session-title")).to_have_text(["quokka plans"])
    search(page, "zebra")
    expect(tid(page, "session-title")).to_have_text(["zebra notes"])
    search(page, "quokka")
    expect(tid(page, "session-item")).to_have_count(1)

    row.hover()
    tid(row, "session-archive").click()
    expect(tid(page, "session-item")).to_have_count(0)
    assert e2e_stack.session(created)["session"]["status"] == "ARCHIVED"
    tid(page, "show-archived").click()
    expect(tid(page, "session-title")).to_have_text(["quokka plans"])

    row.hover()
    tid(row, "session-delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(tid(page, "session-item")).to_have_count(0)
    gone = e2e_stack.http.get(f"/api/chat/sessions/{created}")
    assert gone.status_code == 404
    expect(page).to_have_url(re.compile(r"/chat$"))


def test_models_page_add_edit_test_delete_never_shows_the_key(
    page: Page, e2e_stack: E2EStack, screenshots: Path
) -> None:
    bodies: list[str] = []

    def keep(response: Response) -> None:
        if "/api/models" in response.url:
            bodies.append(response.text())

    page.on("response", keep)
    page.goto("/models")
    expect(tid(page, "model-row").first).to_be_visible()
    tid(page, "model-add").click()
    form = tid(page, "model-form")
    tid(form, "model-name").fill("e2e model")
    tid(form, "model-base-url").fill(e2e_stack.scripted_url)
    tid(form, "model-model-name").fill("scripted")
    tid(form, "model-api-key").fill(SECRET)
    tid(form, "model-save").click()

    row = tid(page, "model-row").filter(has_text="e2e model")
    expect(row).to_have_count(1)
    expect(tid(row, "model-key")).to_have_text("stored (…4321)")
    page.screenshot(path=screenshots / "models-page.png")

    tid(row, "model-edit").click()
    expect(tid(form, "model-api-key")).to_have_value("")
    expect(tid(form, "model-api-key")).to_have_attribute("placeholder", re.compile("keep"))
    tid(form, "model-name").fill("e2e model renamed")
    tid(form, "model-save").click()
    row = tid(page, "model-row").filter(has_text="e2e model renamed")
    expect(tid(row, "model-key")).to_have_text("stored (…4321)")  # kept: the form sent no key

    tid(row, "model-test").click()
    expect(page.get_by_text(re.compile(r"The model answered in \d+ ms"))).to_be_visible()

    tid(row, "model-delete").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(tid(page, "model-row").filter(has_text="e2e model renamed")).to_have_count(0)
    assert SECRET not in page.content()
    assert bodies and not [b for b in bodies if SECRET in b or SECRET[-8:] in b]


def test_skills_page_lists_and_reads_skills(page: Page, screenshots: Path) -> None:
    page.goto("/skills")
    items = tid(page, "skill-item")
    expect(items.first).to_be_visible()
    folder = items.first.get_attribute("data-folder")
    items.first.click()
    expect(items.first).to_have_class(re.compile("active"))
    content = tid(page, "skill-content")
    expect(content).to_be_visible()
    expect(content).not_to_be_empty()
    expect(content).not_to_contain_text("description:")  # front matter is not the body
    assert folder
    page.screenshot(path=screenshots / "skills-page.png")


def test_the_composer_shows_the_agent_toolsets(page: Page, e2e_stack: E2EStack) -> None:
    toolsets = e2e_stack.call("GET", "/api/info")["toolsets"]
    open_chat(page)
    expect(tid(page, "toolsets")).to_have_text(f"Tools: {', '.join(toolsets)}")
    assert toolsets == ["clarify", "todo", "memory", "skills"]


def test_language_switch_to_chinese(page: Page) -> None:
    open_chat(page)
    tid(page, "language-select").click()
    page.get_by_text("中文", exact=True).click()
    expect(tid(page, "nav-chat")).to_have_text("对话")
    expect(tid(page, "new-session")).to_contain_text("新建会话")
    expect(tid(page, "toolsets")).to_contain_text("工具\uff1a")  # full-width colon
