"""RISE slide metadata: every generated lesson presents as slides in JupyterLab (jupyterlab-rise)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for lang in ("zh", "en") for p in (ROOT / "notebooks" / lang).glob("[0-9][0-9]_*.ipynb"))
SLIDE_TYPES = {"slide", "subslide", "fragment", "skip", "notes", "-"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_cell_has_a_slide_type(path: Path) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert notebook["metadata"]["rise"]["scroll"] is True
    cells = notebook["cells"]
    types = [cell["metadata"]["slideshow"]["slide_type"] for cell in cells]
    assert set(types) <= SLIDE_TYPES
    assert types[0] == "slide"  # the lesson title opens the deck
    for cell, kind in zip(cells, types, strict=True):
        tags = cell["metadata"].get("tags", [])
        source = "".join(cell["source"]).lstrip()
        if "solution" in tags or ("learner" in tags and cell["cell_type"] == "markdown"):
            assert kind == "skip", "worked solutions and the learner's notes never appear on a slide"
        elif cell["cell_type"] == "markdown" and source.startswith(("# ", "## ")) and "answer" not in tags:
            assert kind == "slide"
        elif cell["cell_type"] == "markdown" and source.startswith("### "):
            assert kind == "subslide"
    assert types.count("slide") >= 5, "a lesson is more than a handful of slides"


def _level2_headings(markdown: str) -> list[str]:
    """The ``## `` heading lines of a markdown cell, outside fenced code.

    >>> _level2_headings("text\\n\\n## 2. Next\\n```\\n## not a heading\\n```\\n### sub")
    ['## 2. Next']
    """
    headings, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            headings.append(line)
    return headings


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_section_heading_starts_a_slide(path: Path) -> None:
    """A ``##`` heading in the middle of a cell would sit on the previous slide: the deck scrolls instead of turning."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    buried = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "markdown" or {"answer", "learner"} & set(cell["metadata"].get("tags", [])):
            continue  # self-check answers are fragments and the learner's notes are skipped (test above)
        source = "".join(cell["source"])
        if _level2_headings(source) and cell["metadata"]["slideshow"]["slide_type"] != "slide":
            buried.append(f"cell {index}: {_level2_headings(source)[0]}")
        elif len(_level2_headings(source)) > 1:
            buried.append(f"cell {index}: {_level2_headings(source)[1]} shares a slide with the heading above it")
    assert not buried, "\n".join(buried)
