"""Attaching files to a chat over HTTP: what is stored (type from the bytes, images re-encoded
without EXIF, document text extracted, safe names), how it goes out (always a download), the
limits (413 with nothing stored), bad input, and another chat's files (404)."""

from __future__ import annotations

import io

import httpx
import pytest
from PIL import Image

from agentchat.attachments.tables import CHUNK_BYTES
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
from tests.attachments.files import (
    digest,
    docx_with_text,
    jpeg_with_gps,
    pdf_with_text,
    png,
    png_bomb,
)


async def _download(client: httpx.AsyncClient, chat: int, attachment: int) -> httpx.Response:
    return await client.get(f"/api/chat/sessions/{chat}/attachments/{attachment}")


async def test_an_image_is_stored_reencoded_without_its_exif_and_gps(
    any_client: httpx.AsyncClient, any_database: Database
) -> None:
    chat = await new_chat(any_client)
    original = jpeg_with_gps()
    assert Image.open(io.BytesIO(original)).getexif().get(0x8825)  # the GPS is there

    body = await attached(any_client, chat, "holiday.jpeg", original)

    assert (body["kind"], body["mediaType"], body["width"], body["height"]) == (
        "image",
        "image/jpeg",
        64,
        48,
    )
    assert body["name"] == "holiday.jpg" and body["hasThumbnail"]
    got = await _download(any_client, chat, body["id"])
    assert got.status_code == 200
    assert digest(got.content) == body["digest"] != digest(original)
    assert not Image.open(io.BytesIO(got.content)).getexif()  # no EXIF, no GPS, no camera
    assert got.headers["content-type"] == "image/jpeg"
    thumb = await any_client.get(f"/api/chat/sessions/{chat}/attachments/{body['id']}/thumbnail")
    assert Image.open(io.BytesIO(thumb.content)).format == "WEBP"


