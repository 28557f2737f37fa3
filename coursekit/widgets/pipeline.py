"""Lesson 6 widget: a pipeline schedule as a live Gantt chart, the simulated bubble next to the formula.

:class:`PipelineWidget` lets a learner move the pipeline stages ``p``, the
micro-batches ``m``, the model chunks per device ``v``, the schedule (GPipe,
1F1B, interleaved 1F1B) and one slow stage. Every change replays the step with
:func:`coursekit.pipeline.simulate_schedule` and redraws the Gantt chart in
place: one row per device, forward (F) and backward (B) bars coloured, idle
time visible as the grey background between bars. The message puts the
simulated bubble (the idle share of the step) next to the formula
:func:`coursekit.pipeline.bubble_fraction`, with the overhead
:func:`coursekit.pipeline.bubble_overhead`, the makespan and the peak number of
in-flight micro-batches per device.

The bars live in a fixed set of compound-path patches (one per phase and
model chunk, plus one for the idle background) created once; an update only
replaces their paths, so the chart stays fast
even at the largest shape the sliders allow (``p = 8``, ``m = 16``, ``v = 4``:
1024 bars).

>>> w = PipelineWidget()
>>> w.status, w.result.schedule.schedule, round(w.result.simulated_fraction, 4)
('ok', '1f1b', 0.2727)
>>> w.controls["schedule"].value = "interleaved"  # the widget sets v to 2 for the learner
>>> w.status, w.controls["virtual_stages"].value
('ok', 2)
>>> w.controls["schedule"].value = "1f1b"  # and back to 1, with the v slider greyed out
>>> w.status, w.controls["virtual_stages"].value, w.controls["virtual_stages"].disabled
('ok', 1, True)

Taught in: lesson 6 (pipeline bubble and scaling efficiency).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, PathPatch
from matplotlib.path import Path
from matplotlib.ticker import MaxNLocator

from .._validate import check_choice, check_int, check_number, learner_functions
from ..i18n import Text, register, tr
from ..pipeline import (
    DEFAULT_BACKWARD_S,
    DEFAULT_FORWARD_S,
    SCHEDULES,
    GanttRow,
    Schedule,
    bubble_fraction,
    bubble_overhead,
    gantt_rows,
    simulate_schedule,
)
from ..plotting import cache_drawing, label
from . import LessonWidget, check_in_range, dropdown, slider

__all__ = [
    "MAX_MICROBATCHES",
    "MAX_SLOW_FACTOR",
    "MAX_STAGES",
    "MAX_VIRTUAL_STAGES",
    "NO_SLOW_STAGE_VALUE",
    "PipelineView",
    "PipelineWidget",
    "pipeline_view",
]

#: Largest values the sliders allow; they bound the number of bars (``2·p·m·v`` <= 1024).
MAX_STAGES: int = 8
MAX_MICROBATCHES: int = 16
MAX_VIRTUAL_STAGES: int = 4
#: The slow stage runs at most this many times slower than the others.
MAX_SLOW_FACTOR: float = 3.0

#: Bar captions ("F3") are drawn from a fixed pool of text artists, only for small shapes (p·m·v·2 <= 32,
#: e.g. lesson 6's p = 4, m = 4) and only when the bars are wide enough: each caption costs a text render.
_TEXT_POOL: int = 32
_MIN_CAPTION_PX: float = 14.0

#: Colours: forward blue, backward orange (lighter for later model chunks), idle grey.
_PHASE_COLOURS: dict[str, str] = {"F": "#4c72b0", "B": "#dd8452"}
_IDLE_COLOUR: str = "#e6e6e6"
#: Captions are ASCII ("F3"): one Latin font, no CJK fallback lookup per glyph.
_CAPTION_FONT: str = "DejaVu Sans Mono"
_SLOW_COLOUR: str = "#c44e52"
_CHUNK_LIGHTEN: float = 0.15
#: Bars narrower than this (pixels) get no white edge, which would otherwise wash them out.
_MIN_EDGE_PX: float = 6.0

register(
    {
        "widgets.pipeline.stages": {"zh": "流水线阶段数 p", "en": "pipeline stages p"},
        "widgets.pipeline.microbatches": {"zh": "微批次数 m", "en": "micro-batches m"},
        "widgets.pipeline.virtual_stages": {"zh": "每设备模型块数 v", "en": "model chunks per device v"},
        "widgets.pipeline.schedule": {"zh": "调度 (schedule)", "en": "schedule"},
        "widgets.pipeline.slow_stage": {"zh": "慢阶段 (slow stage)", "en": "slow stage"},
        "widgets.pipeline.slow_factor": {"zh": "慢阶段耗时倍数", "en": "slow-stage time factor"},
        "widgets.pipeline.slow_stage_missing": {
            "zh": "slow_stage = {stage}：慢阶段选了设备 {stage}，但 p = {stages} 时设备编号只有 0 到 {last}；"
            "请换一个设备，或选“无”。",
            "en": "slow_stage = {stage}: the slow stage is device {stage}, but with p = {stages} the devices are 0 to "
            "{last}; choose another device or 'none'.",
        },
        "widgets.pipeline.slow_stage_reset": {
            "zh": "慢阶段原来选的是设备 {stage}，p = {stages} 时设备只有 0 到 {last}，"
            "所以“{stage_control}”已改回“无”。",
            "en": "The slow stage was device {stage}; with p = {stages} the devices are 0 to {last}, so "
            "'{stage_control}' went back to 'none'.",
        },
        "widgets.pipeline.bubble": {
            "zh": "模拟的气泡（一步中设备空闲的占比）：<b>{simulated:.1%}</b>；"
            "公式 (p-1)/(v·m+p-1) = <b>{formula:.1%}</b>。",
            "en": "Simulated bubble (idle share of the step): <b>{simulated:.1%}</b>; "
            "formula (p-1)/(v·m+p-1) = <b>{formula:.1%}</b>.",
        },
        "widgets.pipeline.overhead": {
            "zh": "相对理想时间的开销 (p-1)/(v·m) = {overhead:.1%}：同一段气泡换了分母（比例 = 开销 / (1 + 开销)）。",
            "en": "Overhead relative to the ideal time, (p-1)/(v·m) = {overhead:.1%}: the same bubble over another "
            "denominator (fraction = overhead / (1 + overhead)).",
        },
        "widgets.pipeline.makespan": {
            "zh": "一步总时长 (makespan) {makespan:.1f} s"
            "（每个设备每个微批次：前向 {forward:g} s，反向 {backward:g} s）。",
            "en": "Makespan {makespan:.1f} s (per device and micro-batch: forward {forward:g} s, "
            "backward {backward:g} s).",
        },
        "widgets.pipeline.peak": {
            "zh": "各设备在途微批次峰值（同时要保存的激活份数）：{peaks}。",
            "en": "Peak in-flight micro-batches per device (activations held at once): {peaks}.",
        },
        "widgets.pipeline.peak_chunks": {
            "zh": "各设备在途前向峰值（每份只含该设备 1/{v} 的层）：{peaks}。",
            "en": "Peak in-flight forward passes per device (each holds 1/{v} of the device's layers): {peaks}.",
        },
        "widgets.pipeline.matches": {
            "zh": "各阶段均衡、没有传输时间：模拟与公式一致。",
            "en": "Balanced stages and no transfer time: the simulation matches the formula.",
        },
        "widgets.pipeline.factor_unused": {
            "zh": "没有选慢阶段，所以“{factor_control}”（现在 {factor:g} 倍）不起作用："
            "先在“{stage_control}”中选一个设备。",
            "en": "No slow stage is chosen, so the '{factor_control}' (now {factor:g}×) changes nothing: pick a "
            "device under '{stage_control}' first.",
        },
        "widgets.pipeline.slow": {
            "zh": "设备 {stage} 慢 {factor:g} 倍：空闲占比比公式高 {points:.1f} 个百分点。"
            "公式假设各阶段均衡；实际上最慢的阶段决定节奏，这要靠测量发现。",
            "en": "Device {stage} is {factor:g}× slower: the idle share exceeds the formula by {points:.1f} percentage "
            "points. "
            "The formula assumes balanced stages; in practice the slowest stage sets the pace, and only "
            "measurement finds it.",
        },
        "widgets.pipeline.needs_chunks": {
            "zh": "“{schedule}”需要“{virtual}”至少为 2：请把这个滑块调到 2 或以上，或在“{schedule_control}”中选 1F1B。",
            "en": "'{schedule}' needs '{virtual}' of at least 2: move that slider to 2 or more, or pick 1F1B under "
            "'{schedule_control}'.",
        },
        "widgets.pipeline.chunks_need_interleaved": {
            "zh": "“{virtual}” = {v} 只对“{interleaved}”有意义：请在“{schedule_control}”中选它，或把 v 调回 1。",
            "en": "'{virtual}' = {v} only means something for '{interleaved}': pick it under '{schedule_control}', "
            "or move v back to 1.",
        },
        "widgets.pipeline.list_separator": {"zh": "、", "en": ", "},
        "widgets.pipeline.needs_multiple": {
            "zh": "“{interleaved}”要求“{microbatches}”是“{stages}”的整数倍（现在 m = {m}，p = {p}）："
            "请把 m 调到 {choices} 之一，或在“{schedule_control}”中选 1F1B。",
            "en": "'{interleaved}' needs '{microbatches}' to be a multiple of '{stages}' (now m = {m}, p = {p}): "
            "move m to one of {choices}, or pick 1F1B under '{schedule_control}'.",
        },
        "widgets.pipeline.axis_time": {"zh": "时间 (s)", "en": "time (s)"},
        "widgets.pipeline.title_idle": {"zh": "空闲 {idle:.1%}", "en": "{idle:.1%} idle"},
        "widgets.pipeline.legend_forward": {"zh": "前向 F", "en": "forward F"},
        "widgets.pipeline.legend_backward": {"zh": "反向 B", "en": "backward B"},
        "widgets.pipeline.legend_idle": {"zh": "空闲（气泡）", "en": "idle (bubble)"},
    }
)

#: Dropdown labels of the schedules, in :data:`coursekit.pipeline.SCHEDULES` order.
SCHEDULE_LABELS: dict[str, Text] = {
    "gpipe": Text(zh="GPipe（先全部前向，再全部反向）", en="GPipe (all forwards, then all backwards)"),
    "1f1b": Text(zh="1F1B（一前一后）", en="1F1B (one forward, one backward)"),
    "interleaved": Text(zh="交错 1F1B（interleaved，v >= 2）", en="interleaved 1F1B (v >= 2)"),
}
#: Short names of the schedules, for the figure's title.
SCHEDULE_NAMES: dict[str, Text] = {
    "gpipe": Text(zh="GPipe", en="GPipe"),
    "1f1b": Text(zh="1F1B", en="1F1B"),
    "interleaved": Text(zh="交错 1F1B", en="interleaved 1F1B"),
}


def _device_options(stages: int) -> list[tuple[str, int]]:
    """The slow-stage menu's devices for a pipeline of ``stages``: 0 .. stages-1 (no stage that does not exist)."""
    return [(str(device), device) for device in range(stages)]


