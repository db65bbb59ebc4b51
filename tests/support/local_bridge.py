"""The local bridge `agentchat serve` starts is detached from it on purpose (it outlives the
API), so tests find it themselves: by `DATA_DIR/bridge.json` and by /proc (every `agentchat
bridge` process serving a hermes home), and end it themselves."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

NOBODY = 65534


def bridge_state(data_dir: Path) -> dict[str, Any] | None:
    try:
        state: dict[str, Any] = json.loads((data_dir / "bridge.json").read_text())
    except (OSError, ValueError):
        return None
    return state


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def bridges_on(home: Path) -> list[int]:
    """Pids of the live `agentchat bridge` processes whose hermes home is `home`."""
    wanted = f"AGENTCHAT_HERMES_HOME={home.resolve()}".encode()
    flag = str(home.resolve()).encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        ours = wanted in environ or flag in words
        if ours and b"bridge" in words and b"agentchat.cli" in words and alive(int(entry.name)):
            found.append(int(entry.name))
    return sorted(found)


def wait_gone(pid: int, timeout: float) -> bool:
    """Whether `pid` ended within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    assert wait_gone(pid, 10), f"{pid} survived SIGKILL"


def stop_local_bridges(data_dir: Path, home: Path | None = None) -> None:
    """End every bridge on the data folder's hermes home (SIGTERM, then SIGKILL)."""
    for pid in bridges_on(home or data_dir / "hermes-home"):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        if not wait_gone(pid, 10):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            wait_gone(pid, 10)


def tcp_listeners(pid: int) -> list[str]:
    """The TCP ports `pid` listens on (as /proc/net/tcp and tcp6 write them, hex)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    ports = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.append(fields[1].rsplit(":", 1)[1])
    return ports


def as_nobody(action: Callable[[], None]) -> int:
    """Run `action` in a forked child as the user nobody (another local user); the errno it
    failed with, 0 when it worked. The tests run as root, which the kernel lets in anywhere."""
    pid = os.fork()
    if pid == 0:  # the child: a few system calls, then out, whatever happens
        code = 0
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            action()
        except OSError as exc:
            code = exc.errno or 1
        except BaseException:
            code = 255
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
