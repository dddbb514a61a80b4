"""The anonymous learner: a random id in a signed, HttpOnly, SameSite=Lax cookie.

The id is minted only when a route asks for it (`LearnerIdentity.learner_id`), so shared pages, static files
and health checks never set cookies.
"""

from __future__ import annotations

import secrets

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.cookies import cookie_name, set_cookie_header
from app.web.middleware.base import HttpMiddleware
from app.web.middleware.send import on_response_start

COOKIE = "learner"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # the longest lifetime browsers honour (RFC 6265bis)
LEARNER_ID_HEX = 32


class LearnerIdentity:
    def __init__(self, signer: URLSafeSerializer, cookie_value: str | None) -> None:
        self._signer = signer
        self.known_id: str | None = None  # from a valid cookie
        self._minted: str | None = None
        if cookie_value:
            try:
                loaded = signer.loads(cookie_value)
            except BadSignature:
                loaded = None
            if isinstance(loaded, str) and len(loaded) == LEARNER_ID_HEX:
                self.known_id = loaded

    @property
    def learner_id(self) -> str:
        if self.known_id is not None:
            return self.known_id
        if self._minted is None:
            self._minted = secrets.token_hex(LEARNER_ID_HEX // 2)
        return self._minted

    @property
    def minted(self) -> bool:
        return self._minted is not None

    def cookie_value(self) -> str:
        return self._signer.dumps(self.learner_id)


class LearnerIdentityMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, secret_key: str) -> None:
        self.app = app
        self.signer = URLSafeSerializer(secret_key, salt="learner-id")

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        secure = scope.get("scheme") == "https"
        identity = LearnerIdentity(self.signer, HTTPConnection(scope).cookies.get(cookie_name(COOKIE, secure)))
        scope.setdefault("state", {})["identity"] = identity

        def add_cookie(message: Message) -> None:
            if identity.minted:
                MutableHeaders(scope=message).append(
                    "set-cookie", set_cookie_header(COOKIE, identity.cookie_value(), COOKIE_MAX_AGE_S, secure).decode()
                )

        await self.app(scope, receive, on_response_start(send, add_cookie))


def learner_identity(connection: HTTPConnection) -> LearnerIdentity:
    identity = connection.scope.get("state", {}).get("identity")
    if not isinstance(identity, LearnerIdentity):
        raise RuntimeError("LearnerIdentityMiddleware is not installed")
    return identity
