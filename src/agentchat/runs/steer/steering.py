"""Guidance for a running agent: a person's message handed to hermes' `AIAgent.steer` through
the bridge that runs the turn (it reads it with its next tool result; nothing stops). A run
driven by another API process gets it through that process."""

from __future__ import annotations

from collections.abc import Sequence

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.chat.sessions import get_session
from agentchat.protocol.errors import Conflict
from agentchat.protocol.status import RunStatus
from agentchat.runs import store
from agentchat.runs.context import RunContext
from agentchat.runs.ports import Bridge
from agentchat.runs.steer.control import as_owner, forward

_NOT_NOW = "The agent cannot take a message right now"
STEER_TIMEOUT_S = 15.0


async def steer(ctx: RunContext, run_id: str, text: str, owner_id: int | None = None) -> None:
    message = await ctx.in_thread(lambda db: store.message_for_run(db, run_id))
    if message.status != RunStatus.RUNNING:
        raise Conflict(f"run {run_id} has already ended", code="run_finished")
    run = ctx.active.get(run_id)
    args = {"text": text, **as_owner(owner_id)}
    if run is None and await forward(ctx, run_id, "steer", args, STEER_TIMEOUT_S):
        return
    clients: Sequence[Bridge]
    if run is not None and run.client is not None:
        clients = [run.client]
    else:  # no live process owns it: the bridge that runs it may still know the run
        hermes_session = await ctx.in_thread(
            lambda db: get_session(db, message.session_id).hermes_session or ""
        )
        clients = ctx.bridges.candidates(hermes_session)
    for client in clients:
        try:
            await client.steer(run_id, text)
            return
        except BridgeUnavailable as exc:
            if exc.status_code == 409:
                raise Conflict(_NOT_NOW, code="not_steerable") from exc
    raise Conflict(_NOT_NOW, code="not_steerable")
