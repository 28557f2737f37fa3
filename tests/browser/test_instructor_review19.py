"""What a Chinese instructor projecting the zh lessons found in a real browser (review 19).

Review 18 measured the English lessons' code cells in plain JupyterLab (no line wrapping) at 1280 px and at 1024 px
zoomed to 125 %; the zh lessons' cells differ in their comments, which are Chinese (a CJK character takes two
columns in the 80-column rule). The same measurement, on the zh lessons, with review 18's test body.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser import test_instructor_review18 as review18

ZH_LESSONS = [name for name in jupyter_browser.lesson_notebooks() if name.startswith("zh/")]


@pytest.mark.parametrize(
    ("viewport", "zoom", "fold_file_browser"),
    [((1280, 900), 1.0, False), ((819, 614), 1.25, True)],
    ids=["1280px", "1024px-zoom125"],
)
def test_no_zh_code_cell_scrolls_sideways_in_plain_jupyterlab(
    browser: Any,
    lab_server: Any,
    viewport: tuple[int, int],
    zoom: float,
    fold_file_browser: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert len(ZH_LESSONS) == 11
    monkeypatch.setattr(review18, "LESSONS", ZH_LESSONS)
    review18.test_no_code_cell_scrolls_sideways_in_plain_jupyterlab(
        browser, lab_server, viewport, zoom, fold_file_browser
    )
