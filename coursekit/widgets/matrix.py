"""Lesson 5 widget: set the constraints and watch the selection matrix's cells hold or fall, with their reasons.

:class:`MatrixWidget` builds a case from the constraints a learner sets (:func:`coursekit.matrix.constraint_case`):
the model (its training state against the device memory), the device memory, what is known about the interconnect,
the global batch and the sequence length, on 4 nodes × 8 devices. :func:`coursekit.matrix.evaluate_paper_case` then
gives each strategy a verdict with coded reasons. The figure draws each strategy's memory per rank against the
device memory, coloured by verdict; the message lists each verdict and its first reason.

>>> w = MatrixWidget()
>>> w.status, w.result.evaluation.summary()["DP"]
('ok', 'not_preferred')
>>> w.controls["model"].value = "megatron-1.7b"
>>> w.controls["device_memory_gib"].value = 80
>>> w.result.evaluation.summary()["DP"]
'feasible'

Taught in: lesson 5 (selection matrix).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import ScalarFormatter
from matplotlib.transforms import blended_transform_factory

from .._validate import check_instance, check_items, learner_functions
from ..i18n import Text, register, tr
from ..matrix import (
    CASE_KIND_LABELS,
    STRATEGIES,
    TOPOLOGIES,
    VERDICT_LABELS,
    CaseEvaluation,
    PaperCase,
    case_kind,
    constraint_case,
    evaluate_paper_case,
)
from ..plotting import label
from ..shapes import MODEL_SHAPES
from ..units import adding_up_places, parts_adding_up
from . import WIDGET_MAX_WIDTH, LessonWidget, dropdown, stepper

__all__ = [
    "BATCH_OPTIONS",
    "DEVICE_MEMORY_OPTIONS",
    "SEQ_LEN_OPTIONS",
    "VERDICT_COLOURS",
    "MatrixView",
    "MatrixWidget",
    "matrix_view",
    "short_model_name",
    "verdict_grid_chart",
]

#: Device memory choices, GiB: lessons 1 and 3's 24 GiB device, and 16 / 40 / 80 GiB accelerators.
DEVICE_MEMORY_OPTIONS: tuple[int, ...] = (16, 24, 40, 80)
#: Global batch choices (sequences); 64 is the paper cases'.
BATCH_OPTIONS: tuple[int, ...] = (16, 32, 64, 128, 512)
#: Sequence length choices (tokens); 2048 is the Megatron shapes'.
SEQ_LEN_OPTIONS: tuple[int, ...] = (2048, 4096, 8192, 32768)
#: Bar colour of each verdict.
VERDICT_COLOURS: dict[str, str] = {"feasible": "#2e7d32", "not_preferred": "#9e9e9e", "needs_info": "#e0a100"}

register(
    {
        "widgets.matrix.model": {"zh": "模型（训练状态）", "en": "model (training state)"},
        "widgets.matrix.device_memory_gib": {"zh": "单卡显存 (GiB)", "en": "device memory (GiB)"},
        "widgets.matrix.topology": {"zh": "互连", "en": "interconnect"},
        "widgets.matrix.global_batch": {"zh": "全局批大小（序列数）", "en": "global batch (sequences)"},
        "widgets.matrix.seq_len": {"zh": "序列长度 (token)", "en": "sequence length (tokens)"},
        "widgets.matrix.topology.unspecified": {"zh": "未知（案例没说）", "en": "unknown (the case does not say)"},
        "widgets.matrix.topology.hierarchical": {
            "zh": "节点内快（NVLink）、跨节点慢",
            "en": "fast inside a node (NVLink), slow between nodes",
        },
        "widgets.matrix.case": {
            "zh": "{model}：训练状态 {state:.1f} GiB，激活 {act:.1f} GiB，最大一层 {layer:.2f} GiB，单卡 {device} GiB，"
            "4 个节点 × 8 卡——属于“{kind}”。",
            "en": "{model}: training state {state:.1f} GiB, activations {act:.1f} GiB, largest layer {layer:.2f} GiB, "
            "device {device} GiB, 4 nodes × 8 devices: {kind}.",
        },
        "widgets.matrix.layer_sum": {
            "zh": "（最大一层 {part} + 激活 {act} + 预留 {reserve} = {total} GiB，"
            "超过单卡 {device} GiB：让它放不下的是激活，不是这一层的权重）",
            "en": " (largest layer {part} + activations {act} + reserve {reserve} = {total} GiB, more "
            "than the {device} GiB device: the activations, not the layer's weights, make it not fit)",
        },
        "widgets.matrix.state_sum": {
            "zh": "（训练状态 {part} + 激活 {act} + 预留 {reserve} = {total} GiB，"
            "超过单卡 {device} GiB：训练状态本身放得下，让它放不下的是激活和预留）",
            "en": " (training state {part} + activations {act} + reserve {reserve} = {total} GiB, more "
            "than the {device} GiB device: the state itself fits; the activations and reserve make it not fit)",
        },
        "widgets.matrix.cell": {
            "zh": "<b>{strategy}</b> {verdict}：{reason}",
            "en": "<b>{strategy}</b> {verdict}: {reason}",
        },
        "widgets.matrix.hard": {"zh": "（硬排除）", "en": " (hard exclusion)"},
        "widgets.matrix.axis_memory": {"zh": "每 rank 显存 (GiB)", "en": "memory per rank (GiB)"},
        "widgets.matrix.device_line": {"zh": "单卡显存", "en": "device memory"},
        "widgets.matrix.title": {"zh": "四个策略在这些约束下", "en": "The four strategies under these constraints"},
        "widgets.matrix.topology_same": {
            "zh": "互连选“{chosen}”：这个案例的四个结论和选“{other}”时完全一样，所以改互连时结论和图都不变："
            "这里没有哪个策略的结论取决于链路快慢（取决于它的例子：单层超过单卡、必须用 TP 切开它时，"
            "TP 要靠节点内的快链路）。",
            "en": "Interconnect “{chosen}”: this case's four verdicts are exactly those under “{other}”, so changing "
            "the interconnect leaves the verdicts and the figure as they are: no strategy's verdict here depends on "
            "how fast the links are (one that does: a layer larger than one device, which TP must split, needs the "
            "fast links inside a node).",
        },
        "widgets.matrix.batch_same": {
            "zh": "全局批大小 {batch} 条序列：在 {low} 到 {high} 条序列之间换哪个全局批大小，这个案例的四个结论都一样"
            "（没有哪个策略被全局批大小卡住），所以改它时结论不变。",
            "en": "Global batch {batch:@sequence}: any global batch from {low} to {high:@sequence} gives this case the "
            "same four verdicts (no strategy is held back by the global batch), so changing it leaves the verdicts "
            "as they are.",
        },
        "widgets.matrix.note": {
            "zh": "显存是课程的粗略模型（S、A、R、W 见上文），判定是“先排除、后比较”的结果，不是测量。",
            "en": "Memory is the course's coarse model (S, A, R, W above); the verdicts exclude first and compare "
            "later. They are not measurements.",
        },
    }
)


@dataclass(frozen=True)
class MatrixView:
    """What the widget shows: the model, the case built from the controls and its four verdicts."""

    model: str
    case: PaperCase
    topology: str
    evaluation: CaseEvaluation
    #: The interconnect choice the widget does not show that gives the same four verdicts, if any (its message then
    #: says the interconnect changes nothing here); None when not worked out (a direct :func:`matrix_view`).
    same_topology: str | None = None
    #: True when every global batch the widget offers gives the same four verdicts (the message then says so).
    same_every_batch: bool = False


def _shown_verdicts(evaluation: CaseEvaluation) -> tuple[tuple[str, bool, str], ...]:
    """What the widget's message shows of each verdict: its code, whether it is a hard exclusion, its first reason."""
    return tuple((v.verdict, v.hard_excluded, v.reasons[0].message if v.reasons else "") for v in evaluation.verdicts)


