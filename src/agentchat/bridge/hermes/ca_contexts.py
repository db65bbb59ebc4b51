"""One loaded CA bundle per file for hermes' model clients, not one per agent built.

hermes-agent checks each CA bundle it is pointed at (certifi's, and the SSL_CERT_FILE family)
by loading it into a new SSL context, and loads it again for the model client, for every agent
it builds: the bridge builds one per chat, so the first turn of each chat paid four or five
loads (about 0.02 s of CPU each, most of the agent's construction). Here hermes' two modules
that do this get a `create_default_context` that hands back the context already loaded from
the same file, while the file is the same (device, inode, size, modification time); a changed
file is loaded again, and a missing or broken one fails as it did. Only these two modules see
it: they give the context to httpx as `verify`, which does not change it. Imported by the
bridge only, after hermes-agent.
"""

from __future__ import annotations

import importlib
import os
import ssl
import threading
from types import ModuleType
from typing import Any

_FileKey = tuple[str, int, int, int, int]
_HERMES_MODULES = ("agent.ssl_guard", "agent.ssl_verify")


class _SslWithReusedContexts:
    """The `ssl` module as those hermes modules use it, with loaded bundles kept."""

    def __init__(self) -> None:
        self._contexts: dict[_FileKey, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(ssl, name)

    def create_default_context(
        self, purpose: Any = ssl.Purpose.SERVER_AUTH, *, cafile: str | None = None, **kw: Any
    ) -> ssl.SSLContext:
        plain = not kw and purpose is ssl.Purpose.SERVER_AUTH
        key = _file_key(cafile) if cafile and plain else None
        if key is None:
            return ssl.create_default_context(purpose, cafile=cafile, **kw)
        with self._lock:
            known = self._contexts.get(key)
        if known is not None:
            return known
        context = ssl.create_default_context(cafile=cafile)  # raises as before for a bad file
        with self._lock:
            return self._contexts.setdefault(key, context)


def _file_key(path: str) -> _FileKey | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (path, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


_ssl = _SslWithReusedContexts()


def install() -> None:
    """Give hermes' CA-bundle modules the reusing `ssl` (idempotent)."""
    for name in _HERMES_MODULES:
        module: ModuleType = importlib.import_module(name)
        module.ssl = _ssl  # type: ignore[attr-defined]
