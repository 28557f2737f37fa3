"""What a learner sees after Run All in JupyterLab, with nothing answered: no exercise's answer, no self-check answer.

For every fill-in cell ``check("id", answer)`` the visible text (``innerText``) of the cells up to it and of the
worked solutions right after it must not contain the exercise's answer in any form a learner would recognise
(:func:`tests.notebook_outputs.answer_forms`: the exercise registry computes the answer). Every self-check answer
must be a closed ``<details>`` block whose content is not rendered (visibility, not mere presence).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from coursekit.exercises import get_exercise
from tests.notebook_outputs import answer_forms, coincidence, shows

ROOT = Path(__file__).resolve().parents[2]
CHECK_CALL = re.compile(r'check\("([a-z0-9]+\.[a-z0-9_]+)",\s*answer\)')

_JS_CELLS = """
() => window.jupyterapp.shell.currentWidget.content.widgets.map(cell => cell.node.innerText)
"""

_JS_DETAILS = """
() => [...window.jupyterapp.shell.currentWidget.node.querySelectorAll('details.ck-answer')].map(d => ({
  open: d.open,
  summaryVisible: !!(d.querySelector('summary') && d.querySelector('summary').getClientRects().length),
  // a closed <details> hides its content with content-visibility (it keeps a layout box): ask the browser
  contentVisible: [...d.children].some(c => c.tagName !== 'SUMMARY' && c.checkVisibility()),
  contentInText: d.innerText.trim() !== d.querySelector('summary').innerText.trim(),
  text: d.innerText.slice(0, 80),
}))
"""


def _cells(notebook: str) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))["cells"]
    return cells


def visible_leaks(page: Any, notebook: str) -> list[str]:
    """Every answer the page shows after Run All (empty when none): exercise answers and open self-checks."""
    cells = _cells(notebook)
    texts: list[str] = page.evaluate(_JS_CELLS)
    found: list[str] = []
    if len(texts) != len(cells):
        return [f"{notebook}: the page shows {len(texts)} cells, the notebook has {len(cells)}"]
    for index, cell in enumerate(cells):
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "solution" in tags:
            continue
        for exercise_id in CHECK_CALL.findall("".join(cell["source"])):
            end = index + 1
            while end < len(cells) and "solution" in cells[end].get("metadata", {}).get("tags", []):
                end += 1  # the worked solutions right below the fill-in cell are on screen with it
            forms = answer_forms(get_exercise(exercise_id).expected_value())
            for shown in range(end):
                if coincidence(exercise_id, "".join(cells[shown]["source"])):
                    continue
                for form in forms:
                    if shows(texts[shown], form, exercise_id):
                        found.append(f"cell {shown} shows {form}, the answer of {exercise_id} (cell {index})")
    answers = sum("answer" in cell.get("metadata", {}).get("tags", []) for cell in cells)
    details = page.evaluate(_JS_DETAILS)
    if len(details) != answers:
        found.append(f"{answers} self-check answers, but {len(details)} <details> blocks on the page")
    for block in details:
        if block["open"] or block["contentVisible"] or block["contentInText"] or not block["summaryVisible"]:
            found.append(f"a self-check answer is visible: {block}")
    return found
