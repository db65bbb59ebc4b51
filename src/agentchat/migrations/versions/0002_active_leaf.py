"""chat_session.active_leaf_id: read the active branch upward from its leaf

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat_session") as batch:
        batch.add_column(
            sa.Column(
                "active_leaf_id",
                sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                nullable=True,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("chat_session") as batch:
        batch.drop_column("active_leaf_id")