def matrix_view(model: str, device_memory_gib: float, topology: str, global_batch: int, seq_len: int) -> MatrixView:
    """The case of these constraints and its evaluation (what :class:`MatrixWidget` draws).

    >>> view = matrix_view("megatron-18.4b", 24, "hierarchical", 64, 2048)
    >>> view.evaluation.summary()["TP"], view.evaluation.summary()["DP"]
    ('feasible', 'not_preferred')
    """
    case = constraint_case(model, device_memory_gib=device_memory_gib, global_batch=global_batch, seq_len=seq_len)
    return MatrixView(model, case, topology, evaluate_paper_case(case, topology))


def verdict_grid_chart(ax: Axes, views: Sequence[MatrixView]) -> None:
    """One row per case, one column per strategy, each cell coloured by its verdict and labelled with it.

    Taught in: lesson 5 (the figure after the constraints widget).
    """
    check_instance("ax", ax, Axes)
    views = check_items("views", views)
    for index, view in enumerate(views):
        check_instance(f"views[{index}]", view, MatrixView)
    ax.clear()
    for row, view in enumerate(views):
        for column, verdict in enumerate(view.evaluation.verdicts):
            ax.add_patch(
                Rectangle((column, row), 0.96, 0.92, facecolor=VERDICT_COLOURS[verdict.verdict], edgecolor="white")
            )
            ax.text(column + 0.48, row + 0.46, label(VERDICT_LABELS[verdict.verdict]), ha="center", va="center",
                    fontsize=7, color="white")  # fmt: skip
    ax.set_xlim(0, len(STRATEGIES))
    ax.set_ylim(len(views), 0)
    ax.set_xticks([c + 0.48 for c in range(len(STRATEGIES))], labels=list(STRATEGIES), fontsize=8)
    ax.set_yticks(
        [r + 0.46 for r in range(len(views))],
        labels=[f"{short_model_name(view.model)}  {view.case.training_state_gib:.0f} GiB" for view in views],
        fontsize=7,
    )  # fmt: skip
    ax.tick_params(length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)


