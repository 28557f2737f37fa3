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


@pytest.mark.parametrize(("lang", "narrow"), [("en", True), ("zh", False)])
def test_english_sheet_draws_curly_quotes_narrow(browser: Any, lang: str, narrow: bool) -> None:
    """The website's smart quotes turn the English sheet's apostrophes into ’, which a CJK font draws a full em wide
    ("don’t" with a gap). The English sheet sets Latin punctuation in a Latin font; the Chinese one keeps its CJK font,
    where the same mark is full width (the check can fail: it measures both)."""
    page = browser.new_page()
    try:
        page.set_content(
            cheatsheet_pdf.cheatsheet_html(lang).replace("</body>", "<p><span id='q'>’’’’’’’’’’</span></p></body>")
        )
        page.emulate_media(media="print")
        em = page.evaluate("parseFloat(getComputedStyle(document.getElementById('q')).fontSize)")
        width = page.evaluate("document.getElementById('q').getBoundingClientRect().width") / 10
    finally:
        page.close()
    assert (width < 0.5 * em) == narrow, f"{lang}: one ’ is {width / em:.2f} em wide"
