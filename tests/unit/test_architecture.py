"""The import rules of the redesign, enforced on the source through its syntax tree.

Each rule is a function from one module's source to the problems it finds. Every rule runs over all of app/,
and every rule is also fed a small bad example, so that a rule which could never fire does not pass silently.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from tests.conftest import PROJECT_ROOT

APP_DIR = PROJECT_ROOT / "app"
WEB_FRAMEWORKS = ("fastapi", "starlette", "jinja2", "markupsafe", "uvicorn")
FEATURES = ("content", "quiz", "learners", "certificates", "newsletter", "search")
# Top-level modules that hold no feature and no web: any feature may import them.
NEUTRAL = (
    "app.db",
    "app.config",
    "app.context",
    "app.i18n",
    "app.formatting",
    "app.numbers",
    "app.validation",
    "app.ratelimit",
    "app.remembered",
    "app.conflict",
)
# Edges between features: questions point into chapters, an attempt is a learner's first write, a
# certificate is issued for a passed exam, search indexes the rendered content.
FEATURE_EDGES = {"quiz": ("content", "learners"), "certificates": ("quiz", "learners"), "search": ("content",)}
ENTRY_POINTS = ("app.main", "app.cli")
INFRASTRUCTURE = ("app.db", "app.migrations", "sqlalchemy")
ENVIRONMENT_NAMES = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})
OS_MODULES = frozenset({"os", "posix", "nt"})


@dataclass(frozen=True, slots=True)
class Module:
    name: str  # dotted, e.g. "app.quiz.service"; a package's __init__ is the package itself
    is_package: bool
    tree: ast.Module

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def within(self, *prefixes: str) -> bool:
        return any(_under(self.name, prefix) for prefix in prefixes)


@dataclass(frozen=True, slots=True)
class Imported:
    name: str  # the module, or module.attribute for `from module import attribute`
    line: int


Rule = Callable[[Module], list[str]]


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def parse(name: str, source: str, is_package: bool = False) -> Module:
    return Module(name, is_package, ast.parse(source))


def app_modules() -> list[Module]:
    modules = []
    for path in sorted(APP_DIR.rglob("*.py")):
        parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        modules.append(parse(name, path.read_text("utf-8"), is_package))
    return modules


def imports(module: Module) -> Iterator[Imported]:
    """Every absolute import, at any depth (imports inside functions and TYPE_CHECKING blocks count too)."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Imported(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield Imported(node.module, node.lineno)
            for alias in node.names:
                yield Imported(f"{node.module}.{alias.name}", node.lineno)


def _problems(module: Module, found: Iterator[tuple[int, str]]) -> list[str]:
    """One problem per line: `from a.b import c` yields both a.b and a.b.c, and either may be the culprit."""
    first: dict[int, str] = {}
    for line, problem in found:
        first.setdefault(line, problem)
    return [f"{module.name}:{line}: {problem}" for line, problem in sorted(first.items())]


# --- the rules ---------------------------------------------------------------------------------------------


def no_relative_imports(module: Module) -> list[str]:
    return _problems(
        module,
        (
            (node.lineno, f"relative import from {'.' * node.level}{node.module or ''}")
            for node in ast.walk(module.tree)
            if isinstance(node, ast.ImportFrom) and node.level > 0
        ),
    )


def web_frameworks_only_in_web(module: Module) -> list[str]:
    if module.within("app.web", *ENTRY_POINTS):
        return []
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; only app.web may use a web framework")
            for found in imports(module)
            if found.name.split(".")[0] in WEB_FRAMEWORKS
        ),
    )


def web_only_from_the_entry_points(module: Module) -> list[str]:
    if module.within("app.web", *ENTRY_POINTS):
        return []
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; only app.main and app.cli may import app.web")
            for found in imports(module)
            if _under(found.name, "app.web")
        ),
    )


def simulator_uses_only_the_standard_library(module: Module) -> list[str]:
    if not module.within("app.simulator"):
        return []
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; the simulator is standard library only")
            for found in imports(module)
            if found.name != "__future__"
            and found.name.split(".")[0] not in sys.stdlib_module_names
            and not _under(found.name, "app.simulator")
            and found.name != "app"  # `from app import simulator` names the package, then the module
        ),
    )