#: Dropdown label and value of "no slow stage" (a dropdown value of None would mean "nothing selected").
NO_SLOW_STAGE: Text = Text(zh="无", en="none")
NO_SLOW_STAGE_VALUE: str = "none"


@dataclass(frozen=True)
class PipelineView:
    """What :class:`PipelineWidget` shows for one set of control values.

    Fields: ``schedule`` (the simulated :class:`~coursekit.pipeline.Schedule`),
    ``rows`` (its :func:`~coursekit.pipeline.gantt_rows`), ``formula_fraction``
    (:func:`~coursekit.pipeline.bubble_fraction`), ``formula_overhead``
    (:func:`~coursekit.pipeline.bubble_overhead`), ``slow_stage`` (device index
    or ``None``), ``slow_factor`` (how many times slower that device is),
    ``forward_s`` and ``backward_s`` (per micro-batch on a normal device, seconds).
    """

    schedule: Schedule
    rows: tuple[GanttRow, ...]
    formula_fraction: float
    formula_overhead: float
    slow_stage: int | None
    slow_factor: float
    forward_s: float
    backward_s: float

    @property
    def simulated_fraction(self) -> float:
        """Idle share of the simulated step (equals ``formula_fraction`` for balanced stages)."""
        return self.schedule.idle_fraction


