"""What a service needs to know about the request it serves, without knowing HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class RequestContext:
    learner_id: str  # the anonymous learner of the signed cookie (minted for a new visitor)
    returning: bool  # the learner id came with the request (a new visitor has no records: skip the reads)
    language: str  # "en" or "ko": the language of every message the service returns
    client: str  # the client's address, for per-address rate limits
    now: datetime  # timezone-aware UTC; one instant for the whole request
