"""The terminal events of a run: the one place each is built (live end, swept orphan, and a
run the bus has forgotten all end through these)."""

from __future__ import annotations

from typing import Any

from agentchat.runs.store import RunOutcome

Event = tuple[str, dict[str, Any]]


def workflow_complete(
    run_id: str, message_id: int, final_text: str | None, usage: dict[str, Any] | None = None
) -> Event:
    data: dict[str, Any] = {"runId": run_id, "messageId": message_id, "finalText": final_text}
    if usage:
        data["usage"] = usage
    return "workflow_complete", data


def workflow_error(
    run_id: str,
    message_id: int,
    message: str,
    *,
    stopped: bool = False,
    partial_text: str | None = None,
) -> Event:
    data: dict[str, Any] = {
        "runId": run_id,
        "messageId": message_id,
        "message": message,
        "stopped": stopped,
    }
    if partial_text is not None:
        data["partialText"] = partial_text
    return "workflow_error", data


def ending(run_id: str, message_id: int, outcome: RunOutcome) -> Event:
    """The terminal event of a run this process drove to `outcome`."""
    if outcome.status == "SUCCESS":
        return workflow_complete(run_id, message_id, outcome.text, outcome.usage)
    return workflow_error(
        run_id,
        message_id,
        outcome.error or "failed",
        stopped=outcome.status == "STOPPED",
        partial_text=outcome.text,
    )


def ended(run_id: str, message_id: int, status: str, text: str | None, error: str | None) -> Event:
    """The terminal event of a run read back from its stored answer."""
    if status == "SUCCESS":
        return workflow_complete(run_id, message_id, text)
    return workflow_error(run_id, message_id, error or "the run ended", stopped=status == "STOPPED")
