"""calibrations (thresholds fitted to judgments); project_models (heads adapted to a project)

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "calibrations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("checker", sa.String(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("level", sa.String(), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("target_recall", sa.Float(), nullable=True),
        sa.Column("probability", sa.JSON(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("n_judgments", sa.Integer(), nullable=False),
        sa.Column("fitted_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("checker", "version", "level"),
    )
    op.create_table(
        "project_models",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("checker", sa.String(), nullable=False),
        sa.Column("base_version", sa.String(), nullable=False),
        sa.Column("version", sa.String(), nullable=False),
        sa.Column("spec", sa.JSON(), nullable=False),
        sa.Column("n_judgments", sa.Integer(), nullable=False),
        sa.Column("n_visible", sa.Integer(), nullable=False),
        sa.Column("n_blind", sa.Integer(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("fitted_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("project_models")
    op.drop_table("calibrations")
