"""Attachments: blobs in chunks, a chat's files, and the questions that carry them

`attachment_blob` (the bytes of a file of a chat, by SHA-256, unique per chat) and
`attachment_chunk` (its bytes, 256 KiB a row) are the database store; `chat_attachment` is a
file a person attached to a chat (safe name, kind and type taken from its bytes, image size,
text and thumbnail); `chat_message_attachment` links a question to its files, in order, with
how each reached the agent. Everything hangs off `chat_session` and goes with it. AI models
get `vision` (NULL: the provider's default).

Revision ID: 0012_attachments
Revises: 0011_mcp_servers
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0012_attachments"
down_revision = "0011_mcp_servers"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Timestamp = sa.DateTime().with_variant(mysql.DATETIME(fsp=6), "mysql", "mariadb")
Bytes = sa.LargeBinary().with_variant(mysql.MEDIUMBLOB(), "mysql", "mariadb")
TEXT = sa.Text().with_variant(mysql.LONGTEXT(), "mysql", "mariadb")
KEEP_IDS = {"sqlite_autoincrement": True}
UTF8 = {"mysql_charset": "utf8mb4", "mysql_collate": "utf8mb4_unicode_ci"}


def _id() -> sa.Column:
    return sa.Column("id", BigId, primary_key=True, autoincrement=True)


def _fk(table: str, column: str, target: str, *, nullable: bool = False, **kw: object) -> sa.Column:
    """A foreign key column named as `core.database.NAMING` names it, deleted with its row."""
    name = op.f(f"fk_{table}_{column}_{target}")
    key = sa.ForeignKey(f"{target}.id", ondelete="CASCADE", name=name)
    return sa.Column(column, BigId, key, nullable=nullable, **kw)


def upgrade() -> None:
    op.create_table(
        "attachment_blob",
        _id(),
        _fk("attachment_blob", "session_id", "chat_session"),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.UniqueConstraint("session_id", "digest", name="uq_attachment_blob_digest"),
        **KEEP_IDS,
        **UTF8,
    )
    op.create_table(
        "attachment_chunk",
        _fk("attachment_chunk", "blob_id", "attachment_blob", primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("data", Bytes, nullable=False),
        **UTF8,
    )
    op.create_table(
        "chat_attachment",
        _id(),
        _fk("chat_attachment", "session_id", "chat_session"),
        _fk("chat_attachment", "blob_id", "attachment_blob"),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("media_type", sa.String(100), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=True),
        sa.Column("height", sa.Integer(), nullable=True),
        _fk("chat_attachment", "text_blob_id", "attachment_blob", nullable=True),
        sa.Column("text_chars", sa.Integer(), nullable=True),
        sa.Column("inline_text", TEXT, nullable=True),
        sa.Column("thumbnail", Bytes, nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Index("idx_chat_attachment_session", "session_id", "id"),
        **KEEP_IDS,
        **UTF8,
    )
    op.create_table(
        "chat_message_attachment",
        _fk("chat_message_attachment", "message_id", "chat_message", primary_key=True),
        _fk("chat_message_attachment", "attachment_id", "chat_attachment", primary_key=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("delivery", sa.String(16), nullable=False),
        sa.Index("idx_message_attachment_attachment", "attachment_id"),
        **UTF8,
    )
    with op.batch_alter_table("ai_model_config") as batch:
        batch.add_column(sa.Column("vision", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ai_model_config") as batch:
        batch.drop_column("vision")
    op.drop_table("chat_message_attachment")
    op.drop_table("chat_attachment")
    op.drop_table("attachment_chunk")
    op.drop_table("attachment_blob")
