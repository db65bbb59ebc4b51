"""An HTTP transport that connects only to addresses the operator's host lists allow.

The host of each request is resolved here, every address is judged
(`HostPolicy.address_problem`), and the request goes to the first allowed one: the URL names
that address, the Host header and the TLS server name (certificate check included) stay the
host's. So a name cannot resolve to a denied address between the check and the connection.
"""

from __future__ import annotations

import asyncio
import socket

import httpx

from agentchat.protocol.host_policy import HostPolicy, literal_address

RESOLVE_TIMEOUT_S = 5.0


class HostRefused(httpx.TransportError):
    """The host, or every address it resolves to, is refused by the host lists."""


class PinnedTransport(httpx.AsyncBaseTransport):
    def __init__(self, policy: HostPolicy, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.policy = policy
        self.inner = inner or httpx.AsyncHTTPTransport(trust_env=False)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        address = await self._allowed_address(host, request.url.port or _port(request.url))
        if request.url.scheme == "https" and literal_address(host) is None:
            request.extensions = {**request.extensions, "sni_hostname": host}
        request.url = request.url.copy_with(host=address)
        return await self.inner.handle_async_request(request)

    async def _allowed_address(self, host: str, port: int) -> str:
        problem = self.policy.name_problem(host)
        if problem:
            raise HostRefused(problem)
        loop = asyncio.get_running_loop()
        try:
            found = await asyncio.wait_for(
                loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), RESOLVE_TIMEOUT_S
            )
        except (OSError, TimeoutError) as exc:
            raise httpx.ConnectError(f"cannot resolve {host!r}") from exc
        problems = []
        for *_, sockaddr in found:
            problem = self.policy.address_problem(host, str(sockaddr[0]))
            if problem is None:
                return str(sockaddr[0])
            problems.append(problem)
        raise HostRefused(problems[0] if problems else f"{host!r} resolves to no address")

    async def aclose(self) -> None:
        await self.inner.aclose()


def _port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80
