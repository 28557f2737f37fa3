"""Interactive lesson widgets: controls -> coursekit computation -> verdict + figure.

A lesson widget is a small class that subclasses :class:`LessonWidget` and
fills in four methods:

* ``setup(fig)`` creates the axes and artists of the figure, once;
* ``compute(**values)`` calls coursekit with the control values (pure); it starts with
  ``values = self.check_values(values)``, so a direct call with a value no control offers (a string for a
  slider, a number that is not an option, NaN) is refused with a named, localized message, as the controls
  would never send it;
* ``draw(result)`` updates those artists in place (``set_data``, ``set_height``, ``set_text``);
* ``describe(result)`` returns the verdict as a short HTML string;
* optionally ``verdict_level(result)``: ``"pass"``, ``"warning"``, ``"fail"`` or
  ``"info"`` (the default, for a widget that only shows numbers).

The message box shows the level twice, so colour is never the only signal: a
coloured border (green pass, amber warning, red fail, grey info; amber for
inputs that cannot be computed) and the level in words before the verdict
("通过" / "Pass", "警告" / "Warning", "不通过" / "Fail").

The base class wires the controls, runs :meth:`LessonWidget.update` on every
change, and turns a ``TypeError`` / ``ValueError`` from ``compute`` into a
friendly message in the current language (never a traceback). Any other
exception is shown as an "unexpected error" message and logged.

An update should take well under 50 ms, PNG included. The base helps: ``setup``
and ``draw`` run inside :meth:`~coursekit.plotting.CourseFigure.course_fonts`, so
the texts they create need no search at each render; after the first render
the layout is frozen and axis labels and titles stay where they were placed
(:func:`~coursekit.plotting.freeze_layout`, :func:`~coursekit.plotting.pin_labels`;
placed again once after a language switch); course figures rasterise each
distinct text once. A widget passes the parts that never change after ``setup``
(a legend, an axis with fixed limits) to :func:`~coursekit.plotting.cache_drawing`,
and keeps its artists instead of clearing and rebuilding them.

>>> from coursekit.i18n import register, tr
>>> register({"demo_doc.x": {"zh": "输入 x", "en": "input x"}})
>>> class Square(LessonWidget[float]):
...     def setup(self, fig):
...         self.bar = fig.add_subplot().bar([0], [0.0])[0]
...     def compute(self, x):
...         if x < 0:
...             raise ValueError(f"x = {x}: must be >= 0.")
...         return x * x
...     def draw(self, result):
...         self.bar.set_height(result)
...     def describe(self, result):
...         return f"x² = {result}"
>>> w = Square({"x": slider("demo_doc.x", value=3, min=-5, max=5, step=1)})
>>> w.status, w.verdict, w.message
('ok', 'info', 'x² = 9')
>>> w.controls["x"].value = -2
>>> w.status, w.result
('invalid', None)
>>> w.message
'These inputs cannot be computed: input x = -2: must be >= 0.'

Taught in: lesson 0 (course index); each lesson adds its widgets as
``coursekit.widgets.q1`` etc.
"""

from __future__ import annotations

import abc
import base64
import html
import json
import logging
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, ClassVar, Generic, TypeVar

import ipywidgets
import traitlets
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .. import i18n
from .._validate import (
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_items,
    check_number,
    check_sequence,
    is_bool,
    learner_functions,
)
from ..figure_alt import describe_figure
from ..i18n import Text, register, shown_repr, tr
from ..plotting import (
    DEFAULT_DPI,
    WIDGET_PIXEL_RATIO,
    CourseFigure,
    css_width_px,
    figure_to_png,
    freeze_layout,
    new_figure,
    pin_labels,
    plot_language,
)

__all__ = [
    "LEVELS",
    "LessonWidget",
    "check_control",
    "checkbox",
    "control_grid",
    "dropdown",
    "headline_html",
    "label_control",
    "number",
    "number_stepper",
    "number_stops",
    "paired_controls",
    "significant",
    "slider",
    "stepper",
]

_log = logging.getLogger(__name__)
_log.addHandler(logging.NullHandler())  # never print a traceback into the learner's notebook

R = TypeVar("R")

#: The verdict levels a widget may report (:meth:`LessonWidget.verdict_level`).
LEVELS: tuple[str, ...] = ("pass", "warning", "fail", "info")

#: CSS of the message box, by level (plus "invalid": inputs that cannot be computed).
_MESSAGE_STYLE: dict[str, str] = {
    "pass": "border-left:4px solid #2e7d32;background:#edf7ed;padding:4px 8px;margin:4px 0;",
    "warning": "border-left:4px solid #b26a00;background:#fff4e5;padding:4px 8px;margin:4px 0;",
    "fail": "border-left:4px solid #c62828;background:#fdecea;padding:4px 8px;margin:4px 0;",
    "info": "border-left:4px solid #607d8b;background:#f3f6f8;padding:4px 8px;margin:4px 0;",
    "invalid": "border-left:4px solid #ed6c02;background:#fff4e5;padding:4px 8px;margin:4px 0;",
}

#: Width of a labelled control.
CONTROL_WIDTH: str = "34em"
#: The most a widget's figure (and a control given a fixed width) may take: the output area's width less the two
#: margins ipywidgets gives it (--jp-widgets-margin, 2 px a side). ipywidgets caps an image at 100 %, margins not
#: counted, so in a 639 px output area (1024 px projected at 125 %) every widget scrolled sideways by 4 px.
WIDGET_MAX_WIDTH: str = "calc(100% - 4px)"
#: Narrowest column of :func:`control_grid`: two columns fit the 639 px output area of a 1024 px screen projected at
#: 125 % (and the 732 px of a 1280 px laptop at 110 % with the file browser open); three would need 741 px.
GRID_COLUMN_MIN_WIDTH: str = "19em"
#: The control grid's columns: each at least GRID_COLUMN_MIN_WIDTH and over a third of the area wide, so never three
#: (a 1366 px screen at 100 % has room for three 19em columns, which cut the node menu's "h100-8: 8 × 80 GiB per
#: node"); 1fr stretches two to half the area each; never wider than the area (one column on a phone).
GRID_TEMPLATE_COLUMNS: str = f"repeat(auto-fill, minmax(min(max({GRID_COLUMN_MIN_WIDTH}, 34%), 100%), 1fr))"


def breakable_code(text: str) -> str:
    """``text`` as inline code for a Markdown table cell that may break after each comma.

    A composition label (``tp=4,pp=1,dp=32,...,recompute=none``) has no space, so in backticks it is one unbreakable
    word: lesson 9's tables held it whole and were 241-295 px wider than a 639 px output area (1024 px projected at
    125 %). Here the label is HTML ``<code>`` with a ``<wbr>`` (a break opportunity, no character) after each comma:
    it reads and copies as the same text, and wraps only when the column is narrow.

    >>> breakable_code("tp=4,pp=1,zero=3")
    '<code>tp=4,<wbr>pp=1,<wbr>zero=3</code>'
    >>> breakable_code("a<b")
    '<code>a&lt;b</code>'
    """
    return "<code>" + html.escape(str(text), quote=False).replace(",", ",<wbr>") + "</code>"


