"""Steering a run that another API process drives: the request goes over the control bus to
the run's owner (its token is the run's owner key), which acts on its own bridge as it would
for a request of its own and replies with the outcome, errors included."""

from __future__ import annotations

import logging
from typing import Any

from redis.exceptions import RedisError

from agentchat.events.control_bus import ControlBus, NoListener
from agentchat.protocol.errors import AppError, BadGateway, Conflict, NotFound, ServiceUnavailable
from agentchat.runs.cluster.owners import RunOwners

log = logging.getLogger(__name__)

_ERRORS: dict[int, type[AppError]] = {
    404: NotFound,
    409: Conflict,
    502: BadGateway,
    503: ServiceUnavailable,
}


class Remote:
    def __init__(self, bus: ControlBus, owners: RunOwners) -> None:
        self.bus = bus
        self._owners = owners

    async def forward(self, run_id: str, op: str, args: dict[str, Any], timeout: float) -> bool:
        """Have the run's owner do `op`. False when no other live process owns the run or it
        did not answer in time (the caller falls back to what it can do itself); the owner's
        refusal is raised here as the same error."""
        try:
            owner = await self._owners.owner_of(run_id)
            if owner is None or owner == self.bus.token:
                return False
            reply = await self.bus.request(owner, {"op": op, "runId": run_id, **args}, timeout)
        except NoListener:
            return False
        except (TimeoutError, RedisError) as exc:
            log.warning("the owner of run %s did not answer %s: %r", run_id, op, exc)
            return False
        raise_for(reply)
        return True

    async def broadcast(self, op: str, args: dict[str, Any], timeout: float) -> None:
        """Have every other process do `op` (each on its own bridges); refusals are logged."""
        try:
            replies = await self.bus.broadcast({"op": op, **args}, timeout)
        except RedisError as exc:
            log.warning("could not ask the other processes to %s: %s", op, exc)
            return
        for reply in replies:
            if not reply.get("ok"):
                log.warning("a process could not %s: %s", op, reply.get("message"))


def ok_reply() -> dict[str, Any]:
    return {"ok": True}


def error_reply(exc: AppError) -> dict[str, Any]:
    return {"ok": False, "status": exc.status_code, "code": exc.code, "message": exc.message}


def raise_for(reply: dict[str, Any]) -> None:
    """The owner's error, raised again with its status and code."""
    if reply.get("ok"):
        return
    error = _ERRORS.get(int(reply.get("status") or 502), BadGateway)
    raise error(str(reply.get("message") or "the run's process refused"), code=reply.get("code"))