async def test_a_file_larger_than_a_chunk_comes_back_byte_for_byte(
    any_client: httpx.AsyncClient, any_database: Database
) -> None:
    chat = await new_chat(any_client)
    text = "".join(f"line {i}: " + "x" * (i % 70) + "\n" for i in range(40_000)).encode()
    assert len(text) > 3 * CHUNK_BYTES

    body = await attached(any_client, chat, "big.log", text)

    got = await _download(any_client, chat, body["id"])
    assert got.content == text and body["digest"] == digest(text)
    assert (body["kind"], body["textChars"]) == ("text", len(text))
    assert stored_counts(any_database) == (1, 1, -(-len(text) // CHUNK_BYTES))


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("page.html", b"<!doctype html><html><script>alert(1)</script></html>"),
        ("logo.svg", b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
    ],
)
async def test_html_and_svg_are_text_and_only_ever_downloaded(
    client: httpx.AsyncClient, name: str, data: bytes
) -> None:
    chat = await new_chat(client)
    body = await attached(client, chat, name, data)

    got = await _download(client, chat, body["id"])

    assert body["kind"] == "text" and body["mediaType"] == "text/plain"
    assert got.headers["content-type"] == "text/plain; charset=utf-8"
    assert got.headers["content-disposition"].startswith("attachment;")
    assert got.headers["x-content-type-options"] == "nosniff"
    assert "sandbox" in got.headers["content-security-policy"]


async def test_the_type_comes_from_the_bytes_not_the_name_or_the_browser(
    client: httpx.AsyncClient,
) -> None:
    chat = await new_chat(client)
    body = await attached(client, chat, "notes.txt", png())
    assert (body["kind"], body["mediaType"], body["name"]) == ("image", "image/png", "notes.png")

    refused = await attach(
        client,
        chat,
        "photo.png",
        b"PK\x03\x04" + bytes(range(256)) * 8,
        **{"content-type": "image/png"},
    )
    assert refused.status_code == 415
    assert refused.json()["error"]["code"] == "unsupported_type"


async def test_file_names_lose_folders_controls_and_direction_overrides(
    client: httpx.AsyncClient,
) -> None:
    chat = await new_chat(client)
    raw = "../../etc/\u202egpj.exe\x07\u200b report.txt"
    body = await attached(client, chat, raw, b"hello")

    assert body["name"] == "gpj.exe report.txt"
    got = await _download(client, chat, body["id"])
    disposition = got.headers["content-disposition"]
    assert "/" not in disposition.split("filename*=")[0] and "%E2%80%AE" not in disposition


async def test_pdf_and_word_text_is_extracted(client: httpx.AsyncClient) -> None:
    chat = await new_chat(client)
    pdf = await attached(
        client, chat, "paper.pdf", pdf_with_text(["Quarterly figures", "Total 42"])
    )
    word = await attached(client, chat, "memo.docx", docx_with_text(["Dear team,", "Ship it."]))

    assert (pdf["kind"], pdf["mediaType"]) == ("document", "application/pdf")
    assert pdf["textChars"] > len("Quarterly figuresTotal 42")
    assert word["kind"] == "document" and word["name"] == "memo.docx"
    assert word["textChars"] >= len("Dear team,\nShip it.\n")


async def test_a_file_past_the_upload_limit_is_refused_and_nothing_is_kept(
    tmp_path: object, database: Database, settings: Settings
) -> None:
    settings.max_upload_mb = 1
    async with client_on(database, settings) as client:
        chat = await new_chat(client)
        declared = await attach(client, chat, "big.bin", b"a" * (1024 * 1024 + 1))

        async def chunked() -> object:  # no Content-Length: refused while it arrives
            for _ in range(40):
                yield b"b" * 65536

        streamed = await client.post(
            f"/api/chat/sessions/{chat}/attachments", params={"name": "x.txt"}, content=chunked()
        )

    for response in (declared, streamed):
        assert response.status_code == 413
        error = response.json()["error"]
        assert error["code"] == "file_too_large" and "1 MB" in error["message"]
    assert stored_counts(database) == (0, 0, 0)
    assert spooled_files(settings) == []


async def test_an_upload_may_be_larger_than_other_request_bodies(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    chat = await new_chat(client)
    data = b"z" * (settings.max_body_bytes * 3)

    body = await attached(client, chat, "long.txt", data)

    assert body["size"] == len(data)
    too_big_json = await client.post("/api/chat/sessions", content=b"{" + data + b"}")
    assert too_big_json.status_code == 413


async def test_a_decompression_bomb_is_refused_and_nothing_is_kept(
    client: httpx.AsyncClient, database: Database, settings: Settings
) -> None:
    chat = await new_chat(client)

    response = await attach(client, chat, "bomb.png", png_bomb())

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "unreadable_file"
    assert "too many pixels" in response.json()["error"]["message"]
    assert stored_counts(database) == (0, 0, 0) and spooled_files(settings) == []


async def test_the_quota_counts_what_is_stored(database: Database, settings: Settings) -> None:
    settings.upload_quota_mb = 1
    async with client_on(database, settings) as client:
        chat = await new_chat(client)
        await attached(client, chat, "a.txt", b"a" * 700_000)
        again = await attached(client, chat, "same.txt", b"a" * 700_000)  # stored once
        over = await attach(client, chat, "b.txt", b"b" * 700_000)

    assert again["digest"] == digest(b"a" * 700_000)
    assert over.status_code == 413 and over.json()["error"]["code"] == "quota_exceeded"
    assert stored_counts(database)[:2] == (2, 1)


async def test_another_chats_attachment_is_not_found(client: httpx.AsyncClient) -> None:
    mine, other = await new_chat(client), await new_chat(client)
    body = await attached(client, mine, "a.txt", b"secret")

    for path in ("", "/thumbnail"):
        got = await client.get(f"/api/chat/sessions/{other}/attachments/{body['id']}{path}")
        assert got.status_code == 404
    assert (
        await client.delete(f"/api/chat/sessions/{other}/attachments/{body['id']}")
    ).status_code == 404
    assert (await attach(client, 999_999, "a.txt", b"x")).status_code == 404


async def test_the_box_lists_the_files_not_sent_yet_of_its_chat_only(
    any_client: httpx.AsyncClient,
) -> None:
    chat, other = await new_chat(any_client), await new_chat(any_client)
    first = await attached(any_client, chat, "chart.png", png())
    second = await attached(any_client, chat, "notes.txt", b"in the box")
    await attached(any_client, other, "elsewhere.txt", b"another chat's")
    box = f"/api/chat/sessions/{chat}/attachments"

    listed = (await any_client.get(box)).json()
    assert listed == [first, second]  # oldest first, as the upload answered them
    await any_client.delete(f"{box}/{first['id']}")
    assert [a["name"] for a in (await any_client.get(box)).json()] == ["notes.txt"]
    assert (await any_client.get("/api/chat/sessions/999999/attachments")).status_code == 404


async def test_removing_an_unsent_attachment_keeps_bytes_another_one_holds(
    client: httpx.AsyncClient, database: Database
) -> None:
    chat = await new_chat(client)
    first = await attached(client, chat, "a.txt", b"shared bytes")
    second = await attached(client, chat, "b.txt", b"shared bytes")
    assert stored_counts(database) == (2, 1, 1)

    gone = await client.delete(f"/api/chat/sessions/{chat}/attachments/{first['id']}")
    assert gone.status_code == 204 and stored_counts(database) == (1, 1, 1)
    await client.delete(f"/api/chat/sessions/{chat}/attachments/{second['id']}")
    assert stored_counts(database) == (0, 0, 0)


async def test_deleting_the_chat_deletes_its_attachments(
    any_client: httpx.AsyncClient, any_database: Database
) -> None:
    kept, gone = await new_chat(any_client), await new_chat(any_client)
    await attached(any_client, kept, "keep.txt", b"keep me")
    await attached(any_client, gone, "photo.png", png())
    await attached(any_client, gone, "doc.txt", b"x" * (CHUNK_BYTES + 1))

    assert (await any_client.delete(f"/api/chat/sessions/{gone}")).status_code == 204

    assert stored_counts(any_database) == (1, 1, 1)


async def test_a_file_left_unsent_for_a_day_goes_at_the_chats_next_upload(
    client: httpx.AsyncClient, database: Database
) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from agentchat.attachments.tables import ChatAttachment
    from agentchat.core.clock import utcnow

    chat = await new_chat(client)
    left = await attached(client, chat, "left.txt", b"left in a closed tab")
    recent = await attached(client, chat, "recent.txt", b"added a minute ago")
    with database.session() as db:
        db.execute(
            update(ChatAttachment)
            .where(ChatAttachment.id == left["id"])
            .values(created_at=utcnow() - timedelta(days=2))
        )

    await attached(client, chat, "new.txt", b"the next upload")

    gone = await client.get(f"/api/chat/sessions/{chat}/attachments/{left['id']}")
    kept = await client.get(f"/api/chat/sessions/{chat}/attachments/{recent['id']}")
    assert (gone.status_code, kept.status_code) == (404, 200)
    assert stored_counts(database)[:2] == (2, 2)
