"""The API's start-up freeze without its full collection, for the apps a test process starts.

Production collects once before freezing so that no garbage is frozen for the process's life
(agentchat/gc_freeze.py). A test process starts an app per test, and each collection walks the
whole harness (200,000+ objects): 131 ms of CPU per app start and stop here, 15 ms without it.
What a bare freeze keeps is handed back when the app stops, as that thaws the whole heap.
`serve` processes keep the real freeze; tests/core/test_heap.py puts it back to test it.
"""

from __future__ import annotations

import gc

from agentchat import lifecycle


def freeze_without_collecting() -> None:
    """Make the API's lifespan (in this process) freeze the heap without collecting it first."""
    lifecycle.freeze_startup_heap = gc.freeze
