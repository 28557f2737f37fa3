"""The text-raster cache: each distinct figure text is rasterised once, then only its coverage mask is blended.

A live widget redraws the same tick labels, axis labels and legend entries at every update;
matplotlib's Agg backend lays each string out and renders it glyph by glyph every time.
:class:`TextCachingRenderer` keeps the coverage of each text and blends it in the text's
colour, and renders a new text from the glyph bitmaps it has kept; :func:`check_text_cache`
compares both paths pixel by pixel on the first figure of a process and switches the cache off
on any difference (matplotlib is not pinned).

>>> check_text_cache()
True

Taught in: lesson 0 (course index); every widget's figure uses it.
"""

from __future__ import annotations

import logging
import math
from collections import OrderedDict
from typing import Any

import matplotlib
import matplotlib.text
import numpy as np
from matplotlib import font_manager, ft2font
from matplotlib.backends import backend_agg
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.font_manager import FontProperties
from matplotlib.transforms import IdentityTransform

from .._validate import learner_functions
from .fonts import LATIN_FONT, CourseFigure

#: Dots per inch of the probe figure :func:`check_text_cache` draws (the lessons' own resolution).
PROBE_DPI: int = 100

#: Rasterised texts kept by :class:`TextCachingRenderer` (least recently used dropped first); 0 disables the cache.
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


class TextCachingRenderer(RendererAgg):
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

    def get_text_width_height_descent(self, s: str, prop: Any, ismath: Any) -> tuple[float, float, float]:
        """Agg's own measurement (the same calls, the same numbers), keeping a plain string's glyph positions.

        Agg lays a string out once to measure it and again to draw it. For a string of
        :data:`POSITIONED_CHARS` (numbers: tick labels, funnel counts), or of :data:`LATIN_POSITIONED_CHARS` in
        :data:`LATIN_FONT` (English labels), the positions this layout gives are those the drawing's layout
        would give, one glyph per character (``tests/test_plotting.py`` checks that both draw the same pixels),
        so :meth:`_rasterise` draws from them instead of laying out again.
        """
        if ismath is not False or not _fast_text or not s or not LATIN_POSITIONED_CHARS.issuperset(s):
            width, height, descent = _AGG.get_text_width_height_descent(self, s, prop, ismath)
            return width, height, descent
        font = _AGG._prepare_font(self, prop)
        if font.family_name != LATIN_FONT and not POSITIONED_CHARS.issuperset(s):
            width, height, descent = _AGG.get_text_width_height_descent(self, s, prop, ismath)
            return width, height, descent
        xys = font.set_text(s, 0.0, flags=_AGG_MODULE.get_hinting_flag())
        w, h = font.get_width_height()  # width and height of the unrotated string
        d = font.get_descent()
        _positions[_position_key(self, s, prop)] = (font, xys)
        while len(_positions) > TEXT_CACHE_SIZE:
            _positions.popitem(last=False)
        return w / 64.0, h / 64.0, d / 64.0

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
        # The size matplotlib measured when it laid the text out (its own cache of text metrics).
        width, height, descent = _text_metrics(self, s, prop, ismath, self.dpi)
        # The text's box around its origin (x right, y up), rotated: the scratch canvas must hold it.
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        corners = [(u * cos - v * sin, u * sin + v * cos) for u in (0.0, width) for v in (-descent, height - descent)]
        pad = math.ceil(prop.get_size_in_points() * self.dpi / 72.0 / 2.0) + 2
        left = math.floor(min(c[0] for c in corners)) - pad
        top = math.ceil(max(c[1] for c in corners)) + pad
        cols = math.ceil(max(c[0] for c in corners)) + pad - left
        rows = top - (math.floor(min(c[1] for c in corners)) - pad)
        scratch: Any = _GLYPH_SCRATCH(cols, rows, self.dpi)
        scratch_gc = scratch.new_gc()
        scratch_gc.set_foreground((0.0, 0.0, 0.0, 1.0))
        scratch_gc.set_antialiased(gc.get_antialiased())
        ox, oy = -left, top  # the origin on the scratch canvas (y downwards)
        glyphs = None if ismath else _positioned_glyphs(self, s, prop, mtext)
        if glyphs is None:
            _AGG.draw_text(scratch, scratch_gc, ox, oy, s, prop, angle, ismath, mtext)
        else:  # what Agg's draw_text passes on, from the measurement's layout
            scratch._draw_text_glyphs_and_boxes(scratch_gc, ox, oy, angle, glyphs, [])
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


