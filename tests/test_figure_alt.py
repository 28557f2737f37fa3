"""Alt text from a figure's own data: lines and bars, and the text labels of a grid that has neither."""

from __future__ import annotations

import pytest

import coursekit
from coursekit.figure_alt import describe_figure
from coursekit.plotting import new_figure


@pytest.fixture(autouse=True)
def _restore_language() -> object:
    before = coursekit.get_language()
    yield
    coursekit.set_language(before)


def test_a_line_is_described_by_its_points_and_range() -> None:
    fig = new_figure(3, 2)
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [4.0, 9.0, 16.0], label="bytes")
    ax.set_xlabel("ranks")
    text = describe_figure(fig, "en")
    assert "x axis ranks" in text and "bytes: 3 points, y from 4 to 16" in text


def test_a_grid_of_labelled_cells_is_described_by_its_labels_in_the_page_language() -> None:
    fig = new_figure(3, 2)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title("verdicts")
    for column, word in enumerate(("DP", "TP", "PP")):
        ax.text(column, 0, word)
    assert describe_figure(fig, "en") == 'Figure "verdicts": 3 labels: DP, TP, PP.'
    assert describe_figure(fig, "zh") == "图“verdicts”：3 个标注：DP、TP、PP。"
