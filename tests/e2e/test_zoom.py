"""A desktop browser zoomed to 200 % (a 1280x800 window is 640x400 CSS pixels, with a mouse):
unlike a phone whose keyboard is up for a moment, nothing may go away — the navigation, the
chat's tools (export, reset, memory) and the conversation stay on the screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.pages import assert_on_screen, last_assistant, open_chat, tid, wait_finished
from tests.e2e.stack import E2EStack
from tests.e2e.ui_support import PageFactory, builtin_demo_model, sideways_overflow

pytestmark = pytest.mark.e2e

ZOOM_200 = {"width": 640, "height": 400}  # 1280x800 at 200 %
ZOOM_200_WIDE = {"width": 683, "height": 384}  # 1366x768 at 200 %


def fully_on_screen(page: Page, target: Locator) -> None:
    expect(target).to_be_visible()
    assert_on_screen(page, target)


@pytest.mark.parametrize("size", [ZOOM_200, ZOOM_200_WIDE], ids=["1280x800", "1366x768"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_200_percent_zoom_the_navigation_and_the_chat_tools_stay(
    make_page: PageFactory,
    e2e_stack: E2EStack,
    screenshots: Path,
    size: dict[str, int],
    scheme: str,
) -> None:
    with builtin_demo_model(e2e_stack) as demo:  # its notice takes room too
        session_id = e2e_stack.new_session("zoomed in")
        e2e_stack.call("PATCH", f"/api/chat/sessions/{session_id}", {"modelId": demo["id"]})
        e2e_stack.start(session_id, "#say Zoomed text stays usable.")
        e2e_stack.wait_idle(session_id)
        page = make_page(size, scheme, touch=False)
        assert not page.evaluate("() => matchMedia('(pointer: coarse)').matches")  # a mouse
        open_chat(page, session_id)
        wait_finished(last_assistant(page), "SUCCESS")
        expect(tid(page, "demo-notice")).to_be_visible()
        tid(page, "composer-input").fill("\n".join(f"line {i}" for i in range(12)))
        page.screenshot(path=screenshots / f"zoom-200-{size['width']}-{scheme}.png")
        for name in ("nav-models", "nav-skills", "export-button", "reset-button", "memory-button"):
            fully_on_screen(page, tid(page, name))
        fully_on_screen(page, tid(page, "send-button"))
        listing = tid(page, "message-list").bounding_box()
        assert listing is not None and listing["height"] >= 60, listing
        assert sideways_overflow(page) == 0
