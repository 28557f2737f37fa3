"""Fuzz pass 27, in real JupyterLab (Chromium): lessons 5 and 6's dict answers with a key renamed, deleted or a row
that is no dict show a Chinese verdict naming each key in the cell's output, and no traceback. The cells run are the
lessons' own learner cells (from the built Chinese notebooks) with only the learner's dict changed; before the fix
the renamed key raised a ValueError and the list row an AttributeError, which this notebook's "run all" refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .conftest import scratch_notebook
from .test_learner_review20 import _output_text

ROOT = Path(__file__).resolve().parents[2]


def _learner_cell_after(lesson: str, marker: str, start: str) -> str:
    """The part of the Chinese lesson's learner cell containing ``marker`` from the line starting ``start`` on (the
    learner's dict literal before it is left out, to be replaced)."""
    cells = json.loads((ROOT / "notebooks" / "zh" / lesson).read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        source = "".join(cell["source"])
        if "learner" in cell.get("metadata", {}).get("tags", []) and marker in source:
            return source[source.index(start) :]
    raise AssertionError(marker)


SOURCES = [
    "import coursekit\ncoursekit.set_language('zh')\nfrom coursekit.exercises import check_entries\n"
    "from coursekit.i18n import Text",
    "my_timeline_ms = {'compute': 240.0, 'bubble_ms': 90.0}\n"
    + _learner_cell_after("06_pipeline_scaling.ipynb", "my_timeline_ms", "parts = ("),
    "my_matrix = {1: {'dp': 'feasible'}, 2: ['feasible']}\n"
    + _learner_cell_after("05_selection_matrix.ipynb", "my_matrix", "strategies = ("),
]


def test_dict_answers_get_a_chinese_verdict_for_every_key(browser: Any, tmp_path: Path) -> None:
    with scratch_notebook(browser, tmp_path, SOURCES) as lesson:
        timeline = _output_text(lesson.page, 1)
        assert "my_timeline_ms 里的键 'compute' 不是这道题问的，没有检查" in timeline, timeline
        assert "compute_ms：无法检查。my_timeline_ms 里没有键 'compute_ms'" in timeline, timeline
        assert "step_ms：无法检查。my_timeline_ms 里没有键 'step_ms'" in timeline, timeline
        matrix = _output_text(lesson.page, 2)
        assert "正确。" in matrix  # 'dp' is row 1's DP, and feasible is its answer
        assert "my_matrix[1] 里没有键 'TP'" in matrix and "my_matrix[1] 里没有键 'PP'" in matrix, matrix
        assert "my_matrix[2] = ['feasible']：必须是一个字典 (dict)" in matrix, matrix
        assert "my_matrix 里没有键 3" in matrix, matrix
        for text in (timeline, matrix):
            assert "Traceback" not in text and "Error" not in text
