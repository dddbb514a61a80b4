"""The ceiling for /c/{ID} with its database read: a bare FastAPI app, no middleware, that reads the certificate's
row and the byte of its status entry in one indexed statement on the same database, through the same database
layer (app.db: on SQLite the read runs on the event loop when no writer holds the lock, as the app's does), and
returns the bytes the real page returned (recorded in BARE_DIR like benchmarks/_bare.py's).

`uvicorn --factory benchmarks.certificates_bare:create`, configured through the environment like the app (VAR_DIR,
DATABASE_URL). GET /<recorded name>/<certificate id> answers 404 for an id the database does not have.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import Response
from sqlalchemy import Connection, bindparam, func, select

from app.certificates.models import Certificate, StatusList
from app.config import Settings
from app.db import Database

_LIST = StatusList.__table__.alias("status_list")
# What the page's fast path reads: the row (its stored bytes) and the byte of its status entry, in one statement.
READ = select(
    *Certificate.__table__.columns,
    select(func.substr(_LIST.c.bits, Certificate.status_index // 8 + 1, 1))
    .where(_LIST.c.number == Certificate.status_list)
    .scalar_subquery()
    .label("status_byte"),
).where(Certificate.id == bindparam("id"))
NOT_FOUND = Response(status_code=404)


def create() -> FastAPI:
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
    database = Database.from_url(Settings().sqlalchemy_url)
    folder = Path(os.environ["BARE_DIR"])
    for body_file in folder.glob("*.body"):
        lines = body_file.with_suffix(".headers").read_text().splitlines()
        status = int(lines[0].split(":", 1)[1])
        headers = dict(line.split(": ", 1) for line in lines[1:] if line)
        response = Response(body_file.read_bytes(), status, headers)
        app.add_api_route(f"/{body_file.stem}/{{certificate_id}}", _answer(database, response))
    return app


def _answer(database: Database, response: Response) -> Callable[[str], Awaitable[Response]]:
    async def answer(certificate_id: str) -> Response:
        def read(connection: Connection) -> bool:
            return connection.execute(READ, {"id": certificate_id}).first() is not None

        return response if await database.read(read) else NOT_FOUND

    return answer
