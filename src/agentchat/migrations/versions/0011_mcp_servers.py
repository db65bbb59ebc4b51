"""MCP tool servers, a chat's servers turned off, and the model that writes a chat's summaries

`mcp_server`: one row per server the Tools page added (stdio: command, args; http: url). The
values of its environment and headers are secrets: they are stored encrypted together
(`secrets_encrypted`, Fernet as model keys), and only their names and last four characters
in the clear (`secret_hints`). `chat_session.mcp_off`: a JSON list of the servers a chat
turned off (NULL: none). `ai_model_config.can_summarize`: the model may be chosen to write
chats' summaries; `chat_session.compression_model_id`: the one a chat chose (NULL: its own).

Revision ID: 0011_mcp_servers
Revises: 0010_accounts
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0011_mcp_servers"
down_revision = "0010_accounts"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Timestamp = sa.DateTime().with_variant(sa.dialects.mysql.DATETIME(fsp=6), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "mcp_server",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("transport", sa.String(8), nullable=False),
        sa.Column("command", sa.String(1000), nullable=False, server_default=""),
        sa.Column("args", sa.Text(), nullable=True),
        sa.Column("url", sa.String(2000), nullable=False, server_default=""),
        sa.Column("secrets_encrypted", sa.Text(), nullable=True),
        sa.Column("secret_hints", sa.Text(), nullable=True),
        sa.Column("enabled", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("approval", sa.String(8), nullable=False, server_default="ask"),
        sa.Column("timeout_s", sa.Float(), nullable=False),
        sa.Column("connect_timeout_s", sa.Float(), nullable=False),
        sa.Column("tools_include", sa.Text(), nullable=True),
        sa.Column("tools_exclude", sa.Text(), nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("updated_at", Timestamp, nullable=False),
        sa.UniqueConstraint("name", name="uq_mcp_server_name"),
        sqlite_autoincrement=True,
    )
    # Plain ADD COLUMN (a batch could rebuild the table on SQLite, losing AUTOINCREMENT: 0009)
    op.add_column("chat_session", sa.Column("mcp_off", sa.Text(), nullable=True))
    op.add_column("chat_session", sa.Column("compression_model_id", BigId, nullable=True))
    op.add_column(
        "ai_model_config",
        sa.Column("can_summarize", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    with op.batch_alter_table("ai_model_config") as batch:
        batch.drop_column("can_summarize")
    with op.batch_alter_table("chat_session") as batch:
        batch.drop_column("compression_model_id")
        batch.drop_column("mcp_off")
    op.drop_table("mcp_server")
