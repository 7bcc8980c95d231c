"""pair_scores.reason (why a pair was not checked at all); claims (pairs being scored)

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
    op.create_table(
        "claims",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=False),
        sa.Column("checker", sa.String(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("output_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["output_id"], ["outputs.id"]),
        sa.ForeignKeyConstraint(["run_id"], ["runs.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("checker", "version", "output_id"),
    )
    with op.batch_alter_table("claims", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_claims_run_id"), ["run_id"], unique=False)


def downgrade() -> None:
    op.drop_table("claims")
    with op.batch_alter_table("pair_scores") as batch_op:
        batch_op.drop_column("reason")
