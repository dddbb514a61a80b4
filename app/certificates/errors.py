"""Domain errors of the certificate service; app/web/exceptions.py maps each to HTTP once."""

from __future__ import annotations


class CertificateError(Exception):
    pass


class CertificateNotFoundError(CertificateError):
    """No certificate with that id, or not an id at all: the two are answered alike on purpose."""


class StatusListNotFoundError(CertificateError):
    pass


class NotEligibleError(CertificateError):
    """The learner has not passed the final exam (`reason`: "not_passed", or "no_exam" when the course has none)."""

    def __init__(self, reason: str = "not_passed") -> None:
        super().__init__(reason)
        self.reason = reason


class InvalidNameError(CertificateError):
    """The name (or e-mail) cannot go on a certificate; `code` says why, `name` is what was sent (for the form)."""

    def __init__(self, code: str, name: str, email: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.name = name
        self.email = email


class CertificateRateLimitedError(CertificateError):
    def __init__(self, retry_after_s: int) -> None:
        super().__init__("rate_limited")
        self.retry_after_s = retry_after_s


class ArtifactUnavailableError(CertificateError):
    """A derived file (PDF, preview image) cannot be made here: the fonts it needs are not installed."""
