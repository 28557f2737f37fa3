#!/usr/bin/env python
"""Estimate each lesson's time from its content, the way the lesson headers and the README state it.

Usage::

    python tools/lesson_times.py          # a table: minutes of reading, cells, exercises, widgets, self-check

The estimate counts what a learner does in the English notebook (the Chinese one carries the same content):

* reading: English words of the markdown cells (folded answers excluded) at :data:`WORDS_PER_MIN`, a careful pace
  for technical prose with formulas and tables;
* running a code cell and reading its output: :data:`CODE_CELL_MIN` per cell (worked solutions and the Colab-only
  install cell excluded);
* exercises: :data:`EXERCISE_CELL_MIN` for a learner cell's first answer, :data:`EXTRA_ANSWER_MIN` for each further
  answer checked in the same cell (a matrix cell, a timeline number);
* widgets: :data:`WIDGET_MIN` for the guided steps of each widget;
* self-check: :data:`SELF_CHECK_MIN` per question.

The raw sum is multiplied by :data:`CALIBRATION`, fitted to the one measurement we have: a self-learner took
80-95 min (midpoint 87.5) on the former lesson 5, for which the raw sum gives 67 min. The same factor puts the former
course at about 6.4 h against the 6.5-7.5 h that learner reported, so the estimates are low rather than high; treat
them as +-20 %. Teaching time (reading, cells, widgets) and exercise time (exercises, self-check) are each rounded to
5 min, and the total is their sum.

A time already stated in a lesson's header is kept while the estimate stays within half the rounding step plus
:data:`HYSTERESIS_MIN` of it (:func:`kept_min`): an estimate sitting on a rounding edge (57.7 min against the 57.5
between 55 and 60) would otherwise flip the stated minutes, and every table that shows them, with one word more or
less. A new lesson, or an estimate that moved further, is rounded to the nearest 5 min as before.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WORDS_PER_MIN: float = 130.0
CODE_CELL_MIN: float = 0.5
EXERCISE_CELL_MIN: float = 3.0
EXTRA_ANSWER_MIN: float = 0.5
WIDGET_MIN: float = 5.0
SELF_CHECK_MIN: float = 1.0
CALIBRATION: float = 1.3
#: The measurement :data:`CALIBRATION` is fitted to: minutes a self-learner took on the former lesson 5.
CALIBRATION_MEASURED_MIN: tuple[int, int] = (80, 95)
#: How far a stated time may be off (a fraction, +-).
UNCERTAINTY: float = 0.2
#: Minutes each part of a stated time is rounded to.
ROUND_TO_MIN: int = 5
#: How much further than half of :data:`ROUND_TO_MIN` an estimate must move from a stated time to change it.
HYSTERESIS_MIN: float = 1.0
#: An estimate within this many minutes of a part's stated time keeps it (2.5 + 1 = 3.5 min).
KEEP_WITHIN_MIN: float = ROUND_TO_MIN / 2 + HYSTERESIS_MIN

_WORD = re.compile(r"[A-Za-z0-9']+")
#: A ``check("id", ...)`` call whose first argument is a string or f-string; ``\s*`` spans the line break of a call
#: written over several lines (``check(\n    f"matrix.case{n}_kind", ...)``, lesson 5's exercise 5.1), which the
#: former pattern missed, counting that learner cell as a plain code cell (leftovers 28).
#: A ``check_entries(`` call (a dict of answers, lessons 5 and 6: fuzz pass 27) makes an exercise cell too.
_CHECK_ID = re.compile(r"""\bcheck\(\s*f?(?:"([^"]+)"|'([^']+)')|\bcheck_entries\(""")


@dataclass(frozen=True)
class LessonTime:
    """Estimated minutes of one lesson (``teaching_min`` and ``exercise_min`` rounded to 5)."""

    notebook: str
    raw_teaching_min: float
    raw_exercise_min: float

    @property
    def teaching_min(self) -> int:
        return _round5(self.raw_teaching_min * CALIBRATION)

    @property
    def exercise_min(self) -> int:
        return _round5(self.raw_exercise_min * CALIBRATION)

    @property
    def total_min(self) -> int:
        return self.teaching_min + self.exercise_min

    def kept(self, stated: tuple[int, int] | None) -> tuple[int, int]:
        """(teaching, exercise) minutes to state, given the (teaching, exercise) minutes stated so far (None for a
        lesson that states none): each part by :func:`kept_min`."""
        if stated is None:
            return self.teaching_min, self.exercise_min
        return (
            kept_min(self.raw_teaching_min * CALIBRATION, stated[0]),
            kept_min(self.raw_exercise_min * CALIBRATION, stated[1]),
        )


