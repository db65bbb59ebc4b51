"""The run service's view of the event bus (runs/cluster/bus_watch.py): what a Redis stall or
restart looks like to the drivers (wait until it answers) and to the sweepers (judge owners only
after it has answered for a while), on a clock of the test's own."""

from __future__ import annotations

import asyncio

import pytest

from agentchat.runs.cluster.bus_watch import BusWatch


class Bus:
    """A ping that answers, fails, or hangs until released."""

    def __init__(self) -> None:
        self.failing = False
        self.release = asyncio.Event()
        self.release.set()

    async def ping(self) -> None:
        await self.release.wait()
        if self.failing:
            raise ConnectionError("Connection refused")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def bus() -> Bus:
    return Bus()


@pytest.fixture
def clock() -> Clock:
    return Clock()


async def test_a_bus_that_never_failed_is_steady(bus: Bus, clock: Clock) -> None:
    watch = BusWatch(bus.ping, clock=clock)
    await watch.probe()
    assert watch.answering() and watch.steady_for(10.0)


async def test_after_a_failure_it_is_steady_only_once_it_has_answered_long_enough(
    bus: Bus, clock: Clock
) -> None:
    watch = BusWatch(bus.ping, clock=clock)
    bus.failing = True
    await watch.probe()
    assert not watch.answering()
    bus.failing = False
    await watch.probe()
    assert watch.answering() and not watch.steady_for(10.0)
    clock.now += 10.0
    assert watch.steady_for(10.0)


async def test_a_failure_reported_by_a_caller_holds_until_a_probe_answers(
    bus: Bus, clock: Clock
) -> None:
    watch = BusWatch(bus.ping, clock=clock)
    watch.failed()  # a publish met a closed connection
    assert not watch.answering()
    await watch.wait_answering()  # probes by itself: no periodic task here
    assert watch.answering() and not watch.steady_for(1.0)


async def test_a_call_that_stalled_counts_as_a_failure(bus: Bus, clock: Clock) -> None:
    """Keys read by a call that waited out a stall may have expired meanwhile."""
    watch = BusWatch(bus.ping, clock=clock)
    started = clock.now
    clock.now += 7.0  # the call came back after a 7 s SIGSTOP
    assert not watch.timed(started)
    assert not watch.steady_for(0.0)


async def test_a_ping_still_waiting_past_the_limit_means_not_answering(
    bus: Bus, clock: Clock
) -> None:
    watch = BusWatch(bus.ping, clock=clock)
    bus.release.clear()  # Redis paused: the ping hangs
    probe = asyncio.create_task(watch.probe())
    await asyncio.sleep(0)
    assert watch.answering()  # not yet past the limit
    clock.now += 3.0
    assert not watch.answering() and not watch.steady_for(0.0)
    bus.release.set()
    await probe  # it came back, but late: a stall
    assert not watch.answering()
