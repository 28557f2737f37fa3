"""coursekit.widgets.matrix: lesson 5's constraints widget against independent coursekit calls."""

from __future__ import annotations

import re

import ipywidgets
import pytest
from matplotlib.colors import to_hex

import coursekit
from coursekit.matrix import STRATEGIES, constraint_case, evaluate_paper_case
from coursekit.plotting import new_figure
from coursekit.shapes import MODEL_SHAPES
from coursekit.widgets.matrix import VERDICT_COLOURS, MatrixWidget, matrix_view, verdict_grid_chart


def _evaluation(model: str, device: int, topology: str, batch: int, seq: int):  # type: ignore[no-untyped-def]
    case = constraint_case(model, device_memory_gib=device, global_batch=batch, seq_len=seq)
    return evaluate_paper_case(case, topology)


def test_default_cells_are_evaluate_paper_cases() -> None:
    w = MatrixWidget()
    assert w.status == "ok" and w.result is not None
    expected = _evaluation("megatron-7.5b", 24, "unspecified", 64, 2048)
    assert w.result.evaluation == expected
    for bar, verdict in zip(w.bars, expected.verdicts, strict=True):
        assert bar.get_width() == pytest.approx(verdict.memory_per_rank_gib or 0.0)
        assert to_hex(bar.get_facecolor()) == VERDICT_COLOURS[verdict.verdict]
    assert list(w.device_line.get_xdata()) == [24, 24]
    # every strategy's first reason is in the message, in order
    positions = [w.message.index(f"<b>{s}</b>") for s in STRATEGIES]
    assert positions == sorted(positions)
    assert "111.3 GiB" in w.message  # 7.5B's training state (tests/test_matrix.py works it by hand)


@pytest.mark.parametrize(
    ("control", "value", "strategy", "before", "after"),
    [
        # FSDP alone: S/32 + A + R + peak > 16 GiB, so TP is needed (TP 2 x FSDP 16 fits); links unknown
        ("device_memory_gib", 16, "TP", "not_preferred", "needs_info"),
        ("global_batch", 16, "FSDP", "feasible", "not_preferred"),  # 32 ranks cannot share 16 sequences
        ("seq_len", 32768, "PP", "feasible", "not_preferred"),  # a stage must hold a whole layer's activations
    ],
)
def test_one_constraint_moves_one_cell(control: str, value: int, strategy: str, before: str, after: str) -> None:
    w = MatrixWidget()
    assert w.result is not None and w.result.evaluation.summary()[strategy] == before
    png = bytes(w.image.value)
    w.controls[control].value = value
    assert w.result is not None and w.result.evaluation.summary()[strategy] == after
    assert bytes(w.image.value) != png


def test_topology_turns_tp_from_needs_info_to_feasible() -> None:
    w = MatrixWidget(model="megatron-18.4b")
    assert w.result is not None and w.result.evaluation.summary()["TP"] == "needs_info"
    w.controls["topology"].value = "hierarchical"
    assert w.result is not None and w.result.evaluation.summary()["TP"] == "feasible"
    assert w.result.evaluation == _evaluation("megatron-18.4b", 24, "hierarchical", 64, 2048)


def test_main_control_is_a_slider_over_every_model_shape() -> None:
    w = MatrixWidget()
    main = w.controls["model"]
    assert isinstance(main, ipywidgets.SelectionSlider)
    assert [value for _label, value in main.options] == list(MODEL_SHAPES)


def test_speaks_chinese() -> None:
    coursekit.set_language("zh")
    try:
        w = MatrixWidget()
        assert "训练状态 111.3 GiB" in w.message and "不优先" in w.message and "可行" in w.message
        assert not re.search(r"[A-Za-z]{4,} [A-Za-z]{4,}", re.sub(r"<[^>]+>", "", w.message))
    finally:
        coursekit.set_language("en")


def test_grid_colours_each_cell_by_its_verdict() -> None:
    views = [matrix_view(name, 24, "hierarchical", 64, 2048) for name in ("megatron-1.7b", "gpt3-175b")]
    ax = new_figure(4, 2).add_subplot()
    verdict_grid_chart(ax, views)
    colours = [to_hex(patch.get_facecolor()) for patch in ax.patches]
    expected = [VERDICT_COLOURS[v.verdict] for view in views for v in view.evaluation.verdicts]
    assert colours == expected
