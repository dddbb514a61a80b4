"""A running uvicorn and the operator's CLI in other processes, on SQLite and PostgreSQL: what one process does to
a certificate shows on the very next request the server answers, its fast path included."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.servers import PROJECT_ROOT, UVICORN, running_server

SECRET = "live-" + "c" * 40


@pytest.fixture
def server(database_url: str, tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    environment = {"SECRET_KEY": SECRET, "DATABASE_URL": database_url}
    with running_server(UVICORN, tmp_path, environment, ("--log-level", "warning")) as url:
        # The CLI as an operator runs it: the same settings (database, key file under VAR_DIR, base URL).
        cli_environment = os.environ | {"ENV": "test", "VAR_DIR": str(tmp_path), "BASE_URL": url} | environment
        yield url, cli_environment
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log


def cli(environment: dict[str, str], *arguments: str) -> str:
    command = [sys.executable, "-m", "app.cli", "certificates", *arguments]
    done = subprocess.run(command, cwd=PROJECT_ROOT, env=environment, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def served_from_memory(client: httpx.Client, method: str) -> float:
    """How many /c/{ID} answers the metrics count for `method` with status 200."""
    text = client.get("/metrics").text
    pattern = rf'http_requests_total{{method="{method}",route="/c/{{certificate_id}}",status="200"}} ([\d.e+]+)'
    found = re.search(pattern, text)
    return float(found.group(1)) if found else 0.0


def test_a_revocation_from_the_cli_shows_on_the_next_request(server: tuple[str, dict[str, str]]) -> None:
    base_url, environment = server
    issued = json.loads(cli(environment, "issue", "--name", "Katherine Johnson"))
    path = f"/c/{issued['id']}"
    with httpx.Client(base_url=base_url, timeout=30) as client:
        first = client.get(path)
        assert first.status_code == 200
        assert "Valid certificate" in first.text
        again = client.get(path)  # replayed by the page cache, after verifying again
        assert again.content == first.content
        head = client.head(path)
        assert (head.status_code, head.content) == (200, b"")
        assert served_from_memory(client, "HEAD") == 1  # a hit is counted under its own method
        assert served_from_memory(client, "GET") == 2

        cli(environment, "revoke", issued["id"], "--reason", "Issued in error")
        revoked = client.get(path)
        assert revoked.status_code == 200
        assert "Revoked certificate" in revoked.text
        assert "Issued in error" in revoked.text
        assert "Revoked certificate" in client.get(path).text  # and the page made for it is replayed too
        status = client.post("/api/v1/credentials/verify", json=client.get(f"{path}.json").json()).json()
        assert (status["valid"], status["status"]) == (False, "revoked")
