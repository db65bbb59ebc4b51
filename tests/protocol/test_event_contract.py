"""The typed event contract and the one SSE codec: the JSON the page and the bridge client get."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from agentchat.protocol import events as c
from agentchat.protocol.sse import encode, encode_event, parse_lines, parse_text

NODES: list[tuple[c.NodeBase, dict[str, object]]] = [
    (c.Thinking(content="hmm"), {"kind": "thinking", "content": "hmm"}),
    (c.Status(content="working"), {"kind": "status", "content": "working"}),
    (c.AnswerDelta(content=" t1"), {"kind": "answer_delta", "content": " t1"}),
    (
        c.ToolCall(
            content="read a.txt",
            tool_name="read_file",
            meta=c.ToolCallMeta(tool_call_id="call_1", args={"path": "a.txt", "limit": None}),
        ),
        {
            "kind": "tool_call",
            "content": "read a.txt",
            "toolName": "read_file",
            "meta": {"toolCallId": "call_1", "args": {"path": "a.txt", "limit": None}},
        },
    ),
    (
        c.ToolResult(
            content="{}",
            tool_name="read_file",
            meta=c.ToolResultMeta(tool_call_id="call_1", duration_ms=12),
        ),
        {
            "kind": "tool_result",
            "content": "{}",
            "toolName": "read_file",
            "meta": {"toolCallId": "call_1", "durationMs": 12},
        },
    ),
    (
        c.TodoUpdate(content="[]"),
        {"kind": "todo_update", "content": "[]", "toolName": "todo"},
    ),
    (
        c.ClarifyRequest(
            content="Which?", meta=c.Pause(clarify_id="k1", question="Which?", choices=["a"])
        ),
        {
            "kind": "clarify_request",
            "content": "Which?",
            "toolName": "clarify",
            "meta": {"clarifyId": "k1", "question": "Which?", "choices": ["a"]},
        },
    ),
    (
        c.ClarifyAnswered(
            content="a", meta=c.ClarifyAnsweredMeta(clarify_id="k1", answer="a", timed_out=True)
        ),
        {
            "kind": "clarify_answered",
            "content": "a",
            "toolName": "clarify",
            "meta": {"clarifyId": "k1", "answer": "a", "timedOut": True},
        },
    ),
]


@pytest.mark.parametrize(("event", "body"), NODES, ids=[b["kind"] for _, b in NODES])
def test_node_events_keep_the_documented_json_and_round_trip(
    event: c.NodeBase, body: dict[str, object]
) -> None:
    assert event.EVENT == "node_stream"
    assert event.wire() == body
    assert json.loads(event.wire_json()) == body
    assert c.decode("node_stream", event.wire_json()) == event
    page = event.for_run("run-1").wire()
    assert page == {"runId": "run-1", "nodeId": "agent", **body}
    assert c.from_wire("node_stream", page) == event.for_run("run-1")


def test_a_node_event_of_unknown_kind_or_without_its_meta_is_refused() -> None:
    with pytest.raises(ValidationError):
        c.decode("node_stream", '{"kind": "dance", "content": "x"}')
    with pytest.raises(ValidationError):
        c.decode("node_stream", '{"kind": "tool_call", "content": "x", "toolName": "t"}')
    with pytest.raises(c.UnknownEvent):
        c.decode("surprise", "{}")


def test_fields_added_by_a_newer_sender_pass_through() -> None:
    event = c.decode("node_stream", '{"kind":"answer_delta","content":"t","meta":{"sentNs":5}}')
    assert event.for_run("r").wire()["meta"] == {"sentNs": 5}


def test_each_terminal_event_has_one_builder() -> None:
    done = c.workflow_complete("r", 7, "all done", {"totalTokens": 3})
    assert (done.EVENT, done.wire()) == (
        "workflow_complete",
        {"runId": "r", "messageId": 7, "finalText": "all done", "usage": {"totalTokens": 3}},
    )
    assert "usage" not in c.workflow_complete("r", 7, "x").wire()
    stopped = c.workflow_error("r", 7, "Stopped by the user.", stopped=True, partial_text="so far")
    assert (stopped.EVENT, stopped.wire()) == (
        "workflow_error",
        {
            "runId": "r",
            "messageId": 7,
            "message": "Stopped by the user.",
            "stopped": True,
            "partialText": "so far",
        },
    )
    assert c.workflow_error("r", 7, "").wire() == {
        "runId": "r",
        "messageId": 7,
        "message": "the run ended",
        "stopped": False,
    }
    assert {done.EVENT, stopped.EVENT} == c.TERMINAL_EVENTS


def test_compaction_is_a_run_level_event_not_a_node_kind() -> None:
    event = c.ContextCompacted(summary="short")
    assert (event.EVENT, event.wire()) == ("context_compacted", {"summary": "short"})
    on_page = c.ContextCompacted(run_id="r", summary="short", summary_message_id=4)
    assert on_page.wire() == {"runId": "r", "summary": "short", "summaryMessageId": 4}
    with pytest.raises(ValidationError):
        c.decode("node_stream", '{"kind": "context_compacted", "content": "x"}')


def test_run_end_round_trips_the_bridge_wire() -> None:
    end = c.RunEnd(status="STOPPED", final_text="partial", usage={"apiCalls": 1})
    assert c.decode("run_end", end.wire_json()) == end
    assert c.decode("run_end", '{"status": "success"}') == c.RunEnd(status="SUCCESS")


def test_rewritten_masks_text_anywhere_in_the_event() -> None:
    event = c.ToolCall(
        content="key sk-1", tool_name="t", meta=c.ToolCallMeta(tool_call_id="1", args={"k": "sk-1"})
    )
    masked = event.rewritten(lambda body: json.loads(json.dumps(body).replace("sk-1", "***")))
    assert isinstance(masked, c.ToolCall)
    assert (masked.content, masked.meta.args) == ("key ***", {"k": "***"})


def test_the_codec_writes_one_line_per_field_and_parses_it_back() -> None:
    event = c.AnswerDelta(content="two\nlines").for_run("r")
    frame = encode_event(event, 3)
    assert frame == (
        b'id: 3\nevent: node_stream\ndata: {"runId":"r","nodeId":"agent","content":"two\\nlines",'
        b'"kind":"answer_delta"}\n\n'
    )
    tagged = encode("run_unknown", {"runId": "r"}, "r:0")
    (first, second) = parse_text(b": connected\n\n" + frame + tagged)
    assert (first.event, first.id, first.num) == ("node_stream", "3", 3)
    assert c.decode(first.event, first.data) == event
    assert (second.event, second.id, second.num, second.json()) == (
        "run_unknown",
        "r:0",
        0,
        {"runId": "r"},
    )


def test_the_parser_joins_data_lines_and_keeps_a_message_cut_at_the_end() -> None:
    lines = [": keep-alive", "", "event: x", "data: {", "data: }", "", "data: [DONE]"]
    messages = list(parse_lines(lines))
    assert [(m.event, m.data, m.id) for m in messages] == [
        ("x", "{\n}", None),
        ("message", "[DONE]", None),
    ]


@pytest.mark.parametrize(("event", "body"), NODES, ids=[b["kind"] for _, b in NODES])
def test_page_body_is_for_run_without_the_copy(event: c.NodeBase, body: dict[str, object]) -> None:
    assert event.page_body("r") == event.for_run("r").wire()
