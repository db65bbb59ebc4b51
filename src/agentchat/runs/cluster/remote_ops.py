"""The owner's side of remote steering: a request from another API process is done here
through the same code as a request of our own (`RunControl`, `steering`), on our bridges."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agentchat.events.control_bus import Handler
from agentchat.protocol.errors import AppError, Invalid
from agentchat.runs import store
from agentchat.runs.cluster.remote import error_reply, ok_reply
from agentchat.runs.steer import steering
from agentchat.runs.steer.control import RunControl

Op = Callable[[dict[str, Any]], Awaitable[object]]


def control_handler(control: RunControl) -> Handler:
    ctx = control.ctx
    ops: dict[str, Op] = {
        "stop": lambda b: control.stop(b["runId"]),
        "clarify": lambda b: control.resume(b["runId"], b["clarifyId"], b["answer"]),
        "steer": lambda b: steering.steer(ctx, b["runId"], b["text"]),
        "reset": lambda b: control.reset_agent(b["hermesSession"]),
        "forget_person": lambda b: control.forget_person_here(b["userId"]),
    }

    async def handle(body: dict[str, Any]) -> dict[str, Any]:
        op = ops.get(str(body.get("op")))
        try:
            if op is None:
                raise Invalid(f"unknown control operation {body.get('op')!r}")
            await _check_owner(body)
            await op(body)
        except AppError as exc:
            return error_reply(exc)
        return ok_reply()

    async def _check_owner(body: dict[str, Any]) -> None:
        """A run's operation asked for a person: 404 here too unless the run is theirs."""
        owner = body.get("ownerId")
        run_id = body.get("runId")
        if owner is None or run_id is None:
            return
        await ctx.in_thread(lambda db: store.check_owner(db, str(run_id), int(owner)))

    return handle
