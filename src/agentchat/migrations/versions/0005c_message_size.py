"""chat_message takes fewer bytes per message (issue 17: ≤ 0.75 MB per 1,000 messages)

- idx_chat_message_session (session_id, created_at) goes: nothing orders by created_at, and
  idx_chat_message_roots starts with session_id (it serves the session's filter and the
  foreign key on MariaDB).
- idx_chat_message_status holds only RUNNING answers where the database has partial indexes
  (SQLite, PostgreSQL): the sweeper and the "active run" checks look for RUNNING only.
- PostgreSQL: the GIN search index writes new entries into its compressed posting lists at
  once (fastupdate off); with fastupdate they wait in an uncompressed pending list of up to
  4 MB until a vacuum, about as large again as the table. One message is written per turn,
  so the slower insert is not felt.
- MariaDB: the message table (and its FULLTEXT tables) ROW_FORMAT=COMPRESSED, 8 KiB pages:
  message text compresses about two to one.

Revision ID: 0005c_message_size
Revises: 0004
Create Date: 2026-12-01
"""

from alembic import op

revision = "0005c_message_size"
down_revision = "0005b_bridge_event_id"
branch_labels = None
depends_on = None

RUNNING_ONLY = "status = 'RUNNING'"
# Rebuilding the table rebuilds its FULLTEXT index: without the stopword list, as 0003 built it.
KEEP_STOPWORDS = (
    "SET @agentchat_stopwords = @@SESSION.innodb_ft_enable_stopword",
    "SET SESSION innodb_ft_enable_stopword = OFF",
)
RESTORE_STOPWORDS = "SET SESSION innodb_ft_enable_stopword = @agentchat_stopwords"


def _rebuild_mariadb(row_format: str) -> None:
    for statement in KEEP_STOPWORDS:
        op.execute(statement)
    op.execute(f"ALTER TABLE chat_message {row_format}")
    op.execute(RESTORE_STOPWORDS)


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.drop_index("idx_chat_message_session", table_name="chat_message")
    if dialect in ("sqlite", "postgresql"):
        op.drop_index("idx_chat_message_status", table_name="chat_message")
        op.execute(
            f"CREATE INDEX idx_chat_message_status ON chat_message (status) WHERE {RUNNING_ONLY}"
        )
    if dialect == "postgresql":
        op.execute("ALTER INDEX ix_chat_message_fts SET (fastupdate = off)")
        op.execute("SELECT gin_clean_pending_list('ix_chat_message_fts'::regclass)")
    if dialect in ("mysql", "mariadb"):
        _rebuild_mariadb("ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8")


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect in ("mysql", "mariadb"):
        _rebuild_mariadb("ROW_FORMAT=DYNAMIC KEY_BLOCK_SIZE=0")
    if dialect == "postgresql":
        op.execute("ALTER INDEX ix_chat_message_fts RESET (fastupdate)")
    if dialect in ("sqlite", "postgresql"):
        op.drop_index("idx_chat_message_status", table_name="chat_message")
        op.create_index("idx_chat_message_status", "chat_message", ["status"])
    op.create_index("idx_chat_message_session", "chat_message", ["session_id", "created_at"])
