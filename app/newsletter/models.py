"""Newsletter tables: subscribers, their confirmation tokens, the issues sent and one delivery per issue and
subscriber.

Tokens are stored only as SHA-256 hashes: a copy of the database confirms and unsubscribes no one. A delivery
row is written (committed) before its mail leaves and marked sent after, so a send that is run again, after a
crash or by a retrying scheduler, knows whom it has already mailed: the primary key (issue, subscriber) allows one
delivery per person and issue, whatever happens.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base

EMAIL_LENGTH = 254  # RFC 5321's limit on a path, which bounds any address that can receive mail
HASH_LENGTH = 64  # SHA-256, hex
SOURCE_LENGTH = 80
ISSUE_ID_LENGTH = 100
SUBJECT_LENGTH = 200


class Subscriber(Base):
    """One address: `pending` until its owner confirms, then `confirmed`, then perhaps `unsubscribed`."""

    __tablename__ = "newsletter_subscribers"
    __table_args__ = (Index("ix_newsletter_subscribers_status_id", "status", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    email: Mapped[str] = mapped_column(String(EMAIL_LENGTH), unique=True)  # normalised, lower case
    language: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(SOURCE_LENGTH))  # the form it was signed up with: home, chapter:…
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    consented_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # the confirming POST
    unsubscribed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ConfirmationToken(Base):
    """A confirmation link's token: single use, valid for 48 hours."""

    __tablename__ = "newsletter_tokens"
    __table_args__ = (Index("ix_newsletter_tokens_subscriber_id", "subscriber_id"),)

    token_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), primary_key=True)
    subscriber_id: Mapped[int] = mapped_column(ForeignKey("newsletter_subscribers.id", ondelete="CASCADE"))
    language: Mapped[str] = mapped_column(String(8))  # the language signed up with, recorded as consent
    source: Mapped[str] = mapped_column(String(SOURCE_LENGTH))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Issue(Base):
    """An issue as first sent: its id (the file's `id`, or its name) and the hash of what it said."""

    __tablename__ = "newsletter_issues"

    id: Mapped[str] = mapped_column(String(ISSUE_ID_LENGTH), primary_key=True)
    content_sha256: Mapped[str] = mapped_column(String(HASH_LENGTH))
    subject: Mapped[str] = mapped_column(String(SUBJECT_LENGTH))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Delivery(Base):
    """One issue to one subscriber: `sending` from just before the mail leaves, `sent` once it has. Its
    unsubscribe token (hashed) is the one in that mail's List-Unsubscribe header and link."""

    __tablename__ = "newsletter_deliveries"

    issue_id: Mapped[str] = mapped_column(ForeignKey("newsletter_issues.id", ondelete="CASCADE"), primary_key=True)
    subscriber_id: Mapped[int] = mapped_column(
        ForeignKey("newsletter_subscribers.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    language: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16))
    unsubscribe_hash: Mapped[str] = mapped_column(String(HASH_LENGTH), unique=True)
    claimed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
