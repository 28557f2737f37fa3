"""Every lesson, in both languages, in a real browser: run all, no error, no answer on screen, the main widget responds.

Screenshots of each lesson after the interaction go to artifacts/browser/ (gitignored).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .answers_visible import visible_leaks
from .conftest import jupyter_browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts" / "browser"
NOTEBOOKS = jupyter_browser.lesson_notebooks()


def _uses_widgets(notebook: str) -> bool:
    cells = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    return any("coursekit.widgets" in "".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")


def test_every_lesson_exists_in_both_languages() -> None:
    zh = {name.split("/", 1)[1] for name in NOTEBOOKS if name.startswith("zh/")}
    en = {name.split("/", 1)[1] for name in NOTEBOOKS if name.startswith("en/")}
    assert zh == en and len(zh) >= 6


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_lesson_runs_and_its_widget_responds(
    browser: Any, lab_server: jupyter_browser.LabServer, notebook: str
) -> None:
    page = jupyter_browser.LessonPage(browser, lab_server, notebook)
    try:
        state = page.run_all()
        assert state["errors"] == [], f"{notebook}: cells produced errors: {state['errors']}"
        assert page.console_errors == [], f"{notebook}: page errors: {page.console_errors}"
        leaks = visible_leaks(page.page, notebook)  # before any interaction: what Run All alone leaves on screen
        assert leaks == [], f"{notebook}: answers visible after Run All:\n" + "\n".join(leaks)
        shot = ARTIFACTS / notebook.replace("/", "_").replace(".ipynb", ".png")
        if _uses_widgets(notebook):
            page.wait_for_widget()
            interaction = page.move_main_control()
            assert interaction.figure_changed, (
                f"{notebook}: the figure did not change after a {interaction.control_kind} move"
            )
            assert interaction.message_changed, (
                f"{notebook}: the result text did not change after a {interaction.control_kind} move: "
                f"{interaction.message_before!r}"
            )
            assert "Traceback" not in interaction.message_after
            assert page.state()["errors"] == []
        page.screenshot(shot)
        assert shot.stat().st_size > 10_000
    finally:
        page.close()
