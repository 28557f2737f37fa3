"""Figures for the lessons: Chinese labels when a CJK font exists, English otherwise.

A zh notebook on a machine without a CJK font falls back to English labels, so
a learner never sees tofu boxes or "Glyph missing" warnings. Figures are built
with the object-oriented API on an Agg canvas (no pyplot state, no GUI), and
turned into PNG bytes for the widgets.

>>> from coursekit.i18n import Text
>>> fig = new_figure(3.0, 2.0)
>>> ax = fig.add_subplot()
>>> _ = ax.set_xlabel(label(Text(zh="设备数", en="devices")))
>>> figure_to_png(fig)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True

Taught in: lesson 0 (course index); every lesson's figures use it.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import struct
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import matplotlib
import numpy as np
from matplotlib import font_manager
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.text import Text as MplText
from matplotlib.transforms import IdentityTransform

from . import i18n
from ._validate import check_bool, check_number
from .i18n import Text

#: CJK fonts tried in this order; the first one matplotlib can use wins.
CJK_FONT_CANDIDATES: tuple[str, ...] = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans CJK TC",
    "Source Han Sans SC",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "SimHei",
    "PingFang SC",
    "Heiti SC",
    "Hiragino Sans GB",
    "Arial Unicode MS",
)

#: Parts of font file names of the candidates, used to register fonts installed
#: after matplotlib built its font cache (e.g. ``apt-get install fonts-noto-cjk``).
_CJK_FILE_HINTS: tuple[str, ...] = (
    "notosanscjk",
    "sourcehansans",
    "wqy",
    "msyh",
    "simhei",
    "pingfang",
    "stheiti",
    "hiragino",
    "arial unicode",
    "arialuni",
)

#: The Latin font shipped with matplotlib itself; always available.
LATIN_FONT: str = "DejaVu Sans"

#: Dots per inch of lesson figures: sharp enough on screen, fast to render.
DEFAULT_DPI: int = 100
#: Device pixels per CSS pixel that widget figures are drawn for: a HiDPI ("retina") screen
#: has 2, so a widget draws at ``DEFAULT_DPI * WIDGET_PIXEL_RATIO`` and the page shows the PNG
#: at its ``DEFAULT_DPI`` size (:func:`css_width_px`). On a screen of ratio 1 the browser
#: downsamples, which stays sharp; drawing at 1 and upsampling is what looks blurry.
WIDGET_PIXEL_RATIO: int = 2


def _installed_font_names() -> set[str]:
    return {entry.name for entry in font_manager.fontManager.ttflist}


@functools.lru_cache(maxsize=1)
def cjk_font_family() -> str | None:
    """The first installed CJK font family among :data:`CJK_FONT_CANDIDATES`, or None.

    Looks in matplotlib's font list first; if nothing is there, registers CJK
    font files found on the system (fonts installed after matplotlib built its
    cache). The answer is cached for the session.

    >>> family = cjk_font_family()
    >>> family is None or family in CJK_FONT_CANDIDATES
    True

    Taught in: lesson 0 (course index).
    """
    names = _installed_font_names()
    for family in CJK_FONT_CANDIDATES:
        if family in names:
            return family
    for path in font_manager.findSystemFonts():
        base = os.path.basename(path).lower()
        if any(hint in base for hint in _CJK_FILE_HINTS):
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):  # unreadable font file: skip it
                continue
    names = _installed_font_names()
    for family in CJK_FONT_CANDIDATES:
        if family in names:
            return family
    return None


def plot_language() -> str:
    """``"zh"`` if the course language is Chinese and a CJK font exists, else ``"en"``.

    >>> from coursekit import set_language
    >>> set_language("en")
    >>> plot_language()
    'en'

    Taught in: lesson 0 (course index).
    """
    if i18n.get_language() == "zh" and cjk_font_family() is not None:
        return "zh"
    return "en"


def label(text: Text) -> str:
    """Render a bilingual figure label in :func:`plot_language`.

    >>> label(Text(zh="带宽", en="bandwidth"))
    'bandwidth'

    Taught in: lesson 0 (course index).
    """
    if not isinstance(text, Text):
        raise TypeError(f"label() needs a coursekit.i18n.Text, not {type(text).__name__}")
    return text.render(plot_language())


def font_families() -> list[str]:
    """The font family list figure texts are drawn with (first match per glyph wins).

    Chinese figures put the CJK font first; English figures put the Latin font
    first and keep the CJK font, when there is one, as a fallback.

    >>> font_families()[0]
    'DejaVu Sans'
    """
    cjk = cjk_font_family()
    if plot_language() == "zh" and cjk is not None:
        return [cjk, LATIN_FONT]
    return [LATIN_FONT] if cjk is None else [LATIN_FONT, cjk]


class CourseFigure(Figure):
    """A matplotlib Figure whose texts use :func:`font_families` whenever it is drawn.

    Texts whose font family was left at matplotlib's default get the course
    families at draw time, so labels added after the figure was created are
    covered too; a text given another family (e.g. monospace) keeps it.

    Finding those texts means walking every artist of the figure. A figure whose
    texts are all created inside :meth:`course_fonts` blocks (the lesson widgets
    create theirs in ``setup`` and ``draw``, which the widget base runs in such a
    block) may set ``texts_tracked = True``: it then walks its artists only when the
    course families change (a language switch), not on every draw.

    >>> fig = new_figure(2, 1)
    >>> fig.texts_tracked = True
    >>> with fig.course_fonts():
    ...     text = fig.text(0.1, 0.5, "GiB")
    >>> text.get_fontfamily() == font_families()
    True
    """

    #: True when every text is created inside :meth:`course_fonts` (see the class docstring).
    texts_tracked: bool = False
    #: The families the last walk over all texts applied (a tuple), or None before the first walk.
    _fonts_applied: tuple[str, ...] | None = None

    @contextmanager
    def course_fonts(self) -> Iterator[None]:
        """Make the course families matplotlib's default inside the block: new texts get them directly."""
        with matplotlib.rc_context({"font.family": font_families()}):
            yield

    def draw(self, renderer: Any) -> None:
        families = font_families()
        key = tuple(families)
        default = list(matplotlib.rcParams["font.family"])
        with matplotlib.rc_context({"font.family": families}):
            if not (self.texts_tracked and key == self._fonts_applied):
                for artist in cast("list[MplText]", self.findobj(MplText)):
                    if _is_course_managed(list(artist.get_fontfamily()), default):
                        artist.set_fontfamily(families)
                self._fonts_applied = key
            super().draw(renderer)


