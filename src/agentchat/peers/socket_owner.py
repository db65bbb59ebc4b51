"""Who holds the other end of a TCP connection on this machine, as Linux tells it.

The kernel's socket diagnostics (netlink `sock_diag`, what `ss` uses) look one socket up by its
addresses: the client's socket of a loopback connection is the one whose local address is the
client's and whose remote address is the server's. Its answer names the socket's state, its
owner's uid and its inode. Only a socket that a process still holds (inode not 0) in a
connected state counts: a closed one waiting in TIME_WAIT is listed with uid 0, which is
nobody's, not root's. Where netlink is refused, /proc/net/tcp and tcp6 say the same in text
(about 1 ms a look-up against 20 µs: they list every socket).
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import struct
from pathlib import Path
from typing import NamedTuple

Address = tuple[str, int]
PROC_NET = Path("/proc/net")
# ESTABLISHED, FIN_WAIT1, FIN_WAIT2 (the client shut its side, still holds it), CLOSE_WAIT
CONNECTED_STATES = frozenset({1, 4, 5, 8})

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_NO_COOKIE = 0xFFFFFFFF
_HEADER = struct.Struct("=IHHII")  # nlmsghdr
_REQUEST = struct.Struct("=BBBBI2s2s16s16sIII")  # inet_diag_req_v2
_REPLY = struct.Struct("=BBBB2s2s16s16sIIIIIIII")  # inet_diag_msg: ... uid, inode


def supported() -> bool:
    """Whether this system says who holds a socket (Linux: netlink, or /proc mounted)."""
    try:
        with _diag_socket():
            return True
    except OSError:
        pass
    try:
        return bool((PROC_NET / "tcp").read_bytes())
    except OSError:
        return False


class Holder(NamedTuple):
    """An open socket on this machine: its owner's uid and its inode (the `socket:[inode]`
    that /proc/<pid>/fd of each process holding it shows)."""

    uid: int
    inode: int


def socket_owner(client: Address, server: Address) -> int | None:
    """The uid of the open socket at `client` connected to `server`; None when there is none
    (another machine, a socket already closed) or the system does not say."""
    holder = socket_holder(client, server)
    return None if holder is None else holder.uid


def socket_holder(client: Address, server: Address) -> Holder | None:
    """The open socket at `client` connected to `server`, as socket_owner finds it."""
    try:
        return _ask_netlink(client, server)
    except OSError:
        return _read_proc(client, server)


# ── netlink ─────────────────────────────────────────────────────────────────────────────
def _diag_socket() -> socket.socket:
    return socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG)


def _ask_netlink(client: Address, server: Address) -> Holder | None:
    local, remote = ipaddress.ip_address(client[0]), ipaddress.ip_address(server[0])
    family = socket.AF_INET6 if local.version == 6 else socket.AF_INET
    body = _REQUEST.pack(
        *(family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF),
        *(struct.pack("!H", client[1]), struct.pack("!H", server[1])),
        *(local.packed.ljust(16, b"\0"), remote.packed.ljust(16, b"\0")),
        *(0, _NO_COOKIE, _NO_COOKIE),
    )
    header = _HEADER.pack(_HEADER.size + len(body), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0)
    with _diag_socket() as diag:
        diag.settimeout(1.0)
        diag.sendto(header + body, (0, 0))
        answer = diag.recv(8192)
    _length, kind, _flags, _seq, _pid = _HEADER.unpack_from(answer)
    if kind == _NLMSG_ERROR:
        code = -struct.unpack_from("=i", answer, _HEADER.size)[0]
        if code == errno.ENOENT:
            return None
        raise OSError(code, "sock_diag refused the look-up")
    reply = _REPLY.unpack_from(answer, _HEADER.size)
    state, uid, inode = reply[1], reply[-2], reply[-1]
    return Holder(uid, inode) if state in CONNECTED_STATES and inode else None


# ── /proc/net/tcp ───────────────────────────────────────────────────────────────────────
def _read_proc(client: Address, server: Address) -> Holder | None:
    for table, local, remote in _row_keys(client, server):
        try:
            rows = (PROC_NET / table).read_bytes()
        except OSError:
            return None
        owner = _owner_in(rows, local, remote)
        if owner is not None:
            return owner
    return None


def _owner_in(rows: bytes, local: bytes, remote: bytes) -> Holder | None:
    at = rows.find(b" " + local + b" " + remote + b" ")
    if at < 0:
        return None
    start = rows.rfind(b"\n", 0, at) + 1
    end = rows.find(b"\n", at)
    fields = rows[start : end if end >= 0 else len(rows)].split()
    if len(fields) <= 9 or int(fields[3], 16) not in CONNECTED_STATES or fields[9] == b"0":
        return None
    # fields: sl local remote st queues timer retransmits uid timeout inode
    return Holder(int(fields[7]), int(fields[9]))


def _row_keys(client: Address, server: Address) -> list[tuple[str, bytes, bytes]]:
    """(table, local, remote) as the kernel prints them, for each table the pair may be in."""
    keys = []
    a, b = ipaddress.ip_address(client[0]), ipaddress.ip_address(server[0])
    if isinstance(a, ipaddress.IPv6Address) and isinstance(b, ipaddress.IPv6Address):
        keys.append(("tcp6", _hex(a, client[1]), _hex(b, server[1])))
    a4, b4 = _as_v4(a), _as_v4(b)
    if a4 is not None and b4 is not None:
        keys.append(("tcp", _hex(a4, client[1]), _hex(b4, server[1])))
    return keys


def _as_v4(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return address
    return address.ipv4_mapped


def _hex(address: ipaddress.IPv4Address | ipaddress.IPv6Address, port: int) -> bytes:
    """The kernel prints each 32-bit word of the address as a native-order integer."""
    words = struct.unpack(f"={len(address.packed) // 4}I", address.packed)
    return ("".join(f"{w:08X}" for w in words) + f":{port:04X}").encode()
