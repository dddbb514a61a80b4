"""Certificate tables: issued certificates (their signed bytes as issued), claims, status lists and keys.

A certificate row holds the credential exactly as it was signed (`credential`, the JSON document with its
proof, and `jws`, the compact JWS), and is never rewritten: pages and downloads serve and verify those bytes.
What may change later lives beside them: the revocation (date, reason, the certificate that replaced it) and the
status-list bit that publishes it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base

CERTIFICATE_ID_LENGTH = 26
KEY_ID_LENGTH = 64
COURSE_VERSION_LENGTH = 80
REASON_LENGTH = 200


class CertificateKey(Base):
    """The public half of every key that ever signed here, so that old certificates verify on every host even
    after the key left the key file."""

    __tablename__ = "certificate_keys"

    id: Mapped[str] = mapped_column(String(KEY_ID_LENGTH), primary_key=True)  # RFC 7638 thumbprint
    public_key: Mapped[str] = mapped_column(String(KEY_ID_LENGTH))  # Multikey, multibase base58btc
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class StatusList(Base):
    """One W3C Bitstring Status List (revocation) and its signed credential, as /status/{number} serves it."""

    __tablename__ = "certificate_status_lists"

    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    size: Mapped[int] = mapped_column(Integer)  # entries (bits)
    allocated: Mapped[int] = mapped_column(Integer)  # entries handed to certificates
    bits: Mapped[bytes] = mapped_column(LargeBinary)  # size / 8 bytes; bit i is byte i // 8, bit 7 - i % 8
    credential: Mapped[str] = mapped_column(Text)  # the signed BitstringStatusListCredential
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Certificate(Base):
    __tablename__ = "certificates"
    __table_args__ = (
        UniqueConstraint("status_list", "status_index"),
        Index("ix_certificates_learner_id", "learner_id"),
    )

    id: Mapped[str] = mapped_column(String(CERTIFICATE_ID_LENGTH), primary_key=True)
    learner_id: Mapped[str | None] = mapped_column(String(32), ForeignKey("learners.id", ondelete="SET NULL"))
    attempt_id: Mapped[str | None] = mapped_column(String(32), ForeignKey("quiz_attempts.id", ondelete="SET NULL"))
    course_version: Mapped[str] = mapped_column(String(COURSE_VERSION_LENGTH))
    name: Mapped[str] = mapped_column(String(100))
    language: Mapped[str] = mapped_column(String(8))
    issued_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    key_id: Mapped[str] = mapped_column(String(KEY_ID_LENGTH), ForeignKey("certificate_keys.id"))
    credential: Mapped[str] = mapped_column(Text)
    jws: Mapped[str] = mapped_column(Text)
    qr_payload: Mapped[str] = mapped_column(Text)  # the QR code's signed fragment (app.certificates.qr)
    status_list: Mapped[int] = mapped_column(Integer, ForeignKey("certificate_status_lists.number"))
    status_index: Mapped[int] = mapped_column(Integer)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revocation_reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH))
    replaced_by: Mapped[str | None] = mapped_column(String(CERTIFICATE_ID_LENGTH), ForeignKey("certificates.id"))


class CertificateClaim(Base):
    """A learner's certificate for one version of the course: the row that decides a race between claims."""

    __tablename__ = "certificate_claims"

    learner_id: Mapped[str] = mapped_column(String(32), ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    course_version: Mapped[str] = mapped_column(String(COURSE_VERSION_LENGTH), primary_key=True)
    certificate_id: Mapped[str] = mapped_column(String(CERTIFICATE_ID_LENGTH), ForeignKey("certificates.id"))
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