def _is_course_managed(current: list[str], default: list[str]) -> bool:
    """True if a text's family is matplotlib's default or a list set by a previous draw."""
    return current == default or (0 < len(current) <= 2 and set(current) <= _COURSE_FONTS)


_COURSE_FONTS: frozenset[str] = frozenset((LATIN_FONT, *CJK_FONT_CANDIDATES))


#: zlib level of the PNGs widgets send to the browser (1 = fastest).
PNG_COMPRESS_LEVEL = 1

#: Rasterised texts kept by :class:`_TextCachingRenderer` (least recently used dropped first); 0 disables the cache.
TEXT_CACHE_SIZE: int = 4096
#: False once the text cache has failed on this matplotlib: every text then takes the ordinary path.
_fast_text: bool = True
_log = logging.getLogger(__name__)

#: Generic family names whose meaning comes from rcParams (``font.sans-serif`` etc.).
_GENERIC_FAMILIES: frozenset[str] = frozenset(("serif", "sans-serif", "sans", "cursive", "fantasy", "monospace"))
#: rcParams that change how a text with a given FontProperties is rasterised.
_TEXT_RC_KEYS: tuple[str, ...] = ("text.hinting", "text.hinting_factor", "text.kerning_factor")
#: rcParams that give the generic family names their fonts.
_FONT_LIST_RC_KEYS: tuple[str, ...] = (
    "font.serif",
    "font.sans-serif",
    "font.cursive",
    "font.fantasy",
    "font.monospace",
)
#: rcParams that change how math text (e.g. a log axis's ``$10^{3}$`` tick labels) is rasterised.
_MATH_RC_KEYS: tuple[str, ...] = (
    "mathtext.fontset",
    "mathtext.default",
    "mathtext.fallback",
    "mathtext.bf",
    "mathtext.bfit",
    "mathtext.cal",
    "mathtext.it",
    "mathtext.rm",
    "mathtext.sf",
    "mathtext.tt",
    *_FONT_LIST_RC_KEYS,
)

_text_masks: OrderedDict[tuple[Any, ...], tuple[Any, int, int]] = OrderedDict()
#: Matplotlib's Agg renderer and canvas classes, untyped: for calls from the typed code below.
_AGG: Any = RendererAgg
_CANVAS: Any = FigureCanvasAgg


