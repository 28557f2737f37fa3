"""Print each language's course to one PDF with Chromium, from the site's print stylesheet.

Run by :func:`build_site.build` after :mod:`finish`: for each language, the lesson pages' articles are
put one after another into ``notebooks/LANG/course.print.html`` (beside the lessons, so every stylesheet,
image and link resolves as on the pages themselves), and Chromium prints that page (``@media print``: the
site's coursekit-print.css keeps the lesson text and opens folded solutions and answers) to
``course-LANG.pdf`` at the site's root. Skipped, with a note in the build summary, when Chromium or
Playwright is missing.
"""

from __future__ import annotations

import concurrent.futures
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # loaded by path from the site builder: the course's own package
    sys.path.insert(0, str(ROOT))

from coursekit.i18n import Text  # noqa: E402

_ARTICLE = re.compile(r'<article class="bd-article">.*?</article>', re.S)
_BODY = re.compile(r"<body\b[^>]*>.*</body>", re.S)
TITLE = Text(zh="coursekit 课程（中文）", en="coursekit course (English)")


def print_page(out: Path, lang: str, lessons: list[str]) -> Path | None:
    """The one page holding every lesson article of ``lang``, or None when there is none."""
    folder = out / "notebooks" / lang
    pages = [folder / f"{stem}.html" for stem in lessons if (folder / f"{stem}.html").exists()]
    if not pages:
        return None
    first = pages[0].read_text(encoding="utf-8")
    articles = []
    for page in pages:
        match = _ARTICLE.search(page.read_text(encoding="utf-8"))
        if match:
            articles.append(match.group(0))
    body = (
        f'<body><main class="ck-print-course"><h1 class="ck-print-title">{TITLE.render(lang)}</h1>'
        + "\n".join(articles)
        + "</main></body>"
    )
    target = folder / "course.print.html"
    target.write_text(_BODY.sub(lambda _: body, first, count=1), encoding="utf-8")
    return target


def print_pdfs(out: Path, lessons: dict[str, list[str]]) -> dict[str, str]:
    """``course-zh.pdf`` and ``course-en.pdf`` at the root of ``out``; returns {lang: file name or reason}."""
    sys.path.insert(0, str(ROOT / "tools"))
    import jupyter_browser

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {lang: "skipped: playwright is not installed" for lang in lessons}
    if jupyter_browser.chromium_path() is None:
        return {lang: "skipped: Chromium is not installed" for lang in lessons}
    # Playwright's sync API refuses a thread whose asyncio loop is running (a caller that drives a browser itself,
    # such as the JupyterLab browser tests in the same test session): print from a worker thread of our own.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_print_all, out, lessons, sync_playwright, jupyter_browser).result()


def _print_all(out: Path, lessons: dict[str, list[str]], sync_playwright: Any, jupyter_browser: Any) -> dict[str, str]:
    done: dict[str, str] = {}
    with sync_playwright() as playwright:
        browser = jupyter_browser.launch_chromium(playwright)
        try:
            page = browser.new_page()
            for lang, stems in lessons.items():
                source = print_page(out, lang, stems)
                if source is None:
                    continue
                page.goto(source.as_uri(), wait_until="load")
                page.evaluate("document.fonts.ready.then(() => true)")
                name = f"course-{lang}.pdf"
                page.pdf(
                    path=str(out / name),
                    format="A4",
                    margin={"top": "15mm", "bottom": "15mm", "left": "14mm", "right": "14mm"},
                )
                source.unlink()
                done[lang] = name
        finally:
            browser.close()
    return done
