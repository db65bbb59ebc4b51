"""Tables of attachments: the bytes (content-addressed blobs, in chunks), the files a person
attached to a chat, and which question carries which (several per message, in order).

Every row hangs off its chat (`chat_session`, named by table so this package imports no
domain): deleting the chat deletes them (`sessions.delete_session` removes them explicitly,
as it does a chat's messages). A blob is unique per chat and digest: the same bytes attached
twice in one chat are stored once, and nothing is shared between chats, so no chat learns
that another holds the same file and deleting one never touches another's bytes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.dialects import mysql
from sqlalchemy.orm import Mapped, mapped_column

from agentchat.core.clock import utcnow
from agentchat.core.database import NEVER_REUSED, Base, BigId, Timestamp
from agentchat.core.database.packed_text import PackedText

# One chunk row holds at most this many bytes: reading or writing a blob never holds more.
CHUNK_BYTES = 256 * 1024
# MariaDB's BLOB stops at 64 KiB; MEDIUMBLOB holds 16 MiB.
ChunkBytes = LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql", "mariadb")
# A thumbnail is a few KiB, but more than a BLOB may hold on MariaDB for a wide image.
SmallBytes = LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql", "mariadb")
SESSION_FK = "chat_session.id"


class AttachmentBlob(Base):
    """The bytes of one file of a chat, by their SHA-256; written once, whole or not at all."""

    __tablename__ = "attachment_blob"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    session_id: Mapped[int] = mapped_column(
        BigId, ForeignKey(SESSION_FK, ondelete="CASCADE"), nullable=False
    )
    digest: Mapped[str] = mapped_column(String(64), nullable=False)
    size: Mapped[int] = mapped_column(BigInteger, nullable=False)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)

    __table_args__ = (
        UniqueConstraint("session_id", "digest", name="uq_attachment_blob_digest"),
        NEVER_REUSED,
    )


class AttachmentChunk(Base):
    """A piece of a blob's bytes (the database store); `seq` from 0."""

    __tablename__ = "attachment_chunk"

    blob_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("attachment_blob.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    data: Mapped[bytes] = mapped_column(ChunkBytes, nullable=False)


class ChatAttachment(Base):
    """A file attached to a chat: its safe name, what it is (taken from its bytes), and where
    its bytes and text are. Sent with a question through `MessageAttachment`; one not (yet)
    sent is a chip in the person's box."""

    __tablename__ = "chat_attachment"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    session_id: Mapped[int] = mapped_column(
        BigId, ForeignKey(SESSION_FK, ondelete="CASCADE"), nullable=False
    )
    blob_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("attachment_blob.id", ondelete="CASCADE"), nullable=False
    )
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)  # attachments.kinds.Kind
    media_type: Mapped[str] = mapped_column(String(100), nullable=False)
    size: Mapped[int] = mapped_column(BigInteger, nullable=False)
    width: Mapped[int | None] = mapped_column(Integer)
    height: Mapped[int | None] = mapped_column(Integer)
    # The file's text (a text file's own bytes, a document's extracted text) as a blob of the
    # same chat, for the agent's workspace; NULL for images.
    text_blob_id: Mapped[int | None] = mapped_column(
        BigId, ForeignKey("attachment_blob.id", ondelete="CASCADE")
    )
    text_chars: Mapped[int | None] = mapped_column(Integer)
    # The whole text when it is short enough to go into a question, else its beginning
    # (attachments.limits: whole when text_chars <= INLINE_MAX_CHARS)
    inline_text: Mapped[str | None] = mapped_column(PackedText())
    thumbnail: Mapped[bytes | None] = mapped_column(SmallBytes)
    created_at: Mapped[datetime] = mapped_column(Timestamp, nullable=False, default=utcnow)

    __table_args__ = (Index("idx_chat_attachment_session", "session_id", "id"), NEVER_REUSED)


class MessageAttachment(Base):
    """A question's attachments, in the order they were added, and how each reached the agent
    (`attachments.kinds.Delivery`), decided when the question was sent."""

    __tablename__ = "chat_message_attachment"

    message_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("chat_message.id", ondelete="CASCADE"), primary_key=True
    )
    attachment_id: Mapped[int] = mapped_column(
        BigId, ForeignKey("chat_attachment.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False)
    delivery: Mapped[str] = mapped_column(String(16), nullable=False)  # "": not sent yet

    __table_args__ = (Index("idx_message_attachment_attachment", "attachment_id"),)


__all__ = [
    "CHUNK_BYTES",
    "AttachmentBlob",
    "AttachmentChunk",
    "ChatAttachment",
    "MessageAttachment",
]