def features_import_only_allowed_edges(module: Module) -> list[str]:
    """A feature imports itself, the simulator, the neutral modules and its declared edges; never the entry
    points (app.main, app.cli), the web, another feature, or another top-level module."""
    feature = next((name for name in FEATURES if module.within(f"app.{name}")), None)
    if feature is None:
        return []
    allowed = (f"app.{feature}", "app.simulator", *NEUTRAL, *(f"app.{edge}" for edge in FEATURE_EDGES.get(feature, ())))
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; app.{feature} may import only {', '.join(allowed)}")
            for found in imports(module)
            if _under(found.name, "app")
            and found.name != "app"
            and not any(_under(found.name, prefix) for prefix in allowed)
        ),
    )


def routes_import_no_infrastructure(module: Module) -> list[str]:
    """Routes parse, call one service and render: the database is the services' business."""
    if not module.within("app.web.routes"):
        return []
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; routes reach the database only through a service")
            for found in imports(module)
            if any(_under(found.name, prefix) for prefix in INFRASTRUCTURE)
        ),
    )


def no_private_modules_of_other_packages(module: Module) -> list[str]:
    """`app.x._name` (a module, or a name, marked private) is for package app.x alone."""

    def owner(name: str) -> str | None:
        parts = name.split(".")
        for index, part in enumerate(parts):
            if part.startswith("_") and not (part.startswith("__") and part.endswith("__")):
                return ".".join(parts[:index])
        return None

    problems = []
    for found in imports(module):
        package = owner(found.name)
        if package is None or not _under(found.name, "app"):
            continue
        if (APP_DIR.parent / package.replace(".", "/")).with_suffix(".py").is_file():
            package = package.rpartition(".")[0]  # a private name in a module: the module's package owns it
        if not _under(module.package, package):
            problems.append((found.line, f"imports {found.name}, which is private to {package}"))
    return _problems(module, iter(problems))


def only_config_reads_the_environment(module: Module) -> list[str]:
    """os.environ / os.getenv / os.environb (however os is imported or named) only in app/config.py."""
    if module.name == "app.config":
        return []
    os_names: set[str] = set()
    problems = []
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in OS_MODULES:
                    os_names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module in OS_MODULES:
            for alias in node.names:
                if alias.name in ENVIRONMENT_NAMES or alias.name == "*":
                    problems.append((node.lineno, f"imports {alias.name} from {node.module}"))
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_NAMES:
            if isinstance(node.value, ast.Name) and node.value.id in os_names:
                problems.append((node.lineno, f"reads {node.value.id}.{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            target, name = [*node.args, None, None][:2]
            if (
                isinstance(target, ast.Name)
                and target.id in os_names
                and isinstance(name, ast.Constant)
                and name.value in ENVIRONMENT_NAMES
            ):
                problems.append((node.lineno, f"reads getattr({target.id}, {name.value!r})"))
    return _problems(module, iter(problems))


# --- one vocabulary each: a cross-cutting rule lives in one module, and nothing else spells it --------------

# Modules that still spell a rule their own way, and why they are not changed here: each is another piece of
# work's file, and the entry goes when that work moves it onto the shared module.
PENDING: dict[str, str] = {}
CACHE_DIRECTIVE = re.compile(
    r"public|private|no-store|no-cache|no-transform|immutable|must-revalidate|(max-age|s-maxage|stale-while-revalidate)=\d+"
)
DIAGRAM_IMPORTS = ("app.diagrams", "app.simulator", "app.i18n", "app.formatting", "app.numbers")
SERVICES = frozenset({"quiz", "certificates", "newsletter", "database", "search_pages"})  # on AppState
BINARY_EXPONENTS = frozenset({10, 20, 30, 40})


def _pending(module: Module) -> bool:
    return module.within(*PENDING)


def _constants(module: Module) -> Iterator[tuple[int, str]]:
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes):
            value = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            yield node.lineno, value


def _is_cache_control(text: str) -> bool:
    text = text.strip().lower()
    parts = [part.strip() for part in text.split(",")]
    return text == "cache-control" or (text != "" and all(CACHE_DIRECTIVE.fullmatch(part) for part in parts))


def cache_policy_only_in_its_module(module: Module) -> list[str]:
    """`Cache-Control` and its values are written only in app/web/cache_policy.py: a response names a policy."""
    if module.name == "app.web.cache_policy" or _pending(module):
        return []
    return _problems(
        module,
        (
            (line, f"spells the cache policy {text!r}; name one of app.web.cache_policy's")
            for line, text in _constants(module)
            if _is_cache_control(text)
        ),
    )


def diagrams_are_pure(module: Module) -> list[str]:
    """app.diagrams draws simulator results as markup: standard library, the simulator and the neutral number
    and language modules; nothing of the web, a feature or the database."""
    if not module.within("app.diagrams"):
        return []
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; app.diagrams may import only {', '.join(DIAGRAM_IMPORTS)}")
            for found in imports(module)
            if found.name != "__future__"
            and found.name.split(".")[0] not in sys.stdlib_module_names
            and found.name != "app"
            and not any(_under(found.name, prefix) for prefix in DIAGRAM_IMPORTS)
        ),
    )


