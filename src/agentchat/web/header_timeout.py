"""A deadline for a request's headers, which uvicorn does not have: a client that connects and
sends nothing, or its headers a byte at a time (slowloris), held its connection for ever (its
keep-alive timeout starts only after a first response). Each connection is closed when a
request's headers are not complete `header_timeout_s` after it opened or after the previous
request's first byte; a body, the answer and a stream have no such deadline."""

from __future__ import annotations

import asyncio
from functools import cache

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from agentchat.core.settings import get_settings


@cache
def header_timeout_s() -> float:
    """From the settings `serve` checked at start (read again in each worker process)."""
    return get_settings().header_timeout_s


class HeaderTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the headers' deadline (pass as `http=`)."""

    _headers_due: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_clock()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._start_clock()  # the next request on a kept-alive connection

    def on_headers_complete(self) -> None:
        self._stop_clock()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_clock()
        super().connection_lost(exc)

    def _start_clock(self) -> None:
        if self._headers_due is None:
            self._headers_due = self.loop.call_later(header_timeout_s(), self._too_slow)

    def _stop_clock(self) -> None:
        if self._headers_due is not None:
            self._headers_due.cancel()
            self._headers_due = None

    def _too_slow(self) -> None:
        self._headers_due = None
        if not self.transport.is_closing():
            self.transport.close()
