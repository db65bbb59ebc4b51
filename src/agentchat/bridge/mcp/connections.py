"""The MCP servers this bridge holds, kept to what each run request says.

hermes' client (tools/mcp_tool.py) keeps one connection per server name for the process, and
registers its tools as `mcp__<server>__<tool>` in toolset `mcp-<server>`: an agent sees a
server's tools when that toolset is among its own. Before each turn `prepare` closes the
servers no longer sent or whose settings changed, and connects those the turn may use that
are not connected yet, in parallel, each bounded by its connect timeout: a server that hangs
or fails is left out of that turn (it is named in the turn's status line) and tried again on
a later turn, not before `retry_after_s` unless its settings change.

A connection is made here rather than through hermes' `register_mcp_servers`: a server that
fails to connect would stay parked in hermes' loop, retrying every five minutes for ever,
with nobody holding it; here it is shut down at once. Imported after hermes-agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from agentchat.bridge.mcp import gate
from agentchat.bridge.mcp.entry import hermes_entry, one_sentence, start_problem
from agentchat.protocol.mcp import (
    McpCheck,
    McpProbe,
    McpServerStatus,
    McpServerWire,
    McpSetup,
    McpToolInfo,
    safe_name,
)

log = logging.getLogger(__name__)

RETRY_AFTER_S = 30.0
_SHUTDOWN_S = 15.0
_LOOP_MARGIN_S = 10.0  # past the longest connect timeout, for the loop's own bookkeeping


@dataclass
class _Known:
    wire: McpServerWire
    error: str | None = None
    failed_at: float = 0.0


@dataclass
class Prepared:
    """What a turn gets: the toolsets of the servers it can use, their approval modes, why
    the others cannot be used, and hermes' sanitised names back to ours."""

    toolsets: list[str] = field(default_factory=list)
    modes: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)


class McpConnections:
    def __init__(self, allowed_transports: frozenset[str], retry_after_s: float = RETRY_AFTER_S):
        self._allowed = allowed_transports
        self._retry_after_s = retry_after_s
        self._lock = threading.Lock()
        self._known: dict[str, _Known] = {}
        self._connecting: dict[str, threading.Lock] = {}

    # ── before a turn ────────────────────────────────────────────────────────
    def prepare(self, setup: McpSetup, notify: Callable[[str], None] | None = None) -> Prepared:
        """`notify(text)` is told before servers are connected (it can take their timeout)."""
        self.keep(setup.servers)
        use = set(setup.use)
        wanted = [s for s in setup.servers if s.name in use]
        prepared = Prepared()
        for server in wanted:
            problem = self._refusal(server)
            if problem:
                prepared.problems[server.name] = problem
        ready = [s for s in wanted if s.name not in prepared.problems]
        with self._locked([s.name for s in ready]):
            missing = [s for s in ready if not _connected(s.name) and not self._waiting(s)]
            if missing and notify is not None:
                notify(f"Connecting to MCP server {', '.join(s.name for s in missing)}")
            prepared.problems.update(self._connect(missing))
        for server in ready:
            if _connected(server.name):
                prepared.toolsets.append(f"mcp-{server.name}")
                prepared.modes[server.name] = server.approval
                prepared.names[safe_name(server.name)] = server.name
            elif server.name not in prepared.problems:
                prepared.problems[server.name] = self._last_error(server.name)
        return prepared

    def keep(self, servers: list[McpServerWire]) -> None:
        """Hold exactly these servers: close the others and those whose settings changed."""
        sent = {s.name: s for s in servers}
        closing = []
        with self._lock:
            for name, known in list(self._known.items()):
                server = sent.get(name)
                if server is None or server.fingerprint != known.wire.fingerprint:
                    closing.append(name)
                    del self._known[name]
            for name, server in sent.items():
                if name in self._known:
                    self._known[name].wire = server  # the approval mode may change
                else:
                    self._known[name] = _Known(server)
        for name in closing:
            _close(name)

    def _refusal(self, server: McpServerWire) -> str | None:
        if server.transport not in self._allowed:
            return f"this agent service does not run {server.transport} MCP servers"
        return None

    def _waiting(self, server: McpServerWire) -> bool:
        """A recent failure with the same settings: not tried again yet."""
        with self._lock:
            known = self._known.get(server.name)
            if known is None or known.error is None:
                return False
            return time.monotonic() - known.failed_at < self._retry_after_s

    def _last_error(self, name: str) -> str:
        with self._lock:
            known = self._known.get(name)
        error = known.error if known else None
        return error or "the server is not connected"

    @contextlib.contextmanager
    def _locked(self, names: list[str]) -> Iterator[None]:
        """One connection attempt per server at a time (locks taken in name order)."""
        with self._lock:
            locks = [self._connecting.setdefault(n, threading.Lock()) for n in sorted(names)]
        with contextlib.ExitStack() as stack:
            for lock in locks:
                stack.enter_context(lock)
            yield

    def _connect(self, servers: list[McpServerWire]) -> dict[str, str]:
        """Connect these servers in parallel; their failures, in one sentence each."""
        if not servers:
            return {}
        gate.install()  # before hermes makes the handlers of their tools
        problems = {s.name: p for s in servers if (p := start_problem(s) or _suspicious(s))}
        tried = [s for s in servers if s.name not in problems]
        outcomes = _connect_all(tried) if tried else {}
        for server in tried:
            outcome = outcomes.get(server.name)
            if isinstance(outcome, BaseException) or outcome is None:
                problems[server.name] = _error_text(outcome)
            else:
                _register(server, outcome)
        self._record(servers, problems)
        return problems

    def _record(self, servers: list[McpServerWire], problems: dict[str, str]) -> None:
        now = time.monotonic()
        with self._lock:
            for server in servers:
                known = self._known.get(server.name)
                if known is None:
                    continue
                known.error = problems.get(server.name)
                known.failed_at = now if known.error else 0.0
        for name, problem in problems.items():
            log.warning("MCP server %r is not available: %s", name, problem)

    # ── the Tools page ───────────────────────────────────────────────────────
    def statuses(self) -> list[McpServerStatus]:
        with self._lock:
            known = [(k.wire, k.error) for k in self._known.values()]
        return [_status(wire, error) for wire, error in known]  # none: hermes' client unloaded

    def check(self, server: McpServerWire) -> McpCheck:
        """Whether this bridge could start the server (a save asks before it stores one)."""
        problem = self._refusal(server) or start_problem(server) or _suspicious(server)
        return McpCheck(problem=problem)

    def probe(self, server: McpServerWire) -> McpProbe:
        """Connect for a test, list the tools, close: nothing is kept or registered."""
        problem = self.check(server).problem
        if problem:
            return McpProbe(ok=False, error=problem)
        outcome = _connect_all([server]).get(server.name)
        if isinstance(outcome, BaseException) or outcome is None:
            return McpProbe(ok=False, error=_error_text(outcome))
        tools = _tools_of(outcome)
        _shutdown(outcome)
        return McpProbe(ok=True, tools=tools)

    def close_all(self) -> None:
        with self._lock:
            names = list(self._known)
            self._known.clear()
        for name in names:
            _close(name)


