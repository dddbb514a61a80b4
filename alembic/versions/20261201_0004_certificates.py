"""certificates: issued credentials, claims, revocation status lists, signing keys

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "certificate_keys",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("public_key", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_certificate_keys")),
    )
    op.create_table(
        "certificate_status_lists",
        sa.Column("number", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("allocated", sa.Integer(), nullable=False),
        sa.Column("bits", sa.LargeBinary(), nullable=False),
        sa.Column("credential", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("number", name=op.f("pk_certificate_status_lists")),
    )
    op.create_table(
        "certificates",
        sa.Column("id", sa.String(length=26), nullable=False),
        sa.Column("learner_id", sa.String(length=32), nullable=True),
        sa.Column("attempt_id", sa.String(length=32), nullable=True),
        sa.Column("course_version", sa.String(length=80), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("issued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("key_id", sa.String(length=64), nullable=False),
        sa.Column("credential", sa.Text(), nullable=False),
        sa.Column("jws", sa.Text(), nullable=False),
        sa.Column("qr_payload", sa.Text(), nullable=False),
        sa.Column("status_list", sa.Integer(), nullable=False),
        sa.Column("status_index", sa.Integer(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revocation_reason", sa.String(length=200), nullable=True),
        sa.Column("replaced_by", sa.String(length=26), nullable=True),
        sa.ForeignKeyConstraint(
            ["attempt_id"],
            ["quiz_attempts.id"],
            name=op.f("fk_certificates_attempt_id_quiz_attempts"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["key_id"], ["certificate_keys.id"], name=op.f("fk_certificates_key_id_certificate_keys")
        ),
        sa.ForeignKeyConstraint(
            ["learner_id"], ["learners.id"], name=op.f("fk_certificates_learner_id_learners"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["replaced_by"], ["certificates.id"], name=op.f("fk_certificates_replaced_by_certificates")
        ),
        sa.ForeignKeyConstraint(
            ["status_list"],
            ["certificate_status_lists.number"],
            name=op.f("fk_certificates_status_list_certificate_status_lists"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_certificates")),
        sa.UniqueConstraint("status_list", "status_index", name=op.f("uq_certificates_status_list_status_index")),
    )
    op.create_index("ix_certificates_learner_id", "certificates", ["learner_id"])
    op.create_table(
        "certificate_claims",
        sa.Column("learner_id", sa.String(length=32), nullable=False),
        sa.Column("course_version", sa.String(length=80), nullable=False),
        sa.Column("certificate_id", sa.String(length=26), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["certificate_id"], ["certificates.id"], name=op.f("fk_certificate_claims_certificate_id_certificates")
        ),
        sa.ForeignKeyConstraint(
            ["learner_id"],
            ["learners.id"],
            name=op.f("fk_certificate_claims_learner_id_learners"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("learner_id", "course_version", name=op.f("pk_certificate_claims")),
    )


def downgrade() -> None:
    op.drop_table("certificate_claims")
    op.drop_index("ix_certificates_learner_id", table_name="certificates")
    op.drop_table("certificates")
    op.drop_table("certificate_status_lists")
    op.drop_table("certificate_keys")
