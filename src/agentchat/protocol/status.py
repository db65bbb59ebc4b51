"""A run's status: one vocabulary from the bridge's `run_end` to the stored answer and the page.

An answer is RUNNING, then ends SUCCESS, FAILED, STOPPED or INTERRUPTED (cut by a server
shutdown or restart its bridge did not outlive; only the API says that one). A bridge of an
earlier version spelled its ends in lowercase: they are read as the same values.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class RunStatus(StrEnum):
    RUNNING = "RUNNING"
    SUCCESS = "SUCCESS"
    FAILED = "FAILED"
    STOPPED = "STOPPED"
    INTERRUPTED = "INTERRUPTED"

    @classmethod
    def _missing_(cls, value: object) -> RunStatus | None:
        if isinstance(value, str) and value.upper() in cls._value2member_map_:
            return cls(value.upper())
        return None


ENDED = frozenset({RunStatus.SUCCESS, RunStatus.FAILED, RunStatus.STOPPED, RunStatus.INTERRUPTED})

# A run the bridge holds (`GET /runs`): going, waiting on a clarify, or ended with its events
# not yet read to the end. The bridge's own bookkeeping, not a run's status.
HeldState = Literal["running", "waiting", "ended"]
