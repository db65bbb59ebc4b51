"""A page people use every day (issue 16): the main stories on a phone (390x844) and a desktop
(1366x800) in light and dark, the calm thinking panel, words in the page's language, and
axe-core finding no serious or critical violation on the chat, models and skills pages."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e import seed
from tests.e2e.pages import last_assistant, open_chat, send, session_row, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import (
    DEMO_NAME,
    DESKTOP,
    LONG_TITLE,
    PHONE,
    SIZES,
    PageFactory,
    builtin_demo_model,
    run_axe,
    seed_showcase,
    sideways_overflow,
)

pytestmark = pytest.mark.e2e

DARK_BACKGROUND = "rgb(15, 17, 21)"
LIGHT_BACKGROUND = "rgb(255, 255, 255)"


@pytest.fixture(scope="module")
def showcase(e2e_stack: E2EStack) -> int:
    return seed_showcase(e2e_stack.database)


def check_showcase_answer(page: Page) -> None:
    """The first answer: a folded one-line summary; expanded, two steps with formatted tools."""
    answers = tid(page, "assistant-message")
    expect(answers).to_have_count(3)
    first, plain, failed = answers.nth(0), answers.nth(1), answers.nth(2)
    summary = tid(first, "thinking-summary")
    expect(summary).to_have_text("Thought for 43 s · 3 tool calls")
    expect(tid(plain, "thinking-panel")).to_have_count(0)  # nothing to show: nothing shown
    expect(tid(failed, "thinking-panel")).to_have_count(0)
    record = tid(first, "clarify-answered")  # visible without opening the panel
    expect(record).to_be_visible()
    expect(record).to_contain_text("Celsius or Fahrenheit?")
    expect(record).to_contain_text("Celsius")

    summary.click()
    steps = tid(first, "run-step")
    expect(steps).to_have_count(2)
    expect(tid(steps.nth(0), "thinking-stream")).to_have_text(
        "The user wants the weather. I should look it up first."
    )
    expect(tid(steps.nth(1), "thinking-stream")).to_contain_text("in Celsius")
    search = first.locator('[data-testid="tool-call"][data-tool="web_search"]')
    expect(search).to_contain_text('query: "weather Lyon", limit: 3')
    expect(search).to_contain_text("1.2 s")
    search.locator("summary").first.click()
    expect(tid(search, "tool-args")).to_contain_text('query: "weather Lyon"')
    expect(tid(search, "tool-result")).to_contain_text('title: "Lyon forecast"')
    expect(first.locator('[data-tool="memory"]')).to_contain_text("35 ms")

    expect(tid(failed, "message-error")).to_contain_text("Wait a minute, then press Retry")
    expect(tid(failed, "retry-button")).to_be_visible()
    note = tid(first, "answer").locator(".blocked-image")
    expect(note).to_contain_text("https://example.invalid/radar.png")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_chat_in_every_size_and_theme(
    make_page: PageFactory, showcase: int, size: str, scheme: str, screenshots: Path
) -> None:
    page = make_page(SIZES[size], scheme)
    open_chat(page, showcase)
    expect(page.locator("html")).to_have_attribute("data-theme", scheme)
    background = DARK_BACKGROUND if scheme == "dark" else LIGHT_BACKGROUND
    expect(page.locator("body")).to_have_css("background-color", background)
    title = tid(page, "conversation-title")
    expect(title).to_have_attribute("title", LONG_TITLE)
    assert title.evaluate("(el) => el.scrollWidth > el.clientWidth")  # cut with an ellipsis
    assert sideways_overflow(page) == 0

    box = tid(page, "composer-input").bounding_box()
    assert box is not None
    if size == "phone":
        assert box["width"] > PHONE["width"] - 60, box  # the text box takes the width
        expect(tid(page, "session-item").first).to_be_hidden()  # the list is a drawer
        tid(page, "menu-button").click()
        row = session_row(page, showcase)
        expect(row).to_be_visible()
        page.screenshot(path=screenshots / f"ui-{size}-{scheme}-drawer.png", animations="disabled")
        assert run_axe(page) == []
        tid(row, "session-title").click()
        expect(row).to_be_hidden()
    else:
        assert box["width"] > 600, box
        expect(tid(page, "menu-button")).to_be_hidden()

    check_showcase_answer(page)
    page.screenshot(path=screenshots / f"ui-{size}-{scheme}-chat.png")
    first = tid(page, "assistant-message").first
    tid(first, "thinking-summary").click()  # folds again
    expect(tid(first, "run-step")).to_have_count(0)
    first.evaluate("(el) => el.scrollIntoView({ block: 'start' })")
    page.screenshot(path=screenshots / f"ui-{size}-{scheme}-answer.png")
    assert run_axe(page) == []
    tid(page, "jump-latest").click()
    expect(tid(page, "jump-latest")).to_have_count(0)
    page.screenshot(path=screenshots / f"ui-{size}-{scheme}-chat-end.png")
    if size == "phone":
        page.set_viewport_size({"width": 360, "height": 740})
        assert sideways_overflow(page) == 0


def test_the_theme_follows_the_system_until_chosen_and_is_remembered(
    make_page: PageFactory,
) -> None:
    page = make_page(DESKTOP, "dark")
    open_chat(page)
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")  # the system's
    tid(page, "theme-switch").click()
    tid(page, "theme-light").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    page.reload()
    expect(tid(page, "composer")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    tid(page, "theme-switch").click()
    tid(page, "theme-system").click()
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_models_and_skills_pages_have_no_serious_violations(
    make_page: PageFactory, scheme: str, screenshots: Path
) -> None:
    page = make_page(DESKTOP, scheme)
    page.goto("/models")
    expect(tid(page, "model-row").first).to_be_visible()
    page.screenshot(path=screenshots / f"ui-models-{scheme}.png")
    assert run_axe(page) == []
    page.goto("/skills")
    tid(page, "skill-item").first.click()
    expect(tid(page, "skill-content")).to_be_visible()
    assert run_axe(page) == []

    phone = make_page(PHONE, scheme)
    phone.goto("/models")
    expect(tid(phone, "model-row").first).to_be_visible()
    assert sideways_overflow(phone) == 0
    phone.screenshot(path=screenshots / f"ui-models-phone-{scheme}.png")


def test_words_follow_the_chinese_page(
    make_page: PageFactory, showcase: int, screenshots: Path
) -> None:
    page = make_page(DESKTOP, "light", storage={"agentchat.locale": "zh"})
    open_chat(page, showcase)
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    first = tid(page, "assistant-message").first
    expect(tid(first, "thinking-summary")).to_have_text("思考了 43 秒 · 3 次工具调用")
    expect(first.locator("button[data-copy-code]")).to_have_text("复制")
    expect(tid(first, "answer").locator(".blocked-image")).to_contain_text("未加载外部网站的图片")
    expect(tid(tid(page, "assistant-message").last, "message-error")).to_contain_text("请求过多")
    tid(page, "memory-button").click()
    page.locator(".n-tabs-tab").filter(has_text="会话统计").click()
    stats = tid(page, "session-stats")
    expect(stats).to_contain_text("当前分支消息数")
    expect(stats).to_contain_text("输入 Token")
    expect(stats).not_to_contain_text("activeBranchMessages")
    expect(stats).not_to_contain_text("promptTokens")
    page.screenshot(path=screenshots / "ui-memory-stats-zh.png")


def test_an_unknown_chat_says_so(page: Page) -> None:
    page.goto("/chat/999999")
    expect(tid(page, "session-not-found")).to_be_visible()
    expect(tid(page, "session-not-found")).to_contain_text("This chat does not exist")
    expect(tid(page, "conversation-title")).to_have_text("Chat")
    expect(page.locator(".n-message").first).to_contain_text("This chat does not exist")


def test_the_model_picker_shows_whole_names_and_the_demo_is_announced(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    default = next(m for m in e2e_stack.call("GET", "/api/models") if m["isDefault"])
    with builtin_demo_model(e2e_stack) as demo:
        page = make_page(DESKTOP)
        open_chat(page)
        select = tid(page, "model-select")
        expect(select).to_contain_text(f"Default: {default['name']}")
        expect(tid(page, "demo-notice")).to_have_count(0)
        select.click()
        option = page.locator(".n-base-select-option").filter(has_text=DEMO_NAME)
        expect(option).to_contain_text(demo["modelName"])
        assert option.evaluate("(el) => el.scrollWidth <= el.clientWidth + 1")  # not cut
        option.click()
        notice = tid(page, "demo-notice")
        expect(notice).to_contain_text("not a real LLM")
        expect(notice.get_by_role("link")).to_have_attribute("href", "/models")


def test_escape_stops_the_run_and_the_jump_button_returns_to_the_latest(page: Page) -> None:
    open_chat(page)
    send(page, "#delay 50\n#tokens 400")
    reply = last_assistant(page)
    expect(tid(reply, "answer")).to_contain_text("t30 ")
    expect(tid(page, "jump-latest")).to_have_count(0)
    page.keyboard.press("Escape")
    wait_finished(reply, "STOPPED")

    page.set_viewport_size({"width": 1280, "height": 420})
    send(page, "#tokens 300")
    wait_finished(last_assistant(page), "SUCCESS")
    tid(page, "message-list").evaluate("(el) => { el.scrollTop = 0 }")
    jump = tid(page, "jump-latest")
    expect(jump).to_be_visible()
    jump.click()
    expect(jump).to_have_count(0)
    at_bottom = "(el) => el.scrollHeight - el.scrollTop - el.clientHeight < 80"
    assert tid(page, "message-list").evaluate(at_bottom)


# After a reload the session list (which follows every live run) answers before the chat.
SLOW_SESSION_DETAIL = """
const realFetch = window.fetch
window.fetch = (url, init) => /\\/api\\/chat\\/sessions\\/\\d+$/.test(String(url))
  ? new Promise((done) => setTimeout(done, 1500)).then(() => realFetch(url, init))
  : realFetch(url, init)
