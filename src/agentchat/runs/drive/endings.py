"""Which terminal event ends a run. The events themselves are built only by
`protocol.events.workflow_complete` / `workflow_error`; these pick one and fill it."""

from __future__ import annotations

from agentchat.protocol.events import TerminalEvent, workflow_complete, workflow_error
from agentchat.protocol.status import RunStatus
from agentchat.runs.store import RunOutcome


def end_of_outcome(run_id: str, message_id: int, outcome: RunOutcome) -> TerminalEvent:
    """The end of a run this process drove to `outcome`."""
    if outcome.status == RunStatus.SUCCESS:
        return workflow_complete(run_id, message_id, outcome.text, outcome.usage)
    return workflow_error(
        run_id,
        message_id,
        outcome.error or "failed",
        stopped=outcome.status == RunStatus.STOPPED,
        partial_text=outcome.text,
        interrupted=outcome.status == RunStatus.INTERRUPTED,
    )


def end_of_stored(
    run_id: str, message_id: int, status: str, text: str | None, error: str | None
) -> TerminalEvent:
    """The end of a run the bus has forgotten, read back from its stored answer."""
    if status == RunStatus.SUCCESS:
        return workflow_complete(run_id, message_id, text or "")
    return workflow_error(
        run_id,
        message_id,
        error or "the run ended",
        stopped=status == RunStatus.STOPPED,
        interrupted=status == RunStatus.INTERRUPTED,
    )


def end_of_orphan(run_id: str, message_id: int, error: str) -> TerminalEvent:
    """The end of a run whose process died and whose bridge no longer has it (its answer was
    just stored INTERRUPTED with its text)."""
    return workflow_error(run_id, message_id, error, interrupted=True)
