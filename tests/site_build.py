"""The course website, built once per test session for every site test module, and served on localhost.

Import the fixtures into a test module (``from tests.site_build import served, site``): pytest then shares
the session-scoped build between modules. ``COURSEKIT_SITE_DIR`` points the tests at a site built before
(``python tools/site/build_site.py --out DIR``) instead of building one: for working on the tests only.
"""

from __future__ import annotations

import concurrent.futures
import functools
import http.server
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "site"))

import build_site  # noqa: E402
import jupyter_browser  # noqa: E402

IN_CI = os.environ.get("CI", "").lower() in ("true", "1")
T = TypeVar("T")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("myst_nb", reason="the site extra is not installed (pip install -e '.[site]')")
    prebuilt = os.environ.get("COURSEKIT_SITE_DIR")
    if prebuilt:
        return Path(prebuilt).resolve()
    out = tmp_path_factory.mktemp("site") / "site"
    build_site.build(out, jobs=2, execute=True)
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def need_browser() -> None:
    """Skip (fail in CI) when Chromium or playwright is missing."""
    missing = jupyter_browser.chromium_path() is None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing = True
    if missing:
        if IN_CI:
            pytest.fail("the site's browser tests need Chromium and playwright in CI")
        pytest.skip("Chromium or playwright missing: apt-get install chromium; pip install playwright")


def in_browser(work: Callable[[Any], T], timeout_s: float = 900) -> T:
    """Run ``work(browser)`` with a fresh headless Chromium, in a thread of its own.

    Playwright's sync API refuses a thread with a running event loop (the JupyterLab browser tests keep one
    open for the session), so the browser is driven from a worker thread.
    """
    need_browser()
    from playwright.sync_api import sync_playwright

    def run() -> T:
        with sync_playwright() as playwright:
            browser = jupyter_browser.launch_chromium(playwright)
            try:
                return work(browser)
            finally:
                browser.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result(timeout=timeout_s)


#: Pages let the browser skip laying out code cells far from the screen (coursekit.css: content-visibility); a test of
#: the whole page's layout (overflow, contrast, figure sizes) renders every cell, as scrolling would.
RENDER_EVERY_CELL = ".bd-article .cell { content-visibility: visible !important; }"


def evaluate_on_pages(
    browser: Any, base: str, paths: list[str], script: str, viewport: dict[str, int]
) -> dict[str, Any]:
    """What ``script`` evaluates to on each page of ``paths`` (served at ``base``), every code cell rendered, in one
    browser context of ``viewport`` CSS pixels at one device pixel per CSS pixel: the loop the site's phone tests
    share (test_site_browser.py, test_site_review26.py)."""
    context = browser.new_context(viewport=viewport, device_scale_factor=1)
    page = context.new_page()
    found = {}
    try:
        for path in paths:
            page.goto(f"{base}/{path}", wait_until="load")
            page.add_style_tag(content=RENDER_EVERY_CELL)
            found[path] = page.evaluate(script)
    finally:
        context.close()
    return found


def labels_on_pages(browser: Any, base: str, paths: tuple[str, ...], script: str) -> dict[str, list[list[str]]]:
    """What ``script`` (a reading of a page's labels: ``[kind, text]`` pairs) finds on each page of ``paths`` (served
    at ``base``) at 1280 x 720: as loaded, after hovering each visible header button (the theme makes its tooltips
    on hover) and with the search dialog open (Ctrl+K). The loop the site's language tests share
    (test_site_leftovers26.py, test_site_leftovers27.py)."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    found: dict[str, list[list[str]]] = {}
    for path in paths:
        page.goto(f"{base}/{path}", wait_until="load")
        page.wait_for_timeout(500)
        labels = page.evaluate(script)
        for button in page.locator(".article-header-buttons button, .navbar-header-items button").all():
            if button.is_visible():
                button.hover()
                page.wait_for_timeout(100)
                labels += page.evaluate(script)
        page.keyboard.press("Control+k")
        page.wait_for_timeout(300)
        labels += page.evaluate(script)
        page.keyboard.press("Escape")
        found[path] = labels
    page.close()
    return found


def run_search(page: Any, base: str, search_page: str, query: str) -> None:
    """Open ``search_page`` (``search.html``, ``search-zh.html``) at ``base`` for ``query`` in ``page`` and wait until
    the search has finished: the summary stays empty until then (the count, or that no page matched, in the search
    page's language, tools/site/finish.py)."""
    from urllib.parse import quote

    page.goto(f"{base}/{search_page}?q={quote(query)}")
    page.wait_for_function(
        "() => /\\S/.test(document.querySelector('#search-results .search-summary')?.innerText || '')",
        timeout=60_000,
    )