def short_model_name(model: str) -> str:
    """The name a row of the figure shows: ``megatron-7.5b`` -> ``7.5B``; ``gpt3-175b`` -> ``GPT-3 175B``.

    >>> short_model_name("megatron-7.5b"), short_model_name("gpt3-175b")
    ('7.5B', 'GPT-3 175B')
    """
    size = check_instance("model", model, str).rsplit("-", 1)[-1].upper()
    return f"GPT-3 {size}" if model.startswith("gpt3") else size


class MatrixWidget(LessonWidget[MatrixView]):
    """The selection matrix for constraints the learner sets: model, device memory, interconnect, batch, sequence.

    Taught in: lesson 5 (selection matrix).
    """

    figure_size_in = (6.0, 2.6)
    main_control = "model"

    def __init__(
        self,
        model: str = "megatron-7.5b",
        device_memory_gib: int = 24,
        topology: str = "unspecified",
        global_batch: int = 64,
        seq_len: int = 2048,
    ) -> None:
        topologies = [(Text(zh=tr(f"widgets.matrix.topology.{t}", lang="zh"),
                            en=tr(f"widgets.matrix.topology.{t}", lang="en")), t) for t in TOPOLOGIES]  # fmt: skip
        super().__init__(
            {
                "model": stepper("widgets.matrix.model", [(short_model_name(m), m) for m in MODEL_SHAPES], value=model),
                "device_memory_gib": dropdown(
                    "widgets.matrix.device_memory_gib", list(DEVICE_MEMORY_OPTIONS), value=device_memory_gib
                ),
                "topology": dropdown("widgets.matrix.topology", topologies, value=topology),
                "global_batch": dropdown("widgets.matrix.global_batch", list(BATCH_OPTIONS), value=global_batch),
                "seq_len": dropdown("widgets.matrix.seq_len", list(SEQ_LEN_OPTIONS), value=seq_len),
            }
        )
        # The interconnect menu's longest English option ("fast inside a node (NVLink), slow between nodes", 317 px)
        # was cut at the common width (298 px of room): this menu takes the output area's width (review 24).
        self.controls["topology"].layout.width = "auto"
        self.controls["topology"].layout.max_width = WIDGET_MAX_WIDTH

    def setup(self, fig: Figure) -> None:
        fig.set_layout_engine("none")  # fixed margins: the layout never changes
        self.ax = fig.add_axes((0.2, 0.2, 0.75, 0.68))
        y = list(range(len(STRATEGIES)))
        self.bars = list(self.ax.barh(y, [0.0] * len(y), color="#9e9e9e"))
        self.ax.set_yticks(y, labels=list(STRATEGIES), fontsize=8)
        self.ax.invert_yaxis()
        self.device_line = self.ax.axvline(0.0, color="#c62828", linestyle="--", linewidth=1.0)
        # above the frame (x in data, y in axes units): at y = -0.55 in data the frame's top edge ran through it
        self.device_text = self.ax.text(
            0.0, 1.02, "", color="#c62828", fontsize=7, ha="center", va="bottom",
            transform=blended_transform_factory(self.ax.transData, self.ax.transAxes), clip_on=False,
        )  # fmt: skip
        # on a white ground: a label that starts left of the device line no longer has the dashes through it
        self.verdicts = [
            self.ax.text(0.0, row, "", fontsize=7, va="center", bbox={"facecolor": "white", "edgecolor": "none",
                                                                      "pad": 0.5, "alpha": 0.85})
            for row in y
        ]  # fmt: skip
        self.ax.set_xlabel(label(Text(zh=tr("widgets.matrix.axis_memory", lang="zh"),
                                      en=tr("widgets.matrix.axis_memory", lang="en"))), fontsize=8)  # fmt: skip
        self.ax.set_xlim(1.0, 100.0)
        self.ax.set_xscale("log")
        self.ax.xaxis.set_major_formatter(ScalarFormatter())
        self.ax.tick_params(axis="x", labelsize=7)

    def compute(self, **values: Any) -> MatrixView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        model, device, topology, batch, seq_len = (
            values[k] for k in ("model", "device_memory_gib", "topology", "global_batch", "seq_len")
        )
        view = matrix_view(model, device, topology, batch, seq_len)
        # a control that changes no verdict must say so, or the learner sees a silent no-op
        shown = _shown_verdicts(view.evaluation)
        same_topology = next(
            (t for t in TOPOLOGIES if t != topology and _shown_verdicts(evaluate_paper_case(view.case, t)) == shown),
            None,
        )
        same_every_batch = all(
            _shown_verdicts(matrix_view(model, device, topology, other, seq_len).evaluation) == shown
            for other in BATCH_OPTIONS
            if other != batch
        )
        return replace(view, same_topology=same_topology, same_every_batch=same_every_batch)

    def draw(self, result: MatrixView) -> None:
        device = result.case.device_memory_gib
        widest = device
        for bar, text, verdict in zip(self.bars, self.verdicts, result.evaluation.verdicts, strict=True):
            memory = verdict.memory_per_rank_gib or 0.0
            bar.set_width(memory)
            bar.set_color(VERDICT_COLOURS[verdict.verdict])
            text.set_text(label(VERDICT_LABELS[verdict.verdict]) + (f"  {memory:.0f} GiB" if memory else ""))
            widest = max(widest, memory)
        for text, verdict in zip(self.verdicts, result.evaluation.verdicts, strict=True):
            text.set_x(max(verdict.memory_per_rank_gib or 0.0, 1.0) * 1.08)
        self.ax.set_xlim(1.0, widest * 6.0)  # log scale: a 300 GiB bar and a 20 GiB bar both readable
        self.device_line.set_xdata([device, device])
        self.device_text.set_position((device, 1.02))
        self.device_text.set_text(label(Text(zh=f"单卡 {device:g} GiB", en=f"device {device:g} GiB")))

    def describe(self, result: MatrixView) -> str:
        case = result.case
        lines = [
            html.escape(
                tr(
                    "widgets.matrix.case",
                    model=short_model_name(result.model),
                    state=case.training_state_gib,
                    act=case.activation_gib,
                    layer=case.largest_layer_gib,
                    device=f"{case.device_memory_gib:g}",
                    kind=CASE_KIND_LABELS[case_kind(case)].render(),
                )
            )
        ]
        # what pushes the case over the device: W + A + R for a layer, S + A + R when the state S itself fits
        kind = case_kind(case)
        parts = {"layer_exceeds_device": case.largest_layer_gib, "state_exceeds_device": case.training_state_gib}
        part = parts.get(kind)
        if part is not None and (kind == "layer_exceeds_device" or part <= case.device_memory_gib):
            # the three parts as printed add up to the printed total: the layer at 2 places as the case line shows
            # it, the state at 1, one more where those do not add up (750 of 890 states did not, with the layer at 2
            # places, the activations at 1 and the reserve as given: "3.38 + 1224.0 + 2 = 1229.4")
            terms = (part, case.activation_gib, case.runtime_reserve_gib)
            places = adding_up_places(terms, 2 if kind == "layer_exceeds_device" else 1, 3)
            printed = parts_adding_up(terms, places)
            lines[0] += html.escape(
                tr(
                    "widgets.matrix.layer_sum" if kind == "layer_exceeds_device" else "widgets.matrix.state_sum",
                    part=printed[0],
                    act=printed[1],
                    reserve=printed[2],
                    total=f"{sum(Decimal(x) for x in printed):.{places}f}",
                    device=f"{case.device_memory_gib:g}",
                )
            )
        for verdict in result.evaluation.verdicts:
            reason = verdict.reasons[0].message if verdict.reasons else ""
            shown = verdict.label + (tr("widgets.matrix.hard") if verdict.hard_excluded else "")
            lines.append(
                tr(
                    "widgets.matrix.cell",
                    strategy=verdict.strategy,
                    verdict=html.escape(shown),
                    reason=html.escape(reason),
                )
            )
        if result.same_topology is not None:
            lines.append(
                html.escape(
                    tr(
                        "widgets.matrix.topology_same",
                        chosen=tr(f"widgets.matrix.topology.{result.topology}"),
                        other=tr(f"widgets.matrix.topology.{result.same_topology}"),
                    )
                )
            )
        if result.same_every_batch:
            lines.append(
                html.escape(
                    tr(
                        "widgets.matrix.batch_same",
                        batch=case.global_batch,
                        low=min(BATCH_OPTIONS),
                        high=max(BATCH_OPTIONS),
                    )
                )
            )
        lines.append(html.escape(tr("widgets.matrix.note")))
        return "<br>".join(lines)


learner_functions(globals())
