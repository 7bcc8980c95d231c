"""judgments.role; one judgment per target, aspect, reviewer and role (several reviewers)

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # ADD COLUMN with a constant default: SQLite does it in place; existing rows are reviews.
    op.add_column(
        "judgments",
        sa.Column("role", sa.String(), nullable=False, server_default="review"),
    )
    op.drop_index("uq_judgment_target", table_name="judgments")
    op.create_index(
        "uq_judgment_target",
        "judgments",
        ["output_id", "target_key", "aspect", "annotator", "role"],
        unique=True,
    )


def downgrade() -> None:
    # Only one judgment per target survives the old key: keep the earliest of each.
    op.execute(
        "DELETE FROM judgments WHERE id NOT IN "
        "(SELECT MIN(id) FROM judgments GROUP BY output_id, target_key, aspect)"
    )
    op.drop_index("uq_judgment_target", table_name="judgments")
    op.create_index(
        "uq_judgment_target", "judgments", ["output_id", "target_key", "aspect"], unique=True
    )
    with op.batch_alter_table("judgments") as batch_op:
        batch_op.drop_column("role")
