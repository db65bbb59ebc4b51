"""ai_model_config: provider kinds, max output tokens, temperature, reasoning effort, fallback

"openai" used to mean any OpenAI-compatible endpoint; it now names OpenAI itself, so existing
rows become "openai-compatible" unless they point at api.openai.com.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_OPENAI_HOSTS = ("https://api.openai.com", "http://api.openai.com")


def upgrade() -> None:
    with op.batch_alter_table("ai_model_config") as batch:
        batch.add_column(sa.Column("max_output_tokens", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("temperature", sa.Float(), nullable=True))
        batch.add_column(sa.Column("reasoning_effort", sa.String(16), nullable=True))
        batch.add_column(
            sa.Column(
                "fallback_model_id",
                sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                nullable=True,
            )
        )
    table = sa.table("ai_model_config", sa.column("provider"), sa.column("base_url"))
    on_openai = sa.or_(*(table.c.base_url.startswith(host) for host in _OPENAI_HOSTS))
    op.execute(
        table.update()
        .where(table.c.provider == "openai", sa.not_(on_openai))
        .values(provider="openai-compatible")
    )


def downgrade() -> None:
    table = sa.table("ai_model_config", sa.column("provider"))
    op.execute(
        table.update()
        .where(table.c.provider.in_(["openai-compatible", "openrouter", "ollama"]))
        .values(provider="openai")
    )
    with op.batch_alter_table("ai_model_config") as batch:
        for name in ("fallback_model_id", "reasoning_effort", "temperature", "max_output_tokens"):
            batch.drop_column(name)
