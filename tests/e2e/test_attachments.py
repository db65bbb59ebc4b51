"""Attachments in the browser: the picker, a pasted screenshot and a dropped file become chips
(a thumbnail for an image, removable before sending); the question goes with them, the model
that sees images gets the image's bytes, and after a reload the question shows the image,
which opens full size. On a phone the camera is offered. Desktop and phone, light and dark."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from PIL import Image
from playwright.sync_api import Page, expect

from tests.e2e.pages import (
    current_session_id,
    export,
    last_assistant,
    open_chat,
    tid,
    wait_finished,
)
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import DESKTOP, PHONE, PageFactory

pytestmark = pytest.mark.e2e


def _png(width: int, height: int, colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, "PNG")
    return out.getvalue()


@contextmanager
def _sees_images(stack: E2EStack) -> Iterator[None]:
    stack.call("PATCH", f"/api/models/{stack.model_id}", {"vision": True})
    try:
        yield
    finally:
        stack.call("PATCH", f"/api/models/{stack.model_id}", {"vision": None})


def _ready_chips(page: Page, count: int) -> None:
    chips = tid(page, "attachment-chip")
    expect(chips).to_have_count(count)
    for i in range(count):
        expect(chips.nth(i)).to_have_attribute("data-state", "ready")


def _send_button(page: Page, text: str) -> None:
    tid(page, "composer-input").fill(text)
    before = tid(page, "user-message").count()
    tid(page, "send-button").click()
    expect(tid(page, "user-message")).to_have_count(before + 1)


def _drop_or_paste(page: Page, target: str, event: str, name: str, data: bytes, kind: str) -> None:
    """A drop on the conversation or a paste into the box, carrying one file."""
    page.evaluate(
        """([selector, event, name, b64, kind]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
            const transfer = new DataTransfer()
            transfer.items.add(new File([bytes], name, { type: kind }))
            const target = document.querySelector(selector)
            const init = { bubbles: true, cancelable: true }
            const e = event === 'paste'
              ? new ClipboardEvent('paste', { ...init, clipboardData: transfer })
              : new DragEvent('drop', { ...init, dataTransfer: transfer })
            target.dispatchEvent(e)
        }""",
        [target, event, name, base64.b64encode(data).decode(), kind],
    )


@pytest.mark.parametrize(
    ("size", "scheme"),
    [(DESKTOP, "light"), (DESKTOP, "dark"), (PHONE, "light"), (PHONE, "dark")],
    ids=["desktop-light", "desktop-dark", "phone-light", "phone-dark"],
)
def test_picked_files_are_chips_then_the_question_shows_them_after_a_reload(
    make_page: PageFactory, e2e_stack: E2EStack, size: dict[str, int], scheme: str
) -> None:
    image = _png(48, 32, "orange")
    page = make_page(size, scheme)
    open_chat(page)
    expect(tid(page, "vision-note")).to_have_count(0)
    tid(page, "attach-input").set_input_files(
        [
            {"name": "chart.png", "mimeType": "image/png", "buffer": image},
            {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"remove me"},
        ]
    )
    _ready_chips(page, 2)
    expect(tid(page, "attachment-thumb")).to_have_count(1)
    expect(tid(page, "vision-note")).to_be_visible()  # the scripted model is text-only
    tid(page, "attachment-remove").nth(1).click()
    _ready_chips(page, 1)

    with _sees_images(e2e_stack):
        _send_button(page, "#echo-parts")
        answer = last_assistant(page)
        wait_finished(answer, "SUCCESS")
    expect(tid(page, "attachment-chip")).to_have_count(0)
    stored = e2e_stack.call("GET", f"/api/chat/sessions/{page.url.rsplit('/', 1)[1]}")
    sent = stored["messages"][0]["attachments"][0]
    expect(tid(answer, "answer")).to_contain_text(f"image/png:{sent['digest']}")

    page.reload()
    shown = tid(page, "attachment-image")
    expect(shown.locator("img")).to_be_visible()
    shown.click()
    full = tid(page, "full-image")
    expect(full).to_be_visible()
    page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 0", arg=full.element_handle()
    )
    assert full.evaluate("(img) => [img.naturalWidth, img.naturalHeight]") == [48, 32]
    assert (
        sent["digest"]
        == hashlib.sha256(
            bytes(
                e2e_stack.http.get(
                    f"/api/chat/sessions/{sent['sessionId']}/attachments/{sent['id']}"
                ).content
            )
        ).hexdigest()
    )


def test_a_pasted_screenshot_and_a_dropped_file_are_attached(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    page = make_page(DESKTOP, "light")
    open_chat(page)
    _drop_or_paste(
        page,
        '[data-testid="composer-input"]',
        "paste",
        "image.png",
        _png(20, 20, "red"),
        "image/png",
    )
    _ready_chips(page, 1)
    expect(tid(page, "attachment-chip").first).to_contain_text("screenshot-")
    _drop_or_paste(
        page, '[data-testid="conversation"]', "drop", "data.csv", b"a,b\n1,2\n", "text/csv"
    )
    _ready_chips(page, 2)

    _send_button(page, "What is in data.csv?\n#echo-context")

    answer = last_assistant(page)
    wait_finished(answer, "SUCCESS")
    expect(tid(answer, "answer")).to_contain_text("a,b")
    files = tid(page, "message-attachment")
    expect(files).to_have_count(2)
    expect(files.nth(1)).to_have_attribute("data-delivery", "inline")

    archive = zipfile.ZipFile(export(page, "export-zip").path())
    assert any(name.endswith("-data.csv") for name in archive.namelist())
    assert {"chat.md", "chat.json"} <= set(archive.namelist())


def test_a_phone_offers_its_camera(make_page: PageFactory) -> None:
    page = make_page(PHONE, "light")
    open_chat(page)
    expect(tid(page, "camera-button")).to_be_visible()
    camera = tid(page, "camera-input")
    expect(camera).to_have_attribute("capture", "environment")
    expect(camera).to_have_attribute("accept", "image/*")
    camera.set_input_files(
        [{"name": "photo.jpg", "mimeType": "image/png", "buffer": _png(10, 10, "blue")}]
    )
    _ready_chips(page, 1)
    expect(tid(page, "attachment-thumb")).to_be_visible()


def test_files_added_but_not_sent_come_back_after_a_reload_and_a_visit_elsewhere(
    make_page: PageFactory, e2e_stack: E2EStack
) -> None:
    """A draft keeps its files as it keeps its text: a reload, or a visit to another chat and
    back, shows the box's chips again (thumbnail included); a removed one stays removed, and
    once sent they are the question's, not the box's."""
    page = make_page(DESKTOP, "light")
    open_chat(page)
    tid(page, "attach-input").set_input_files(
        [
            {"name": "chart.png", "mimeType": "image/png", "buffer": _png(30, 20, "green")},
            {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"kept in the box"},
            {"name": "drop.txt", "mimeType": "text/plain", "buffer": b"taken out"},
        ]
    )
    _ready_chips(page, 3)
    chat = current_session_id(page)
    tid(page, "attachment-remove").nth(2).click()
    _ready_chips(page, 2)
    tid(page, "composer-input").fill("What do these say?")

    page.reload()
    _ready_chips(page, 2)
    names = tid(page, "attachment-chip").evaluate_all("(chips) => chips.map((c) => c.title)")
    assert sorted(names) == ["chart.png", "notes.txt"]
    expect(tid(page, "attachment-thumb")).to_have_count(1)
    page.wait_for_function(
        "(img) => img.complete && img.naturalWidth > 0",
        arg=tid(page, "attachment-thumb").element_handle(),
    )
    expect(tid(page, "composer-input")).to_have_value("What do these say?")

    open_chat(page)  # another (new) chat: its box is empty
    expect(tid(page, "attachment-chip")).to_have_count(0)
    open_chat(page, chat)
    _ready_chips(page, 2)

    _send_button(page, "#echo-context")
    wait_finished(last_assistant(page), "SUCCESS")
    expect(tid(page, "attachment-chip")).to_have_count(0)
    expect(tid(page, "message-attachment")).to_have_count(2)
    page.reload()
    expect(tid(page, "message-attachment")).to_have_count(2)
    expect(tid(page, "attachment-chip")).to_have_count(0)
