"""The named cache policies (app/web/cache_policy.py): what each lets a cache do, and the headers that state it."""

from __future__ import annotations

from starlette.responses import Response

from app.web import cache_policy
from app.web.cache_policy import (
    IMMUTABLE,
    NO_STORE,
    PER_LEARNER,
    PRIVATE,
    REVALIDATE,
    SHARED_BRIEFLY,
    SHARED_DATA,
    SHARED_PAGE,
    apply,
    headers,
)


def directives(policy: str) -> dict[str, str | None]:
    parsed: dict[str, str | None] = {}
    for part in policy.split(","):
        name, _, value = part.strip().partition("=")
        parsed[name] = value or None
    return parsed


def test_shared_policies_let_any_cache_keep_the_answer_for_a_while() -> None:
    assert directives(SHARED_PAGE) == {"public": None, "max-age": "300", "stale-while-revalidate": "86400"}
    assert directives(SHARED_DATA) == {"public": None, "max-age": "300"}
    assert directives(SHARED_BRIEFLY) == {"public": None, "max-age": "60"}
    assert directives(IMMUTABLE) == {"public": None, "max-age": "31536000", "immutable": None}


def test_per_learner_policies_let_no_cache_keep_it() -> None:
    assert directives(NO_STORE) == {"no-store": None}
    assert directives(PRIVATE) == {"private": None, "no-store": None}
    assert directives(REVALIDATE) == {"no-cache": None}  # kept, but asked again before every use


def test_headers_state_the_policy_and_vary_only_when_asked() -> None:
    assert headers(SHARED_DATA) == {"cache-control": "public, max-age=300"}
    assert headers(NO_STORE, vary="HX-Request") == {"cache-control": "no-store", "vary": "HX-Request"}
    assert PER_LEARNER == {"cache-control": "no-store", "vary": "HX-Request"}


def test_apply_replaces_what_a_response_had() -> None:
    response = Response(b"", headers={"cache-control": SHARED_PAGE})
    apply(response, NO_STORE)
    assert response.headers.getlist("cache-control") == ["no-store"]
    assert cache_policy.HEADER == "cache-control"
