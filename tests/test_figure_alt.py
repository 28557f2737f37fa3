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


def test_bars_are_described_by_their_values_and_names_either_way_up() -> None:
    for draw in ("bar", "barh"):
        fig = new_figure(3, 2)
        ax = fig.add_subplot()
        # thickness 0.8 everywhere: the largest value (7.4, "optimizer") must be reported, not the bar's thickness
        getattr(ax, draw)(["params", "grads", "optimizer"], [0.62, 1.5, 7.4], 0.8)
        assert "3 bars, the highest optimizer (7.4)" in describe_figure(fig, "en"), draw


def test_a_grid_of_labelled_cells_is_described_by_its_labels_in_the_page_language() -> None:
    fig = new_figure(3, 2)
    ax = fig.add_subplot()
    ax.set_axis_off()
    ax.set_title("verdicts")
    for column, word in enumerate(("DP", "TP", "PP")):
        ax.text(column, 0, word)
    assert describe_figure(fig, "en") == 'Figure "verdicts": 3 labels: DP, TP, PP.'
    assert describe_figure(fig, "zh") == "图“verdicts”：3 个标注：DP、TP、PP。"


def _png_size(png: bytes) -> tuple[int, int]:
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")  # the IHDR chunk


def test_a_lesson_figure_is_drawn_at_twice_its_size_and_shown_at_its_size_with_its_words() -> None:
    import base64
    import html
    import re

    from coursekit.figure_alt import image_html
    from coursekit.plotting import figure_image, figure_to_png

    coursekit.set_language("zh")
    fig = new_figure(3, 2)  # 3 x 2 inches at 100 dpi: 300 x 200 CSS pixels
    ax = fig.add_subplot()
    ax.plot([1, 2, 3], [4.0, 9.0, 16.0], label="bytes")
    assert _png_size(figure_to_png(fig)) == (300, 200)
    image = figure_image(fig)
    assert _png_size(image.data) == (600, 400) and (image.width, image.height) == (300, 200)
    assert fig.dpi == 100  # the figure keeps its own dpi
    markup = image_html(image)
    assert markup is not None and 'width="300" height="200"' in markup
    src = base64.b64decode(re.search(r'src="data:image/png;base64,([^"]+)"', markup).group(1))  # type: ignore[union-attr]
    assert _png_size(src) == (600, 400) and src[25] == 3  # all the pixels, in a palette (IHDR colour type 3)
    alt = html.unescape(re.search(r'alt="([^"]*)"', markup).group(1))  # type: ignore[union-attr]
    assert alt == describe_figure(fig, "zh") and "bytes：3 个点" in alt


def test_pixel_ratio_must_be_positive() -> None:
    from coursekit.plotting import figure_to_png

    coursekit.set_language("en")
    with pytest.raises(ValueError, match="pixel_ratio"):
        figure_to_png(new_figure(1, 1), pixel_ratio=0)
