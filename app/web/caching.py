"""Responses any cache can keep: the same bytes for everyone, compressed once, with a strong ETag.

A `Representation` is built once (at start-up for shared pages and static files, on first request for a diagram
state) and answers every request from memory: gzip when the client accepts it, `304 Not Modified` when the
client's `If-None-Match` names it, headers only for `HEAD`. The gzip variant has an ETag of its own (`"…-gz"`),
as RFC 9110 §8.8.3 asks of different content codings, and `Vary: Accept-Encoding` tells caches to keep both.
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from app.web import cache_policy

MIN_COMPRESSED_BYTES = 512
_CACHE_CONTROL = cache_policy.HEADER.encode("latin-1")


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether `gzip` is acceptable (RFC 9110 §12.5.3; `gzip;q=0` refuses it)."""
    for item in accept_encoding.split(","):
        coding, _, parameters = item.strip().partition(";")
        if coding.strip().lower() in ("gzip", "x-gzip", "*"):
            quality = parameters.strip().removeprefix("q=").strip()
            return quality in ("", "1", "1.0") or (quality.replace(".", "", 1).isdigit() and float(quality) > 0)
    return False


def _etag_matches(if_none_match: str, etags: Iterable[str]) -> bool:
    if if_none_match.strip() == "*":
        return True
    offered = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return any(etag in offered for etag in etags)


@dataclass(frozen=True, slots=True)
class Representation:
    body: bytes
    gzipped: bytes | None
    etag: str
    media_type: str
    cache_control: str  # one of app.web.cache_policy's policies
    status_code: int = 200
    headers: tuple[tuple[bytes, bytes], ...] = ()

    @classmethod
    def build(
        cls,
        body: bytes,
        media_type: str,
        cache_control: str,
        status_code: int = 200,
        headers: Iterable[tuple[str, str]] = (),
    ) -> Representation:
        compressed = gzip.compress(body, compresslevel=9, mtime=0) if len(body) >= MIN_COMPRESSED_BYTES else None
        if compressed is not None and len(compressed) >= len(body):
            compressed = None
        digest = hashlib.sha256(body).hexdigest()[:20]
        return cls(
            body=body,
            gzipped=compressed,
            etag=f'"{digest}"',
            media_type=media_type,
            cache_control=cache_control,
            status_code=status_code,
            headers=tuple((name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers),
        )

    def start_and_body(self, request_headers: Headers, method: str) -> tuple[dict[str, object], bytes]:
        """The `http.response.start` message and the body for a request with these headers."""
        use_gzip = self.gzipped is not None and accepts_gzip(request_headers.get("accept-encoding", ""))
        etag = f'{self.etag[:-1]}-gz"' if use_gzip else self.etag
        body = self.gzipped if use_gzip and self.gzipped is not None else self.body
        headers = [
            (b"content-type", self.media_type.encode("latin-1")),
            (_CACHE_CONTROL, self.cache_control.encode("latin-1")),
            (b"etag", etag.encode("latin-1")),
            *self.headers,
        ]
        if self.gzipped is not None:
            headers.append((b"vary", b"Accept-Encoding"))
        if use_gzip:
            headers.append((b"content-encoding", b"gzip"))
        status = self.status_code
        if_none_match = request_headers.get("if-none-match")
        if status == 200 and if_none_match is not None and _etag_matches(if_none_match, (self.etag, etag)):
            status, body = 304, b""
            headers = [header for header in headers if header[0] != b"content-type"]
        else:
            headers.append((b"content-length", str(len(body)).encode("latin-1")))
        if method == "HEAD":
            body = b""
        return {"type": "http.response.start", "status": status, "headers": headers}, body

    async def send(self, scope: Scope, send: Send) -> None:
        start, body = self.start_and_body(Headers(scope=scope), scope["method"])
        await send(start)
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A Representation is also an ASGI app (what a route returns as its response)."""
        await self.send(scope, send)


SHARED_STATE = "shared_representation"  # where a response tells the page cache in front what it may replay
# A fast path the page cache may take for a remembered page: (the request, the argument the page was marked with)
# -> the representation to send, or None to let the app answer in full. Registered by name when the app is built.
Recheck = Callable[[HTTPConnection, str], Awaitable["Representation | None"]]


@dataclass(frozen=True, slots=True)
class Rechecked:
    """Bytes the page cache may replay only after asking the fast path registered as `recheck` (with
    `argument`, e.g. the certificate id) for this request: a page whose verdict must be established every time (a
    certificate's signature) but whose bytes, once it is, are in memory."""

    representation: Representation
    recheck: str
    argument: str


class RepresentationResponse(Response):
    """A route's answer served from a prepared Representation (negotiated per request, never re-encoded)."""

    def __init__(self, representation: Representation) -> None:
        super().__init__(status_code=representation.status_code)
        self.representation = representation

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # Marks the response as shared, so that the page cache in front may keep and replay it.
        scope.setdefault("state", {})[SHARED_STATE] = self.representation
        await self.representation.send(scope, send)


class RecheckedResponse(Response):
    """A route's answer from a prepared Representation that the page cache may replay after the fast path
    registered as `recheck` has agreed, for that request."""

    def __init__(self, representation: Representation, recheck: str, argument: str) -> None:
        super().__init__(status_code=representation.status_code)
        self.rechecked = Rechecked(representation, recheck, argument)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope.setdefault("state", {})[SHARED_STATE] = self.rechecked
        await self.rechecked.representation.send(scope, send)
