"""Uploading, reading and removing a chat's attachments.

An upload is spooled to a private temporary file as it arrives (`spool`), its type taken from
its bytes (`sniff`), opened in a capped child process (`prepare`), then stored in one
transaction: blobs, chunks and the attachment row together, after the quota check. Whatever
fails on the way leaves nothing stored and no temporary file."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import anyio
from sqlalchemy import column, delete, exists, func, select, table
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from agentchat.attachments.limits import MB, Limits
from agentchat.attachments.prepare import Prepared, prepare
from agentchat.attachments.schemas import AttachmentPublic
from agentchat.attachments.sniff import sniff
from agentchat.attachments.spool import spool, too_large
from agentchat.attachments.store import (
    BlobStore,
    forget_after_commit,
    get_or_write_blob,
    held,
    store_for,
)
from agentchat.attachments.tables import (
    AttachmentBlob,
    AttachmentChunk,
    ChatAttachment,
    MessageAttachment,
)
from agentchat.core.clock import utcnow
from agentchat.core.database import Database
from agentchat.core.settings import Settings
from agentchat.protocol.errors import Conflict, NotFound, PayloadTooLarge

# A file added to a box and never sent is removed this long after, at the chat's next upload.
UNSENT_KEPT = timedelta(days=1)


class AttachmentService:
    def __init__(
        self, database: Database, settings: Settings, store: BlobStore | None = None
    ) -> None:
        self.database = database
        self.limits = Limits.of(settings)
        self.folder = settings.upload_dir
        self.store = store or store_for(database)

    async def upload(
        self,
        session_id: int,
        name: str | None,
        body: AsyncIterator[bytes],
        declared_bytes: int | None = None,
    ) -> AttachmentPublic:
        limit = self.limits.max_file_bytes
        if declared_bytes is not None and declared_bytes > limit:
            raise too_large(limit)
        spooled = await spool(body, self.folder, limit)
        try:
            prepared = await prepare(spooled, sniff(spooled.head, spooled.is_utf8_text), name)
            try:
                return await anyio.to_thread.run_sync(self._store, session_id, prepared)
            finally:
                prepared.cleanup()
        finally:
            spooled.remove()

    def _store(self, session_id: int, prepared: Prepared) -> AttachmentPublic:
        try:
            return self._store_once(session_id, prepared)
        except IntegrityError:  # the same bytes stored meanwhile by another upload: use them
            return self._store_once(session_id, prepared)

    def _store_once(self, session_id: int, prepared: Prepared) -> AttachmentPublic:
        with self.database.session() as db:
            drop_stale_unsent(db, session_id, utcnow() - UNSENT_KEPT)
            self._check_quota(db, session_id, prepared)
            blob = get_or_write_blob(db, self.store, session_id, prepared.file, prepared.digest)
            text_blob = blob
            if prepared.text_file is not None and prepared.text_file != prepared.file:
                text_blob = get_or_write_blob(db, self.store, session_id, prepared.text_file)
            row = ChatAttachment(
                session_id=session_id,
                blob_id=blob.id,
                name=prepared.name,
                kind=prepared.kind.value,
                media_type=prepared.media_type,
                size=blob.size,
                width=prepared.width,
                height=prepared.height,
                text_blob_id=text_blob.id if prepared.text_file is not None else None,
                text_chars=prepared.text_chars,
                inline_text=prepared.inline_text,
                thumbnail=prepared.thumbnail,
            )
            db.add(row)
            db.flush()
            return public(row, blob.digest)

    def _check_quota(self, db: Session, session_id: int, prepared: Prepared) -> None:
        quota = self.limits.quota_bytes
        if not quota:
            return
        files = {prepared.file, prepared.text_file} - {None}
        adding = sum(
            p.stat().st_size
            for p in files
            if p and not held(db, session_id, p, prepared.digest if p == prepared.file else None)
        )
        if adding and stored_bytes(db, session_id) + adding > quota:
            raise PayloadTooLarge(
                f"Your attachments would take more than {quota // MB} MB "
                "(AGENTCHAT_UPLOAD_QUOTA_MB); delete chats with files you no longer need. "
                "This file was not stored.",
                code="quota_exceeded",
                limit=quota,
            )


# The chat's owner, read by table name: this package imports no domain (accounts set it).
_CHATS = table("chat_session", column("id"), column("owner_id"))


def stored_bytes(db: Session, session_id: int) -> int:
    """The bytes the person who owns this chat stores as attachments, in all their chats
    (everything stored, on a server without accounts)."""
    owner = select(_CHATS.c.owner_id).where(_CHATS.c.id == session_id).scalar_subquery()
    chats = select(_CHATS.c.id).where(
        (_CHATS.c.owner_id == owner) | (owner.is_(None) & _CHATS.c.owner_id.is_(None))
    )
    stmt = select(func.coalesce(func.sum(AttachmentBlob.size), 0)).where(
        AttachmentBlob.session_id.in_(chats)
    )
    return int(db.scalar(stmt) or 0)


def public(row: ChatAttachment, digest: str) -> AttachmentPublic:
    return AttachmentPublic(
        id=row.id,
        session_id=row.session_id,
        name=row.name,
        kind=row.kind,
        media_type=row.media_type,
        size=row.size,
        digest=digest,
        width=row.width,
        height=row.height,
        text_chars=row.text_chars,
        has_thumbnail=row.thumbnail is not None,
        created_at=row.created_at,
    )


def unsent(db: Session, session_id: int) -> list[AttachmentPublic]:
    """The chat's attachments no question carries yet (the files in its box, which a reload
    or another visit shows again), in the order they were added."""
    sent = select(MessageAttachment.attachment_id)
    stmt = (
        select(ChatAttachment, AttachmentBlob.digest)
        .join(AttachmentBlob, AttachmentBlob.id == ChatAttachment.blob_id)
        .where(ChatAttachment.session_id == session_id, ChatAttachment.id.not_in(sent))
        .order_by(ChatAttachment.id)
    )
    return [public(row, digest) for row, digest in db.execute(stmt).tuples()]


def get_attachment(db: Session, session_id: int, attachment_id: int) -> ChatAttachment:
    """The chat's attachment; 404 for one of another chat (or none)."""
    row = db.get(ChatAttachment, attachment_id)
    if row is None or row.session_id != session_id:
        raise NotFound(f"attachment {attachment_id} not found in chat session {session_id}")
    return row


