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
import io
import os
from typing import Any, cast

import matplotlib
import PIL.Image
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text as MplText

from . import i18n
from ._validate import check_number
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
    """

    def draw(self, renderer: Any) -> None:
        families = font_families()
        default = list(matplotlib.rcParams["font.family"])
        with matplotlib.rc_context({"font.family": families}):
            for artist in cast("list[MplText]", self.findobj(MplText)):
                if _is_course_managed(list(artist.get_fontfamily()), default):
                    artist.set_fontfamily(families)
            super().draw(renderer)


def _is_course_managed(current: list[str], default: list[str]) -> bool:
    """True if a text's family is matplotlib's default or a list set by a previous draw."""
    return current == default or (0 < len(current) <= 2 and set(current) <= _COURSE_FONTS)


_COURSE_FONTS: frozenset[str] = frozenset((LATIN_FONT, *CJK_FONT_CANDIDATES))


#: zlib level of the PNGs widgets send to the browser (1 = fastest).
PNG_COMPRESS_LEVEL = 1


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
    FigureCanvasAgg(fig)
    return fig


def figure_to_png(fig: Figure) -> bytes:
    """Render ``fig`` to PNG bytes with the Agg renderer at the figure's own dpi.

    >>> figure_to_png(new_figure(1, 1))[:4]
    b'\\x89PNG'

    Taught in: lesson 0 (course index).
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"figure_to_png() needs a matplotlib Figure, not {type(fig).__name__}")
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    # Draw once on the Agg canvas and encode the pixels ourselves: savefig would draw twice
    # with a layout engine and compress harder than a live widget needs (PNG level 1: about
    # 3 ms for a 600 x 320 figure instead of about 10 ms; the file is ~40 % larger).
    canvas = cast("FigureCanvasAgg", fig.canvas)
    canvas.draw()  # type: ignore[no-untyped-call]
    width, height = canvas.get_width_height()
    image = PIL.Image.frombuffer("RGBA", (width, height), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)  # type: ignore[no-untyped-call]
    buffer = io.BytesIO()
    image.save(buffer, format="png", compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()


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
