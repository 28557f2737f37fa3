"""Print the cheat sheet to PDF with Chromium: ``python tools/cheatsheet_pdf.py zh out.pdf``.

The Markdown of ``docs/cheatsheet_{lang}.md`` is rendered to HTML (markdown-it, tables on) with the dedicated print
stylesheet ``docs/cheatsheet-print.css`` and printed by Chromium on A4 (Playwright's ``page.pdf``). The sheet is
meant to fill one page; :func:`pdf_page_count` counts the pages of the result, so a test can hold it to that.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
sys.path.insert(0, str(Path(__file__).resolve().parent))

_PAGE = re.compile(rb"/Type\s*/Page(?!s)")


def cheatsheet_html(lang: str) -> str:
    """The printable HTML of one language's cheat sheet."""
    from markdown_it import MarkdownIt

    text = (DOCS / f"cheatsheet_{lang}.md").read_text(encoding="utf-8")
    body = MarkdownIt("commonmark").enable("table").render(text)
    style = (DOCS / "cheatsheet-print.css").read_text(encoding="utf-8")
    title = html.escape(text.splitlines()[0].lstrip("# "))
    return (
        f'<!doctype html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">'
        f"<title>{title}</title><style>{style}</style></head><body>{body}</body></html>"
    )


def print_pdf(browser: Any, lang: str) -> bytes:
    """The cheat sheet of ``lang`` printed by ``browser`` (a Playwright Chromium) on A4, as PDF bytes."""
    page = browser.new_page()
    try:
        page.set_content(cheatsheet_html(lang), wait_until="load")
        page.emulate_media(media="print")
        pdf: bytes = page.pdf(format="A4", print_background=True, prefer_css_page_size=True)
        return pdf
    finally:
        page.close()


def pdf_page_count(pdf: bytes) -> int:
    """Pages of a PDF: pypdf's count when it is installed, else the ``/Type /Page`` objects (not ``/Pages``).

    >>> pdf_page_count(b"1 0 obj << /Type /Pages /Count 2 >> 2 0 obj << /Type /Page >> 3 0 obj << /Type/Page >>")
    2
    """
    try:
        from io import BytesIO

        from pypdf import PdfReader
    except ImportError:
        return len(_PAGE.findall(pdf))
    return len(PdfReader(BytesIO(pdf)).pages)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("zh", "en"):
        print("usage: python tools/cheatsheet_pdf.py {zh,en} OUT.pdf", file=sys.stderr)
        return 2
    out = Path(argv[1])
    if not out.parent.is_dir():  # say so before Chromium runs, not as a traceback after it (fuzz pass 24)
        return _refuse_path(FileNotFoundError(2, "No such file or directory", str(out.parent)))
    import jupyter_browser
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = jupyter_browser.launch_chromium(playwright)
        try:
            pdf = print_pdf(browser, argv[0])
        finally:
            browser.close()
    try:
        out.write_bytes(pdf)
    except OSError as exc:
        return _refuse_path(exc)
    print(f"{argv[1]}: {pdf_page_count(pdf)} page(s)")
    return 0


def _refuse_path(exc: OSError) -> int:
    """One line on stderr saying which path could not be written and why (in the course's language); status 1."""
    from coursekit._cli import os_error_message

    print(f"cheatsheet_pdf.py: {os_error_message(exc)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
