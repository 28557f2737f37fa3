"""Fonts of the course's figures: Chinese labels when a CJK font exists, English otherwise.

A zh notebook on a machine without a CJK font falls back to English labels, so a learner
never sees tofu boxes or "Glyph missing" warnings. :class:`CourseFigure` applies the
course's font families to its texts whenever it is drawn.

>>> font_families()[0]
'DejaVu Sans'

Taught in: lesson 0 (course index); every lesson's figures use it.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import matplotlib
from matplotlib import font_manager
from matplotlib.figure import Figure
from matplotlib.text import Text as MplText

from .. import i18n
from .._validate import check_instance, learner_functions
from ..i18n import Text

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
    check_instance("text", text, Text)
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

    >>> fig = CourseFigure(figsize=(2, 1))
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
        with _default_families(font_families()):
            yield

    def draw(self, renderer: Any) -> None:
        families = font_families()
        key = tuple(families)
        default = list(matplotlib.rcParams["font.family"])
        with _default_families(families):
            if not (self.texts_tracked and key == self._fonts_applied):
                for artist in cast("list[MplText]", self.findobj(MplText)):
                    if _is_course_managed(list(artist.get_fontfamily()), default):
                        artist.set_fontfamily(families)
                self._fonts_applied = key
            super().draw(renderer)


@contextmanager
def _default_families(families: list[str]) -> Iterator[None]:
    """``rcParams["font.family"]`` set to ``families`` inside the block, then put back.

    The one setting :func:`matplotlib.rc_context` would change, without its copy of every rcParam
    (about 1 ms, twice per widget update).
    """
    params: Any = matplotlib.rcParams
    saved = params["font.family"]
    params["font.family"] = families
    try:
        yield
    finally:
        params["font.family"] = saved


def _is_course_managed(current: list[str], default: list[str]) -> bool:
    """True if a text's family is matplotlib's default or a list set by a previous draw."""
    return current == default or (0 < len(current) <= 2 and set(current) <= _COURSE_FONTS)


_COURSE_FONTS: frozenset[str] = frozenset((LATIN_FONT, *CJK_FONT_CANDIDATES))

learner_functions(globals())
