"""The collector and long-lived start-up objects (used by the API and the bridge)."""

from __future__ import annotations

import gc


def freeze_startup_heap() -> None:
    """Move what start-up built (modules, the app, the ORM, hermes' tools) out of the collector's
    reach. A full collection otherwise walks all of it: 45-65 ms on this kind of machine, a
    pause every live stream feels under load; after the freeze it walks only newer objects."""
    gc.collect()
    gc.freeze()


def thaw_heap() -> None:
    """At shutdown: hand the frozen objects back to the collector (a process that starts the
    app again, as the tests do, would otherwise keep every earlier app's objects for ever)."""
    gc.unfreeze()
