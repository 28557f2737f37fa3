"""Lesson 10's roofline figure (section 4): the roof bends at the H100's ridge point, which the figure names.

The figure sampled the roof at powers of two only, so between 256 and 512 FLOP/byte a slanted segment replaced the
corner and the dotted ridge line (unlabelled) met no bend. H100 (SXM) datasheet: 989 TFLOP/s dense bf16, 3.35 TB/s
HBM3, so the ridge is 989e12 / 3.35e12 = 295.2 FLOP/byte.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import matplotlib
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
PEAK_TFLOPS = 989.0
HBM_TB_PER_S = 3.35


def _run_until_roofline(lang: str) -> dict[str, Any]:
    """The lesson's code cells, up to and including the one that draws the roofline, run in one namespace."""
    matplotlib.use("Agg")
    notebook = nbformat.read(ROOT / "notebooks" / lang / "10_serving.ipynb", as_version=4)
    namespace: dict[str, Any] = {"__name__": "__lesson__"}
    for cell in notebook.cells:
        if cell.cell_type != "code" or "%pip" in cell.source:  # the Colab-only install cell
            continue
        exec(compile(cell.source, f"10_serving[{lang}]", "exec"), namespace)
        if "ax.axvline(ridge" in cell.source:
            return namespace
    raise AssertionError("no roofline cell")


@pytest.mark.parametrize(("lang", "word"), [("zh", "脊点"), ("en", "ridge")])
def test_roofline_bends_at_the_labelled_ridge(lang: str, word: str) -> None:
    import coursekit

    try:
        lesson = _run_until_roofline(lang)
        ax = lesson["ax"]
        roof = ax.lines[0]
        xs, ys = list(roof.get_xdata()), list(roof.get_ydata())
        ridge = PEAK_TFLOPS / HBM_TB_PER_S
        assert math.isclose(lesson["ridge"], ridge, rel_tol=1e-9)
        corner = min(range(len(xs)), key=lambda i: abs(xs[i] - ridge))
        assert math.isclose(xs[corner], ridge, rel_tol=1e-9), f"the roof is not sampled at the ridge: {xs}"
        assert math.isclose(ys[corner], PEAK_TFLOPS, rel_tol=1e-9)
        # on the slope every point is intensity × bandwidth; past the ridge it is the peak
        for x, y in zip(xs, ys, strict=True):
            assert math.isclose(y, min(PEAK_TFLOPS, x * HBM_TB_PER_S), rel_tol=1e-9), (x, y)
        texts = [t.get_text() for t in ax.texts]
        assert any(word in t and "295" in t for t in texts), texts
    finally:
        coursekit.set_language("en")
