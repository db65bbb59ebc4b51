"""The bridge's service layer: start turns on worker threads and stream their events."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from concurrent.futures import Future, ThreadPoolExecutor

from agentchat.bridge import agent_guard, hermes_api, policy, skill_guard, summary_usage
from agentchat.bridge.hermes_api import AgentSlot, ModelSpec
from agentchat.bridge.hermes_home import import_hermes
from agentchat.bridge.memory import MemoryFiles
from agentchat.bridge.pool import AgentPool
from agentchat.bridge.runs import RunHandle, RunRegistry
from agentchat.bridge.schemas import Ack, ClarifyAnswer, RunEnd, RunRequest, SteerMessage
from agentchat.bridge.settings import BridgeSettings
from agentchat.bridge.turn import TurnRunner
from agentchat.core.context_length import DEFAULT_CONTEXT_LENGTH
from agentchat.core.errors import Conflict, ServiceUnavailable
from agentchat.events.contract import Steered
from agentchat.events.sse import KEEPALIVE, encode_event

log = logging.getLogger(__name__)

_WARM_MODEL = ModelSpec(
    "http://127.0.0.1:9/v1", "warm-up", "warm-up", "openai-compatible", DEFAULT_CONTEXT_LENGTH
)


class BridgeService:
    def __init__(self, settings: BridgeSettings) -> None:
        self.settings = settings
        self.pool: AgentPool[AgentSlot] = AgentPool(settings.pool_size)
        self.runs = RunRegistry()
        self.memory = MemoryFiles(
            settings.home, settings.memory_char_limit, settings.user_char_limit
        )
        workers = max(2 * settings.pool_size, 16)
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="bridge-turn")
        self._runner: TurnRunner | None = None

    @property
    def ready(self) -> bool:
        return self._runner is not None

    def warm(self) -> None:
        """Import hermes and build one throw-away agent so the first turn starts fast."""
        import_hermes()
        skill_guard.install()
        agent_guard.explain_denials()
        summary_usage.install()
        runner = TurnRunner(self.settings, self.pool)
        toolsets = policy.hermes_toolsets(self.settings, self.settings.default_toolsets)
        try:
            hermes_api.build_agent(_WARM_MODEL, "warm-up", toolsets, 1)
        except Exception:
            log.exception("warm-up agent failed (turns may start slower)")
        self._runner = runner

    async def start(self, request: RunRequest) -> RunHandle:
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
        future = self.executor.submit(runner.run, handle, request)
        future.add_done_callback(lambda f: loop.call_soon_threadsafe(self._finish, handle, f))
        return handle

    def _finish(self, handle: RunHandle, future: Future[RunEnd]) -> None:
        try:
            end = future.result()
        except BaseException as exc:
            end = RunEnd(status="failed", error=f"{type(exc).__name__}: {exc}")
        handle.end(end)
        self.runs.remove(handle.run_id)

    async def stream(self, handle: RunHandle) -> AsyncIterator[bytes]:
        """SSE bytes until run_end; a client that goes away stops the turn."""
        event_id = 0
        try:
            while (batch := await handle.outbox.take(self.settings.keepalive_s)) is not None:
                if not batch:
                    yield KEEPALIVE
                    continue
                frames = []
                for event in batch:  # one write for what gathered meanwhile
                    event_id += 1
                    frames.append(encode_event(event, event_id))
                yield b"".join(frames)
        finally:
            if not handle.finished:
                log.info("run %s: client went away, stopping the turn", handle.run_id)
                handle.abort()

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
        dropped = self.pool.drop_session(session_id)
        return Ack(detail=f"dropped {dropped} agent(s)")

    def stats(self) -> dict[str, int]:
        return {
            "agents": len(self.pool.keys()),
            "poolSize": self.pool.size,
            "activeRuns": len(self.runs.all()),
        }

    def shutdown(self) -> None:
        for handle in self.runs.all():
            handle.abort()
        self.executor.shutdown(wait=False, cancel_futures=True)
