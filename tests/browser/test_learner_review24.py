"""What the Chinese self-learner of review 24 typed and clicked in lesson 4, in JupyterLab as ``make lab`` starts it.

One JupyterLab server and one page (zh/04 at 1280 x 720, 110 %, file browser open): the page runs the lesson, then

* types into exercise 4.2's cell, as a learner does (click, select the first line, type, Shift+Enter):
  ``answer =`` (the ``...`` deleted, nothing typed yet) shows the line of help under Python's SyntaxError, and
  ``answer = 64,0`` is read from the cell as a decimal comma ("64,0 成了元组"), not as 64,000: the checker reads the
  cell's answer line from the kernel's linecache, which only a real kernel shows;
* picks EP = 2, then DP = 1 in the composition widget (try-this step 3): the summary line under the controls says
  "不通过" and the message gives both counts and the engine's [ep_fold] issue, not "这些输入无法计算".

See tests/test_learner_review24.py for the Python side of the same fixes.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import jupyter_browser

from tests.browser.test_learner_review23 import LAPTOP

NOTEBOOK = "zh/04_composition.ipynb"


@pytest.fixture(scope="module")
def lesson4(browser: Any) -> Iterator[jupyter_browser.LessonPage]:
    server = jupyter_browser.LabServer(settings=jupyter_browser.make_lab_settings("zh"))
    page = jupyter_browser.LessonPage(browser, server, NOTEBOOK, **LAPTOP)
    try:
        state = page.run_all(timeout_s=600)
        assert state["errors"] == [], state["errors"]
        yield page
    finally:
        page.close()
        server.close()


def _cell_index(page: Any, fragment: str) -> int:
    index = page.evaluate(
        """(fragment) => window.jupyterapp.shell.currentWidget.content.widgets.findIndex(
             (cell) => cell.model.sharedModel.getSource().includes(fragment))""",
        fragment,
    )
    assert index >= 0, fragment
    return int(index)


def _type_first_line(lesson: jupyter_browser.LessonPage, index: int, line: str) -> str:
    """Replace the first line of code cell ``index`` by typing ``line``, press Shift+Enter, return the output text."""
    page = lesson.page
    page.evaluate(
        """(i) => { const panel = window.jupyterapp.shell.currentWidget; panel.content.activeCellIndex = i;
             panel.content.scrollToItem(i, 'start');
             panel.content.widgets[i].model.executionCount = null; }""",
        index,
    )
    page.locator(".jp-Notebook .jp-Cell").nth(index).locator(".cm-content").click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Shift+End")
    page.keyboard.type(line)
    source = page.evaluate(
        "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.getSource()", index
    )
    assert source.splitlines()[0] == line  # typed as the learner typed it
    page.keyboard.press("Shift+Enter")
    page.wait_for_function(
        """(i) => { const panel = window.jupyterapp.shell.currentWidget;
             return panel.content.widgets[i].model.executionCount !== null
                 && panel.sessionContext.session.kernel.status === 'idle'; }""",
        arg=index,
        timeout=60_000,
    )
    page.wait_for_timeout(500)  # the line of help is displayed after the error
    text = page.evaluate(
        """(i) => { const cell = window.jupyterapp.shell.currentWidget.content.widgets[i];
             const area = cell.node.querySelector('.jp-OutputArea'); return area ? area.innerText : ''; }""",
        index,
    )
    return str(text).replace("\xa0", " ")


def test_typed_slips_in_exercise_4_2_get_help_in_chinese(lesson4: jupyter_browser.LessonPage) -> None:
    index = _cell_index(lesson4.page, 'check("q4.naive_ranks", answer)')
    empty = _type_first_line(lesson4, index, "answer =")
    assert "SyntaxError" in empty and "第 1 行的等号后面是空的" in empty and "answer = ..." in empty
    # exercise 4.2: 2 x 2 x 2 x 2 x 4 = 64 ranks; 64,0 is 64 with a decimal comma, never 64,000
    comma = _type_first_line(lesson4, index, "answer = 64,0")
    assert "64,0 成了元组" in comma and "写成 64。" in comma
    assert "64,000" not in comma and "64000" not in comma
    right = _type_first_line(lesson4, index, "answer = 64")
    assert right.startswith("正确。")


def test_an_ep_that_cannot_fold_gets_the_fail_verdict(lesson4: jupyter_browser.LessonPage) -> None:
    page = lesson4.page
    widget = page.locator(".ck-widget").first
    summary, message = widget.locator(".ck-summary").first, widget.locator(".ck-message").first
    for name, value in (("ep", "2"), ("dp", "1")):
        before = message.inner_text()
        control = widget.locator(f".ck-control-{name} select").first
        control.scroll_into_view_if_needed()
        control.select_option(label=value)
        page.wait_for_function(
            "([el, text]) => el.innerText !== text", arg=[message.element_handle(), before], timeout=30_000
        )
    page.wait_for_timeout(300)
    shown, whole = summary.inner_text(), message.inner_text().replace("\xa0", " ")
    assert shown.startswith("不通过") and "无法计算" not in shown
    # naive 2 x 4 x 1 x 2 = 16 ranks; the engine TP·CP·DP·PP = 2 x 1 x 1 x 4 = 8 (worked by hand)
    assert "16 个 rank" in whole and "8 个 rank = 1 个节点" in whole
    assert "[ep_fold]" in whole and "ETP·EP·PP = 2·2·4 = 16 不能整除 8" in whole
