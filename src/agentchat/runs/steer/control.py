"""Control: stop a run, answer its clarify question, reset a session's agent. A run driven by
another API process is steered through that process (`remote`: over the control bus, so it
works whatever the bridge topology); when no live process owns it, through the bridges, and
followed on the bus until the sweeper ends it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from sqlalchemy.orm import Session

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.chat import tree
from agentchat.chat.enums import MessageRole, MessageStatus
from agentchat.chat.sessions import ensure_no_active_run, get_session
from agentchat.events.model import TERMINAL_EVENTS, StreamInterrupted, UnknownRun
from agentchat.protocol.errors import BadGateway, Conflict, Invalid
from agentchat.protocol.events import APPROVAL_CHOICES
from agentchat.protocol.status import RunStatus
from agentchat.runs import store
from agentchat.runs.context import RunContext, new_hermes_session
from agentchat.runs.ports import Bridge
from agentchat.runs.schemas import ResetResult, RunSnapshot
from agentchat.runs.views.snapshots import snapshot

log = logging.getLogger(__name__)
STOP_GRACE_S = 5.0
# How much longer than the owner's own grace a caller waits for its reply.
FORWARD_MARGIN_S = 5.0
CLARIFY_TIMEOUT_S = 15.0
RESET_TIMEOUT_S = 5.0

Sweep = Callable[[list[str]], Awaitable[list[str]]]


class RunControl:
    def __init__(self, ctx: RunContext, sweep: Sweep, stop_grace_s: float = STOP_GRACE_S):
        self.ctx = ctx
        self._sweep = sweep
        self.stop_grace_s = stop_grace_s

    async def stop(self, run_id: str, owner_id: int | None = None) -> RunSnapshot:
        run = self.ctx.active.get(run_id)
        if run is None:
            return await self._stop_elsewhere(run_id, owner_id)
        run.stop_requested = True
        if run.client is not None:
            with contextlib.suppress(BridgeUnavailable):
                await run.client.abort(run_id)
        if run.task is not None:
            _done, pending = await asyncio.wait({run.task}, timeout=self.stop_grace_s)
            if pending:
                run.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await run.task
        return await snapshot(self.ctx, run_id)

    async def _stop_elsewhere(self, run_id: str, owner_id: int | None) -> RunSnapshot:
        message = await self.ctx.in_thread(lambda db: store.message_for_run(db, run_id))
        if message.status != RunStatus.RUNNING or run_id in self.ctx.final_writes:
            raise Conflict(f"run {run_id} has already ended", code="run_finished")
        timeout = self.stop_grace_s + FORWARD_MARGIN_S
        if not await forward(self.ctx, run_id, "stop", as_owner(owner_id), timeout):
            await self._abort_elsewhere(run_id, message.session_id)
            await self._wait_for_end(run_id, self.stop_grace_s)
        return await snapshot(self.ctx, run_id)

    async def _abort_elsewhere(self, run_id: str, session_id: int) -> None:
        """No live process owns the run: ask the bridges to abort it."""
        hermes_session = await self.ctx.in_thread(
            lambda db: get_session(db, session_id).hermes_session or ""
        )
        for client in self.ctx.bridges.candidates(hermes_session):
            with contextlib.suppress(BridgeUnavailable):
                await client.abort(run_id)

    async def _wait_for_end(self, run_id: str, timeout: float) -> None:
        """Follow the run on the bus until its terminal event (published by whichever process
        drives it), at most `timeout` seconds; a run whose process died is swept at once."""
        if await self._sweep([run_id]):
            return
        with contextlib.suppress(TimeoutError, UnknownRun, StreamInterrupted):
            async with asyncio.timeout(timeout):
                async for event in self.ctx.bus.subscribe(run_id):
                    if event.event in TERMINAL_EVENTS:
                        return
        await self._sweep([run_id])

    async def resume(
        self, run_id: str, clarify_id: str, answer: str, owner_id: int | None = None
    ) -> RunSnapshot:
        def check(db: Session) -> str:
            message = store.message_for_run(db, run_id)
            pause = store.pending_pause(db, run_id)
            if (
                message.status != RunStatus.RUNNING
                or pause is None
                or pause.clarify_id != clarify_id
            ):
                raise Conflict(
                    f"run {run_id} is not waiting for an answer to {clarify_id!r}",
                    code="stale_clarify",
                )
            check_approval_answer(pause.choices, answer)
            return get_session(db, message.session_id).hermes_session or ""

        hermes_session = await self.ctx.in_thread(check)
        run = self.ctx.active.get(run_id)
        args = {"clarifyId": clarify_id, "answer": answer, **as_owner(owner_id)}
        if run is None and await forward(self.ctx, run_id, "clarify", args, CLARIFY_TIMEOUT_S):
            return await snapshot(self.ctx, run_id)  # the owner stored the answer
        clients = (
            [run.client] if run and run.client else self.ctx.bridges.candidates(hermes_session)
        )
        # Recorded first: once the bridge has the answer the run may end (and close its pauses)
        # before the bridge's reply reaches us. A bridge that refuses it undoes the record.
        await self.ctx.in_thread(lambda db: store.answer_pause(db, run_id, clarify_id, answer))
        try:
            await _send_clarify(clients, run_id, clarify_id, answer)
        except BaseException:
            await self.ctx.in_thread(lambda db: store.reopen_pause(db, run_id, clarify_id))
            raise
        return await snapshot(self.ctx, run_id)

    async def reset(self, session_id: int, keep_history: bool) -> ResetResult:
        def apply(db: Session) -> tuple[str, str, int]:
            chat = get_session(db, session_id, lock=True)
            ensure_no_active_run(db, session_id)
            old, chat.hermes_session = chat.hermes_session or "", new_hermes_session()
            leaf = tree.active_leaf(db, session_id) if keep_history else None
            divider = tree.append_message(
                db,
                session_id,
                leaf.id if leaf else None,
                MessageRole.SYSTEM,
                "",
                MessageStatus.RESET,
            )
            return old, chat.hermes_session, divider.id

        old, new, divider_id = await self.ctx.in_thread(apply)
        await self.forget_agent(old)
        return ResetResult(hermes_session=new, divider_message_id=divider_id)

    async def forget_agent(self, hermes_session: str) -> None:
        """The chat was reset or deleted: every bridge drops what it holds for the session."""
        await self.reset_agent(hermes_session)
        if self.ctx.remote is not None:  # the agent may live in another process's bridge
            await self.ctx.remote.broadcast(
                "reset", {"hermesSession": hermes_session}, RESET_TIMEOUT_S
            )

    async def reset_agent(self, hermes_session: str) -> None:
        """Drop the session's agent from the bridges this process reaches."""
        for client in self.ctx.bridges.candidates(hermes_session):
            try:
                await client.reset(hermes_session)
            except BridgeUnavailable as exc:
                log.warning(
                    "bridge %s could not reset %s: %s", client.base_url, hermes_session, exc
                )

    async def forget_person(self, user_id: str) -> None:
        """The person was deleted: every bridge drops their agent's memory and skills."""
        await self.forget_person_here(user_id)
        if self.ctx.remote is not None:  # another process's bridge may hold some
            await self.ctx.remote.broadcast("forget_person", {"userId": user_id}, RESET_TIMEOUT_S)

    async def forget_person_here(self, user_id: str) -> None:
        for client in self.ctx.bridges.candidates(user_id):
            try:
                await client.forget_person(user_id)
            except BridgeUnavailable as exc:
                log.warning("bridge %s could not forget %s: %s", client.base_url, user_id, exc)


