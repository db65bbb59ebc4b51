"""Accounts: users, sign-in sessions, one-time tokens, the audit log; an owner on chats and models

`chat_session.owner_id` and `ai_model_config.owner_id` are NULL for what exists: a server
without accounts serves one person, who owns everything. Creating the first account gives
that account every chat (accounts.users.adopt_unowned), and the models stay shared (NULL:
the administrator's, offered to everyone). No foreign keys on the owners: a user is deleted
with their data by the service, children first, as a chat is (chat.sessions.delete_session).

Revision ID: 0010_accounts
Revises: 0009_ids_never_reused
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0010_accounts"
down_revision = "0009_ids_never_reused"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Timestamp = sa.DateTime().with_variant(sa.dialects.mysql.DATETIME(fsp=6), "mysql", "mariadb")


def upgrade() -> None:
    op.create_table(
        "app_user",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("username_key", sa.String(192), nullable=False),
        sa.Column("lookalike_key", sa.String(192), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("oidc_issuer", sa.String(255), nullable=True),
        sa.Column("oidc_subject", sa.String(255), nullable=True),
        sa.Column("failed_signins", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("signin_blocked_until", Timestamp, nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("last_signin_at", Timestamp, nullable=True),
        sa.UniqueConstraint("username_key", name="uq_app_user_username_key"),
        sa.UniqueConstraint("lookalike_key", name="uq_app_user_lookalike_key"),
        sa.UniqueConstraint("oidc_issuer", "oidc_subject", name="uq_app_user_oidc"),
        sqlite_autoincrement=True,  # a deleted account's id is never another's (0009)
    )
    op.create_table(
        "account_session",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("token_digest", sa.String(64), nullable=False),
        sa.Column(
            "user_id",
            BigId,
            sa.ForeignKey(
                "app_user.id", ondelete="CASCADE", name="fk_account_session_user_id_app_user"
            ),
            nullable=False,
        ),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("ip", sa.String(64), nullable=True),
        sa.Column("user_agent", sa.String(255), nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("last_seen_at", Timestamp, nullable=False),
        sa.Column("expires_at", Timestamp, nullable=False),
        sa.UniqueConstraint("token_digest", name="uq_account_session_token_digest"),
        sqlite_autoincrement=True,
    )
    op.create_index("idx_account_session_user", "account_session", ["user_id"])
    op.create_table(
        "account_token",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("token_digest", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=True),
        sa.Column("payload", sa.Text(), nullable=True),
        sa.Column("created_by", BigId, nullable=True),
        sa.Column("created_at", Timestamp, nullable=False),
        sa.Column("expires_at", Timestamp, nullable=False),
        sa.Column("used_at", Timestamp, nullable=True),
        sa.Column("used_by", BigId, nullable=True),
        sa.UniqueConstraint("token_digest", name="uq_account_token_token_digest"),
        sqlite_autoincrement=True,
    )
    op.create_index("idx_account_token_kind", "account_token", ["kind", "expires_at"])
    op.create_table(
        "audit_event",
        sa.Column("id", BigId, primary_key=True, autoincrement=True),
        sa.Column("at", Timestamp, nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("actor_id", BigId, nullable=True),
        sa.Column("actor_name", sa.String(64), nullable=True),
        sa.Column("target_id", BigId, nullable=True),
        sa.Column("target_name", sa.String(64), nullable=True),
        sa.Column("ip", sa.String(64), nullable=True),
        sa.Column("user_agent", sa.String(255), nullable=True),
        sa.Column("detail", sa.Text(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("idx_audit_event_at", "audit_event", ["at"])
    op.create_index("idx_audit_event_actor", "audit_event", ["actor_id"])
    with op.batch_alter_table("chat_session") as batch:
        batch.add_column(sa.Column("owner_id", BigId, nullable=True))
    op.create_index(
        "idx_chat_session_owner", "chat_session", ["owner_id", "status", "activity_at", "id"]
    )
    with op.batch_alter_table("ai_model_config") as batch:
        batch.add_column(sa.Column("owner_id", BigId, nullable=True))
    op.create_index("ix_ai_model_config_owner_id", "ai_model_config", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_ai_model_config_owner_id", table_name="ai_model_config")
    with op.batch_alter_table("ai_model_config") as batch:
        batch.drop_column("owner_id")
    op.drop_index("idx_chat_session_owner", table_name="chat_session")
    with op.batch_alter_table("chat_session") as batch:
        batch.drop_column("owner_id")
    op.drop_table("audit_event")
    op.drop_table("account_token")
    op.drop_table("account_session")
    op.drop_table("app_user")
