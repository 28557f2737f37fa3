"""Alt text for a figure, read from the figure itself, in the course language.

A page that shows a figure as an image (the course website, a static export) needs words for readers who
cannot see it. :func:`describe_figure` reads what a Matplotlib figure holds: each panel's title, its axes
(label and shown range), every labelled line with the range of its values, the bars with the largest one.

>>> from coursekit.plotting import new_figure
>>> from coursekit import set_language
>>> fig = new_figure(3.0, 2.0)
>>> ax = fig.add_subplot()
>>> _ = ax.plot([1, 2, 4], [10.0, 20.0, 5.0], label="ZeRO-3")
>>> _ = ax.set(title="Memory", xlabel="GPUs", ylabel="GiB", xlim=(1, 4), ylim=(0, 25))
>>> set_language("en")
>>> describe_figure(fig)
'Figure "Memory": x axis GPUs from 1 to 4; y axis GiB from 0 to 25; ZeRO-3: 3 points, y from 5 to 20.'

Taught in: every lesson's figures on the course website.
"""

from __future__ import annotations

import struct
from typing import Any

from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from . import i18n
from ._validate import check_choice, check_instance, learner_functions
from .i18n import Text, register, shown_repr, tr

#: The eight bytes every PNG file starts with (PNG specification, section 5.2).
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

register(
    {
        "figure_alt.not_png": {
            "zh": "png 的开头是 {value}：不是 PNG 文件（PNG 以 \\x89PNG\\r\\n\\x1a\\n 开头）。",
            "en": "png starts with {value}: not a PNG file (a PNG starts with \\x89PNG\\r\\n\\x1a\\n).",
        },
    }
)

__all__ = ["describe_figure", "figure_html", "image_html", "png_description"]

_FIGURE = Text(zh="图", en="Figure")
_TITLED = Text(zh="图“{title}”", en='Figure "{title}"')
_AXIS = {
    "x": Text(zh="横轴 {label}，从 {low} 到 {high}", en="x axis {label} from {low} to {high}"),
    "y": Text(zh="纵轴 {label}，从 {low} 到 {high}", en="y axis {label} from {low} to {high}"),
}
_LINE = Text(zh="{label}：{n} 个点，纵值从 {low} 到 {high}", en="{label}: {n} points, y from {low} to {high}")
_BARS = Text(zh="{n} 根柱，最高的是 {label}（{high}）", en="{n} bars, the highest {label} ({high})")
_NO_DATA = Text(zh="无数据", en="no data")
_LABELS = Text(zh="{n} 个标注：{labels}", en="{n} labels: {labels}")
_LIST_SEPARATOR = Text(zh="、", en=", ")
#: At most this many of a panel's text labels are quoted when it has no line or bar to describe.
MAX_QUOTED_LABELS: int = 8
_SEPARATORS = (Text(zh="：", en=": "), Text(zh="；", en="; "), Text(zh="。", en="."))


def _number(value: float) -> str:
    return f"{value:.3g}"


def _axes_parts(ax: Any, lang: str) -> list[str]:
    parts: list[str] = []
    for axis, limits in (("x", ax.get_xlim()), ("y", ax.get_ylim())):
        name = (ax.get_xlabel() if axis == "x" else ax.get_ylabel()).strip()
        if name:
            low, high = sorted(limits)
            parts.append(_AXIS[axis].render(lang).format(label=name, low=_number(low), high=_number(high)))
    for line in ax.get_lines():
        name = str(line.get_label())
        y = [float(v) for v in line.get_ydata() if v == v]  # NaN gaps left out
        if name.startswith("_") or not y:
            continue
        parts.append(_LINE.render(lang).format(label=name, n=len(y), low=_number(min(y)), high=_number(max(y))))
    for container in ax.containers:
        if not isinstance(container, BarContainer) or not container.patches:
            continue
        # a horizontal bar's value is its width and its name sits on the y axis
        horizontal = getattr(container, "orientation", "vertical") == "horizontal"
        heights = [patch.get_width() if horizontal else patch.get_height() for patch in container.patches]
        top = max(range(len(heights)), key=lambda i: heights[i])
        patch = container.patches[top]
        if horizontal:
            centre = patch.get_y() + patch.get_height() / 2
            locations, tick_labels = ax.get_yticks(), ax.get_yticklabels()
        else:
            centre = patch.get_x() + patch.get_width() / 2
            locations, tick_labels = ax.get_xticks(), ax.get_xticklabels()
        ticks = {round(float(loc), 6): t.get_text() for loc, t in zip(locations, tick_labels, strict=False)}
        name = str(container.get_label())
        which = ticks.get(round(centre, 6)) or (name if not name.startswith("_") else "") or str(top + 1)
        parts.append(_BARS.render(lang).format(n=len(heights), label=which, high=_number(heights[top])))
    if not parts:  # a grid of coloured cells or a diagram: say what its text labels read
        labels = [t.get_text().strip() for t in ax.texts if t.get_visible() and t.get_text().strip()]
        if ax.axison:  # row names of a grid (a hidden axis still carries default numeric ticks)
            labels += [t.get_text().strip() for t in ax.get_yticklabels() if t.get_text().strip()]
        if labels:
            quoted = _LIST_SEPARATOR.render(lang).join(labels[:MAX_QUOTED_LABELS])
            parts.append(_LABELS.render(lang).format(n=len(labels), labels=quoted))
    return parts


