"""The app as benchmarks serve it: the real one, plus a constant-bytes endpoint to compare against.

`uvicorn --factory benchmarks._app:create` in its own process, configured through the environment like any
deployment. PUT /__benchmark/constant sets the bytes that GET or POST /__benchmark/constant return, so a
benchmark can make the baseline answer exactly what the measured endpoint answered.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, Response

from app.config import Settings
from app.main import create_app
from app.quiz.service import QuizPolicy
from app.ratelimit import Limit


def create() -> FastAPI:
    settings = Settings()
    app = create_app(settings)
    # One benchmark learner sends thousands of answers; the limiter still runs, with limits it never reaches.
    app.state.interconnects.quiz.policy = QuizPolicy(*(Limit(10**9, 60) for _ in range(5)))
    constant = {"body": b""}

    async def constant_bytes() -> HTMLResponse:
        return HTMLResponse(constant["body"])

    async def set_constant(request: Request) -> Response:
        constant["body"] = await request.body()
        return Response(status_code=204)

    app.add_api_route("/__benchmark/constant", constant_bytes, methods=["GET", "POST"], include_in_schema=False)
    app.add_api_route("/__benchmark/constant", set_constant, methods=["PUT"], include_in_schema=False)
    return app
