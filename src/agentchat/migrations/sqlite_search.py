"""SQLite's search index as migrations 0007 and later make it: the view of the messages that are
not RUNNING, the FTS5 table over it and the triggers that keep it in step, reading the stored
text through `agentchat_text` (every connection of the app registers it; 0007 explains why).

A migration that rebuilds chat_message (batch mode: copy, DROP, rename) runs DROP_SEARCH
before it (SQLite refuses the rename while a view names the dropped table, and the DROP takes
the triggers with it) and `search_index` after it.
"""

from __future__ import annotations

DROP_SEARCH = [
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
PACKED_TEXT = "agentchat_text({})"  # 0007 on: a stored BLOB is deflated text
NO_SIZES = ", columnsize=0"  # 0007 on: no per-row sizes


def search_index(text_of: str = PACKED_TEXT, extra: str = NO_SIZES) -> list[str]:
    """Drop, then make the view, the FTS table (rebuilt once) and its triggers, reading the
    text through `text_of` (a format string of the stored value)."""
    old, new = text_of.format("old.content"), text_of.format("new.content")
    return [
        *DROP_SEARCH,
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
