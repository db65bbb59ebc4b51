"""glibc's allocator in the bridge process: few arenas, and free memory handed back when idle.

Measured with bench/soak_growth.py (each turn a new chat): the bridge's resident memory kept
growing, ~16 MB per 1,000 chats, while what Python and its libraries held in use stayed at
about 40 MB. The rest was memory glibc had been given back but kept: after 3,000 chats its
arenas held 216 MB, 175 MB of it free in thousands of scattered chunks, and malloc_trim(0)
returned 130 MB at once. hermes builds a model client, with a freshly loaded CA store (~850 KB
in small blocks), for every model request and four for every new agent, on a new thread each
time; glibc gives concurrently allocating threads arenas of their own (up to 8 per core), each
fragmenting to its own high-water mark, and under the GIL they buy no parallelism. So the
bridge caps the arenas at start (their high-water mark then grew ~3 MB per 1,000 chats) and,
once it has had no turn running for a few seconds, returns the free pages to the system.
Elsewhere than glibc both are no-ops.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections.abc import Callable
from typing import Any

_M_ARENA_MAX = -8  # mallopt parameter, glibc's malloc.h
ARENAS = 2
IDLE_TRIM_S = 5.0


def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    has_both = hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim")
    return libc if has_both else None


_LIBC = _libc()


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap glibc's arenas; call before threads start allocating (it binds arenas made later).
    False where the C library is not glibc."""
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(_M_ARENA_MAX, count))


def trim() -> None:
    """malloc_trim(0): walks the arenas (milliseconds; ctypes lets the GIL go meanwhile)."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


class IdleTrim:
    """Trims once the bridge stayed idle (`busy()` false) for `delay_s` after a turn ended:
    under load the free pages are touched again within seconds, after it they stay free."""

    def __init__(
        self,
        busy: Callable[[], bool],
        delay_s: float = IDLE_TRIM_S,
        release: Callable[[], None] = trim,
    ) -> None:
        self._busy = busy
        self.delay_s = delay_s
        self._release = release
        self._pending: asyncio.TimerHandle | None = None

    def turn_ended(self) -> None:
        """Call on the event loop when a turn ended."""
        if self._pending is None and not self._busy():
            loop = asyncio.get_running_loop()
            self._pending = loop.call_later(self.delay_s, self._fire, loop)

    def _fire(self, loop: asyncio.AbstractEventLoop) -> None:
        self._pending = None
        if not self._busy():
            loop.run_in_executor(None, self._release)