class _TextCachingRenderer(RendererAgg):
    """An Agg renderer that rasterises each distinct text once and then only blends its coverage mask.

    Matplotlib's Agg backend lays a string out and renders it glyph by glyph on
    every draw (about 0.1 ms per glyph), although a widget's tick labels, axis
    labels and legend entries stay the same from one update to the next. This
    renderer draws a text the ordinary way once, on a small scratch canvas, keeps
    the coverage (alpha) of the result, and blends that mask in the text's colour
    wherever the same text is drawn again (``draw_text_image``, the call Agg itself
    uses for each glyph), with the text's origin on the nearest pixel, as
    matplotlib placed texts before 3.11. The key holds everything that changes
    the pixels: string, font properties, angle, dpi, antialiasing, font features,
    language and the text (and math text) rcParams; colour and alpha come from
    the graphics context at each draw. TeX and texts the scratch canvas cannot
    hold take the ordinary path.
    """

    def draw_text(
        self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float, ismath: Any = False, mtext: Any = None
    ) -> None:
        global _fast_text
        if _fast_text:
            try:
                if self._draw_cached_text(gc, x, y, s, prop, angle, ismath, mtext):
                    return
            except Exception:  # a matplotlib whose internals differ: draw every text the ordinary way from now on
                _fast_text = False
                _log.warning("coursekit.plotting: text cache disabled (matplotlib %s)", matplotlib.__version__)
        _AGG.draw_text(self, gc, x, y, s, prop, angle, ismath, mtext)

    def _draw_cached_text(
        self, gc: Any, x: float, y: float, s: str, prop: Any, angle: float, ismath: Any, mtext: Any
    ) -> bool:
        """Blend the cached mask of ``s``; False when the text must take the ordinary path."""
        if ismath not in (False, True) or not s or TEXT_CACHE_SIZE <= 0:  # TeX: the ordinary path
            return False
        # The text's origin snaps to the nearest pixel (as matplotlib did before 3.11), so that a
        # text that moves with the data (a value label) is still rasterised once per string.
        ix, iy = math.floor(x + 0.5), math.floor(y + 0.5)
        key = _text_key(self, gc, s, prop, angle, bool(ismath), mtext)
        entry = _text_masks.get(key)
        if entry is None:
            rendered = self._rasterise(gc, s, prop, angle, bool(ismath), mtext)
            if rendered is None:
                return False
            entry = rendered
            _text_masks[key] = entry
            while len(_text_masks) > TEXT_CACHE_SIZE:
                _text_masks.popitem(last=False)
        else:
            _text_masks.move_to_end(key)
        mask, dx, dy = entry
        if mask.size:
            # (x, y) of the mask's left column and of the row below its bottom, y downwards
            self._renderer.draw_text_image(mask, ix + dx, iy + dy, 0, gc)
        return True

    def _get_font_height_metrics(self, prop: FontProperties) -> tuple[float | None, float | None, float | None]:
        """Ascent, descent and line gap of ``prop``'s first font in pixels, cached per font and dpi.

        Matplotlib (3.11) asks the renderer for these each time it lays out a text, if the renderer
        offers them, and otherwise looks the font up and reads its tables again on every call (for
        each tick label, several times per draw). Same tables (OS/2 typographic metrics, else hhea).
        """
        if not _fast_text:
            return (None, None, None)  # matplotlib then reads the font tables itself
        try:
            return self._cached_font_height_metrics(prop)
        except Exception:
            return (None, None, None)

    def _cached_font_height_metrics(self, prop: FontProperties) -> tuple[float | None, float | None, float | None]:
        key = (_font_key(prop), self.dpi)
        metrics = _font_height_metrics.get(key)
        if metrics is None:
            metrics = (None, None, None)
            font: Any = font_manager.get_font(font_manager.fontManager._find_fonts_by_props(prop))
            for table_name, gap, ascent, descent in _HEIGHT_TABLES:
                table = font.get_sfnt_table(table_name)
                if table is not None:
                    head = font.get_sfnt_table("head")
                    assert head is not None
                    scale = prop.get_size_in_points() * self.dpi / 72.0 / head["unitsPerEm"]
                    metrics = (table[ascent] * scale, -table[descent] * scale, table[gap] * scale)
                    break
            _font_height_metrics[key] = metrics
        return metrics

    def _rasterise(
        self, gc: Any, s: str, prop: Any, angle: float, ismath: bool, mtext: Any
    ) -> tuple[Any, int, int] | None:
        """Draw ``s`` on a scratch canvas with its origin on a pixel; its coverage mask and offsets, or None."""
        width, height, descent = _AGG.get_text_width_height_descent(self, s, prop, ismath)
        # The text's box around its origin (x right, y up), rotated: the scratch canvas must hold it.
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        corners = [(u * cos - v * sin, u * sin + v * cos) for u in (0.0, width) for v in (-descent, height - descent)]
        pad = math.ceil(prop.get_size_in_points() * self.dpi / 72.0 / 2.0) + 2
        left = math.floor(min(c[0] for c in corners)) - pad
        top = math.ceil(max(c[1] for c in corners)) + pad
        cols = math.ceil(max(c[0] for c in corners)) + pad - left
        rows = top - (math.floor(min(c[1] for c in corners)) - pad)
        scratch = _AGG(cols, rows, self.dpi)
        scratch_gc = scratch.new_gc()
        scratch_gc.set_foreground((0.0, 0.0, 0.0, 1.0))
        scratch_gc.set_antialiased(gc.get_antialiased())
        ox, oy = -left, top  # the origin on the scratch canvas (y downwards)
        _AGG.draw_text(scratch, scratch_gc, ox, oy, s, prop, angle, ismath, mtext)
        scratch_gc.restore()
        alpha = np.asarray(scratch.buffer_rgba())[:, :, 3]
        used_rows = np.flatnonzero(alpha.any(axis=1))
        used_cols = np.flatnonzero(alpha.any(axis=0))
        if not used_rows.size:
            return np.zeros((0, 0), dtype=np.uint8), 0, 0
        r0, r1 = int(used_rows[0]), int(used_rows[-1]) + 1
        c0, c1 = int(used_cols[0]), int(used_cols[-1]) + 1
        if r0 == 0 or c0 == 0 or r1 == rows or c1 == cols:
            return None  # the glyphs may reach beyond the scratch canvas: draw this text the ordinary way
        return np.ascontiguousarray(alpha[r0:r1, c0:c1]), c0 - ox, r1 - oy


