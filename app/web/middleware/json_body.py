"""JSON request bodies are bounded before anything parses them: at most MAX_BODY_BYTES, nested at most
MAX_DEPTH deep. Python's json module recurses per nesting level, so a 2 KB body of 1,000 brackets raised
RecursionError inside the framework's parser (a 500); here it is a 422 with a message, for every JSON route."""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.datastructures import Headers
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 256 * 1024
MAX_DEPTH = 32


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


class JsonBodyMiddleware:
    def __init__(self, app: ASGIApp, message_for: Callable[[HTTPConnection, str], str]) -> None:
        self.app = app
        self.message_for = message_for  # (request, "too_large" | "too_deep") -> a sentence in its language

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        if "json" not in Headers(scope=scope).get("content-type", "").lower():  # media types ignore case
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                await self._refuse(scope, send, 413, "too_large")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if nesting_depth(body) > MAX_DEPTH:
            await self._refuse(scope, send, 422, "too_deep")
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, send: Send, status: int, reason: str) -> None:
        detail = json.dumps({"detail": self.message_for(HTTPConnection(scope), reason)}, ensure_ascii=False).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(detail)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": detail})
