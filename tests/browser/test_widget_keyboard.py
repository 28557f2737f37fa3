"""Every lesson widget's main control can be stepped from the keyboard without leaving it, in real JupyterLab.

A learner who tabs to a widget's main control and presses an arrow key must see the value change, keep the focus in
the control, and keep the notebook where it was. A dropdown fails this in JupyterLab: ArrowDown leaves it and moves
the selected cell. One notebook shows every widget once, so the check costs one JupyterLab page.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import nbformat
import pytest

import coursekit.widgets
from coursekit.widgets import LessonWidget

from .conftest import jupyter_browser


def widget_classes() -> list[tuple[str, str]]:
    """Every LessonWidget subclass of the coursekit.widgets modules, as (module, class name)."""
    found = []
    for info in pkgutil.iter_modules(coursekit.widgets.__path__):
        module = importlib.import_module(f"coursekit.widgets.{info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, LessonWidget) and cls.__module__ == module.__name__ and not inspect.isabstract(cls):
                found.append((module.__name__, name))
    return sorted(found)


WIDGETS = widget_classes()


@pytest.fixture(scope="module")
def keyboard_page(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("keyboard")
    cells = [nbformat.v4.new_code_cell("import coursekit\ncoursekit.set_language('en')")]
    cells += [nbformat.v4.new_code_cell(f"from {module} import {name}\n{name}()") for module, name in WIDGETS]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, folder / "keyboard.ipynb")
    server = jupyter_browser.LabServer(Path(folder))
    page = jupyter_browser.LessonPage(browser, server, "keyboard.ipynb")
    try:
        state = page.run_all()
        assert state["errors"] == [], state["errors"]
        page.page.locator(".ck-widget").nth(len(WIDGETS) - 1).wait_for(state="visible", timeout=120_000)
        yield page
    finally:
        page.close()
        server.close()


def test_every_widget_is_on_the_page(keyboard_page: Any) -> None:
    assert len(WIDGETS) >= 9 and keyboard_page.widget_count() == len(WIDGETS)


@pytest.mark.parametrize("index", range(len(WIDGETS)), ids=[name for _module, name in WIDGETS])
def test_main_control_steps_from_the_keyboard(keyboard_page: Any, index: int) -> None:
    # a slider's handle: ArrowRight steps up and ArrowDown steps back; a number box: ArrowUp and ArrowDown
    handle = keyboard_page.page.locator(".ck-widget").nth(index).locator(".ck-main .noUi-handle").count()
    for key in ("ArrowRight", "ArrowDown") if handle else ("ArrowUp", "ArrowDown"):
        step = keyboard_page.step_with_key(index, key)
        assert step.value_after != step.value_before, f"{WIDGETS[index][1]}: {key} did not change the value"
        assert step.focus_stayed, f"{WIDGETS[index][1]}: {key} moved the focus out of the control"
        assert step.active_cell_after == step.active_cell_before, f"{WIDGETS[index][1]}: {key} moved the cell"
