"""Shared pages from memory, before any routing: the cheapest answer there is for the pages everyone reads.

A route that answers with a shared Representation (a chapter, the lab, a diagram state) is remembered here under
its request (path, query, whether HTMX asked for a fragment, scheme), together with the headers the inner
middleware added to it (the security headers). The next request for it is answered from here: encoding and
`If-None-Match` negotiated per request, nothing else done. Only such routes' 200s are kept (never a per-learner
page, which is not a Representation), in a bounded LRU.

A route may instead answer `Rechecked` bytes (a certificate's page), naming a fast path registered here when the
app is built: then every request is first put to that fast path (which verifies the certificate again and picks
the bytes for that verdict and language); when it declines, or fails (logged), the request goes through the app
as if nothing were remembered. Answers from here are counted and timed in the metrics like any other, under
their route and their real method.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.remembered import Remembered
from app.web import cache_policy
from app.web.caching import SHARED_STATE, Recheck, Rechecked, Representation
from app.web.htmx import wants_fragment_headers
from app.web.middleware.metrics import RequestMetrics
from app.web.middleware.security import TrustedOrigins

logger = logging.getLogger(__name__)
MAX_ENTRIES = 4096
# Headers the representation brings itself, and the one header no replayed answer may carry (it is someone's).
_NOT_REPLAYED = frozenset(
    {
        b"content-type",
        cache_policy.HEADER.encode(),
        b"etag",
        b"vary",
        b"content-encoding",
        b"content-length",
        b"set-cookie",
    }
)

CacheKey = tuple[str, bytes, bool, str]


@dataclass(frozen=True, slots=True)
class _Entry:
    representation: Representation
    extra_headers: tuple[tuple[bytes, bytes], ...]
    route: str
    recheck: tuple[Recheck, str] | None = None  # the fast path and its argument


class PageCacheMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        trusted: TrustedOrigins,
        metrics: RequestMetrics,
        rechecks: Mapping[str, Recheck] | None = None,
    ) -> None:
        self.app = app
        self.trusted = trusted
        self.metrics = metrics
        self.rechecks = dict(rechecks or {})
        self._entries: Remembered[CacheKey, _Entry] = Remembered(MAX_ENTRIES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        scope.setdefault("state", {})  # one dict for every layer, so the route's mark reaches this one
        headers = Headers(scope=scope)
        key = (scope["path"], scope["query_string"], wants_fragment_headers(headers), scope.get("scheme", "http"))
        entry = self._entries.get(key)
        if entry is not None and self.trusted.allows_host(headers):
            started = time.perf_counter()
            representation = await self._recheck(entry, scope) if entry.recheck else entry.representation
            if representation is not None:
                method = scope["method"]
                start, body = representation.start_and_body(headers, method)
                start["headers"].extend(entry.extra_headers)  # type: ignore[attr-defined]
                await send(start)
                await send({"type": "http.response.body", "body": body})
                self.metrics.requests.labels(entry.route, method, str(start["status"])).inc()
                self.metrics.latency.labels(entry.route, method).observe(time.perf_counter() - started)
                return

        async def remember(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                shared = scope.get("state", {}).get(SHARED_STATE)
                if isinstance(shared, Representation | Rechecked):
                    extra = tuple(header for header in message["headers"] if header[0] not in _NOT_REPLAYED)
                    route = getattr(scope.get("route"), "path", None) or "unmatched"
                    if isinstance(shared, Rechecked):
                        fast_path = (self.rechecks[shared.recheck], shared.argument)
                        self._entries.put(key, _Entry(shared.representation, extra, route, fast_path))
                    else:
                        self._entries.put(key, _Entry(shared, extra, route))
            await send(message)

        await self.app(scope, receive, remember)

    @staticmethod
    async def _recheck(entry: _Entry, scope: Scope) -> Representation | None:
        assert entry.recheck is not None
        recheck, argument = entry.recheck
        try:
            return await recheck(HTTPConnection(scope), argument)
        except Exception:  # the app answers instead (and reports its own failure, if it fails too)
            logger.exception("the page cache's fast path for %s failed; the app answers", entry.route)
            return None


async def warm(app: ASGIApp, base_url: str, paths: list[str]) -> None:
    """Ask the app for each shared page once, through every middleware, so that most first visitors are answered
    from memory too (a chapter's first render takes tens of milliseconds). Run in the background after start-up."""
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
        await asyncio.sleep(0)  # one page at a time, so the requests that arrive meanwhile are answered between
