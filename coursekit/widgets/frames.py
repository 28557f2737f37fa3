"""A widget's states on its main control's grid, computed ahead: what a page without a kernel can replay.

The course website has no Python. So that a learner can still move a widget's main control there, the
site build asks the widget itself for each state: :func:`live_frames` sets the main control to each value
of its grid (every step of a slider, every option of a dropdown, both states of a checkbox; at most
:data:`MAX_FRAMES`, evenly spread and always including the current value), and records what the widget then
shows: the control's shown value, the verdict box (same words and colours as in the notebook) and the
figure. No formula is rewritten for the page: each state is what ``compute``, ``describe`` and ``draw``
returned. The other controls stay at their values; the widget is put back as it was.

Frames are PNGs reduced to a 64-colour palette (about a quarter of the size; the widget's own PNG keeps
every colour), so a widget's frames weigh about 0.3-0.5 MB in the page. The frames' verdict boxes repeat the same
inline styles on every table cell; :func:`share_styles` lists each style once and the page's script turns the short
references back into styles (:func:`expand_styles` does the same in Python).

A widget whose controls span too many combinations for one control's grid to say much (the workbench)
names the lesson's cases instead (``presets``): :func:`preset_frames` records each case the same way, with
every control's shown value, and the page offers them as a choice next to a link that runs the lesson live.

Taught in: every widget lesson, on the course website.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import ipywidgets

from .._validate import check_instance, check_int, learner_functions
from ..i18n import register, tr
from ..plotting.png import PALETTE_COLOURS, palette_png  # re-exported: the frames' palette

__all__ = [
    "MAX_FRAMES",
    "PALETTE_COLOURS",
    "control_steps",
    "expand_styles",
    "live_frames",
    "live_replay",
    "palette_png",
    "preset_frames",
    "share_styles",
]

#: An inline style attribute, double- or single-quoted, with its leading space.
_STYLE_ATTRIBUTE = re.compile(r""" style=(?:"[^"]*"|'[^']*')""")
#: A reference :func:`share_styles` leaves in its place.
_STYLE_REFERENCE = re.compile(r' data-cks="([0-9a-f]+)"')


def share_styles(messages: list[str]) -> tuple[list[str], dict[str, str]]:
    """``messages`` (HTML) with every inline ``style`` attribute replaced by a short reference ``data-cks="key"``,
    and the styles by key (each the attribute as written, with its leading space and quotes). The key is the first
    8 hex digits of the attribute's SHA-1, so two widgets on one page give one style the same key.

    >>> shared, styles = share_styles(['<td style="color:red">1</td><td style="color:red">2</td>'])
    >>> shared, styles
    (['<td data-cks="fa0e8297">1</td><td data-cks="fa0e8297">2</td>'], {'fa0e8297': ' style="color:red"'})
    >>> expand_styles(shared[0], styles)
    '<td style="color:red">1</td><td style="color:red">2</td>'
    """
    styles: dict[str, str] = {}

    def reference(match: re.Match[str]) -> str:
        key = hashlib.sha1(match.group(0).encode("utf-8")).hexdigest()[:8]
        styles[key] = match.group(0)
        return f' data-cks="{key}"'

    return [_STYLE_ATTRIBUTE.sub(reference, message) for message in messages], styles


def expand_styles(message: str, styles: dict[str, str]) -> str:
    """``message`` with :func:`share_styles`' references turned back into its ``styles`` (what the page shows)."""
    return _STYLE_REFERENCE.sub(lambda match: styles[match.group(1)], message)


#: At most this many precomputed states per widget (the page's weight grows with each).
MAX_FRAMES = 16

register(
    {
        "widgets.preset_note": {
            "zh": "预先算好的情形：这个工作台的控件组合太多，无法逐一预先计算；请选择本课用到的一个情形，"
            "查看它的漏斗和估算。要调节所有控件，请在线运行本课。",
            "en": "Precomputed cases: this workbench has too many combinations of controls to precompute them all; "
            "choose one of the lesson's cases to see its funnel and estimate. Run the lesson live to move every "
            "control.",
        },
        "widgets.preset_label": {"zh": "本课的情形", "en": "Lesson case"},
        "widgets.not_lesson_widget": {
            "zh": "widget = {value!r}：必须是课程的交互部件 (LessonWidget)（带 controls 与 "
            "main_control），而不是 {type}。",
            "en": "widget = {value!r}: must be a course widget (a LessonWidget, with controls and main_control), "
            "not {type}.",
        },
        "widgets.run_live": {"zh": "在线运行本课：", "en": "Run this lesson live:"},
    }
)


def _spread(count: int, keep: int, limit: int) -> list[int]:
    """``limit`` indices out of ``range(count)``, evenly spread, first and last and ``keep`` included."""
    if count <= limit:
        return list(range(count))
    picked = {round(i * (count - 1) / (limit - 2)) for i in range(limit - 1)}  # limit - 1 points, ends included
    return sorted(picked | {keep})


def _check_widget(widget: Any) -> Any:
    """``widget`` if it is shaped as a :class:`coursekit.widgets.LessonWidget` (its named controls and main control;
    the class is not imported here, see :func:`live_frames`), else a ``TypeError`` naming it."""
    if not (
        isinstance(getattr(widget, "controls", None), dict) and widget.controls and hasattr(widget, "main_control")
    ):
        raise TypeError(tr("widgets.not_lesson_widget", value=widget, type=type(widget).__name__))
    return widget


