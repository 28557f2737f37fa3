"""What the Chinese self-learner of review 22 sees in real JupyterLab on a 13-inch laptop (1366 x 768).

- Lesson 3's gates widget: choosing "上下文长度" alone changed only CP's reason in the table under the figure, below
  the fold; now the figure right under the dropdown changes (its title names both context values) and the headline
  says which value is still missing.
- Exercise cells: ``answer = 4.45ms`` and ``answer = 约26.2`` show a Chinese line of help under Python's SyntaxError
  (before: the error alone), and ``answer = 0,256`` is read as the decimal 0.256.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import choose, scratch_notebook
from .test_learner_review20 import _output_text

SOURCES = [
    "import coursekit\ncoursekit.set_language('zh')\n"
    "from coursekit.exercises import check\n"
    "from coursekit.widgets.gates import GatesWidget\n"
    "GatesWidget()",
    "answer = ...",
    "answer = ...",
    "answer = 0,256\ncheck('q2.crossover_mib', answer)",
]


def _type_and_run(page: Any, index: int, source: str) -> str:
    """Put ``source`` into code cell ``index`` as the learner types it, run it, and return its output text."""
    page.page.evaluate(
        """([i, s]) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.setSource(s)""",
        [index, source],
    )
    return str(page.run_cell(index))


def test_a_context_chosen_alone_changes_what_is_on_screen(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as lesson:
        page = lesson.page
        page.set_viewport_size({"width": 1366, "height": 768})
        gates = page.locator(".ck-widget").first
        menu = gates.locator(".ck-control-context_len select").first
        menu.scroll_into_view_if_needed()
        figure = gates.locator(".ck-figure").first
        before = figure.get_attribute("src")
        message = choose(page, gates, "context_len", "32,768")
        assert "上下文只声明了一半：“单卡可容纳的上下文 (token)”还是“未声明”" in message
        page.wait_for_function("([img, src]) => img.getAttribute('src') !== src", arg=[figure.element_handle(), before])
        # the figure that changed is on screen with the menu the learner used
        box, viewport = figure.bounding_box(), page.viewport_size
        menu_box = menu.bounding_box()
        assert box is not None and menu_box is not None and viewport is not None
        assert menu_box["y"] >= 0 and box["y"] < viewport["height"] - 100, (menu_box, box)


def test_a_number_typed_with_a_unit_gets_a_chinese_line_of_help(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as lesson:
        unit = _type_and_run(lesson, 1, "answer = 4.45ms")
        assert "第 1 行的数后面带着单位 'ms'：Python 的数不带单位。只写数，用题目要求的单位：answer = 4.45" in unit
        about = _type_and_run(lesson, 2, "answer = 约26.2")
        assert "不用写“约”：answer = 26.2" in about
        comma = _output_text(lesson.page, 3)
        assert "0,256 成了元组。小数要用小数点：写成 0.256。" in comma and "tuple" not in comma
