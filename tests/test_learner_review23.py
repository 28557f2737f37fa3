"""What the Chinese self-learner of review 23 met on a 13-inch laptop (lessons 4, 6, 7, 8, 10 and every widget), fixed.

1. At 1280 x 720 with 110 % zoom and the file browser open, the visible notebook area is 534 px tall and an output
   area 732 px wide. A widget showed its controls, then its whole message (130-470 px), then its figure: with the
   control a learner moved at the top of the screen, the figure was below the fold in lessons 1, 3, 4, 7 and 10
   (lesson 1's try-this step 1 is read in the figure). Now every widget shows the verdict's first line right under
   its controls, then the figure, then the whole message; lessons 1 and 4 set their controls in two columns that fit
   732 px, and five figures are shorter. tests/browser/test_learner_review23.py measures it in Chromium.
2. ``answer = 约206`` (exercise 7.2's H200 ridge point, 989 / 4.8 = 206 FLOP/byte): "约" and a whole number make one
   Python name, so the cell raised a NameError and the line of help said to put it in quotes as an option
   (``answer = '约206'``, another wrong answer) or to run the cells above. ``约0.16`` (a SyntaxError) has had the
   right hint since review 22; now the NameError gets the same: leave out "约", ``answer = 206``.
3. ``answer = '1,074e5'`` (exercise 8.2's 107,374 bytes with a decimal comma, in scientific notation) was read as a
   thousands comma and told to write ``answer = 1074e5``, 1000 times the answer; a mantissa has no thousands group,
   so the comma is now read as its decimal point (``answer = 1.074e5``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from coursekit.exercises.input_help import input_hint
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

#: The output area at 1280 x 720, 110 % zoom, file browser open (measured in Chromium, JupyterLab 4.6).
LAPTOP_OUTPUT_PX = 732
#: The font size ipywidgets' em resolves to in JupyterLab (13 px: --jp-widgets-font-size).
EM_PX = 13
#: ipywidgets' margin around each control, both sides (--jp-widgets-margin: 2 px a side).
CONTROL_MARGINS_PX = 4


def _lesson_widgets() -> list[Any]:
    from coursekit.widgets.capacity import CapacityWidget
    from coursekit.widgets.communication import CommunicationWidget
    from coursekit.widgets.composition import CompositionWidget
    from coursekit.widgets.gates import GatesWidget
    from coursekit.widgets.matrix import MatrixWidget
    from coursekit.widgets.pipeline import PipelineWidget
    from coursekit.widgets.roofline import RooflineWidget
    from coursekit.widgets.scaling import ScalingWidget
    from coursekit.widgets.serving import ServingWidget

    return [
        CapacityWidget(),
        CommunicationWidget(),
        GatesWidget(),
        CompositionWidget(),
        MatrixWidget(),
        PipelineWidget(stages=4, microbatches=8),
        ScalingWidget(),
        RooflineWidget(),
        ServingWidget(),
    ]


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip()


# -- 1. what a moved control changes is under the controls --------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_every_lesson_widget_shows_the_verdicts_first_line_then_the_figure_under_its_controls() -> None:
    for widget in _lesson_widgets():
        _controls, summary, image, message = widget.view.children
        assert (summary, image, message) == (widget.summary_html, widget.image, widget.message_html), type(widget)
        assert "ck-summary" in summary._dom_classes
        shown, whole = _text(summary.value), _text(message.value)
        # the summary is the message's first line, level word included ("通过：..."), and never the whole table
        assert shown and whole.startswith(shown), (type(widget).__name__, shown, whole)


@pytest.mark.usefixtures("zh")
def test_the_summary_follows_the_control_the_learner_moves() -> None:
    from coursekit.widgets.capacity import CapacityWidget

    widget = CapacityWidget()  # the ZeRO paper's 7.5B at DP 8, ZeRO-0: 16 bytes x 7.5e9 / 2^30 = 111.8 GiB of states
    assert "不通过" in _text(widget.summary_html.value)
    widget.controls["zero_stage"].value = 3  # ZeRO-3 shards all 16 bytes over 8 ranks: 14.0 GiB of states a rank
    assert _text(widget.summary_html.value).startswith("通过：")


def test_the_headline_is_the_first_line_of_a_verdict() -> None:
    from coursekit.widgets import headline_html

    assert headline_html("Fits.<br>Per rank: 13.9 GiB") == "Fits."
    assert headline_html("<b>3 of 7 pass<br>DP</b>") == "<b>3 of 7 pass</b>"  # an element left open is closed
    assert headline_html("7 candidates.<table><tr><td>DP</td></tr></table>") == "7 candidates."
    assert headline_html("one line only") == "one line only"


def _grid_rows(widget: Any) -> list[list[str]]:
    """The rows of a widget's control grid (coursekit.widgets.control_grid): the names in each grid, or the one name of
    a control that takes a row of its own."""
    import ipywidgets

    names = {id(control): name for name, control in widget.controls.items()}
    return [
        [names[id(c)] for c in row.children] if isinstance(row, ipywidgets.GridBox) else [names[id(row)]]
        for row in widget.view.children[0].children
    ]


def test_the_two_column_controls_fit_a_laptops_output_area() -> None:
    from coursekit.widgets import GRID_COLUMN_MIN_WIDTH, capacity, composition

    # lesson 1: at 30em a column, two columns needed 780 px and the second went under the first (350 px of controls).
    # Since review 24 the controls share a grid whose columns are at least GRID_COLUMN_MIN_WIDTH: two fit the laptop's
    # output area (and the 639 px of a projector at 125 %).
    column = float(GRID_COLUMN_MIN_WIDTH.removesuffix("em")) * EM_PX + CONTROL_MARGINS_PX
    assert 2 * column <= LAPTOP_OUTPUT_PX - CONTROL_MARGINS_PX
    # the model shape and the precision recipe (long options) take rows of their own; the rest share one grid
    assert _grid_rows(capacity.CapacityWidget()) == [
        ["model"],
        ["recipe"],
        ["zero_stage", "dp", "tp", "pp", "seq_len", "micro_batch", "recompute", "reserve_gib", "device_gib"],
    ]
    # lesson 4: CP | EP, DP | PP, GPUs per node | colour side by side (review 24: all but the rank order, in a grid)
    rows = _grid_rows(composition.CompositionWidget())
    assert rows == [["tp", "cp", "ep", "dp", "pp", "gpus_per_node"], ["order"], ["colour_by", "model_kind"]]


def test_the_workbench_sets_two_pairs_of_controls_side_by_side() -> None:
    from coursekit.widgets import workbench

    # lesson 9: 11 controls in one column were 350 px; its figure started 399 px under the first control. Review 23
    # set two pairs side by side; review 24 puts all but the LoRA menu (long options) in a grid of two columns.
    assert _grid_rows(workbench.WorkbenchWidget()) == [
        ["model", "cluster", "nodes", "mode"],
        ["lora"],
        ["global_batch", "seq_len", "mfu", "overlap", "link_slowdown", "moe"],
    ]


# -- 2. answer = 约206 -------------------------------------------------------------------------------------------


def _name_error(source: str) -> NameError:
    try:
        exec(compile(source, "<cell>", "exec"), {})
    except NameError as error:
        return error
    raise AssertionError(f"{source!r} raised no NameError")


@pytest.mark.usefixtures("zh")
def test_about_before_a_whole_number_gets_the_about_hint_not_quotes() -> None:
    # exercise 7.2: 989 TFLOP/s / 4.8 TB/s = 206 FLOP/byte (worked by hand)
    hint = input_hint(_name_error("answer = 约206"), "answer = 约206")
    assert hint == (
        "第 1 行的数前面有“约”：Python 的数不带文字。检查器按你写出的位数判断，本来就容许舍入，不用写“约”：answer = 206"
    )
    with_unit = input_hint(_name_error("x = 1\nanswer = 约195字节"), "answer = 约195字节")
    assert with_unit is not None and with_unit.startswith("第 2 行") and with_unit.endswith("answer = 195")
    # an option typed without quotes keeps its hint
    option = input_hint(_name_error("answer = mb2"), "answer = mb2")
    assert option is not None and "answer = 'mb2'" in option


@pytest.mark.usefixtures("en")
def test_about_before_a_whole_number_in_english() -> None:
    hint = input_hint(_name_error("answer = about206"), "answer = about206")
    assert hint is not None and hint.endswith("leave out “about”: answer = 206")


# -- 3. a decimal comma in scientific notation ---------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_comma_in_a_mantissa_is_a_decimal_point() -> None:
    from coursekit.exercises import check

    # exercise 8.2: S* = 2 x 50 us x 2^30 B/s = 107,374 bytes = 1.074e5 (worked by hand); '1,074e5' was told to write
    # answer = 1074e5, 1000 times the answer
    message = check("lab.crossover_bytes", "1,074e5").message
    assert "写成 answer = 1.074e5。" in message and "1074e5" not in message
    assert check("lab.crossover_bytes", 1.074e5).correct
    # a thousands comma without an exponent keeps its advice
    assert "answer = 1074000" in check("lab.crossover_bytes", "1,074,000").message
