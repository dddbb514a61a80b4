"""The anonymous learner: a random id in a signed, HttpOnly, SameSite=Lax cookie.

The id is minted only when a route asks for it, so static files and health checks never set cookies. Over
https the cookie carries the `__Host-` prefix, which browsers accept only with Secure, Path=/ and no Domain:
a sibling subdomain then cannot plant a learner id.
"""

from __future__ import annotations

import secrets
from http.cookies import SimpleCookie

from itsdangerous import BadSignature, URLSafeSerializer
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE_NAME = "learner"
SECURE_COOKIE_NAME = "__Host-learner"
COOKIE_MAX_AGE_S = 400 * 24 * 3600  # the longest lifetime browsers honour (RFC 6265bis)


class LearnerIdentity:
    def __init__(self, signer: URLSafeSerializer, cookie_value: str | None) -> None:
        self._signer = signer
        self._learner_id: str | None = None
        self.minted = False
        if cookie_value:
            try:
                loaded = signer.loads(cookie_value)
            except BadSignature:
                loaded = None
            if isinstance(loaded, str) and len(loaded) == 32:
                self._learner_id = loaded

    @property
    def learner_id(self) -> str:
        if self._learner_id is None:
            self._learner_id = secrets.token_hex(16)
            self.minted = True
        return self._learner_id

    def cookie_value(self) -> str:
        return self._signer.dumps(self.learner_id)


class LearnerIdentityMiddleware:
    def __init__(self, app: ASGIApp, secret_key: str) -> None:
        self.app = app
        self.signer = URLSafeSerializer(secret_key, salt="learner-id")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        secure = scope.get("scheme") == "https"
        name = SECURE_COOKIE_NAME if secure else COOKIE_NAME
        identity = LearnerIdentity(self.signer, HTTPConnection(scope).cookies.get(name))
        scope.setdefault("state", {})["identity"] = identity

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and identity.minted:
                cookie: SimpleCookie = SimpleCookie()
                cookie[name] = identity.cookie_value()
                morsel = cookie[name]
                morsel["path"] = "/"
                morsel["max-age"] = COOKIE_MAX_AGE_S
                morsel["httponly"] = True
                morsel["samesite"] = "Lax"
                if secure:
                    morsel["secure"] = True
                MutableHeaders(scope=message).append("set-cookie", morsel.OutputString())
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def learner_identity(connection: HTTPConnection) -> LearnerIdentity:
    identity = connection.scope.get("state", {}).get("identity")
    if not isinstance(identity, LearnerIdentity):
        raise RuntimeError("LearnerIdentityMiddleware is not installed")
    return identity
