"""Which bridge worker serves a session: rendezvous hashing over the configured URLs, so a
session's turns go to the worker that holds its agent, and move to the next when it is down."""

from __future__ import annotations

import hashlib

from agentchat.bridge.client import BridgeClient


class BridgeRouter:
    def __init__(self, urls: list[str], secret: str | None = None) -> None:
        if not urls:
            raise ValueError("at least one bridge URL is needed")
        self._clients = {url: BridgeClient(url, secret) for url in urls}

    @property
    def urls(self) -> list[str]:
        return list(self._clients)

    def candidates(self, session_key: str) -> list[BridgeClient]:
        """Every bridge, the preferred one for this session first."""
        ranked = sorted(self._clients, key=lambda url: _score(url, session_key), reverse=True)
        return [self._clients[url] for url in ranked]

    def client_for(self, session_key: str) -> BridgeClient:
        return self.candidates(session_key)[0]

    def by_url(self, url: str) -> BridgeClient | None:
        return self._clients.get(url)

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()


def _score(url: str, key: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{url}|{key}".encode(), digest_size=8).digest(), "big")
