"""Browser fixtures: one JupyterLab server and one Chromium for the whole browser session.

Outside CI the browser tests skip with one line when Chromium or Playwright is missing;
in CI (CI=true) a missing browser is a failure: .ci/run installs it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

IN_CI = os.environ.get("CI", "").lower() in ("true", "1")
HOW_TO = "install Debian's chromium (apt-get install chromium fonts-noto-cjk) and `pip install playwright`"


def _missing() -> str | None:
    if jupyter_browser.chromium_path() is None:
        return "Chromium is not installed"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the Python package playwright is not installed"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    missing = _missing()
    if missing:
        if IN_CI:
            pytest.fail(f"browser tests need a browser in CI: {missing}; {HOW_TO}")
        pytest.skip(f"browser tests skipped: {missing}; to enable them, {HOW_TO}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = jupyter_browser.launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def lab_server(browser: Any) -> Iterator[jupyter_browser.LabServer]:
    server = jupyter_browser.LabServer()
    yield server
    server.close()


@pytest.fixture
def open_lesson(browser: Any, lab_server: jupyter_browser.LabServer) -> Iterator[Any]:
    """Opens a lesson (``"zh/09_workbench.ipynb"``) in the session's JupyterLab at 1280 × 1000, runs it all (waiting
    up to 10 minutes: lesson 9 plans dozens of runs), checks that no cell failed, and closes it after the test."""
    pages: list[jupyter_browser.LessonPage] = []

    def open_(notebook: str) -> jupyter_browser.LessonPage:
        page = jupyter_browser.LessonPage(browser, lab_server, notebook, viewport=(1280, 1000))
        pages.append(page)
        state = page.run_all(timeout_s=600)
        assert state["errors"] == [], f"{notebook}: {state['errors']}"
        return page

    yield open_
    for page in pages:
        page.close()
