"""Real servers for tests: the app under uvicorn (or `interconnects serve`) in a child process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# Loading the content and the banks takes seconds, more on a busy machine, and each worker process loads them.
START_TIMEOUT_S = 120
STOP_TIMEOUT_S = 15
UVICORN = [sys.executable, "-m", "uvicorn", "app.main:app"]
INTERCONNECTS_SERVE = [sys.executable, "-m", "app.cli", "serve"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def running_server(
    command: list[str], var_dir: Path, environment: Mapping[str, str], extra_args: tuple[str, ...] = ()
) -> Iterator[str]:
    """Start `command --host 127.0.0.1 --port N`, wait for /healthz, yield the base URL, stop it afterwards.

    The server's output goes to var_dir/server.log, which the error names if the server does not come up.
    """
    with serving_process(command, var_dir, environment, extra_args) as (_process, base_url):
        yield base_url


@contextmanager
def serving_process(
    command: list[str], var_dir: Path, environment: Mapping[str, str], extra_args: tuple[str, ...] = ()
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`running_server`, yielding the server's process too (for tests that signal it or read its memory)."""
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = os.environ | {"ENV": "test", "VAR_DIR": str(var_dir), "BASE_URL": base_url} | dict(environment)
    if "DATABASE_URL" not in environment:
        env.pop("DATABASE_URL", None)
    arguments = [*command, "--host", "127.0.0.1", "--port", str(port), *extra_args]
    with started(arguments, env, var_dir / "server.log", port) as process:
        yield process, base_url


@contextmanager
def started(
    arguments: list[str], env: Mapping[str, str], log_path: Path, port: int
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `arguments` (a server that listens on `port`), wait for its /healthz, stop it afterwards; its output
    goes to `log_path`, which the error quotes if it does not come up."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(arguments, cwd=PROJECT_ROOT, env=dict(env), stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{log_path.read_text()}")
                time.sleep(0.1)
            yield process
        finally:
            process.terminate()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:  # never leave a server behind: the next test would meet it
                process.kill()
                process.wait(timeout=STOP_TIMEOUT_S)
