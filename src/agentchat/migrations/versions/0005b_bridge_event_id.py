"""chat_message.bridge_event_id: the bridge event a RUNNING answer's stored state reaches

Written with each log batch and answer checkpoint, so an API that restarts re-attaches to the
run in its bridge and carries on from exactly that event.

Revision ID: 0005b_bridge_event_id
Revises: 0004
Create Date: 2026-11-30
"""

import contextlib
from collections.abc import Iterator

import sqlalchemy as sa
from alembic import op

revision = "0005b_bridge_event_id"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with _stopwords_kept_off(), op.batch_alter_table("chat_message") as batch:
        batch.add_column(sa.Column("bridge_event_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with _stopwords_kept_off(), op.batch_alter_table("chat_message") as batch:
        batch.drop_column("bridge_event_id")


@contextlib.contextmanager
def _stopwords_kept_off() -> Iterator[None]:
    """MariaDB/MySQL rebuild the table's FULLTEXT index (0003) with the session's stopword
    setting: keep it off, as 0003 built it, so words such as "about" stay searchable."""
    mysql = op.get_bind().dialect.name in ("mysql", "mariadb")
    if mysql:
        op.execute("SET @agentchat_stopwords = @@SESSION.innodb_ft_enable_stopword")
        op.execute("SET SESSION innodb_ft_enable_stopword = OFF")
    try:
        yield
    finally:
        if mysql:
            op.execute("SET SESSION innodb_ft_enable_stopword = @agentchat_stopwords")
