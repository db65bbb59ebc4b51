"""The owner of a connection's client socket, read from the kernel's socket tables."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentchat.peers import socket_owner

pytestmark = pytest.mark.skipif(not socket_owner.supported(), reason="Linux /proc/net only")

HEAD = b"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  inode\n"
QUEUES = "00000000:00000000 00:00000000 00000000"  # tx:rx queue, timer, retransmits
CLIENT, SERVER = ("127.0.0.1", 50123), ("127.0.0.1", 8000)
PORTS = f"{CLIENT[1]:04X} 0100007F:{SERVER[1]:04X}"


@pytest.fixture
def listening() -> Iterator[socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    yield server
    server.close()


def test_a_real_loopback_connection_is_owned_by_this_user(listening: socket.socket) -> None:
    client = socket.create_connection(listening.getsockname())
    accepted, _ = listening.accept()
    try:
        owner = socket_owner.socket_owner(client.getsockname(), accepted.getsockname())
        assert owner == os.geteuid()
        # the server's own end is not taken for the client's
        assert socket_owner.socket_owner(accepted.getsockname(), ("127.0.0.1", 1)) is None
    finally:
        client.close()
        accepted.close()


def test_a_closed_client_socket_has_no_owner(listening: socket.socket) -> None:
    client = socket.create_connection(listening.getsockname())
    accepted, _ = listening.accept()
    where = client.getsockname()
    client.close()  # the kernel keeps it a while (FIN_WAIT / TIME_WAIT), held by nobody
    try:
        assert socket_owner.socket_owner(where, accepted.getsockname()) is None
    finally:
        accepted.close()


def test_the_proc_tables_say_the_same_where_netlink_is_refused(
    listening: socket.socket, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = socket.create_connection(listening.getsockname())
    accepted, _ = listening.accept()
    try:
        ends = (client.getsockname(), accepted.getsockname())
        assert socket_owner.socket_owner(*ends) == os.geteuid()
        no_netlink(monkeypatch)
        assert socket_owner.socket_owner(*ends) == os.geteuid()
    finally:
        client.close()
        accepted.close()


def no_netlink(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> socket.socket:
        raise PermissionError(1, "netlink refused (a sandbox)")

    monkeypatch.setattr(socket_owner, "_diag_socket", refused)


def _table(tmp_path: Path, name: str, *rows: str) -> None:
    (tmp_path / name).write_bytes(HEAD + "".join(f"{r}\n" for r in rows).encode())


@pytest.mark.parametrize(
    ("state", "uid", "inode", "expected"),
    [
        ("01", 1000, 4242, 1000),  # established, held
        ("05", 1000, 4242, 1000),  # the client shut its side, still holds the socket
        ("06", 0, 0, None),  # TIME_WAIT: listed as uid 0, held by nobody
        ("04", 1000, 0, None),  # closed by its process (an orphan)
        ("0A", 1000, 4242, None),  # listening, not connected
    ],
)
def test_only_a_held_connected_socket_counts(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    state: str,
    uid: int,
    inode: int,
    expected: int | None,
) -> None:
    row = f"   1: 0100007F:{PORTS} {state} {QUEUES}  {uid}  0 {inode} 1 0 20 4 30 10 -1"
    _table(tmp_path, "tcp", row)
    _table(tmp_path, "tcp6")
    monkeypatch.setattr(socket_owner, "PROC_NET", tmp_path)
    no_netlink(monkeypatch)
    assert socket_owner.socket_owner(CLIENT, SERVER) == expected


def test_a_mapped_address_is_found_in_the_ipv6_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mapped = "0000000000000000FFFF00000100007F"
    ends = f"{mapped}:{CLIENT[1]:04X} {mapped}:{SERVER[1]:04X}"
    row = f"   0: {ends} 01 {QUEUES}  1000  0 77 1"
    _table(tmp_path, "tcp")
    _table(tmp_path, "tcp6", row)
    monkeypatch.setattr(socket_owner, "PROC_NET", tmp_path)
    no_netlink(monkeypatch)
    assert (
        socket_owner.socket_owner(("::ffff:127.0.0.1", 50123), ("::ffff:127.0.0.1", 8000)) == 1000
    )
    assert socket_owner.socket_owner(("::1", 50123), ("::1", 8000)) is None
