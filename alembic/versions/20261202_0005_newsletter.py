"""newsletter: subscribers, confirmation tokens, issues and deliveries

Revision ID: 20261202_0005_newsletter
Revises: 0004
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "20261202_0005_newsletter"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "newsletter_subscribers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("source", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("consented_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("unsubscribed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_newsletter_subscribers")),
        sa.UniqueConstraint("email", name=op.f("uq_newsletter_subscribers_email")),
    )
    op.create_index("ix_newsletter_subscribers_status_id", "newsletter_subscribers", ["status", "id"])
    op.create_table(
        "newsletter_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("source", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["newsletter_subscribers.id"],
            name=op.f("fk_newsletter_tokens_subscriber_id_newsletter_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_hash", name=op.f("pk_newsletter_tokens")),
    )
    op.create_index("ix_newsletter_tokens_subscriber_id", "newsletter_tokens", ["subscriber_id"])
    op.create_table(
        "newsletter_issues",
        sa.Column("id", sa.String(length=100), nullable=False),
        sa.Column("content_sha256", sa.String(length=64), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_newsletter_issues")),
    )
    op.create_table(
        "newsletter_deliveries",
        sa.Column("issue_id", sa.String(length=100), nullable=False),
        sa.Column("subscriber_id", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("unsubscribe_hash", sa.String(length=64), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["issue_id"],
            ["newsletter_issues.id"],
            name=op.f("fk_newsletter_deliveries_issue_id_newsletter_issues"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["subscriber_id"],
            ["newsletter_subscribers.id"],
            name=op.f("fk_newsletter_deliveries_subscriber_id_newsletter_subscribers"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("issue_id", "subscriber_id", name=op.f("pk_newsletter_deliveries")),
        sa.UniqueConstraint("unsubscribe_hash", name=op.f("uq_newsletter_deliveries_unsubscribe_hash")),
    )
    op.create_index("ix_newsletter_deliveries_subscriber_id", "newsletter_deliveries", ["subscriber_id"])


def downgrade() -> None:
    op.drop_index("ix_newsletter_deliveries_subscriber_id", table_name="newsletter_deliveries")
    op.drop_table("newsletter_deliveries")
    op.drop_table("newsletter_issues")
    op.drop_index("ix_newsletter_tokens_subscriber_id", table_name="newsletter_tokens")
    op.drop_table("newsletter_tokens")
    op.drop_index("ix_newsletter_subscribers_status_id", table_name="newsletter_subscribers")
    op.drop_table("newsletter_subscribers")
