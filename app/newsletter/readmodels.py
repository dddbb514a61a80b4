"""What the newsletter service hands out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Subscription:
    """The subscription a link belongs to, as its page shows it."""

    email: str
    language: str
    status: str  # pending, confirmed or unsubscribed


@dataclass(frozen=True, slots=True)
class SendReport:
    issue_id: str
    sent: int  # mailed by this run
    already_sent: int  # mailed by an earlier run
    uncertain: int  # a run stopped while handing these to SMTP: whether they left is unknown, so never again
