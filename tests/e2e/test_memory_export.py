"""The memory drawer's short-term tab (recent tool calls across turns) and exporting every
version from the page's export menu."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.pages import (
    current_session_id,
    export,
    last_assistant,
    open_chat,
    send,
    settled_box,
    tid,
    wait_finished,
)

pytestmark = pytest.mark.e2e


def test_recent_tools_tab_lists_tool_calls_across_turns(page: Page, screenshots: Path) -> None:
    page.set_viewport_size({"width": 1366, "height": 800})
    open_chat(page)
    send(page, "first turn\n#tool skills_list {}\n#say one")
    wait_finished(last_assistant(page), "SUCCESS")
    send(page, "second turn\n#tool skills_list {}\n#say two")
    wait_finished(last_assistant(page), "SUCCESS")

    tid(page, "memory-button").click()
    drawer = tid(page, "memory-drawer")
    expect(drawer).to_be_visible()
    tab = page.locator('.n-tabs-tab[data-name="short"]')
    expect(tab).to_have_text("Recent tools")
    panel = settled_box(page.get_by_role("dialog"))
    for name in ("long", "short", "history", "stats"):
        box = page.locator(f'.n-tabs-tab[data-name="{name}"]').bounding_box()
        assert box is not None, name
        assert panel["x"] <= box["x"] and box["x"] + box["width"] <= panel["x"] + panel["width"]
    tab.click()
    calls = tid(drawer, "recent-tool")
    expect(calls).to_have_count(2)
    expect(calls.first).to_contain_text("skills_list")
    calls.first.locator("summary").click()
    expect(calls.first).to_contain_text("Result")
    page.screenshot(path=str(screenshots / "memory-recent-tools-1366.png"))

    page.set_viewport_size({"width": 390, "height": 844})
    for name in ("long", "short", "history", "stats"):
        box = page.locator(f'.n-tabs-tab[data-name="{name}"]').bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, name
    page.screenshot(path=str(screenshots / "memory-recent-tools-390.png"))


def test_export_menu_offers_every_version(page: Page) -> None:
    open_chat(page)
    send(page, "versions please\n#say first version")
    wait_finished(last_assistant(page), "SUCCESS")
    current_session_id(page)
    tid(last_assistant(page), "regenerate-button").click()
    wait_finished(last_assistant(page), "SUCCESS")

    download = export(page, "export-md-all")
    assert download.suggested_filename.endswith(" (all versions).md")
    markdown = Path(download.path()).read_text(encoding="utf-8")
    assert "all branches (every version)" in markdown
    assert "version 1/2" in markdown and "version 2/2" in markdown

    download = export(page, "export-json-all")
    assert download.suggested_filename.endswith(" (all versions).json")


def test_memory_over_its_limit_is_said_before_saving(page: Page) -> None:
    open_chat(page)
    send(page, "#say hello")
    wait_finished(last_assistant(page), "SUCCESS")
    tid(page, "memory-button").click()
    drawer = tid(page, "memory-drawer")
    notes, about = tid(drawer, "memory-input"), tid(drawer, "user-memory-input")
    for box in (notes, about):
        expect(box).to_have_attribute("placeholder", re.compile(r"\w{4}"))  # says what goes in
        expect(box).not_to_have_attribute("placeholder", "Please Input")
    counter = tid(drawer, "memory-count")
    limit = int(re.sub(r"\D", "", counter.inner_text().split("/")[1]))
    save = tid(drawer, "memory-save")
    notes.fill("x" * (limit + 800))
    expect(counter).to_have_attribute("data-over", "true")
    expect(tid(drawer, "memory-over")).to_contain_text(f"{limit:,}")
    expect(save).to_be_disabled()  # nothing is sent that the agent would refuse
    notes.fill("A short note.")
    expect(counter).to_have_attribute("data-over", "false")
    expect(tid(drawer, "memory-over")).to_have_count(0)
    expect(save).to_be_enabled()
