"""The pure helpers of the benchmarks: percentiles, loss counting, token parsing."""

from __future__ import annotations

import math

import pytest

from bench.common import (
    Arrival,
    RawReads,
    check_run,
    lost_and_duplicated,
    percentile,
    rate_and_latency,
    stamped_latencies,
    steal_share,
    summarize,
    token_arrivals,
    token_index,
    token_marks,
)


def test_percentile_interpolates_between_ranks() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert percentile(values, 0) == 10.0
    assert percentile(values, 100) == 40.0
    assert percentile(values, 50) == 25.0
    assert percentile(list(range(1, 101)), 99) == pytest.approx(99.01)


def test_percentile_ignores_input_order_and_rejects_bad_input() -> None:
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)


def test_summarize_reports_the_sample() -> None:
    stats = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert stats["n"] == 5 and stats["p50"] == 3.0 and stats["max"] == 100.0
    assert stats["mean"] == 22.0
    assert math.isnan(summarize([])["p99"])


def test_lost_and_duplicated_counts_both() -> None:
    assert lost_and_duplicated([1, 2, 3], 3) == (0, 0)
    assert lost_and_duplicated([1, 3, 3, 3], 4) == (2, 2)


def test_token_index_reads_tokens_pieces_only() -> None:
    assert token_index("t1") == 1
    assert token_index(" t12") == 12
    assert token_index("hello") is None
    assert token_index("t") is None


def test_coalesced_deltas_count_every_token_and_its_stamp() -> None:
    assert token_marks(" t1 t2@5000000 t3") == [(1, None), (2, 5_000_000), (3, None)]
    assert token_marks("at1 t2x") == []
    joined = Arrival(
        1, "node_stream", {"kind": "answer_delta", "content": " t1@1000 t2@2000"}, 9000
    )
    assert stamped_latencies([joined]) == [0.008, 0.007]
    assert token_arrivals([joined]) == {1: 9000, 2: 9000}
    end = Arrival(2, "workflow_complete", {}, 9500)
    assert check_run([joined, end], 2) == {"lost": 0, "duplicated": 0}


def _delta(n: int, token: int) -> Arrival:
    return Arrival(n, "node_stream", {"kind": "answer_delta", "content": f" t{token}"}, n * 1000)


def test_check_run_finds_gaps_repeats_and_a_missing_end() -> None:
    good = [_delta(1, 1), _delta(2, 2), Arrival(3, "workflow_complete", {}, 3000)]
    assert check_run(good, 2) == {"lost": 0, "duplicated": 0}
    repeated = [_delta(1, 1), _delta(1, 1), _delta(2, 2)]
    assert check_run(repeated, 2) == {"lost": 1, "duplicated": 2}  # no terminal event
    gap = [_delta(1, 1), _delta(3, 3), Arrival(4, "workflow_complete", {}, 4000)]
    assert check_run(gap, 3)["lost"] == 2  # id 2 and token 2


def test_rate_and_latency_match_tokens_by_index() -> None:
    arrived = {1: 1_000_000, 2: 2_000_000, 3: 3_000_000}
    sent = {1: 500_000, 2: 1_500_000}
    result = rate_and_latency(arrived, sent)
    assert result["events_per_s"] == pytest.approx(1000.0)
    assert result["matched"] == 2
    assert result["latency_p50_ms"] == pytest.approx(0.5)


def test_raw_reads_time_each_event_by_the_read_that_ended_it() -> None:
    frame1 = b'id: 1\nevent: node_stream\ndata: {"kind":"answer_delta","content":" t1"}\n\n'
    frame2 = b'id: 2\nevent: workflow_complete\ndata: {"runId":"r"}\n\n'
    body = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(frame1), frame1, len(frame2), frame2)
    raw = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n" + body
    reads = RawReads()
    cut = raw.index(frame1) + 10  # the first frame arrives in two reads
    for at, piece in (
        (100, raw[:cut]),
        (200, raw[cut : cut + len(frame1)]),
        (300, raw[cut + len(frame1) :]),
    ):
        reads.add(at, piece)
        assert reads.complete() == (at == 300)
    arrivals = reads.arrivals()
    assert [(a.id, a.event, a.at_ns) for a in arrivals] == [
        (1, "node_stream", 200),
        (2, "workflow_complete", 300),
    ]
    assert arrivals[0].data["content"] == " t1"


def test_raw_reads_end_at_an_error_answer() -> None:
    reads = RawReads()
    reads.add(1, b"HTTP/1.1 404 Not Found\r\ncontent-length: 2\r\n\r\n{}")
    assert reads.complete()
    with pytest.raises(RuntimeError, match="404"):
        reads.arrivals()


def test_steal_share_reads_the_hypervisors_column() -> None:
    # user nice system idle iowait irq softirq steal: 20 of 200 ticks went to other machines
    before = [100, 0, 50, 800, 0, 0, 0, 10]
    after = [200, 0, 100, 830, 0, 0, 0, 30]
    assert steal_share(before, after) == 0.1
    assert steal_share(None, after) is None
    assert steal_share(before, before) is None