"""


def test_the_duration_survives_a_reload_mid_run(page: Page) -> None:
    open_chat(page)
    send(page, "#think planning the count\n#delay 100\n#tokens 50")
    reply = last_assistant(page)
    expect(tid(reply, "answer")).to_contain_text("t15 ")  # about 1.5 s in
    page.add_init_script(SLOW_SESSION_DETAIL)
    page.reload()
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    summary = tid(reply, "thinking-summary").inner_text()
    seconds = int(summary.split("Thought for ", 1)[1].split(" s", 1)[0])
    assert seconds >= 4, summary  # the whole run, not the time since the reload


def test_row_actions_are_labelled_and_reachable_by_keyboard(
    page: Page, e2e_stack: E2EStack
) -> None:
    session_id = e2e_stack.new_session("keyboard row")
    open_chat(page)
    row = session_row(page, session_id)
    row.locator(".session-open").focus()
    page.keyboard.press("Tab")
    rename = tid(row, "session-rename")
    expect(rename).to_be_focused()
    expect(rename).to_have_attribute("aria-label", "Rename")
    expect(tid(row, "session-archive")).to_have_attribute("aria-label", "Archive")
    expect(tid(row, "session-delete")).to_have_attribute("aria-label", "Delete")
    rename.hover()
    expect(page.get_by_role("tooltip").or_(page.locator(".n-tooltip"))).to_contain_text("Rename")
    page.keyboard.press("Enter")
    box = tid(row, "session-rename-input").locator("input")
    expect(box).to_be_focused()
    box.fill("renamed by keyboard")
    box.press("Enter")
    expect(tid(row, "session-title")).to_have_text("renamed by keyboard")


WIDE_TABLE = """Here is the plan:

