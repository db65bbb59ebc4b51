"""Recovery: answers left RUNNING by a process that stopped are re-attached to their run in
the bridge that still holds it; those no bridge holds become INTERRUPTED (their text kept) and
their streams end with the one `workflow_error`. At shutdown, runs in flight get a grace, then
are left going in their bridges (when those outlive the API) or stored INTERRUPTED.

With several processes (Redis) a run's owner is judged only while the bus answers, and only
once it has answered for an owner key's lifetime: an owner that kept its runs through a Redis
stall or restart has written its keys again by then. A run is stored INTERRUPTED only by a
process that asked the run's bridge; one on a bridge this process does not reach (another
`serve`'s local bridge) is left to its owner until that bridge can no longer hold it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from agentchat.events.model import RunFinished, UnknownRun
from agentchat.events.redis_health import BUS_ERRORS
from agentchat.protocol.bridge_api import HeldRun
from agentchat.runs import store
from agentchat.runs.cluster.owners import OWNER_TTL_S
from agentchat.runs.context import ActiveRun, RunContext
from agentchat.runs.drive.endings import end_of_orphan
from agentchat.runs.drive.final_write import let_bridge_go
from agentchat.runs.ports import Bridge
from agentchat.runs.recovery import reattach
from agentchat.runs.recovery.elsewhere import Elsewhere

log = logging.getLogger(__name__)

Follow = Callable[[ActiveRun, Bridge], Coroutine[Any, Any, None]]


class Recovery:
    def __init__(self, ctx: RunContext, follow: Follow) -> None:
        self.ctx = ctx
        self._follow = follow
        self.elsewhere = Elsewhere(ctx.settings.bridge_orphan_s + 2 * OWNER_TTL_S)

    async def recover(self) -> list[str]:
        """At start-up every RUNNING answer lost its process: re-attach or interrupt it.
        Returns the runs stored INTERRUPTED."""
        return await self.sweep_orphans()

    async def settle(self) -> None:
        """The sweeper's round: ends whose write failed are written again, then orphans."""
        for run_id, end in (await self.ctx.final_writes.settle()).items():
            await let_bridge_go(run_id, end.bridge)
        await self.sweep_orphans()

    async def sweep_orphans(self, only: list[str] | None = None) -> list[str]:
        """RUNNING answers nobody drives (one process: those it does not drive; several: those
        whose owner key is gone) are re-attached when a bridge holds their run, else stored
        INTERRUPTED with their checkpointed text, when this process could ask their bridge
        (see `Elsewhere` for the others). Returns the runs interrupted."""
        ctx = self.ctx
        running = await ctx.in_thread(store.running_runs)
        suspects = [
            r
            for r in running
            if r not in ctx.active
            and r not in ctx.claimed
            and r not in ctx.final_writes
            and (only is None or r in only)
        ]
        orphans = await self._ownerless(suspects) if suspects else []
        held = await reattach.held_runs(ctx.bridges) if orphans else {}
        placed = await ctx.owners.bridges_of(orphans) if orphans and ctx.owners else None
        lost, elsewhere = [], []
        for run_id in orphans:
            if run_id in held:
                if not await self._reattach(run_id, *held[run_id]):
                    lost.append(run_id)
            elif placed is None or placed.get(run_id) in ctx.bridges.urls:
                lost.append(run_id)  # its bridge was asked: it no longer holds the run
            else:
                elsewhere.append(run_id)
        if only is None:
            self.elsewhere.keep(elsewhere)
        if elsewhere:
            progress = await ctx.in_thread(lambda db: store.stored_progress(db, elsewhere))
            lost += self.elsewhere.given_up(progress, placed or {})
        return await self._interrupt(lost)

    async def _ownerless(self, suspects: list[str]) -> list[str]:
        """The suspects no live process owns: all of them with one process; with several,
        judged only on a bus that has answered every call for an owner key's lifetime (and
        did not stall during this one)."""
        owners, watch = self.ctx.owners, self.ctx.bus_watch
        if owners is None:
            return suspects
        if not watch.steady_for(OWNER_TTL_S):
            return []
        started = watch.now()
        try:
            alive = await owners.alive(suspects)
        except BUS_ERRORS:
            watch.failed()
            raise
        if not watch.timed(started) or not watch.steady_for(OWNER_TTL_S):
            return []
        return [r for r in suspects if r not in alive]

    async def _reattach(self, run_id: str, client: Bridge, there: HeldRun) -> bool:
        """Drive the run again, following its bridge; False when it cannot be."""
        ctx = self.ctx
        if ctx.owners is not None and not await ctx.owners.adopt(run_id):
            return True  # another process re-attached it first
        try:
            run = await ctx.in_thread(lambda db: reattach.load_run(db, run_id, ctx.settings))
            if run is None:
                await ctx.release(run_id)
                return True  # it ended meanwhile
            await reattach.open_on_bus(ctx, run)
        except BUS_ERRORS as exc:  # the bus, not the run: the next round tries again
            log.warning("could not re-attach run %s yet: the event bus failed (%r)", run_id, exc)
            ctx.bus_watch.failed()
            await ctx.release(run_id)
            return True
        except Exception:
            log.exception("could not re-attach run %s", run_id)
            await ctx.release(run_id)
            return False
        ctx.active[run_id] = run
        run.task = asyncio.create_task(self._follow(run, client), name=f"run-{run_id}")
        log.info("re-attached run %s at bridge event %d", run_id, run.stored_upto)
        if there.state == "waiting":
            await reattach.resend_stored_answer(ctx, run_id, client)
        return True

    async def _interrupt(self, run_ids: list[str]) -> list[str]:
        if not run_ids:
            return []
        error = store.LOST_ERROR
        ended = await self.ctx.in_thread(lambda db: store.interrupt_runs(db, run_ids, error))
        for run_id, message_id in ended.items():
            with contextlib.suppress(UnknownRun, RunFinished):
                await self.ctx.publish(run_id, end_of_orphan(run_id, message_id, error))
        if ended:
            log.warning(
                "stored %d answers their bridges lost as interrupted: %s", len(ended), list(ended)
            )
        return list(ended)

    async def shutdown(self, grace_s: float = 0.0) -> None:
        """Runs in flight get `grace_s` to finish. Those still going are then left to their
        bridges when the bridges outlive this process (logs and text flushed, rows RUNNING
        for the next process to re-attach), else cut and stored INTERRUPTED with their text."""
        runs = [r for r in self.ctx.active.values() if r.task is not None]
        tasks = [r.task for r in runs if r.task is not None]
        if tasks and grace_s > 0:
            log.info("waiting up to %.0f s for %d runs to finish", grace_s, len(tasks))
            await asyncio.wait(tasks, timeout=grace_s)
        detach = self.ctx.runtime.bridges_outlive_api
        for run in runs:
            run.detach = detach
        for task in [*tasks, *self.ctx.mending]:  # ends not yet on the bus: stored already
            task.cancel()
        for task in [*tasks, *self.ctx.mending]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.ctx.log_writer.close()
