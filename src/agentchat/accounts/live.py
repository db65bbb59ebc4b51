"""Requests in flight per user, so that ending a user's sessions also ends their open streams.

A stream ends when its request's `receive` answers `http.disconnect` (runs.streaming closes
the response cleanly then): `cut_off` gives a request a receive that does so as soon as the
request is cut."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from starlette.types import Message, Receive

DISCONNECT: Message = {"type": "http.disconnect"}


class LiveRequests:
    def __init__(self) -> None:
        self._open: dict[int, dict[asyncio.Event, str]] = {}

    @contextmanager
    def holding(self, user_id: int, token_digest: str) -> Iterator[asyncio.Event]:
        """Register a request of `user_id` signed in with `token_digest` while it runs; the
        event is set when it is cut."""
        cut = asyncio.Event()
        self._open.setdefault(user_id, {})[cut] = token_digest
        try:
            yield cut
        finally:
            held = self._open.get(user_id, {})
            held.pop(cut, None)
            if not held:
                self._open.pop(user_id, None)

    def cut(self, user_id: int | None = None, digests: Iterable[str] = ()) -> int:
        """Cut every request of `user_id`, and those signed in with one of `digests`."""
        wanted = set(digests)
        count = 0
        for owner, held in list(self._open.items()):
            for event, token_digest in list(held.items()):
                if owner == user_id or token_digest in wanted:
                    event.set()
                    count += 1
        return count

    def count(self, user_id: int) -> int:
        return len(self._open.get(user_id, {}))


def cut_off(receive: Receive, cut: asyncio.Event) -> Receive:
    """`receive`, or a disconnect as soon as `cut` is set."""

    async def receive_or_cut() -> Message:
        if cut.is_set():
            return DISCONNECT
        message = asyncio.ensure_future(receive())
        waiter = asyncio.ensure_future(cut.wait())
        try:
            await asyncio.wait({message, waiter}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            waiter.cancel()
        if message.done():
            return message.result()
        message.cancel()
        return DISCONNECT

    return receive_or_cut
