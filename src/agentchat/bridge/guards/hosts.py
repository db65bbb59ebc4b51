"""The agent reaches a turn's model hosts only at addresses the API's host lists allow.

hermes' model clients resolve a host each time they open a connection. `install()` wraps
`socket.getaddrinfo` once in the bridge process, and anyio's lookup, which async clients
(httpx.AsyncClient, AsyncOpenAI) use: on uvloop it resolves in libuv, past
`socket.getaddrinfo`. While a turn runs (`guarding`), a lookup of
one of its model hosts (the model's and its fallback's) keeps only the addresses the turn's
lists allow (`protocol.host_policy.HostPolicy.address_problem`), and fails when none is left, so
a name that resolves to a denied address at connect time (DNS rebinding, `/etc/hosts`, a
spelling the API let through) is never reached. Other hosts (an agent tool's) are left alone.
A guarded host is also reached directly, never through a proxy named in the bridge's
environment (HTTPS_PROXY): the proxy would resolve and reach the address for us, out of the
lists' sight, as the API's model test does not use one either (models/probe.py).
"""

from __future__ import annotations

import logging
import socket
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

import anyio._core._sockets as anyio_sockets

from agentchat.protocol.host_policy import HostPolicy, normal_host

log = logging.getLogger(__name__)

_lock = threading.Lock()
_turns: Counter[tuple[str, HostPolicy]] = Counter()  # (host, lists) -> turns using them
_resolve = socket.getaddrinfo
_resolve_async = anyio_sockets.getaddrinfo


class HostRefused(socket.gaierror):
    """A lookup of a model host found no address the host lists allow; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(socket.EAI_NONAME, reason)
        self.reason = reason


def refusal_in(error: BaseException) -> str | None:
    """The reason of a HostRefused somewhere in `error`'s chain (the model client wraps it)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, HostRefused):
            return current.reason
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def install() -> None:
    """Wrap the process's name lookup (idempotent)."""
    if socket.getaddrinfo is not _guarded_getaddrinfo:
        socket.getaddrinfo = _guarded_getaddrinfo
    if anyio_sockets.getaddrinfo is not _guarded_async_getaddrinfo:
        anyio_sockets.getaddrinfo = _guarded_async_getaddrinfo  # what anyio.connect_tcp calls
    _guard_proxy_choice()


def _guard_proxy_choice() -> None:
    """hermes picks a model client's proxy from the environment (`_get_proxy_for_base_url`,
    imported by name where its clients are built): none for a host a running turn guards."""
    import run_agent
    from agent import process_bootstrap

    for module in (process_bootstrap, run_agent):
        choose = module._get_proxy_for_base_url
        if not getattr(choose, "guarded", False):
            module._get_proxy_for_base_url = _direct_when_guarded(choose)


def _direct_when_guarded(choose: Any) -> Any:
    def proxy_for(base_url: str | None) -> str | None:
        with _lock:
            guarded = {host for host, _ in _turns}
        if guarded and hosts_of(base_url) & guarded:
            return None
        result: str | None = choose(base_url)
        return result

    proxy_for.guarded = True  # type: ignore[attr-defined]
    return proxy_for


def hosts_of(*urls: str | None) -> set[str]:
    found = set()
    for url in urls:
        try:
            host = urlsplit(url or "").hostname
        except ValueError:
            host = None
        if host:
            found.add(normal_host(host))
    return found


@contextmanager
def guarding(hosts: Iterable[str], policy: HostPolicy) -> Iterator[None]:
    """While the block runs, lookups of `hosts` keep only the addresses `policy` allows."""
    keys = [] if policy.empty else [(normal_host(h), policy) for h in hosts]
    with _lock:
        _turns.update(keys)
    try:
        yield
    finally:
        with _lock:
            _turns.subtract(keys)
            for key in keys:
                if _turns[key] <= 0:
                    del _turns[key]


def _guarded_getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    return _allowed(host, _resolve(host, port, *args, **kwargs))


async def _guarded_async_getaddrinfo(host: Any, port: Any, **kwargs: Any) -> Any:
    return _allowed(host, await _resolve_async(host, port, **kwargs))


def _allowed(host: Any, found: list[Any]) -> list[Any]:
    """`found` without the addresses a running turn's lists refuse for `host`."""
    if host is None or not _turns:
        return found
    name = normal_host(host.decode() if isinstance(host, bytes) else str(host))
    with _lock:
        policies = {policy for (guarded, policy) in _turns if guarded == name}
    if not policies:
        return found
    kept, problem = [], None
    for entry in found:
        problems = [p.address_problem(name, str(entry[4][0])) for p in policies]
        problem = problem or next((p for p in problems if p), None)
        if not any(problems):
            kept.append(entry)
    if not kept:
        log.warning("refused a connection: %s", problem)
        raise HostRefused(problem or f"the model host {name!r} has no allowed address")
    return kept
