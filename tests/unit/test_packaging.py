"""Building the package says nothing: pyproject.toml once cost 40 lines of setuptools warnings per build step
(issue 23), which buried the one warning that mattered."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD_METADATA = (
    "import sys; from setuptools import build_meta; print(build_meta.prepare_metadata_for_build_wheel(sys.argv[1]))"
)


def test_the_wheel_metadata_builds_without_a_warning(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "app", source / "app", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run(
        [
            sys.executable, "-W", "always", "-c",
            BUILD_METADATA,
            str(tmp_path),
        ],
        cwd=source, capture_output=True, text=True, check=False,
    )  # fmt: skip
    output = built.stdout + built.stderr
    assert built.returncode == 0, output
    assert "interconnects-0.1.0.dist-info" in built.stdout, output
    assert "warning" not in output.lower(), output
    metadata = (tmp_path / "interconnects-0.1.0.dist-info" / "METADATA").read_text()
    assert "License-Expression: LicenseRef-Proprietary" in metadata
