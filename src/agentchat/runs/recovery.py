"""Recovery: answers left RUNNING by a process that died become FAILED, and their streams end
with the one `workflow_error`."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from agentchat.events.model import RunFinished, UnknownRun
from agentchat.runs import store
from agentchat.runs.context import RunContext
from agentchat.runs.endings import end_of_orphan

log = logging.getLogger(__name__)


class Recovery:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    async def recover(self) -> list[str]:
        """Answers left RUNNING by a crash become FAILED with a clear error (one process: at
        start-up every RUNNING answer is an orphan)."""
        return await self.ctx.in_thread(lambda db: store.fail_stale_runs(db))

    async def settle(self) -> None:
        """The sweeper's round: ends whose write failed are written again, then orphans go."""
        await self.ctx.final_writes.settle()
        await self.sweep_orphans()

    async def sweep_orphans(self, only: list[str] | None = None) -> list[str]:
        """RUNNING answers nobody drives become FAILED (their checkpointed text kept), and
        their streams end with a `workflow_error`. One process: those it does not drive;
        several processes: those whose owner key is gone (their process died)."""
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
        if not suspects:
            return []
        alive = await ctx.owners.alive(suspects) if ctx.owners is not None else set()
        orphans = [r for r in suspects if r not in alive]
        if not orphans:
            return []
        failed = await self.ctx.in_thread(lambda db: store.fail_stale_runs(db, orphans))
        for run_id in failed:
            await self._end_orphan(run_id, running[run_id])
        if failed:
            log.warning("ended %d answers whose process stopped: %s", len(failed), failed)
        return failed

    async def _end_orphan(self, run_id: str, message_id: int) -> None:
        with contextlib.suppress(UnknownRun, RunFinished):
            await self.ctx.publish(run_id, end_of_orphan(run_id, message_id))

    async def shutdown(self, grace_s: float = 0.0) -> None:
        """Runs in flight get `grace_s` to finish; the rest are cancelled (each stores its
        end, with its text, as interrupted) and the logs flushed."""
        tasks = [r.task for r in self.ctx.active.values() if r.task is not None]
        if tasks and grace_s > 0:
            log.info("waiting up to %.0f s for %d runs to finish", grace_s, len(tasks))
            await asyncio.wait(tasks, timeout=grace_s)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.ctx.log_writer.close()
