"""The prologue the middleware share: an HTTP request is theirs to handle, any other scope (lifespan, websocket)
goes through untouched."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpMiddleware:
    app: ASGIApp

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.handle(scope, receive, send)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The middleware's work on an HTTP request."""
        raise NotImplementedError
