"""Which attachments a question carries, and how each reached the agent.

A question's attachments are linked when it is written (a new question, or an edited one that
keeps or changes its files); how each reaches the agent is decided once, at the question's
first run, from what its model sees and whether the agent has file tools, and stays with the
question (a regenerated answer gets the same question)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, aliased

from agentchat.attachments.compose import Item, content, decide, files_of
from agentchat.attachments.kinds import Delivery, Kind
from agentchat.attachments.schemas import MessageAttachmentPublic
from agentchat.attachments.service import public
from agentchat.attachments.tables import AttachmentBlob, ChatAttachment, MessageAttachment
from agentchat.protocol.errors import NotFound, PayloadTooLarge
from agentchat.protocol.workspace_files import WorkspaceFile

UNDECIDED = ""


def link(
    db: Session, session_id: int, message_id: int, attachment_ids: list[int], most: int
) -> None:
    """Attach these files of the chat to a question, in this order (413 past `most`)."""
    ids = list(dict.fromkeys(attachment_ids))
    if len(ids) > most:
        raise PayloadTooLarge(
            f"A question may carry at most {most} attachments (AGENTCHAT_MAX_ATTACHMENTS); "
            f"this one has {len(ids)}.",
            code="too_many_attachments",
            limit=most,
        )
    if not ids:
        return
    stmt = select(ChatAttachment.id).where(
        ChatAttachment.id.in_(ids), ChatAttachment.session_id == session_id
    )
    known = set(db.scalars(stmt))
    for attachment_id in ids:
        if attachment_id not in known:
            raise NotFound(f"attachment {attachment_id} not found in chat session {session_id}")
    for position, attachment_id in enumerate(ids):
        db.add(
            MessageAttachment(
                message_id=message_id,
                attachment_id=attachment_id,
                position=position,
                delivery=UNDECIDED,
            )
        )
    db.flush()


def attachment_ids(db: Session, message_id: int) -> list[int]:
    stmt = select(MessageAttachment.attachment_id).where(MessageAttachment.message_id == message_id)
    return list(db.scalars(stmt.order_by(MessageAttachment.position)))


def items_of(db: Session, message_ids: Iterable[int]) -> dict[int, list[Item]]:
    """Each question's attachments, in order (one statement)."""
    ids = list(message_ids)
    if not ids:
        return {}
    text_blob = aliased(AttachmentBlob)
    stmt = (
        select(MessageAttachment, ChatAttachment, AttachmentBlob.digest, text_blob)
        .join(ChatAttachment, ChatAttachment.id == MessageAttachment.attachment_id)
        .join(AttachmentBlob, AttachmentBlob.id == ChatAttachment.blob_id)
        .outerjoin(text_blob, text_blob.id == ChatAttachment.text_blob_id)
        .where(MessageAttachment.message_id.in_(ids))
        .order_by(MessageAttachment.message_id, MessageAttachment.position)
    )
    out: dict[int, list[Item]] = {}
    for link_row, row, digest, text in db.execute(stmt):
        out.setdefault(link_row.message_id, []).append(_item(link_row, row, digest, text))
    return out


def _item(
    link_row: MessageAttachment, row: ChatAttachment, digest: str, text: AttachmentBlob | None
) -> Item:
    return Item(
        attachment_id=row.id,
        name=row.name,
        kind=Kind(row.kind),
        media_type=row.media_type,
        size=row.size,
        digest=digest,
        width=row.width,
        height=row.height,
        text_chars=row.text_chars,
        text=row.inline_text,
        text_digest=text.digest if text is not None else None,
        text_size=text.size if text is not None else None,
        delivery=Delivery(link_row.delivery) if link_row.delivery else None,
    )


def settle(db: Session, message_id: int, sees_images: bool, file_tools: bool) -> list[Item]:
    """The question's attachments with how they reach the agent, decided now unless an earlier
    run of the question decided it."""
    items = items_of(db, [message_id]).get(message_id, [])
    if not items or all(item.delivery is not None for item in items):
        return items
    decided = decide(items, sees_images, file_tools)
    for item, delivery in zip(items, decided, strict=True):
        db.execute(
            update(MessageAttachment)
            .where(
                MessageAttachment.message_id == message_id,
                MessageAttachment.attachment_id == item.attachment_id,
            )
            .values(delivery=delivery.value)
        )
    return [_with(item, d) for item, d in zip(items, decided, strict=True)]


def _with(item: Item, delivery: Delivery) -> Item:
    return replace(item, delivery=delivery)


def composed(
    db: Session, questions: list[tuple[int, str]]
) -> tuple[dict[int, str | list[dict[str, Any]]], list[WorkspaceFile]]:
    """The questions (id, text) that carry attachments as the agent received them, and every
    file they put in the workspace."""
    found = items_of(db, [message_id for message_id, _ in questions])
    contents: dict[int, str | list[dict[str, Any]]] = {}
    files: list[WorkspaceFile] = []
    for message_id, text in questions:
        items = found.get(message_id)
        if items:
            contents[message_id] = content(text, items)
            files.extend(files_of(items))
    return contents, files


def publics_of(db: Session, message_ids: Iterable[int]) -> dict[int, list[MessageAttachmentPublic]]:
    """Each question's attachments as the page shows them, in order (one statement)."""
    ids = list(message_ids)
    if not ids:
        return {}
    stmt = (
        select(MessageAttachment, ChatAttachment, AttachmentBlob.digest)
        .join(ChatAttachment, ChatAttachment.id == MessageAttachment.attachment_id)
        .join(AttachmentBlob, AttachmentBlob.id == ChatAttachment.blob_id)
        .where(MessageAttachment.message_id.in_(ids))
        .order_by(MessageAttachment.message_id, MessageAttachment.position)
    )
    out: dict[int, list[MessageAttachmentPublic]] = {}
    for link_row, row, digest in db.execute(stmt):
        shown = public(row, digest).model_dump()
        delivery = Delivery(link_row.delivery) if link_row.delivery else None
        out.setdefault(link_row.message_id, []).append(
            MessageAttachmentPublic(**shown, delivery=delivery)
        )
    return out