class _GlyphCachingRenderer(RendererAgg):
    """The scratch renderer of :meth:`TextCachingRenderer._rasterise`: each glyph bitmap is rendered once.

    A new string (a value label that changed) mostly holds glyphs drawn before, yet FreeType renders
    each glyph anew (about 0.1 ms), although its bitmap depends only on the font, its size, the dpi,
    the rotation, the load flags and the glyph's position within a pixel (in 1/64 px; hinted glyphs of
    a text whose origin is on a pixel sit on whole pixels). These are the steps of matplotlib's
    ``_draw_text_glyphs_and_boxes``, with the bitmap of each such glyph kept and drawn at its
    whole-pixel offset. :func:`check_text_cache` compares the result with matplotlib's own drawing.
    """

    def _draw_text_glyphs_and_boxes(self, gc: Any, x: float, y: float, angle: float, glyphs: Any, boxes: Any) -> None:
        if not _glyph_api:
            _AGG._draw_text_glyphs_and_boxes(self, gc, x, y, angle, glyphs, boxes)
            return
        cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
        load_flags = _AGG_MODULE.get_hinting_flag()
        antialiased = bool(gc.get_antialiased())
        mode = _FT2FONT.RenderMode.NORMAL if antialiased else _FT2FONT.RenderMode.MONO
        rc = _rc_values(_TEXT_RC_KEYS)
        matrices: dict[tuple[float, float], Any] = {}  # FreeType's 16.16 transform, by (slant, extend)
        for font, size, glyph_index, slant, extend, dx, dy in glyphs:  # dy is upwards
            matrix = matrices.get((slant, extend))
            if matrix is None:
                rotation = 0x10000 * np.array([[cos, -sin], [sin, cos]])
                matrix = matrices[slant, extend] = (rotation @ [[extend, extend * slant], [0, 1]]).round().astype(int)
            tx = round(0x40 * (x + dx * cos - dy * sin))
            ty = round(0x40 * (self.height - y + dx * sin + dy * cos))  # FreeType's y is upwards
            # The bitmap depends on the glyph's position only within a pixel (tx, ty are in 1/64 px).
            key: tuple[Any, ...] = (
                font.fname, font.face_index, size, self.dpi, glyph_index, matrix.tobytes(),
                tx & 0x3F, ty & 0x3F, load_flags, antialiased, rc,
            )  # fmt: skip
            entry = _glyph_bitmaps.get(key)
            if entry is None:
                font.set_size(size, self.dpi)
                font._set_transform(matrix, [tx, ty])
                bitmap = font._render_glyph(glyph_index, load_flags, mode)
                buffer = np.array(bitmap.buffer, dtype=np.uint8)
                if not antialiased:
                    buffer *= 0xFF
                entry = (buffer, bitmap.left - (tx >> 6), bitmap.top - (ty >> 6))
                _glyph_bitmaps[key] = entry
                while len(_glyph_bitmaps) > GLYPH_CACHE_SIZE:
                    _glyph_bitmaps.popitem(last=False)
            buffer, left, top = entry
            # draw_text_image's y is downwards and names the bitmap's bottom side.
            self._renderer.draw_text_image(
                buffer, (tx >> 6) + left, int(self.height) - ((ty >> 6) + top) + buffer.shape[0], 0, gc
            )
        _AGG._draw_text_glyphs_and_boxes(self, gc, x, y, angle, (), boxes)  # the boxes (math text's rules)


_GLYPH_SCRATCH: Any = _GlyphCachingRenderer
#: Glyph bitmaps kept by :class:`_GlyphCachingRenderer` (least recently inserted dropped first).
GLYPH_CACHE_SIZE: int = 8192
_glyph_bitmaps: OrderedDict[tuple[Any, ...], tuple[Any, int, int]] = OrderedDict()
#: The matplotlib internals :class:`_GlyphCachingRenderer` follows (matplotlib >= 3.11); else it draws as Agg does.
_glyph_api: bool = (
    hasattr(ft2font, "RenderMode")
    and hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
    and hasattr(ft2font.FT2Font, "_render_glyph")
    and hasattr(ft2font.FT2Font, "_set_transform")
)
#: matplotlib's Agg helpers, untyped: for calls from the typed code above.
_AGG_MODULE: Any = backend_agg
_FT2FONT: Any = ft2font


