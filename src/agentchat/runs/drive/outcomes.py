"""How a run ended, as it will be stored: pure functions of the run and the bridge's result."""

from __future__ import annotations

from agentchat.protocol.events import RunEnd
from agentchat.protocol.status import RunStatus
from agentchat.runs.context import ActiveRun
from agentchat.runs.drive.redact import redact, redact_value
from agentchat.runs.history import compact_turn
from agentchat.runs.store import RunOutcome

STOPPED_BY_USER = "Stopped by the user."


def from_result(run: ActiveRun, result: RunEnd) -> RunOutcome:
    partial = "".join(run.answer)
    if result.status == RunStatus.SUCCESS:
        status, text, error = RunStatus.SUCCESS, result.final_text or partial, None
    elif result.status == RunStatus.STOPPED or run.stop_requested:
        status, text, error = RunStatus.STOPPED, result.final_text or partial, STOPPED_BY_USER
    else:
        status, text = RunStatus.FAILED, partial
        error = result.error or "The agent failed without saying why."
    return RunOutcome(
        status,
        text,
        error,
        result.usage or None,
        result.messages,
        result.compacted,
        tuple(result.approvals),
    )


def failure(run: ActiveRun, error: str) -> RunOutcome:
    return RunOutcome(RunStatus.FAILED, "".join(run.answer), error, None, [], False)


def stopped(run: ActiveRun) -> RunOutcome:
    """A run cancelled after the user's stop: the question and the text streamed so far."""
    return _cut(run, RunStatus.STOPPED, STOPPED_BY_USER)


def interrupted(run: ActiveRun, error: str) -> RunOutcome:
    """A run cut by the server's shutdown: the question and the text streamed so far."""
    return _cut(run, RunStatus.INTERRUPTED, error)


def _cut(run: ActiveRun, status: RunStatus, error: str) -> RunOutcome:
    text = "".join(run.answer)
    turn = [{"role": "user", "content": run.plan.question}]
    if text:
        turn.append({"role": "assistant", "content": text})
    return RunOutcome(status, text, error, None, turn, False)


def storable(run: ActiveRun, outcome: RunOutcome) -> RunOutcome:
    """The outcome with the model's key scrubbed and the turn's text not stored twice."""
    secrets = run.secrets
    text = redact(outcome.text, *secrets)
    messages = redact_value(outcome.messages, *secrets) if secrets else outcome.messages
    if not outcome.compacted:
        messages = compact_turn(messages, run.plan.question, text)
    return RunOutcome(
        outcome.status,
        text,
        redact(outcome.error, *secrets) if outcome.error else outcome.error,
        outcome.usage,
        messages,
        outcome.compacted,
        outcome.approvals,
    )
