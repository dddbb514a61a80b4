"""`interconnects serve` as a newcomer and an operator meet it, as real processes: it answers on the port it was
given without BASE_URL, refuses to start without the front-end assets, and its worker supervisor waits for a busy
worker instead of killing it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from app.cli import WORKER_HEALTHCHECK_TIMEOUT_S
from tests.servers import PROJECT_ROOT, START_TIMEOUT_S, free_port, started

SERVE = [sys.executable, "-m", "app.cli", "serve"]
# A liveness bound, not a speed: the supervisor finds a dead worker at once, unless it is waiting out the other
# worker's health check (at most its timeout), and the replacement is a process as soon as it is spawned.
REPLACED_WITHIN_S = WORKER_HEALTHCHECK_TIMEOUT_S + START_TIMEOUT_S
# Five times uvicorn's own health-check timeout (5 s): with that timeout, a worker that could not answer for this
# long was killed. (With 10 s, workers being spawned on this saturated 2-core machine were killed in a loop.)
BUSY_S = 25


def _environment(var_dir: Path, **extra: str) -> dict[str, str]:
    env = os.environ | {"ENV": "development", "VAR_DIR": str(var_dir)} | extra
    for name in ("BASE_URL", "DATABASE_URL", "EXTRA_ORIGINS"):
        if name not in extra:
            env.pop(name, None)
    return env


@contextmanager
def serving(var_dir: Path, *args: str, **env: str) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    port = free_port()
    var_dir.mkdir(parents=True, exist_ok=True)
    arguments = [*SERVE, "--port", str(port), *args]
    with started(arguments, _environment(var_dir, **env), var_dir / "server.log", port) as process:
        yield process, port


def test_serve_answers_on_its_port_without_base_url(tmp_path: Path) -> None:
    with serving(tmp_path / "var") as (_process, port):
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            page = httpx.get(f"http://127.0.0.1:{port}/en/lab", headers={"host": host})
            assert page.status_code == 200, page.text[:300]
        sitemap = httpx.get(f"http://127.0.0.1:{port}/sitemap.xml")
        assert f"<loc>http://127.0.0.1:{port}/en/</loc>" in sitemap.text
        other = httpx.get(f"http://127.0.0.1:{port}/en/lab", headers={"host": "example.org"})
        assert other.status_code == 400
        assert f"configured for http://127.0.0.1:{port} (the BASE_URL setting)" in other.text
        assert "set BASE_URL to that address" in other.text


def test_serve_refuses_to_start_without_the_front_end_assets(tmp_path: Path) -> None:
    static = tmp_path / "static"
    shutil.copytree(PROJECT_ROOT / "static", static, ignore=shutil.ignore_patterns("vendor"))
    result = subprocess.run(
        [*SERVE, "--port", str(free_port())],
        cwd=PROJECT_ROOT,
        env=_environment(tmp_path / "var", STATIC_DIR=str(static)),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT_S,
        check=False,
    )
    assert result.returncode == 1
    assert "front-end assets are missing" in result.stderr
    assert "./dev run" in result.stderr
    assert "npm ci" in result.stderr
    assert "vendor/htmx.min.js" in result.stderr


def _workers(supervisor: int) -> set[int]:
    """The supervisor's worker processes (multiprocessing's spawned children; not its resource tracker)."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    workers = set()
    for child in children:
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except FileNotFoundError:
            continue
        if b"spawn_main" in command:
            workers.add(int(child))
    return workers


def _wait_for_workers(supervisor: int, count: int) -> set[int]:
    deadline = time.monotonic() + START_TIMEOUT_S
    while len(workers := _workers(supervisor)) != count:
        assert time.monotonic() < deadline, workers
        time.sleep(0.1)
    return workers


def _busy(worker: int, seconds: float) -> None:
    """Make a worker answer nothing, health checks included, for a while: as a worker still building its app on
    a saturated machine does."""
    os.kill(worker, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(worker, signal.SIGCONT)


@pytest.mark.timeout(START_TIMEOUT_S + BUSY_S + REPLACED_WITHIN_S + 60)
def test_a_worker_busier_than_uvicorns_default_health_check_is_not_killed(tmp_path: Path) -> None:
    with serving(tmp_path / "var", "--workers", "2") as (process, port):
        workers = _wait_for_workers(process.pid, 2)
        busy = min(workers)
        _busy(busy, BUSY_S)
        assert _workers(process.pid) == workers  # the same two: neither was killed and replaced
        for _ in range(4):
            assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=30).status_code == 200
        # The control: a worker that really died is seen replaced, so the equality above could have failed.
        os.kill(busy, signal.SIGKILL)
        deadline = time.monotonic() + REPLACED_WITHIN_S
        while busy in _workers(process.pid) or len(_workers(process.pid)) != 2:
            assert time.monotonic() < deadline, "the supervisor never replaced the killed worker"
            time.sleep(0.1)
        assert len(_workers(process.pid) - workers) == 1
