"""When a timed attempt ends, on the learner's clock.

The server enforces the time limit (an answer after `deadline_at` closes the attempt); this only says when that
is. A page without JavaScript cannot ask the browser for its time zone, so the end time is printed in the zone
the learner's browser reported earlier (quiz.js keeps it in the `tz` cookie), or in UTC, labelled as such.
The time left is counted on the server, so a wrong clock on the learner's device cannot shift the countdown.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ZONE_COOKIE = "tz"
# IANA names ("Asia/Seoul", "America/Argentina/Buenos_Aires", "Etc/GMT+9"): nothing else reaches the tz database.
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9][A-Za-z0-9_+-]*){0,2}")
_MAX_ZONE_NAME = 64


def zone_named(name: str | None) -> ZoneInfo | None:
    """The IANA time zone `name`, or None for anything else (or when the system has no time zone data)."""
    if not name or len(name) > _MAX_ZONE_NAME or not _ZONE_NAME.fullmatch(name):
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


@dataclass(frozen=True, slots=True)
class Deadline:
    ends_at: datetime  # UTC
    seconds_left: int  # at the moment the page was made, never negative
    zone: ZoneInfo | None  # the learner's, when known; None: shown in UTC

    @property
    def local(self) -> datetime:
        return self.ends_at.astimezone(self.zone or UTC)

    @property
    def zone_name(self) -> str | None:
        return self.zone.key if self.zone is not None else None

    @property
    def minutes_left(self) -> int:
        return math.ceil(self.seconds_left / 60)


def deadline(ends_at: datetime | None, now: datetime, zone_name: str | None) -> Deadline | None:
    """The deadline of an attempt that has one (`ends_at`: its deadline_at), seen at `now`."""
    if ends_at is None:
        return None
    seconds_left = max(0, math.ceil((ends_at - now).total_seconds()))
    return Deadline(ends_at.astimezone(UTC), seconds_left, zone_named(zone_name))
