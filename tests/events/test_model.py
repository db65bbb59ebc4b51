"""The event model and its SSE encoding."""

from __future__ import annotations

import json

import pytest

from agentchat.events import TERMINAL_EVENTS, BusEvent, RunFinished, encode_many, encode_sse
from agentchat.events.model import check_terminal_last


def test_encode_sse_writes_id_event_and_one_compact_data_line() -> None:
    event = BusEvent(3, "node_stream", {"runId": "r", "kind": "answer_delta", "content": "hi"})
    assert encode_sse(event) == (
        b'id: 3\nevent: node_stream\ndata: {"runId":"r","kind":"answer_delta","content":"hi"}\n\n'
    )


def test_newlines_and_unicode_stay_on_one_data_line() -> None:
    data = {"content": "line one\nline two\r\n\u4f60\u597d"}
    frame = encode_sse(BusEvent(1, "node_stream", data)).decode()
    lines = frame.split("\n")
    assert lines[:2] == ["id: 1", "event: node_stream"]
    assert lines[2].startswith("data: ") and lines[3:] == ["", ""]
    assert "\u4f60\u597d" in lines[2]
    assert json.loads(lines[2].removeprefix("data: ")) == data


def test_encode_many_joins_frames_in_order() -> None:
    events = [BusEvent(i, "node_stream", {"n": i}) for i in (1, 2, 3)]
    assert encode_many(events) == b"".join(encode_sse(e) for e in events)
    assert encode_many([]) == b""


def test_terminal_events() -> None:
    assert frozenset({"workflow_complete", "workflow_error"}) == TERMINAL_EVENTS
    assert BusEvent(1, "workflow_error", {}).is_terminal
    assert not BusEvent(1, "context_compacted", {}).is_terminal


def test_a_terminal_event_may_only_end_a_batch() -> None:
    check_terminal_last([("node_stream", {}), ("workflow_complete", {})])
    check_terminal_last([])
    with pytest.raises(RunFinished):
        check_terminal_last([("workflow_error", {}), ("node_stream", {})])
