"""The owner's side of remote steering: a request from another API process is done here
through the same code as a request of our own (`RunControl`, `steering`), on our bridges."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from agentchat.events.control_bus import Handler
from agentchat.protocol.errors import AppError, Invalid
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
            await op(body)
        except AppError as exc:
            return error_reply(exc)
        return ok_reply()

    return handle
