"""sentence_scores.detail (what a checker found, in words, beside a sentence's score)

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ADD COLUMN (nullable, no default): SQLite does it in place; old rows read NULL.
    op.add_column("sentence_scores", sa.Column("detail", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sentence_scores") as batch_op:
        batch_op.drop_column("detail")