register(
    {
        "widgets.out_of_range": {
            "zh": "{name} = {value!r}：必须在 {low} 到 {high} 之间。",
            "en": "{name} = {value!r}: must be between {low} and {high}.",
        },
        "widgets.invalid": {
            "zh": "这些输入无法计算：{error}",
            "en": "These inputs cannot be computed: {error}",
        },
        "widgets.unexpected": {
            "zh": "意外错误（不是你的问题，请告诉课程作者）：{error}",
            "en": "Unexpected error (not your fault; please tell the course authors): {error}",
        },
        "widgets.static_note": {
            "zh": "静态图：下列控件取值时的初始状态。在 JupyterLab 中运行这个单元格（网页上先点页面顶部"
            "“运行本课”的按钮）即可拖动控件。",
            "en": "Static figure, drawn for the control values below. Run this cell in JupyterLab (on the website, "
            "first use the “Run this lesson” buttons at the top of the page) to move them.",
        },
        "widgets.live_note": {
            "zh": "预先算好的状态：拖动“{control}”可看到每个取值的结果，其他控件保持下列取值。"
            "要调节所有控件，请在 JupyterLab 中运行这个单元格（网页上先点页面顶部“运行本课”的按钮）。",
            "en": "Precomputed states: move “{control}” to see the result at each value; the other controls "
            "keep the values below. To move every control, run this cell in JupyterLab (on the website, first use the "
            "“Run this lesson” buttons at the top of the page).",
        },
        "widgets.grid_wide_unknown": {
            "zh": "wide = {names}：不是 controls 中的控件名；只能写 controls 的键 {controls}。",
            "en": "wide = {names}: not names of controls; give keys of controls, {controls}.",
        },
        "widgets.unknown_values": {
            "zh": "{names}：不是这个控件组的控件；它的控件是 {controls}。",
            "en": "{names}: not a control of this widget; its controls are {controls}.",
        },
        "widgets.missing_values": {
            "zh": "缺少 {names}：compute 需要每个控件的值（{controls}）。",
            "en": "{names} missing: compute needs a value for every control ({controls}).",
        },
        "widgets.yes": {"zh": "是", "en": "yes"},
        "widgets.no": {"zh": "否", "en": "no"},
        "widgets.veil_invalid": {
            "zh": "输入无效，见上方说明",
            "en": "Invalid input: see the message above",
        },
        "widgets.level.pass": {"zh": "通过", "en": "Pass"},
        "widgets.level.warning": {"zh": "警告", "en": "Warning"},
        "widgets.level.fail": {"zh": "不通过", "en": "Fail"},
        "widgets.level.invalid": {"zh": "输入无效", "en": "Invalid input"},
        "widgets.level.separator": {"zh": "：", "en": ": "},
    }
)


#: Environment variable that turns on :meth:`LessonWidget.static_bundle`'s recorded states (``1``).
FRAMES_ENV = "COURSEKIT_WIDGET_FRAMES"


