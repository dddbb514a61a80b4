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
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    env = os.environ | {"ENV": "test", "VAR_DIR": str(var_dir), "BASE_URL": base_url} | dict(environment)
    if "DATABASE_URL" not in environment:
        env.pop("DATABASE_URL", None)
    log_path = var_dir / "server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*command, "--host", "127.0.0.1", "--port", str(port), *extra_args],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while True:
                try:
                    if httpx.get(f"{base_url}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the server did not start:\n{log_path.read_text()}")
                time.sleep(0.1)
            yield base_url
        finally:
            process.terminate()
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:  # never leave a server behind: the next test would meet it
                process.kill()
                process.wait(timeout=STOP_TIMEOUT_S)
