"""The Markdown export reads as steps and is inert in a Markdown viewer."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from markdown_it import MarkdownIt

from agentchat.chat.agent_log import Thinking, ToolCall, agent_steps
from agentchat.chat.export_markdown import RESULT_CHARS, message_markdown
from agentchat.chat.markdown_safe import safe_markdown
from agentchat.chat.schemas import LogPublic, MessagePublic

T0 = datetime(2026, 1, 2, 3, 4, 5)


def _log(
    seq: int, kind: str, content: str | None, tool: str | None = None, meta: Any = None
) -> LogPublic:
    at = T0 + timedelta(milliseconds=seq * 10)
    return LogPublic(seq=seq, kind=kind, content=content, tool_name=tool, meta=meta, created_at=at)


def _answer(
    logs: list[LogPublic], content: str = "done", status: str = "SUCCESS", error: str | None = None
) -> MessagePublic:
    return MessagePublic(
        id=2, session_id=1, parent_id=1, role="ASSISTANT", content=content, status=status,
        is_active=True, branch_order=0, sibling_count=1, sibling_index=0, run_id="r",
        model_id=None, skill_folder=None, error=error, created_at=T0, completed_at=None,
        logs=logs,
    )  # fmt: skip


def _rendered_html(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).render(markdown)


def test_streamed_thinking_words_become_one_paragraph_per_step() -> None:
    words = ["The", "user", "asks", "for", "a", "plan", "of", "a", "day", "in", "Lyon"]
    logs = [_log(i, "thinking", (" " if i else "") + w) for i, w in enumerate(words)]
    logs.insert(3, _log(99, "status", "pondering..."))
    logs.append(_log(50, "tool_call", "x", "web_search", {"toolCallId": "a", "args": {"q": 1}}))
    logs.append(_log(51, "tool_result", "ok", "web_search", {"toolCallId": "a"}))
    logs.append(_log(52, "thinking", "Second step."))
    steps = agent_steps(logs)
    assert [type(s) for s in steps] == [Thinking, ToolCall, Thinking]
    assert steps[0] == Thinking(" ".join(words))
    text = "\n".join(message_markdown(_answer(logs), tree_view=False))
    assert text.count("**Thinking**") == 2
    assert "pondering" not in text
    assert "> The user asks for a plan of a day in Lyon" in text


def test_results_pair_with_their_call_by_id_even_out_of_order() -> None:
    logs = [
        _log(0, "tool_call", "a", "fetch", {"toolCallId": "1", "args": {"url": "a"}}),
        _log(1, "tool_call", "b", "fetch", {"toolCallId": "2", "args": {"url": "b"}}),
        _log(2, "tool_result", "B", "fetch", {"toolCallId": "2", "durationMs": 40}),
        _log(3, "tool_result", "A", "fetch", {"toolCallId": "1"}),
    ]
    calls = [s for s in agent_steps(logs) if isinstance(s, ToolCall)]
    assert [(c.args, c.result) for c in calls] == [({"url": "a"}, "A"), ({"url": "b"}, "B")]
    assert calls[1].duration_ms == 40
    assert calls[0].duration_ms == 30  # from the rows' times when the bridge sent none


def test_old_logs_without_ids_pair_by_tool_name() -> None:
    logs = [_log(0, "tool_call", '{"q": "x"}', "search"), _log(1, "tool_result", "hit", "search")]
    (call,) = agent_steps(logs)
    assert isinstance(call, ToolCall) and call.args == {"q": "x"} and call.result == "hit"


def test_a_long_result_is_trimmed_with_a_note() -> None:
    logs = [
        _log(0, "tool_call", "", "read", {"toolCallId": "1", "args": {}}),
        _log(1, "tool_result", "y" * (RESULT_CHARS + 500), "read", {"toolCallId": "1"}),
    ]
    text = "\n".join(message_markdown(_answer(logs), tree_view=False))
    assert "y" * RESULT_CHARS in text and "y" * (RESULT_CHARS + 1) not in text
    assert "500 more characters not shown" in text


def test_the_status_and_the_error_of_a_failed_run_are_exported() -> None:
    text = "\n".join(
        message_markdown(_answer([], "", "FAILED", "rate <b>limited</b>"), tree_view=False)
    )
    assert "## Assistant (failed)" in text
    assert "status: failed" in text
    assert "> **Error:** rate &lt;b&gt;limited&lt;/b&gt;" in text


def test_html_from_the_chat_is_escaped_and_images_become_links() -> None:
    source = (
        '<script>alert(1)</script> <img src="https://x.example/a.png" onerror="x()">\n\n'
        "![pixel](https://tracker.example/p.png) ![ref][r]\n\n[r]: https://tracker.example/r.png\n\n"
        "`<b>code</b>` and\n\n```html\n<b>fenced</b>\n```\n"
    )
    html = _rendered_html(safe_markdown(source))
    assert "<script" not in html and "<img" not in html
    assert '<a href="https://tracker.example/p.png">image: pixel</a>' in html
    assert "<code>&lt;b&gt;code&lt;/b&gt;</code>" in html
    assert "&lt;b&gt;fenced&lt;/b&gt;" in html
    assert "&amp;lt;" not in html  # code is not escaped twice


def test_the_whole_exported_answer_renders_without_active_html() -> None:
    logs = [
        _log(0, "thinking", "<img src=https://x.example/t.png>"),
        _log(1, "tool_call", "", "<b>tool</b>", {"toolCallId": "1", "args": {"html": "<script>"}}),
        _log(2, "tool_result", "<iframe src=x>", "<b>tool</b>", {"toolCallId": "1"}),
        _log(3, "clarify_request", "q", "clarify", {"question": "<svg onload=x>", "choices": []}),
    ]
    html = _rendered_html(
        "\n".join(message_markdown(_answer(logs, "![a](https://x.example/b.png)"), tree_view=False))
    )
    for tag in ("<img", "<script", "<iframe", "<svg", "<b>"):
        assert tag not in html, tag
    assert "<details>" in html and "<summary>" in html


def _question(content: str) -> MessagePublic:
    return MessagePublic(
        id=1, session_id=1, parent_id=None, role="USER", content=content, status="SENT",
        is_active=True, branch_order=0, sibling_count=1, sibling_index=0, run_id=None,
        model_id=None, skill_folder=None, error=None, created_at=T0, completed_at=None, logs=[],
    )  # fmt: skip


def test_a_questions_single_line_breaks_stay_line_breaks() -> None:
    text = "\n".join(
        message_markdown(_question("Plan a day.\nKeep it short.\n\nThanks"), tree_view=False)
    )
    html = _rendered_html(text)
    assert "Plan a day.<br />\nKeep it short." in html
    assert "<p>Thanks</p>" in html


def test_an_answers_own_headings_sit_below_the_role_headings() -> None:
    answer = (
        "# Plan\n\nMorning.\n\n## Afternoon\n\nMuseums.\n\nEvening\n-------\n\n"
        "> ### Quoted\n\n###### Deepest\n\n```md\n# not a heading\n```\n"
    )
    html = _rendered_html("\n".join(message_markdown(_answer([], answer), tree_view=False)))
    assert html.count("<h2>") == 1  # "Assistant" only
    assert "<h3>Plan</h3>" in html
    assert "<h4>Afternoon</h4>" in html
    assert "<h4>Evening</h4>" in html
    assert "<h5>Quoted</h5>" in html
    assert "<h6>Deepest</h6>" in html
    assert "# not a heading" in html
