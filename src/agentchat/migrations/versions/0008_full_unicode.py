"""MariaDB/MySQL: every table in utf8mb4, whatever the database's default character set

The tables took the database's default character set. A database created as latin1 or utf8
(= utf8mb3: three bytes, no emoji), which older servers and hosting panels still make, could
not store Chinese in a question (refused with 422) nor an emoji in an answer (the answer's
final write failed over and over and the answer stayed RUNNING). This revision sets the
database's default to utf8mb4 (for the tables later revisions create) and converts each of its
own tables that is not utf8mb4 yet (another application's tables in a shared database are
left). Converting from latin1 or utf8mb3 loses no character; MariaDB widens
a TEXT column to MEDIUMTEXT on the way so that it still holds as many characters.

Nothing changes on SQLite and PostgreSQL (their text is Unicode, whatever the locale:
a PostgreSQL database in SQL_ASCII or LATIN1 is refused at start instead, by
`agentchat.migrations.on_start`). Downgrade keeps utf8mb4: the older code reads it as well.

Revision ID: 0008_full_unicode
Revises: 0007_packed_text
Create Date: 2026-12-02
"""

from alembic import op
from sqlalchemy import bindparam, text

revision = "0008_full_unicode"
down_revision = "0007_packed_text"
branch_labels = None
depends_on = None

NOT_UTF8MB4 = text(
    "SELECT t.TABLE_NAME FROM information_schema.TABLES t "
    "JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY c "
    "ON c.COLLATION_NAME = t.TABLE_COLLATION "
    "WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' "
    "AND c.CHARACTER_SET_NAME <> 'utf8mb4' AND t.TABLE_NAME IN :ours"
).bindparams(bindparam("ours", expanding=True))
# The tables of the schema at this revision: a shared database's other tables are another
# application's (a latin1 column there may hold bytes a conversion would garble).
OURS = (
    "ai_model_config",
    "chat_session",
    "chat_message",
    "chat_message_log",
    "workflow_pause",
    "alembic_version",
)
# Rebuilding chat_message rebuilds its FULLTEXT index: without the stopword list, as 0003 did.
KEEP_STOPWORDS = (
    "SET @agentchat_stopwords = @@SESSION.innodb_ft_enable_stopword",
    "SET SESSION innodb_ft_enable_stopword = OFF",
)
RESTORE_STOPWORDS = "SET SESSION innodb_ft_enable_stopword = @agentchat_stopwords"


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name not in ("mysql", "mariadb"):
        return
    database = bind.execute(text("SELECT DATABASE()")).scalar_one()
    op.execute(f"ALTER DATABASE `{database}` CHARACTER SET utf8mb4")
    tables = bind.execute(NOT_UTF8MB4, {"ours": list(OURS)}).scalars().all()
    for statement in KEEP_STOPWORDS:
        op.execute(statement)
    for table in tables:
        op.execute(f"ALTER TABLE `{table}` CONVERT TO CHARACTER SET utf8mb4")
    op.execute(RESTORE_STOPWORDS)


def downgrade() -> None:
    """utf8mb4 stays: the older code reads and writes it as well."""