| Step | Command | Notes |
|---|---|---|
| 1 | `pip install a-very-long-package-name-that-goes-on-and-on-and-on` | first |
| 2 | `curl -sSL https://example.com/a/very/long/url/that/never/breaks/install.sh` | then |
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_wide_table_on_a_phone_scrolls_sideways_with_whole_words(
    make_page: PageFactory, e2e_stack: E2EStack, scheme: str, screenshots: Path
) -> None:
    """The answer's text may break anywhere (a long URL must not widen the page), but a table
    took that too: squeezed to the phone's width, its headers broke inside words ("St|ep",
    "Note|s"). The table keeps its words whole and scrolls sideways by itself."""
    db = e2e_stack.database
    session_id = seed.new_session(db, "A wide table")
    question = seed.append(db, session_id, None, "USER", "How do I install it?", "SENT")
    seed.append(db, session_id, question, "ASSISTANT", WIDE_TABLE, "SUCCESS")
    page = make_page(PHONE, scheme)
    open_chat(page, session_id)
    table = tid(last_assistant(page), "answer").locator("table")
    expect(table).to_be_visible()
    for header in ("Step", "Command", "Notes"):
        cell = table.locator("th", has_text=header)
        lines = cell.evaluate(
            "(th) => { const r = document.createRange(); r.selectNodeContents(th);"
            " return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; }"
        )
        assert lines == 1, f"{header!r} is broken over {lines} lines"
    assert table.evaluate("(el) => el.scrollWidth > el.clientWidth")  # it scrolls by itself
    assert sideways_overflow(page) == 0  # the page does not
    page.screenshot(path=screenshots / f"ui-phone-{scheme}-wide-table.png")


