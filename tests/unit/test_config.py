from __future__ import annotations

from pathlib import Path

import pytest

from app.config import ConfigurationError, Environment, Settings


def test_development_generates_and_keeps_a_secret(tmp_path: Path) -> None:
    settings = Settings(env=Environment.DEVELOPMENT, var_dir=tmp_path)
    first = settings.resolve_secret_key()
    assert len(first) >= 32
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert Settings(env=Environment.DEVELOPMENT, var_dir=tmp_path).resolve_secret_key() == first


def test_production_refuses_a_missing_secret(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="requires SECRET_KEY"):
        Settings(env=Environment.PRODUCTION, var_dir=tmp_path).resolve_secret_key()
    assert not (tmp_path / "secret_key").exists()


def test_production_refuses_a_short_secret(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="at least 32"):
        Settings(env=Environment.PRODUCTION, var_dir=tmp_path, secret_key="short").resolve_secret_key()


def test_production_refuses_the_generated_development_secret(tmp_path: Path) -> None:
    generated = Settings(env=Environment.DEVELOPMENT, var_dir=tmp_path).resolve_secret_key()
    with pytest.raises(ConfigurationError, match="generated development key"):
        Settings(env=Environment.PRODUCTION, var_dir=tmp_path, secret_key=generated).resolve_secret_key()


def test_production_accepts_a_real_secret(tmp_path: Path) -> None:
    secret = "s" * 48
    assert Settings(env=Environment.PRODUCTION, var_dir=tmp_path, secret_key=secret).resolve_secret_key() == secret


def test_environment_variables_are_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql+psycopg://u:p@db/x")
    monkeypatch.setenv("BASE_URL", "https://course.example/")
    monkeypatch.setenv("ENV", "production")
    settings = Settings()
    assert settings.sqlalchemy_url == "postgresql+psycopg://u:p@db/x"
    assert settings.base_url == "https://course.example"
    assert settings.is_production
    assert settings.served_over_https
    assert not settings.is_sqlite


def test_default_database_is_sqlite_under_var(tmp_path: Path) -> None:
    settings = Settings(var_dir=tmp_path)
    assert settings.sqlalchemy_url == f"sqlite:///{tmp_path / 'interconnects.sqlite3'}"


def test_base_url_must_be_http() -> None:
    with pytest.raises(ValueError, match="BASE_URL"):
        Settings(base_url="ftp://example.com")
