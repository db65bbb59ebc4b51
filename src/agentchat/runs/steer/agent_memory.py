"""The agent's memory files, read and written through the session's bridge."""

from __future__ import annotations

from sqlalchemy.orm import Session

from agentchat.bridge_client.client import BridgeUnavailable
from agentchat.chat.sessions import get_session
from agentchat.principal import agent_key
from agentchat.protocol.bridge_api import MemoryView
from agentchat.protocol.errors import BadGateway, Conflict
from agentchat.runs.context import RunContext, new_hermes_session
from agentchat.runs.ports import Bridge

AGENT_KEY = "agent"


class AgentMemory:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    async def read(self, session_id: int) -> MemoryView:
        hermes_session, owner, client = await self._session_bridge(session_id)
        try:
            view = await client.get_memory(hermes_session, owner)
        except BridgeUnavailable as exc:
            raise BadGateway(f"The agent service could not read memory: {exc}") from exc
        return view

    async def write(self, session_id: int, memory: str | None, user: str | None) -> MemoryView:
        hermes_session, owner, client = await self._session_bridge(session_id)
        try:
            view = await client.put_memory(hermes_session, memory=memory, user=user, user_id=owner)
        except BridgeUnavailable as exc:
            if exc.status_code == 422:
                raise Conflict(str(exc), code="memory_invalid") from exc
            raise BadGateway(f"The agent service could not save memory: {exc}") from exc
        return view

    async def read_agent(self, owner: str | None = None) -> MemoryView:
        """The agent's memory: one per bridge home, seen by every chat (any key reads it);
        `owner` (accounts: the person's opaque id) for a bridge that keeps one per person."""
        try:
            view = await self.ctx.bridges.client_for(AGENT_KEY).get_memory(AGENT_KEY, owner)
        except BridgeUnavailable as exc:
            raise BadGateway(f"The agent service could not read memory: {exc}") from exc
        return view

    async def write_agent(
        self, memory: str | None, user: str | None, owner: str | None = None
    ) -> MemoryView:
        client = self.ctx.bridges.client_for(AGENT_KEY)
        try:
            view = await client.put_memory(AGENT_KEY, memory=memory, user=user, user_id=owner)
        except BridgeUnavailable as exc:
            if exc.status_code == 422:
                raise Conflict(str(exc), code="memory_invalid") from exc
            raise BadGateway(f"The agent service could not save memory: {exc}") from exc
        return view

    async def _session_bridge(self, session_id: int) -> tuple[str, str | None, Bridge]:
        def read(db: Session) -> tuple[str, str | None]:
            chat = get_session(db, session_id)
            if not chat.hermes_session:
                chat.hermes_session = new_hermes_session()
            return chat.hermes_session, agent_key(chat.owner_id)

        hermes_session, owner = await self.ctx.in_thread(read)
        return hermes_session, owner, self.ctx.bridges.client_for(hermes_session)
