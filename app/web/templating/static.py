"""Static files from memory under content-hashed URLs, so browsers and CDNs keep them for a year.

`/static/<digest>/<path>` is immutable: a changed file gets a new digest, hence a new URL, in every page that
links it. The unhashed `/static/<path>` still works (tools, old pages during a deploy), revalidated by ETag.
Everything under static/ is read once at start-up (the largest file, Swagger UI's bundle, is 1.5 MB) and
compressed once.
"""

from __future__ import annotations

import hashlib
import mimetypes
from pathlib import Path

from starlette.types import Receive, Scope, Send

from app.web.cache_policy import IMMUTABLE, NO_STORE, REVALIDATE
from app.web.caching import Representation

DIGEST_LENGTH = 12
_TEXT_TYPES = ("text/", "application/javascript", "image/svg+xml", "application/json")
_NOT_FOUND = Representation.build(b"Not found.", "text/plain; charset=utf-8", NO_STORE, status_code=404)


def _media_type(path: Path) -> str:
    guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    if guessed == "text/javascript":
        guessed = "application/javascript"
    return f"{guessed}; charset=utf-8" if guessed.startswith(_TEXT_TYPES) else guessed


class StaticAssets:
    """Every file under `root`, by its path relative to it; an ASGI app serving them."""

    def __init__(self, root: Path) -> None:
        self.digests: dict[str, str] = {}
        self._immutable: dict[str, Representation] = {}
        self._revalidated: dict[str, Representation] = {}
        for file in sorted(root.rglob("*")):
            if not file.is_file():
                continue
            path = file.relative_to(root).as_posix()
            body = file.read_bytes()
            media_type = _media_type(file)
            immutable = Representation.build(body, media_type, IMMUTABLE)
            self.digests[path] = hashlib.sha256(body).hexdigest()[:DIGEST_LENGTH]
            self._immutable[path] = immutable
            self._revalidated[path] = Representation(
                immutable.body, immutable.gzipped, immutable.etag, media_type, REVALIDATE
            )

    def url_path(self, path: str) -> str:
        """`/static/<digest>/<path>`; a file that does not exist is a programming error."""
        return f"/static/{self.digests[path]}/{path}"

    def representation(self, path: str) -> Representation:
        digest, _, rest = path.partition("/")
        if rest and len(digest) == DIGEST_LENGTH:
            if self.digests.get(rest) == digest:
                return self._immutable[rest]
            if rest in self._revalidated:  # an older digest: the current file, but not for keeps
                return self._revalidated[rest]
        return self._revalidated.get(path, _NOT_FOUND)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"].removeprefix(scope.get("root_path", "")).lstrip("/")
        if scope["method"] not in ("GET", "HEAD"):
            await Representation.build(b"Method not allowed.", "text/plain; charset=utf-8", NO_STORE, 405).send(
                scope, send
            )
            return
        await self.representation(path).send(scope, send)
