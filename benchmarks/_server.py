"""A real uvicorn serving an app in a background thread, for benchmarks that compare endpoints side by side."""

from __future__ import annotations

import socket
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import uvicorn
from fastapi import FastAPI


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve(app: FastAPI) -> Iterator[str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


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
        print(f"{figure.name:<34} {figure.median:>13.0f} {min(figure.rounds):>9.0f} {max(figure.rounds):>9.0f} "
              f"{figure.median / base:>16.2f}")
