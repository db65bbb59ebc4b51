"""The bridge's service layer: start turns on worker threads and stream their events."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from concurrent.futures import Future, ThreadPoolExecutor

from agentchat.bridge.guards import agent as agent_guard
from agentchat.bridge.guards import files as file_guard
from agentchat.bridge.guards import hosts as host_guard
from agentchat.bridge.guards import request_policy
from agentchat.bridge.guards import skills as skill_guard
from agentchat.bridge.hermes import (
    agents,
    ca_contexts,
    log_privacy,
    people,
    summarizer,
    summary_usage,
)
from agentchat.bridge.hermes.agents import AgentSlot, ModelSpec
from agentchat.bridge.hermes.forget import PendingForgets, unload_session
from agentchat.bridge.hermes.home import import_hermes
from agentchat.bridge.hermes.memory_files import MemoryFiles
from agentchat.bridge.hermes.pool import AgentPool
from agentchat.bridge.hermes.turn import TurnRunner
from agentchat.bridge.live.buffer import RunBuffer, RunBuffers
from agentchat.bridge.live.registry import RunHandle, RunRegistry
from agentchat.bridge.mcp.connections import McpConnections
from agentchat.bridge.mcp.media import MediaSweeper
from agentchat.bridge.server import allocator
from agentchat.bridge.settings import BridgeSettings
from agentchat.protocol.bridge_api import (
    Ack,
    ClarifyAnswer,
    HeldRun,
    RunRequest,
    SteerMessage,
)
from agentchat.protocol.context_length import DEFAULT_CONTEXT_LENGTH
from agentchat.protocol.errors import Conflict, NotFound, ServiceUnavailable
from agentchat.protocol.events import RunEnd, Steered
from agentchat.protocol.mcp import McpProbe, McpServerStatus, McpServerWire, McpSetup
from agentchat.protocol.status import RunStatus

log = logging.getLogger(__name__)

_WARM_MODEL = ModelSpec(
    "http://127.0.0.1:9/v1", "warm-up", "warm-up", "openai-compatible", DEFAULT_CONTEXT_LENGTH
)


class BridgeService:
    def __init__(self, settings: BridgeSettings) -> None:
        self.settings = settings
        self.pool: AgentPool[AgentSlot] = AgentPool(settings.pool_size, on_idle=unload_session)
        self.runs = RunRegistry()
        self.buffers = RunBuffers(settings.run_retention_s)
        self._pumps: set[asyncio.Task[None]] = set()
        workers = max(2 * settings.pool_size, 16)
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="bridge-turn")
        self._runner: TurnRunner | None = None
        self.heap = allocator.IdleTrim(busy=lambda: bool(self.runs.all()))
        self.mcp = McpConnections(settings.allowed_mcp_transports)
        self.media = MediaSweeper(settings.home)
        self.forgets = PendingForgets(settings, busy=self._session_busy)

    @property
    def ready(self) -> bool:
        return self._runner is not None

    def warm(self) -> None:
        """Import hermes and build one throw-away agent so the first turn starts fast."""
        import_hermes()
        ca_contexts.install()
        log_privacy.install()
        skill_guard.install()
        file_guard.install()
        host_guard.install()
        agent_guard.explain_denials()
        summary_usage.install()
        summarizer.install()
        runner = TurnRunner(self.settings, self.pool, self.mcp)
        toolsets = request_policy.hermes_toolsets(self.settings, self.settings.default_toolsets)
        try:
            agents.build_agent(_WARM_MODEL, "warm-up", toolsets, 1)
        except Exception:
            log.exception("warm-up agent failed (turns may start slower)")
        self._runner = runner
        self.media.maybe()

    async def start(self, request: RunRequest) -> RunBuffer:
        runner = self._runner
        if runner is None:
            raise ServiceUnavailable("the bridge is still starting")
        loop = asyncio.get_running_loop()
        handle = RunHandle(
            request.run_id,
            request.session_id,
            loop,
            self.settings.clarify_timeout_s,
            answer_window_s=self.settings.answer_window_ms / 1000,
            answer_max_chars=self.settings.answer_max_chars,
        )
        self.runs.add(handle)
        buffer = self.buffers.open(request.run_id, request.session_id)
        pump = loop.create_task(_pump(handle, buffer), name=f"bridge-pump-{request.run_id}")
        self._pumps.add(pump)
        pump.add_done_callback(self._pumps.discard)
        future = self.executor.submit(runner.run, handle, request)
        future.add_done_callback(lambda f: loop.call_soon_threadsafe(self._finish, handle, f))
        return buffer

    def _finish(self, handle: RunHandle, future: Future[RunEnd]) -> None:
        try:
            end = future.result()
        except BaseException as exc:
            end = RunEnd(status=RunStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
        handle.end(end)
        self.runs.remove(handle.run_id)
        self.heap.turn_ended()
        loop = asyncio.get_running_loop()
        loop.run_in_executor(None, self.forgets.settle, handle.session_id)
        loop.run_in_executor(None, self.media.maybe)

    def stream(self, buffer: RunBuffer, after: int = 0) -> AsyncIterator[bytes]:
        """SSE bytes after event `after` until run_end. A client that goes away does not stop
        the turn: it (or another) follows again with `follow`; only `abort` stops it."""
        return buffer.read(after, self.settings.keepalive_s)

    def follow(self, run_id: str, after: int) -> AsyncIterator[bytes]:
        buffer = self.buffers.get(run_id)
        if buffer is None:
            raise NotFound(f"run {run_id} is not known to this bridge", code="unknown_run")
        return self.stream(buffer, after)

    def held_runs(self) -> list[HeldRun]:
        held = []
        for buffer in self.buffers.all():
            handle = self.runs.find(buffer.run_id)
            waiting = handle is not None and handle.clarify.pending is not None
            held.append(
                HeldRun(
                    run_id=buffer.run_id,
                    session_id=buffer.session_id,
                    state=buffer.state(waiting),
                    last_event_id=buffer.last_event_id,
                )
            )
        return held

    def release(self, run_id: str) -> Ack:
        """The API stored the run's end: its events need not be kept for a replay."""
        self.buffers.release(run_id)
        return Ack()

    def clarify(self, run_id: str, body: ClarifyAnswer) -> Ack:
        handle = self.runs.get(run_id)
        if not handle.clarify.answer(body.clarify_id, body.answer):
            raise Conflict(f"run {run_id} is not waiting for clarify {body.clarify_id}")
        return Ack()

    def steer(self, run_id: str, body: SteerMessage) -> Ack:
        handle = self.runs.get(run_id)
        if not body.text.strip() or not handle.steer(body.text):
            raise Conflict(f"run {run_id} cannot take a message now", code="not_steerable")
        handle.emit(Steered(content=body.text.strip()))
        return Ack()

    def abort(self, run_id: str) -> Ack:
        self.runs.get(run_id).abort()
        return Ack()

    def reset(self, session_id: str) -> Ack:
        """The API is done with this hermes session (reset or deleted): its agents go, and
        all else held for it (`forget.py`), once no turn of it runs here."""
        dropped = self.pool.drop_session(session_id)
        self.forgets.done_with(session_id)
        return Ack(detail=f"dropped {dropped} agent(s)")

    def memory(self, user_id: str | None) -> MemoryFiles:
        """The memory files of the person `user_id` (the bridge's own without accounts)."""
        home = people.home_of(self.settings, user_id)
        return MemoryFiles(home, self.settings.memory_char_limit, self.settings.user_char_limit)

    def forget_person(self, user_id: str) -> Ack:
        """The person was deleted: their agents, memory and agent-made skills go."""
        dropped = self.pool.drop_home(str(people.home_of(self.settings, user_id)))
        removed = people.forget_person(self.settings, user_id)
        return Ack(detail=f"dropped {dropped} agent(s); {'removed' if removed else 'no'} home")

    def _session_busy(self, session_id: str) -> bool:
        return bool(self.runs.for_session(session_id)) or self.pool.in_turn(session_id)

    def stats(self) -> dict[str, int]:
        return {
            "agents": len(self.pool.keys()),
            "poolSize": self.pool.size,
            "activeRuns": len(self.runs.all()),
        }

    def mcp_connect(self, setup: McpSetup) -> list[McpServerStatus]:
        """Hold the servers switched on, as a turn would: connect those not connected yet
        (each within its connect timeout; one that failed lately is not tried again yet), so
        the Tools page shows them connected, with their tools, before any turn used them."""
        if self._runner is None:
            raise ServiceUnavailable("the bridge is still starting")
        self.mcp.prepare(setup)
        return self.mcp.statuses()

    def mcp_probe(self, server: McpServerWire) -> McpProbe:
        if self._runner is None:
            raise ServiceUnavailable("the bridge is still starting")
        return self.mcp.probe(server)

    def shutdown(self) -> None:
        for handle in self.runs.all():
            handle.abort()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.mcp.close_all()


async def _pump(handle: RunHandle, buffer: RunBuffer) -> None:
    """Move the run's events from its outbox (coalesced) into its buffer, with their ids."""
    while (batch := await handle.outbox.take(3600.0)) is not None:
        for event in batch:
            buffer.append(event)
