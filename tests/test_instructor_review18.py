"""What an English instructor found preparing and rehearsing the English lessons in a real browser (review 18), fixed.

Expected values are worked from the lessons' own statements, the browser's measurements and the guides' sentences,
not read from the code under test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.test_instructor_review17 import display_columns

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"

#: Projected at 1024 px with the browser zoomed to 125 % (819 CSS px) and the file browser folded away, a code
#: cell's editor in plain JupyterLab (no line wrapping: VS Code, JupyterLite, a learner's own JupyterLab) is 637 px
#: wide, 81 columns of its 7.83 px monospace font (measured in Chromium); at 1280 px with the file browser open it is
#: 846 px, 108 columns. Before this review 101 of the English lessons' 262 code cells scrolled sideways at 1280 px.
MAX_CODE_COLUMNS = 80

#: A language-marked comment of a lesson source (``# zh: ...``); each notebook shows it as ``# ...``.
_MARKED = re.compile(r"^(\s*)# (zh|en): ")


def source_code_lines(path: Path) -> list[tuple[int, str]]:
    r"""The code lines of a lesson source as a notebook shows them (a marked comment without its marker), numbered.

    >>> import tempfile
    >>> text = '# %% [markdown]\n# a long prose line\n\n# %%\nx = 1\n# zh: 注释\n# en: a note\n'
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder) / "01_x.py"
    ...     _ = path.write_text(text, encoding="utf-8")
    ...     source_code_lines(path)
    [(5, 'x = 1'), (6, '# 注释'), (7, '# a note'), (8, '')]
    """
    lines, code = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
        if line.startswith("# %%"):
            code = "[markdown]" not in line
            continue
        if code:
            lines.append((number, _MARKED.sub(r"\1# ", line)))
    return lines


def test_the_width_rule_counts_what_the_editor_shows() -> None:
    # a CJK character takes two columns; an 80-column line fits, an 81-column one does not
    assert display_columns("x" * 80) == 80 and display_columns("计" * 40) == 80
    assert display_columns("计" * 40 + "x") == MAX_CODE_COLUMNS + 1


def test_no_lesson_source_code_line_is_wider_than_a_projected_editor() -> None:
    wide = [
        f"{path.name}:{number}: {display_columns(line)} columns: {line.strip()[:60]}"
        for path in sorted(SRC.glob("[0-9][0-9]_*.py"))
        for number, line in source_code_lines(path)
        if display_columns(line) > MAX_CODE_COLUMNS
    ]
    assert not wide, "\n".join(wide)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_generated_code_line_is_wider_than_a_projected_editor(lang: str) -> None:
    # the generated cells too: the Colab install cell's comment (105 columns) and a worked solution's first line
    # (97 columns in English) came from tools/build_notebooks.py, not from a lesson source
    wide = [
        f"{path.name}: {display_columns(line)} columns: {line.strip()[:60]}"
        for path in sorted((ROOT / "notebooks" / lang).glob("*.ipynb"))
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
        for line in "".join(cell["source"]).splitlines()
        if display_columns(line) > MAX_CODE_COLUMNS
    ]
    assert not wide, "\n".join(wide)
