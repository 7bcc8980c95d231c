"""pair_scores.reason: why a pair was not checked at all

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (nullable, no default): SQLite does it in place, without a rebuild.
    op.add_column("pair_scores", sa.Column("reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("pair_scores") as batch_op:
        batch_op.drop_column("reason")
