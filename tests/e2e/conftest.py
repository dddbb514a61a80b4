"""End-to-end fixtures: a real uvicorn serving the app, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.e2e.browser import AXE_SOURCE, CHROMIUM, CHROMIUM_ARGS, open_page
from tests.servers import INTERCONNECTS_SERVE, running_server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.path):
            item.add_marker(pytest.mark.e2e)


def _require_browser() -> None:
    missing = [str(path) for path in (Path(CHROMIUM), AXE_SOURCE) if not path.exists()]
    if missing:
        reason = f"browser tests need {', '.join(missing)} (apt-get install chromium; npm ci)"
        if os.environ.get("E2E_REQUIRED") == "1":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app as `interconnects serve` runs it (a real uvicorn process), on SQLite in a temporary folder."""
    _require_browser()
    var_dir = tmp_path_factory.mktemp("e2e-var")
    with running_server(INTERCONNECTS_SERVE, var_dir, {"SECRET_KEY": "e2e-" + "k" * 40}) as base_url:
        yield base_url


@pytest.fixture(scope="module")
def browser(live_server: str) -> Iterator[Browser]:
    """Chromium for one test file. Playwright's sync API keeps an event loop running in this thread while it is
    open, so it closes with the file: a pytest-xdist worker then runs other files' event loops after it."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with open_page(browser) as opened:
        yield opened


def pytest_configure(config: pytest.Config) -> None:
    """SCREENSHOT_DIR is emptied once per run, by the process that runs or hands out the tests (never by one of
    pytest-xdist's workers, which would delete what the others took)."""
    configured = os.environ.get("SCREENSHOT_DIR")
    if configured and not hasattr(config, "workerinput"):
        shutil.rmtree(configured, ignore_errors=True)


@pytest.fixture(scope="session")
def screenshot_dir() -> Path | None:
    """Set SCREENSHOT_DIR to keep screenshots of the pages the tests visit, for people to look at (it is emptied)."""
    configured = os.environ.get("SCREENSHOT_DIR")
    if not configured:
        return None
    path = Path(configured)
    path.mkdir(parents=True, exist_ok=True)
    return path
