"""What the Chinese self-learner of review 15 sees in real JupyterLab.

- Exercise 5.1's six and 5.2's twelve solution buttons each name the cell they show
  ("显示参考解答与结果：案例 2，FSDP"); they were twelve identical buttons.
- A cell Python refuses before ``check`` runs (an input method's full stop, an option without quotes) shows Python's
  error and, under it, one line of help naming the character or the name, with the line retyped.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

STRATEGIES = ("DP", "FSDP", "TP", "PP")


def test_lesson_5_solution_buttons_name_their_cells(open_lesson: Any) -> None:
    page = open_lesson("zh/05_selection_matrix.ipynb")
    captions = page.page.locator(".ck-reveal-button").all_inner_texts()
    captions = [caption.replace("\xa0", " ").strip() for caption in captions]
    for n in (1, 2, 3):
        for part in ("训练状态", "类型", *STRATEGIES):
            wanted = f"显示参考解答与结果：案例 {n}，{part}"
            assert captions.count(wanted) == 1, (wanted, captions)
    # the only unlabelled ones are the lesson's single-exercise cells (5.3, 5.4), never a row of twelve
    assert captions.count("显示参考解答与结果") == 2, captions


def test_a_full_width_full_stop_and_an_unquoted_option_get_a_line_of_help(browser: Any, tmp_path: Path) -> None:
    sources = [
        "import coursekit\ncoursekit.set_language('zh')\nfrom coursekit.exercises import check",
        'answer = 25.77。\ncheck("intro.device_gb", answer)',
        'answer = B\ncheck("q2.latency_bound", answer)',
        'answer = 25.7\ncheck("intro.device_gb", answer)',
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "scratch.ipynb")
    server = jupyter_browser.LabServer(tmp_path)
    page = jupyter_browser.LessonPage(browser, server, "scratch.ipynb", viewport=(1280, 900))
    try:
        assert page.run_cell(0) == ""
        full_stop = page.run_cell(1)
        assert "SyntaxError" in full_stop  # Python's own message stays
        assert "第 1 行有 '。'" in full_stop and "把输入法切换到英文，重新输入这一行：answer = 25.77" in full_stop
        unquoted = page.run_cell(2)
        assert "NameError" in unquoted
        assert "Python 找不到名字 'B'（NameError）" in unquoted and "要加引号写成文字：answer = 'B'" in unquoted
        cut_off = page.run_cell(3)
        assert "截断" in cut_off and "Traceback" not in cut_off
    finally:
        page.close()
        server.close()
