"""Page helpers: the locators of frontend/TESTIDS.md and the few steps every test repeats."""

from __future__ import annotations

import re

from playwright.sync_api import Download, Locator, Page, expect

DONE = re.compile(r"^(SUCCESS|FAILED|STOPPED)$")


def tid(page: Page | Locator, testid: str) -> Locator:
    return page.get_by_test_id(testid)


def open_chat(page: Page, session_id: int | None = None) -> None:
    page.goto(f"/chat/{session_id}" if session_id else "/chat")
    expect(tid(page, "composer")).to_be_visible()
    if session_id:
        expect(tid(page, "message-list")).to_have_attribute("data-session-id", str(session_id))


TOUCH = "() => matchMedia('(hover: none) and (pointer: coarse)').matches"


def send(page: Page, text: str) -> None:
    """Type the question and send it: Enter, or on a touch screen (where Enter is a new line)
    the send button. Returns once the page shows it, with its answer's place: until then
    `last_assistant` is still the previous answer, which a caller would wait on instead."""
    box = tid(page, "composer-input")
    expect(box).to_be_enabled()
    questions = tid(page, "user-message")
    before = questions.count()
    box.fill(text)
    if page.evaluate(TOUCH):
        tid(page, "send-button").click()
    else:
        box.press("Enter")
    expect(questions).to_have_count(before + 1)


def assistants(page: Page) -> Locator:
    return tid(page, "assistant-message")


def last_assistant(page: Page) -> Locator:
    return assistants(page).last


def wait_finished(message: Locator, status: str | re.Pattern[str] = DONE) -> None:
    expect(message).to_have_attribute("data-status", status)


def session_row(page: Page, session_id: int) -> Locator:
    return page.locator(f'[data-testid="session-item"][data-session-id="{session_id}"]')


def current_session_id(page: Page) -> int:
    page.wait_for_url(re.compile(r"/chat/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def settled_box(target: Locator, timeout_s: float = 10.0) -> dict[str, float]:
    """The element's box once it stopped moving (a drawer slides in): three animation frames
    in a row with the same box and no animation running on it or on a parent. (Two equal frames
    were not enough: a transition starts a frame or two after the element appears, so a busy
    machine could measure the drawer where it starts from.)"""
    handle = target.element_handle(timeout=timeout_s * 1000)
    assert handle is not None
    box = handle.evaluate(
        """(el) => new Promise((resolve) => {
            const moving = () => document.getAnimations().some((a) =>
                a.playState === 'running' && a.effect?.target?.contains(el));
            let last = null, still = 0;
            const tick = () => {
                const r = el.getBoundingClientRect();
                const now = [r.x, r.y, r.width, r.height].join();
                still = now === last && !moving() ? still + 1 : 0;
                if (still >= 2) return resolve(r.toJSON());
                last = now;
                requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
        })"""
    )
    return {k: float(v) for k, v in box.items()}


def assert_on_screen(page: Page, target: Locator, slack: float = 0.5) -> None:
    """The whole of `target`, once it stopped moving, lies inside the viewport (`slack`: the
    pixels of rounding allowed past its right and bottom edges)."""
    box, size = settled_box(target), page.viewport_size
    assert size is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"] + slack, box
    assert box["y"] + box["height"] <= size["height"] + slack, box


def export(page: Page, item: str) -> Download:
    """The file the chat's export menu downloads for its entry `item` (a test id)."""
    tid(page, "export-button").click()
    with page.expect_download() as download:
        tid(page, item).click()
    return download.value
