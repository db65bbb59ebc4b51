"""One verifying TLS context for every httpx client a test process makes.

httpx builds a fresh context, loading the whole CA bundle (20-50 ms of CPU), for each client,
even one that only speaks plain HTTP to 127.0.0.1; tests make thousands (`httpx.post`, a
client per person, per stream). The context is the same each time, so the first is reused.
Only the default case (verify=True, no client certificate) is cached; any other is built as
httpx would. No client here asks for HTTP/2, so the ALPN list httpcore sets on it is always
the same.
"""

from __future__ import annotations

import os
import ssl
from functools import cache
from typing import Any

import httpx
from httpx import _transports

_build = httpx.create_ssl_context


@cache
def _default(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return _build()


def _create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> Any:
    if verify is True and cert is None and trust_env:
        return _default(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    return _build(verify=verify, cert=cert, trust_env=trust_env)


def share_default_tls_context() -> None:
    """Make httpx's transports reuse one default context in this process."""
    _transports.default.create_ssl_context = _create_ssl_context  # type: ignore[attr-defined]
