"""rate limits: sliding windows of ten slots each instead of fixed-window counters

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_rate_limit_counters_window_start", table_name="rate_limit_counters")
    op.drop_table("rate_limit_counters")
    op.create_table(
        "rate_limit_slots",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("slot_start_us", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "slot_start_us", name=op.f("pk_rate_limit_slots")),
    )
    op.create_index("ix_rate_limit_slots_slot_start_us", "rate_limit_slots", ["slot_start_us"])


def downgrade() -> None:
    op.drop_index("ix_rate_limit_slots_slot_start_us", table_name="rate_limit_slots")
    op.drop_table("rate_limit_slots")
    op.create_table(
        "rate_limit_counters",
        sa.Column("key", sa.String(length=128), nullable=False),
        sa.Column("window_start", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", "window_start", name=op.f("pk_rate_limit_counters")),
    )
    op.create_index("ix_rate_limit_counters_window_start", "rate_limit_counters", ["window_start"])
