"""HTTP routes of a chat's attachments (thin: parse, call `attachments.service`, return).

They hold no request-long transaction: an upload streams for as long as the person's
connection takes, and a download streams chunk by chunk, each read in a short transaction.
Every route names the chat, whose check (404 for a chat that is not there, or not the
person's) covers its attachments; one of another chat is 404 too."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Annotated, Any

import anyio
from fastapi import APIRouter, Depends, Query, Request, Response, status
from fastapi.responses import StreamingResponse

from agentchat.attachments import downloads
from agentchat.attachments import service as attachments
from agentchat.attachments.schemas import AttachmentPublic
from agentchat.attachments.store import store_for
from agentchat.attachments.tables import CHUNK_BYTES
from agentchat.chat.deps import load_session
from agentchat.chat.export_archive import export_archive
from agentchat.chat.schemas import ExportBranch
from agentchat.core.deps import DatabaseDep, SettingsDep
from agentchat.principal import PrincipalDep
from agentchat.protocol.camel import ERROR_RESPONSES, ErrorBody
from agentchat.protocol.errors import NotFound

# Bodies the body guard lets through unread: the upload streams and applies its own limit.
UPLOAD_PATH = re.compile(r"/api/chat/sessions/\d+/attachments")
router = APIRouter(
    prefix="/sessions/{session_id}/attachments",
    tags=["attachments"],
    responses=ERROR_RESPONSES,
)
UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "description": "The file's bytes as they are (no form encoding).",
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}
UPLOAD_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "Past AGENTCHAT_MAX_UPLOAD_MB or the quota"},
    415: {"model": ErrorBody, "description": "Not an image, text, PDF or office file"},
}


def chat_of(session_id: int, database: DatabaseDep, who: PrincipalDep) -> int:
    """The chat's id once it is known to be the person's (checked in a short transaction)."""
    with database.session() as db:
        load_session(db, session_id, who)
    return session_id


ChatId = Annotated[int, Depends(chat_of)]


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    operation_id="uploadAttachment",
    openapi_extra=UPLOAD_BODY,
    responses=UPLOAD_ERRORS,
)
async def upload(
    chat_id: ChatId,
    request: Request,
    database: DatabaseDep,
    settings: SettingsDep,
    name: Annotated[str, Query(max_length=1024, description="The file's name")] = "",
) -> AttachmentPublic:
    """Attach a file to the chat, for the next question to carry. Its type is taken from its
    bytes: images (re-encoded: no EXIF or GPS), UTF-8 text and code, PDF and office files
    (their text extracted)."""
    service = attachments.AttachmentService(database, settings)
    length = request.headers.get("content-length")
    declared = int(length) if length and length.isdigit() else None
    return await service.upload(chat_id, name, request.stream(), declared)


@router.get("", operation_id="listUnsentAttachments")
def list_unsent(chat_id: ChatId, database: DatabaseDep) -> list[AttachmentPublic]:
    """The files added to the chat's question box and not sent yet, oldest first: the page
    shows them again as the box's chips after a reload or a visit to another chat."""
    with database.session() as db:
        return attachments.unsent(db, chat_id)


@router.get(
    "/{attachment_id}",
    operation_id="downloadAttachment",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}},
)
async def download(chat_id: ChatId, attachment_id: int, database: DatabaseDep) -> Response:
    """The file, always as a download (`Content-Disposition: attachment`, `nosniff`)."""

    def load() -> tuple[str, str, str, int, int]:
        with database.session() as db:
            row = attachments.get_attachment(db, chat_id, attachment_id)
            blob = attachments.blob_of(db, row.blob_id)
            return row.name, row.kind, row.media_type, blob.id, blob.size

    name, kind, media_type, blob_id, size = await anyio.to_thread.run_sync(load)
    return StreamingResponse(
        store_for(database).stream(blob_id, size),
        media_type=downloads.media_type(kind, media_type),
        headers=downloads.headers(name, size),
    )


@router.get(
    "/{attachment_id}/thumbnail",
    operation_id="attachmentThumbnail",
    response_class=Response,
    responses={200: {"content": {"image/webp": {}}}},
)
def thumbnail(chat_id: ChatId, attachment_id: int, database: DatabaseDep) -> Response:
    """An image's preview (WebP, at most 320 pixels a side); 404 for other files."""
    with database.session() as db:
        row = attachments.get_attachment(db, chat_id, attachment_id)
        if row.thumbnail is None:
            raise NotFound(f"attachment {attachment_id} has no thumbnail")
        body, name = bytes(row.thumbnail), row.name
    return Response(body, media_type="image/webp", headers=downloads.headers(name + ".webp"))


@router.delete(
    "/{attachment_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    operation_id="deleteAttachment",
)
def delete(chat_id: ChatId, attachment_id: int, database: DatabaseDep) -> Response:
    """Take an attachment no question carries yet out of the chat (409 once sent)."""
    with database.session() as db:
        attachments.remove_unsent(db, chat_id, attachment_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


archive_router = APIRouter(tags=["chat"], responses=ERROR_RESPONSES)


@archive_router.get(
    "/sessions/{session_id}/export/files",
    operation_id="exportChatSessionWithFiles",
    response_class=Response,
    responses={200: {"content": {"application/zip": {}}}},
)
def export_with_files(
    session_id: int,
    database: DatabaseDep,
    who: PrincipalDep,
    branch: ExportBranch = "active",
) -> Response:
    """A zip: the chat as Markdown and JSON, and its attachments under files/ (where the
    Markdown links point)."""
    with database.session() as db:
        chat = load_session(db, session_id, who)
        archive, disposition = export_archive(db, store_for(database), chat, branch)
    headers = {"Content-Disposition": disposition, "X-Content-Type-Options": "nosniff"}
    return StreamingResponse(_pieces(archive), media_type="application/zip", headers=headers)


def _pieces(archive: IO[bytes]) -> Iterator[bytes]:
    with archive:
        while piece := archive.read(CHUNK_BYTES):
            yield piece
