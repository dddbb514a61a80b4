"""The CLI builds the certificate services as the web app does, through app.bootstrap, never through the web
app's factory."""

from __future__ import annotations

from app.bootstrap import certificate_service
from tests.unit.test_architecture import APP_DIR, imports, parse


def test_the_cli_and_the_web_app_build_the_services_through_bootstrap() -> None:
    cli = parse("app.cli", (APP_DIR / "cli.py").read_text("utf-8"))
    factory = parse("app.web.factory", (APP_DIR / "web" / "factory.py").read_text("utf-8"))
    assert not [found for found in imports(cli) if found.name.startswith("app.web.factory")]
    for module in (cli, factory):
        assert "app.bootstrap.certificate_service" in {found.name for found in imports(module)}, module.name
    assert certificate_service.__module__ == "app.bootstrap"
