"""Launching: start and regenerate create a run's rows, register it on the bus and hand it to
the driver as a background task."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import anyio
from sqlalchemy.orm import Session

from agentchat.attachments.kinds import Delivery
from agentchat.chat.sessions import get_session
from agentchat.principal import agent_key
from agentchat.protocol.errors import ServiceUnavailable
from agentchat.runs import store
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.schemas import Regenerated, RunStart, RunStarted
from agentchat.runs.start.planning import RunPlanner

Drive = Callable[[ActiveRun], Coroutine[Any, Any, None]]


class Launcher:
    def __init__(self, ctx: RunContext, drive: Drive) -> None:
        self.ctx = ctx
        self.planner = RunPlanner(ctx.settings, ctx.runtime)
        self._drive = drive
        self._start_lock = asyncio.Lock()

    async def start(self, session_id: int, body: RunStart) -> RunStarted:
        self._check_bridges()
        if body.skill_folder:  # a skill chosen now: checked before any database lock is taken
            person = await self.ctx.in_thread(lambda db: _agent_key_of(db, session_id))
            await anyio.to_thread.run_sync(
                self.planner.skill_names, body.skill_folder, True, person
            )
        run_id = await self._claim()
        async with self._start_lock, self._unclaim_on_error(run_id):
            run = await self.ctx.in_thread(
                lambda db: self.planner.create(db, session_id, body, None, run_id)
            )
        await self._load_skill(run)
        await self._launch(run)
        plan = run.plan
        return RunStarted(
            run_id=plan.run_id,
            message_id=plan.message_id,
            user_message_id=plan.user_message_id,
            deliveries=[Delivery(d) for d in plan.deliveries],
        )

    async def regenerate(self, message_id: int) -> Regenerated:
        self._check_bridges()
        run_id = await self._claim()
        async with self._start_lock, self._unclaim_on_error(run_id):
            run = await self.ctx.in_thread(
                lambda db: self.planner.create_regenerate(db, message_id, run_id)
            )
        await self._load_skill(run)
        await self._launch(run)
        return Regenerated(run_id=run.run_id, new_message_id=run.plan.message_id)

    def _check_bridges(self) -> None:
        """While the local bridge is being restarted a run would only fail: refuse it at once,
        before any row is written."""
        reason = self.ctx.runtime.bridge_status.run_refusal()
        if reason is not None:
            raise ServiceUnavailable(
                f"The agent service is not available right now: {reason}. "
                "Try again in a few seconds.",
                code="bridge_unavailable",
            )

    async def _load_skill(self, run: ActiveRun) -> None:
        folder = run.plan.skill_folder
        person = run.request.user_id if run.request is not None else None
        names = await anyio.to_thread.run_sync(self.planner.skill_names, folder, False, person)
        if run.request is not None:
            run.request = run.request.model_copy(update={"skills": names})

    async def _claim(self) -> str:
        """A new run id, owned by this process before its RUNNING row exists."""
        run_id = uuid.uuid4().hex
        self.ctx.claimed.add(run_id)
        if self.ctx.owners is not None:
            await self.ctx.owners.claim(run_id)
        return run_id

    @contextlib.asynccontextmanager
    async def _unclaim_on_error(self, run_id: str) -> AsyncIterator[None]:
        try:
            yield
        except BaseException:
            await self.ctx.release(run_id)
            raise

    async def _launch(self, run: ActiveRun) -> None:
        plan = run.plan
        meta = {"sessionId": plan.session_id, "messageId": plan.message_id}
        try:
            await self.ctx.bus.register(plan.run_id, meta)
        except BaseException:  # nothing will drive it: end it now rather than never
            await self.ctx.in_thread(lambda db: store.fail_stale_runs(db, [plan.run_id]))
            await self.ctx.release(plan.run_id)
            raise
        self.ctx.active[plan.run_id] = run
        self.ctx.claimed.discard(plan.run_id)
        run.task = asyncio.create_task(self._drive(run), name=f"run-{plan.run_id}")


def _agent_key_of(db: Session, session_id: int) -> str | None:
    """The opaque id the bridge keys the chat owner's agent by (None without accounts)."""
    return agent_key(get_session(db, session_id).owner_id)
