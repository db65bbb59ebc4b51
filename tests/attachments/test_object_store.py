"""Attachments in an S3-compatible object store (`AGENTCHAT_ATTACHMENT_STORE=s3`), against a
real S3 server process (moto_server on loopback): the bytes round-trip by their SHA-256, the
same bytes are one object, a deleted chat's objects go, an unreachable store is a 503 with
nothing stored, and a question's file reaches the real hermes-agent through the bridge."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentchat.attachments.store import configure_store
from agentchat.chat.tables import ChatSession
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from tests.attachments.conftest import (
    attach,
    attached,
    client_on,
    new_chat,
    spooled_files,
    stored_counts,
)
from tests.attachments.files import png
from tests.reliability.helpers import wait_for
from tests.support.api_stack import Stack
from tests.support.s3_server import S3Server, running

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    yield from running()


@pytest.fixture
def bucket(s3: S3Server, request: pytest.FixtureRequest) -> str:
    return s3.bucket(f"b{abs(hash(request.node.nodeid)) % 10**12}")


@pytest.fixture
def settings(tmp_path: Path, s3: S3Server, bucket: str) -> Settings:
    """The settings of `client`'s app (tests/conftest.py): the object store in its bucket."""
    return Settings(
        data_dir=tmp_path / "data",
        start_bridge=False,
        start_scripted_llm=False,
        **s3.settings(bucket),
    )


@pytest.fixture(autouse=True)
def _store_reset(database: Database) -> Iterator[None]:
    """Each app here configures the object store on the database; the next test's app on this
    database configures its own."""
    yield
    configure_store(database, Settings())


DATA = b"".join(f"line {i:06d} of the report\n".encode() for i in range(40_000))  # ~1 MiB


async def test_the_bytes_go_to_the_object_store_and_come_back_by_their_digest(
    client: httpx.AsyncClient, database: Database, s3: S3Server, bucket: str
) -> None:
    chat = await new_chat(client)
    row = await attached(client, chat, "report.txt", DATA)

    digest = hashlib.sha256(DATA).hexdigest()
    assert row["digest"] == digest
    assert s3.keys(bucket) == [f"att/{chat}/{digest}"]
    assert stored_counts(database) == (1, 1, 0)  # no chunk rows: the bytes are the store's
    got = await client.get(f"/api/chat/sessions/{chat}/attachments/{row['id']}")
    assert got.status_code == 200
    assert hashlib.sha256(got.content).hexdigest() == digest and got.content == DATA


async def test_the_same_bytes_twice_are_one_object(
    client: httpx.AsyncClient, database: Database, s3: S3Server, bucket: str
) -> None:
    chat = await new_chat(client)
    first = await attached(client, chat, "a.txt", DATA)
    written = s3.client().head_object(Bucket=bucket, Key=f"att/{chat}/{first['digest']}")
    second = await attached(client, chat, "b.txt", DATA)

    assert first["id"] != second["id"] and first["digest"] == second["digest"]
    assert s3.keys(bucket) == [f"att/{chat}/{first['digest']}"]
    again = s3.client().head_object(Bucket=bucket, Key=f"att/{chat}/{first['digest']}")
    assert again["LastModified"] == written["LastModified"]  # not written again
    assert stored_counts(database) == (2, 1, 0)


async def test_a_deleted_chats_objects_go_and_a_removed_chips_too(
    client: httpx.AsyncClient, s3: S3Server, bucket: str
) -> None:
    chat, other = await new_chat(client), await new_chat(client)
    await attached(client, chat, "a.txt", DATA)
    await attached(client, chat, "b.txt", b"another file\n")
    kept = await attached(client, other, "a.txt", DATA)  # the same bytes in another chat
    chip = await attached(client, other, "chip.txt", b"taken out of the box\n")
    assert len(s3.keys(bucket)) == 4

    assert (await client.delete(f"/api/chat/sessions/{chat}")).status_code == 204
    removed = await client.delete(f"/api/chat/sessions/{other}/attachments/{chip['id']}")
    assert removed.status_code == 204, removed.text

    wait_for(
        lambda: s3.keys(bucket),
        lambda keys: keys == [f"att/{other}/{kept['digest']}"],
        timeout=30,
        what="only the other chat's kept object left",
    )


async def test_an_unreachable_store_is_a_503_and_nothing_is_stored(
    database: Database, tmp_path: Path
) -> None:
    down = S3Server()
    bucket = down.bucket("gone")
    down.stop()
    settings = Settings(
        data_dir=tmp_path / "data",
        start_bridge=False,
        start_scripted_llm=False,
        **down.settings(bucket),
    )
    async with client_on(database, settings) as c:
        chat = await new_chat(c)
        response = await attach(c, chat, "report.txt", DATA)

    assert response.status_code == 503, response.text
    error = response.json()["error"]
    assert error["code"] == "object_store_unavailable"
    assert "cannot be reached" in error["message"] and "Nothing was stored" in error["message"]
    assert stored_counts(database) == (0, 0, 0)
    assert spooled_files(settings) == []


@pytest.fixture
def stack_settings(s3: S3Server, bucket: str) -> dict[str, Any]:
    return s3.settings(bucket)


def test_a_file_from_the_object_store_reaches_the_agents_workspace(
    stack: Stack, s3: S3Server, bucket: str
) -> None:
    chat = stack.new_session()
    data = png((12, 12), "red")
    response = stack.http.post(
        f"/api/chat/sessions/{chat}/attachments", params={"name": "photo.png"}, content=data
    )
    assert response.status_code == 201, response.text
    image = response.json()
    assert s3.keys(bucket) == [f"att/{chat}/{image['digest']}"]

    _started, events = stack.ask(chat, "Look\n#echo-context", attachmentIds=[image["id"]])

    assert events[-1].event == "workflow_complete", events[-1].data
    answer = str(events[-1].data["finalText"])
    assert f"attachments/{image['id']}-photo.png" in answer
    with stack.database.session() as db:
        hermes = db.get(ChatSession, chat).hermes_session  # type: ignore[union-attr]
    stored = stack.bridge.home / "workspaces" / str(hermes) / "attachments"
    got = (stored / f"{image['id']}-photo.png").read_bytes()
    assert hashlib.sha256(got).hexdigest() == image["digest"]
