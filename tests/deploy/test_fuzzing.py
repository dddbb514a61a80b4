"""schemathesis against the JSON API through nginx (TLS, cache, both hosts): every check, a fixed seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from deploy.local_stack import Stack

SEED = 20261202


def test_the_api_through_nginx_passes_every_schemathesis_check(stack: Stack, tmp_path: Path) -> None:
    schemathesis = Path(sys.executable).parent / "schemathesis"
    run = subprocess.run(
        [
            str(schemathesis), "run", f"{stack.url}/openapi.json",
            "--checks", "all",
            # Generated ids name no attempt and no quiz, so a schema-valid request rightly gets a 404 (as in
            # tests/web/test_api_quiz.py); every other check applies.
            "--exclude-checks", "positive_data_acceptance",
            "--seed", str(SEED), "--max-examples", "10", "--workers", "1",
            "--phases", "examples,coverage,fuzzing",
            "--include-path-regex", "^/api/v1/",
            "--tls-verify", str(Path(stack.directory) / "tls" / "cert.pem"),
            "--request-timeout", "30",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )  # fmt: skip
    lines = run.stdout.splitlines()
    undocumented = [
        "\n".join(lines[max(0, number - 3) : number + 25]) for number, line in enumerate(lines) if "- ST103" in line
    ]
    assert run.returncode == 0, "\n".join(undocumented) + run.stdout[-4000:] + run.stderr[-2000:]
