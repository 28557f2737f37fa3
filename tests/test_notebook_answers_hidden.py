"""After Run All with nothing answered, no verdict and no expected answer is visible above or beside an exercise.

Each generated lesson notebook is executed (nbclient) as it ships. For every fill-in cell
``check("id", answer)``:

* no output of a cell up to and including that fill-in cell says "correct" (in either language);
* none of those outputs shows the expected answer (numbers at 3 and 4 significant digits, integers of
  three or more digits, lists and tuples as Python prints them; short or word answers such as ``2`` or
  ``'interconnect'`` occur in ordinary prose and are not searched for);
* the worked-solution cells are folded, source and outputs, and they still ran without error
  (each ends with ``verify(...)``, which raises when the solution is wrong).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from coursekit.exercises import get_exercise
from tests.notebook_outputs import LANGS, executed, is_solution, lesson_notebooks, output_texts

CHECK_CALL = re.compile(r'check\("([a-z0-9]+\.[a-z0-9_]+)",\s*answer\)')
VERIFY_CALL = re.compile(r'verify\("([a-z0-9]+\.[a-z0-9_]+)",\s*answer\)')
CORRECT_WORDS = ("Correct:", "正确：")

NOTEBOOKS = [path for lang in LANGS for path in lesson_notebooks(lang)]


def _shown_forms(value: Any) -> list[str]:
    """How an expected answer would look if a cell printed it (forms too short to be telling are left out)."""
    if isinstance(value, bool) or isinstance(value, str) or isinstance(value, (set, frozenset)):
        return []
    if isinstance(value, int):
        return [str(value)] if abs(value) >= 100 else []
    if isinstance(value, float):
        forms = {f"{value:.4g}", f"{value:.3g}", f"{value:.2f}"}
        return sorted(f for f in forms if len(f.strip("-0.")) >= 3)
    if isinstance(value, (list, tuple)):
        return [repr(value)]
    return []


def _exercise_cells(notebook: Any) -> list[tuple[int, str]]:
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and not is_solution(cell):
            found.extend((index, eid) for eid in CHECK_CALL.findall(cell.source))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_nothing_answered_shows_no_verdict_and_no_answer(path: Path) -> None:
    notebook = executed(path)
    exercises = _exercise_cells(notebook)
    for index, exercise_id in exercises:
        forms = _shown_forms(get_exercise(exercise_id).expected_value())
        for earlier in range(index + 1):
            cell = notebook.cells[earlier]
            if cell.cell_type != "code" or is_solution(cell):
                continue
            for text in output_texts(cell):
                where = f"{path.name} cell {earlier} (exercise {exercise_id} is cell {index})"
                assert not any(word in text for word in CORRECT_WORDS), f"{where} shows a verdict: {text[:200]!r}"
                for form in forms:
                    pattern = rf"(?<![\d.]){re.escape(form)}(?![\d])"
                    assert not re.search(pattern, text), f"{where} shows the answer {form}: {text[:300]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solutions_are_folded_and_still_assert(path: Path) -> None:
    notebook = executed(path)
    solutions = [cell for cell in notebook.cells if is_solution(cell)]
    for cell in solutions:
        folded = cell.metadata.get("jupyter", {})
        assert folded.get("source_hidden") and folded.get("outputs_hidden"), cell.source[:80]
        assert not any(o.get("output_type") == "error" for o in cell.get("outputs", [])), cell.source[:80]
    checked = {eid for _, eid in _exercise_cells(notebook)}
    verified = {eid for cell in solutions for eid in VERIFY_CALL.findall(cell.source)}
    assert checked <= verified, f"{path.name}: exercises without a verifying solution: {checked - verified}"