def _round5(minutes: float) -> int:
    return max(ROUND_TO_MIN, ROUND_TO_MIN * round(minutes / ROUND_TO_MIN))


def kept_min(estimate_min: float, stated_min: int | None) -> int:
    """The minutes to state for a part whose calibrated estimate is ``estimate_min``: ``stated_min`` (the figure
    stated so far) while the estimate lies within :data:`KEEP_WITHIN_MIN` of it and it is a whole step of
    :data:`ROUND_TO_MIN`, else the estimate rounded to the nearest step.

    >>> kept_min(57.7, 60), kept_min(57.3, 60), kept_min(56.4, 60), kept_min(57.7, None), kept_min(57.7, 55)
    (60, 60, 55, 60, 55)
    """
    if (
        stated_min is not None
        and stated_min >= ROUND_TO_MIN
        and stated_min % ROUND_TO_MIN == 0
        and abs(estimate_min - stated_min) <= KEEP_WITHIN_MIN
    ):
        return stated_min
    return _round5(estimate_min)


def estimate(notebook: Path, answers_per_lesson: int | None = None) -> LessonTime:
    """The estimate for one generated English notebook.

    ``answers_per_lesson``: the lesson's registered exercise ids (every answer a learner gives); by default,
    one per learner cell.
    """
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return estimate_cells(notebook.name, cells, answers_per_lesson)


def estimate_cells(name: str, cells: list[Any], answers_per_lesson: int | None = None) -> LessonTime:
    """The estimate for the cells of an English notebook (nbformat dicts or nodes, as read or built)."""
    words = code = exercise_cells = widgets = questions = 0
    for cell in cells:
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] == "markdown":
            if "answer" in tags:
                continue
            words += len(_WORD.findall(source))
            if re.search(r"^## Self-check", source, re.M):
                questions += len(re.findall(r"^\d+\. ", source, re.M))
        elif "solution" not in tags and "colab-install" not in tags:  # Colab's install cell is no lesson work
            if "learner" in tags and _CHECK_ID.search(source):
                exercise_cells += 1
            else:
                code += 1
            widgets += len(re.findall(r"Widget\(", source))
    answers = exercise_cells if answers_per_lesson is None else answers_per_lesson
    teaching = words / WORDS_PER_MIN + code * CODE_CELL_MIN + widgets * WIDGET_MIN
    practice = exercise_cells * EXERCISE_CELL_MIN + max(answers - exercise_cells, 0) * EXTRA_ANSWER_MIN
    practice += questions * SELF_CHECK_MIN
    return LessonTime(name, teaching, practice)


def course_answers(lesson: int) -> int | None:
    """Exercise ids the course's own modules register for ``lesson`` (ids other code registered are not counted)."""
    from coursekit.exercises import PREFIX_MODULES, exercises

    found = [ex for ex in exercises(lesson) if ex.prefix in PREFIX_MODULES]
    return len(found) or None


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from lesson_registry import stated_minutes  # the registry imports this module: read its rule when run

    from coursekit.lessons import LESSONS

    total = 0
    print(f"{'notebook':32s} teaching  exercises  total")
    for entry in LESSONS:
        path = ROOT / "notebooks" / "en" / f"{entry.stem}.ipynb"
        result = estimate(path, course_answers(entry.number))
        stated = stated_minutes((ROOT / "notebooks" / "src" / f"{entry.stem}.py").read_text(encoding="utf-8"))
        teaching, exercises = result.kept(None if stated is None else (stated.teaching, stated.exercises))
        total += teaching + exercises
        print(f"{path.name:32s} {teaching:5d} min {exercises:6d} min {teaching + exercises:4d} min")
    print(f"{'course':32s} {'':20s}{total:4d} min ({total / 60:.1f} h)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
