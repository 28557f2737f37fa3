"""Print each language's course to one PDF with Chromium, from the site's print stylesheet.

Run by :func:`build_site.build` after :mod:`finish`: for each language, the lesson pages' articles are
put one after another into ``notebooks/LANG/course.print.html`` (beside the lessons, so every stylesheet,
image and link resolves as on the pages themselves), and Chromium prints that page (``@media print``: the
site's coursekit-print.css keeps the lesson text and opens folded solutions and answers) to
``course-LANG.pdf`` at the site's root. Skipped, with a note in the build summary, when Chromium or
Playwright is missing.

One Chromium prints both languages at once (a page each, so both cores work), and the print page leaves out
the live widgets' precomputed states (paper shows each widget's figure as built; the page's script would
otherwise decode every state's image first).
"""

from __future__ import annotations

import asyncio
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
#: A live widget's precomputed states (coursekit.widgets.frames): data for the page's slider, not for paper.
_LIVE_FRAMES = re.compile(r'<script type="application/json" class="ck-live-frames">.*?</script>', re.S)
MARGINS = {"top": "15mm", "bottom": "15mm", "left": "14mm", "right": "14mm"}
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
            articles.append(_LIVE_FRAMES.sub("", match.group(0)))
    body = (
        f'<body><main class="ck-print-course"><h1 class="ck-print-title">{TITLE.render(lang)}</h1>'
        + "\n".join(articles)
        + "</main></body>"
    )
    target = folder / "course.print.html"
    target.write_text(_BODY.sub(lambda _: body, first, count=1), encoding="utf-8")
    return target


def print_pdfs(out: Path, lessons: dict[str, list[str]], usage: dict[str, float] | None = None) -> dict[str, str]:
    """``course-zh.pdf`` and ``course-en.pdf`` at the root of ``out``; returns {lang: file name or reason}.

    ``usage``, when given, receives ``browser_cpu_s``: the CPU seconds Chromium spent (its helper processes are
    not children this process reaps, so the build's CPU clock would not see them).
    """
    sys.path.insert(0, str(ROOT / "tools"))
    import jupyter_browser

    try:
        from playwright.async_api import async_playwright
    except ImportError:
        return {lang: "skipped: playwright is not installed" for lang in lessons}
    if jupyter_browser.chromium_path() is None:
        return {lang: "skipped: Chromium is not installed" for lang in lessons}
    sources = {lang: source for lang, stems in lessons.items() if (source := print_page(out, lang, stems))}
    if not sources:
        return {}
    # A caller's thread may hold a running asyncio loop (the JupyterLab browser tests in the same session):
    # print from a worker thread of our own, with its own loop.
    work = _print_all(out, sources, async_playwright, jupyter_browser, usage if usage is not None else {})
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, work).result()
    finally:
        for source in sources.values():
            source.unlink(missing_ok=True)


async def _print_all(
    out: Path, sources: dict[str, Path], async_playwright: Any, jupyter_browser: Any, usage: dict[str, float]
) -> dict[str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from phase_clock import tree_cpu_s

    before = tree_cpu_s()  # processes alive before (a test session's JupyterLab): their CPU so far left out
    async with async_playwright() as playwright:
        browser = await jupyter_browser.launch_chromium(playwright)
        try:
            context = await browser.new_context()

            async def one(lang: str, source: Path) -> tuple[str, str]:
                page = await context.new_page()
                await page.goto(source.as_uri(), wait_until="load")
                await page.evaluate("document.fonts.ready.then(() => true)")
                name = f"course-{lang}.pdf"
                await page.pdf(path=str(out / name), format="A4", margin=MARGINS)
                await page.close()
                return lang, name

            done = dict(await asyncio.gather(*(one(lang, source) for lang, source in sources.items())))
            usage["browser_cpu_s"] = round(tree_cpu_s() - before, 2)
        finally:
            await browser.close()
    return done
