"""chat_message.bridge_event_id: the bridge event a RUNNING answer's stored state reaches

Written with each log batch and answer checkpoint, so an API that restarts re-attaches to the
run in its bridge and carries on from exactly that event.

Revision ID: 0005b_bridge_event_id
Revises: 0004
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0005b_bridge_event_id"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat_message") as batch:
        batch.add_column(sa.Column("bridge_event_id", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_message") as batch:
        batch.drop_column("bridge_event_id")
