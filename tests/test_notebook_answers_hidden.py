"""After Run All with nothing answered, no verdict and no expected answer is visible above or beside an exercise.

Each generated lesson notebook is executed (nbclient) as it ships. For every fill-in cell
``check("id", answer)``:

* no output of a cell up to and including that fill-in cell says "correct" (in either language);
* none of those outputs, worked solutions included (JupyterLab unfolds the outputs of a cell it runs, and
  other front ends never fold them), shows the expected answer in any form a learner would recognise
  (:func:`tests.notebook_outputs.answer_forms`: numbers at 2 to 4 significant digits, with and without
  thousands separators, lists and tuples as Python prints them; short or word answers such as ``2`` or
  ``'interconnect'`` occur in ordinary prose and are not searched for);
* "beside" an exercise includes the cells right after it, up to the next markdown heading: neither their sources
  (code and prose) nor their outputs show a verdict or the answer (a learner reads on before answering); the
  folded sources of worked solutions and self-check answers (``<details>`` blocks) are exempt, their outputs are not;
* the worked-solution cells are folded, source and outputs, and they still ran without error
  (each ends with ``verify(...)``, which raises when the solution is wrong); what they show is the
  button that reveals the solution, never the result;
* every self-check answer is a ``<details>`` block (folded in every Markdown renderer).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from coursekit.exercises import get_exercise
from tests.notebook_outputs import (
    LANGS,
    answer_forms,
    coincidence,
    executed,
    is_solution,
    lesson_notebooks,
    output_texts,
    shows,
)

CHECK_CALL = re.compile(r'check\("([a-z0-9]+\.[a-z0-9_]+)",\s*answer\)')
VERIFY_CALL = re.compile(r'verify\(\s*"([a-z0-9]+\.[a-z0-9_]+)",\s*answer\b')
CORRECT_WORDS = ("Correct. ", "正确。")

NOTEBOOKS = [path for lang in LANGS for path in lesson_notebooks(lang)]


def _shown_forms(value: Any) -> list[str]:
    """How an expected answer would look if a cell printed it (forms too short to be telling are left out)."""
    return answer_forms(value)


def _exercise_cells(notebook: Any) -> list[tuple[int, str]]:
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and not is_solution(cell):
            found.extend((index, eid) for eid in CHECK_CALL.findall(cell.source))
    return found


def _beside(notebook: Any, index: int) -> list[int]:
    """The cells right after the fill-in cell ``index``, up to (not including) the next markdown heading."""
    found = []
    for after in range(index + 1, len(notebook.cells)):
        cell = notebook.cells[after]
        if cell.cell_type == "markdown" and re.match(r"\s*#", cell.source):
            break
        found.append(after)
    return found


def _leaks(text: str, forms: list[str]) -> list[str]:
    """What in ``text`` gives the answer away: a verdict word, or one of the answer's ``forms``."""
    found = [word for word in CORRECT_WORDS if word in text]
    return found + [form for form in forms if shows(text, form)]


def test_beside_stops_at_the_next_heading_and_leaks_are_found() -> None:
    import nbformat

    cells = [
        nbformat.v4.new_code_cell('answer = ...\ncheck("q4.dp_group", answer)'),
        nbformat.v4.new_code_cell("print(groups)"),
        nbformat.v4.new_markdown_cell("The ranks of one TP group are consecutive."),
        nbformat.v4.new_markdown_cell("## 7. Next section"),
        nbformat.v4.new_code_cell("print(1)"),
    ]
    assert _beside(nbformat.v4.new_notebook(cells=cells), 0) == [1, 2]
    assert _leaks("DP groups: [[0, 2], [1, 3], [4, 6], [5, 7]]", _shown_forms([5, 7])) == ["[5, 7]"]
    assert _leaks("[15, 7]", _shown_forms([5, 7])) == []
    assert _leaks("Correct. 25.77", _shown_forms(25.77)) == ["Correct. ", "25.77"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_cells_after_an_exercise_do_not_give_its_answer_away(path: Path) -> None:
    notebook = executed(path)
    found = []
    for index, exercise_id in _exercise_cells(notebook):
        forms = _shown_forms(get_exercise(exercise_id).expected_value())
        for after in _beside(notebook, index):
            cell = notebook.cells[after]
            folded = is_solution(cell) or "answer" in cell.get("metadata", {}).get("tags", [])
            sources = [] if folded else [cell.source]  # a folded source is read only by a learner who opens it
            for text in [*sources, *(output_texts(cell) if cell.cell_type == "code" else [])]:
                if leaks := _leaks(text, forms):
                    found.append(f"cell {after} (exercise {exercise_id} is cell {index}) shows {leaks}: {text[:200]!r}")
    assert not found, f"{path.parent.name}/{path.name}:\n" + "\n".join(found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_nothing_answered_shows_no_verdict_and_no_answer(path: Path) -> None:
    notebook = executed(path)
    exercises = _exercise_cells(notebook)
    for index, exercise_id in exercises:
        forms = _shown_forms(get_exercise(exercise_id).expected_value())
        for earlier in range(index + 1):
            cell = notebook.cells[earlier]
            if coincidence(exercise_id, cell.source):
                continue
            # a code cell shows its outputs; a markdown cell shows its own text (the browser test reads both on screen)
            texts = output_texts(cell) if cell.cell_type == "code" else [cell.source]
            for text in texts:
                where = f"{path.name} cell {earlier} (exercise {exercise_id} is cell {index})"
                assert not any(word in text for word in CORRECT_WORDS), f"{where} shows a verdict: {text[:200]!r}"
                for form in forms:
                    assert not shows(text, form, exercise_id), f"{where} shows the answer {form}: {text[:300]!r}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solutions_are_folded_and_still_assert(path: Path) -> None:
    notebook = executed(path)
    solutions = [cell for cell in notebook.cells if is_solution(cell)]
    for cell in solutions:
        folded = cell.metadata.get("jupyter", {})
        assert folded.get("source_hidden") and folded.get("outputs_hidden"), cell.source[:80]
        assert not any(o.get("output_type") == "error" for o in cell.get("outputs", [])), cell.source[:80]
        for eid in VERIFY_CALL.findall(cell.source):
            # what Run All leaves under the solution: the button (its plain-text form names show_solution)
            plain = [str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", [])]
            offers = [text for text in plain if f'show_solution("{eid}")' in text]
            assert offers, f"{path.name}: the solution of {eid} shows no button: {output_texts(cell)}"
            for text in output_texts(cell):
                for form in _shown_forms(get_exercise(eid).expected_value()):
                    where = f"{path.name}: the solution of {eid}"
                    assert not shows(text, form, eid), f"{where} shows {form}: {text[:200]!r}"
    checked = {eid for _, eid in _exercise_cells(notebook)}
    verified = {eid for cell in solutions for eid in VERIFY_CALL.findall(cell.source)}
    assert checked <= verified, f"{path.name}: exercises without a verifying solution: {checked - verified}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_self_check_answers_are_details_blocks(path: Path) -> None:
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    answers = [cell for cell in notebook.cells if "answer" in cell.get("metadata", {}).get("tags", [])]
    for cell in answers:
        assert cell.cell_type == "markdown"
        details = r'<details class="ck-answer">\n<summary>[^<]+</summary>\n\n.+\n\n</details>'
        assert re.fullmatch(details, cell.source, re.S), cell.source[:120]
