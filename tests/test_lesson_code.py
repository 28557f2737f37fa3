"""Lesson code uses coursekit's public names only: a learner copies what a lesson does, so it must not reach into a
private attribute (``obj._name``) that may change without notice."""

from __future__ import annotations

import ast
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))


def private_attributes(code: str) -> list[str]:
    """``._name`` accesses in ``code`` (dunder names such as ``__file__`` are public), IPython magics skipped.

    >>> private_attributes("x = result._table.columns['tp']\\ny = obj.__class__\\nz = a.public")
    ['_table']
    """
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    tree = ast.parse("\n".join(lines))
    return [
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
    ]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_lesson_code_uses_no_private_attribute(path: Path) -> None:
    notebook = jupytext.reads(path.read_text(encoding="utf-8"), fmt="py:percent")
    found = [
        f"cell {index}: ._{name.lstrip('_')}"
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "code"
        for name in private_attributes(cell.source)
    ]
    assert not found, "\n".join(found)
