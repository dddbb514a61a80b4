"""`./dev run` skips pip and npm when what they install from is unchanged: the real script, run in a copy of the
project whose Python, npm and `interconnects` are stand-ins that record being called."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.conftest import PROJECT_ROOT

RECORDER = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
"""
NPM = RECORDER + "mkdir -p node_modules static/vendor && touch static/vendor/htmx.min.js\n"


def _project(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("dev", "pyproject.toml", "constraints.txt", "package-lock.json"):
        shutil.copy2(PROJECT_ROOT / name, project / name)
    log = tmp_path / "calls.log"
    tools = tmp_path / "bin"
    (project / ".venv" / "bin").mkdir(parents=True)
    for path, script in (
        (project / ".venv" / "bin" / "python", RECORDER),
        (project / ".venv" / "bin" / "interconnects", RECORDER),
        (tools / "npm", NPM),
        (tools / "python3", RECORDER + "exit 0\n"),  # the version check passes
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(script.format(log=log))
        path.chmod(0o755)
    env = os.environ | {"PATH": f"{tools}:{os.environ['PATH']}"}
    return project, log, env


def _run(project: Path, log: Path, env: dict[str, str]) -> list[str]:
    log.write_text("")
    subprocess.run(["./dev", "run", "--port", "8123"], cwd=project, env=env, check=True, timeout=60)
    return [call for call in log.read_text().splitlines() if not call.startswith("python3 ")]  # the version check


def test_a_restart_skips_pip_and_npm_until_their_inputs_change(tmp_path: Path) -> None:
    project, log, env = _project(tmp_path)
    first = _run(project, log, env)
    assert sum(call.startswith("python -m pip install") for call in first) == 2
    assert any(call.startswith("npm ci") for call in first)
    assert first[-1] == "interconnects serve --port 8123"

    assert _run(project, log, env) == ["interconnects serve --port 8123"]

    (project / "constraints.txt").write_text((project / "constraints.txt").read_text() + "# changed\n")
    changed = _run(project, log, env)
    assert any(call.startswith("python -m pip install") for call in changed)
    assert not any(call.startswith("npm") for call in changed)

    (project / "package-lock.json").write_text((project / "package-lock.json").read_text() + "\n")
    assert [call.split()[0] for call in _run(project, log, env)] == ["npm", "interconnects"]

    shutil.rmtree(project / "static" / "vendor")  # the assets gone: npm again, whatever the stamp says
    assert [call.split()[0] for call in _run(project, log, env)] == ["npm", "interconnects"]
