"""Security on every response, error pages and static files included: only our own host is served, state
changes come only from our own origin, and every response carries the security headers.

- Host: a request for any host but the configured one (BASE_URL, the extra origins, and in development both
  localhost and 127.0.0.1 on the same port) gets 400, so a spoofed Host never reaches a redirect or a page. The
  400 names the setting, for the newcomer who opened the site under another address.
- Cross-origin writes (CSRF): a state-changing request is refused when the browser says it comes from another
  site (`Sec-Fetch-Site: cross-site` or `same-site`) or names a foreign `Origin`; a request with neither is a
  non-browser client and passes — the rule of Go's net/http CrossOriginProtection. Together with SameSite=Lax
  cookies this needs no per-page token, so shared pages can be the same bytes for everyone. The check is here,
  for every path and method before routing and before the body is read, so a route added tomorrow is covered
  without declaring anything; a route that must take cross-site posts says so with `@allow_cross_site`.
- HEAD is answered as GET without the body, wherever GET works.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware.base import HttpMiddleware
from app.web.middleware.send import on_response_start
from app.web.templating.urls import named_routes

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)
BASELINE_HEADERS: dict[str, str] = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=(), browsing-topics=()",
    "x-frame-options": "DENY",
}
HSTS = "max-age=63072000; includeSubDomains"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_FOREIGN_FETCH_SITES = frozenset({"cross-site", "same-site"})
_LOOPBACK_NAMES = ("localhost", "127.0.0.1")
CROSS_SITE_ALLOWED = "_interconnects_cross_site_allowed"

EndpointT = TypeVar("EndpointT", bound=Callable[..., Any])


def allow_cross_site(endpoint: EndpointT) -> EndpointT:
    """Mark a route whose state change needs no proof of origin (its URL carries the authority, as a one-click
    unsubscribe token does). The only way out of the cross-origin check, and a test lists who uses it."""
    setattr(endpoint, CROSS_SITE_ALLOWED, True)
    return endpoint


def cross_site_routes(routes: Iterable[BaseRoute]) -> tuple[BaseRoute, ...]:
    """The routes marked `@allow_cross_site`, from every router included in the app."""
    return tuple(
        route
        for _, route in named_routes(routes)
        if getattr(getattr(route, "endpoint", None), CROSS_SITE_ALLOWED, False)
    )


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


@dataclass(frozen=True, slots=True)
class TrustedOrigins:
    origins: frozenset[str]
    hosts: frozenset[str]

    @classmethod
    def build(cls, base_url: str, extra_origins: Iterable[str], development: bool) -> TrustedOrigins:
        origins = {_origin(base_url), *(_origin(extra) for extra in extra_origins)}
        if development:  # the README's address and the one people type both open
            for origin in list(origins):
                parts = urlsplit(origin)
                if parts.hostname in _LOOPBACK_NAMES:
                    port = f":{parts.port}" if parts.port else ""
                    origins |= {f"{parts.scheme}://{name}{port}" for name in _LOOPBACK_NAMES}
        return cls(frozenset(origins), frozenset(urlsplit(origin).netloc for origin in origins))

    def allows_host(self, headers: Headers) -> bool:
        return headers.get("host", "").lower() in self.hosts

    def is_cross_origin(self, method: str, headers: Headers) -> bool:
        if method in SAFE_METHODS:
            return False
        if headers.get("sec-fetch-site") in _FOREIGN_FETCH_SITES:
            return True
        origin = headers.get("origin")
        return origin is not None and origin.lower() not in self.origins


class SecurityMiddleware(HttpMiddleware):
    def __init__(
        self,
        app: ASGIApp,
        trusted: TrustedOrigins,
        refuse: Callable[[Request], Response],
        unknown_host: Callable[[HTTPConnection], str],
        cross_site_allowed: Sequence[BaseRoute] = (),
    ) -> None:
        self.app = app
        self.trusted = trusted
        self.refuse = refuse  # the 403 in the request's language (JSON under /api/, else a page)
        self.unknown_host = unknown_host
        self.cross_site_allowed = cross_site_allowed

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        https = scope.get("scheme") == "https"

        def add_headers(message: Message) -> None:
            headers = MutableHeaders(scope=message)
            for name, value in BASELINE_HEADERS.items():
                if name not in headers:
                    headers[name] = value
            if https:
                headers["strict-transport-security"] = HSTS

        secured = on_response_start(send, add_headers)
        headers = Headers(scope=scope)
        if not self.trusted.allows_host(headers):
            await _plain(secured, 400, self.unknown_host(HTTPConnection(scope)).encode())
            return
        if self.trusted.is_cross_origin(scope["method"], headers) and not self._allowed_cross_site(scope):
            await self.refuse(Request(scope))(scope, receive, secured)
            return
        if scope["method"] == "HEAD":
            await self.app({**scope, "method": "GET"}, receive, _without_body(secured))
            return
        await self.app(scope, receive, secured)

    def _allowed_cross_site(self, scope: Scope) -> bool:
        return any(route.matches(scope)[0] is Match.FULL for route in self.cross_site_allowed)


def _without_body(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b""}
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
