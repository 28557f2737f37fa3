"""coursekit.plotting: Chinese labels only with a CJK font, never tofu or "Glyph missing" warnings."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import coursekit
from coursekit import plotting
from coursekit.i18n import Text
from coursekit.plotting import (
    CJK_FONT_CANDIDATES,
    LATIN_FONT,
    cjk_font_family,
    encode_png,
    figure_to_png,
    font_families,
    label,
    new_figure,
    plot_language,
)

CHINESE = Text(zh="每设备显存（GiB）", en="memory per device (GiB)")
TICKS = (Text(zh="机内", en="intra-node"), Text(zh="跨机", en="inter-node"))


def _require_cjk_font() -> str:
    family = cjk_font_family()
    if family is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must install a CJK font (apt-get install -y fonts-noto-cjk)")
        pytest.skip("no CJK font installed here; run apt-get install -y fonts-noto-cjk to run this test")
    return family


def _draw_labels(fig: Figure) -> None:
    """Labels added after the figure was created, as a widget's draw() would."""
    ax = fig.add_subplot()
    ax.bar([0, 1], [-1.5, 2.0])
    ax.set_title(label(CHINESE))
    ax.set_xticks([0, 1], labels=[label(t) for t in TICKS])
    ax.set_ylabel(label(Text(zh="余量 −2 GiB", en="headroom −2 GiB")))


def test_cjk_font_is_a_candidate() -> None:
    family = _require_cjk_font()
    assert family in CJK_FONT_CANDIDATES


def test_zh_figure_with_chinese_labels_has_no_missing_glyphs() -> None:
    family = _require_cjk_font()
    coursekit.set_language("zh")
    assert plot_language() == "zh"
    fig = new_figure(4, 3)
    _draw_labels(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        png = figure_to_png(fig)
    assert png.startswith(b"\x89PNG")
    title = fig.axes[0].title
    assert title.get_text() == CHINESE.zh
    assert title.get_fontfamily()[0] == family
    assert fig.axes[0].get_xticklabels()[0].get_fontfamily()[0] == family


def test_a_plain_figure_would_warn_about_missing_glyphs() -> None:
    """The control experiment: without the course font families, DejaVu Sans has no Chinese glyphs."""
    _require_cjk_font()
    coursekit.set_language("zh")
    fig = Figure(figsize=(4, 3))
    FigureCanvasAgg(fig)
    _draw_labels(fig)
    for text in fig.findobj(lambda artist: hasattr(artist, "set_fontfamily")):
        text.set_fontfamily([LATIN_FONT])
    with pytest.warns(UserWarning, match="missing from font"):
        fig.canvas.draw()


def test_without_cjk_font_zh_plots_fall_back_to_english(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plotting.fonts, "cjk_font_family", lambda: None)  # where label() looks it up
    coursekit.set_language("zh")
    assert plot_language() == "en"
    assert label(CHINESE) == CHINESE.en
    assert font_families() == [LATIN_FONT]
    fig = new_figure(4, 3)
    _draw_labels(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        figure_to_png(fig)
    assert fig.axes[0].title.get_text() == CHINESE.en
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["intra-node", "inter-node"]


def test_english_figures_keep_the_cjk_font_as_fallback() -> None:
    family = _require_cjk_font()
    assert plot_language() == "en"
    assert font_families() == [LATIN_FONT, family]


def test_explicit_font_family_is_kept() -> None:
    fig = new_figure(2, 2)
    text = fig.text(0.5, 0.5, "x = 1", family="monospace")
    figure_to_png(fig)
    assert text.get_fontfamily() == ["monospace"]


def test_new_figure_uses_agg_without_pyplot() -> None:
    fig = new_figure(3, 2, dpi=80)
    assert isinstance(fig.canvas, FigureCanvasAgg)
    assert fig.dpi == 80
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, coursekit.plotting as p; p.new_figure(1, 1); print('matplotlib.pyplot' in sys.modules)",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((0, 2), ValueError, "width_in = 0: must be > 0."),
        ((True, 2), TypeError, "width_in = True: must be a real number (int or float), not bool."),
        ((3, float("nan")), ValueError, "height_in = nan: must be a finite number (not NaN or infinity)."),
        ((3, 2, -1), ValueError, "dpi = -1: must be > 0."),
    ],
)
def test_new_figure_validates(args: tuple[float, ...], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        new_figure(*args)
    assert str(info.value) == message


def test_new_figure_message_in_chinese() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        new_figure(-1, 2)
    assert str(info.value) == "width_in = -1：必须 > 0。"


def test_label_and_png_reject_wrong_types() -> None:
    with pytest.raises(TypeError, match="text = 'devices': must be an object of type Text, not str"):
        label("devices")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="fig = None: must be an object of type Figure, not NoneType"):
        figure_to_png(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"rgba is float64 \(2, 2\): must be a \(height, width, 4\) uint8 array"):
        encode_png(np.zeros((2, 2)))


