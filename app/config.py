"""Settings: the only module that reads the environment.

Every other module receives a `Settings` instance (injected), so tests can build an app for any configuration
without touching `os.environ`.
"""

from __future__ import annotations

import os
import secrets
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
MIN_SECRET_KEY_LENGTH = 32


class Environment(StrEnum):
    DEVELOPMENT = "development"
    TEST = "test"
    PRODUCTION = "production"


class ConfigurationError(RuntimeError):
    """The configuration cannot run safely; the message says what to set."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    env: Environment = Environment.DEVELOPMENT
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; unset means a SQLite file under VAR_DIR."
    )
    base_url: str = Field(
        default="http://127.0.0.1:8000", description="Public origin used in absolute links and Origin checks."
    )
    extra_origins: list[str] = Field(
        default_factory=list, description="Other origins (scheme://host:port) this site is also served at."
    )
    secret_key: SecretStr | None = Field(default=None, description="Signs the learner cookie.")
    certificate_key_file: Path | None = Field(
        default=None,
        description="PEM file of the Ed25519 keys that sign certificates (the last one signs); "
        "unset means a generated development key under VAR_DIR.",
    )
    var_dir: Path = PROJECT_ROOT / "var"
    content_dir: Path = PROJECT_ROOT / "content"
    static_dir: Path = Field(
        default=PROJECT_ROOT / "static", description="css/, js/, img/ and vendor/ (filled by npm ci)."
    )
    log_level: str = "INFO"
    smtp_url: SecretStr | None = Field(
        default=None,
        description="smtp://user:password@host:port (smtps:// for TLS, ?starttls=1 to upgrade); "
        "unset means the outbox.",
    )
    outbox_dir: Path | None = Field(default=None, description="Where mail goes as .eml files without SMTP_URL.")
    mail_from: str | None = Field(default=None, description="The From of outgoing mail; default newsletter@<host>.")
    donation_url: str | None = Field(default=None, description="A donation page, linked in the footer.")
    next_guide_url: str | None = Field(default=None, description="Where the last chapter leads onward.")
    linkedin_organization_id: str | None = Field(
        default=None,
        description="The issuer's LinkedIn organization id (digits): 'Add to LinkedIn profile' then links the "
        "certificate to that page (its logo and name) instead of naming the issuer in plain text.",
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        description="Bearer token that /metrics requires (Authorization: Bearer ...); in production /metrics "
        "answers nothing without it.",
    )
    body_read_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="Seconds a request body may take to arrive in full (then 408): a bounded body of 256 KiB "
        "needs under 9 KB/s, so only a client that holds the connection on purpose is cut off.",
    )

    @field_validator("base_url")
    @classmethod
    def _strip_trailing_slash(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("BASE_URL must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("donation_url", "next_guide_url")
    @classmethod
    def _absolute_link(cls, value: str | None) -> str | None:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("links must start with http:// or https://")
        return value or None

    @field_validator("linkedin_organization_id")
    @classmethod
    def _digits(cls, value: str | None) -> str | None:
        value = (value or "").strip()
        if value and not (value.isascii() and value.isdigit()):
            raise ValueError("LINKEDIN_ORGANIZATION_ID is the number in the admin URL of the organization's page")
        return value or None

    @property
    def resolved_outbox_dir(self) -> Path:
        return self.outbox_dir or self.var_dir / "outbox"

    @property
    def content_cache_dir(self) -> Path | None:
        """Where the rendered course is kept between starts; tests, which build many apps, render each."""
        return None if self.env is Environment.TEST else self.var_dir / "cache"

    @property
    def is_production(self) -> bool:
        return self.env is Environment.PRODUCTION

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.var_dir / 'interconnects.sqlite3'}"

    @property
    def is_sqlite(self) -> bool:
        return self.sqlalchemy_url.startswith("sqlite")

    @property
    def served_over_https(self) -> bool:
        return self.base_url.startswith("https://")

    def resolve_secret_key(self) -> str:
        """The configured secret, or in development a random one persisted under VAR_DIR.

        Production refuses a missing, short, or generated secret: a generated key lives on one machine's disk,
        so cookies signed by one host would be rejected by the next.
        """
        generated_path = self.var_dir / "secret_key"
        if self.secret_key is not None:
            value = self.secret_key.get_secret_value()
            if len(value) < MIN_SECRET_KEY_LENGTH:
                raise ConfigurationError(f"SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters long.")
            if self.is_production and generated_path.exists() and generated_path.read_text().strip() == value:
                raise ConfigurationError("SECRET_KEY is the generated development key; set a real secret.")
            return value
        if self.is_production:
            raise ConfigurationError("ENV=production requires SECRET_KEY (at least 32 random characters).")
        if generated_path.exists():
            return generated_path.read_text().strip()
        self.var_dir.mkdir(parents=True, exist_ok=True)
        value = secrets.token_urlsafe(48)
        generated_path.write_text(value)
        generated_path.chmod(0o600)
        return value

    def resolve_certificate_key_file(self) -> tuple[Path, bool]:
        """The certificate key file, and whether it may be generated (development and tests only).

        Production refuses to start without a configured file: a generated key would differ per host, and
        certificates one host signed would not verify on the next.
        """
        if self.certificate_key_file is not None:
            return self.certificate_key_file, False
        if self.is_production:
            raise ConfigurationError(
                "ENV=production requires CERTIFICATE_KEY_FILE (make one: openssl genpkey -algorithm ed25519 -out FILE)."
            )
        return self.var_dir / "certificate-keys.pem", True


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def settings_for_serving(host: str, port: int) -> Settings:
    """The settings `interconnects serve` runs with: outside production, a BASE_URL that is not set follows the
    port being served, so `serve --port 8123` answers at http://127.0.0.1:8123 instead of 400 for every page.

    The value is also put into the environment, because uvicorn's worker processes read their settings afresh.
    """
    settings = get_settings()
    if settings.is_production or "base_url" in settings.model_fields_set:
        return settings
    name = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host  # noqa: S104  (a wildcard is not an address)
    os.environ["BASE_URL"] = f"http://[{name}]:{port}" if ":" in name else f"http://{name}:{port}"
    get_settings.cache_clear()
    return get_settings()
