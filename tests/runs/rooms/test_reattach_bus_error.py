"""Issue 34, finding 1 (one process): an error of the event bus where a run is attached again
(an old connection after Redis restarted) stored the run INTERRUPTED, though its bridge held
it; it is tried again in the next round now."""

from __future__ import annotations

import asyncio

from redis.exceptions import ConnectionError as RedisConnectionError

from agentchat.core.settings import Settings
from agentchat.events.in_process import InProcessEventBus
from agentchat.protocol.events import RunEnd
from agentchat.runs import store
from agentchat.runs.drive.log_writer import LogWriter
from agentchat.runs.schemas import RunStart
from agentchat.runs.service import RunService
from tests.runs.rooms.conftest import WAIT_S, Rooms
from tests.runs.rooms.fake_bridge import Emit, WaitAbort


class BusFailingOnce(InProcessEventBus):
    """The in-process bus, whose first `is_known` meets a connection Redis closed."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 1

    async def is_known(self, run_id: str) -> bool:
        if self.failures:
            self.failures -= 1
            raise RedisConnectionError("Connection closed by server.")
        return await super().is_known(run_id)


async def test_a_bus_error_while_attaching_a_run_again_is_tried_again(
    rooms: Rooms, settings: Settings
) -> None:
    survive = settings.model_copy(update={"bridge_survives_api": True})
    rooms.service.ctx.runtime.bridges_outlive_api = True  # what start-up finds from `survive`
    rooms.bridge.script = [Emit("answer_delta", "kept"), WaitAbort()]
    started = await rooms.service.start(rooms.session_id, RunStart(message="hi"))
    async with asyncio.timeout(WAIT_S):
        while len(await rooms.bus.history(started.run_id)) < 1:
            await asyncio.sleep(0.01)
    await rooms.service.shutdown()  # left going in its bridge, its row RUNNING
    rooms.bridge.emitted[started.run_id].append(
        RunEnd(status="success", final_text="kept").with_event_id(2)
    )

    bus = BusFailingOnce()
    service = RunService(rooms.database, bus, rooms.bridges, LogWriter(rooms.database), survive)
    try:
        assert await service.recover() == []  # not interrupted: the bus failed, not the run
        assert await service.sweep_orphans() == []  # the next round attaches it
        async with asyncio.timeout(WAIT_S):
            events = [e async for e in bus.subscribe(started.run_id)]
    finally:
        await service.shutdown()
        await bus.close()
    assert events[-1].event == "workflow_complete", events
    with rooms.database.session() as db:
        message = store.message_for_run(db, started.run_id)
        assert (message.status, message.content) == ("SUCCESS", "kept")
