"""Full-text search over message content: each database's own full-text feature

SQLite: an FTS5 table over chat_message.content (external content: the text is not stored
twice; detail=none: no word positions, which prefix-AND queries do not need, about a third of
the index size) kept in step by triggers. PostgreSQL: a GIN index on the `simple` tsvector of the
content (its first 100,000 characters: a tsvector is limited to 1 MB). MariaDB/MySQL: a
FULLTEXT index, built without the stopword list so that words such as "about" are found.
The query side is `agentchat.chat.search`, which must use the same expressions.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

SQLITE_UP = [
    "CREATE VIRTUAL TABLE chat_message_fts USING fts5(content, content='chat_message', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2', detail=none)",
    "INSERT INTO chat_message_fts(chat_message_fts) VALUES ('rebuild')",
    "CREATE TRIGGER chat_message_fts_ai AFTER INSERT ON chat_message BEGIN "
    "INSERT INTO chat_message_fts(rowid, content) VALUES (new.id, new.content); END",
    "CREATE TRIGGER chat_message_fts_ad AFTER DELETE ON chat_message BEGIN "
    "INSERT INTO chat_message_fts(chat_message_fts, rowid, content) "
    "VALUES ('delete', old.id, old.content); END",
    "CREATE TRIGGER chat_message_fts_au AFTER UPDATE OF content ON chat_message BEGIN "
    "INSERT INTO chat_message_fts(chat_message_fts, rowid, content) "
    "VALUES ('delete', old.id, old.content); "
    "INSERT INTO chat_message_fts(rowid, content) VALUES (new.id, new.content); END",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS chat_message_fts_au",
    "DROP TRIGGER IF EXISTS chat_message_fts_ad",
    "DROP TRIGGER IF EXISTS chat_message_fts_ai",
    "DROP TABLE IF EXISTS chat_message_fts",
]
POSTGRES_UP = [
    "CREATE INDEX ix_chat_message_fts ON chat_message "
    "USING gin (to_tsvector('simple'::regconfig, left(content, 100000)))",
]
POSTGRES_DOWN = ["DROP INDEX IF EXISTS ix_chat_message_fts"]
MYSQL_UP = [
    "SET @agentchat_stopwords = @@SESSION.innodb_ft_enable_stopword",
    "SET SESSION innodb_ft_enable_stopword = OFF",
    "ALTER TABLE chat_message ADD FULLTEXT INDEX ix_chat_message_fts (content)",
    "SET SESSION innodb_ft_enable_stopword = @agentchat_stopwords",
]
MYSQL_DOWN = ["ALTER TABLE chat_message DROP INDEX ix_chat_message_fts"]


def _statements(up: bool) -> list[str]:
    name = op.get_bind().dialect.name
    if name == "sqlite":
        return SQLITE_UP if up else SQLITE_DOWN
    if name == "postgresql":
        return POSTGRES_UP if up else POSTGRES_DOWN
    if name in ("mysql", "mariadb"):
        return MYSQL_UP if up else MYSQL_DOWN
    raise NotImplementedError(f"no full-text search for the {name} dialect")


def upgrade() -> None:
    for statement in _statements(up=True):
        op.execute(statement)


def downgrade() -> None:
    for statement in _statements(up=False):
        op.execute(statement)
