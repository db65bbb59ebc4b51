"""The fork server behind tests/support/zygote.py: imports what `agentchat serve` (KIND serve)
or `agentchat bridge` (KIND bridge) needs once, then forks a child per request that runs the
CLI as `python -m agentchat.cli` would.

Run as `python -u -P zygote_server.py SOCKET KIND` (-P: tests/support/ not on sys.path); it
ends when its stdin closes. A request is a 4-byte length with the log descriptor attached
(SCM_RIGHTS), then that many bytes of JSON: argv, env, cwd, start_new_session and, optionally,
stdin (text the child reads on its standard input, then end of file). The reply on the same
connection: the child's pid, one line, then its exit status (Popen's returncode: -N for signal
N), one line, once reaped.
Single-threaded (fork needs that): a selector loop, woken on SIGCHLD by a wakeup pipe."""

from __future__ import annotations

import contextlib
import gc
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys
import threading
from pathlib import Path
from typing import Any

# What a fresh interpreter has (SIGINT raises, SIGPIPE ignored, ...): each child gets it back.
_FRESH = {
    number: handler
    for number in signal.valid_signals()
    if (handler := signal.getsignal(number)) is not None
    and number not in (signal.SIGKILL, signal.SIGSTOP)
}

SERVE_PRELOAD = (
    "agentchat.cli",
    "agentchat.app",
    "agentchat.core.database",
    "agentchat.core.settings",
    "agentchat.lifecycle",
    "agentchat.local_stack",
    "agentchat.local_stack.start_checks",
    "agentchat.migrations.tables",
    "agentchat.scripted_llm.server",
    "agentchat.accounts.users",
    "agentchat.web.bind_rules",
    "agentchat.web.own_user",
    "agentchat.web.header_timeout",
    "uvicorn",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "typer._adapters",
    "httpcore",
    "h11",
    "anyio._core._sockets",
)
# A bridge imports hermes-agent after its settings are read: hermes reads HERMES_HOME and other
# variables into module constants as it is imported, so none of hermes' own modules is here.
# These are the modules a bridge imports besides hermes' own and the standard library (about
# two thirds of its start-up); none of them reads the environment as it is imported.
BRIDGE_PRELOAD = (
    "agentchat.cli",
    "agentchat.bridge.server.main",
    "agentchat.bridge.server.clean_start",
    "openai",
    "openai.types",
    "openai.types.chat",
    "openai.lib.streaming",
    "openai.lib.streaming.chat",
    "rich",
    "rich.console",
    "rich.markdown",
    "rich.panel",
    "rich.table",
    "requests",
    "yaml",
    "websockets",
    "websockets.server",
    "httpx",
    "httpcore",
    "uvicorn",
    "uvicorn.protocols.websockets.websockets_sansio_impl",
    "pygments",
    "croniter",
    "dateutil.parser",
    "pytz",
    "attr",
    "charset_normalizer",
    "typer._adapters",
    "h11",
    "anyio._core._sockets",
)
PRELOADS = {"serve": SERVE_PRELOAD, "bridge": BRIDGE_PRELOAD}


def _recv_exact(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("request cut short")
        data += chunk
    return data


def _read_request(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    head, fds, _flags, _addr = socket.recv_fds(conn, 4, 4)
    head += _recv_exact(conn, 4 - len(head))
    (size,) = struct.unpack("!I", head)
    return json.loads(_recv_exact(conn, size)), fds


def _run_child(request: dict[str, Any], log_fd: int, keep_closed: list[int]) -> None:
    """In the forked child: become the process `subprocess.Popen` would have started."""
    code = 1
    try:
        for fd in keep_closed:
            os.close(fd)
        signal.set_wakeup_fd(-1)
        for number, handler in _FRESH.items():
            with contextlib.suppress(OSError, ValueError):  # one the C library reserves
                signal.signal(number, handler)
        if request["start_new_session"]:
            os.setsid()
        os.dup2(_stdin_of(request), 0)
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = list(request["argv"])
        sys.path.insert(0, os.getcwd())  # as `python -m` does (the zygote runs with -P)
        # Run as __main__ the way `-m` does (no second copy of the module, no runpy warning).
        sys.modules.pop("agentchat.cli", None)
        try:
            runpy.run_module("agentchat.cli", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as exc:
            if exc.code is None:
                code = 0
            elif isinstance(exc.code, int):
                code = exc.code
            else:
                print(exc.code, file=sys.stderr)
                code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # nothing left to report it to
                stream.flush()
        os._exit(code)


def _stdin_of(request: dict[str, Any]) -> int:
    """A descriptor to read the request's `stdin` text from (then end of file), or /dev/null."""
    text = request.get("stdin")
    if text is None:
        return os.open(os.devnull, os.O_RDONLY)
    read, write = os.pipe()
    os.write(write, text.encode())  # a line or two: the pipe's buffer holds it
    os.close(write)
    return read


class Zygote:
    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(64)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda _n, _f: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # ended by its stdin, not a Ctrl-C
        self.children: dict[int, socket.socket] = {}
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "stdin")

    def serve(self) -> None:
        while True:
            for key, _events in self.selector.select(timeout=1.0):
                if key.data == "accept":
                    self._accept()
                elif key.data == "wake":
                    with contextlib.suppress(BlockingIOError):
                        os.read(self.wake_r, 4096)
                elif not os.read(sys.stdin.fileno(), 512):
                    return
            self._reap()

    def _accept(self) -> None:
        conn, _addr = self.listener.accept()
        conn.setblocking(True)
        try:
            request, fds = _read_request(conn)
        except (OSError, ValueError, struct.error):
            conn.close()
            return
        assert threading.active_count() == 1, "a thread in the zygote: fork is unsafe"
        keep_closed = [self.listener.fileno(), self.wake_r, self.wake_w, conn.fileno()]
        keep_closed += [c.fileno() for c in self.children.values()]
        pid = os.fork()
        if pid == 0:
            _run_child(request, fds[0], keep_closed)
        for fd in fds:
            os.close(fd)
        self.children[pid] = conn
        self._send(pid, f"{pid}\n")

    def _reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self._send(pid, f"{os.waitstatus_to_exitcode(status)}\n")
            conn = self.children.pop(pid, None)
            if conn is not None:
                conn.close()

    def _send(self, pid: int, line: str) -> None:
        conn = self.children.get(pid)
        if conn is None:
            return
        with contextlib.suppress(OSError):  # the test side is gone; the child is still reaped
            conn.sendall(line.encode())


def _use_cheapest_password_hashes() -> None:
    """As the test processes do (tests/support/cheap_passwords.py); the repository's root is on
    sys.path only for that import, not in the children."""
    root = str(Path(__file__).resolve().parents[2])
    sys.path.insert(0, root)
    try:
        from tests.support.cheap_passwords import use_cheapest_password_hashes
    finally:
        sys.path.remove(root)
    use_cheapest_password_hashes()


def main() -> None:
    path, kind = sys.argv[1], sys.argv[2]
    for name in PRELOADS[kind]:
        __import__(name)
    if kind == "serve":
        _use_cheapest_password_hashes()
    # The children inherit what is imported here already frozen: the full collection of their
    # start-up (agentchat/gc_freeze.py) then walks only what each built itself.
    gc.collect()
    gc.freeze()
    zygote = Zygote(path)
    print("ready", flush=True)
    zygote.serve()


if __name__ == "__main__":
    main()