def control_steps(control: ipywidgets.ValueWidget, limit: int = MAX_FRAMES) -> list[tuple[str, Any]]:
    """How to put ``control`` on each point of its grid: ``("index", i)`` for a selection widget (dropdown,
    selection slider), ``("value", v)`` for a number slider or a checkbox. Empty for other controls.

    >>> control_steps(ipywidgets.IntSlider(value=2, min=1, max=4, step=1))
    [('value', 1), ('value', 2), ('value', 3), ('value', 4)]
    >>> control_steps(ipywidgets.Checkbox(value=True))
    [('value', False), ('value', True)]

    ``limit`` (at least 3: both ends and the current point) caps the points; a slider whose step is not positive
    has no grid.
    """
    check_instance("control", control, ipywidgets.ValueWidget)
    limit = check_int("limit", limit, ge=3)
    if isinstance(control, ipywidgets.widgets.widget_selection._Selection):  # Dropdown, SelectionSlider ...
        count = len(control.options)
        return [("index", i) for i in _spread(count, control.index or 0, limit)]
    if isinstance(control, ipywidgets.Checkbox):
        return [("value", False), ("value", True)]
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        step = control.step
        if not (isinstance(step, (int, float)) and step > 0):  # no grid to step along
            return []
        count = round((control.max - control.min) / step) + 1
        current = round((control.value - control.min) / step)
        integral = isinstance(control, ipywidgets.IntSlider)
        values = []
        for i in _spread(count, current, limit):
            value = control.min + i * step
            values.append(("value", int(value) if integral else round(value, 10)))
        return values
    return []


def _state(widget: Any) -> dict[str, str]:
    """What the widget shows now: verdict box, figure (palette PNG, base64) and the figure in words."""
    from ..figure_alt import describe_figure

    return {
        "message": widget.message_html.value,
        "png": base64.b64encode(palette_png(widget.image.value)).decode("ascii"),
        "alt": describe_figure(widget.figure),
    }


def preset_frames(widget: Any) -> list[dict[str, Any]]:
    """What ``widget`` shows for each of its ``presets`` (the lesson's cases: a name and the controls that
    differ from the widget's start), each computed once with the controls set together.

    Each frame: ``name``, ``controls`` (every control's label and shown value, in the controls' order: a
    control may change its label with the case, as the workbench's batch in serving mode), ``message``, ``png``
    (base64) and ``alt``. The widget ends as it started.
    """
    start = {name: control.value for name, control in _check_widget(widget).controls.items()}

    def put(values: dict[str, Any]) -> None:
        for name, control in widget.controls.items():  # in order: a control may reset later ones (the mode)
            if name in values:
                control.value = values[name]

    frames = []
    try:
        for name, changes in widget.presets:
            with widget.hold_updates():  # one update per case
                put(start)
                put(dict(changes))
            controls = [[str(control.description), shown_value(control)] for control in widget.controls.values()]
            frames.append({"name": str(name), "controls": controls, **_state(widget)})
    finally:
        with widget.hold_updates():
            put(start)
    return frames


def live_replay(widget: Any) -> tuple[dict[str, Any] | None, str]:
    """What the course website replays of ``widget`` (None when nothing: a single state) and the note above it.

    The lesson's cases when the widget names some (``presets``), else its states on one control's grid
    (:func:`live_frames`).
    """
    replay: dict[str, Any]
    if getattr(_check_widget(widget), "presets", ()):
        cases = preset_frames(widget)
        replay = {"label": tr("widgets.preset_label"), "live": tr("widgets.run_live"), "presets": cases}
        replay["styles"] = _share_frame_styles(cases)
        return replay, tr("widgets.preset_note")
    name, frames = live_frames(widget)
    if not frames:
        return None, tr("widgets.static_note")
    description = str(widget.controls[name].description)
    position = list(widget.controls).index(name)  # the control's row in the page's list of controls
    replay = {"control": position, "label": description, "frames": frames, "styles": _share_frame_styles(frames)}
    return replay, tr("widgets.live_note", control=description)


def _share_frame_styles(frames: list[dict[str, Any]]) -> dict[str, str]:
    """Replace the inline styles of ``frames``' messages by references (:func:`share_styles`); the styles by key."""
    messages, styles = share_styles([frame["message"] for frame in frames])
    for frame, message in zip(frames, messages, strict=True):
        frame["message"] = message
    return styles


def live_frames(widget: Any, limit: int = MAX_FRAMES) -> tuple[str, list[dict[str, str]]]:
    """The replayed control's name (the main control, or the first control with a grid) and, for each point
    of its grid, what ``widget`` (a :class:`coursekit.widgets.LessonWidget`; not imported here, which would make
    an import cycle with the package that calls this) shows there.

    Each frame: ``value`` (the control's shown value), ``message`` (the verdict box HTML), ``png`` (base64)
    and ``alt`` (the figure in words). The widget ends as it started.
    """
    limit = check_int("limit", limit, ge=3)
    main = widget.main_control if _check_widget(widget).main_control in widget.controls else next(iter(widget.controls))
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
            frames.append({"value": shown_value(control), **_state(widget)})
    finally:
        setattr(control, *start)
    return name, frames


def shown_value(control: ipywidgets.ValueWidget) -> str:
    """A control's value as the learner sees it (a dropdown's label, yes/no for a checkbox)."""
    check_instance("control", control, ipywidgets.ValueWidget)
    if isinstance(control, ipywidgets.widgets.widget_selection._Selection):  # dropdown, selection slider
        return str(control.label)
    if isinstance(control.value, bool):
        return tr("widgets.yes" if control.value else "widgets.no")
    return str(control.value)


learner_functions(globals())
