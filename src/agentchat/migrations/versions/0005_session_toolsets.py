"""chat_session: the chat's toolsets and its "allow for this chat" command approvals

`toolsets`: a JSON list narrowing the server's AGENTCHAT_AGENT_TOOLSETS for every run of the
chat (NULL: all of them). `approvals`: a JSON list of the hermes approval keys a person allowed
for this chat; they are sent to the bridge with each run, so a bridge restart keeps them.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("chat_session") as batch:
        batch.add_column(sa.Column("toolsets", sa.Text(), nullable=True))
        batch.add_column(sa.Column("approvals", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("chat_session") as batch:
        batch.drop_column("approvals")
        batch.drop_column("toolsets")
