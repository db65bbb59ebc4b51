"""chat_session.title_key: the title case-folded by the application, for the title search

Title search compared `lower(title) LIKE …`, which each database folds its own way: SQLite
folds ASCII only ("ÉCOLE" did not find "ÉCOLE upper", nor "Мир" "Привет Мир"), no database
matched "İstanbul", MariaDB's collation also ignored accents (`é` found nearly every chat).
The search now compares this column, folded in Python (`agentchat.chat.folding.fold`), with
the folded query, byte for byte: a binary collation on MariaDB. Existing titles are folded here.

Revision ID: 0013_title_search
Revises: 0012_attachments
Create Date: 2026-12-03
"""

import unicodedata

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = "0013_title_search"
down_revision = "0012_attachments"
branch_labels = None
depends_on = None

TITLE_KEY = sa.String(1024).with_variant(
    mysql.VARCHAR(1024, charset="utf8mb4", collation="utf8mb4_bin"), "mysql", "mariadb"
)
BATCH = 1000


def _fold(text: str) -> str:
    """As `agentchat.chat.folding.fold` at this revision (a migration keeps its own copy)."""
    return unicodedata.normalize("NFKC", text).casefold()


def upgrade() -> None:
    # Plain ADD COLUMN (a batch could rebuild the table on SQLite, losing AUTOINCREMENT: 0009)
    op.add_column("chat_session", sa.Column("title_key", TITLE_KEY, nullable=True))
    bind = op.get_bind()
    sessions = sa.table("chat_session", sa.column("id"), sa.column("title"), sa.column("title_key"))
    last = 0
    while True:
        rows = bind.execute(
            sa.select(sessions.c.id, sessions.c.title)
            .where(sessions.c.id > last, sessions.c.title.is_not(None))
            .order_by(sessions.c.id)
            .limit(BATCH)
        ).all()
        if not rows:
            return
        bind.execute(
            sa.update(sessions)
            .where(sessions.c.id == sa.bindparam("row_id"))
            .values(title_key=sa.bindparam("key")),
            [{"row_id": row.id, "key": _fold(row.title)} for row in rows],
        )
        last = rows[-1].id


def downgrade() -> None:
    with op.batch_alter_table("chat_session") as batch:
        batch.drop_column("title_key")