def pipeline_view(
    stages: int,
    microbatches: int,
    schedule: str = "1f1b",
    virtual_stages: int = 1,
    slow_stage: int | None = None,
    slow_factor: float = 1.0,
) -> PipelineView:
    """Simulate one step and collect what the widget shows.

    Parameters: ``stages`` ``p``, ``microbatches`` ``m``, ``schedule`` and
    ``virtual_stages`` ``v`` as in :func:`coursekit.pipeline.simulate_schedule`;
    ``slow_stage`` is a device index in ``0 .. p-1`` (or ``None``) whose forward
    and backward take ``slow_factor`` (>= 1) times the default
    (:data:`~coursekit.pipeline.DEFAULT_FORWARD_S`,
    :data:`~coursekit.pipeline.DEFAULT_BACKWARD_S`).

    >>> v = pipeline_view(4, 8, slow_stage=2, slow_factor=2.0)
    >>> round(v.simulated_fraction, 4), round(v.formula_fraction, 4)
    (0.4545, 0.2727)

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    p = check_int("stages", stages, ge=1)
    name = check_choice("schedule", schedule, SCHEDULES)
    factor = check_number("slow_factor", slow_factor, ge=1)
    forward: Sequence[float] | None = None
    backward: Sequence[float] | None = None
    if slow_stage is not None:
        slow = check_int("slow_stage", slow_stage, ge=0)
        if slow >= p:
            raise ValueError(tr("widgets.pipeline.slow_stage_missing", stage=slow, stages=p, last=p - 1))
        forward = [DEFAULT_FORWARD_S * (factor if s == slow else 1.0) for s in range(p)]
        backward = [DEFAULT_BACKWARD_S * (factor if s == slow else 1.0) for s in range(p)]
    simulated = simulate_schedule(
        p,
        microbatches,
        schedule=name,
        virtual_stages=virtual_stages,
        stage_forward_s=forward,
        stage_backward_s=backward,
    )
    return PipelineView(
        schedule=simulated,
        rows=gantt_rows(simulated),
        formula_fraction=bubble_fraction(p, microbatches, virtual_stages),
        formula_overhead=bubble_overhead(p, microbatches, virtual_stages),
        slow_stage=slow_stage,
        slow_factor=factor,
        forward_s=DEFAULT_FORWARD_S,
        backward_s=DEFAULT_BACKWARD_S,
    )


def _shade(colour: str, chunk: int) -> tuple[float, float, float, float]:
    """``colour`` lightened towards white for later model chunks."""
    r, g, b, a = to_rgba(colour)
    t = _CHUNK_LIGHTEN * chunk
    return (r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t, a)


def _rectangles(boxes: Sequence[tuple[float, float, float]], half: float = 0.4) -> Path:
    """One compound path of rectangles ``(x0, width, y)``, each ``2·half`` high and centred on ``y``."""
    if not boxes:
        return Path(np.zeros((1, 2)), [Path.MOVETO])
    xy = np.asarray(boxes, dtype=float)
    x0, x1, y = xy[:, 0], xy[:, 0] + xy[:, 1], xy[:, 2]
    corners = np.stack(
        [
            np.stack([x0, y - half], 1),
            np.stack([x0, y + half], 1),
            np.stack([x1, y + half], 1),
            np.stack([x1, y - half], 1),
            np.stack([x0, y - half], 1),
        ],
        axis=1,
    ).reshape(-1, 2)
    codes = np.tile(_RECT_CODES, len(boxes))
    return Path(corners, codes)


_RECT_CODES = np.array([Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY], dtype=Path.code_type)


class PipelineWidget(LessonWidget[PipelineView]):
    """Gantt chart of one pipeline step: stages, micro-batches, chunks, schedule and a slow stage.

    Controls: ``stages`` (1-8), ``microbatches`` (1-16), ``schedule``
    (gpipe / 1f1b / interleaved), ``virtual_stages`` (1-4), ``slow_stage``
    (``"none"`` or a device of the pipeline, 0 to p-1: the menu follows p) and ``slow_factor`` (1.0-3.0).

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """

    figure_size_in = (6.6, 3.0)
    grid_controls = True
    #: The schedule menu's options ("1F1B (one forward, one backward)") are too long for a column of the grid.
    wide_controls = ("schedule",)
    main_control = "microbatches"

    def __init__(
        self,
        stages: int = 4,
        microbatches: int = 8,
        schedule: str = "1f1b",
        virtual_stages: int = 1,
        slow_stage: int | None = None,
        slow_factor: float = 2.0,
    ) -> None:
        # The sliders' range check (one message for every widget: "must be between low and high").
        stages = check_in_range("stages", stages, 1, MAX_STAGES, integral=True)
        microbatches = check_in_range("microbatches", microbatches, 1, MAX_MICROBATCHES, integral=True)
        schedule = check_choice("schedule", schedule, SCHEDULES)
        virtual_stages = check_in_range("virtual_stages", virtual_stages, 1, MAX_VIRTUAL_STAGES, integral=True)
        if slow_stage is not None:  # the slow-stage menu offers the devices of this pipeline only
            slow_stage = check_in_range("slow_stage", slow_stage, 0, stages - 1, integral=True)
        slow_factor = check_in_range("slow_factor", slow_factor, 1.0, MAX_SLOW_FACTOR, integral=False)
        if schedule == "interleaved" and virtual_stages == 1:
            virtual_stages = 2  # the interleaved schedule needs at least two chunks per device
        controls = {
            "stages": slider("widgets.pipeline.stages", value=stages, min=1, max=MAX_STAGES, step=1),
            "microbatches": slider(
                "widgets.pipeline.microbatches", value=microbatches, min=1, max=MAX_MICROBATCHES, step=1
            ),
            "schedule": dropdown(
                "widgets.pipeline.schedule", [(SCHEDULE_LABELS[s], s) for s in SCHEDULES], value=schedule
            ),
            "virtual_stages": slider(
                "widgets.pipeline.virtual_stages", value=virtual_stages, min=1, max=MAX_VIRTUAL_STAGES, step=1
            ),
            "slow_stage": dropdown(
                "widgets.pipeline.slow_stage",
                [(NO_SLOW_STAGE, NO_SLOW_STAGE_VALUE), *_device_options(stages)],
                value=NO_SLOW_STAGE_VALUE if slow_stage is None else slow_stage,
            ),
            "slow_factor": slider(
                "widgets.pipeline.slow_factor",
                value=slow_factor,
                min=1.0,
                max=MAX_SLOW_FACTOR,
                step=0.25,
                readout_format=".2f",
            ),
        }
        # Registered before the base class's own observer, so v is already right when the chart updates.
        controls["schedule"].observe(self._on_schedule, names="value")
        controls["stages"].observe(self._on_stages, names="value")
        controls["virtual_stages"].disabled = schedule != "interleaved"
        #: (device, p) when lowering p dropped the chosen slow device, so the message can say where it went
        self._slow_stage_reset: tuple[int, int] | None = None
        super().__init__(controls)

    def _on_stages(self, change: Any) -> None:
        """Offer the devices 0 .. p-1 as slow stages; a slow device that no longer exists goes back to "none"."""
        menu, stages = self.controls["slow_stage"], change["new"]
        chosen = menu.value
        keep = chosen if chosen == NO_SLOW_STAGE_VALUE or chosen < stages else NO_SLOW_STAGE_VALUE
        earlier = self._slow_stage_reset
        if keep != chosen:
            self._slow_stage_reset = (chosen, stages)
        elif chosen == NO_SLOW_STAGE_VALUE and earlier is not None and earlier[0] >= stages:
            self._slow_stage_reset = (earlier[0], stages)  # p lowered further: the dropped device is still gone
        else:
            self._slow_stage_reset = None
        with self.hold_updates():  # new options select the first one: one update, for the value kept
            menu.options = [menu.options[0], *_device_options(stages)]
            menu.value = keep

    def check_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """As :meth:`LessonWidget.check_values`, but a slow stage is checked against every device the widget can
        show (0 .. 7), not the menu of the current p: a direct ``compute(stages=8, slow_stage=6)`` is fine, and
        ``compute(stages=4, slow_stage=6)`` is refused by :func:`pipeline_view`, naming p and the devices."""
        slow = values.get("slow_stage", NO_SLOW_STAGE_VALUE)
        if isinstance(slow, str) and slow == NO_SLOW_STAGE_VALUE:
            return super().check_values(values)
        checked = super().check_values({**values, "slow_stage": NO_SLOW_STAGE_VALUE})
        checked["slow_stage"] = check_in_range("slow_stage", slow, 0, MAX_STAGES - 1, integral=True)
        return checked

    def _on_schedule(self, change: Any) -> None:
        """Keep v consistent with the schedule: 2 when interleaved is picked with v = 1, 1 (greyed) otherwise."""
        chunks = self.controls["virtual_stages"]
        interleaved = change["new"] == "interleaved"
        chunks.disabled = not interleaved
        if interleaved and chunks.value == 1:
            chunks.value = 2
        elif not interleaved and chunks.value != 1:
            chunks.value = 1

    # -- LessonWidget ------------------------------------------------------------------

    def setup(self, fig: Figure) -> None:
        # Fixed margins instead of constrained layout: the labels never change size, and a layout
        # engine makes savefig draw the figure twice.
        fig.set_layout_engine("none")
        self.ax = fig.add_axes((0.12, 0.27, 0.865, 0.64))
        # One compound path per colour: idle background, and each (phase, chunk). An update swaps
        # their paths; no artist is created after setup.
        self.idle = PathPatch(_rectangles([]), facecolor=_IDLE_COLOUR, edgecolor="none", zorder=1)
        self.ax.add_patch(self.idle)
        self.bars: dict[tuple[str, int], PathPatch] = {}
        for phase, colour in _PHASE_COLOURS.items():
            for chunk in range(MAX_VIRTUAL_STAGES):
                patch = PathPatch(
                    _rectangles([]), facecolor=_shade(colour, chunk), edgecolor="white", linewidth=0.4, zorder=2
                )
                self.bars[(phase, chunk)] = patch
                self.ax.add_patch(patch)
        self.captions = [
            self.ax.text(
                0.0,
                0.0,
                "",
                ha="center",
                va="center",
                fontsize=6,
                family=_CAPTION_FONT,
                color="white",
                visible=False,
                zorder=3,
                clip_on=True,
            )
            for _ in range(_TEXT_POOL)
        ]
        self.title = self.ax.set_title("", fontsize=9)
        self._row_labels: list[str] = []  # the y tick labels set last
        self.ax.set_xlabel(_label("widgets.pipeline.axis_time"), fontsize=8)
        legend = self.ax.legend(
            handles=[
                Patch(facecolor=_PHASE_COLOURS["F"], label=_label("widgets.pipeline.legend_forward")),
                Patch(facecolor=_PHASE_COLOURS["B"], label=_label("widgets.pipeline.legend_backward")),
                Patch(facecolor=_IDLE_COLOUR, label=_label("widgets.pipeline.legend_idle")),
            ],
            loc="upper center",
            bbox_to_anchor=(0.5, -0.28),
            ncol=3,
            fontsize=7,
            frameon=False,
        )
        cache_drawing(legend)  # the same at every update: drawn from a bitmap
        self.ax.tick_params(labelsize=7)
        self.ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))

    def compute(self, **values: Any) -> PipelineView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        self._check_controls(values["stages"], values["microbatches"], values["schedule"], values["virtual_stages"])
        slow_stage = values["slow_stage"]
        return pipeline_view(
            values["stages"],
            values["microbatches"],
            values["schedule"],
            values["virtual_stages"],
            None if slow_stage == NO_SLOW_STAGE_VALUE else slow_stage,
            values["slow_factor"],
        )

    @staticmethod
    def _check_controls(p: int, m: int, schedule: str, v: int) -> None:
        """Refuse an impossible shape with a message that names the on-screen controls."""
        names = {
            "schedule": SCHEDULE_LABELS[schedule].render(),
            "interleaved": SCHEDULE_LABELS["interleaved"].render(),
            "schedule_control": tr("widgets.pipeline.schedule"),
            "virtual": tr("widgets.pipeline.virtual_stages"),
            "microbatches": tr("widgets.pipeline.microbatches"),
            "stages": tr("widgets.pipeline.stages"),
        }
        if schedule == "interleaved" and v < 2:
            raise ValueError(tr("widgets.pipeline.needs_chunks", **names))
        if schedule != "interleaved" and v > 1:
            raise ValueError(tr("widgets.pipeline.chunks_need_interleaved", v=v, **names))
        if schedule == "interleaved" and m % p:
            # "4、8、12、16" in zh, "4, 8, 12, 16" in en
            separator = tr("widgets.pipeline.list_separator")
            choices = separator.join(str(k) for k in range(p, MAX_MICROBATCHES + 1, p)) or str(p)
            raise ValueError(tr("widgets.pipeline.needs_multiple", m=m, p=p, choices=choices, **names))

    def draw(self, result: PipelineView) -> None:
        schedule = result.schedule
        p, makespan = schedule.stages, schedule.makespan_s
        half = 0.38
        all_bars = [(row.stage, bar) for row in result.rows for bar in row.bars]
        axes_px = self.ax.get_position().width * self.figure.get_figwidth() * self.figure.dpi
        narrowest_px = min(bar.duration_s for _, bar in all_bars) / makespan * axes_px
        self.idle.set_path(_rectangles([(0.0, makespan, row.stage) for row in result.rows], half))
        edge = 0.4 if narrowest_px >= _MIN_EDGE_PX else 0.0
        boxes: dict[tuple[str, int], list[tuple[float, float, int]]] = {key: [] for key in self.bars}
        for stage, bar in all_bars:  # one pass: each bar to its (phase, chunk) colour
            boxes[(bar.phase, bar.chunk)].append((bar.start_s, bar.duration_s, stage))
        for key, patch in self.bars.items():
            patch.set_path(_rectangles(boxes[key], half))
            patch.set_linewidth(edge)
        show = len(all_bars) <= _TEXT_POOL and narrowest_px >= _MIN_CAPTION_PX
        for index, caption in enumerate(self.captions):
            if show and index < len(all_bars):
                stage, bar = all_bars[index]
                caption.set_position((bar.start_s + bar.duration_s / 2, stage))
                caption.set_text(bar.text)
                caption.set_visible(True)
            else:
                caption.set_visible(False)

        self.ax.set_xlim(0.0, makespan * 1.01)
        self.ax.set_ylim(p - 0.5, -0.5)
        row_labels = [label(row.label) for row in result.rows]
        if row_labels != self._row_labels:  # new ticks only for another p (or language)
            self.ax.set_yticks(range(p), labels=row_labels)
            self._row_labels = row_labels
        for stage, tick in enumerate(self.ax.get_yticklabels()):
            tick.set_color(_SLOW_COLOUR if stage == result.slow_stage else "black")
        idle = _label("widgets.pipeline.title_idle", idle=result.simulated_fraction)
        self.title.set_text(
            f"{label(SCHEDULE_NAMES[schedule.schedule])}: p = {p}, m = {schedule.microbatches}, "
            f"v = {schedule.virtual_stages}  ·  "
            f"{idle}  ·  (p-1)/(v·m+p-1) = {result.formula_fraction:.1%}"
        )

    def describe(self, result: PipelineView) -> str:
        schedule = result.schedule
        peaks = ", ".join(str(peak) for peak in schedule.peak_inflight_per_stage)
        lines = [
            tr("widgets.pipeline.bubble", simulated=result.simulated_fraction, formula=result.formula_fraction),
            html.escape(tr("widgets.pipeline.overhead", overhead=result.formula_overhead)),
            html.escape(
                tr(
                    "widgets.pipeline.makespan",
                    makespan=schedule.makespan_s,
                    forward=result.forward_s,
                    backward=result.backward_s,
                )
            ),
        ]
        if schedule.virtual_stages > 1:
            lines.append(html.escape(tr("widgets.pipeline.peak_chunks", v=schedule.virtual_stages, peaks=peaks)))
        else:
            lines.append(html.escape(tr("widgets.pipeline.peak", peaks=peaks)))
        excess = result.simulated_fraction - result.formula_fraction
        if abs(excess) < 1e-9:
            lines.append(html.escape(tr("widgets.pipeline.matches")))
            reset = self._slow_stage_reset
            if result.slow_stage is None and reset is not None and reset[1] == schedule.stages:
                # the learner chose a slow device and lowering p dropped it: say so, not just "no slow stage"
                note = tr(
                    "widgets.pipeline.slow_stage_reset",
                    stage=reset[0],
                    stages=reset[1],
                    last=reset[1] - 1,
                    stage_control=tr("widgets.pipeline.slow_stage"),
                )
                lines.append(html.escape(note))
            if result.slow_stage is None:  # the factor slider is live but has nothing to slow: say so
                unused = tr(
                    "widgets.pipeline.factor_unused",
                    factor=result.slow_factor,
                    factor_control=tr("widgets.pipeline.slow_factor"),
                    stage_control=tr("widgets.pipeline.slow_stage"),
                )
                lines.append(html.escape(unused))
        else:
            lines.append(
                html.escape(
                    tr(
                        "widgets.pipeline.slow",
                        stage=result.slow_stage,
                        factor=result.slow_factor,
                        points=100 * excess,  # a difference of two shares: percentage points, not a relative 13.9 %
                    )
                )
            )
        return "<br>".join(lines)


def _label(key: str, **params: Any) -> str:
    """A catalog entry rendered in the figure's language (see :func:`coursekit.plotting.label`)."""
    return label(Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params)))


learner_functions(globals())
