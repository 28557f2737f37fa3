"""Figures for the lessons: Chinese labels when a CJK font exists, English otherwise.

A zh notebook on a machine without a CJK font falls back to English labels, so
a learner never sees tofu boxes or "Glyph missing" warnings. Figures are built
with the object-oriented API on an Agg canvas (no pyplot state, no GUI), and
turned into PNG bytes for the widgets.

The parts live in their own modules, every name importable from here too:
:mod:`.fonts` (which fonts, which label language), :mod:`.text_cache` (each text
rasterised once) and :mod:`.png` (the encoder).

>>> from coursekit.i18n import Text
>>> fig = new_figure(3.0, 2.0)
>>> ax = fig.add_subplot()
>>> _ = ax.set_xlabel(label(Text(zh="设备数", en="devices")))
>>> figure_to_png(fig)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True

Taught in: lesson 0 (course index); every lesson's figures use it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text as MplText

from .. import i18n
from .._validate import check_bool, check_instance, check_number, learner_functions
from .fonts import (
    CJK_FONT_CANDIDATES,
    LATIN_FONT,
    CourseFigure,
    cjk_font_family,
    font_families,
    label,
    plot_language,
)
from .png import PNG_COMPRESS_LEVEL, encode_png
from .text_cache import TEXT_CACHE_SIZE, TEXT_CACHE_TOLERANCE, CourseCanvas, TextCachingRenderer, check_text_cache

__all__ = [
    "CJK_FONT_CANDIDATES",
    "DEFAULT_DPI",
    "FIGURE_PIXEL_RATIO",
    "LATIN_FONT",
    "MAX_FIGURE_PIXELS",
    "MAX_FIGURE_SIDE_PIXELS",
    "MAX_PIXEL_RATIO",
    "PNG_COMPRESS_LEVEL",
    "TEXT_CACHE_SIZE",
    "TEXT_CACHE_TOLERANCE",
    "WIDGET_PIXEL_RATIO",
    "CourseFigure",
    "cache_drawing",
    "check_text_cache",
    "cjk_font_family",
    "css_width_px",
    "encode_png",
    "figure_image",
    "figure_to_png",
    "font_families",
    "freeze_layout",
    "label",
    "new_figure",
    "pin_labels",
    "plot_language",
]

#: Dots per inch of lesson figures: sharp enough on screen, fast to render.
DEFAULT_DPI: int = 100
#: Device pixels per CSS pixel that figures are drawn for: a HiDPI ("retina") screen has 2, so a
#: figure is drawn at ``DEFAULT_DPI * FIGURE_PIXEL_RATIO`` and shown at its ``DEFAULT_DPI`` size
#: (:func:`css_width_px`, :func:`figure_image`). On a screen of ratio 1 the browser downsamples,
#: which stays sharp; drawing at 1 and upsampling is what looks blurry.
FIGURE_PIXEL_RATIO: int = 2
#: The most pixels per figure pixel :func:`figure_to_png` draws (today's densest phone screens are about 4).
MAX_PIXEL_RATIO: float = 8.0
#: The same ratio for the widgets' figures (a widget draws at ``DEFAULT_DPI * WIDGET_PIXEL_RATIO``).
WIDGET_PIXEL_RATIO: int = FIGURE_PIXEL_RATIO
#: The most pixels a side of a figure may be drawn with (Agg renders at most 65536 a side) and the most pixels in all
#: (2**26, 256 MiB of RGBA: the largest widget figure, 7 x 3.6 in at 200 dpi, drawn at the largest pixel ratio is
#: 11200 x 5760); :func:`new_figure` and :func:`figure_to_png` refuse more, which asked the renderer for terabytes.
MAX_FIGURE_SIDE_PIXELS: int = 2**16
MAX_FIGURE_PIXELS: int = 2**26

i18n.register(
    {
        "plotting.figure_too_large": {
            "zh": "{name} = {value!r}：这样绘制的图有 {width} × {height} 像素，超过上限（每边最多 {side:,} 像素，"
            "总共最多 {limit:,} 像素）；请用更小的值。",
            "en": "{name} = {value!r}: the figure would be drawn with {width} × {height} pixels, beyond the limit "
            "({side:,} pixels a side, {limit:,} in all); use smaller values.",
        },
    }
)


def new_figure(width_in: float, height_in: float, dpi: int = DEFAULT_DPI) -> Figure:
    """A new figure on an Agg canvas (object-oriented API, not pyplot).

    Parameters: ``width_in`` and ``height_in`` in inches, ``dpi`` in dots per inch.

    >>> fig = new_figure(4, 3)
    >>> fig.get_size_inches().tolist()
    [4.0, 3.0]

    Taught in: lesson 0 (course index).
    """
    width = check_number("width_in", width_in, gt=0)
    height = check_number("height_in", height_in, gt=0)
    resolution = check_number("dpi", dpi, gt=0)
    _check_pixels("(width_in, height_in, dpi)", (width_in, height_in, dpi), width * resolution, height * resolution)
    fig = CourseFigure(figsize=(width, height), dpi=resolution, layout="constrained")
    CourseCanvas(fig)
    return fig


def _check_pixels(name: str, value: Any, width: float, height: float) -> None:
    """A ``ValueError`` naming ``name`` when a figure drawn ``width`` by ``height`` pixels exceeds
    :data:`MAX_FIGURE_SIDE_PIXELS` a side or :data:`MAX_FIGURE_PIXELS` in all."""
    if max(width, height) > MAX_FIGURE_SIDE_PIXELS or width * height > MAX_FIGURE_PIXELS:
        raise ValueError(
            i18n.tr(
                "plotting.figure_too_large",
                name=name,
                value=value,
                width=_pixels(width),
                height=_pixels(height),
                side=MAX_FIGURE_SIDE_PIXELS,
                limit=MAX_FIGURE_PIXELS,
            )
        )


def _pixels(count: float) -> str:
    """A pixel count as a reader takes it in: ``65,600``, or ``1e+300`` for one past a billion."""
    return f"{count:,.0f}" if count < 1e9 else f"{count:.3g}"


def css_width_px(fig: Figure) -> int:
    """Width in CSS pixels to show ``fig`` at: its width in inches at :data:`DEFAULT_DPI`.

    >>> css_width_px(new_figure(6.2, 3.2, dpi=DEFAULT_DPI * WIDGET_PIXEL_RATIO))
    620
    """
    check_instance("fig", fig, Figure)
    return round(fig.get_figwidth() * DEFAULT_DPI)


def figure_to_png(fig: Figure, describe: bool = True, pixel_ratio: float = 1) -> bytes:
    """Render ``fig`` to PNG bytes with the Agg renderer at the figure's own dpi times ``pixel_ratio``.

    With ``describe`` (the default) the PNG carries what the figure shows in words, in the course language
    (:func:`coursekit.figure_alt.describe_figure`, as the PNG's ``Description`` text): a static page uses it
    as the image's alt text. A live widget, which redraws on every change, passes ``describe=False``.
    ``pixel_ratio`` (> 0, at most :data:`MAX_PIXEL_RATIO`) draws that many pixels per figure pixel in each
    direction, for a page that shows the PNG at the figure's size on a HiDPI screen (:func:`figure_image`); the
    figure keeps its dpi.

    >>> figure_to_png(new_figure(1, 1))[:4]
    b'\\x89PNG'
    >>> import struct; struct.unpack(">II", figure_to_png(new_figure(1, 0.5), pixel_ratio=2)[16:24])
    (200, 100)

    Taught in: lesson 0 (course index).
    """
    check_instance("fig", fig, Figure)
    ratio = check_number("pixel_ratio", pixel_ratio, gt=0, le=MAX_PIXEL_RATIO)
    width, height = (float(n) * fig.dpi * ratio for n in fig.get_size_inches())
    _check_pixels("pixel_ratio", pixel_ratio, width, height)
    if not isinstance(fig.canvas, FigureCanvasAgg):
        CourseCanvas(fig)
    # Draw once on the Agg canvas and encode the pixels ourselves: savefig would draw twice
    # with a layout engine and compress harder than a live widget needs.
    canvas = cast("FigureCanvasAgg", fig.canvas)
    if ratio == 1:
        canvas.draw()  # type: ignore[no-untyped-call]
    else:
        dpi = fig.dpi
        fig.set_dpi(dpi * ratio)
        try:
            canvas.draw()  # type: ignore[no-untyped-call]
        finally:
            fig.set_dpi(dpi)  # the pixels stay in the canvas's buffer until the next draw
    text = None
    if describe:
        from ..figure_alt import describe_figure

        text = {"Description": (describe_figure(fig), i18n.get_language())}
    return encode_png(np.asarray(cast(Any, canvas).buffer_rgba()), text=text)


def figure_image(fig: Figure) -> Any:
    """``fig`` as an ``IPython.display.Image`` a lesson displays: drawn at :data:`FIGURE_PIXEL_RATIO` times its
    dpi and shown at its size (crisp on a HiDPI screen), with what it shows in words as its alt text.

    >>> image = figure_image(new_figure(2, 1))
    >>> (image.width, image.height)  # CSS pixels: the figure's size at DEFAULT_DPI; the PNG has twice as many
    (200, 100)

    Taught in: lesson 0 (course index); every lesson's figures use it.
    """
    from IPython.display import Image

    from ..figure_alt import png_description

    check_instance("fig", fig, Figure)
    png = figure_to_png(fig, pixel_ratio=FIGURE_PIXEL_RATIO * DEFAULT_DPI / fig.dpi)
    # retina: shown at half the PNG's size
    return Image(png, retina=True, alt=png_description(png))  # type: ignore[no-untyped-call]


def freeze_layout(fig: Figure) -> None:
    """Keep the axes where the layout engine last put them and stop re-running it.

    A live widget's figure changes data, not structure: running the constrained layout on
    every redraw costs more than the drawing itself. Call after the first render.

    >>> fig = new_figure(2, 2); _ = fig.add_subplot(); _ = figure_to_png(fig)
    >>> freeze_layout(fig); type(fig.get_layout_engine()).__name__  # a no-op engine keeps the positions
    'PlaceHolderLayoutEngine'
    """
    check_instance("fig", fig, Figure)
    engine = fig.get_layout_engine()
    if engine is not None and type(engine).__name__ != "PlaceHolderLayoutEngine":
        fig.set_layout_engine("none")


def pin_labels(fig: Figure, pinned: bool = True) -> None:
    """Stop (``pinned=True``) or resume moving axis labels and axes titles clear of tick labels at each draw.

    Matplotlib places every axis label and title anew at each draw by measuring all
    tick labels, which costs a few milliseconds per axes. A live widget's tick labels
    keep their size, so after a first draw the labels can stay where they are. Only
    labels and titles matplotlib was placing itself are pinned, and only those are
    released again (a widget releases them for one draw after a language switch).
    Hidden axes are left alone: they were not drawn, so their labels were never placed
    (pinned there, a label would stay wherever it was created, possibly off the figure).
    Call it again after the first draw that shows them.

    >>> fig = new_figure(2, 2); ax = fig.add_subplot(); _ = ax.set_xlabel("x"); _ = figure_to_png(fig)
    >>> freeze_layout(fig); pin_labels(fig); y = float(ax.xaxis.label.get_position()[1])
    >>> _ = ax.set_xticks([0.5], labels=["two\\nlines"]); _ = figure_to_png(fig)
    >>> float(ax.xaxis.label.get_position()[1]) == y  # pinned: stays (and may now overlap)
    True
    >>> pin_labels(fig, pinned=False); _ = figure_to_png(fig)
    >>> float(ax.xaxis.label.get_position()[1]) < y  # released: moves below the taller tick label
    True
    >>> hidden = fig.add_axes((0.2, 0.2, 0.6, 0.6)); _ = hidden.set_xlabel("later"); hidden.set_visible(False)
    >>> pin_labels(fig); hidden.xaxis._autolabelpos  # not drawn yet: left to be placed when first shown
    True

    Taught in: lesson 0 (course index).
    """
    check_instance("fig", fig, Figure)
    check_bool("pinned", pinned)
    held: list[tuple[Any, str]] = fig.__dict__.setdefault("_course_pinned_labels", [])
    if not pinned:
        for owner, flag in held:
            setattr(owner, flag, True)
        held.clear()
        return
    for ax in fig.axes:
        if not ax.get_visible():  # never drawn while hidden: its labels have not been placed yet
            continue
        for owner, flag in ((ax.xaxis, "_autolabelpos"), (ax.yaxis, "_autolabelpos"), (ax, "_autotitlepos")):
            if getattr(owner, flag, False):  # placed by matplotlib (a private flag; absent means: leave it alone)
                setattr(owner, flag, False)
                held.append((owner, flag))


def cache_drawing(artist: Artist, key: Callable[[], Any] | None = None) -> None:
    """Draw ``artist`` from a bitmap of an earlier drawing while nothing it shows has changed.

    For parts of a live figure that look the same from one update to the next (a legend,
    an axis with fixed limits and ticks): the artist is drawn alone on a transparent
    scratch canvas of the figure's size, the pixels it covered are kept, and later draws
    blend them in place (``draw_image``) instead of laying out and rendering its texts
    again. The bitmap is redrawn when the canvas size or dpi, the course font families,
    the place of the artist's axes, the texts under the artist (string, colour,
    visibility) or ``key()`` change; pass a ``key`` returning whatever else changes its
    look (for an axis: its view interval). An invisible artist is not drawn.

    >>> fig = new_figure(3, 2); fig.set_layout_engine("none"); ax = fig.add_subplot()
    >>> _ = ax.plot([0, 1], label="line"); legend = ax.legend(loc="upper left"); cache_drawing(legend)
    >>> first = figure_to_png(fig)  # draws the legend on a scratch canvas and keeps its pixels
    >>> figure_to_png(fig) == first  # blends the kept pixels
    True

    Taught in: lesson 0 (course index).
    """
    check_instance("artist", artist, Artist)
    original = artist.draw
    cached: dict[str, Any] = {}

    def texts() -> tuple[Any, ...]:
        found = cast("list[MplText]", artist.findobj(MplText))
        return tuple((t.get_text(), str(t.get_color()), t.get_visible()) for t in found)

    def draw(renderer: Any) -> None:
        if not artist.get_visible() or not isinstance(renderer, RendererAgg):
            original(renderer)
            return
        axes = getattr(artist, "axes", None)
        place = None if axes is None else tuple(axes.bbox.bounds)
        signature = (
            renderer.width,
            renderer.height,
            renderer.dpi,
            tuple(font_families()),
            place,
            texts(),
            None if key is None else _frozen(key()),
        )
        if cached.get("signature") != signature:
            scratch = cast(Any, TextCachingRenderer)(renderer.width, renderer.height, renderer.dpi)
            original(scratch)
            pixels = np.asarray(scratch.buffer_rgba())
            used_rows = np.flatnonzero(pixels[:, :, 3].any(axis=1))
            used_cols = np.flatnonzero(pixels[:, :, 3].any(axis=0))
            if used_rows.size:
                r0, r1 = int(used_rows[0]), int(used_rows[-1]) + 1
                c0, c1 = int(used_cols[0]), int(used_cols[-1]) + 1
                # draw_image takes the bottom row first, at (left, bottom) with y upwards
                cached["image"] = (np.ascontiguousarray(pixels[r0:r1, c0:c1][::-1]), c0, int(renderer.height) - r1)
            else:
                cached["image"] = None
            # the texts as drawn: an axis sets its tick labels while it draws (empty before its first draw)
            cached["signature"] = (*signature[:5], texts(), signature[6])
        if cached["image"] is not None:
            image, x, y = cached["image"]
            gc = renderer.new_gc()
            renderer.draw_image(gc, x, y, image)
            gc.restore()
        artist.stale = False

    setattr(artist, "draw", draw)  # noqa: B010 (an instance attribute shadows the method)


def _frozen(value: Any) -> Any:
    """``value`` with numpy arrays and lists turned into tuples, so that ``==`` gives one bool."""
    if isinstance(value, np.ndarray):
        return tuple(value.tolist())
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


learner_functions(globals())