#: Font tables with the ascent, descent and line gap, in the order matplotlib reads them.
_HEIGHT_TABLES: tuple[tuple[str, str, str, str], ...] = (
    ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
    ("hhea", "lineGap", "ascent", "descent"),
)
_font_height_metrics: dict[tuple[Any, ...], tuple[float | None, float | None, float | None]] = {}


def _rc_values(names: tuple[str, ...]) -> tuple[Any, ...]:
    """The rcParams ``names`` as a hashable tuple (lists become tuples; a name this matplotlib lacks is None)."""
    rc: Any = matplotlib.rcParams
    return tuple(tuple(v) if isinstance(v := rc.get(name), list) else v for name in names)


def _font_key(prop: FontProperties) -> tuple[Any, ...]:
    """What selects and sizes the font of ``prop``, including the rcParams its generic family names depend on."""
    family = tuple(prop.get_family())
    fonts: tuple[Any, ...] = ()
    if not _GENERIC_FAMILIES.isdisjoint(family):
        fonts = _rc_values(_FONT_LIST_RC_KEYS)
    return (
        family,
        prop.get_style(),
        prop.get_variant(),
        prop.get_weight(),
        prop.get_stretch(),
        prop.get_size_in_points(),
        prop.get_file(),
        fonts,
    )


def _text_key(
    renderer: RendererAgg,
    gc: Any,
    s: str,
    prop: FontProperties,
    angle: float,
    ismath: bool,
    mtext: Any,
) -> tuple[Any, ...]:
    features = getattr(mtext, "get_fontfeatures", None)
    language = getattr(mtext, "get_language", None)
    return (
        s,
        ismath,
        prop.get_math_fontfamily() if ismath else None,
        _rc_values(_MATH_RC_KEYS) if ismath else None,
        _font_key(prop),
        angle,
        renderer.dpi,
        gc.get_antialiased(),
        None if features is None else features(),
        None if language is None else language(),
        _rc_values(_TEXT_RC_KEYS),
    )


class _CourseCanvas(FigureCanvasAgg):
    """The Agg canvas of course figures: its renderer caches rasterised texts (:class:`_TextCachingRenderer`)."""

    def get_renderer(self) -> Any:
        if not _text_cache_checked:
            check_text_cache()
        renderer = _CANVAS.get_renderer(self)
        if type(renderer) is RendererAgg:
            renderer.__class__ = _TextCachingRenderer
        return renderer


