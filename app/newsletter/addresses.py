"""E-mail addresses as the newsletter accepts them, and the keys that count sign-ups per address."""

from __future__ import annotations

import hashlib

from email_validator import EmailNotValidError, validate_email

from app.newsletter.models import EMAIL_LENGTH

MAX_INPUT_LENGTH = 1000
LOCAL_PART_LENGTH = 64  # RFC 5321 §4.5.3.1.1  # longer input is refused before it is parsed


def normalise_address(typed: str) -> str | None:
    """The address in the one form it is stored and mailed in (domain in IDNA ASCII, all lower case), or None
    when mail cannot be sent to it.

    email-validator checks RFC 5321/5322 syntax; anything with a line break, a display name or a second `@`
    is refused, so no header can be smuggled in through the address. Non-ASCII local parts need SMTPUTF8,
    which not every relay speaks: refused. Deliverability (DNS) is not checked: a sign-up must not wait on DNS,
    and the confirmation mail is the real test.
    """
    candidate = typed.strip()
    if not candidate or len(candidate) > MAX_INPUT_LENGTH:
        return None
    try:
        checked = validate_email(candidate, check_deliverability=False, allow_smtputf8=False)
    except EmailNotValidError:
        return None
    address = checked.ascii_email
    if address is None or len(address) > EMAIL_LENGTH or len(checked.local_part) > LOCAL_PART_LENGTH:
        return None
    return address.lower()


def address_key(address: str) -> str:
    """The rate-limit key of an address: its hash, so the limits table holds no addresses."""
    return "nl:a:" + hashlib.sha256(address.encode()).hexdigest()[:40]
