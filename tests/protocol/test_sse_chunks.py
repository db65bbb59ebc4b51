"""The bridge client reads whole SSE frames from raw body chunks (issue 17): however the body
is cut into chunks, it reads what the line parser reads, multi-byte characters included."""

from __future__ import annotations

from collections.abc import AsyncIterator

from hypothesis import given, settings
from hypothesis import strategies as st

from agentchat.events.model import BusEvent, encode_sse
from agentchat.protocol.sse import aparse_chunks, parse_text

BODY = (
    ': keep-alive\n\nid: 1\nevent: node_stream\ndata: {"content":"héllo ✓"}\n\n'
    'id: 2\r\nevent: x\r\ndata: {"b":"c\\nd"}\r\n\r\nevent: e\ndata: 1\ndata: 2\n\n\n\n'
    "id: 9\nevent: last\ndata: {}"
).encode()


async def chunked(body: bytes, cuts: list[int]) -> AsyncIterator[bytes]:
    start = 0
    for cut in sorted(set(cuts)):
        yield body[start:cut]
        start = cut
    yield body[start:]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(BODY)), max_size=12))
async def test_any_chunking_reads_the_same_messages(cuts: list[int]) -> None:
    got = [m async for m in aparse_chunks(chunked(BODY, cuts))]
    assert got == parse_text(BODY)
    assert got[0].json() == {"content": "héllo ✓"} and got[2].data == "1\n2"


async def test_a_shared_encoding_is_the_same_frame() -> None:
    event = BusEvent(4, "node_stream", {"runId": "r", "content": "é"})
    assert (
        encode_sse(event)
        == encode_sse(event)
        == (b'id: 4\nevent: node_stream\ndata: {"runId":"r","content":"\xc3\xa9"}\n\n')
    )
    assert event.raw is not None and event == BusEvent(4, "node_stream", event.data)
