"""BridgeClient: the API side of the Hermes Bridge protocol: a turn's SSE stream over its own
connection (`stream_http`, the hot path), the other calls through httpx (`transport` applies
to those only)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from types import TracebackType
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import httpx
from pydantic import TypeAdapter, ValidationError

from agentchat.bridge_client.address import async_client
from agentchat.bridge_client.stream_http import (
    ConnectFailed,
    ReadTimedOut,
    StreamError,
    open_stream,
)
from agentchat.protocol.bridge_api import HeldRun, MemoryView, RunRequest
from agentchat.protocol.clean_events import clean_model
from agentchat.protocol.events import (
    BridgeEvent,
    RunEnd,
    UnknownEvent,
    WorkflowComplete,
    WorkflowError,
    decode,
)
from agentchat.protocol.mcp import McpCheck, McpProbe, McpServerStatus, McpServerWire, McpSetup
from agentchat.protocol.sse import aparse_chunks, dump_json
from agentchat.protocol.workspace_files import FileList, MissingFiles, WorkspaceFile

BridgeResult = RunEnd  # the turn's end, as the bridge sent it
T = TypeVar("T")
_HELD_RUNS = TypeAdapter(list[HeldRun])
_MEMORY = TypeAdapter(MemoryView)


_PROBE_MARGIN_S = 20.0


class BridgeUnavailable(Exception):
    """The bridge could not be reached, answered with an error, or its stream broke."""

    def __init__(self, message: str, *, status_code: int | None = None, code: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code


class BridgeClient:
    def __init__(
        self,
        base_url: str,
        secret: str | None = None,
        *,
        connect_timeout: float = 3.0,
        read_timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        self._stream_headers = headers
        self._connect_timeout, self._read_timeout = connect_timeout, read_timeout
        timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._http = async_client(
            self.base_url, transport=transport, headers=headers, timeout=timeout
        )

    async def __aenter__(self) -> BridgeClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def run(self, request: RunRequest) -> AsyncGenerator[BridgeEvent, None]:
        """Stream one turn: its typed events as the bridge sent them, `RunEnd` last, each
        tagged with its bridge event id (`event.event_id`).

        Raises `BridgeUnavailable` when the stream cannot start, breaks, sends a malformed
        event, or ends without `run_end`. Closing the iterator early closes the connection;
        the turn goes on in the bridge (`follow` reads it again, `abort` stops it).
        """
        async for event in self._events("POST", "/run", request.wire()):
            yield event

    async def follow(self, run_id: str, after: int = 0) -> AsyncGenerator[BridgeEvent, None]:
        """The events of a run the bridge holds after bridge event id `after`, then live ones,
        `RunEnd` last; `BridgeUnavailable` with status 404 (`unknown_run`) when it holds none."""
        async for event in self._events("GET", f"/runs/{run_id}/events?after={int(after)}"):
            yield event

    async def runs(self) -> list[HeldRun]:
        """The runs the bridge holds (going, waiting on a clarify, or ended and not read)."""
        return _typed(_HELD_RUNS, await self._call("GET", "/runs"))

    async def _events(
        self, method: str, path: str, body: dict[str, Any] | None = None
    ) -> AsyncGenerator[BridgeEvent, None]:
        try:
            response = await open_stream(
                method,
                f"{self.base_url}{path}",
                None if body is None else dump_json(body).encode(),
                self._stream_headers,
                connect_timeout=self._connect_timeout,
                read_timeout=self._read_timeout,
            )
        except StreamError as exc:
            raise _unreachable(self.base_url, exc) from exc
        try:
            if response.status >= 400:
                raise _http_error(
                    response.status, (await response.aread()).decode(errors="replace")
                )
            async for message in aparse_chunks(response.aiter_body()):
                event = _decode(message.event, message.data)
                if event is None:
                    continue
                if "\\u" in message.data:  # an escape: maybe a NUL or a lone surrogate
                    event = clean_model(event)  # (our bridge cleans; another may not)
                yield event.with_event_id(message.num if message.id else None)
                if isinstance(event, RunEnd):
                    return
        except StreamError as exc:
            raise _unreachable(self.base_url, exc) from exc
        finally:
            await response.aclose()
        raise BridgeUnavailable("the bridge stream ended without a run_end event")

    async def release(self, run_id: str) -> None:
        """Tell the bridge the run's end is stored: it need not keep the run for a replay."""
        await self._call("DELETE", f"/runs/{run_id}")

    async def clarify(self, run_id: str, clarify_id: str, answer: str) -> None:
        await self._call(
            "POST", f"/runs/{run_id}/clarify", {"clarifyId": clarify_id, "answer": answer}
        )

    async def steer(self, run_id: str, text: str) -> None:
        await self._call("POST", f"/runs/{run_id}/steer", {"text": text})

    async def abort(self, run_id: str) -> None:
        await self._call("POST", f"/runs/{run_id}/abort")

    async def reset(self, session_id: str) -> None:
        await self._call("POST", f"/sessions/{session_id}/reset")

    async def forget_person(self, user_id: str) -> None:
        """The person (RunRequest.user_id) was deleted: the bridge drops their agent's memory
        and skills."""
        await self._call("DELETE", f"/people/{quote(user_id, safe='')}")

    async def get_memory(self, session_id: str, user_id: str | None = None) -> MemoryView:
        """`user_id`: the owner's opaque id (RunRequest.user_id), for per-person memory."""
        return _typed(_MEMORY, await self._call("GET", _memory_path(session_id, user_id)))

    async def put_memory(
        self,
        session_id: str,
        memory: str | list[str] | None = None,
        user: str | list[str] | None = None,
        user_id: str | None = None,
    ) -> MemoryView:
        body = {k: v for k, v in {"memory": memory, "user": user}.items() if v is not None}
        return _typed(_MEMORY, await self._call("PUT", _memory_path(session_id, user_id), body))

    async def missing_files(self, session_id: str, files: list[WorkspaceFile]) -> list[str]:
        """The paths of those attachments the session's workspace on this bridge lacks."""
        body = FileList(files=files).model_dump(by_alias=True)
        answer = await self._call("POST", f"/sessions/{session_id}/files/missing", body)
        return MissingFiles.model_validate(answer).missing

    async def put_file(
        self, session_id: str, file: WorkspaceFile, chunks: AsyncIterator[bytes]
    ) -> None:
        """Stream one attachment into the session's workspace (never held whole)."""
        params = {"path": file.path, "digest": file.digest, "size": str(file.size)}
        try:
            response = await self._http.put(
                f"/sessions/{session_id}/files",
                params=params,
                content=chunks,
                headers={"content-length": str(file.size)},
            )
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from exc
        if response.status_code >= 400:
            raise _http_error(response.status_code, response.text)

    async def health(self) -> dict[str, Any]:
        return await self._call("GET", "/health")

    async def mcp_status(self) -> list[McpServerStatus]:
        body = await self._call("GET", "/mcp/servers")
        return [McpServerStatus.model_validate(item) for item in body]

    async def mcp_connect(self, setup: McpSetup) -> list[McpServerStatus]:
        """Waits for the longest connect timeout at most (and a margin for the bridge)."""
        longest = max((s.connect_timeout_s for s in setup.servers), default=0)
        wire = setup.model_dump(by_alias=True)
        body = await self._call("POST", "/mcp/servers", wire, longest + _PROBE_MARGIN_S)
        return [McpServerStatus.model_validate(item) for item in body]

    async def mcp_check(self, server: McpServerWire) -> McpCheck:
        body = await self._call("POST", "/mcp/check", server.model_dump(by_alias=True))
        return McpCheck.model_validate(body)

    async def mcp_probe(self, server: McpServerWire) -> McpProbe:
        """Waits for the server's connect timeout at most (and a margin for the bridge)."""
        wire = server.model_dump(by_alias=True)
        timeout = server.connect_timeout_s + _PROBE_MARGIN_S
        return McpProbe.model_validate(await self._call("POST", "/mcp/probe", wire, timeout))

    async def _call(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        wait = self._http.timeout if timeout is None else max(timeout, self._read_timeout)
        try:
            response = await self._http.request(method, path, json=body, timeout=wait)
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from exc
        if response.status_code >= 400:
            raise _http_error(response.status_code, response.text)
        return response.json()


def _memory_path(session_id: str, user_id: str | None) -> str:
    path = f"/sessions/{session_id}/memory"
    return f"{path}?{urlencode({'userId': user_id})}" if user_id else path


def _unreachable(base_url: str, exc: httpx.HTTPError | StreamError) -> BridgeUnavailable:
    detail = str(exc) or type(exc).__name__  # some (a closed connection) have no message
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | ConnectFailed):
        return BridgeUnavailable(f"the Hermes Bridge at {base_url} cannot be reached ({detail})")
    if isinstance(exc, httpx.ReadTimeout | ReadTimedOut):
        return BridgeUnavailable(f"the Hermes Bridge at {base_url} stopped answering")
    return BridgeUnavailable(f"the connection to the Hermes Bridge at {base_url} broke ({detail})")


def _http_error(status: int, text: str) -> BridgeUnavailable:
    code, message = "", text[:500]
    try:
        error = json.loads(text).get("error") or {}
        code, message = str(error.get("code", "")), str(error.get("message", message))
    except (ValueError, AttributeError):
        pass
    return BridgeUnavailable(
        f"the Hermes Bridge answered {status}: {message}", status_code=status, code=code
    )


def _typed(adapter: TypeAdapter[T], body: Any) -> T:
    """An answer of the bridge as the protocol's model (`BridgeUnavailable` when it is not)."""
    try:
        return adapter.validate_python(body)
    except ValidationError as exc:
        raise BridgeUnavailable(f"the bridge sent a malformed answer: {exc}") from exc


def _decode(name: str, data: str) -> BridgeEvent | None:
    """The typed event; None for an event this client does not know (a newer bridge)."""
    try:
        event = decode(name, data)
    except UnknownEvent:
        return None
    except ValidationError as exc:
        raise BridgeUnavailable(f"the bridge sent a malformed {name} event: {exc}") from exc
    if isinstance(event, WorkflowComplete | WorkflowError):  # page-only, not on this wire
        return None
    return event
