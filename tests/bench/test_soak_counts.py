"""The restart soak's clarify figures count what they say: a wait lost across an API restart
is counted there (no false zero), not under a bridge kill or a calm run, and a wait that no
fault crossed is never counted as lost across one."""

from __future__ import annotations

from bench.soak_restarts import Seen, Wait, clarify_counts, kept


def _wait(asked: float, answered: float, status: int | None, outcome: str) -> Wait:
    return Wait(asked, answered, answered + 1.0, status, outcome)


def test_a_clarify_wait_refused_after_an_api_restart_is_counted_lost() -> None:
    seen = Seen(restart_at=[10.0])
    seen.waits = [
        _wait(8.0, 12.0, 409, "FAILED"),  # waiting at the restart, refused after it
        _wait(9.0, 13.0, 200, "SUCCESS"),  # waiting at the restart, survived it
        _wait(20.0, 22.0, 200, "SUCCESS"),  # no fault
    ]
    counts = clarify_counts(seen)
    assert counts["clarifyWaits"] == 3
    assert counts["clarifyWaitsAcrossApiRestart"] == 2
    assert counts["clarifyWaitsLostAcrossApiRestart"] == 1
    assert counts["clarifyWaitsLostWithoutAnyFault"] == 0


def test_a_wait_the_api_never_came_back_for_is_lost_and_bridge_kills_count_apart() -> None:
    seen = Seen(restart_at=[10.0, 30.0], bridge_kill_at=[31.0])
    seen.waits = [
        _wait(9.0, 15.0, None, "UNKNOWN"),  # the answer never got through
        _wait(29.0, 33.0, 409, "FAILED"),  # a restart and a bridge kill: the kill's
        _wait(40.0, 41.0, 200, "FAILED"),  # no fault, yet lost: a bug of its own
    ]
    counts = clarify_counts(seen)
    assert counts["clarifyWaitsLostAcrossApiRestart"] == 1
    assert counts["clarifyWaitsAcrossBridgeKill"] == 1
    assert counts["clarifyWaitsLostAcrossBridgeKill"] == 1
    assert counts["clarifyWaitsLostWithoutAnyFault"] == 1


def test_an_answer_is_kept_when_it_holds_what_was_seen_whitespace_aside() -> None:
    assert kept('{"a": 1}', '\n\n{"a": 1}')  # the server strips the answer
    assert kept("t1 t2 t3", "t1 t2 ")
    assert not kept("t1 t2", "t1 t2 t3")
    assert not kept("", "t1")
