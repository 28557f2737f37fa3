"""Browser fixtures: one JupyterLab server and one Chromium for the whole browser session.

Outside CI the browser tests skip with one line when Chromium or Playwright is missing;
in CI (CI=true) a missing browser is a failure: .ci/run installs it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


@pytest.fixture(scope="module")
def zh_lab(browser: Any) -> Iterator[jupyter_browser.LabServer]:
    """A JupyterLab server with its Chinese UI (as ``make lab`` starts it for the zh lessons), one per test module."""
    server = jupyter_browser.LabServer(settings=jupyter_browser.make_lab_settings("zh"))
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


def widget_message(widget: Any) -> str:
    """The text of a lesson widget's message box, as the learner reads it (non-breaking spaces as spaces)."""
    return str(widget.locator(".ck-message").first.inner_text()).replace("\xa0", " ").strip()


def change_and_wait(page: Any, widget: Any, change: Callable[[], object], *, timeout_ms: int = 15_000) -> str:
    """Make ``change`` to one of ``widget``'s controls, as a learner would (choose an option, press a key), and
    wait until the widget's message box shows another text, or ``timeout_ms`` has passed; the message then.

    A change that leaves the message as it was returns after the timeout with that message: the caller's
    assertion says what was expected.
    """
    before = widget_message(widget)
    change()
    for _ in range(max(1, timeout_ms // 100)):
        page.wait_for_timeout(100)
        if widget_message(widget) != before:
            break
    return widget_message(widget)


def choose(page: Any, widget: Any, key: str, label: str) -> str:
    """Choose the option shown as ``label`` in the menu of control ``key`` (CSS class ``ck-control-<key>``); the
    message once it has changed."""
    select = widget.locator(f".ck-control-{key} select").first
    return change_and_wait(page, widget, lambda: select.select_option(label=label))


def press(page: Any, widget: Any, key: str, keyname: str) -> str:
    """Focus the slider handle of control ``key`` and press ``keyname`` (``"Home"``, ``"ArrowRight"`` ...); the
    message once it has changed."""
    handle = widget.locator(f".ck-control-{key} .noUi-handle").first

    def step() -> None:
        handle.focus()
        handle.press(keyname)

    return change_and_wait(page, widget, step)


def write_notebook(path: Path, sources: list[str]) -> Path:
    """A notebook of code cells ``sources`` written at ``path`` for the course's kernel (``python3``); ``path``."""
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, path)
    return path


@contextmanager
def scratch_notebook(browser: Any, folder: Path, sources: list[str]) -> Iterator[jupyter_browser.LessonPage]:
    """A notebook of code cells ``sources`` written to ``folder``, opened in its own JupyterLab and run (no cell may
    fail); closed after the ``with`` block. For a test of one widget or button outside the lessons."""
    write_notebook(folder / "scratch.ipynb", sources)
    server = jupyter_browser.LabServer(folder)
    page = jupyter_browser.LessonPage(browser, server, "scratch.ipynb")
    try:
        state = page.run_all()
        assert state["errors"] == [], state["errors"]
        yield page
    finally:
        page.close()
        server.close()


@contextmanager
def lesson_page(
    browser: Any, server: jupyter_browser.LabServer, notebook: str, *, run_all_s: float | None = None, **options: Any
) -> Iterator[jupyter_browser.LessonPage]:
    """``notebook`` opened in ``server``'s JupyterLab (``options``: the LessonPage's viewport, zoom ...), run all first
    when ``run_all_s`` is given (waiting that long; no cell may fail), and closed after the ``with`` block however it
    ends: the try/finally each browser test wrote out again."""
    lesson = jupyter_browser.LessonPage(browser, server, notebook, **options)
    try:
        if run_all_s is not None:
            state = lesson.run_all(timeout_s=run_all_s)
            assert state["errors"] == [], f"{notebook}: {state['errors']}"
        yield lesson
    finally:
        lesson.close()


@contextmanager
def running_lab(**options: Any) -> Iterator[jupyter_browser.LabServer]:
    """A JupyterLab server of its own (``options``: the LabServer's, e.g. ``settings``), started in the environment
    as it is now (a test's ``JUPYTER_PATH``, ``IPYTHONDIR``) and stopped after the ``with`` block."""
    server = jupyter_browser.LabServer(**options)
    try:
        yield server
    finally:
        server.close()


def restart_kernel(page: Any, *, timeout_ms: int = 120_000) -> None:
    """Restart the kernel of the notebook open in ``page`` (JupyterLab's Kernel → Restart Kernel) and wait until the
    new kernel is idle."""
    page.evaluate(
        "async () => { await window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart(); }"
    )
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'",
        timeout=timeout_ms,
    )
