"""The chat's user stories (spec §2.1 and §2.2) in the browser against the real stack: ask and
watch, clarify, stop, a failed answer and its Retry, regenerate and versions, edit and resend,
export."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.pages import (
    assistants,
    current_session_id,
    export,
    last_assistant,
    open_chat,
    send,
    session_row,
    tid,
    wait_finished,
)
from tests.e2e.stack import E2EStack

pytestmark = pytest.mark.e2e

ASK = "\n".join(
    [
        "#delay 40",
        "#think Let me plan this out carefully",
        "#todo Read the question; Write the answer",
        "#tool skills_list {}",
        "#say Here is the code:",
        "#say ```python",
        "#say print('hi')",
        "#say ```",
        "#tokens 30",
    ]
)


def test_ask_and_watch_the_thinking_panel_fold_into_a_summary(
    page: Page, e2e_stack: E2EStack, screenshots: Path
) -> None:
    open_chat(page)
    send(page, ASK)
    session_id = current_session_id(page)
    expect(tid(page, "user-content").last).to_contain_text("#think Let me plan")
    reply = last_assistant(page)
    panel = tid(reply, "thinking-panel")
    expect(panel).to_have_attribute("data-state", "running")
    expect(tid(panel, "thinking-status")).to_be_visible()
    expect(tid(panel, "thinking-stream")).to_contain_text("plan this out")
    expect(tid(panel, "todo-item")).to_have_count(2)
    expect(tid(panel, "todo-item").first).to_have_attribute("data-status", "in_progress")
    expect(panel.locator('[data-testid="tool-call"][data-tool="skills_list"]')).to_be_visible()
    expect(session_row(page, session_id)).to_have_attribute("data-running", "true")
    expect(tid(reply, "answer")).to_contain_text("t10")
    page.screenshot(path=screenshots / "chat-live-run.png")

    wait_finished(reply, "SUCCESS")
    expect(panel).to_have_attribute("data-state", "done")
    expect(tid(panel, "thinking-status")).to_have_count(0)
    summary = tid(panel, "thinking-summary")
    expect(summary).to_have_text(re.compile(r"Thought for \d+ s · 2 tool calls"))
    expect(tid(panel, "todo-item")).to_have_count(0)  # folded
    answer = tid(reply, "answer")
    expect(answer.locator("pre code")).to_have_text("print('hi')\n")
    expect(answer.locator("button[data-copy-code]")).to_be_visible()
    expect(answer).to_contain_text("t30")
    expect(tid(reply, "copy-answer")).to_be_visible()
    expect(session_row(page, session_id)).to_have_attribute("data-running", "false")
    page.screenshot(path=screenshots / "chat-folded-answer.png")

    summary.click()
    expect(tid(panel, "todo-item")).to_have_count(2)
    expect(tid(panel, "tool-call")).to_have_count(2)
    stored = e2e_stack.session(session_id)["messages"]
    assert stored[-1]["status"] == "SUCCESS"
    assert "print('hi')" in stored[-1]["content"]


def test_clarify_choice_continues_the_run(page: Page, screenshots: Path) -> None:
    open_chat(page)
    send(page, "#clarify Which colour? | red | blue\n#say You picked:\n#echo-tool-result")
    session_id = current_session_id(page)
    reply = last_assistant(page)
    panel = tid(reply, "clarify-panel")
    expect(tid(panel, "clarify-question")).to_have_text("Which colour?")
    expect(tid(panel, "clarify-choice")).to_have_text(["red", "blue"])
    expect(session_row(page, session_id)).to_have_attribute("data-waiting", "true")
    expect(tid(page, "stop-button")).to_be_visible()
    page.screenshot(path=screenshots / "chat-clarify.png")

    tid(panel, "clarify-choice").filter(has_text="blue").click()
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "clarify-panel")).to_have_count(0)
    expect(tid(reply, "answer")).to_contain_text("blue")
    expect(session_row(page, session_id)).to_have_attribute("data-waiting", "false")
    tid(reply, "thinking-summary").click()
    expect(tid(reply, "clarify-answered")).to_contain_text("blue")


def test_stop_keeps_the_partial_answer(page: Page, e2e_stack: E2EStack) -> None:
    open_chat(page)
    send(page, "#delay 60\n#tokens 500")
    session_id = current_session_id(page)
    reply = last_assistant(page)
    expect(tid(reply, "answer")).to_contain_text("t5 ")
    expect(tid(page, "send-button")).to_have_count(0)
    tid(page, "stop-button").click()
    wait_finished(reply, "STOPPED")
    expect(tid(reply, "message-stopped")).to_be_visible()
    expect(tid(page, "send-button")).to_be_visible()
    shown = tid(reply, "answer").inner_text()
    assert shown.startswith("t1 t2 t3 t4 t5") and "t500" not in shown
    stored = e2e_stack.session(session_id)["messages"][-1]
    assert stored["status"] == "STOPPED"
    assert stored["content"].startswith("t1 t2 t3 t4 t5") and "t500" not in stored["content"]


def test_a_failed_answer_shows_its_error_and_retry_regenerates(page: Page) -> None:
    open_chat(page)
    send(page, "#fail 500")
    reply = last_assistant(page)
    wait_finished(reply, "FAILED")
    expect(tid(reply, "message-error")).to_be_visible()
    expect(tid(reply, "message-error")).not_to_be_empty()
    first_id = reply.get_attribute("data-message-id")
    expect(tid(reply, "regenerate-button")).to_have_count(0)

    tid(reply, "retry-button").click()
    retried = last_assistant(page)
    expect(retried).not_to_have_attribute("data-message-id", first_id or "")
    expect(tid(retried, "version-label")).to_have_text("2/2")
    wait_finished(retried, "FAILED")  # the script fails again: the retry is a new version
    expect(tid(retried, "retry-button")).to_be_visible()


def test_regenerate_and_switch_versions(page: Page, e2e_stack: E2EStack) -> None:
    open_chat(page)
    # a pause mid-answer: stopped there, version 1 keeps only the first part
    gate = f"pause-{uuid.uuid4().hex[:8]}"  # open once version 1 stopped: version 2 goes through
    send(page, f"#say first part\n#hold {gate}\n#say second part")
    reply = last_assistant(page)
    expect(tid(reply, "answer")).to_have_text("first part")
    tid(page, "stop-button").click()
    wait_finished(reply, "STOPPED")
    e2e_stack.release(gate)
    first_id = reply.get_attribute("data-message-id")

    tid(reply, "regenerate-button").click()
    second = last_assistant(page)
    expect(second).not_to_have_attribute("data-message-id", first_id or "")
    wait_finished(second, "SUCCESS")
    expect(tid(second, "answer")).to_have_text("first part second part")
    expect(tid(second, "version-label")).to_have_text("2/2")

    tid(second, "version-prev").click()
    older = last_assistant(page)
    expect(older).to_have_attribute("data-message-id", first_id or "")
    expect(tid(older, "version-label")).to_have_text("1/2")
    expect(tid(older, "answer")).to_have_text("first part")
    expect(tid(older, "message-stopped")).to_be_visible()

    tid(older, "version-next").click()
    expect(tid(last_assistant(page), "answer")).to_have_text("first part second part")
    expect(tid(last_assistant(page), "version-label")).to_have_text("2/2")


def test_edit_and_resend_starts_a_branch_without_the_old_turn(page: Page) -> None:
    open_chat(page)
    send(page, "first question\n#say one")
    wait_finished(last_assistant(page), "SUCCESS")
    send(page, "second question\n#say two")
    wait_finished(last_assistant(page), "SUCCESS")
    expect(assistants(page)).to_have_count(2)

    second_user = tid(page, "user-message").nth(1)
    second_user.hover()
    tid(second_user, "edit-button").click()
    tid(second_user, "edit-input").fill("edited question\n#echo-context")
    tid(second_user, "edit-save").click()

    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_have_text("CONTEXT: first question | edited question")
    expect(tid(page, "user-content").nth(1)).to_contain_text("edited question")
    expect(tid(tid(page, "user-message").nth(1), "version-label")).to_have_text("2/2")
    expect(assistants(page)).to_have_count(2)


def test_an_edit_whose_run_is_refused_is_shown_unanswered_with_retry(page: Page) -> None:
    """The edit is saved, then its run is refused (here 503 bridge_unavailable, as while the
    agent service restarts): the page shows the saved edit, unanswered, and Retry answers it."""
    open_chat(page)
    send(page, "first question\n#say one")
    wait_finished(last_assistant(page), "SUCCESS")
    refusal = {"code": "bridge_unavailable", "message": "The agent service is restarting."}

    def refuse(route: Route) -> None:
        if route.request.method == "POST":
            route.fulfill(status=503, json=refusal)
        else:
            route.fallback()

    page.route(re.compile(r"/api/chat/sessions/\d+/runs$"), refuse)
    user = tid(page, "user-message").first
    user.hover()
    tid(user, "edit-button").click()
    tid(user, "edit-input").fill("edited question\n#say answered after all")
    tid(user, "edit-save").click()

    expect(tid(page, "user-content").first).to_contain_text("edited question")
    expect(assistants(page)).to_have_count(0)
    retry = tid(tid(page, "user-message").first, "answer-button")
    expect(retry).to_be_visible()

    page.unroute(re.compile(r"/api/chat/sessions/\d+/runs$"))
    retry.click()
    reply = last_assistant(page)
    wait_finished(reply, "SUCCESS")
    expect(tid(reply, "answer")).to_have_text("answered after all")
    expect(tid(page, "answer-button")).to_have_count(0)


def test_export_downloads_markdown_and_json(page: Page) -> None:
    open_chat(page)
    send(page, "export me\n#say exported answer")
    wait_finished(last_assistant(page), "SUCCESS")
    session_id = current_session_id(page)

    md_download = export(page, "export-md")
    markdown = Path(md_download.path()).read_text(encoding="utf-8")
    assert md_download.suggested_filename == "export me #say exported answer.md"
    assert "export me" in markdown and "exported answer" in markdown

    json_download = export(page, "export-json")
    assert json_download.suggested_filename.endswith(".json")
    exported = json.loads(Path(json_download.path()).read_text(encoding="utf-8"))
    text = json.dumps(exported)
    assert "export me" in text and "exported answer" in text
    assert str(session_id) in text or exported


def test_a_chat_deleted_elsewhere_leaves_the_list_once_the_page_finds_it_gone(
    page: Page, e2e_stack: E2EStack
) -> None:
    kept = e2e_stack.new_session("kept")
    gone = e2e_stack.new_session("deleted in another tab")
    open_chat(page, kept)
    row = session_row(page, gone)
    expect(row).to_be_visible()
    e2e_stack.call("DELETE", f"/api/chat/sessions/{gone}", expect=204)
    tid(row, "session-title").click()
    expect(tid(page, "session-not-found")).to_be_visible()
    expect(row).to_have_count(0)  # not offered again
    expect(session_row(page, kept)).to_be_visible()


def test_deleting_a_chat_whose_answer_runs_stops_it_first(page: Page, e2e_stack: E2EStack) -> None:
    session_id = e2e_stack.new_session("answering while deleted")
    e2e_stack.start(session_id, "#delay 100\n#tokens 400")
    open_chat(page)
    row = session_row(page, session_id)
    expect(row).to_have_attribute("data-running", "true")
    row.hover()
    tid(row, "session-delete").click()
    confirm = page.get_by_role("dialog")
    expect(confirm).to_contain_text("still answering")
    confirm.get_by_role("button", name="Stop and delete").click()
    expect(row).to_have_count(0)
    assert e2e_stack.http.get(f"/api/chat/sessions/{session_id}").status_code == 404
    expect(page.locator(".n-message")).to_have_count(0)  # no refusal, no internal id
