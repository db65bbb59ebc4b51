"""An in-process bridge for the run rooms' unit tests: it speaks the `runs.ports` protocol
and plays a script of steps into the sink, no subprocess, no model."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.protocol.bridge_api import HeldRun, MemoryView, RunRequest
from agentchat.protocol.events import NODE_EVENT, BridgeEvent, ClarifyAnswered, RunEnd
from agentchat.protocol.workspace_files import WorkspaceFile


@dataclass
class Emit:
    """One node event, written as the bridge's wire JSON would carry it."""

    kind: str
    content: str = ""
    tool_name: str | None = None
    meta: dict[str, Any] | None = None

    def event(self) -> BridgeEvent:
        body = {"kind": self.kind, "content": self.content, "toolName": self.tool_name}
        return NODE_EVENT.validate_python({**body, "meta": self.meta})


@dataclass
class WaitClarify:
    """Block until clarify() is called for `clarify_id`; the answer is emitted as
    `clarify_answered`, as the real bridge does."""

    clarify_id: str


@dataclass
class WaitAbort:
    """Block until abort(); the turn then ends `stopped` with what was streamed."""


@dataclass
class Fail:
    error: BridgeUnavailable


@dataclass
class Hang:
    """Block forever (until the task is cancelled): a bridge that ignores abort."""


Step = Emit | WaitClarify | WaitAbort | Fail | Hang


@dataclass
class FakeBridge:
    script: list[Step] = field(default_factory=list)
    result: RunEnd = field(default_factory=lambda: RunEnd(status="SUCCESS"))
    base_url: str = "fake://bridge-1"
    requests: list[dict[str, Any]] = field(default_factory=list)
    aborted: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)  # runs whose end the API stored
    clarified: list[tuple[str, str, str]] = field(default_factory=list)
    resets: list[str] = field(default_factory=list)
    memory_error: BridgeUnavailable | None = None
    # what each run emitted, ids 1, 2, 3… (the real bridge's buffer; `follow` replays it)
    emitted: dict[str, list[BridgeEvent]] = field(default_factory=dict)
    broken: BridgeUnavailable | None = None  # a `Fail` step happened: the bridge is gone
    # awaited after an answer was taken, before clarify() returns (a reply that comes late)
    after_clarify: Callable[[], Awaitable[None]] | None = None
    _abort: asyncio.Event = field(default_factory=asyncio.Event)
    _answers: dict[str, asyncio.Future[str]] = field(default_factory=dict)

    async def run(self, request: RunRequest) -> AsyncGenerator[BridgeEvent, None]:
        self.requests.append(request.wire())  # as the real client sends it
        log = self.emitted.setdefault(request.run_id, [])
        async for event in self._play():
            log.append(event.with_event_id(len(log) + 1))
            yield event

    async def _play(self) -> AsyncGenerator[BridgeEvent, None]:
        streamed: list[str] = []
        for step in self.script:
            if isinstance(step, Emit):
                if step.kind == "answer_delta":
                    streamed.append(step.content)
                yield step.event()
            elif isinstance(step, WaitClarify):
                answer = await self._answer_for(step.clarify_id)
                meta = {"clarifyId": step.clarify_id, "answer": answer}
                yield ClarifyAnswered.model_validate({"content": answer, "meta": meta})
            elif isinstance(step, WaitAbort):
                await self._abort.wait()
                yield RunEnd(status="STOPPED", final_text="".join(streamed))
                return
            elif isinstance(step, Fail):
                self.broken = step.error
                raise step.error
            else:
                await asyncio.Event().wait()
        yield self.result

    async def follow(self, run_id: str, after: int = 0) -> AsyncGenerator[BridgeEvent, None]:
        """What the run emitted after `after` (a run that has not ended waits for abort)."""
        if self.broken is not None:
            raise self.broken
        log = self.emitted.get(run_id)
        if log is None:
            raise BridgeUnavailable("unknown run", status_code=404, code="unknown_run")
        for event in log[after:]:
            yield event
        if not log or not isinstance(log[-1], RunEnd):
            await self._abort.wait()
            yield RunEnd(status="STOPPED").with_event_id(len(log) + 1)

    async def runs(self) -> list[HeldRun]:
        if self.broken is not None:
            raise self.broken
        return [
            HeldRun(
                run_id=run_id,
                session_id="",
                state="ended" if log and isinstance(log[-1], RunEnd) else "running",
                last_event_id=len(log),
            )
            for run_id, log in self.emitted.items()
        ]

    def _answer_for(self, clarify_id: str) -> asyncio.Future[str]:
        return self._answers.setdefault(clarify_id, asyncio.get_running_loop().create_future())

    async def abort(self, run_id: str) -> None:
        self.aborted.append(run_id)
        self._abort.set()

    async def steer(self, run_id: str, text: str) -> None:
        raise BridgeUnavailable("the fake bridge takes no guidance", status_code=409)

    async def release(self, run_id: str) -> None:
        self.released.append(run_id)

    async def clarify(self, run_id: str, clarify_id: str, answer: str) -> None:
        waiting = self._answers.get(clarify_id)
        if waiting is None or waiting.done():
            raise BridgeUnavailable("not waiting", status_code=409)
        self.clarified.append((run_id, clarify_id, answer))
        waiting.set_result(answer)
        if self.after_clarify is not None:
            await self.after_clarify()

    async def reset(self, session_id: str) -> None:
        self.resets.append(session_id)

    async def missing_files(self, session_id: str, files: list[WorkspaceFile]) -> list[str]:
        return [f.path for f in files]

    async def put_file(
        self, session_id: str, file: WorkspaceFile, chunks: AsyncIterator[bytes]
    ) -> None:
        async for _ in chunks:
            pass

    async def get_memory(self, session_id: str, user_id: str | None = None) -> MemoryView:
        if self.memory_error is not None:
            raise self.memory_error
        return MemoryView.model_validate(
            {"memory": {"content": "", "charLimit": 2200}, "user": {"content": ""}}
        )

    async def put_memory(
        self,
        session_id: str,
        memory: str | list[str] | None = None,
        user: str | list[str] | None = None,
        user_id: str | None = None,
    ) -> MemoryView:
        if self.memory_error is not None:
            raise self.memory_error
        entries = str(memory or "").split("\n§\n") if memory else []
        return MemoryView.model_validate(
            {"memory": {"content": memory or "", "entries": entries}, "user": {"content": ""}}
        )


@dataclass
class FakeBridges:
    """The pool: every bridge in the order given; marks are recorded."""

    bridges: list[FakeBridge]
    down: list[str] = field(default_factory=list)
    up: list[str] = field(default_factory=list)

    @property
    def urls(self) -> list[str]:
        return [b.base_url for b in self.bridges]

    def candidates(self, session_key: str) -> Sequence[FakeBridge]:
        return list(self.bridges)

    def client_for(self, session_key: str) -> FakeBridge:
        return self.bridges[0]

    def mark_down(self, url: str) -> None:
        self.down.append(url)

    def mark_up(self, url: str) -> None:
        self.up.append(url)
