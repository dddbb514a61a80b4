"""The framework's ceiling: a bare FastAPI app, no middleware, returning prepared bytes from memory.

`uvicorn --factory benchmarks._bare:create` in its own process; BARE_DIR names a folder of `<name>.body` files
with a `<name>.headers` file each (one `name: value` per line, a first line `status: N`). GET /<name> answers
exactly those bytes and headers, so it costs what FastAPI and uvicorn cost and nothing else.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import Response


def create() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    folder = Path(os.environ["BARE_DIR"])
    for body_file in folder.glob("*.body"):
        lines = body_file.with_suffix(".headers").read_text().splitlines()
        status = int(lines[0].split(":", 1)[1])
        headers = dict(line.split(": ", 1) for line in lines[1:] if line)
        app.add_api_route(f"/{body_file.stem}", _answer(Response(body_file.read_bytes(), status, headers)))
    return app


def _answer(response: Response) -> Callable[[], Awaitable[Response]]:
    async def answer() -> Response:
        return response

    return answer