#: Characters of the strings whose glyph positions the measurement keeps (:meth:`TextCachingRenderer.\
#: get_text_width_height_descent`): digits and what numbers and the funnel's counts are written with. Each is one
#: glyph of the first font, placed where Agg's drawing layout places it (no ligature or substitution among them).
POSITIONED_CHARS: frozenset[str] = frozenset("0123456789 ,.+-\u2212\u2192%")
#: Characters whose glyph positions the measurement also keeps when the first font is :data:`LATIN_FONT`: printable
#: ASCII (the English labels and value labels). In that font each is one glyph, placed where Agg's drawing layout
#: places it, except the ligatures ``ff``, ``fi`` and ``fl`` (fewer glyphs than characters: such a string is laid
#: out again, see :func:`_positioned_glyphs`). Other fonts may substitute glyphs in context (Noto Sans CJK's
#: digits next to letters), so their letters take the second layout.
LATIN_POSITIONED_CHARS: frozenset[str] = POSITIONED_CHARS | frozenset(chr(code) for code in range(0x20, 0x7F))
#: Glyph positions (26.6 pixels) of the strings measured last, by string, font and dpi: (font, positions).
_positions: OrderedDict[tuple[Any, ...], tuple[Any, Any]] = OrderedDict()


def _position_key(renderer: Any, s: str, prop: FontProperties) -> tuple[Any, ...]:
    return (s, _font_key(prop), renderer.dpi, _AGG_MODULE.get_hinting_flag(), _rc_values(_TEXT_RC_KEYS))


def _positioned_glyphs(renderer: Any, s: str, prop: FontProperties, mtext: Any) -> list[tuple[Any, ...]] | None:
    """The glyphs Agg's ``draw_text`` would draw for ``s``, from its measurement's positions; None unless every
    character is one glyph of the first font, with no font features or language set on the text."""
    if getattr(mtext, "get_fontfeatures", lambda: None)() is not None:
        return None
    if getattr(mtext, "get_language", lambda: None)() is not None:
        return None
    kept = _positions.get(_position_key(renderer, s, prop))
    if kept is None:
        return None
    font, xys = kept
    indices = [font.get_char_index(ord(c)) for c in s]
    if len(xys) != len(s) or 0 in indices:  # a glyph from a fallback font, or a shaped run: lay out again
        return None
    size = prop.get_size_in_points()
    return [(font, size, index, 0, 1, x / 64.0, y / 64.0) for index, (x, y) in zip(indices, xys.tolist(), strict=True)]


def _text_metrics(renderer: Any, s: str, prop: FontProperties, ismath: bool, dpi: float) -> tuple[float, float, float]:
    """Width, height and descent of ``s`` in pixels, from matplotlib's cache of text metrics when it has one."""
    cached: Any = getattr(matplotlib.text, "_get_text_metrics_with_cache", None)
    if cached is not None:
        width, height, descent = cached(renderer, s, prop, ismath, dpi)
    else:
        width, height, descent = _AGG.get_text_width_height_descent(renderer, s, prop, ismath)
    return width, height, descent


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


class CourseCanvas(FigureCanvasAgg):
    """The Agg canvas of course figures: its renderer caches rasterised texts (:class:`TextCachingRenderer`)."""

    def get_renderer(self) -> Any:
        if not _text_cache_checked:
            check_text_cache()
        renderer = _CANVAS.get_renderer(self)
        if type(renderer) is RendererAgg:
            renderer.__class__ = TextCachingRenderer
        return renderer


#: Largest difference (of 255) a pixel of a cached text may have from matplotlib's own drawing:
#: the two blend the same coverage, but a rotated glyph's rounding can differ by one level.
TEXT_CACHE_TOLERANCE: int = 2
#: Texts :func:`check_text_cache` draws both ways: Latin, digits and symbols at two sizes, a
#: rotated axis label, math text (a log axis's tick label), Chinese, and a number drawn from the
#: glyph positions its measurement kept (:data:`POSITIONED_CHARS`); (x, y) in pixels.
_PROBE_TEXTS: tuple[tuple[int, int, str, float, float], ...] = (
    (6, 70, "Agg 0.123 GiB", 10.0, 0.0),
    (6, 40, "p95 <= 50 ms", 8.0, 0.0),
    (6, 14, "-1,208 \u2192 34%", 7.0, 0.0),
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
        fig = CourseFigure(figsize=(2.4, 1.0), dpi=PROBE_DPI)
        CourseCanvas(fig)
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

    The cache (:class:`TextCachingRenderer`) relies on matplotlib internals that
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


learner_functions(globals())
