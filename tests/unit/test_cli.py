"""The `interconnects` command, run in-process with typer's runner and real files and databases."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from app.config import get_settings
from tests.conftest import PROJECT_ROOT, TEST_SECRET


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[CliRunner]:
    monkeypatch.setenv("VAR_DIR", str(tmp_path / "var"))
    monkeypatch.setenv("SECRET_KEY", TEST_SECRET)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    get_settings.cache_clear()
    yield CliRunner()
    get_settings.cache_clear()


@pytest.fixture
def broken_content(tmp_path: Path) -> Path:
    content = tmp_path / "content"
    shutil.copytree(PROJECT_ROOT / "content", content)
    path = content / "guides" / "nvlink" / "ko.md"
    text = path.read_text("utf-8")
    path.write_text(text.replace("{#deep-dive}", "{#deep_dive}", 1), "utf-8")
    return content


def test_content_check_passes_on_the_real_content(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["content", "check"])
    assert result.exit_code == 0, result.output
    assert "content OK" in result.output


def test_content_check_prints_file_and_line_and_exits_1(runner: CliRunner, broken_content: Path) -> None:
    result = runner.invoke(cli, ["content", "check", "--directory", str(broken_content)])
    assert result.exit_code == 1
    line = next(
        n
        for n, text in enumerate((broken_content / "guides/nvlink/ko.md").read_text().splitlines(), 1)
        if "{#deep_dive}" in text
    )
    assert f"guides/nvlink/ko.md:{line}: heading id 'deep_dive' must be lowercase kebab-case" in result.output


def test_serve_refuses_broken_content_before_starting(
    runner: CliRunner, broken_content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTENT_DIR", str(broken_content))
    get_settings.cache_clear()
    result = runner.invoke(cli, ["serve", "--port", "1"])
    assert result.exit_code == 1
    assert "The content has problems" in result.output
    assert "guides/nvlink/ko.md:" in result.output


def test_serve_refuses_production_without_a_secret(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENV", "production")
    monkeypatch.delenv("SECRET_KEY")
    get_settings.cache_clear()
    result = runner.invoke(cli, ["serve", "--port", "1"])
    assert result.exit_code == 1
    assert "requires SECRET_KEY" in result.output


def test_db_upgrade_current_and_downgrade(
    runner: CliRunner, empty_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", empty_database_url)
    get_settings.cache_clear()
    before = runner.invoke(cli, ["db", "current"])
    assert "current: base (empty)" in before.output
    upgraded = runner.invoke(cli, ["db", "upgrade"])
    assert upgraded.exit_code == 0, upgraded.output
    current = runner.invoke(cli, ["db", "current"]).output
    head = current.split("head:")[1].strip()
    assert f"current: {head}" in current
    assert f"schema at {head}" in upgraded.output
    downgraded = runner.invoke(cli, ["db", "downgrade", "base"])
    assert downgraded.exit_code == 0
    assert "schema at base" in downgraded.output
    assert "current: base (empty)" in runner.invoke(cli, ["db", "current"]).output
