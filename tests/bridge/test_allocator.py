"""The bridge hands the allocator's free pages back once it is idle, not during a burst of
turns (the pages would be touched again at once); what that saves is a figure of
bench/soak_growth.py."""

from __future__ import annotations

import asyncio

import pytest

from agentchat.bridge.server import allocator
from agentchat.bridge.server.allocator import IdleTrim

DELAY_S = 0.05


class Bridge:
    def __init__(self) -> None:
        self.running = 0
        self.trims = 0

    def busy(self) -> bool:
        return self.running > 0

    def trim(self) -> None:
        self.trims += 1


async def settle() -> None:
    await asyncio.sleep(DELAY_S * 4)


async def test_the_last_turn_ending_trims_once_after_the_delay() -> None:
    bridge = Bridge()
    heap = IdleTrim(bridge.busy, DELAY_S, bridge.trim)
    heap.turn_ended()
    heap.turn_ended()  # one pending trim, not two
    assert bridge.trims == 0
    await settle()
    assert bridge.trims == 1


async def test_no_trim_while_turns_run() -> None:
    bridge = Bridge()
    heap = IdleTrim(bridge.busy, DELAY_S, bridge.trim)
    bridge.running = 1
    heap.turn_ended()  # another turn still runs: nothing planned
    await settle()
    bridge.running = 0
    heap.turn_ended()
    bridge.running = 1  # a turn started before the delay ran out
    await settle()
    assert bridge.trims == 0
    bridge.running = 0
    heap.turn_ended()
    await settle()
    assert bridge.trims == 1


@pytest.mark.skipif(allocator._LIBC is None, reason="not glibc")
def test_glibc_takes_the_arena_cap_and_the_trim() -> None:
    assert allocator.limit_arenas()
    allocator.trim()
