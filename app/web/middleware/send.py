"""The one send-wrapper the middleware share: run a hook on the response's start message before it goes out."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import Message, Send


def on_response_start(send: Send, hook: Callable[[Message], None]) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            hook(message)
        await send(message)

    return wrapped
