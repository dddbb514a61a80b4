"""Shared pages from memory, before any routing: the cheapest answer there is for the pages everyone reads.

A route that answers with a shared Representation (a chapter, the lab, a diagram state) is remembered here under
its request (path, query, whether HTMX asked for a fragment, scheme), together with the headers the inner
middleware added to it (the security headers). The next request for it is answered from here: encoding and
`If-None-Match` negotiated per request, nothing else done. Only such routes' 200s are kept (never a per-learner
page, which is not a Representation), in a bounded LRU.

A route may instead answer `Rechecked` bytes (a certificate's page): then every request is first put to its
`recheck` (which verifies the certificate again and picks the bytes for that verdict and language); when it
declines, or fails, the request goes through the app as if nothing were remembered.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.caching import SHARED_STATE, Recheck, Rechecked, Representation
from app.web.htmx import wants_fragment_headers
from app.web.middleware.metrics import RequestMetrics
from app.web.middleware.security import TrustedOrigins

MAX_ENTRIES = 4096
# Headers the representation brings itself, and the one header no replayed answer may carry (it is someone's).
_NOT_REPLAYED = frozenset(
    {b"content-type", b"cache-control", b"etag", b"vary", b"content-encoding", b"content-length", b"set-cookie"}
)

CacheKey = tuple[str, bytes, bool, str]


@dataclass(frozen=True, slots=True)
class _Entry:
    representation: Representation
    extra_headers: tuple[tuple[bytes, bytes], ...]
    route: str
    recheck: Recheck | None = None


class PageCacheMiddleware:
    def __init__(self, app: ASGIApp, trusted: TrustedOrigins, metrics: RequestMetrics) -> None:
        self.app = app
        self.trusted = trusted
        self.metrics = metrics
        self._entries: OrderedDict[CacheKey, _Entry] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})  # one dict for every layer, so the route's mark reaches this one
        headers = Headers(scope=scope)
        key = (scope["path"], scope["query_string"], wants_fragment_headers(headers), scope.get("scheme", "http"))
        entry = self._entries.get(key)
        if entry is not None and self.trusted.allows_host(headers):
            representation = await self._recheck(entry, scope) if entry.recheck else entry.representation
            if representation is not None:
                start, body = representation.start_and_body(headers, scope["method"])
                start["headers"].extend(entry.extra_headers)  # type: ignore[attr-defined]
                await send(start)
                await send({"type": "http.response.body", "body": body})
                self.metrics.requests.labels(entry.route, "GET", str(start["status"])).inc()
                return

        async def remember(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                shared = scope.get("state", {}).get(SHARED_STATE)
                if isinstance(shared, Representation | Rechecked):
                    extra = tuple(header for header in message["headers"] if header[0] not in _NOT_REPLAYED)
                    route = getattr(scope.get("route"), "path", None) or "unmatched"
                    if isinstance(shared, Rechecked):
                        self._entries[key] = _Entry(shared.representation, extra, route, shared.recheck)
                    else:
                        self._entries[key] = _Entry(shared, extra, route)
                    if len(self._entries) > MAX_ENTRIES:
                        self._entries.popitem(last=False)
            await send(message)

        await self.app(scope, receive, remember)

    @staticmethod
    async def _recheck(entry: _Entry, scope: Scope) -> Representation | None:
        assert entry.recheck is not None
        try:
            return await entry.recheck(HTTPConnection(scope))
        except Exception:  # the app answers instead, and reports the failure as it does any other
            return None


async def warm(app: ASGIApp, base_url: str, paths: list[str]) -> None:
    """Ask the app for each shared page once, through every middleware, so the first visitor's request is
    answered from memory too (a chapter's first render takes tens of milliseconds)."""
    parts = urlsplit(base_url)
    host = parts.netloc.encode("latin-1")
    for path in paths:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": parts.scheme,
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", host), (b"accept-encoding", b"gzip")],
            "client": ("127.0.0.1", 0),
            "server": (parts.hostname or "127.0.0.1", parts.port or 80),
        }

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(_message: Message) -> None:
            return None

        await app(scope, receive, discard)
