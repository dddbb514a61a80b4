"""The README against the code (datasette's habit): what it documents exists, and what exists is documented."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main
from fastapi.routing import APIRoute

from app.cli import cli
from app.config import Settings
from app.web.templating.urls import named_routes
from tests.conftest import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text("utf-8")


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def test_every_setting_is_in_the_configuration_table_and_nothing_else_is() -> None:
    table = _section("Configuration")
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", table, flags=re.MULTILINE))
    settings = {name.upper() for name in Settings.model_fields}
    assert documented == settings


def test_every_environment_variable_the_readme_names_exists() -> None:
    named = set(re.findall(r"`([A-Z][A-Z_]{2,})`", README))
    known = {name.upper() for name in Settings.model_fields}
    tools = {"TEST_POSTGRES_URL", "POSTGRES_REQUIRED", "E2E_REQUIRED", "FORWARDED_ALLOW_IPS"}
    values = {"HEAD", "GET", "POST", "UPDATE", "INSERT", "BEGIN", "IMMEDIATE", "DATABASE", "TEMPLATE", "INFO"}
    assert named - known - tools - values == set()


def _commands(group: typer.Typer, prefix: str) -> set[str]:
    click_group = typer.main.get_command(group)
    names: set[str] = set()
    for name, command in click_group.commands.items():  # type: ignore[attr-defined]
        if hasattr(command, "commands"):
            names |= {f"{prefix} {name} {sub}" for sub in command.commands}
        else:
            names.add(f"{prefix} {name}")
    return names


def test_every_cli_command_is_in_the_readme() -> None:
    commands = _section("Commands")
    for command in _commands(cli, "interconnects"):
        assert command in commands, f"{command} is missing from the README's Commands"


def test_every_page_route_is_in_the_page_list(shared_app: object) -> None:
    pages = _section("Layout")
    for _name, route in named_routes(shared_app.routes):  # type: ignore[attr-defined]
        path = getattr(route, "path", "")
        if not isinstance(route, APIRoute) or path.startswith(("/api/", "/static", "/openapi")):
            continue
        if path in ("/healthz", "/metrics", "/sitemap.xml", "/robots.txt", "/docs"):
            assert f"`{path}`" in pages
            continue
        shown = path.replace("/{lang}/attempts/{attempt_id}/questions/{question_id}", "…/questions/{question_id}")
        shown = shown.replace("/{lang}/attempts/{attempt_id}/finish", "…/finish")
        assert f"`{shown}`" in pages, f"{path} is not in the README's page list"


def test_every_file_the_readme_names_exists() -> None:
    for name in re.findall(r"`((?:app|tests|benchmarks|scripts|content|templates|static)/[\w./<>-]+)`", README):
        if "<" in name or "…" in name:
            continue
        assert (PROJECT_ROOT / name).exists(), f"the README names {name}, which does not exist"
    assert not re.search(r"_fragments\.html|certificates API", README)


def test_the_openapi_summary_promises_nothing_that_is_not_there(shared_app: object) -> None:
    summary = shared_app.openapi()["info"].get("summary", "")  # type: ignore[attr-defined]
    assert "certificate" not in summary.lower()
    assert Path(PROJECT_ROOT / "constraints.txt").exists()
