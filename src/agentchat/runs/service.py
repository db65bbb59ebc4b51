"""Runs: start a turn, stream it from the bridge onto the bus, persist it, resume, stop, reset.

One event travels one way: bridge → BridgeClient → this service → bus → {SSE route}; log lines
go to the batched LogWriter, the end of the run to the message row. The service never holds a
database session across an await: each piece of database work is a short transaction run in a
worker thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from sqlalchemy.orm import Session

from agentchat.bridge.client import BridgeClient, BridgeResult, BridgeUnavailable
from agentchat.chat import tree
from agentchat.chat.sessions import ensure_no_active_run, get_session
from agentchat.core.database import Database
from agentchat.core.errors import BadGateway, Conflict
from agentchat.core.redact import redact, redact_value
from agentchat.core.settings import Settings
from agentchat.events.bus import EventBus
from agentchat.events.contract import (
    NODE_STREAM,
    AnswerDelta,
    ClarifyRequest,
    ContextCompacted,
    NodeEvent,
    RunEnd,
    TerminalEvent,
    workflow_complete,
    workflow_error,
)
from agentchat.events.model import TERMINAL_EVENTS, RunFinished, StreamInterrupted, UnknownRun
from agentchat.models.service import ResolvedModel, resolve_model
from agentchat.models.wire import bridge_model, wire_secrets
from agentchat.runs import store
from agentchat.runs.bridges import BridgeRouter
from agentchat.runs.history import compact_turn
from agentchat.runs.log_writer import LogWriter
from agentchat.runs.owners import RunOwners
from agentchat.runs.schemas import (
    PendingClarify,
    Regenerated,
    ResetResult,
    RunLog,
    RunStart,
    RunStarted,
    RunState,
)
from agentchat.skills.service import registry_for

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_MAX_ITERATIONS = 50
STOP_GRACE_S = 5.0


@dataclass
class ActiveRun:
    plan: store.RunPlan
    request: dict[str, Any]
    client: BridgeClient | None = None
    task: asyncio.Task[None] | None = None
    answer: list[str] = field(default_factory=list)
    seq: int = 0
    events_seen: int = 0
    summary_message_id: int | None = None
    stop_requested: bool = False

    @property
    def run_id(self) -> str:
        return self.plan.run_id

    @property
    def secrets(self) -> tuple[str, ...]:
        """The API keys of the model and its fallback: scrubbed from anything the run
        publishes or stores."""
        return wire_secrets(self.request.get("model", {}))


def new_hermes_session() -> str:
    return f"chat-{uuid.uuid4()}"


def skill_prompt(name: str) -> str:
    return (
        f'Use the skill "{name}" to complete the task: load it with the skill_view tool '
        "and follow its instructions."
    )


class RunService:
    def __init__(
        self,
        database: Database,
        bus: EventBus,
        bridges: BridgeRouter,
        log_writer: LogWriter,
        settings: Settings,
        owners: RunOwners | None = None,
    ) -> None:
        self.database = database
        self.bus = bus
        self.bridges = bridges
        self.log_writer = log_writer
        self.settings = settings
        self.owners = owners
        self.skills = registry_for(settings)
        self._active: dict[str, ActiveRun] = {}
        self._start_lock = asyncio.Lock()

    # ---- starting -----------------------------------------------------------------------

    async def start(self, session_id: int, body: RunStart) -> RunStarted:
        run_id = await self._claim()
        async with self._start_lock, self._unclaim_on_error(run_id):
            run = await self._in_thread(lambda db: self._create(db, session_id, body, None, run_id))
        await self._launch(run)
        plan = run.plan
        return RunStarted(
            run_id=plan.run_id, message_id=plan.message_id, user_message_id=plan.user_message_id
        )

    async def regenerate(self, message_id: int) -> Regenerated:
        run_id = await self._claim()
        async with self._start_lock, self._unclaim_on_error(run_id):
            run = await self._in_thread(lambda db: self._create_regenerate(db, message_id, run_id))
        await self._launch(run)
        return Regenerated(run_id=run.run_id, new_message_id=run.plan.message_id)

    async def _claim(self) -> str:
        """A new run id, owned by this process before its RUNNING row exists."""
        run_id = uuid.uuid4().hex
        if self.owners is not None:
            await self.owners.claim(run_id)
        return run_id

    @contextlib.asynccontextmanager
    async def _unclaim_on_error(self, run_id: str) -> AsyncIterator[None]:
        try:
            yield
        except BaseException:
            await self._release(run_id)
            raise

    async def _release(self, run_id: str) -> None:
        if self.owners is not None:
            try:
                await self.owners.release(run_id)
            except Exception:  # the key expires on its own
                log.warning("could not release the owner key of run %s", run_id)

    def _create(
        self,
        db: Session,
        session_id: int,
        body: RunStart,
        assistant_sibling_of: int | None,
        run_id: str,
    ) -> ActiveRun:
        chat = get_session(db, session_id, lock=True)
        if chat.status != "ACTIVE":
            raise Conflict(f"chat session {session_id} is archived; restore it to continue")
        store.ensure_can_start(db, session_id, self.settings.max_active_runs)
        strict = body.model_id is not None and assistant_sibling_of is None  # a modelId sent
        model = resolve_model(db, body.model_id or chat.model_id, self.settings, strict=strict)
        skill_folder = body.skill_folder if body.skill_folder is not None else chat.skill_folder
        prompt = skill_prompt(self.skills.get(skill_folder).name) if skill_folder else None
        fields = {"model_id": model.id, "skill_folder": skill_folder or None}
        if body.model_id is not None:
            chat.model_id = body.model_id
        if body.skill_folder is not None:
            chat.skill_folder = body.skill_folder or None
        if not chat.hermes_session:
            chat.hermes_session = new_hermes_session()
        if assistant_sibling_of is None:
            user = store.user_message_for(
                db, session_id, body.message, body.parent_message_id, fields
            )
            assistant = tree.append_message(
                db, session_id, user.id, "ASSISTANT", "", "RUNNING", run_id=run_id, **fields
            )
        else:
            assistant = tree.new_sibling(
                db, assistant_sibling_of, "", "RUNNING", run_id=run_id, **fields
            )
            user = tree.get_message(db, assistant.parent_id or 0)
        plan = store.RunPlan(
            run_id=run_id,
            session_id=session_id,
            message_id=assistant.id,
            user_message_id=user.id,
            user_text=user.content,
            history=store.branch_history(db, session_id, user),
            hermes_session=chat.hermes_session,
            model_id=model.id,
            skill_folder=skill_folder or None,
        )
        request = self._bridge_request(plan, model, prompt, body.max_iterations)
        return ActiveRun(plan=plan, request=request)

    def _create_regenerate(self, db: Session, message_id: int, run_id: str) -> ActiveRun:
        original = tree.get_message(db, message_id)
        if original.role != "ASSISTANT" or original.parent_id is None:
            raise Conflict(f"message {message_id} is not an answer; only answers regenerate")
        if original.status == "RUNNING":
            raise Conflict(f"message {message_id} is still running; stop it first")
        parent = tree.get_message(db, original.parent_id)
        if parent.role != "USER":
            raise Conflict(f"message {message_id} does not answer a user message")
        body = RunStart(model_id=original.model_id, skill_folder=original.skill_folder)
        return self._create(db, original.session_id, body, message_id, run_id)

    def _bridge_request(
        self,
        plan: store.RunPlan,
        model: ResolvedModel,
        system_prompt: str | None,
        max_iterations: int | None,
    ) -> dict[str, Any]:
        return {
            "runId": plan.run_id,
            "sessionId": plan.hermes_session,
            "systemPrompt": system_prompt,
            "userMessage": plan.user_text,
            "history": plan.history,
            "model": bridge_model(model),
            "maxIterations": max_iterations or DEFAULT_MAX_ITERATIONS,
            "toolsets": self.settings.toolsets,
        }

    async def _launch(self, run: ActiveRun) -> None:
        plan = run.plan
        meta = {"sessionId": plan.session_id, "messageId": plan.message_id}
        try:
            await self.bus.register(plan.run_id, meta)
        except BaseException:  # nothing will drive it: end it now rather than never
            await self._in_thread(lambda db: store.fail_stale_runs(db, [plan.run_id]))
            await self._release(plan.run_id)
            raise
        self._active[plan.run_id] = run
        run.task = asyncio.create_task(self._drive(run), name=f"run-{plan.run_id}")

    # ---- driving ------------------------------------------------------------------------

    async def _drive(self, run: ActiveRun) -> None:
        try:
            outcome = self._outcome(run, await self._call_bridges(run))
        except BridgeUnavailable as exc:
            outcome = self._failure(run, f"The agent service is unavailable: {exc}")
        except asyncio.CancelledError:
            reason = None if run.stop_requested else "The server stopped during this answer."
            await self._finish(
                run, self._stopped(run) if reason is None else self._failure(run, reason)
            )
            raise
        except Exception as exc:
            log.exception("run %s failed", run.run_id)
            outcome = self._failure(run, f"The run failed: {exc}")
        await self._finish(run, outcome)

    async def _call_bridges(self, run: ActiveRun) -> BridgeResult:
        """Run on the session's bridge; move to the next one when it cannot be reached (and
        remember it as down for a few seconds, so the next turns do not wait on it)."""
        error: BridgeUnavailable | None = None
        for client in self.bridges.candidates(run.plan.hermes_session):
            run.client = client
            try:
                result = await self._turn(client, run)
            except BridgeUnavailable as exc:
                if run.events_seen or run.stop_requested or exc.status_code is not None:
                    raise
                self.bridges.mark_down(client.base_url)
                error = exc
                continue
            self.bridges.mark_up(client.base_url)
            return result
        assert error is not None
        raise error

    async def _turn(self, client: BridgeClient, run: ActiveRun) -> BridgeResult:
        async with contextlib.aclosing(client.run(run.request)) as events:
            async for event in events:
                if isinstance(event, RunEnd):
                    return event
                await self._on_event(run, event)
        raise BridgeUnavailable("the bridge stream ended without a run_end event")

    async def _on_event(self, run: ActiveRun, event: NodeEvent | ContextCompacted) -> None:
        run.events_seen += 1
        if isinstance(event, ContextCompacted):
            await self._on_compacted(run, redact(event.summary, *run.secrets))
            return
        data = event.page_body(run.run_id)
        if run.secrets:
            data = redact_value(data, *run.secrets)
        content = data["content"]
        if isinstance(event, AnswerDelta):
            run.answer.append(content)
        else:
            tool_name, meta = data.get("toolName"), data.get("meta")
            message_id = run.plan.message_id
            self.log_writer.append(message_id, run.seq, event.kind, content, tool_name, meta)
            run.seq += 1
            if isinstance(event, ClarifyRequest):
                await self._record_clarify(run, data["meta"])
        await self.bus.publish(run.run_id, NODE_STREAM, data)

    async def _record_clarify(self, run: ActiveRun, meta: dict[str, Any]) -> None:
        clarify_id = str(meta.get("clarifyId") or "")
        question = str(meta.get("question") or "")
        choices = [str(c) for c in meta.get("choices") or []]
        await self._in_thread(
            lambda db: store.mark_pause(db, run.run_id, clarify_id, question, choices)
        )

    async def _on_compacted(self, run: ActiveRun, summary: str) -> None:
        if run.summary_message_id is None:
            run.summary_message_id = await self._in_thread(
                lambda db: store.add_summary(db, run.plan.message_id, summary)
            )
        else:
            summary_id = run.summary_message_id

            def update(db: Session) -> None:
                tree.get_message(db, summary_id).content = summary

            await self._in_thread(update)
        event = ContextCompacted(
            run_id=run.run_id, summary=summary, summary_message_id=run.summary_message_id
        )
        await self.bus.publish(run.run_id, event.EVENT, event.wire())

    def _outcome(self, run: ActiveRun, result: BridgeResult) -> store.RunOutcome:
        partial = "".join(run.answer)
        if result.status == "success":
            status, text, error = "SUCCESS", result.final_text or partial, None
        elif result.status == "stopped" or run.stop_requested:
            status, text, error = "STOPPED", result.final_text or partial, "Stopped by the user."
        else:
            status, text = "FAILED", partial
            error = result.error or "The agent failed without saying why."
        return store.RunOutcome(
            status, text, error, result.usage or None, result.messages, result.compacted
        )

    def _failure(self, run: ActiveRun, error: str) -> store.RunOutcome:
        return store.RunOutcome("FAILED", "".join(run.answer), error, None, [], False)

    def _stopped(self, run: ActiveRun) -> store.RunOutcome:
        text = "".join(run.answer)
        turn = [{"role": "user", "content": run.plan.user_text}]
        if text:
            turn.append({"role": "assistant", "content": text})
        return store.RunOutcome("STOPPED", text, "Stopped by the user.", None, turn, False)

    async def _finish(self, run: ActiveRun, outcome: store.RunOutcome) -> None:
        plan = run.plan
        outcome = self._storable(run, outcome)
        try:
            await self.log_writer.flush()
            await self._in_thread(
                lambda db: store.finish_message(
                    db, plan.message_id, outcome, run.summary_message_id
                )
            )
        except Exception:
            log.exception("could not save the end of run %s", plan.run_id)
        finally:
            self._active.pop(plan.run_id, None)
            try:
                await self._publish_end(run, outcome)
            finally:
                await self._release(plan.run_id)

    @staticmethod
    def _storable(run: ActiveRun, outcome: store.RunOutcome) -> store.RunOutcome:
        """The outcome with the model's key scrubbed and the turn's text not stored twice."""
        secrets = run.secrets
        text = redact(outcome.text, *secrets)
        messages = redact_value(outcome.messages, *secrets) if secrets else outcome.messages
        if not outcome.compacted:
            messages = compact_turn(messages, run.plan.user_text, text)
        return store.RunOutcome(
            outcome.status,
            text,
            redact(outcome.error, *secrets) if outcome.error else outcome.error,
            outcome.usage,
            messages,
            outcome.compacted,
        )

    async def _publish_end(self, run: ActiveRun, outcome: store.RunOutcome) -> None:
        plan = run.plan
        end: TerminalEvent
        if outcome.status == "SUCCESS":
            end = workflow_complete(plan.run_id, plan.message_id, outcome.text, outcome.usage)
        else:
            end = workflow_error(
                plan.run_id,
                plan.message_id,
                outcome.error or "failed",
                stopped=outcome.status == "STOPPED",
                partial_text=outcome.text,
            )
        await self.bus.publish(plan.run_id, end.EVENT, end.wire())

    # ---- steering -----------------------------------------------------------------------

    async def stop(self, run_id: str) -> RunState:
        run = self._active.get(run_id)
        if run is None:
            message = await self._in_thread(lambda db: store.message_for_run(db, run_id))
            if message.status != "RUNNING":
                raise Conflict(f"run {run_id} has already ended", code="run_finished")
            await self._abort_elsewhere(run_id, message.session_id)
            await self._wait_for_end(run_id, STOP_GRACE_S)
            return await self.state(run_id)
        run.stop_requested = True
        if run.client is not None:
            with contextlib.suppress(BridgeUnavailable):
                await run.client.abort(run_id)
        if run.task is not None:
            _done, pending = await asyncio.wait({run.task}, timeout=STOP_GRACE_S)
            if pending:
                run.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await run.task
        return await self.state(run_id)

    async def _abort_elsewhere(self, run_id: str, session_id: int) -> None:
        """The run is driven by another API process: ask its bridge to abort it."""
        hermes_session = await self._in_thread(
            lambda db: get_session(db, session_id).hermes_session or ""
        )
        for client in self.bridges.candidates(hermes_session):
            with contextlib.suppress(BridgeUnavailable):
                await client.abort(run_id)

    async def _wait_for_end(self, run_id: str, timeout: float) -> None:
        """Follow the run on the bus until its terminal event (published by whichever process
        drives it), at most `timeout` seconds; a run whose process died is swept at once."""
        if await self.sweep_orphans([run_id]):
            return
        with contextlib.suppress(TimeoutError, UnknownRun, StreamInterrupted):
            async with asyncio.timeout(timeout):
                async for event in self.bus.subscribe(run_id):
                    if event.event in TERMINAL_EVENTS:
                        return
        await self.sweep_orphans([run_id])

    async def resume(self, run_id: str, clarify_id: str, answer: str) -> RunState:
        def check(db: Session) -> str:
            message = store.message_for_run(db, run_id)
            pause = store.pending_pause(db, run_id)
            if message.status != "RUNNING" or pause is None or pause.clarify_id != clarify_id:
                raise Conflict(
                    f"run {run_id} is not waiting for an answer to {clarify_id!r}",
                    code="stale_clarify",
                )
            return get_session(db, message.session_id).hermes_session or ""

        hermes_session = await self._in_thread(check)
        run = self._active.get(run_id)
        clients = [run.client] if run and run.client else self.bridges.candidates(hermes_session)
        await self._send_clarify(clients, run_id, clarify_id, answer)
        await self._in_thread(lambda db: store.answer_pause(db, run_id, clarify_id, answer))
        return await self.state(run_id)

    async def _send_clarify(
        self, clients: list[BridgeClient], run_id: str, clarify_id: str, answer: str
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

    # ---- reading ------------------------------------------------------------------------

    async def state(self, run_id: str) -> RunState:
        def read(db: Session) -> tuple[Any, Any, list[Any]]:
            message = store.message_for_run(db, run_id)
            pause = store.pending_pause(db, run_id)
            return message, pause, store.stored_logs(db, message.id)

        message, pause, stored = await self._in_thread(read)
        events = await self.bus.history(run_id) if await self.bus.is_known(run_id) else []
        logs = (
            [
                RunLog(
                    seq=i,
                    kind=e.data["kind"],
                    content=e.data.get("content"),
                    tool_name=e.data.get("toolName"),
                    meta=e.data.get("meta"),
                )
                for i, e in enumerate(
                    x
                    for x in events
                    if x.event == "node_stream" and x.data["kind"] != "answer_delta"
                )
            ]
            if events
            else [
                RunLog(
                    seq=r.seq,
                    kind=r.kind,
                    content=r.content,
                    tool_name=r.tool_name,
                    meta=json.loads(r.meta_json) if r.meta_json else None,
                )
                for r in stored
            ]
        )
        pending = None
        if pause is not None and message.status == "RUNNING":
            pending = PendingClarify(
                clarify_id=pause.clarify_id,
                question=pause.question,
                choices=json.loads(pause.choices or "[]"),
            )
        return RunState(
            run_id=run_id,
            session_id=message.session_id,
            message_id=message.id,
            status=message.status,
            event_count=len(events),
            pending_clarify=pending,
            final_text=message.content if message.status != "RUNNING" else None,
            error=message.error,
            logs=logs,
        )

    def active_run_ids(self) -> list[str]:
        return list(self._active)

    # ---- session-level ------------------------------------------------------------------

    async def reset(self, session_id: int, keep_history: bool) -> ResetResult:
        def apply(db: Session) -> tuple[str, str, int]:
            chat = get_session(db, session_id, lock=True)
            ensure_no_active_run(db, session_id)
            old, chat.hermes_session = chat.hermes_session or "", new_hermes_session()
            leaf = tree.active_leaf(db, session_id) if keep_history else None
            divider = tree.append_message(
                db, session_id, leaf.id if leaf else None, "SYSTEM", "", "RESET"
            )
            return old, chat.hermes_session, divider.id

        old, new, divider_id = await self._in_thread(apply)
        for client in self.bridges.candidates(old):
            try:
                await client.reset(old)
            except BridgeUnavailable as exc:
                log.warning("bridge %s could not reset %s: %s", client.base_url, old, exc)
        return ResetResult(hermes_session=new, divider_message_id=divider_id)

    async def memory(self, session_id: int) -> dict[str, Any]:
        client = await self._session_bridge(session_id)
        try:
            return await client.get_memory(await self._hermes_session(session_id))
        except BridgeUnavailable as exc:
            raise BadGateway(f"The agent service could not read memory: {exc}") from exc

    async def put_memory(
        self, session_id: int, memory: str | None, user: str | None
    ) -> dict[str, Any]:
        client = await self._session_bridge(session_id)
        try:
            return await client.put_memory(
                await self._hermes_session(session_id), memory=memory, user=user
            )
        except BridgeUnavailable as exc:
            if exc.status_code == 422:
                raise Conflict(str(exc), code="memory_invalid") from exc
            raise BadGateway(f"The agent service could not save memory: {exc}") from exc

    async def _hermes_session(self, session_id: int) -> str:
        def read(db: Session) -> str:
            chat = get_session(db, session_id)
            if not chat.hermes_session:
                chat.hermes_session = new_hermes_session()
            return chat.hermes_session

        return await self._in_thread(read)

    async def _session_bridge(self, session_id: int) -> BridgeClient:
        return self.bridges.client_for(await self._hermes_session(session_id))

    # ---- lifecycle ----------------------------------------------------------------------

    async def recover(self) -> list[str]:
        """Answers left RUNNING by a crash become FAILED with a clear error (one process: at
        start-up every RUNNING answer is an orphan)."""
        return await self._in_thread(lambda db: store.fail_stale_runs(db))

    async def sweep_orphans(self, only: list[str] | None = None) -> list[str]:
        """Several processes: RUNNING answers whose owner key is gone (their process died)
        become FAILED, and their streams end with a `workflow_error`."""
        if self.owners is None:
            return []
        running = await self._in_thread(store.running_runs)
        suspects = [r for r in running if r not in self._active and (only is None or r in only)]
        if not suspects:
            return []
        alive = await self.owners.alive(suspects)
        orphans = [r for r in suspects if r not in alive]
        if not orphans:
            return []
        failed = await self._in_thread(lambda db: store.fail_stale_runs(db, orphans))
        for run_id in failed:
            await self._end_orphan(run_id, running[run_id])
        if failed:
            log.warning("ended %d answers whose process stopped: %s", len(failed), failed)
        return failed

    async def _end_orphan(self, run_id: str, message_id: int) -> None:
        end = workflow_error(run_id, message_id, store.STALE_ERROR)
        with contextlib.suppress(UnknownRun, RunFinished):
            await self.bus.publish(run_id, end.EVENT, end.wire())

    async def shutdown(self) -> None:
        tasks = [r.task for r in self._active.values() if r.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.log_writer.close()

    async def _in_thread(self, work: Callable[[Session], T]) -> T:
        def run() -> T:
            with self.database.session() as db:
                return work(db)

        return await anyio.to_thread.run_sync(run)
