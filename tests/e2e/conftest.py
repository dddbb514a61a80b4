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


@pytest.fixture(scope="session")
def browser(live_server: str) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    with open_page(browser) as opened:
        yield opened


@pytest.fixture(scope="session")
def screenshot_dir() -> Path | None:
    """Set SCREENSHOT_DIR to keep screenshots of the pages the tests visit, for people to look at (it is emptied)."""
    configured = os.environ.get("SCREENSHOT_DIR")
    if not configured:
        return None
    path = Path(configured)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path
