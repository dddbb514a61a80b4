"""Domain errors of the certificate service; app/web/exceptions.py maps each to HTTP once."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.certificates.readmodels import Claim


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
    """The name (or e-mail) cannot go on a certificate; `code` says why, `name` is what was sent (for the form).

    Refused in a learner's claim, it carries the claim step (`claim`) the form is shown again with."""

    def __init__(self, code: str, name: str, email: str | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.name = name
        self.email = email
        self.claim: Claim | None = None


class CertificateRateLimitedError(CertificateError):
    def __init__(self, retry_after_s: int) -> None:
        super().__init__("rate_limited")
        self.retry_after_s = retry_after_s


class ArtifactUnavailableError(CertificateError):
    """A derived file (PDF, preview image, badge PNG) cannot be made here: the fonts or the libcairo it needs
    are not installed."""
