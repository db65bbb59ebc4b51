"""SQLite: long texts are stored deflated (issue 17: ≤ 0.75 MB per 1,000 messages)

From this revision the app stores, on SQLite only, a message's text, its agent messages and
its log lines' text and meta of 128 bytes or more as a BLOB (a format byte, then raw deflate)
when that saves a tenth (agentchat.core.packed_text); a message holding Chinese, Japanese or
Korean text stays TEXT, because search reads those with LIKE. Rows already stored stay as
they are: a TEXT value is read as it is.

The full-text index reads the text through `agentchat_text(value)`, which every connection
of the app registers: its view and its triggers call it, so the index holds words, never
compressed bytes. Nothing is re-indexed: for a TEXT value the function gives it back as it
is. The index keeps no per-row sizes any more (columnsize=0): nothing ranks by them, and they
took 9 bytes a message; that one change makes the FTS table again and rebuilds it once.

Downgrade: every BLOB goes back to TEXT first (the older code reads only TEXT), then 0006's
view, table and triggers come back as 0006 wrote them.

PostgreSQL compresses a row's long values itself (TOAST) and MariaDB's message table is
compressed (0005c): nothing changes there.

Revision ID: 0007_packed_text
Revises: 0006_search_skips_running
Create Date: 2026-12-01
"""

from alembic import op

revision = "0007_packed_text"
down_revision = "0006_search_skips_running"
branch_labels = None
depends_on = None

DROP_FTS = [
    "DROP TRIGGER IF EXISTS chat_message_fts_au",
    "DROP TRIGGER IF EXISTS chat_message_fts_ad",
    "DROP TRIGGER IF EXISTS chat_message_fts_ai",
    "DROP TABLE IF EXISTS chat_message_fts",
    "DROP VIEW IF EXISTS chat_message_searchable",
]
REBUILD = "INSERT INTO chat_message_fts(chat_message_fts) VALUES ('rebuild')"
FTS_TABLE = (
    "CREATE VIRTUAL TABLE chat_message_fts USING fts5(content, "
    "content='chat_message_searchable', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2', detail=none{extra})"
)


def _fts(text_of: str, extra: str) -> list[str]:
    """The view, the FTS table and its triggers, reading the text through `text_of` (a format
    string of the stored value)."""
    old, new = text_of.format("old.content"), text_of.format("new.content")
    return [
        *DROP_FTS,
        "CREATE VIEW chat_message_searchable AS SELECT id, "
        f"{text_of.format('content')} AS content FROM chat_message WHERE status != 'RUNNING'",
        FTS_TABLE.format(extra=extra),
        REBUILD,
        "CREATE TRIGGER chat_message_fts_ai AFTER INSERT ON chat_message "
        "WHEN new.status != 'RUNNING' BEGIN "
        f"INSERT INTO chat_message_fts(rowid, content) VALUES (new.id, {new}); END",
        "CREATE TRIGGER chat_message_fts_ad AFTER DELETE ON chat_message "
        "WHEN old.status != 'RUNNING' BEGIN "
        "INSERT INTO chat_message_fts(chat_message_fts, rowid, content) "
        f"VALUES ('delete', old.id, {old}); END",
        "CREATE TRIGGER chat_message_fts_au AFTER UPDATE OF content, status ON chat_message "
        "WHEN old.status != 'RUNNING' OR new.status != 'RUNNING' BEGIN "
        "INSERT INTO chat_message_fts(chat_message_fts, rowid, content) "
        f"SELECT 'delete', old.id, {old} WHERE old.status != 'RUNNING'; "
        "INSERT INTO chat_message_fts(rowid, content) "
        f"SELECT new.id, {new} WHERE new.status != 'RUNNING'; END",
    ]


UNPACK = [
    "UPDATE chat_message SET content = agentchat_text(content) WHERE typeof(content) = 'blob'",
    "UPDATE chat_message SET agent_messages = agentchat_text(agent_messages) "
    "WHERE typeof(agent_messages) = 'blob'",
    "UPDATE chat_message_log SET content = agentchat_text(content) WHERE typeof(content) = 'blob'",
    "UPDATE chat_message_log SET meta_json = agentchat_text(meta_json) "
    "WHERE typeof(meta_json) = 'blob'",
]


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in _fts("agentchat_text({})", ", columnsize=0"):
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in [*UNPACK, *_fts("{}", "")]:
            op.execute(statement)
