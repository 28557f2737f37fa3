"""What the English self-learner of review 16 sees in real JupyterLab.

- ``answer = 5.4%`` shows Python's SyntaxError and, under it, one line saying to drop the percent sign, with the
  fraction (0.054) and the percentage (5.4) written out; it was a bare "invalid syntax".
- Exercise 7.5 answered with one significant digit (0.05 for 0.0538) is told to write more digits, not sent back to
  the method.
- Lesson 9's table of measured layout pairs shows the estimated ratio to three decimals, so the two pairs it counts
  as reversed read 1.001 and 0.999, not "1.00".
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser


def test_a_percent_sign_and_a_one_digit_answer_get_their_own_help(browser: Any, tmp_path: Path) -> None:
    sources = [
        "import coursekit\ncoursekit.set_language('en')\nfrom coursekit.exercises import check",
        'answer = 5.4%\ncheck("eff.decode_share", answer)',
        'answer = 0.05\ncheck("eff.decode_share", answer)',
        'answer = 0.054\ncheck("eff.decode_share", answer)',
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "scratch.ipynb")
    server = jupyter_browser.LabServer(tmp_path)
    page = jupyter_browser.LessonPage(browser, server, "scratch.ipynb", viewport=(1280, 900))
    try:
        assert page.run_cell(0) == ""
        percent = page.run_cell(1)
        assert "SyntaxError" in percent  # Python's own message stays
        assert "percent sign '%'" in percent
        assert "write answer = 0.054 (5.4% is 0.054)" in percent and "write answer = 5.4." in percent
        one_digit = page.run_cell(2)
        assert "needs 2 significant digits: you wrote fewer" in one_digit
        assert "Each matmul sees only 16 tokens" not in one_digit  # not the method hint
        assert page.run_cell(3).startswith("Correct.")
    finally:
        page.close()
        server.close()


def test_lesson_9_layout_pairs_show_three_decimals(open_lesson: Any) -> None:
    page = open_lesson("en/09_workbench.ipynb")
    tables = page.page.locator(".jp-RenderedMarkdown table").all_inner_texts()
    pairs = next(text for text in tables if "estimated A÷B" in text)
    rows = [row.split("\t") for row in pairs.splitlines() if row.startswith("llama3-8b")]
    # Llama 3 8B: CP 2 against DP 8 and back, measured 0.83 and 1.07, estimated within 0.1 % of a tie
    assert [(row[3], row[4], row[6]) for row in rows] == [
        ("0.83", "1.001", "reversed"),
        ("1.07", "0.999", "reversed"),
    ]
