"""The cheat sheet prints on one A4 page per language (Chromium's print to PDF, the sheet's print stylesheet)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import cheatsheet_pdf


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_cheatsheet_prints_on_one_a4_page(browser: Any, lang: str) -> None:
    pdf = cheatsheet_pdf.print_pdf(browser, lang)
    assert pdf.startswith(b"%PDF")
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", pdf)
    assert boxes and all(abs(float(w) - 595.3) < 1 and abs(float(h) - 841.9) < 1 for w, h in boxes)  # A4 in points
    assert cheatsheet_pdf.pdf_page_count(pdf) == 1, f"cheatsheet_{lang}.md prints on more than one A4 page"


def test_the_page_count_sees_a_second_page(browser: Any) -> None:
    """The count is not stuck at 1: the same sheet twice over needs two pages."""
    page = browser.new_page()
    try:
        doubled = cheatsheet_pdf.cheatsheet_html("en").replace(
            "</body>", "<div style='page-break-before:always'>x</div></body>"
        )
        page.set_content(doubled)
        pdf = page.pdf(format="A4")
    finally:
        page.close()
    assert cheatsheet_pdf.pdf_page_count(pdf) == 2
