"""Where a bridge listens: `http://host:port`, or a Unix socket, written
`http+unix://<the socket's path, percent-encoded>` (so `f"{url}/health"` still composes).

The local bridge listens on a Unix socket in the data folder (0700): no other user of the
machine can connect to it, or take its place while it restarts, as one could take a loopback
port the moment it was free (and then receive the bridge secret and the model keys).
"""

from __future__ import annotations

import ssl
from functools import cache
from typing import Any
from urllib.parse import quote, unquote, urlsplit

import httpx

UNIX_SCHEME = "http+unix"
_HTTPX_BASE = "http://localhost"  # the Host an HTTP client names over a Unix socket


def unix_url(socket_path: str) -> str:
    return f"{UNIX_SCHEME}://{quote(socket_path, safe='')}"


def socket_path(url: str) -> str | None:
    """The Unix socket a bridge URL names, or None for a TCP URL."""
    parts = urlsplit(url)
    return unquote(parts.netloc) if parts.scheme == UNIX_SCHEME else None


def httpx_target(url: str) -> tuple[str, str | None]:
    """(the base URL to give httpx, the Unix socket to connect to or None)."""
    path = socket_path(url)
    if path is None:
        return url.rstrip("/"), None
    rest = urlsplit(url)
    suffix = rest.path.rstrip("/") + (f"?{rest.query}" if rest.query else "")
    return _HTTPX_BASE + suffix, path


Timeout = float | httpx.Timeout


@cache
def _tls() -> ssl.SSLContext:
    """httpx's default verifying context, built once: each client would otherwise load the CA
    bundle again (20-50 ms of CPU), and the supervisor makes a client per health check."""
    return httpx.create_ssl_context()


def sync_client(url: str, timeout: Timeout, **kwargs: Any) -> httpx.Client:
    """An httpx client whose base URL is the bridge at `url` (TCP or Unix socket)."""
    base, uds = httpx_target(url)
    kwargs.setdefault("verify", _tls())
    transport = httpx.HTTPTransport(uds=uds, verify=kwargs["verify"]) if uds else None
    return httpx.Client(base_url=base, transport=transport, timeout=timeout, **kwargs)


def async_client(
    url: str,
    timeout: Timeout,
    transport: httpx.AsyncBaseTransport | None = None,
    **kwargs: Any,
) -> httpx.AsyncClient:
    base, uds = httpx_target(url)
    kwargs.setdefault("verify", _tls())
    if uds and transport is None:
        transport = httpx.AsyncHTTPTransport(uds=uds, verify=kwargs["verify"])
    return httpx.AsyncClient(base_url=base, transport=transport, timeout=timeout, **kwargs)


def get(url: str, path: str, timeout: Timeout, **kwargs: Any) -> httpx.Response:
    """GET `path` of the bridge at `url`, with a client of its own."""
    with sync_client(url, timeout) as client:
        return client.get(path, **kwargs)
