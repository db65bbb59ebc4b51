"""The run service on real SQLite, the in-process bus and the real log writer, with an
in-process fake bridge: run logic tested in milliseconds, no subprocess."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agentchat.chat.schemas import SessionCreate
from agentchat.chat.sessions import create_session
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.events.in_process import InProcessEventBus
from agentchat.events.model import BusEvent
from agentchat.models.crypto import KeyCipher
from agentchat.models.schemas import ModelCreate
from agentchat.models.service import create_model
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.service import RunService
from tests.runs.rooms.fake_bridge import FakeBridge, FakeBridges

WAIT_S = 5.0


@dataclass
class Rooms:
    service: RunService
    bus: InProcessEventBus
    bridges: FakeBridges
    database: Database
    session_id: int

    @property
    def bridge(self) -> FakeBridge:
        return self.bridges.bridges[0]

    async def events(self, run_id: str) -> list[BusEvent]:
        """Every event of the run, up to and including its terminal one."""
        async with asyncio.timeout(WAIT_S):
            return [e async for e in self.bus.subscribe(run_id)]


@pytest.fixture
async def rooms(database: Database, settings: Settings) -> AsyncIterator[Rooms]:
    with database.session() as db:
        cipher = KeyCipher.for_settings(settings)
        data = ModelCreate(
            name="fake", base_url="http://127.0.0.1:9/v1", model_name="fake", api_key="sk-secret1"
        )
        create_model(db, cipher, data)
        session_id = create_session(db, SessionCreate()).id
    bus = InProcessEventBus()
    bridges = FakeBridges([FakeBridge()])
    service = RunService(database, bus, bridges, LogWriter(database), settings)
    service.driver.follow_backoff_s = 0.0  # a broken stream is followed again at once
    yield Rooms(service, bus, bridges, database, session_id)
    await service.shutdown()
    await bus.close()