class LessonWidget(abc.ABC, Generic[R]):
    """Base class of the lesson widgets (see the module docstring for the recipe).

    Attributes a test or a lesson may read:

    * ``controls``: the named input widgets, ``{name: ipywidgets.ValueWidget}``;
      ``compute`` receives their values as keyword arguments of the same names;
    * ``result``: what ``compute`` returned for the current values, or None when they are invalid;
    * ``status``: ``"ok"`` or ``"invalid"``;
    * ``verdict``: the level of the current verdict (:data:`LEVELS`), or ``"invalid"``;
    * ``message``: the verdict HTML from ``describe`` when ok, else the localized error text;
    * ``figure``: the matplotlib figure, created once; ``image``: its PNG as an ``ipywidgets.Image``;
    * ``message_html``: the ``ipywidgets.HTML`` showing ``message``;
    * ``view``: the ``ipywidgets.VBox`` (controls, message, image) a notebook displays (controls, image, message
      with :attr:`figure_first`);
    * ``render_count``: how many times the PNG was rendered (it is skipped when nothing changed);
    * ``last_error``: the last exception caught, for debugging.
    """

    #: Figure size (width, height) in inches; subclasses may override.
    figure_size_in: ClassVar[tuple[float, float]] = (6.0, 3.2)
    #: The control a learner (and the browser test) moves first; defaults to the first control.
    main_control: ClassVar[str | None] = None
    #: Show the figure right under the controls and the message below it. Every widget does so now (review 23: on a
    #: 13-inch laptop at 110 % the visible notebook area is 534 px, and a figure under a long message was below the
    #: fold); the attribute stays for code that reads it.
    figure_first: ClassVar[bool] = True
    #: The lesson's cases (a name and the controls that differ from the start) a page without a kernel offers
    #: instead of one control's grid, for a widget with too many combinations (coursekit.widgets.frames).
    presets: ClassVar[tuple[tuple[Text, Mapping[str, Any]], ...]] = ()
    #: Lay the controls out in a grid of columns (:func:`control_grid`) instead of one column: projected at 1024 x 768
    #: and 125 % (493 px of notebook visible) one column of five to eleven controls pushed the figure 21-250 px below
    #: the visible area (review 24).
    grid_controls: ClassVar[bool] = False
    #: With :attr:`grid_controls`: the controls whose options are too long for a column; each spans the grid's width.
    wide_controls: ClassVar[tuple[str, ...]] = ()

    def __init__(self, controls: Mapping[str, ipywidgets.ValueWidget]) -> None:
        if not controls:
            raise ValueError("a LessonWidget needs at least one control")
        self.controls: dict[str, ipywidgets.ValueWidget] = dict(controls)
        self.result: R | None = None
        self.status: str = "ok"
        self.verdict: str = "info"
        self.message: str = ""
        self.last_error: BaseException | None = None
        self.render_count: int = 0
        self._hold_depth = 0
        self._pending = False
        self._rendered_key: tuple[Any, ...] | None = None
        self._updated_key: tuple[Any, ...] | None = None  # language and control values of the last update
        self._labels_language: str | None = None  # the figure language the axis labels were pinned for
        self._controls_language: str | None = None  # the language the controls' labels were last shown in

        # Drawn for HiDPI screens, shown at the figure's size at DEFAULT_DPI (see plotting.WIDGET_PIXEL_RATIO).
        self.figure: Figure = new_figure(*self.figure_size_in, dpi=DEFAULT_DPI * WIDGET_PIXEL_RATIO)
        if isinstance(self.figure, CourseFigure):
            # setup and draw create their texts inside course_fonts(): no search for them at each render
            self.figure.texts_tracked = True
        with self._course_fonts():
            self._create_artists()
        self.message_html = ipywidgets.HTML()
        # The verdict's first line, right under the controls: whichever control a learner moves, the line stating
        # the result and the figure under it are on screen with that control (review 23: at 1280 x 720 and 110 %
        # the visible notebook area is 534 px; a message of 130-470 px between them pushed the figure below it).
        # The whole message, details included, follows the figure.
        self.summary_html = ipywidgets.HTML()
        self.image = ipywidgets.Image(format="png", width=str(css_width_px(self.figure)))
        self.image.layout.max_width = WIDGET_MAX_WIDTH
        shown = (self.summary_html, self.image, self.message_html)
        laid_out = (
            control_grid(self.controls, self.wide_controls)
            if self.grid_controls
            else ipywidgets.VBox(list(self.controls.values()))
        )
        self.view = ipywidgets.VBox([laid_out, *shown])
        # Stable CSS hooks for the browser tests: ck-widget, ck-message, ck-summary, ck-figure, ck-control-<name>,
        # ck-main.
        self.view.add_class("ck-widget")
        self.message_html.add_class("ck-message")
        self.summary_html.add_class("ck-summary")
        self.image.add_class("ck-figure")
        main = self.main_control if self.main_control in self.controls else next(iter(self.controls))
        for name, control in self.controls.items():
            control.add_class(f"ck-control-{name}")
            if name == main:
                control.add_class("ck-main")
            control.observe(self._on_change, names="value")
        self.update()

    def _create_artists(self) -> None:
        self.setup(self.figure)
        self._veil = Rectangle(
            (0.0, 0.0),
            1.0,
            1.0,
            transform=self.figure.transFigure,
            facecolor="white",
            alpha=0.75,
            zorder=1000,
            visible=False,
        )
        self.figure.add_artist(self._veil)
        self._veil_text = self.figure.text(
            0.5, 0.5, "", ha="center", va="center", zorder=1001, visible=False, color="#b35900", fontsize=12
        )

    def _course_fonts(self) -> AbstractContextManager[None]:
        """The figure's :meth:`~coursekit.plotting.CourseFigure.course_fonts` block (texts made inside: no search)."""
        return self.figure.course_fonts() if isinstance(self.figure, CourseFigure) else nullcontext()

    # -- what a lesson widget implements -------------------------------------------------

    @abc.abstractmethod
    def setup(self, fig: Figure) -> None:
        """Create the axes and artists on ``fig``; called once, from ``__init__``."""

    @abc.abstractmethod
    def compute(self, **values: Any) -> R:
        """Compute the result from the control values by calling coursekit (no drawing)."""

    @abc.abstractmethod
    def draw(self, result: R) -> None:
        """Update the artists created in :meth:`setup` in place for ``result``."""

    @abc.abstractmethod
    def describe(self, result: R) -> str:
        """The verdict for ``result`` as a short HTML string in the current language."""

    # -- machinery ---------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """The current control values by name."""
        return {name: control.value for name, control in self.controls.items()}

    def check_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` checked against the controls, what each widget's ``compute`` does first.

        ``compute`` may be called directly (a test, a learner trying a value the controls do not offer): every
        control needs a value and every value a control, and each value must be one its control can hold
        (:func:`check_control`). Otherwise a ``TypeError`` / ``ValueError`` names the control's keyword, the value
        and the rule, in the learner's language: :meth:`update` shows it in the message box like any other
        invalid input, never a traceback. Returns the values, each dropdown's as its option.
        """
        unknown = [name for name in values if name not in self.controls]
        missing = [name for name in self.controls if name not in values]
        if unknown or missing:
            key = "widgets.unknown_values" if unknown else "widgets.missing_values"
            names = ", ".join(unknown or missing)
            raise TypeError(tr(key, names=names, controls=", ".join(self.controls)))
        return {name: check_control(name, self.controls[name], value) for name, value in values.items()}

    @contextmanager
    def hold_updates(self) -> Iterator[None]:
        """Change several controls and update once at the end.

        >>> # with w.hold_updates():
        >>> #     w.controls["tp"].value = 4
        >>> #     w.controls["pp"].value = 2
        """
        self._hold_depth += 1
        try:
            yield
        finally:
            self._hold_depth -= 1
            if self._hold_depth == 0 and self._pending:
                self._pending = False
                self.update()

    def _on_change(self, change: Mapping[str, Any]) -> None:
        self.update()

    def update(self) -> None:
        """Recompute, redraw and re-render for the current control values; never raises."""
        if self._hold_depth:
            self._pending = True
            return
        if self._controls_language != i18n.get_language():  # set_language since the controls were labelled
            self._controls_language = i18n.get_language()
            for control in self.controls.values():
                if isinstance(control, _CheckedControl):
                    control.follow_language()
        values = self.values()
        # compute is pure: the same values in the same language give what is already shown (e.g. a preset
        # that set two controls under hold_updates, then the preset's own change)
        key = (i18n.get_language(), tuple((k, repr(v)) for k, v in values.items()))
        if key == self._updated_key:
            return
        self._updated_key = key
        try:
            result = self.compute(**values)
        except (TypeError, ValueError) as exc:
            self._show_invalid(exc, tr("widgets.invalid", error=self._named_by_labels(str(exc))))
        except Exception as exc:
            _log.error("%s.compute(%r) failed", type(self).__name__, values, exc_info=True)
            self._show_invalid(exc, tr("widgets.unexpected", error=f"{type(exc).__name__}: {exc}"))
        else:
            try:
                with self._course_fonts():
                    self.draw(result)
                verdict = self.describe(result)
                level = self.verdict_level(result)
                if level not in LEVELS:
                    raise ValueError(f"verdict_level() returned {level!r}; must be one of {', '.join(LEVELS)}")
            except Exception as exc:
                _log.error("%s.draw/describe failed for %r", type(self).__name__, values, exc_info=True)
                self._show_invalid(exc, tr("widgets.unexpected", error=f"{type(exc).__name__}: {exc}"))
            else:
                self.result = result
                self.status = "ok"
                self.message = verdict
                self.verdict = level
                self.message_html.value = _message_box(level, verdict)
                self.summary_html.value = _message_box(level, headline_html(verdict), compact=True)
                self._veil.set_visible(False)
                self._veil_text.set_visible(False)
        self._render(values)

    def _named_by_labels(self, message: str) -> str:
        """``message`` with each control's argument name written as the control's label, as the learner sees it
        ("单设备显存 (GiB) = 0.0：必须 > 0。", not "memory_per_device_gib = 0.0：必须 > 0。"): the formulas name
        their parameters, the learner knows the controls."""
        for name, control in self.controls.items():
            label = str(control.description or "").strip()
            if label and label != name:
                message = re.sub(rf"(?<![\w.]){re.escape(name)} = ", (label + " = ").replace("\\", "\\\\"), message)
        return message

    def _show_invalid(self, exc: BaseException, message: str) -> None:
        self.last_error = exc
        self.result = None
        self.status = "invalid"
        self.verdict = "invalid"
        self.message = message
        self.message_html.value = _message_box("invalid", html.escape(message), word=False)
        self.summary_html.value = _message_box("invalid", headline_html(html.escape(message)), word=False, compact=True)
        self._veil.set_visible(True)
        self._veil_text.set_text(tr("widgets.veil_invalid", lang=plot_language()))
        self._veil_text.set_visible(True)

    def _render(self, values: Mapping[str, Any]) -> None:
        key = (self.status, self.message, i18n.get_language(), tuple((k, repr(v)) for k, v in values.items()))
        if key == self._rendered_key:
            return
        language = plot_language()
        relabel = self._labels_language is not None and language != self._labels_language
        if relabel:  # other fonts, other tick label sizes: let matplotlib place the labels once more
            pin_labels(self.figure, pinned=False)
            self._labels_language = None
        self.image.value = figure_to_png(self.figure, describe=False)
        if self.render_count == 0:
            freeze_layout(self.figure)  # data changes from now on, not structure
        if self.status == "ok":
            # nor do the tick labels' sizes: axis labels and titles stay put; axes shown for the first time (a
            # widget that swaps its axes) had their labels placed by this draw and are pinned now
            pin_labels(self.figure)
            self._labels_language = language
        self.render_count += 1
        self._rendered_key = key

    def verdict_level(self, result: R) -> str:
        """The level of the verdict on ``result``: ``"pass"``, ``"warning"``, ``"fail"`` or ``"info"``.

        The default, ``"info"``, suits a widget that only shows numbers; a widget
        whose verdict can pass or fail overrides it.
        """
        return "info"

    def redraw(self) -> None:
        """Force a recompute and a new PNG (e.g. after ``set_language``)."""
        self._rendered_key = self._updated_key = None
        self.update()

    # -- display -------------------------------------------------------------------------

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return {**self.static_bundle(), **self.view._repr_mimebundle_(**kwargs)}

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)  # type: ignore[no-untyped-call]

    def static_bundle(self, live: bool | None = None) -> dict[str, str]:
        """What a page without a live kernel shows: the PNG, and HTML with the control values it was drawn for.

        With ``live``, the HTML also carries the widget's states on its main control's grid
        (:func:`coursekit.widgets.frames.live_frames`), which the course website replays as a slider. By
        default ``live`` is on only where :data:`FRAMES_ENV` is ``1`` (the website's build sets it): a
        notebook in JupyterLab shows the live view and need not compute them.

        A front end with a widget manager (JupyterLab, Colab) renders the live view instead;
        a static page (the course website, nbconvert) shows this.
        """
        from .frames import live_replay, palette_png, shown_value

        if live is None:
            live = os.environ.get(FRAMES_ENV) == "1"
        replay, note = live_replay(self) if live else (None, tr("widgets.static_note"))
        png = self.image.value or figure_to_png(self.figure, describe=False)
        data = base64.b64encode(png).decode("ascii")
        # A page that replays the states shows this one as it shows them (a palette PNG: a quarter of the bytes).
        shown = base64.b64encode(palette_png(png)).decode("ascii") if replay is not None else data
        rows = "".join(
            f"<li>{html.escape(str(control.description))}: <b>{html.escape(shown_value(control))}</b></li>"
            for control in self.controls.values()
        )
        replay_html = ""
        if replay is not None:  # the page's script (course website) replays the states the widget computed
            text = _script_safe(json.dumps(replay, ensure_ascii=False))
            replay_html = f'<script type="application/json" class="ck-live-frames">{text}</script>'
        width, height = css_width_px(self.figure), round(self.figure.get_figheight() * DEFAULT_DPI)
        return {
            "text/html": (
                f'<div class="ck-static"><p class="ck-static-note">{html.escape(note)}</p>'
                f'<ul class="ck-static-controls">{rows}</ul>{replay_html}'
                f'<div class="ck-static-message">{self.message_html.value}</div>'
                f'<img class="ck-static-figure" src="data:image/png;base64,{shown}" width="{width}" height="{height}"'
                f' alt="{html.escape(describe_figure(self.figure), quote=True)}"></div>'
            ),
            "image/png": data,
        }


def significant(value: float, digits: int = 3, *, grouping: bool = False) -> str:
    """``value`` to ``digits`` significant figures in plain notation, as ``:.3g`` would but never ``1.5e+03``.

    Digits left of the decimal point are all kept (1497 stays 1497), trailing zeros after it are dropped (as
    ``:g`` does), and ``grouping`` separates thousands. What a widget writes for a time in ms or s: a small
    value keeps its digits (0.215, not 0) and a large one stays a plain number.

    >>> significant(1497.3), significant(0.2153), significant(64.25), significant(50.0), significant(0.0)
    ('1497', '0.215', '64.2', '50', '0')
    >>> significant(12345.6, grouping=True), significant(0.000123456)
    ('12,346', '0.000123')
    """
    # a float64 holds at most 17 significant decimal digits: more would print digits it does not have
    number, places = check_number("value", value), check_int("digits", digits, ge=1, le=17)
    return significant_unchecked(number, places, grouping=check_bool("grouping", grouping))


def significant_unchecked(number: float, digits: int = 3, *, grouping: bool = False) -> str:
    """:func:`significant` without its checks: what a widget update calls on numbers the library computed."""
    if number == 0 or not math.isfinite(number):
        return f"{number:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(number))))
    text = f"{number:{',' if grouping else ''}.{decimals}f}"
    if decimals and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _script_safe(text: str) -> str:
    """JSON made safe inside an HTML ``<script>`` element (no ``</`` to end it early)."""
    return text.replace("</", "<\\/")


def _message_box(level: str, body_html: str, *, word: bool = True, compact: bool = False) -> str:
    """The message box: a border coloured by ``level`` and, except for info, the level in words first;
    ``compact`` is the summary line under the controls (tighter margins)."""
    prefix = ""
    if word and level != "info":
        prefix = f"<b>{html.escape(tr('widgets.level.' + level) + tr('widgets.level.separator'))}</b>"
    style = _MESSAGE_STYLE[level] + (_SUMMARY_STYLE if compact else "")
    return (
        f'<div class="coursekit-{"invalid" if level == "invalid" else "ok"} coursekit-{level}" '
        f'style="{style}">{prefix}{body_html}</div>'
    )


#: Where a verdict's first line ends: a line break, or a block (table, list, paragraph) that starts its details.
_HEADLINE_END = re.compile(r"<br\s*/?>|<(?:table|ul|ol|div|p|details|pre)\b|\n", re.IGNORECASE)
#: CSS of the summary line under the controls: the message box's colours, on one compact line.
_SUMMARY_STYLE = "margin:2px 0;line-height:1.35;"


def headline_html(body_html: str) -> str:
    """The first line of a widget's verdict HTML: up to its first line break or block element (the details).

    >>> headline_html("Fits: 49.8 GiB of 80 GiB.<br>Per rank: params 13.9 + grads 13.9")
    'Fits: 49.8 GiB of 80 GiB.'
    >>> headline_html("3 of 7 pass.<table><tr><td>DP</td></tr></table>")
    '3 of 7 pass.'
    >>> headline_html("<b>one line</b>")
    '<b>one line</b>'
    """
    match = _HEADLINE_END.search(body_html)
    head = body_html[: match.start()] if match else body_html
    # an element opened in the first line and closed after it (``<b>a<br>b</b>``) is closed here
    for tag in ("b", "i", "em", "strong", "span", "code"):
        missing = len(re.findall(rf"<{tag}[\s>]", head)) - len(re.findall(rf"</{tag}>", head))
        head += f"</{tag}>" * max(0, missing)
    return head.strip() or body_html


def paired_controls(
    controls: Mapping[str, ipywidgets.ValueWidget], pairs: Sequence[tuple[str, str]], width: str
) -> ipywidgets.VBox:
    """``controls`` in one column, except the ``pairs`` (names), each shown side by side at ``width`` a control, the
    second under the first where the two do not fit the output area (never a sideways scroll). For a widget with
    many controls: on a 13-inch laptop screen (1280 x 720 at 110 %, 534 px of notebook visible) one column of them
    pushed the figure below the fold.
    """
    partner = {name: pair for pair in pairs for name in pair}
    rows: list[ipywidgets.Widget] = []
    for name, control in controls.items():
        pair = partner.get(name)
        if pair is None:
            rows.append(control)
            continue
        control.layout.width = width
        control.layout.max_width = WIDGET_MAX_WIDTH
        if name == pair[0]:
            row = [controls[n] for n in pair]
            rows.append(ipywidgets.HBox(row, layout=ipywidgets.Layout(flex_flow="row wrap", max_width="100%")))
    return ipywidgets.VBox(rows)


def control_grid(controls: Mapping[str, ipywidgets.ValueWidget], wide: Sequence[str] = ()) -> ipywidgets.VBox:
    """``controls`` in their order, row by row, in as many columns as the output area has room for, each at least
    :data:`GRID_COLUMN_MIN_WIDTH` and over a third of the area wide (:data:`GRID_TEMPLATE_COLUMNS`: two on a
    projector at 125 %, a 13-inch laptop at 110 % or a wider screen, one on a phone); each of ``wide`` (names),
    whose options are too long for a column, takes a row of the whole width. Never wider than the output area (no
    sideways scroll).

    The controls between two wide ones share a grid; the grids have the same columns, so the columns line up. (A grid
    item spanning the columns would need ``grid-column``, which the JupyterLab widget manager does not set.)
    """
    check_instance("controls", controls, Mapping)
    for name, control in controls.items():
        check_instance(f"controls[{name!r}]", control, ipywidgets.DOMWidget)
    wide = check_items("wide", wide)
    unknown = [name for name in wide if not isinstance(name, str) or name not in controls]
    if unknown:  # in the learner's language, as every refusal (fuzz pass 25: it was an English f-string)
        raise ValueError(
            tr("widgets.grid_wide_unknown", names=shown_repr(unknown), controls=shown_repr(list(controls)))
        )
    rows: list[ipywidgets.Widget] = []
    run: list[ipywidgets.Widget] = []

    def close_run() -> None:
        if run:
            rows.append(
                ipywidgets.GridBox(
                    list(run),
                    layout=ipywidgets.Layout(
                        grid_template_columns=GRID_TEMPLATE_COLUMNS,
                        max_width="100%",
                    ),
                )
            )
            run.clear()

    for name, control in controls.items():
        control.layout.width = "auto"
        control.layout.max_width = WIDGET_MAX_WIDTH
        if name in wide:
            close_run()
            rows.append(control)
        else:
            run.append(control)
    close_run()
    return ipywidgets.VBox(rows, layout=ipywidgets.Layout(max_width="100%"))


def _label(key: str) -> str:
    return tr(key)


# Constructor arguments are checked where they meet their control: each factory below checks
# its initial ``value`` and names the widget's argument in the message (``argument``, by default
# the last part of the label key: "widgets.pipeline.stages" -> "stages"). A slider refuses a value
# outside [min, max] (ipywidgets would clamp it silently), a dropdown one that is not an option
# (ipywidgets would raise a TraitError naming nothing). Values a constructor uses before making a
# control (a preset name it looks up) go through coursekit._validate first.


def _argument(key: str, argument: str | None) -> str:
    if argument is not None:
        return argument
    _label(key)  # a key that is not a str (key=None) or no catalog entry is refused by name, before it is split
    return key.rsplit(".", 1)[-1]


def check_in_range(name: str, value: Any, low: float, high: float, integral: bool) -> Any:
    """``value`` checked as a number (an int when ``integral``) in ``[low, high]``, the sliders' one rule.

    >>> check_in_range("stages", 100, 1, 8, integral=True)
    Traceback (most recent call last):
    ...
    ValueError: stages = 100: must be between 1 and 8.
    """
    number = check_int(name, value) if integral else check_number(name, value)
    if not low <= number <= high:
        raise ValueError(tr("widgets.out_of_range", name=name, value=value, low=low, high=high))
    return number


def _check_option(name: str, value: Any, values: Sequence[Any]) -> Any:
    """The option of ``values`` equal to ``value`` (``True``, numpy's too, is not ``1``), else a ``ValueError`` naming
    ``name``."""
    for option in values:
        if is_bool(option) == is_bool(value) and _same(option, value):
            return option
    choices = ", ".join(shown_repr(option) for option in values)
    raise ValueError(tr("validate.choice", name=name, value=value, choices=choices))


def _same(option: Any, value: Any) -> bool:
    try:
        return bool(option == value)
    except Exception:  # an array or an odd object: not one of the options
        return False


def check_control(name: str, control: ipywidgets.ValueWidget, value: Any) -> Any:
    """``value`` checked as one ``control`` can hold, named ``name``: an option of a dropdown or a stepper (returned
    as that option: ``8.0`` gives the option ``8``), a number in a slider's range (an int for an ``IntSlider``),
    a bool for a checkbox, a finite number for a number box (an int for an ``IntText``). Other controls pass it on.

    >>> from coursekit.i18n import register
    >>> register({"demo_doc.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"}})
    >>> check_control("tp", dropdown("demo_doc.tp", [1, 2, 4]), 3)
    Traceback (most recent call last):
    ...
    ValueError: tp = 3: must be one of 1, 2, 4.
    >>> check_control("tp", slider("demo_doc.tp", value=2, min=1, max=8, step=1), "4")
    Traceback (most recent call last):
    ...
    TypeError: tp = '4': must be an integer (int), not str.
    """
    if isinstance(control, ipywidgets.widgets.widget_selection._Selection):  # Dropdown, SelectionSlider ...
        options = [
            option[1] if isinstance(option, tuple) and len(option) == 2 else option for option in control.options
        ]
        return _check_option(name, value, options)
    if isinstance(control, ipywidgets.Checkbox):
        return check_bool(name, value)
    if isinstance(control, (ipywidgets.IntSlider, ipywidgets.FloatSlider)):
        return check_in_range(name, value, control.min, control.max, isinstance(control, ipywidgets.IntSlider))
    if isinstance(control, ipywidgets.IntText):
        return check_int(name, value)
    if isinstance(control, ipywidgets.FloatText):
        return check_number(name, value)
    return value


def _style() -> dict[str, Any]:
    return {"description_width": "initial"}


#: What a node preset is, where its name alone does not say (the rest are described from their numbers).
_NODE_NOTES: dict[str, Text] = {
    "cpu-box": Text(zh="一台 CPU 服务器，不是 GPU（只作对照）", en="one CPU server, not a GPU (for contrast only)"),
    "jeanzay-a100-8": Text(
        zh="Jean Zay 超算的 A100 节点，BLOOM 在上面训练", en="Jean Zay's A100 nodes, where BLOOM trained"
    ),
    "pcie-24g-8": Text(
        zh="课程的示例机器：8 张 24 GiB 的 PCIe 卡", en="the course's example box: 8 PCIe cards of 24 GiB"
    ),
}
#: What a CPU server's menu option says instead of a count of GPUs (its note, :func:`node_note`, says the rest).
_CPU_TAG = Text(zh="CPU 服务器", en="CPU server")


def node_note(name: str) -> Text | None:
    """What a node preset is beyond its size, as the widgets' messages say it (None for a plain GPU node).

    >>> node_note("pcie-24g-8").en, node_note("h100-8")
    ("the course's example box: 8 PCIe cards of 24 GiB", None)
    """
    from ..presets import CLUSTERS

    return _NODE_NOTES.get(check_choice("name", name, tuple(CLUSTERS)))


def node_note_html(name: str) -> str:
    """The line a widget's message ends with for a noted node (its name and :func:`node_note`, in the current
    language), or "": what the node menu's short tag stands for, in full.

    >>> node_note_html("jeanzay-a100-8").startswith("<br><i>jeanzay-a100-8"), node_note_html("h100-8")
    (True, '')
    """
    note = node_note(name)
    if note is None:
        return ""
    line = Text(zh=f"{name}：{note.zh}", en=f"{name}: {note.en}").render()
    return f"<br><i>{html.escape(line)}</i>"


def node_label(name: str) -> Text:
    """A node preset (:data:`coursekit.presets.CLUSTERS`) as a dropdown shows it: its name and what one node holds
    (GPUs × memory each), or "CPU server". Short enough to show whole in the widgets' menus on a 1280 x 720 laptop at
    110 % and a 1024 x 768 projector at 125 % (about 27 characters); what a noted node is beyond its size is in the
    widget's message (:func:`node_note`).

    >>> node_label("h100-8").en, node_label("pcie-24g-8").zh, node_label("cpu-box").en
    ('h100-8: 8 × 80 GiB', 'pcie-24g-8：8 × 24 GiB', 'cpu-box: CPU server')
    """
    from ..presets import CLUSTERS, device_word

    spec = CLUSTERS[check_choice("name", name, tuple(CLUSTERS))]
    if device_word(spec) == "CPU":  # a CPU server: say what it is, not a count of GPUs
        return Text(zh=f"{name}：{_CPU_TAG.zh}", en=f"{name}: {_CPU_TAG.en}")
    count, memory = spec.gpus_per_node, f"{spec.memory_per_device_gib:g}"
    return Text(zh=f"{name}：{count} × {memory} GiB", en=f"{name}: {count} × {memory} GiB")


# A control's value set in code (``widget.controls["stages"].value = 100``) is checked as the constructors check
# theirs (:func:`check_control`), naming the widget's argument in the learner's language: ipywidgets would clamp a
# slider's value silently, cast 2.5 or True to an int, and refuse a dropdown's with a TraitError naming nothing. What
# the front end sends is always a legal value, so a learner moving a control never meets these checks.


def _option_text(texts: Sequence[tuple[Any, Any]], value: Any, label: str) -> str:
    """The label of option ``value`` in the current language: its bilingual label in ``texts`` rendered, else
    ``label`` as shown (a number, a label of one language)."""
    for text, option in texts:
        if is_bool(option) == is_bool(value) and _same(option, value):
            return text.render() if isinstance(text, Text) else label
    return label


def label_control(control: ipywidgets.ValueWidget, key: str) -> None:
    """Describe ``control`` with catalog entry ``key`` from now on, in each language the widget is shown in (a
    workbench control whose meaning changes with the mode)."""
    check_instance("control", control, ipywidgets.ValueWidget)
    text = tr(key)  # a key that is not a str or not in the catalog is refused here, by name, before any change
    control._ck_label = key
    control.description = text


class _AnyButNone(traitlets.Any):
    """Any value but ``None``, which goes on to the cross-validators: ``traitlets.Any`` allows ``None`` as a class
    attribute that its ``allow_none=False`` argument does not override, and returns it before they run."""

    allow_none = False


class _CheckedControl:
    """Mixin for the controls below: ``value`` goes through :func:`check_control` under the name ``_ck_name``.

    Each declares its ``value`` trait as :class:`_AnyButNone`: traitlets hands a ``None`` to a trait that allows it
    back before any cross-validator runs, so ``value = None`` skipped the check (a selection slider then raised
    traitlets' English TraitError from its index, and kept the old figure as "ok").
    """

    _ck_name: str = "value"
    #: The catalog entry of the control's description, shown again in the language of the moment by
    #: :meth:`follow_language` (``None``: a description of the widget's own, left as it is).
    _ck_label: str | None = None

    def _ck_checked(self, value: Any) -> Any:
        return check_control(self._ck_name, self, value)

    def follow_language(self) -> None:
        """Show the description (and a selection's option labels) in the current language: a widget built before
        ``set_language`` relabels its controls at its next update (:meth:`LessonWidget.update`)."""
        if self._ck_label is not None:
            text = tr(self._ck_label)
            if getattr(self, "description", text) != text:
                self.description = text


class CheckedIntSlider(_CheckedControl, ipywidgets.IntSlider):  # type: ignore[misc]
    """An ``IntSlider`` that refuses, naming itself, a value set in code that is not an int in ``[min, max]``."""

    value = _AnyButNone(0, help="Int value").tag(sync=True)  # no silent cast of 2.5 or True

    @traitlets.validate("value")
    def _validate_value(self, proposal: Any) -> Any:
        return self._ck_checked(proposal["value"])


class CheckedFloatSlider(_CheckedControl, ipywidgets.FloatSlider):  # type: ignore[misc]
    """A ``FloatSlider`` that refuses, naming itself, a value set in code that is not a number in ``[min, max]``;
    within a rounding step of an end (what a browser's slider may send) it is moved onto the end."""

    value = _AnyButNone(0.0, help="Float value").tag(sync=True)

    @traitlets.validate("value")
    def _validate_value(self, proposal: Any) -> Any:
        value = proposal["value"]
        if isinstance(value, float) and math.isfinite(value):
            slack = 1e-9 * max(1.0, abs(self.min), abs(self.max))
            if self.min - slack <= value < self.min or self.max < value <= self.max + slack:
                value = min(max(value, self.min), self.max)
        return float(self._ck_checked(value))


class _CheckedSelection(_CheckedControl, ipywidgets.widgets.widget_selection._Selection):  # type: ignore[misc]
    """Mixin for a selection control: a value set in code that is not one of its options is refused, naming the
    control and its options; ``None`` is one of them only where a control offers it (the gates widget's "not
    declared")."""

    value = _AnyButNone(None, help="Selected value")

    @traitlets.validate("value")
    def _validate_value(self, proposal: Any) -> Any:
        if proposal.value is not None or self._options_values:  # before the options are set ipywidgets passes None
            proposal.value = self._ck_checked(proposal.value)
        return super()._validate_value(proposal)

    #: The options as a factory was given them, ``(label, value)`` with a :class:`~coursekit.i18n.Text` label where
    #: it has two languages: what :meth:`follow_language` renders the labels from.
    _ck_texts: tuple[tuple[Any, Any], ...] = ()
    _ck_relabelling: bool = False

    def follow_language(self) -> None:
        super().follow_language()
        values: tuple[Any, ...] = self._options_values
        labels = tuple(
            _option_text(self._ck_texts, value, label)
            for label, value in zip(self._options_labels, values, strict=True)
        )
        if labels != self._options_labels:
            self._ck_relabelling = True
            try:
                self.options = tuple(zip(labels, values, strict=True))
            finally:
                self._ck_relabelling = False

    @traitlets.observe("options")
    def _propagate_options(self, change: Any) -> None:
        # New options select the first one (ipywidgets), which would move the value and run the widget's observers
        # (the workbench's mode swaps its batch controls); new labels for the same values keep the selection.
        if not self._ck_relabelling:
            super()._propagate_options(change)
            return
        self.set_trait("_options_labels", tuple(label for label, _ in self._options_full))
        if self.index is not None:  # type: ignore[has-type]
            self.label = self._options_labels[self.index]  # type: ignore[has-type]

    @traitlets.observe("value")
    def _propagate_value(self, change: Any) -> None:
        # ipywidgets reads a value of None as "nothing selected" and blanks the box, even where None is an option
        # ("not declared"): choosing that option again from the browser emptied it. Select the None option instead.
        if change.new is None:
            index = next((i for i, option in enumerate(self._options_values) if option is None), None)
            if index is not None:
                if self.index != index:  # type: ignore[has-type]
                    self.index = index
                return
        super()._propagate_value(change)


class CheckedDropdown(_CheckedSelection, ipywidgets.Dropdown):  # type: ignore[misc]
    """A ``Dropdown`` whose value set in code is checked (:class:`_CheckedSelection`)."""


class CheckedSelectionSlider(_CheckedSelection, ipywidgets.SelectionSlider):  # type: ignore[misc]
    """A ``SelectionSlider`` whose value set in code is checked (:class:`_CheckedSelection`)."""


class CheckedCheckbox(_CheckedControl, ipywidgets.Checkbox):  # type: ignore[misc]
    """A ``Checkbox`` that refuses, naming itself, a value set in code that is not ``True`` or ``False``."""

    value = _AnyButNone(False, help="Bool value").tag(sync=True)

    @traitlets.validate("value")
    def _validate_value(self, proposal: Any) -> Any:
        return bool(self._ck_checked(proposal["value"]))


class CheckedFloatText(_CheckedControl, ipywidgets.FloatText):  # type: ignore[misc]
    """A ``FloatText`` that refuses, naming itself, a value set in code that is not a real number (a str, ``None``,
    ``True``) or lies beyond the float range. A number out of the widget's range, NaN and infinity are the widget's to
    explain in its message box, as a typed one is (a number box lets the learner type out-of-range values)."""

    value = _AnyButNone(0.0, help="Float value").tag(sync=True)

    @traitlets.validate("value")
    def _validate_value(self, proposal: Any) -> Any:
        value = proposal["value"]
        if isinstance(value, float) and not math.isfinite(value):  # the message box says why (check_control)
            return float(value)
        return check_number(self._ck_name, value)


class CheckedIntText(_CheckedControl, ipywidgets.IntText):  # type: ignore[misc]
    """An ``IntText`` that refuses, naming itself, a value set in code that is not an int (2.5, ``True``, ``None``)
    or lies beyond 2**53; a number out of the widget's range is the widget's to explain in its message box."""

    value = _AnyButNone(0, help="Int value").tag(sync=True)

    @traitlets.validate("value")
    def _validate_value(self, proposal: Any) -> Any:
        return check_int(self._ck_name, proposal["value"])


def _named(control: Any, name: str, key: str | None = None) -> Any:
    """``control`` with the argument name its checks give (see :class:`_CheckedControl`) and the catalog entry of its
    description (``key``)."""
    control._ck_name = name
    control._ck_label = key
    return control


def slider(
    key: str,
    *,
    value: float,
    min: float,
    max: float,
    step: float,
    readout_format: str | None = None,
    continuous_update: bool = False,
    argument: str | None = None,
) -> ipywidgets.ValueWidget:
    """A slider labelled with catalog entry ``key``; an ``IntSlider`` if all numbers are ints.

    ``continuous_update=False`` recomputes when the learner releases the handle.
    ``value`` must lie in ``[min, max]`` (an int when the range is ints);
    otherwise a ``TypeError`` / ``ValueError`` names ``argument``.

    >>> from coursekit.i18n import register
    >>> register({"demo_doc.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"}})
    >>> s = slider("demo_doc.tp", value=2, min=1, max=8, step=1)
    >>> isinstance(s, ipywidgets.IntSlider), s.description
    (True, 'tensor-parallel degree TP')
    >>> slider("demo_doc.tp", value=16, min=1, max=8, step=1)
    Traceback (most recent call last):
    ...
    ValueError: tp = 16: must be between 1 and 8.
    """
    for name, n in zip(("min", "max", "step"), (min, max, step), strict=True):
        check_number(name, n)
    integral = all(isinstance(n, int) for n in (min, max, step))
    name = _argument(key, argument)
    value = check_in_range(name, value, min, max, integral)
    numbers = (value, min, max, step)
    kwargs: dict[str, Any] = {
        "description": _label(key),
        "value": value,
        "min": min,
        "max": max,
        "step": step,
        "continuous_update": continuous_update,
        "style": _style(),
        "layout": ipywidgets.Layout(width=CONTROL_WIDTH),
    }
    if readout_format is not None:
        kwargs["readout_format"] = readout_format
    if all(isinstance(n, int) for n in numbers):
        return _named(CheckedIntSlider(**kwargs), name, key)
    return _named(CheckedFloatSlider(**kwargs), name, key)


def number(key: str, *, value: float, argument: str | None = None) -> ipywidgets.ValueWidget:
    """A free number box (``IntText`` for an int value, else ``FloatText``) labelled with ``key``.

    Unlike a slider it lets the learner type out-of-range values, which the
    widget then explains.

    >>> from coursekit.i18n import register
    >>> register({"demo_doc.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"}})
    >>> isinstance(number("demo_doc.tp", value=2), ipywidgets.IntText)
    True
    """
    name = _argument(key, argument)
    check_number(name, value)
    cls = CheckedIntText if isinstance(value, int) else CheckedFloatText
    box = cls(description=_label(key), value=value, style=_style(), layout=ipywidgets.Layout(width=CONTROL_WIDTH))
    return _named(box, name, key)


def dropdown(
    key: str, options: Sequence[Any], *, value: Any = None, argument: str | None = None
) -> ipywidgets.ValueWidget:
    """A dropdown labelled with ``key``.

    ``options`` are values, or ``(label, value)`` pairs whose label is a
    ``str`` or a bilingual :class:`~coursekit.i18n.Text` (rendered now). A
    ``value`` that is not one of them (``True`` is not ``1``) is a ``ValueError``
    naming ``argument`` and the choices.

    >>> from coursekit.i18n import register
    >>> register({"demo_doc.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"}})
    >>> d = dropdown("demo_doc.tp", [(Text(zh="一", en="one"), 1), (Text(zh="二", en="two"), 2)], value=2)
    >>> d.value, d.label
    (2, 'two')
    """
    pairs: list[tuple[str, Any]] = []
    texts: list[tuple[Any, Any]] = []
    for option in options:
        text, option_value = option if isinstance(option, tuple) and len(option) == 2 else (option, option)
        pairs.append((text.render() if isinstance(text, Text) else str(text), option_value))
        texts.append((text, option_value))
    if not pairs:
        raise ValueError(f"dropdown {key!r} needs at least one option")
    chosen = pairs[0][1] if value is None else value
    name = _argument(key, argument)
    _check_option(name, chosen, [option_value for _, option_value in pairs])
    menu = CheckedDropdown(
        description=_label(key),
        options=pairs,
        value=chosen,
        style=_style(),
        layout=ipywidgets.Layout(width=CONTROL_WIDTH),
    )
    menu._ck_texts = tuple(texts)
    return _named(menu, name, key)


def number_stops(
    argument: str, value: float, stops: Sequence[float], *, ge: float | None = None, gt: float | None = None
) -> list[tuple[str, float]]:
    """Options for a :func:`stepper` over numbers: ``stops`` and ``value``, sorted, each labelled with four
    significant digits, or as many more as it takes to read differently from its neighbours (two stops both
    labelled "25" would hide which one is chosen, and a value of 25.001 is not 25).

    A slider whose step is fine enough to reach every value a lesson names takes hundreds of arrow presses to cross
    its range; a few stops a press apart reach the lesson's values at once. ``value`` (checked as a real number with
    the bounds ``ge`` / ``gt``, naming ``argument``) becomes a stop if it is not one; ``stops`` is a list or tuple
    of real numbers within the same bounds.

    >>> number_stops("latency_us", 3.4, (0.0, 1.0, 5.0), ge=0)
    [('0', 0.0), ('1', 1.0), ('3.4', 3.4), ('5', 5.0)]
    >>> number_stops("bandwidth_gib_s", 25.001, (10.0, 25.0, 50.0), gt=0)
    [('10', 10.0), ('25', 25.0), ('25.001', 25.001), ('50', 50.0)]
    >>> number_stops("latency_us", -1, (0.0, 1.0), ge=0)
    Traceback (most recent call last):
    ...
    ValueError: latency_us = -1: must be >= 0.
    """
    bounds = {key: bound for key, bound in (("ge", ge), ("gt", gt)) if bound is not None}
    for key, bound in bounds.items():  # a bound that is no number would fail inside the comparison
        check_number(key, bound)
    chosen = float(check_number(argument, value, **bounds))
    given = check_sequence("stops", stops)
    values = sorted({*(check_number(f"stops[{index}]", stop, **bounds) for index, stop in enumerate(given)), chosen})
    return [(_stop_label(values, index), stop) for index, stop in enumerate(values)]


def _stop_label(values: Sequence[float], index: int) -> str:
    """``values[index]`` (``values`` sorted, distinct) with four significant digits, or the fewest more that read
    differently from both its neighbours' at as many digits (17 tell any two floats apart)."""
    value, neighbours = values[index], [*values[max(index - 1, 0) : index], *values[index + 1 : index + 2]]
    for digits in range(4, 17):
        label = f"{value:.{digits}g}"
        if all(f"{other:.{digits}g}" != label for other in neighbours):
            return label
    return f"{value:.17g}"


def number_stepper(
    key: str, argument: str, value: float, stops: Sequence[float], *, ge: float | None = None, gt: float | None = None
) -> ipywidgets.ValueWidget:
    """A :func:`stepper` over :func:`number_stops` (``stops`` and the checked ``value``), set to ``value``."""
    options = number_stops(argument, value, stops, ge=ge, gt=gt)
    return stepper(key, options, value=float(value))


def stepper(
    key: str, options: Sequence[Any], *, value: Any = None, argument: str | None = None
) -> ipywidgets.ValueWidget:
    """A slider over a list of choices (``SelectionSlider``), labelled with ``key``: a widget's main control.

    Takes the same ``options`` as :func:`dropdown`. Unlike a dropdown it can be stepped from the keyboard without
    leaving it: once its handle has the focus, ArrowRight / ArrowUp pick the next choice and ArrowLeft / ArrowDown
    the previous one, and the focus stays on the handle (in JupyterLab, ArrowDown on a dropdown leaves it and moves
    the selected cell instead).

    >>> from coursekit.i18n import register
    >>> register({"demo_doc.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"}})
    >>> s = stepper("demo_doc.tp", [(Text(zh="一", en="one"), 1), (Text(zh="二", en="two"), 2)], value=2)
    >>> isinstance(s, ipywidgets.SelectionSlider), s.value, s.label
    (True, 2, 'two')
    >>> stepper("demo_doc.tp", [(Text(zh="一", en="one"), 1), (Text(zh="二", en="two"), 2)], value=1).label
    'one'
    >>> stepper("demo_doc.tp", [1, 2], value=3)
    Traceback (most recent call last):
    ...
    ValueError: tp = 3: must be one of 1, 2.
    """
    menu = dropdown(key, options, value=value, argument=argument)  # the same labels and the same checks
    slider = CheckedSelectionSlider(
        description=menu.description,
        options=menu.options,
        value=menu.value,
        continuous_update=False,
        style=_style(),
        layout=ipywidgets.Layout(width=CONTROL_WIDTH),
    )
    slider._ck_texts = menu._ck_texts
    _named(slider, menu._ck_name, key)
    # A SelectionSlider built at its first choice leaves ``label`` empty (ipywidgets 8): set it from the choice.
    slider.label = menu.label
    return slider


def checkbox(key: str, *, value: bool = False, argument: str | None = None) -> ipywidgets.ValueWidget:
    """A checkbox labelled with ``key``.

    >>> from coursekit.i18n import register
    >>> register({"demo_doc.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"}})
    >>> checkbox("demo_doc.tp", value=True).value
    True
    """
    name = _argument(key, argument)
    check_bool(name, value)
    return _named(CheckedCheckbox(description=_label(key), value=value, indent=False, style=_style()), name, key)


learner_functions(globals())