def blob_of(db: Session, blob_id: int) -> AttachmentBlob:
    blob = db.get(AttachmentBlob, blob_id)
    if blob is None:
        raise NotFound(f"the bytes of blob {blob_id} are gone")
    return blob


def remove_unsent(db: Session, session_id: int, attachment_id: int) -> list[int]:
    """Remove an attachment no question carries (a chip taken out of the box), and its bytes
    unless another attachment of the chat holds them; the blob ids that went."""
    row = get_attachment(db, session_id, attachment_id)
    sent = exists().where(MessageAttachment.attachment_id == attachment_id)
    if db.scalar(select(sent)):
        raise Conflict(
            f"attachment {attachment_id} was sent with a question; it stays with it",
            code="attachment_sent",
        )
    blob_ids = {row.blob_id, row.text_blob_id} - {None}
    db.delete(row)
    db.flush()
    return drop_unused_blobs(db, [b for b in blob_ids if b is not None])


def drop_stale_unsent(db: Session, session_id: int, before: datetime) -> int:
    """The chat's attachments no question carries that were added before `before` (a box
    left with files when its tab closed): removed with their bytes, so they stop counting
    against the quota. How many went."""
    sent = select(MessageAttachment.attachment_id)
    stale = list(
        db.scalars(
            select(ChatAttachment).where(
                ChatAttachment.session_id == session_id,
                ChatAttachment.created_at < before,
                ChatAttachment.id.not_in(sent),
            )
        )
    )
    blob_ids = {b for row in stale for b in (row.blob_id, row.text_blob_id) if b is not None}
    for row in stale:
        db.delete(row)
    db.flush()
    drop_unused_blobs(db, sorted(blob_ids))
    return len(stale)


def drop_unused_blobs(db: Session, blob_ids: list[int]) -> list[int]:
    gone, refs = [], []
    for blob_id in blob_ids:
        used = exists().where(
            (ChatAttachment.blob_id == blob_id) | (ChatAttachment.text_blob_id == blob_id)
        )
        if not db.scalar(select(used)):
            blob = db.get(AttachmentBlob, blob_id)
            if blob is not None:
                refs.append((blob.session_id, blob.digest))
                db.delete(blob)
                gone.append(blob_id)
    db.flush()
    forget_after_commit(db, refs)
    return gone


def delete_chat_files(db: Session, session_id: int) -> list[int]:
    """Every attachment row and byte of a chat being deleted (children first, as the chat's
    own deletion does); the ids of the blobs that went, for the store to forget."""
    files = select(ChatAttachment.id).where(ChatAttachment.session_id == session_id)
    blobs = select(AttachmentBlob.id).where(AttachmentBlob.session_id == session_id)
    digests = select(AttachmentBlob.id, AttachmentBlob.digest).where(
        AttachmentBlob.session_id == session_id
    )
    rows = list(db.execute(digests).all())
    blob_ids = [blob_id for blob_id, _ in rows]
    db.execute(delete(MessageAttachment).where(MessageAttachment.attachment_id.in_(files)))
    db.execute(delete(ChatAttachment).where(ChatAttachment.session_id == session_id))
    db.execute(delete(AttachmentChunk).where(AttachmentChunk.blob_id.in_(blobs)))
    db.execute(delete(AttachmentBlob).where(AttachmentBlob.session_id == session_id))
    forget_after_commit(db, [(session_id, digest) for _, digest in rows])
    return blob_ids