async def forward(
    ctx: RunContext, run_id: str, op: str, args: dict[str, Any], timeout: float
) -> bool:
    """Have the process that drives the run do `op` (False: none other does, or no Redis)."""
    if ctx.remote is None:
        return False
    return await ctx.remote.forward(run_id, op, args, timeout)


def as_owner(owner_id: int | None) -> dict[str, Any]:
    """Who asks, for a request forwarded to the run's process: it checks the run is theirs
    again before it acts (runs.cluster.remote_ops), whatever the asking process checked."""
    return {} if owner_id is None else {"ownerId": owner_id}


def check_approval_answer(choices_json: str | None, answer: str) -> None:
    """422 for an answer to a dangerous command's approval that is not one of its choices:
    the bridge takes anything else for a denial, which a typed "yes" must not silently be."""
    if json.loads(choices_json or "[]") != list(APPROVAL_CHOICES):
        return
    if answer.strip().lower() not in (c.lower() for c in APPROVAL_CHOICES):
        raise Invalid(
            f"Answer this approval with one of: {', '.join(APPROVAL_CHOICES)}.",
            code="not_a_choice",
        )


async def _send_clarify(
    clients: Sequence[Bridge], run_id: str, clarify_id: str, answer: str
) -> None:
    """The first bridge that knows the run takes the answer (the run may have moved to
    another worker than the session's preferred one)."""
    last: BridgeUnavailable | None = None
    for client in clients:
        try:
            await client.clarify(run_id, clarify_id, answer)
            return
        except BridgeUnavailable as exc:
            if exc.status_code == 409:
                raise Conflict(f"run {run_id} no longer waits for {clarify_id!r}") from exc
            last = exc
    if last is not None and last.status_code == 404:
        raise Conflict(f"run {run_id} no longer waits for {clarify_id!r}") from last
    raise BadGateway(f"The agent service did not take the answer: {last}")