def exception_views_call_no_service(module: Module) -> list[str]:
    """app/web/exceptions.py renders what the error carries: it reaches no service through the app state."""
    if module.name != "app.web.exceptions":
        return []
    problems = []
    for function in ast.walk(module.tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        states = {
            target.id
            for node in ast.walk(function)
            if isinstance(node, ast.Assign) and _calls_app_state(node.value)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        problems += [
            (node.lineno, f"{function.name} calls the {node.attr} service")
            for node in ast.walk(function)
            if isinstance(node, ast.Attribute)
            and node.attr in SERVICES
            and (_calls_app_state(node.value) or (isinstance(node.value, ast.Name) and node.value.id in states))
        ]
    return _problems(module, iter(problems))


def _calls_app_state(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "app_state"


def insert_or_ignore_only_in_conflict(module: Module) -> list[str]:
    """INSERT … ON CONFLICT is built only by app/conflict.py, once per dialect."""
    if module.name == "app.conflict" or _pending(module):
        return []
    found = [
        (node.lineno, f"builds {node.attr}; use app.conflict")
        for node in ast.walk(module.tree)
        if isinstance(node, ast.Attribute) and node.attr in ("on_conflict_do_nothing", "on_conflict_do_update")
    ]
    found += [
        (imported.line, f"imports {imported.name}; use app.conflict")
        for imported in imports(module)
        if _under(imported.name, "sqlalchemy.dialects.sqlite")
        or _under(imported.name, "sqlalchemy.dialects.postgresql")
    ]
    return _problems(module, iter(found))


def one_memo(module: Module) -> list[str]:
    """A bounded memory is app.remembered.Remembered (functools.lru_cache for pure functions); no hand-rolled LRU."""
    if module.name == "app.remembered" or _pending(module):
        return []
    return _problems(
        module,
        (
            (found.line, f"imports {found.name}; keep values in app.remembered.Remembered")
            for found in imports(module)
            if found.name == "collections.OrderedDict"
        ),
    )


def one_client_address(module: Module) -> list[str]:
    """The client's address is read, and turned into its network key, only by app.web.deps.client_of."""
    if module.name in ("app.web.deps", "app.ratelimit") or _pending(module):
        return []
    found = [
        (imported.line, f"imports {imported.name}; use app.web.deps.client_of")
        for imported in imports(module)
        if imported.name == "app.ratelimit.client_network"
    ]
    found += [
        (node.lineno, "reads the client's address; use app.web.deps.client_of")
        for node in ast.walk(module.tree)
        if (isinstance(node, ast.Attribute) and node.attr == "host" and _is_attribute(node.value, "client"))
        or (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == "client")
    ]
    return _problems(module, iter(found))


def _is_attribute(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == name


def binary_prefixes_only_in_formatting(module: Module) -> list[str]:
    """KiB, MiB, GiB and TiB are app.formatting's; the simulator, standard library only, keeps its own."""
    if module.name == "app.formatting" or module.within("app.simulator") or _pending(module):
        return []
    return _problems(
        module,
        (
            (node.lineno, "writes a binary prefix; use app.formatting's KiB, MiB, GiB, TiB")
            for node in ast.walk(module.tree)
            if isinstance(node, ast.BinOp)
            and (
                (
                    isinstance(node.op, ast.Pow)
                    and isinstance(node.left, ast.Constant)
                    and node.left.value in (2, 2.0)
                    and isinstance(node.right, ast.Constant)
                    and node.right.value in BINARY_EXPONENTS
                )
                or (
                    isinstance(node.op, ast.Mult)
                    and any(isinstance(side, ast.Constant) and side.value == 1024 for side in (node.left, node.right))
                )
            )
        ),
    )


RULES: tuple[Rule, ...] = (
    no_relative_imports,
    web_frameworks_only_in_web,
    web_only_from_the_entry_points,
    simulator_uses_only_the_standard_library,
    features_import_only_allowed_edges,
    routes_import_no_infrastructure,
    no_private_modules_of_other_packages,
    only_config_reads_the_environment,
    cache_policy_only_in_its_module,
    diagrams_are_pure,
    exception_views_call_no_service,
    insert_or_ignore_only_in_conflict,
    one_memo,
    one_client_address,
    binary_prefixes_only_in_formatting,
)


# --- the source follows every rule ----------------------------------------------------------------------------


def test_the_rules_see_the_whole_app() -> None:
    names = {module.name for module in app_modules()}
    assert {"app.config", "app.quiz.service", "app.web.routes.quiz", "app.simulator", "app.content"} <= names


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.__name__)
def test_the_app_follows_the_rule(rule: Rule) -> None:
    problems = [problem for module in app_modules() for problem in rule(module)]
    assert not problems, "\n".join(problems)


# --- and every rule catches what it is about ------------------------------------------------------------------

BAD_EXAMPLES: list[tuple[Rule, str, str, str]] = [
    (no_relative_imports, "app.quiz.service", "from .models import QuizAttempt", "relative import from .models"),
    (no_relative_imports, "app.quiz.service", "from ..db import Base", "relative import from ..db"),
    (no_relative_imports, "app.quiz", "from . import service", "relative import from ."),
    (web_frameworks_only_in_web, "app.quiz.service", "from fastapi import HTTPException", "imports fastapi"),
    (web_frameworks_only_in_web, "app.content.markdown", "import markupsafe", "imports markupsafe"),
    (web_frameworks_only_in_web, "app.db", "def f():\n    from starlette.requests import Request", "starlette"),
    (web_only_from_the_entry_points, "app.quiz.service", "from app.web.state import AppState", "app.web.state"),
    (web_only_from_the_entry_points, "app.migrations", "import app.web.factory", "app.web.factory"),
    (
        web_only_from_the_entry_points,
        "app.quiz.errors",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from app.web import deps",
        "app.web",
    ),
    (simulator_uses_only_the_standard_library, "app.simulator.links", "import yaml", "imports yaml"),
    (simulator_uses_only_the_standard_library, "app.simulator", "from app.formatting import exact", "app.formatting"),
    (features_import_only_allowed_edges, "app.quiz.service", "from app.main import create_app", "app.main"),
    (features_import_only_allowed_edges, "app.content.loader", "from app import cli", "app.cli"),
    (features_import_only_allowed_edges, "app.learners.service", "import app.cli", "app.cli"),
    (features_import_only_allowed_edges, "app.content.loader", "from app.quiz.bank import Quiz", "app.quiz.bank"),
    (features_import_only_allowed_edges, "app.learners", "from app.quiz import models", "app.quiz"),
    (features_import_only_allowed_edges, "app.quiz.service", "from app.models import Base", "app.models"),
    (features_import_only_allowed_edges, "app.quiz.service", "import app.log", "app.log"),
    (features_import_only_allowed_edges, "app.quiz.service", "from app.web.htmx import VARY", "app.web"),
    (routes_import_no_infrastructure, "app.web.routes.quiz", "from app.db import Database", "app.db"),
    (routes_import_no_infrastructure, "app.web.routes.quiz", "import sqlalchemy", "sqlalchemy"),
    (routes_import_no_infrastructure, "app.web.routes.api_quiz", "from sqlalchemy.exc import DBAPIError", "exc"),
    (routes_import_no_infrastructure, "app.web.routes.pages", "from sqlalchemy.orm import Session", "sqlalchemy"),
    (routes_import_no_infrastructure, "app.web.routes.operations", "from app import migrations", "app.migrations"),
    (
        no_private_modules_of_other_packages,
        "app.web.routes.lab",
        "from app.simulator.collectives._tables import TABLE",
        "private to app.simulator.collectives",
    ),
    (
        no_private_modules_of_other_packages,
        "app.web.deps",
        "from app.quiz import _internal",
        "private to app.quiz",
    ),
    (
        no_private_modules_of_other_packages,
        "app.content.loader",
        "import app.quiz._cache",
        "private to app.quiz",
    ),
    (
        no_private_modules_of_other_packages,
        "app.web.routes.quiz",
        "from app.quiz.service import _grade",
        "private to app.quiz",
    ),
    (only_config_reads_the_environment, "app.db", "import os\nURL = os.environ['DATABASE_URL']", "reads os.environ"),
    (only_config_reads_the_environment, "app.db", "import os\nURL = os.getenv('X')", "reads os.getenv"),
    (only_config_reads_the_environment, "app.db", "import os\nURL = os.environb[b'X']", "reads os.environb"),
    (only_config_reads_the_environment, "app.db", "import os as o\nURL = o.environ.get('X')", "reads o.environ"),
    (only_config_reads_the_environment, "app.db", "import os.path\nos.environ.get('X')", "reads os.environ"),
    (only_config_reads_the_environment, "app.db", "from os import environ", "imports environ from os"),
    (only_config_reads_the_environment, "app.db", "from os import getenv as ge", "imports getenv from os"),
    (only_config_reads_the_environment, "app.db", "from os import *", "imports * from os"),
    (only_config_reads_the_environment, "app.db", "import os\ngetattr(os, 'environ')", "getattr(os, 'environ')"),
    (
        only_config_reads_the_environment,
        "app.web.factory",
        "def settings():\n    import os\n    return os.environ",
        "reads os.environ",
    ),
    (cache_policy_only_in_its_module, "app.web.routes.quiz", "H = {'cache-control': 'no-store'}", "'cache-control'"),
    (cache_policy_only_in_its_module, "app.web.caching", "P = 'public, max-age=300'", "'public, max-age=300'"),
    (cache_policy_only_in_its_module, "app.web.deps", "headers = [(b'x', b'no-store')]", "'no-store'"),
    (diagrams_are_pure, "app.diagrams.topology", "from app.web.htmx import VARY", "app.web.htmx"),
    (diagrams_are_pure, "app.diagrams.svg", "from markupsafe import Markup", "markupsafe"),
    (diagrams_are_pure, "app.diagrams", "from app.quiz.bank import Quiz", "app.quiz.bank"),
    (
        exception_views_call_no_service,
        "app.web.exceptions",
        "async def view(request, error):\n    return await app_state(request).quiz.landing(error.quiz)",
        "view calls the quiz service",
    ),
    (
        exception_views_call_no_service,
        "app.web.exceptions",
        "def view(request, error):\n    state = app_state(request)\n    return state.certificates.text('en')",
        "view calls the certificates service",
    ),
    (insert_or_ignore_only_in_conflict, "app.quiz.service", "s = insert(T).on_conflict_do_nothing()", "on_conflict"),
    (insert_or_ignore_only_in_conflict, "app.learners.service", "from sqlalchemy.dialects import sqlite", "sqlite"),
    (one_memo, "app.web.search_pages", "from collections import OrderedDict", "collections.OrderedDict"),
    (one_client_address, "app.web.routes.lab", "from app.ratelimit import client_network", "client_network"),
    (one_client_address, "app.web.routes.lab", "host = request.client.host", "client's address"),
    (one_client_address, "app.web.factory", "host = scope['client'][0]", "client's address"),
    (binary_prefixes_only_in_formatting, "app.content.figures", "SIZES = {'GiB': 2**30}", "binary prefix"),
    (binary_prefixes_only_in_formatting, "app.quiz.units", "KIB = 1024 * 1.0", "binary prefix"),
]

GOOD_EXAMPLES: list[tuple[Rule, str, str]] = [
    (no_relative_imports, "app.quiz.service", "from app.quiz.models import QuizAttempt"),
    (web_frameworks_only_in_web, "app.web.deps", "from fastapi import Depends"),
    (web_frameworks_only_in_web, "app.main", "from fastapi import FastAPI"),
    (web_only_from_the_entry_points, "app.main", "from app.web.factory import build_app"),
    (web_only_from_the_entry_points, "app.cli", "from app.web import factory"),
    (simulator_uses_only_the_standard_library, "app.simulator", "from app import simulator\nimport math"),
    (simulator_uses_only_the_standard_library, "app.quiz.bank", "import yaml"),  # not the simulator
    (
        features_import_only_allowed_edges,
        "app.quiz.service",
        "\n".join(f"import {name}" for name in (*NEUTRAL, "app.content", "app.learners.service", "app.simulator")),
    ),
    (features_import_only_allowed_edges, "app.content.loader", "from app import simulator"),
    (features_import_only_allowed_edges, "app.web.state", "from app.main import create_app"),  # not a feature
    (routes_import_no_infrastructure, "app.web.routes.quiz", "from app.quiz.service import QuizService"),
    (routes_import_no_infrastructure, "app.web.exceptions", "from app.db import DatabaseUnavailableError"),
    (
        no_private_modules_of_other_packages,
        "app.simulator.collectives.planning",
        "from app.simulator.collectives import _tables",
    ),
    (no_private_modules_of_other_packages, "app.web.state", "from app.quiz.service import QuizService as _Service"),
    (no_private_modules_of_other_packages, "app.web.routes", "from app.web._shared import x"),
    (no_private_modules_of_other_packages, "app.quiz.service", "from sqlalchemy.orm._typing import x"),  # not ours
    (only_config_reads_the_environment, "app.config", "import os\nos.environ.get('X')"),
    (only_config_reads_the_environment, "app.db", "import os\nos.path.join('a', 'b')\nENVIRON = 'environ'"),
    (only_config_reads_the_environment, "app.web.factory", "environ = {}\nenviron.get('X')"),  # not the os one
    (cache_policy_only_in_its_module, "app.web.cache_policy", "NO_STORE = 'no-store'"),
    (cache_policy_only_in_its_module, "app.web.routes.quiz", "TEXT = 'the public page, in private'"),
    (
        diagrams_are_pure,
        "app.diagrams.topology",
        "import math\nfrom app.simulator import LINKS\nfrom app.i18n import _",
    ),
    (diagrams_are_pure, "app.web.diagram_pages", "from jinja2 import pass_context"),  # the web side
    (
        exception_views_call_no_service,
        "app.web.exceptions",
        "def view(request, error):\n    state = app_state(request)\n    return state.templates.page(error.quiz)",
    ),
    (exception_views_call_no_service, "app.web.routes.quiz", "async def f(r):\n    await app_state(r).quiz.start()"),
    (insert_or_ignore_only_in_conflict, "app.conflict", "from sqlalchemy.dialects import postgresql, sqlite"),
    (one_memo, "app.remembered", "from collections import OrderedDict"),
    (one_client_address, "app.web.deps", "from app.ratelimit import client_network"),
    (binary_prefixes_only_in_formatting, "app.formatting", "GiB = 2**30"),
    (binary_prefixes_only_in_formatting, "app.simulator.accuracy", "LATENCY_MAX_BYTES = 64 * 2**10"),
    (binary_prefixes_only_in_formatting, "app.web.factory", "minimum_size = 1024\nGB = 10**9"),
]


@pytest.mark.parametrize(
    ("rule", "module", "source", "expected"),
    BAD_EXAMPLES,
    ids=[f"{rule.__name__}-{index}" for index, (rule, *_) in enumerate(BAD_EXAMPLES)],
)
def test_the_rule_catches_a_bad_example(rule: Rule, module: str, source: str, expected: str) -> None:
    is_package = (APP_DIR.parent / module.replace(".", "/") / "__init__.py").is_file()
    problems = rule(parse(module, source, is_package))
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{module}:")
    assert expected in problems[0]


@pytest.mark.parametrize(
    ("rule", "module", "source"),
    GOOD_EXAMPLES,
    ids=[f"{rule.__name__}-{index}" for index, (rule, *_) in enumerate(GOOD_EXAMPLES)],
)
def test_the_rule_lets_a_good_example_through(rule: Rule, module: str, source: str) -> None:
    is_package = (APP_DIR.parent / module.replace(".", "/") / "__init__.py").is_file()
    assert rule(parse(module, source, is_package)) == []


def test_every_rule_has_a_bad_example() -> None:
    assert {rule for rule, *_ in BAD_EXAMPLES} == set(RULES)


def test_a_problem_names_the_line() -> None:
    problems = only_config_reads_the_environment(parse("app.db", '"""Doc."""\n\nimport os\n\nx = os.getenv("X")\n'))
    assert problems == ["app.db:5: reads os.getenv"]
