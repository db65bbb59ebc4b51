"""Which bridge worker serves a session: rendezvous hashing over the configured URLs, so a
session's turns go to the worker that holds its agent, and move to the next when it is down."""

from __future__ import annotations

import hashlib
import time

from agentchat.bridge_client.client import BridgeClient

DOWN_S = 10.0


class BridgeWorkers:
    """A worker that could not be reached is remembered as down for `down_s` seconds: it goes
    last in every ranking, so its sessions move at once instead of paying a connect timeout
    on every turn. It is tried again (and rises back) after that, or when all are down."""

    def __init__(self, urls: list[str], secret: str | None = None, down_s: float = DOWN_S) -> None:
        if not urls:
            raise ValueError("at least one bridge URL is needed")
        self._clients = {url: BridgeClient(url, secret) for url in urls}
        self._retired: list[BridgeClient] = []
        self._down_until: dict[str, float] = {}
        self._down_s = down_s

    @property
    def urls(self) -> list[str]:
        return list(self._clients)

    def candidates(self, session_key: str) -> list[BridgeClient]:
        """Every bridge, the preferred one for this session first (bridges known down last)."""
        now = time.monotonic()
        ranked = sorted(
            self._clients,
            key=lambda url: (self._down_until.get(url, 0.0) <= now, _score(url, session_key)),
            reverse=True,
        )
        return [self._clients[url] for url in ranked]

    def client_for(self, session_key: str) -> BridgeClient:
        return self.candidates(session_key)[0]

    def mark_down(self, url: str) -> None:
        self._down_until[url] = time.monotonic() + self._down_s

    def mark_up(self, url: str) -> None:
        self._down_until.pop(url, None)

    def repoint(self, urls: list[str], secret: str | None) -> None:
        """Route to these bridges from now on (the local bridge came back elsewhere). Clients of
        the old ones are closed with the router: a turn may still hold one."""
        self._retired.extend(self._clients.values())
        self._clients = {url: BridgeClient(url, secret) for url in urls}
        self._down_until.clear()

    async def aclose(self) -> None:
        for client in [*self._clients.values(), *self._retired]:
            await client.aclose()


def rank(urls: list[str], session_key: str) -> list[str]:
    """The bridges in the order a session prefers them (highest rendezvous score first)."""
    return sorted(urls, key=lambda url: _score(url, session_key), reverse=True)


def _score(url: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{url}|{key}".encode(), digest_size=8).digest(), "big")