#: Largest difference (of 255) a pixel of a cached text may have from matplotlib's own drawing:
#: the two blend the same coverage, but a rotated glyph's rounding can differ by one level.
TEXT_CACHE_TOLERANCE: int = 2
#: Texts :func:`check_text_cache` draws both ways: Latin, digits and symbols at two sizes, a
#: rotated axis label, math text (a log axis's tick label) and Chinese; (x, y) in pixels.
_PROBE_TEXTS: tuple[tuple[int, int, str, float, float], ...] = (
    (6, 70, "Agg 0.123 GiB", 10.0, 0.0),
    (6, 40, "p95 <= 50 ms", 8.0, 0.0),
    (200, 6, "memory per rank", 9.0, 90.0),
    (90, 14, "$10^{3}$", 9.0, 0.0),
    (120, 60, "数据并行", 10.0, 0.0),
)
_text_cache_checked: bool = False


def _probe_pixels(cached: bool) -> Any:
    global _fast_text
    saved = _fast_text
    _fast_text = cached
    try:
        fig = CourseFigure(figsize=(2.4, 1.0), dpi=DEFAULT_DPI)
        _CourseCanvas(fig)
        with fig.course_fonts():
            for x, y, text, size, angle in _PROBE_TEXTS:
                # Anchored on whole pixels: both paths place the origin exactly there.
                fig.text(
                    x,
                    y,
                    text,
                    fontsize=size,
                    rotation=angle,
                    rotation_mode="anchor",
                    ha="left",
                    va="baseline",
                    transform=IdentityTransform(),
                )
        canvas: Any = fig.canvas
        canvas.draw()
        return np.asarray(canvas.buffer_rgba()).astype(np.int16)
    finally:
        _fast_text = saved


def check_text_cache() -> bool:
    """Draw probe texts with and without the text cache; switch the cache off unless they match.

    The cache (:class:`_TextCachingRenderer`) relies on matplotlib internals that
    may change in any release, and matplotlib is not pinned. So the first course
    figure of a process first draws :data:`_PROBE_TEXTS` both ways and compares
    them pixel by pixel (within :data:`TEXT_CACHE_TOLERANCE`); on any mismatch,
    or any error, every text takes matplotlib's own path from then on. Returns
    whether the cache is on.

    >>> check_text_cache()
    True
    """
    global _fast_text, _text_cache_checked
    _text_cache_checked = True
    if not _fast_text:
        return False
    try:
        plain, cached = _probe_pixels(cached=False), _probe_pixels(cached=True)
        agrees = plain.shape == cached.shape and int(np.abs(plain - cached).max()) <= TEXT_CACHE_TOLERANCE
    except Exception:
        agrees = False
    if not agrees:
        _fast_text = False
        _log.warning(
            "coursekit.plotting: text cache disabled, it draws differently on matplotlib %s", matplotlib.__version__
        )
    return _fast_text


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
    fig = CourseFigure(figsize=(width, height), dpi=resolution, layout="constrained")
    _CourseCanvas(fig)
    return fig


def css_width_px(fig: Figure) -> int:
    """Width in CSS pixels to show ``fig`` at: its width in inches at :data:`DEFAULT_DPI`.

    >>> css_width_px(new_figure(6.2, 3.2, dpi=DEFAULT_DPI * WIDGET_PIXEL_RATIO))
    620
    """
    return round(fig.get_figwidth() * DEFAULT_DPI)