def describe_figure(fig: Figure, lang: str | None = None) -> str:
    """What ``fig`` shows, in words: per panel its title, axes, lines and bars (``lang``: zh/en, default current)."""
    check_instance("fig", fig, Figure)
    lang = i18n.get_language() if lang is None else check_choice("lang", lang, i18n.LANGUAGES)
    colon, semicolon, stop = (part.render(lang) for part in _SEPARATORS)
    panels = []
    for ax in fig.get_axes():
        if not ax.get_visible() or (not ax.axison and not ax.get_title()):
            continue
        title = ax.get_title().strip()
        head = _TITLED.render(lang).format(title=title) if title else _FIGURE.render(lang)
        parts = _axes_parts(ax, lang) or [_NO_DATA.render(lang)]
        panels.append(head + colon + semicolon.join(parts) + stop)
    suptitle = fig.get_suptitle() if hasattr(fig, "get_suptitle") else ""
    text = " ".join(panels) if panels else _FIGURE.render(lang) + stop
    return (suptitle.strip() + colon + text) if suptitle.strip() else text


def figure_html(fig: Figure) -> str:
    """An ``<img>`` of ``fig`` at twice its pixel density (crisp on any screen) with :func:`describe_figure` as
    its alt text: the HTML a static page shows for a figure."""
    check_instance("fig", fig, Figure)
    import base64
    import html

    from IPython.core.pylabtools import print_figure

    from .plotting.png import PAGE_FIGURE_COLOURS, palette_png

    png: bytes = print_figure(fig, "png", bbox_inches="tight", dpi=2 * fig.dpi)  # type: ignore[no-untyped-call]
    width, height = struct.unpack(">II", png[16:24])  # the PNG header's IHDR chunk
    data = base64.b64encode(palette_png(png, PAGE_FIGURE_COLOURS)).decode("ascii")
    alt = html.escape(describe_figure(fig), quote=True)
    return (
        f'<img class="ck-figure" src="data:image/png;base64,{data}" width="{width // 2}" height="{height // 2}"'
        f' alt="{alt}">'
    )


def png_description(png: bytes) -> str | None:
    """The ``Description`` text a PNG carries (an iTXt chunk, as :func:`coursekit.plotting.figure_to_png`
    writes it), or None.

    >>> from coursekit.plotting import encode_png
    >>> import numpy as np
    >>> png_description(encode_png(np.zeros((1, 1, 4), np.uint8), text={"Description": ("一张图", "zh")}))
    '一张图'
    """
    if not isinstance(png, (bytes, bytearray)):
        raise TypeError(
            tr("validate.type_instance", name="png", value=shown_repr(png), expected="bytes", type=type(png).__name__)
        )
    if bytes(png[:8]) != PNG_SIGNATURE:
        raise ValueError(tr("figure_alt.not_png", value=shown_repr(bytes(png[:8]))))
    position = 8
    while position + 8 <= len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        data = png[position + 8 : position + 8 + length]
        if kind == b"iTXt":
            keyword, _, rest = data.partition(b"\0")
            if keyword == b"Description" and rest[:2] == b"\0\0":  # uncompressed
                _language, _, rest = rest[2:].partition(b"\0")
                _translated, _, text = rest.partition(b"\0")
                return text.decode("utf-8")
        if kind == b"IEND":
            break
        position += 12 + length
    return None


def image_html(image: Any) -> str | None:
    """An ``<img>`` for an ``IPython.display.Image`` of a course figure, its description as the alt text;
    None for an image that carries none (the page then shows it as usual).

    The ``<img>`` takes the Image's display size when it has one (:func:`coursekit.plotting.figure_image`
    shows a PNG drawn for HiDPI screens at half its pixel size), else the PNG's own size; its pixels are reduced
    to a palette of :data:`coursekit.plotting.png.PAGE_FIGURE_COLOURS` colours (a third of the bytes)."""
    import base64
    import html

    data = image.data if isinstance(getattr(image, "data", None), bytes) else None
    if data is None or not data.startswith(PNG_SIGNATURE):
        return None
    alt = png_description(data)
    if alt is None:
        return None
    width, height = struct.unpack(">II", data[16:24])
    if getattr(image, "width", None) and getattr(image, "height", None):
        width, height = int(image.width), int(image.height)
    from .plotting.png import PAGE_FIGURE_COLOURS, palette_png

    encoded = base64.b64encode(palette_png(data, PAGE_FIGURE_COLOURS)).decode("ascii")
    return (
        f'<img class="ck-figure" src="data:image/png;base64,{encoded}" width="{width}" height="{height}"'
        f' alt="{html.escape(alt, quote=True)}">'
    )


learner_functions(globals())
