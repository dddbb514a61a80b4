"""Domain errors of the newsletter; app/web/exceptions.py maps each to HTTP once."""

from __future__ import annotations


class NewsletterError(Exception):
    pass


class InvalidAddressError(NewsletterError):
    """Not an address mail can be sent to; carries what was typed, for the form shown again."""

    def __init__(self, email: str, language: str, source: str) -> None:
        super().__init__("invalid_address")
        self.email = email
        self.language = language
        self.source = source


class SignupRateLimitedError(NewsletterError):
    def __init__(self, retry_after_s: int, email: str, language: str, source: str) -> None:
        super().__init__("rate_limited")
        self.retry_after_s = retry_after_s
        self.email = email
        self.language = language
        self.source = source


class TokenInvalidError(NewsletterError):
    """A confirmation or unsubscribe link that does not work: `reason` is unknown, expired or used."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class MailUnavailableError(NewsletterError):
    """The mail could not be handed to the transport (SMTP down, outbox not writable); nothing was lost."""


class IssueChangedError(NewsletterError):
    """An issue with this id was already sent with other content."""


class SendStoppedError(NewsletterError):
    """The send stopped at a transport failure; the next run resumes where this one stopped."""

    def __init__(self, message: str, sent: int) -> None:
        super().__init__(message)
        self.sent = sent