def figure_to_png(fig: Figure, describe: bool = True) -> bytes:
    """Render ``fig`` to PNG bytes with the Agg renderer at the figure's own dpi.

    With ``describe`` (the default) the PNG carries what the figure shows in words, in the course language
    (:func:`coursekit.figure_alt.describe_figure`, as the PNG's ``Description`` text): a static page uses it
    as the image's alt text. A live widget, which redraws on every change, passes ``describe=False``.

    >>> figure_to_png(new_figure(1, 1))[:4]
    b'\\x89PNG'

    Taught in: lesson 0 (course index).
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"figure_to_png() needs a matplotlib Figure, not {type(fig).__name__}")
    if not isinstance(fig.canvas, FigureCanvasAgg):
        _CourseCanvas(fig)
    # Draw once on the Agg canvas and encode the pixels ourselves: savefig would draw twice
    # with a layout engine and compress harder than a live widget needs.
    canvas = cast("FigureCanvasAgg", fig.canvas)
    canvas.draw()  # type: ignore[no-untyped-call]
    text = None
    if describe:
        from .figure_alt import describe_figure

        text = {"Description": (describe_figure(fig), i18n.get_language())}
    return encode_png(np.asarray(cast(Any, canvas).buffer_rgba()), text=text)


def encode_png(
    rgba: Any, compress_level: int = PNG_COMPRESS_LEVEL, text: dict[str, tuple[str, str]] | None = None
) -> bytes:
    """PNG bytes of an ``(height, width, 4)`` uint8 RGBA array; RGB when every pixel is opaque.

    ``text``: ``{keyword: (UTF-8 text, language tag)}`` written as iTXt chunks (e.g. ``Description``).

    Written directly with zlib: no PNG row filter (a figure's flat areas compress well
    without one) and zlib level 1 by default, which encodes a 620 x 320 figure in about
    3 ms instead of about 7 ms for PIL's adaptive filtering at the same level, and the
    file is smaller (about 33 KiB instead of 39 KiB: no alpha channel).

    >>> import numpy as np
    >>> encode_png(np.full((2, 3, 4), 255, dtype=np.uint8))[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True

    Taught in: lesson 0 (course index).
    """
    pixels = np.asarray(rgba)
    if pixels.ndim != 3 or pixels.shape[2] != 4 or pixels.dtype != np.uint8:
        raise ValueError(f"encode_png() needs an (height, width, 4) uint8 array, not {pixels.dtype} {pixels.shape}")
    level = int(check_number("compress_level", compress_level, ge=0, le=9))
    height, width = pixels.shape[:2]
    if pixels[:, :, 3].min() == 255:
        pixels, colour_type = pixels[:, :, :3], 2  # truecolour
    else:
        colour_type = 6  # truecolour with alpha
    channels = pixels.shape[2]
    scanlines = np.empty((height, width * channels + 1), dtype=np.uint8)
    scanlines[:, 0] = 0  # filter byte 0 (None) per row
    rows = scanlines[:, 1:].reshape(height, width, channels)  # a view into scanlines
    for channel in range(channels):  # channel by channel: much faster than one strided RGBA -> RGB copy
        rows[:, :, channel] = pixels[:, :, channel]
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", zlib.compress(scanlines.tobytes(), level)),
            *(
                _png_chunk(b"iTXt", b"%s\0\0\0%s\0\0%s" % (k.encode("latin-1"), lang.encode(), v.encode("utf-8")))
                for k, (v, lang) in (text or {}).items()
            ),
            _png_chunk(b"IEND", b""),
        )
    )


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def freeze_layout(fig: Figure) -> None:
    """Keep the axes where the layout engine last put them and stop re-running it.

    A live widget's figure changes data, not structure: running the constrained layout on
    every redraw costs more than the drawing itself. Call after the first render.

    >>> fig = new_figure(2, 2); _ = fig.add_subplot(); _ = figure_to_png(fig)
    >>> freeze_layout(fig); type(fig.get_layout_engine()).__name__  # a no-op engine keeps the positions
    'PlaceHolderLayoutEngine'
    """
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

    >>> fig = new_figure(2, 2); ax = fig.add_subplot(); _ = ax.set_xlabel("x"); _ = figure_to_png(fig)
    >>> freeze_layout(fig); pin_labels(fig); y = float(ax.xaxis.label.get_position()[1])
    >>> _ = ax.set_xticks([0.5], labels=["two\\nlines"]); _ = figure_to_png(fig)
    >>> float(ax.xaxis.label.get_position()[1]) == y  # pinned: stays (and may now overlap)
    True
    >>> pin_labels(fig, pinned=False); _ = figure_to_png(fig)
    >>> float(ax.xaxis.label.get_position()[1]) < y  # released: moves below the taller tick label
    True

    Taught in: lesson 0 (course index).
    """
    check_bool("pinned", pinned)
    held: list[tuple[Any, str]] = fig.__dict__.setdefault("_course_pinned_labels", [])
    if not pinned:
        for owner, flag in held:
            setattr(owner, flag, True)
        held.clear()
        return
    for ax in fig.axes:
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
            scratch = cast(Any, _TextCachingRenderer)(renderer.width, renderer.height, renderer.dpi)
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
            cached["signature"] = signature
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
