"""app.simulator is pure: it imports nothing but the standard library and itself."""

import ast
import sys
from pathlib import Path

import app.simulator

PACKAGE_DIR = Path(app.simulator.__file__).parent


def imported_modules(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.append(node.module)
    return names


def test_only_standard_library_and_own_package() -> None:
    files = sorted(PACKAGE_DIR.rglob("*.py"))
    assert files
    offenders = [
        f"{path.name}: {name}"
        for path in files
        for name in imported_modules(path)
        if not (name == "app.simulator" or name.startswith("app.simulator."))
        and name.split(".")[0] not in sys.stdlib_module_names
    ]
    assert offenders == []
