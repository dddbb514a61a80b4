"""Security on every response, error pages and static files included: only our own host is served, state
changes come only from our own origin, and every response carries the security headers.

- Host: a request for any host but the configured one (BASE_URL, the extra origins, and in development both
  localhost and 127.0.0.1 on the same port) gets 400, so a spoofed Host never reaches a redirect or a page.
- Cross-origin writes (CSRF): a state-changing request is refused when the browser says it comes from another
  site (`Sec-Fetch-Site: cross-site` or `same-site`) or names a foreign `Origin`; a request with neither is a
  non-browser client and passes — the rule of Go's net/http CrossOriginProtection. Together with SameSite=Lax
  cookies this needs no per-page token, so shared pages can be the same bytes for everyone.
- HEAD is answered as GET without the body, wherever GET works.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware.send import on_response_start

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


class SecurityMiddleware:
    def __init__(self, app: ASGIApp, trusted: TrustedOrigins) -> None:
        self.app = app
        self.trusted = trusted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
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
            await _plain(secured, 400, b"Unknown host.")
            return
        if scope["method"] == "HEAD":
            await self.app({**scope, "method": "GET"}, receive, _without_body(secured))
            return
        await self.app(scope, receive, secured)


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
