"""Every request body is bounded before it is read, whatever its Content-Type, and must arrive in time.

The limit is chosen by what the body says it is: a form (urlencoded or multipart) may be FORM_MAX_BYTES (the
largest real one, the certificate claim, is under 1 KB); any other body, JSON, text or none at all,
BODY_MAX_BYTES. A declared Content-Length over the limit is refused before a byte is read; a body without one
(chunked) is read only until it passes the limit. Before this, only bodies that said JSON were bounded: four
200 MB bodies without a Content-Type grew a worker from 241 MB to 1.23 GB before the route refused them.

Starlette's RequestBodyLimitMiddleware (and FastAPI's `max_body_size`, built on it) count only what a route
reads, answer in English plain text from outside our error views, and know neither a per-type limit nor a
read deadline; hence this one.

The whole body must arrive within the read deadline, or the answer is 408: a client that trickles a byte a
second would otherwise hold a worker's request open for as long as it likes. JSON is also bounded in depth:
Python's json module recurses per nesting level, so 2 KB of brackets raised RecursionError inside the framework's
parser (a 500); here it is a 422 with a message, for every JSON route.

A refusal closes the connection (`Connection: close`), so the unread rest of the body is never read either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.formatting import KiB

BODY_MAX_BYTES = 256 * KiB
FORM_MAX_BYTES = 64 * KiB
MAX_DEPTH = 32
BODYLESS_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class Refusal(StrEnum):
    TOO_LARGE = "too_large"
    FORM_TOO_LARGE = "form_too_large"
    TOO_DEEP = "too_deep"
    TOO_SLOW = "too_slow"


STATUS = {Refusal.TOO_LARGE: 413, Refusal.FORM_TOO_LARGE: 413, Refusal.TOO_DEEP: 422, Refusal.TOO_SLOW: 408}

# (request, status, reason) -> the answer in the request's language (JSON under /api/, else a page)
Refuse = Callable[[Request, int, Refusal], Response]


def nesting_depth(body: bytes) -> int:
    """The deepest nesting of arrays and objects, counted without parsing (brackets inside strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


@dataclass(frozen=True, slots=True)
class _Kind:
    max_bytes: int
    too_large: Refusal
    json: bool


def _kind(headers: Headers) -> _Kind:
    content_type = headers.get("content-type", "").strip().lower()  # media types ignore case
    if content_type.startswith(_FORM_TYPES):
        return _Kind(FORM_MAX_BYTES, Refusal.FORM_TOO_LARGE, json=False)
    return _Kind(BODY_MAX_BYTES, Refusal.TOO_LARGE, json="json" in content_type)


class _RefusedError(Exception):
    def __init__(self, reason: Refusal) -> None:
        self.reason = reason


class _DisconnectedError(Exception):
    pass


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, refuse: Refuse, read_timeout_s: float) -> None:
        self.app = app
        self.refuse = refuse
        self.read_timeout_s = read_timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in BODYLESS_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        kind = _kind(headers)
        try:
            declared = _declared_length(headers)
            if declared is not None and declared > kind.max_bytes:
                raise _RefusedError(kind.too_large)
            try:
                async with asyncio.timeout(self.read_timeout_s):
                    body = await _read(receive, kind)
            except TimeoutError:
                raise _RefusedError(Refusal.TOO_SLOW) from None
            if kind.json and nesting_depth(body) > MAX_DEPTH:
                raise _RefusedError(Refusal.TOO_DEEP)
        except _RefusedError as refused:
            response = self.refuse(Request(scope), STATUS[refused.reason], refused.reason)
            response.headers["connection"] = "close"
            await response(scope, receive, send)
            return
        except _DisconnectedError:
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _declared_length(headers: Headers) -> int | None:
    value = headers.get("content-length")
    if value is None or not value.strip().isdigit():  # a malformed one never reaches us: the server refuses it
        return None
    return int(value)


async def _read(receive: Receive, kind: _Kind) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise _DisconnectedError
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > kind.max_bytes:
            raise _RefusedError(kind.too_large)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
