"""The search index leaves out RUNNING answers: it takes an answer once it ends

While an answer streams, the log writer checkpoints its whole text so far into
chat_message.content every 200 ms. Each checkpoint re-indexed the whole text (quadratic work,
about a tenth of the API's CPU with 100 answers streaming). A RUNNING answer is now left out of
the index; it enters it when its status becomes anything else (SUCCESS, FAILED, STOPPED,
INTERRUPTED), and the search query (`agentchat.chat.search`) leaves RUNNING answers out on every
database, so the same query finds the same sessions everywhere.

- SQLite: the FTS5 table's external content is a view of the messages that are not RUNNING
  (chat_message_searchable), so that a 'rebuild' and the 'integrity-check' see exactly the rows
  the triggers index, and a 'delete' is always given the text that was indexed. The triggers
  index a message only while it is not RUNNING; the update trigger also fires on a change of
  status alone (a stop) and does nothing for a checkpoint of a RUNNING answer. The FTS table is
  made again (its content table is part of its definition) and rebuilt once from the view.
  A later migration that rebuilds chat_message (batch mode: copy, DROP, rename) must drop the
  view first (SQLite refuses the rename while a view names the dropped table) and make the
  view and the triggers again after it (the DROP takes the triggers with it).
- PostgreSQL: the GIN index becomes partial (WHERE status <> 'RUNNING'); a checkpoint neither
  computes the tsvector nor writes index entries. fastupdate stays off (0005c).
- MariaDB/MySQL: no change. An InnoDB FULLTEXT index cannot be partial: it still indexes each
  checkpoint, and the query's status condition leaves RUNNING answers out.

Revision ID: 0006_search_skips_running
Revises: 0005c_message_size
Create Date: 2026-12-02
"""

from alembic import op

revision = "0006_search_skips_running"
down_revision = "0005c_message_size"
branch_labels = None
depends_on = None

FTS_OPTIONS = "content_rowid='id', tokenize='unicode61 remove_diacritics 2', detail=none"
DROP_FTS = [
    "DROP TRIGGER IF EXISTS chat_message_fts_au",
    "DROP TRIGGER IF EXISTS chat_message_fts_ad",
    "DROP TRIGGER IF EXISTS chat_message_fts_ai",
    "DROP TABLE IF EXISTS chat_message_fts",
]
REBUILD = "INSERT INTO chat_message_fts(chat_message_fts) VALUES ('rebuild')"
SQLITE_UP = [
    *DROP_FTS,
    "CREATE VIEW chat_message_searchable AS "
    "SELECT id, content FROM chat_message WHERE status != 'RUNNING'",
    "CREATE VIRTUAL TABLE chat_message_fts USING fts5(content, "
    f"content='chat_message_searchable', {FTS_OPTIONS})",
    REBUILD,
    "CREATE TRIGGER chat_message_fts_ai AFTER INSERT ON chat_message "
    "WHEN new.status != 'RUNNING' BEGIN "
    "INSERT INTO chat_message_fts(rowid, content) VALUES (new.id, new.content); END",
    "CREATE TRIGGER chat_message_fts_ad AFTER DELETE ON chat_message "
    "WHEN old.status != 'RUNNING' BEGIN "
    "INSERT INTO chat_message_fts(chat_message_fts, rowid, content) "
    "VALUES ('delete', old.id, old.content); END",
    # One trigger, the 'delete' of what was indexed before the insert of what is now.
    "CREATE TRIGGER chat_message_fts_au AFTER UPDATE OF content, status ON chat_message "
    "WHEN old.status != 'RUNNING' OR new.status != 'RUNNING' BEGIN "
    "INSERT INTO chat_message_fts(chat_message_fts, rowid, content) "
    "SELECT 'delete', old.id, old.content WHERE old.status != 'RUNNING'; "
    "INSERT INTO chat_message_fts(rowid, content) "
    "SELECT new.id, new.content WHERE new.status != 'RUNNING'; END",
]
# 0003's table and triggers, as it wrote them.
SQLITE_DOWN = [
    *DROP_FTS,
    "DROP VIEW IF EXISTS chat_message_searchable",
    "CREATE VIRTUAL TABLE chat_message_fts USING fts5(content, content='chat_message', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2', detail=none)",
    REBUILD,
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
PG_INDEX = (
    "CREATE INDEX ix_chat_message_fts ON chat_message "
    "USING gin (to_tsvector('simple'::regconfig, left(content, 100000))) "
    "WITH (fastupdate = off)"
)
POSTGRES_UP = [
    "DROP INDEX IF EXISTS ix_chat_message_fts",
    f"{PG_INDEX} WHERE status <> 'RUNNING'",
]
POSTGRES_DOWN = ["DROP INDEX IF EXISTS ix_chat_message_fts", PG_INDEX]


def _statements(up: bool) -> list[str]:
    name = op.get_bind().dialect.name
    if name == "sqlite":
        return SQLITE_UP if up else SQLITE_DOWN
    if name == "postgresql":
        return POSTGRES_UP if up else POSTGRES_DOWN
    return []  # MariaDB/MySQL: a FULLTEXT index cannot be partial


def upgrade() -> None:
    for statement in _statements(up=True):
        op.execute(statement)


def downgrade() -> None:
    for statement in _statements(up=False):
        op.execute(statement)
