"""The run logic's seam to the Hermes Bridge: what the rooms need of a bridge and of the pool
of bridges. `BridgeClient` and `BridgeWorkers` are the real ones; tests drive the rooms with an
in-process fake that speaks the same protocol."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from typing import Protocol

from agentchat.protocol.bridge_api import HeldRun, MemoryView, RunRequest
from agentchat.protocol.events import BridgeEvent
from agentchat.protocol.workspace_files import WorkspaceFile


class Bridge(Protocol):
    """One bridge worker. Every call raises `BridgeUnavailable` when it cannot be done."""

    @property
    def base_url(self) -> str: ...

    def run(self, request: RunRequest) -> AsyncGenerator[BridgeEvent, None]:
        """One turn's typed events in order, `RunEnd` last, each tagged with its bridge event
        id; closing the generator early leaves the turn going (`abort` stops it)."""
        ...

    def follow(self, run_id: str, after: int = 0) -> AsyncGenerator[BridgeEvent, None]:
        """The events of a run the bridge holds after bridge event id `after`, then live
        ones, `RunEnd` last (`BridgeUnavailable` 404 when it holds none)."""
        ...

    async def runs(self) -> list[HeldRun]: ...

    async def abort(self, run_id: str) -> None: ...

    async def release(self, run_id: str) -> None: ...

    async def clarify(self, run_id: str, clarify_id: str, answer: str) -> None: ...

    async def steer(self, run_id: str, text: str) -> None: ...

    async def reset(self, session_id: str) -> None: ...

    async def missing_files(self, session_id: str, files: list[WorkspaceFile]) -> list[str]: ...

    async def put_file(
        self, session_id: str, file: WorkspaceFile, chunks: AsyncIterator[bytes]
    ) -> None: ...

    async def forget_person(self, user_id: str) -> None: ...

    async def get_memory(self, session_id: str, user_id: str | None = None) -> MemoryView: ...

    async def put_memory(
        self,
        session_id: str,
        memory: str | list[str] | None = None,
        user: str | list[str] | None = None,
        user_id: str | None = None,
    ) -> MemoryView: ...


class Bridges(Protocol):
    """The bridge workers, ranked per session; a worker marked down goes last for a while."""

    @property
    def urls(self) -> list[str]: ...

    def candidates(self, session_key: str) -> Sequence[Bridge]: ...

    def client_for(self, session_key: str) -> Bridge: ...

    def mark_down(self, url: str) -> None: ...

    def mark_up(self, url: str) -> None: ...
