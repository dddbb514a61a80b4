"""Prometheus metrics: request count and latency by route template (never by raw path, which would let any
visitor create unbounded label values)."""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.web.middleware.base import HttpMiddleware


class RequestMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "http_requests_total",
            "HTTP requests by route template, method and status.",
            ["route", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "http_request_duration_seconds",
            "Time to the end of the response body, by route template.",
            ["route", "method"],
            registry=self.registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
        )
        self.in_progress = Gauge(
            "http_requests_in_progress",
            "Requests being handled now, by method (a request waiting for a database lock counts here).",
            ["method"],
            registry=self.registry,
        )


class MetricsMiddleware(HttpMiddleware):
    def __init__(self, app: ASGIApp, metrics: RequestMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        status_code = 500

        async def record_status(message: Message) -> None:
            nonlocal status_code
            if message["type"] == "http.response.start":
                status_code = message["status"]
            await send(message)

        in_progress = self.metrics.in_progress.labels(scope["method"])
        in_progress.inc()
        try:
            await self.app(scope, receive, record_status)
        finally:
            in_progress.dec()
            route = scope.get("route")
            template = getattr(route, "path", None) or "unmatched"
            method = scope["method"]
            self.metrics.requests.labels(template, method, str(status_code)).inc()
            self.metrics.latency.labels(template, method).observe(time.perf_counter() - started)
