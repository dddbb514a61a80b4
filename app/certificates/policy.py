"""The limits that guard the certificate pages and the claim step."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.ratelimit import Limit


@dataclass(frozen=True, slots=True)
class CertificatePolicy:
    """Misses (malformed and unknown ids alike) per client address: past the limit further unknown ids are
    refused, known ones keep answering (see `LookupService`); verifications per address; a learner's issues (a
    claim, each name correction) per day."""

    miss_per_client: Limit = field(default_factory=lambda: Limit(30, 600))
    verify_per_client: Limit = field(default_factory=lambda: Limit(120, 60))
    issue_per_learner: Limit = field(default_factory=lambda: Limit(10, 86_400))
