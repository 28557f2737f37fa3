"""A widget's states on its main control's grid, computed ahead: what a page without a kernel can replay.

The course website has no Python. So that a learner can still move a widget's main control there, the
site build asks the widget itself for each state: :func:`live_frames` sets the main control to each value
of its grid (every step of a slider, every option of a dropdown, both states of a checkbox; at most
:data:`MAX_FRAMES`, evenly spread and always including the current value), and records what the widget then
shows: the control's shown value, the verdict box (same words and colours as in the notebook) and the
figure. No formula is rewritten for the page: each state is what ``compute``, ``describe`` and ``draw``
returned. The other controls stay at their values; the widget is put back as it was.

Frames are PNGs reduced to a 64-colour palette (about a quarter of the size; the widget's own PNG keeps
every colour), so a widget's frames weigh about 0.3-0.5 MB in the page.

Taught in: every widget lesson, on the course website.
"""

from __future__ import annotations

import base64
import io
from typing import Any

import ipywidgets

from ..i18n import tr

__all__ = ["MAX_FRAMES", "control_steps", "live_frames", "palette_png"]

#: At most this many precomputed states per widget (the page's weight grows with each).
MAX_FRAMES = 16
PALETTE_COLOURS = 64


def _spread(count: int, keep: int, limit: int) -> list[int]:
    """``limit`` indices out of ``range(count)``, evenly spread, first and last and ``keep`` included."""
    if count <= limit:
        return list(range(count))
    picked = {round(i * (count - 1) / (limit - 2)) for i in range(limit - 1)}  # limit - 1 points, ends included
    return sorted(picked | {keep})


def control_steps(control: ipywidgets.ValueWidget, limit: int = MAX_FRAMES) -> list[tuple[str, Any]]:
    """How to put ``control`` on each point of its grid: ``("index", i)`` for a selection widget (dropdown,
    selection slider), ``("value", v)`` for a number slider or a checkbox. Empty for other controls.

    >>> control_steps(ipywidgets.IntSlider(value=2, min=1, max=4, step=1))
    [('value', 1), ('value', 2), ('value', 3), ('value', 4)]
    >>> control_steps(ipywidgets.Checkbox(value=True))
    [('value', False), ('value', True)]
    """
    if isinstance(control, ipywidgets.widgets.widget_selection._Selection):  # Dropdown, SelectionSlider ...
        count = len(control.options)
        return [("index", i) for i in _spread(count, control.index or 0, limit)]
    if isinstance(control, ipywidgets.Checkbox):
        return [("value", False), ("value", True)]
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        step = control.step
        count = round((control.max - control.min) / step) + 1
        current = round((control.value - control.min) / step)
        integral = isinstance(control, ipywidgets.IntSlider)
        values = []
        for i in _spread(count, current, limit):
            value = control.min + i * step
            values.append(("value", int(value) if integral else round(value, 10)))
        return values
    return []


def palette_png(png: bytes, colours: int = PALETTE_COLOURS) -> bytes:
    """``png`` with at most ``colours`` colours (Pillow's median cut), for a lighter page."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    reduced = image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT)
    out = io.BytesIO()
    reduced.save(out, format="PNG", optimize=True)
    return out.getvalue()


def live_frames(widget: Any, limit: int = MAX_FRAMES) -> tuple[str, list[dict[str, str]]]:
    """The replayed control's name (the main control, or the first control with a grid) and, for each point
    of its grid, what ``widget`` (a :class:`coursekit.widgets.LessonWidget`; not imported here, which would make
    an import cycle with the package that calls this) shows there.

    Each frame: ``value`` (the control's shown value), ``message`` (the verdict box HTML), ``png`` (base64)
    and ``alt`` (the figure in words). The widget ends as it started.
    """
    from ..figure_alt import describe_figure

    main = widget.main_control if widget.main_control in widget.controls else next(iter(widget.controls))
    # The main control, or, when it has no grid (a number box), the first control that has one.
    order = [main, *(n for n in widget.controls if n != main)]
    name = next((n for n in order if len(control_steps(widget.controls[n], limit)) >= 2), main)
    control = widget.controls[name]
    steps = control_steps(control, limit)
    if len(steps) < 2:
        return name, []
    start = ("index", control.index) if steps[0][0] == "index" else ("value", control.value)
    frames = []
    try:
        for attribute, value in steps:
            setattr(control, attribute, value)
            png = widget.image.value
            frames.append(
                {
                    "value": shown_value(control),
                    "message": widget.message_html.value,
                    "png": base64.b64encode(palette_png(png)).decode("ascii"),
                    "alt": describe_figure(widget.figure),
                }
            )
    finally:
        setattr(control, *start)
    return name, frames


def shown_value(control: ipywidgets.ValueWidget) -> str:
    """A control's value as the learner sees it (a dropdown's label, yes/no for a checkbox)."""
    if isinstance(control, ipywidgets.widgets.widget_selection._Selection):  # dropdown, selection slider
        return str(control.label)
    if isinstance(control.value, bool):
        return tr("widgets.yes" if control.value else "widgets.no")
    return str(control.value)
