"""Which hosts a model's base URL may name and reach (AGENTCHAT_MODEL_HOSTS_ALLOW / _DENY).

Entries are host names (`api.openai.com`), suffixes (`.example.com`), IP addresses or
networks (`10.0.0.0/8`). Deny wins; an empty allow-list allows every host not denied.

A host is judged twice. By its spelling, when a model is saved, tested or run: a name or
suffix entry matches the name; an address entry matches an address however it is written
(`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1` and `[::ffff:127.0.0.1]` are all
127.0.0.1, as the resolver reads them; `localhost` is loopback). And by the addresses it
resolves to, when the API's model test or the bridge's agent connects (`address_problem`): a
name that resolves to a denied address is refused there, whatever it resolved to before (DNS
rebinding). The unspecified address (`0.0.0.0`, `::`) reaches this host, so it counts as
loopback. Through an HTTP proxy only the spelling is judged: the proxy resolves the name.

Shared with the bridge (a wire module): it imports no database, bus or domain code.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass, field

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_LOOPBACK = {4: ipaddress.ip_address("127.0.0.1"), 6: ipaddress.ip_address("::1")}
_NUMERIC = frozenset("0123456789abcdefxABCDEFX.")


def _entries(value: str) -> list[str]:
    return [v.strip().lower() for v in value.split(",") if v.strip()]


def normal_host(host: str) -> str:
    return host.strip().lower().strip("[]").rstrip(".")


def literal_address(host: str) -> Address | None:
    """The address `host` spells, in any form the system resolver takes as one, or None."""
    host = normal_host(host)
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if not host or not set(host) <= _NUMERIC:
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))  # 127.1, 0x7f000001, 0177.0.0.1
    except OSError:
        return None


def spelled_address(host: str) -> Address | None:
    """The address a host name stands for by its spelling alone: a literal address, or
    loopback for `localhost` and its subdomains (RFC 6761: they never leave this host)."""
    host = normal_host(host)
    if host == "localhost" or host.endswith(".localhost"):
        return _LOOPBACK[4]
    return literal_address(host)


def _equivalents(address: Address) -> list[Address]:
    """The address and those it stands for: an IPv4-mapped IPv6 address's IPv4 one, and
    loopback for the unspecified address (a connection to 0.0.0.0 reaches this host)."""
    found = [address]
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        found.append(address.ipv4_mapped)
    found += [_LOOPBACK[a.version] for a in list(found) if a.is_unspecified]
    return found


@dataclass(frozen=True)
class _Entries:
    names: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    networks: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, value: str) -> _Entries:
        names, suffixes, networks = [], [], []
        for entry in _entries(value):
            if entry.startswith("."):
                suffixes.append(entry)
                continue
            address = literal_address(entry) if "/" not in entry else None
            try:
                network = ipaddress.ip_network(entry.strip("[]"), strict=False)
            except ValueError:
                network = None
            if address is not None:
                networks.append(ipaddress.ip_network(address))
            elif network is not None:
                networks.append(network)
            else:
                names.append(normal_host(entry))
        return cls(tuple(names), tuple(suffixes), tuple(networks))

    def __bool__(self) -> bool:
        return bool(self.names or self.suffixes or self.networks)

    def by_name(self, host: str) -> bool:
        return host in self.names or any(host.endswith(s) or host == s[1:] for s in self.suffixes)

    def by_address(self, address: Address) -> bool:
        return any(
            a.version == n.version and a in n for a in _equivalents(address) for n in self.networks
        )


_HOST_NAME = re.compile(r"^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$")


def unparsable_entries(value: str) -> list[str]:
    """Entries of a host list that are no host name, `.suffix`, address or network (such as
    `10.0.0.0/33`, `*.example.com` or `http://host`): read as names, they match nothing."""
    return [entry for entry in _entries(value) if not _meaningful(entry.removeprefix("."))]


def _meaningful(entry: str) -> bool:
    if "/" not in entry and literal_address(entry) is not None:
        return True
    if "/" in entry or ":" in entry:  # a network or an IPv6 address, or nothing
        try:
            ipaddress.ip_network(entry.strip("[]"), strict=False)
        except ValueError:
            return False
        return True
    return _HOST_NAME.match(normal_host(entry)) is not None


@dataclass(frozen=True)
class HostPolicy:
    allow_list: str = ""
    deny_list: str = ""
    _allow: _Entries = field(init=False, repr=False, compare=False)
    _deny: _Entries = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_allow", _Entries.parse(self.allow_list))
        object.__setattr__(self, "_deny", _Entries.parse(self.deny_list))

    @property
    def empty(self) -> bool:
        return not (_entries(self.allow_list) or _entries(self.deny_list))

    def name_problem(self, host: str) -> str | None:
        """Why a base URL naming `host` may not be used, judged by its spelling; or None."""
        host = normal_host(host)
        address = spelled_address(host)
        if self._deny.by_name(host) or (address is not None and self._deny.by_address(address)):
            return f"The model host {host!r} is denied by AGENTCHAT_MODEL_HOSTS_DENY."
        if not self._allow or self._allow.by_name(host):
            return None
        if address is not None and self._allow.by_address(address):
            return None
        if address is None and self._allow.networks:
            return None  # a name: judged by its addresses when it is reached
        return f"The model host {host!r} is not in AGENTCHAT_MODEL_HOSTS_ALLOW."

    def address_problem(self, host: str, address: str | Address) -> str | None:
        """Why `host` may not be reached at `address`, or None."""
        host = normal_host(host)
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
        problem = self.name_problem(host)
        if problem:
            return problem
        if self._deny.by_address(ip):
            return (
                f"The model host {host!r} resolves to {ip}, "
                "which AGENTCHAT_MODEL_HOSTS_DENY denies."
            )
        allowed_by_name = not self._allow or self._allow.by_name(host)
        if not allowed_by_name and not self._allow.by_address(ip):
            return (
                f"The model host {host!r} resolves to {ip}, "
                "which is not in AGENTCHAT_MODEL_HOSTS_ALLOW."
            )
        return None
