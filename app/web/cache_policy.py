"""Who may keep a response, and for how long: every `Cache-Control` value the site sends, by name.

A response says which policy it follows (`headers(NO_STORE)`, `Representation.build(..., SHARED_PAGE)`), never
the value itself, so that one reading of this module tells what any cache between us and the learner may do;
tests/unit/test_architecture.py holds the rest of app/web to it.

- Pages that are the same bytes for everyone (chapters, lab, glossary, search, errors) are `SHARED_PAGE`: five
  minutes fresh, then served stale for a day while a proxy fetches the new copy.
- Per-learner answers (quiz pages and fragments, attempts, forms with what a learner typed, a bad diagram state,
  health) are `NO_STORE`; a per-learner page rendered without a route's own headers is `PRIVATE`.
- Static files under their digest are `IMMUTABLE`; the same file under an old digest is `REVALIDATE`.
- Public data that changes rarely (the simulator's presets and results, certificate artifacts) is `SHARED_DATA`;
  what a revocation or a new key changes is `SHARED_BRIEFLY`.
"""

from __future__ import annotations

from typing import Final

from starlette.responses import Response

from app.web.htmx import VARY

HEADER: Final = "cache-control"

SHARED_PAGE: Final = "public, max-age=300, stale-while-revalidate=86400"
SHARED_DATA: Final = "public, max-age=300"
SHARED_BRIEFLY: Final = "public, max-age=60"
SHARED_LONG: Final = "public, max-age=86400"  # the same bytes for a day, under an address that keeps them
IMMUTABLE: Final = "public, max-age=31536000, immutable"
REVALIDATE: Final = "no-cache"
NO_STORE: Final = "no-store"
PRIVATE: Final = "private, no-store"


def headers(policy: str, *, vary: str | None = None) -> dict[str, str]:
    """The response headers that state `policy` (and `Vary`, when the answer depends on a request header)."""
    return {HEADER: policy} if vary is None else {HEADER: policy, "vary": vary}


def is_shared(policy: str) -> bool:
    """Whether a response under `policy` is the same bytes for everyone (a shared cache may keep it)."""
    return "public" in policy


def apply(response: Response, policy: str) -> None:
    """Sets `policy` on a response a route or dependency already holds."""
    response.headers[HEADER] = policy


# A per-learner answer that is a page or an HTMX fragment depending on HX-Request (see app.web.htmx).
PER_LEARNER: Final = headers(NO_STORE, vary=VARY)
