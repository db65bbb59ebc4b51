"""The kind of deployment, chosen once at start (runs/cluster/kinds.py): one machine (an
in-process bus, file locks, nobody else to tell) or several API processes over Redis (Redis
Streams, owner keys, the control channel, revocations over pub/sub). Nothing else asks which."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agentchat.accounts.gate import AccountsGate
from agentchat.core.settings import Settings
from agentchat.events import InProcessEventBus, RedisEventBus
from agentchat.events.broadcast import NoBroadcast
from agentchat.runs.cluster.file_owners import FileRunOwners
from agentchat.runs.cluster.kinds import Cluster, LocalCluster, RedisCluster, make_cluster
from agentchat.runs.cluster.owners import RunOwners
from tests.events.conftest import REDIS_URL, delete_keys


@pytest.fixture
async def clusters(tmp_path: Path) -> AsyncIterator[list[Cluster]]:
    """Two API processes over one Redis (keys under a prefix of this test's own)."""
    redis_prefix = f"agentchat-test:{os.environ.get('AGENTCHAT_TEST_NS', '')}{uuid.uuid4().hex}:"
    settings = Settings(data_dir=tmp_path, redis_url=REDIS_URL, redis_prefix=redis_prefix)
    made = [make_cluster(settings), make_cluster(settings)]
    yield made
    for cluster in made:
        await cluster.aclose()
    await delete_keys(redis_prefix)


async def test_without_redis_the_cluster_is_this_machine(tmp_path: Path) -> None:
    cluster = make_cluster(Settings(data_dir=tmp_path))
    try:
        assert isinstance(cluster, LocalCluster)
        assert isinstance(cluster.bus, InProcessEventBus)
        assert isinstance(cluster.owners, FileRunOwners)
        assert cluster.remote is None and isinstance(cluster.revocations, NoBroadcast)
        assert cluster.problem() is None
        await cluster.revocations.publish({"user": 1})  # nobody to tell, and no error
    finally:
        await cluster.aclose()


async def test_with_redis_every_part_is_shared(clusters: list[Cluster]) -> None:
    for cluster in clusters:
        assert isinstance(cluster, RedisCluster)
        assert isinstance(cluster.bus, RedisEventBus) and isinstance(cluster.owners, RunOwners)
        assert cluster.remote is not None and cluster.problem() is None
    await clusters[0].owners.claim("run-1")
    assert await clusters[1].owners.alive(["run-1"]) == {"run-1"}


async def test_a_revocation_reaches_the_other_process(clusters: list[Cluster]) -> None:
    here, there = AccountsGate(None), AccountsGate(None)
    await here.listen(clusters[0].revocations)
    await there.listen(clusters[1].revocations)
    cached: Any = (object(), float("inf"))
    there._cache["digest-1"] = cached
    await here.ended(digests=["digest-1"])
    async with asyncio.timeout(5):
        while "digest-1" in there._cache:
            await asyncio.sleep(0.02)


async def test_accounts_turned_on_elsewhere_are_on_here(clusters: list[Cluster]) -> None:
    here, there = AccountsGate(None), AccountsGate(None)
    await there.listen(clusters[1].revocations)
    await here.listen(clusters[0].revocations)
    await here.announce_on()
    async with asyncio.timeout(5):
        while not await there.accounts_on():
            await asyncio.sleep(0.02)
