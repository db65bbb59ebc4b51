"""SQLite: long texts are stored deflated (issue 17: ≤ 0.75 MB per 1,000 messages)

From this revision the app stores, on SQLite only, a message's text, its agent messages and
its log lines' text and meta of 128 bytes or more as a BLOB (a format byte, then raw deflate)
when that saves a tenth (agentchat.core.database.packed_text); a message holding Chinese,
Japanese or Korean text stays TEXT, because search reads those with LIKE. Rows already stored
stay as they are: a TEXT value is read as it is.

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

from agentchat.migrations.sqlite_search import search_index

revision = "0007_packed_text"
down_revision = "0006_search_skips_running"
branch_labels = None
depends_on = None

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
        for statement in search_index():
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in [*UNPACK, *search_index("{}", "")]:
            op.execute(statement)
