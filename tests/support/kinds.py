"""Which tests start a server, a process or the real hermes-agent: `make check` leaves them
out (`-m "not server"`), `make test` runs them.

A test counts as a server test when its module, or the module of any fixture it uses, refers
to something that starts one (below), directly or through a module of tests/ it imports from.
Nobody has to mark a new test: importing `start_bridge` or `subprocess` is enough.
"""

from __future__ import annotations

import inspect
import sys
from types import ModuleType

import pytest

# Modules whose use means a process, a listening socket or hermes-agent.
STARTERS = (
    "subprocess",
    "multiprocessing",
    "uvicorn",
    "playwright",
    "agentchat.local_stack",
    "agentchat.scripted_llm.server",
    "agentchat.bridge.hermes.agent",
    "tests.support.servers",
    "tests.support.serve_process",
    "tests.support.recording_model",
    "tests.support.mcp_server",
    "tests.support.mcp_servers",
    "tests.support.redis_server",
    "tests.support.local_bridge",
    "tests.models.fake_provider",
    "tests.reliability.fake_provider",
    "tests.reliability.api_process",
)

_known: dict[str, bool] = {}


def _is_starter(name: str) -> bool:
    return any(name == s or name.startswith(s + ".") for s in STARTERS)


def _source_module(value: object) -> str | None:
    if isinstance(value, ModuleType):
        return value.__name__
    name = getattr(value, "__module__", None)
    return name if isinstance(name, str) else None


def starts_servers(module_name: str) -> bool:
    """Whether this module (or a tests/ module it takes names from) uses a starter."""
    if module_name in _known:
        return _known[module_name]
    _known[module_name] = False  # an import cycle ends here
    module = sys.modules.get(module_name)
    found = _is_starter(module_name)
    for value in vars(module).values() if module is not None and not found else ():
        source = _source_module(value)
        if source is None or source == module_name:
            continue
        if _is_starter(source) or (source.startswith("tests.") and starts_servers(source)):
            found = True
            break
    _known[module_name] = found
    return found


def is_server_test(item: pytest.Item) -> bool:
    module = getattr(item, "module", None)
    if module is not None and starts_servers(module.__name__):
        return True
    info = getattr(item, "_fixtureinfo", None)
    for defs in info.name2fixturedefs.values() if info is not None else ():
        func = defs[-1].func
        source = inspect.getmodule(func)
        if source is not None and starts_servers(source.__name__):
            return True
    return False