@given(zh=st.text(min_size=1), en=st.text(min_size=1), lang=st.sampled_from(["zh", "en"]), has_font=st.booleans())
def test_label_follows_language_and_font(zh: str, en: str, lang: str, has_font: bool) -> None:
    original = plotting.fonts.cjk_font_family
    plotting.fonts.cjk_font_family = (lambda: "Noto Sans CJK SC") if has_font else (lambda: None)  # type: ignore[assignment]
    previous = coursekit.get_language()
    try:
        coursekit.set_language(lang)
        expected = zh if (lang == "zh" and has_font) else en
        assert label(Text(zh=zh, en=en)) == expected
    finally:
        plotting.fonts.cjk_font_family = original  # type: ignore[assignment]
        coursekit.set_language(previous)


def test_text_cache_failure_falls_back_to_ordinary_drawing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A matplotlib whose internals differ must cost speed, never a figure: the cache turns itself off."""
    from coursekit import plotting

    reference = plotting.new_figure(2, 1)
    reference.text(0.1, 0.5, "fallback 42")
    monkeypatch.setattr(plotting.text_cache, "_fast_text", False)
    expected = plotting.figure_to_png(reference)

    monkeypatch.setattr(plotting.text_cache, "_fast_text", True)

    def broken(*args: object, **kwargs: object) -> None:
        raise AttributeError("simulated change in matplotlib internals")

    monkeypatch.setattr(plotting.TextCachingRenderer, "_rasterise", broken)
    plotting.text_cache._text_masks.clear()
    fig = plotting.new_figure(2, 1)
    fig.text(0.1, 0.5, "fallback 42")
    assert plotting.figure_to_png(fig) == expected
    assert plotting.text_cache._fast_text is False


def test_text_cache_draws_what_matplotlib_draws() -> None:
    """Cached and plain rendering of the probe texts agree pixel by pixel on the installed matplotlib."""
    from coursekit import plotting

    plain, cached = plotting.text_cache._probe_pixels(cached=False), plotting.text_cache._probe_pixels(cached=True)
    assert plain.shape == cached.shape
    assert int(abs(plain - cached).max()) <= plotting.TEXT_CACHE_TOLERANCE
    assert (plain[:, :, :3] < 128).sum() > 500  # the probe really drew dark glyphs
    assert plotting.check_text_cache() is True


def test_text_cache_switches_off_when_it_draws_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    """A matplotlib that lays texts out differently: the pixel check turns the cache off."""
    from coursekit import plotting

    rasterise = plotting.TextCachingRenderer._rasterise

    def shifted(self: object, *args: object) -> object:
        entry = rasterise(self, *args)  # type: ignore[arg-type]
        return None if entry is None else (entry[0], entry[1] + 1, entry[2])  # one pixel to the right

    monkeypatch.setattr(plotting.TextCachingRenderer, "_rasterise", shifted)
    monkeypatch.setattr(plotting.text_cache, "_fast_text", True)
    plotting.text_cache._text_masks.clear()
    assert plotting.check_text_cache() is False
    assert plotting.text_cache._fast_text is False
    plotting.text_cache._text_masks.clear()


def _texts_pixels(texts: list[tuple[int, int, str, float, float]], cached: bool) -> np.ndarray:
    """RGBA of ``texts`` ((x, y) whole pixels, string, size, angle) drawn with or without the text cache."""
    from matplotlib.transforms import IdentityTransform

    from coursekit import plotting

    saved = plotting.text_cache._fast_text
    plotting.text_cache._fast_text = cached
    try:
        fig = plotting.CourseFigure(figsize=(3.0, 1.2), dpi=200)
        plotting.text_cache.CourseCanvas(fig)
        with fig.course_fonts():
            for x, y, text, size, angle in texts:
                fig.text(
                    x, y, text, fontsize=size, rotation=angle, rotation_mode="anchor", transform=IdentityTransform()
                )
        canvas: Any = fig.canvas
        canvas.draw()
        return np.asarray(canvas.buffer_rgba()).astype(np.int16)
    finally:
        plotting.text_cache._fast_text = saved


def test_new_strings_drawn_from_kept_glyphs_match_matplotlib() -> None:
    """A value label that changed is a new string of glyphs drawn before: drawn from the kept glyph bitmaps,
    it has the pixels matplotlib draws (within the text cache's tolerance), upright, rotated and in Chinese."""
    from coursekit import plotting

    cache = plotting.text_cache
    if not cache._glyph_api:
        pytest.skip("this matplotlib renders glyphs another way; the scratch canvas draws as Agg does")
    cache._text_masks.clear()
    cache._glyph_bitmaps.clear()
    first = [(10, 150, "12.5 GiB fits 放得下", 9.0, 0.0), (500, 20, "memory 12.5", 8.0, 90.0)]
    _texts_pixels(first, cached=True)  # keeps the glyph bitmaps of these strings
    kept = len(cache._glyph_bitmaps)
    assert kept > 0
    later = [(10, 150, "52.1 GiB fits 放得下", 9.0, 0.0), (500, 20, "memory 521", 8.0, 90.0)]
    cached = _texts_pixels(later, cached=True)
    assert len(cache._glyph_bitmaps) == kept  # every glyph of the new strings came from the kept bitmaps
    plain = _texts_pixels(later, cached=False)
    assert int(np.abs(plain - cached).max()) <= plotting.TEXT_CACHE_TOLERANCE
    assert (plain[:, :, :3] < 128).sum() > 300  # dark glyphs were drawn


def test_numbers_drawn_from_their_measurement_match_a_second_layout() -> None:
    """A number or an English label is laid out once, when matplotlib measures it; drawn from that layout's glyph
    positions, its mask is the one a second layout (Agg's own draw_text) gives, bit for bit, for random strings of
    printable ASCII, sizes, weights and angles."""
    import random

    from matplotlib.font_manager import FontProperties

    from coursekit import plotting

    cache = plotting.text_cache
    if not cache._glyph_api or not cache._fast_text:
        pytest.skip("this matplotlib renders glyphs another way: numbers are laid out twice")
    fig = plotting.new_figure(2, 1, dpi=200)
    plotting.figure_to_png(fig)
    renderer: Any = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    gc = renderer.new_gc()
    rng = random.Random(5)
    alphabet = sorted(cache.LATIN_POSITIONED_CHARS)
    drawn_from_positions = 0
    for case in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 16)))
        size, weight = rng.choice([6.5, 7.0, 8.0, 9.0, 11.0]), rng.choice(["normal", "bold"])
        prop = FontProperties(family=plotting.font_families(), size=size, weight=weight)
        angle = rng.choice([0.0, 0.0, 90.0])
        key = cache._position_key(renderer, text, prop)
        cache._positions.pop(key, None)
        renderer.get_text_width_height_descent(text, prop, False)  # the measurement keeps the positions
        kept = cache._positioned_glyphs(renderer, text, prop, None) is not None
        drawn_from_positions += kept
        once = renderer._rasterise(gc, text, prop, angle, False, None)
        cache._positions.pop(key, None)  # now the glyphs come from a second layout
        twice = renderer._rasterise(gc, text, prop, angle, False, None)
        assert (once is None) == (twice is None), text
        if once is not None and twice is not None:
            assert np.array_equal(once[0], twice[0]) and once[1:] == twice[1:], (case, text, prop.get_size(), angle)
    assert drawn_from_positions > 250  # the shortcut ran (strings of spaces only may draw nothing)


def test_letters_are_laid_out_again_when_the_first_font_is_not_the_latin_font() -> None:
    """Noto Sans CJK (the first font of a Chinese figure) substitutes a digit next to letters ('9' in 'U9RFl' takes
    another glyph than the character's own), so there a string with letters is drawn from a second layout; in the
    Latin font the same string is drawn from its measurement."""
    from matplotlib.font_manager import FontProperties

    cache = plotting.text_cache
    if not cache._glyph_api or not cache._fast_text:
        pytest.skip("this matplotlib renders glyphs another way: every string is laid out twice")
    cjk = _require_cjk_font()
    fig = plotting.new_figure(2, 1, dpi=200)
    plotting.figure_to_png(fig)
    renderer: Any = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for families, kept in (([cjk, LATIN_FONT], False), ([LATIN_FONT, cjk], True)):
        prop = FontProperties(family=families, size=7.0)
        cache._positions.pop(cache._position_key(renderer, "U9RFl", prop), None)
        renderer.get_text_width_height_descent("U9RFl", prop, False)
        assert (cache._positioned_glyphs(renderer, "U9RFl", prop, None) is not None) is kept, families
