"""Which processes are an agent's (a bridge and its descendants), and which holds a socket:
real processes and sockets of this machine."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from agentchat.peers import agent_processes
from agentchat.peers.agent_processes import AgentProcesses, descendants, holds, is_bridge_command
from agentchat.peers.socket_owner import Holder, socket_holder

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

HOLD_A_CONNECTION = """
import socket, sys, time
conn = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
print(conn.getsockname()[1], flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize(
    ("command", "bridge"),
    [
        ("/usr/bin/python3 -m agentchat.cli bridge --uds /d/bridge.sock", True),
        ("/opt/agentchat/bin/python /opt/agentchat/bin/agentchat bridge --port 8201", True),
        ("agentchat bridge", True),
        ("/usr/bin/python3 -m agentchat.cli serve --port 8000", False),
        ("grep bridge /var/log/agentchat", False),
        ("agentchat-bridge", False),
    ],
)
def test_a_bridge_is_known_by_its_command(command: str, bridge: bool) -> None:
    assert is_bridge_command([w.encode() for w in command.split()]) is bridge


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    yield server
    server.close()


@pytest.fixture
def child_holding(listener: socket.socket) -> Iterator[tuple[subprocess.Popen[bytes], Holder]]:
    """A child process holding a connection to `listener`, and that connection's holder."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_CONNECTION, str(listener.getsockname()[1])],
        stdout=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None
        port = int(child.stdout.readline())
        accepted, _ = listener.accept()
        holder = socket_holder(("127.0.0.1", port), accepted.getsockname())
        assert holder is not None
        yield child, holder
        accepted.close()
    finally:
        child.kill()
        child.wait()


def test_a_socket_held_below_a_bridge_is_an_agents(
    child_holding: tuple[subprocess.Popen[bytes], Holder],
) -> None:
    child, holder = child_holding
    this_as_bridge = AgentProcesses(bridges=lambda: [os.getpid()])
    assert child.pid in descendants([os.getpid()])
    assert this_as_bridge.hold(holder)
    assert this_as_bridge.include(child.pid)
    elsewhere = AgentProcesses(bridges=lambda: [1 << 22])  # no such process
    assert not elsewhere.hold(holder)


def test_a_socket_held_above_the_bridge_is_not(
    child_holding: tuple[subprocess.Popen[bytes], Holder], listener: socket.socket
) -> None:
    child, _ = child_holding
    mine = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        holder = socket_holder(mine.getsockname(), accepted.getsockname())
        assert holder is not None
        assert not AgentProcesses(bridges=lambda: [child.pid]).hold(holder)
        assert not AgentProcesses(bridges=lambda: [child.pid]).include(os.getpid())
    finally:
        mine.close()
        accepted.close()


def test_without_children_files_the_parents_are_read_from_stat(
    child_holding: tuple[subprocess.Popen[bytes], Holder], monkeypatch: pytest.MonkeyPatch
) -> None:
    child, holder = child_holding

    def no_children_files(pid: int) -> list[int]:
        raise agent_processes._NoChildrenFiles(f"/proc/{pid}/task/{pid}/children")

    monkeypatch.setattr(agent_processes, "children", no_children_files)
    assert child.pid in descendants([os.getpid()])
    assert AgentProcesses(bridges=lambda: [os.getpid()]).hold(holder)


def test_the_list_of_bridges_is_looked_for_again_after_a_while() -> None:
    scans: list[float] = []
    now = [0.0]

    def bridges() -> list[int]:
        scans.append(now[0])
        return []

    agents = AgentProcesses(bridges=bridges, rescan_s=2.0, clock=lambda: now[0])
    for at in (0.0, 1.0, 1.9, 2.0, 3.0, 4.5):
        now[0] = at
        agents.roots()
    assert scans == [0.0, 2.0, 4.5]


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.access("/usr/bin/python3", os.X_OK),
    reason="playing another user needs root and a system python",
)
def test_a_process_that_hides_its_files_is_taken_for_the_holder() -> None:
    """An undumpable process of the socket's user hides /proc/<pid>/fd from that user: it
    is taken for the holder. One of another user's is not (it cannot hold this user's
    socket)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        outcome = b"error"
        try:
            os.setgid(65534)
            os.setuid(65534)
            hider = subprocess.Popen(  # the system python: the test's may be in /root
                ["/usr/bin/python3", "-c", HIDE_AND_WAIT], stdout=subprocess.PIPE
            )
            assert hider.stdout is not None
            hider.stdout.readline()  # it is undumpable now
            hidden = holds([hider.pid], Holder(65534, 424242))
            others = holds([hider.pid], Holder(1000, 424242))
            hider.kill()
            hider.wait()
            outcome = f"{hidden} {others}".encode()
        except BaseException as exc:
            outcome = repr(exc).encode()
        finally:
            os.write(write_end, outcome)
            os._exit(0)
    os.close(write_end)
    answer = os.read(read_end, 1000)
    os.waitpid(pid, 0)
    assert answer == b"True False"


HIDE_AND_WAIT = """
import ctypes, time
ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
print("hidden", flush=True)
time.sleep(60)
"""
