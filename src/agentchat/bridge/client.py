"""BridgeClient: the API side of the Hermes Bridge protocol (httpx, streaming SSE)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any

import httpx

Sink = Callable[[str, str, str | None, dict[str, Any] | None], Awaitable[None]]


class BridgeUnavailable(Exception):
    """The bridge could not be reached, answered with an error, or its stream broke."""

    def __init__(self, message: str, *, status_code: int | None = None, code: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code


@dataclass
class BridgeResult:
    status: str
    final_text: str = ""
    error: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    compacted: bool = False

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> BridgeResult:
        return cls(
            status=str(data.get("status") or "failed"),
            final_text=str(data.get("finalText") or ""),
            error=data.get("error"),
            usage=dict(data.get("usage") or {}),
            messages=list(data.get("messages") or []),
            compacted=bool(data.get("compacted")),
        )


@dataclass
class SseEvent:
    event: str
    data: str


async def parse_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    """A minimal SSE parser: `event:` and `data:` fields, comments ignored."""
    event, data = "message", list[str]()
    async for line in lines:
        if not line:
            if data:
                yield SseEvent(event, "\n".join(data))
            event, data = "message", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data:
        yield SseEvent(event, "\n".join(data))


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
        timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=headers, timeout=timeout, transport=transport
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

    async def run(self, request: dict[str, Any], sink: Sink) -> BridgeResult:
        """Stream one turn into sink(kind, content, tool_name, meta); return its run_end."""
        try:
            async with self._http.stream("POST", "/run", json=request) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise _http_error(response)
                return await self._consume(parse_sse(response.aiter_lines()), sink)
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from exc

    async def _consume(self, events: AsyncIterator[SseEvent], sink: Sink) -> BridgeResult:
        async for item in events:
            data = json.loads(item.data)
            if item.event == "node_stream":
                await sink(
                    data["kind"], data.get("content", ""), data.get("toolName"), data.get("meta")
                )
            elif item.event == "context_compacted":
                await sink("context_compacted", data.get("summary", ""), None, None)
            elif item.event == "run_end":
                return BridgeResult.from_wire(data)
        raise BridgeUnavailable("the bridge stream ended without a run_end event")

    async def clarify(self, run_id: str, clarify_id: str, answer: str) -> None:
        await self._call(
            "POST", f"/runs/{run_id}/clarify", {"clarifyId": clarify_id, "answer": answer}
        )

    async def abort(self, run_id: str) -> None:
        await self._call("POST", f"/runs/{run_id}/abort")

    async def reset(self, session_id: str) -> None:
        await self._call("POST", f"/sessions/{session_id}/reset")

    async def get_memory(self, session_id: str) -> dict[str, Any]:
        return await self._call("GET", f"/sessions/{session_id}/memory")

    async def put_memory(
        self,
        session_id: str,
        memory: str | list[str] | None = None,
        user: str | list[str] | None = None,
    ) -> dict[str, Any]:
        body = {k: v for k, v in {"memory": memory, "user": user}.items() if v is not None}
        return await self._call("PUT", f"/sessions/{session_id}/memory", body)

    async def health(self) -> dict[str, Any]:
        return await self._call("GET", "/health")

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        try:
            response = await self._http.request(method, path, json=body)
        except httpx.HTTPError as exc:
            raise _unreachable(self.base_url, exc) from exc
        if response.status_code >= 400:
            raise _http_error(response)
        return response.json()


def _unreachable(base_url: str, exc: httpx.HTTPError) -> BridgeUnavailable:
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return BridgeUnavailable(f"the Hermes Bridge at {base_url} cannot be reached ({exc})")
    if isinstance(exc, httpx.ReadTimeout):
        return BridgeUnavailable(f"the Hermes Bridge at {base_url} stopped answering")
    return BridgeUnavailable(f"the connection to the Hermes Bridge at {base_url} broke ({exc})")


def _http_error(response: httpx.Response) -> BridgeUnavailable:
    code, message = "", response.text[:500]
    try:
        error = response.json().get("error") or {}
        code, message = str(error.get("code", "")), str(error.get("message", message))
    except (ValueError, AttributeError):
        pass
    return BridgeUnavailable(
        f"the Hermes Bridge answered {response.status_code}: {message}",
        status_code=response.status_code,
        code=code,
    )