@pytest.mark.parametrize(("size", "scheme"), [("desktop", "light"), ("phone", "dark")])
def test_the_model_form_the_memory_drawer_and_a_waiting_chat_have_no_serious_violations(
    make_page: PageFactory, size: str, scheme: str
) -> None:
    page = make_page(SIZES[size], scheme)
    page.goto("/models")
    tid(page, "model-add").click()
    expect(tid(page, "model-form")).to_be_visible()
    assert run_axe(page) == []
    tid(page, "model-form").get_by_role("button", name="Cancel").click()

    open_chat(page)
    send(page, "#clarify Which colour? | red | blue")
    reply = last_assistant(page)
    expect(tid(reply, "clarify-panel")).to_be_visible()
    if size == "phone":
        tid(page, "menu-button").click()
    expect(tid(page, "session-waiting")).to_be_visible()
    assert run_axe(page) == []
    if size == "phone":
        tid(page, "drawer-close").click()
    tid(page, "memory-button").click()
    expect(tid(page, "memory-drawer")).to_be_visible()
    assert run_axe(page) == []
    page.keyboard.press("Escape")
    tid(tid(reply, "clarify-panel"), "clarify-choice").first.click()
    wait_finished(reply, "SUCCESS")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_context_meter_lines_up_with_the_composer_and_can_be_read(
    make_page: PageFactory, scheme: str
) -> None:
    page = make_page(DESKTOP, scheme)
    open_chat(page)
    send(page, "#usage 110000\n#say nearly full")
    wait_finished(last_assistant(page), "SUCCESS")
    meter = tid(page, "context-meter")
    expect(meter).to_have_attribute("data-level", "near")
    own, column = meter.bounding_box(), page.locator(".composer-box").bounding_box()
    assert own is not None and column is not None
    assert abs(own["x"] - column["x"]) <= 2, (own, column)  # the composer's column...
    assert own["x"] + own["width"] <= column["x"] + column["width"] + 2  # ...not the page's
    assert run_axe(page) == []  # the contrast of its words, light and dark