# ── hermes' client ───────────────────────────────────────────────────────────────


def _mcp() -> Any:
    from tools import mcp_tool

    return mcp_tool


def _connected(name: str) -> bool:
    mt = _mcp()
    with mt._lock:
        server = mt._servers.get(name)
    return server is not None and server.session is not None


def _suspicious(server: McpServerWire) -> str | None:
    """hermes' own refusal of exfiltration- and persistence-shaped commands."""
    from hermes_cli.mcp_security import validate_mcp_server_entry

    issues = validate_mcp_server_entry(server.name, hermes_entry(server))
    return one_sentence("; ".join(issues)) if issues else None


def _connect_all(servers: list[McpServerWire]) -> dict[str, Any]:
    """{name: a started MCPServerTask, or the exception it failed with}."""
    mt = _mcp()
    entries = {s.name: hermes_entry(s) for s in servers}
    longest = max(s.connect_timeout_s for s in servers)

    async def one(name: str, entry: dict[str, Any]) -> Any:
        task = mt.MCPServerTask(name)
        try:
            await asyncio.wait_for(task.start(entry), entry["connect_timeout"])
        except BaseException as exc:  # a timeout, a refused start, a process that exited
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task.shutdown(), _SHUTDOWN_S)
            return exc if isinstance(exc, Exception) else RuntimeError(str(exc))
        return task

    async def every() -> dict[str, Any]:
        names = list(entries)
        results = await asyncio.gather(*(one(n, entries[n]) for n in names))
        return dict(zip(names, results, strict=True))

    mt._ensure_mcp_loop()
    try:
        result: dict[str, Any] = mt._run_on_mcp_loop(every, timeout=longest + _LOOP_MARGIN_S)
    except Exception as exc:  # the loop itself timed out, or the turn was stopped
        return {name: exc for name in entries}
    return result


def _register(server: McpServerWire, task: Any) -> None:
    """hermes' registration of a connected server's tools (as `register_mcp_servers` does)."""
    mt = _mcp()
    entry = hermes_entry(server)
    with mt._lock:
        previous = mt._servers.pop(server.name, None)
    if previous is not None:
        _shutdown(previous)
    with mt._lock:
        mt._servers[server.name] = task
        mt._server_connect_errors.pop(server.name, None)
    names = mt._register_server_tools(server.name, task, entry)
    task._registered_tool_names = list(names)
    log.info("MCP server %r connected: %d tool(s)", server.name, len(names))


def _close(name: str) -> None:
    mt = _mcp()
    with mt._lock:
        task = mt._servers.pop(name, None)
    if task is not None:
        _shutdown(task)
        log.info("MCP server %r closed", name)


def _shutdown(task: Any) -> None:
    mt = _mcp()
    try:
        mt._run_on_mcp_loop(task.shutdown, timeout=_SHUTDOWN_S + 5)
    except Exception:
        log.exception("MCP server %r did not shut down cleanly", task.name)


def _tools_of(task: Any) -> list[McpToolInfo]:
    return [
        McpToolInfo(name=str(t.name), description=str(getattr(t, "description", "") or ""))
        for t in getattr(task, "_tools", []) or []
    ]


def _status(wire: McpServerWire, error: str | None) -> McpServerStatus:
    mt = _mcp()
    with mt._lock:
        task = mt._servers.get(wire.name)
    base = {"name": wire.name, "fingerprint": wire.fingerprint}
    if task is not None and task.session is not None:
        return McpServerStatus(**base, state="connected", tools=_tools_of(task))
    if task is not None:
        lost = "the connection was lost; hermes is reconnecting"
        return McpServerStatus(**base, state="failed", error=lost)
    if error:
        return McpServerStatus(**base, state="failed", error=error)
    return McpServerStatus(**base, state="idle")


def _error_text(error: BaseException | None) -> str:
    if error is None:
        return "the server did not answer"
    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return "the server did not answer within its connect timeout"
    return one_sentence(_mcp()._format_connect_error(error))
