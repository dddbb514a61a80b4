"""The import rules of DESIGN §1, enforced on the source."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

APP_DIR = Path(__file__).resolve().parents[2] / "app"
WEB_ONLY = ("fastapi", "starlette", "jinja2", "markupsafe", "uvicorn")
FEATURES = ("content", "quiz", "certificates", "newsletter", "learners")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module)
            modules.update(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


def package_of(path: Path) -> str:
    relative = path.relative_to(APP_DIR)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


def sources() -> list[Path]:
    return sorted(APP_DIR.rglob("*.py"))


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(APP_DIR)))
def test_only_web_imports_web_frameworks(path: Path) -> None:
    if package_of(path) in ("web", "main", "cli"):
        return
    offending = {m for m in imported_modules(path) if m.split(".")[0] in WEB_ONLY}
    assert not offending, f"{path.name} imports {offending}; only app.web may"


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(APP_DIR)))
def test_nothing_but_main_and_cli_imports_web(path: Path) -> None:
    if package_of(path) in ("web", "main", "cli"):
        return
    offending = {m for m in imported_modules(path) if m.startswith("app.web")}
    assert not offending, f"{path.name} imports {offending}"


@pytest.mark.parametrize("path", sorted((APP_DIR / "simulator").rglob("*.py")), ids=lambda p: p.name)
def test_simulator_uses_only_the_standard_library(path: Path) -> None:
    for module in imported_modules(path):
        top = module.split(".")[0]
        allowed = top in sys.stdlib_module_names or module.startswith("app.simulator") or module == "__future__"
        assert allowed, f"{path.name} imports {module}"


@pytest.mark.parametrize("path", sources(), ids=lambda p: str(p.relative_to(APP_DIR)))
def test_features_do_not_import_each_other_except_through_allowed_edges(path: Path) -> None:
    package = package_of(path)
    if package not in FEATURES:
        return
    allowed = {package, "simulator", "db", "config"}
    if package == "quiz":
        allowed |= {"content", "learners"}  # questions point into chapters; an attempt is a learner's first write
    if package == "certificates":
        allowed |= {"quiz", "learners"}
    for module in imported_modules(path):
        if module.startswith("app."):
            target = module.split(".")[1]
            assert target in allowed or target not in (*FEATURES, "web"), f"{path.name} imports {module}"


def test_only_config_reads_the_environment() -> None:
    for path in sources():
        if path.name == "config.py":
            continue
        text = path.read_text("utf-8")
        assert "os.environ" not in text, f"{path} reads the environment"
        assert "getenv" not in text, f"{path} reads the environment"
