"""A dropdown whose first option is "not declared" (value None) shows that option again when the learner picks it
again, in real JupyterLab.

ipywidgets reads a value of None as "nothing selected": choosing "not declared" again after a number emptied the
box (lesson 3's gates widget, the context-length controls), while the widget's message went on as declared-nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import scratch_notebook

SOURCES = [
    "import coursekit\ncoursekit.set_language('zh')",
    "from coursekit.widgets.gates import GatesWidget\nGatesWidget()",
]


def test_picking_not_declared_again_shows_it(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as page:
        page.wait_for_widget()
        # the two context controls, each first "not declared" (未声明), found by their names (the grid may move them)
        for name in ("context_len", "max_context_per_device"):
            menu = page.page.locator(f".ck-widget .ck-control-{name} select").first
            assert menu.evaluate("m => m.options[m.selectedIndex].text") == "未声明"
            menu.select_option(index=1)  # a number of tokens
            page.page.wait_for_function("m => m.selectedIndex === 1", arg=menu.element_handle(), timeout=30_000)
            menu.select_option(index=0)  # "not declared" again
            page.page.wait_for_timeout(1500)  # the kernel answers the change; a blank box is selectedIndex -1
            shown = menu.evaluate("m => [m.selectedIndex, m.selectedIndex >= 0 ? m.options[m.selectedIndex].text : '']")
            assert shown == [0, "未声明"], shown
