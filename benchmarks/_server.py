"""Serve the app in its own uvicorn process and compare endpoints side by side, alternating round by round.

The server runs in a separate process, as in any deployment: a server thread inside the benchmark process would
share the client's GIL, and routes that hand work to a thread pool would pay for three threads taking turns
instead of two.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve(database_url: str | None = None) -> Iterator[str]:
    """The app (with the benchmark endpoint) under uvicorn in a child process; yields its base URL."""
    with serve_process(database_url=database_url) as base_url:
        yield base_url


@contextmanager
def serve_process(workers: int = 1, database_url: str | None = None) -> Iterator[str]:
    """The app (with the benchmark endpoint) under uvicorn with `workers` processes; yields its base URL."""
    with tempfile.TemporaryDirectory() as var_dir:
        port = free_port()
        environment = os.environ | {
            "ENV": "development",  # as deployed: shared pages are rendered at start-up
            "VAR_DIR": var_dir,
            "SECRET_KEY": "b" * 40,
            "BASE_URL": f"http://127.0.0.1:{port}",
            "LOG_LEVEL": "WARNING",
        }
        environment.pop("DATABASE_URL", None)
        if database_url:
            environment["DATABASE_URL"] = database_url
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "--factory",
                "benchmarks._app:create",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
                "--no-access-log",
                "--workers",
                str(workers),
            ],
            cwd=PROJECT_ROOT,
            env=environment,
        )
        base_url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the benchmark server did not start")
                time.sleep(0.1)
            yield base_url
        finally:
            process.terminate()
            process.wait(timeout=10)


def set_constant(client: httpx.Client, body: bytes) -> None:
    client.put("/__benchmark/constant", content=body).raise_for_status()


@dataclass(frozen=True)
class Figures:
    name: str
    rounds: list[float]  # requests per second, one per round

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)


def compare_in_turns(
    client: httpx.Client,
    requests: dict[str, Callable[[httpx.Client], httpx.Response]],
    rounds: int = 12,
    per_round: int = 300,
) -> list[Figures]:
    """Alternate the endpoints round by round, so machine noise hits each of them alike."""
    results: dict[str, list[float]] = {name: [] for name in requests}
    for send in requests.values():  # warm-up
        for _ in range(50):
            send(client).raise_for_status()
    for round_index in range(rounds):
        order = list(requests.items())
        if round_index % 2:
            order.reverse()
        for name, send in order:
            started = time.perf_counter()
            for _ in range(per_round):
                send(client)
            results[name].append(per_round / (time.perf_counter() - started))
    return [Figures(name, values) for name, values in results.items()]


def print_figures(figures: list[Figures], baseline: str) -> None:
    base = next(f for f in figures if f.name == baseline).median
    print(f"{'endpoint':<34} {'median req/s':>13} {'min':>9} {'max':>9} {'vs ' + baseline:>16}")
    for figure in figures:
        print(
            f"{figure.name:<34} {figure.median:>13.0f} {min(figure.rounds):>9.0f} {max(figure.rounds):>9.0f} "
            f"{figure.median / base:>16.2f}"
        )
