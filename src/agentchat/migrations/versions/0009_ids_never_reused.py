"""SQLite: ids are never given twice (AUTOINCREMENT)

Without AUTOINCREMENT SQLite gives a new row the highest rowid plus one, so deleting the newest
chat gave its id (and its messages' ids) to the next chat: an old link or a stale tab to
/chat/61 opened another chat, and showed its messages under that address. Each table with an
id is made again with `INTEGER PRIMARY KEY AUTOINCREMENT` (batch mode: copy, DROP, rename;
foreign keys are off meanwhile, see env.py), so SQLite keeps the highest id ever given in
sqlite_sequence; copying the rows sets it to the highest id there is now. The search index's
view, table and triggers are dropped before and made again after (migrations/sqlite_search.py).

PostgreSQL (sequences) and MariaDB/MySQL (InnoDB AUTO_INCREMENT, kept across restarts since
MariaDB 10.2.4 and MySQL 8.0) never give an id twice: nothing changes there.

Downgrade makes the tables again without AUTOINCREMENT.

Revision ID: 0009_ids_never_reused
Revises: 0008_full_unicode
Create Date: 2026-12-03
"""

from alembic import op

from agentchat.migrations.sqlite_search import DROP_SEARCH, search_index

revision = "0009_ids_never_reused"
down_revision = "0008_full_unicode"
branch_labels = None
depends_on = None

TABLES = ("ai_model_config", "chat_session", "chat_message", "chat_message_log", "workflow_pause")


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for statement in DROP_SEARCH:
        op.execute(statement)
    for table in TABLES:
        kwargs = {"sqlite_autoincrement": autoincrement}
        with op.batch_alter_table(table, recreate="always", table_kwargs=kwargs):
            pass
    for statement in search_index():
        op.execute(statement)


def upgrade() -> None:
    _rebuild(autoincrement=True)


def downgrade() -> None:
    _rebuild(autoincrement=False)
