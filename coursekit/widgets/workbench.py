"""Lesson 9 widget: the decision workbench — choose model, cluster and workload, see the funnel and the survivors.

Controls pick a preset model and cluster, the number of nodes, the workload
(mode, global batch, sequence length) and the assumptions of the estimate
(achievable fraction of peak, overlap), plus three what-if toggles: a slower
link between nodes, a longer context (the sequence length control) and "make
the model MoE" (:meth:`coursekit.planner.ModelSpec.as_moe`). Each change runs
:func:`coursekit.planner.plan` and shows

* a funnel chart: how many candidates each gate of
  :data:`coursekit.planner.PLAN_GATES` removed first, in gate order;
* the fastest accepted candidates as stacked bars — compute, exposed
  communication, pipeline bubble — labelled as estimates;
* a table of those candidates with their memory and step time, and the
  assumptions the estimate rests on.

>>> w = WorkbenchWidget()
>>> w.status, w.result.accepted_count > 0
('ok', True)
>>> with w.hold_updates():
...     w.controls["model"].value = "llama3-8b"
...     w.controls["cluster"].value = "pcie-24g-8"
...     w.controls["nodes"].value = 1
>>> w.result.cluster.world_size
8

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import html
from collections import OrderedDict
from typing import Any, ClassVar

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..i18n import Text, register, tr
from ..planner import PLAN_GATES, PlanCandidate, PlanResult, WorkloadSpec, what_if
from ..plotting import cache_drawing, label
from ..presets import CLUSTERS
from . import LessonWidget, checkbox, dropdown

__all__ = [
    "BATCH_OPTIONS",
    "LINK_SLOWDOWN_OPTIONS",
    "NODE_OPTIONS",
    "SEQ_OPTIONS",
    "WIDGET_MODELS",
    "WorkbenchWidget",
    "breakdown_chart",
    "funnel_chart",
    "what_if",
]

#: Models offered by the widget (a subset of :data:`coursekit.presets.MODELS`).
WIDGET_MODELS: tuple[str, ...] = ("gpt2-small", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b", "gpt3-175b")
#: Node counts offered.
NODE_OPTIONS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)
#: Global batch sizes offered (sequences).
BATCH_OPTIONS: tuple[int, ...] = (8, 32, 128, 512, 1024, 2048)
#: Sequence lengths offered (tokens): the "longer context" what-if.
SEQ_OPTIONS: tuple[int, ...] = (1024, 2048, 4096, 8192, 32768, 131072)
#: Divisors of the inter-node bandwidth: the "slower link between nodes" what-if.
LINK_SLOWDOWN_OPTIONS: tuple[int, ...] = (1, 2, 4, 8, 16)
#: Accepted candidates drawn and listed.
TOP_SHOWN: int = 5
#: Plans the widget keeps for control values seen recently (each holds its searched table, about 1.3 MB).
PLAN_CACHE_SIZE: int = 16
#: The controls the plan depends on: all of them.
_PLAN_INPUTS: tuple[str, ...] = (
    "model",
    "cluster",
    "nodes",
    "mode",
    "global_batch",
    "seq_len",
    "mfu",
    "overlap",
    "link_slowdown",
    "moe",
)

_SEGMENTS: tuple[tuple[str, Text, str], ...] = (
    ("compute", Text(zh="计算", en="compute"), "#4c72b0"),
    ("communication", Text(zh="暴露的通信", en="exposed communication"), "#dd8452"),
    ("bubble", Text(zh="流水线气泡", en="pipeline bubble"), "#8c8c8c"),
)

register(
    {
        "widgets.workbench.model": {"zh": "模型", "en": "model"},
        "widgets.workbench.cluster": {"zh": "节点类型", "en": "node type"},
        "widgets.workbench.nodes": {"zh": "节点数", "en": "nodes"},
        "widgets.workbench.mode": {"zh": "工作负载", "en": "workload"},
        "widgets.workbench.global_batch": {"zh": "global batch（序列）", "en": "global batch (sequences)"},
        "widgets.workbench.seq_len": {"zh": "序列长度（tokens）", "en": "sequence length (tokens)"},
        "widgets.workbench.mfu": {"zh": "可达峰值比例", "en": "achievable fraction of peak"},
        "widgets.workbench.overlap": {"zh": "通信重叠比例", "en": "communication overlap"},
        "widgets.workbench.link_slowdown": {"zh": "机间带宽 ÷", "en": "inter-node bandwidth ÷"},
        "widgets.workbench.moe": {
            "zh": "假如它是 MoE（8 专家，top-2）",
            "en": "what if it were MoE (8 experts, top-2)",
        },
        "widgets.workbench.summary": {
            "zh": "{model} 在 {world} 个 rank 上：搜索 {size} 个组合，{accepted} 个通过全部门槛。"
            "下表是估算最快的 {top} 个——估算，不是测量。",
            "en": "{model} on {world} ranks: {size} compositions searched, {accepted} pass every gate. "
            "The table shows the {top} fastest by estimate — an estimate, not a measurement.",
        },
        "widgets.workbench.none": {
            "zh": "没有组合通过全部门槛；漏斗显示每道门槛排除了多少。",
            "en": "No composition passes every gate; the funnel shows how many each gate removed.",
        },
        "widgets.workbench.col_degrees": {"zh": "组合", "en": "composition"},
        "widgets.workbench.col_rank": {
            "zh": "# （并列组：相差 < {uncertainty:.0%}）",
            "en": "# (tie group: within {uncertainty:.0%})",
        },
        "widgets.workbench.col_memory": {"zh": "每 rank 显存 (GiB)", "en": "memory per rank (GiB)"},
        "widgets.workbench.col_step": {"zh": "估算步时 (s)", "en": "estimated step (s)"},
        "widgets.workbench.col_parts": {"zh": "计算 / 通信 / 气泡 (s)", "en": "compute / comm. / bubble (s)"},
        "widgets.workbench.assumptions": {
            "zh": "假设：峰值 {peak:.0f} TFLOP/s，计算效率 {mfu}，通信重叠 {overlap}，"
            "机间 {inter:.1f} GB/s/GPU（单向）。",
            "en": "Assumptions: peak {peak:.0f} TFLOP/s, compute efficiency {mfu}, overlap {overlap}, inter-node "
            "{inter:.1f} GB/s per GPU (one way).",
        },
    }
)


def funnel_chart(ax: Axes, result: PlanResult) -> None:
    """Horizontal bars: candidates each gate removed first (red) and what remains after it (grey), in gate order."""
    ax.clear()
    _Funnel(ax).update(result)


def breakdown_chart(ax: Axes, candidates: list[PlanCandidate]) -> None:
    """Stacked horizontal bars of the estimated step: compute, exposed communication, bubble (seconds)."""
    ax.clear()
    chart = _Breakdown(ax, len(candidates))
    chart.update(candidates)


def _segments(cand: PlanCandidate) -> tuple[float, float, float]:
    """The compute, exposed communication and bubble seconds of an accepted candidate (order of ``_SEGMENTS``)."""
    t = cand.timeline
    assert t is not None
    return (t.compute_s, t.exposed_communication_s, t.bubble_s)


class _Funnel:
    """The funnel chart's artists on ``ax``: one bar pair per gate of :data:`PLAN_GATES`, updated in place."""

    def __init__(self, ax: Axes) -> None:
        self.ax = ax
        codes = [gate.code for gate in PLAN_GATES]
        y = list(range(len(codes)))
        zeros = [0.0] * len(codes)
        self.remaining = list(ax.barh(y, zeros, color="#c7c7c7", label=label(Text(zh="剩余", en="remaining"))))
        self.removed = list(
            ax.barh(y, zeros, color="#d62728", label=label(Text(zh="被这道门槛排除", en="removed by this gate")))
        )
        ax.set_yticks(y, labels=codes, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(label(Text(zh="候选数", en="candidates")), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(label(Text(zh="漏斗（按门槛顺序）", en="Funnel (gate order)")), fontsize=9)
        self.legend = ax.legend(fontsize=7, loc="lower right")

    def update(self, result: PlanResult) -> None:
        for step, remaining, removed in zip(result.funnel, self.remaining, self.removed, strict=True):
            remaining.set_width(step.remaining)
            removed.set_x(step.remaining)
            removed.set_width(step.removed)
        self.ax.set_xlim(0, max(result.space_size, 1))


class _Breakdown:
    """The breakdown chart's artists on ``ax``: ``rows`` stacked bars, updated in place (unused rows stay empty)."""

    def __init__(self, ax: Axes, rows: int) -> None:
        self.ax = ax
        y = list(range(rows))
        self.bars = [
            list(ax.barh(y, [0.0] * rows, color=colour, label=label(text))) for _kind, text, colour in _SEGMENTS
        ]
        ax.invert_yaxis()
        ax.set_xlabel(label(Text(zh="估算步时 (s)", en="estimated step (s)")), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_title(label(Text(zh="最快的候选（估算）", en="Fastest accepted (estimate)")), fontsize=9)
        handles = [Patch(facecolor=colour, label=label(text)) for _kind, text, colour in _SEGMENTS]
        self.legend = ax.legend(handles=handles, fontsize=7, loc="lower right")
        self.shown: int | None = None

    def update(self, candidates: list[PlanCandidate]) -> None:
        rows = len(self.bars[0])
        if len(candidates) > rows:
            raise ValueError(f"{len(candidates)} candidates for a chart of {rows} rows")
        totals = []
        for row in range(rows):
            left = 0.0
            widths = _segments(candidates[row]) if row < len(candidates) else (0.0, 0.0, 0.0)
            for bars, width in zip(self.bars, widths, strict=True):
                bars[row].set_x(left)
                bars[row].set_width(width)
                left += width
            totals.append(left)
        if len(candidates) != self.shown:  # tick labels only for the rows in use
            self.ax.set_yticks(range(len(candidates)), labels=[f"#{i + 1}" for i in range(len(candidates))], fontsize=7)
            self.shown = len(candidates)
        self.legend.set_visible(bool(candidates))
        self.ax.set_xlim(0.0, max(totals) * 1.05 if candidates and max(totals) > 0 else 1.0)


class WorkbenchWidget(LessonWidget[PlanResult]):
    """Model, cluster and workload controls plus what-ifs -> funnel chart, breakdown bars and the top table.

    Controls (keyword names of :meth:`compute`): ``model``, ``cluster``, ``nodes``, ``mode``,
    ``global_batch``, ``seq_len``, ``mfu``, ``overlap``, ``link_slowdown`` and ``moe``.
    Defaults: Llama-3 70B on 16 H100 nodes, global batch 1024, 8192 tokens.
    """

    figure_size_in: ClassVar[tuple[float, float]] = (7.0, 3.2)
    main_control: ClassVar[str | None] = "nodes"

    def __init__(self) -> None:
        super().__init__(
            {
                "model": dropdown("widgets.workbench.model", list(WIDGET_MODELS), value="llama3-70b"),
                "cluster": dropdown("widgets.workbench.cluster", sorted(CLUSTERS), value="h100-8"),
                "nodes": dropdown("widgets.workbench.nodes", list(NODE_OPTIONS), value=16),
                "mode": dropdown(
                    "widgets.workbench.mode",
                    [(Text(zh="训练", en="training"), "training"), (Text(zh="服务", en="serving"), "serving")],
                    value="training",
                ),
                "global_batch": dropdown("widgets.workbench.global_batch", list(BATCH_OPTIONS), value=1024),
                "seq_len": dropdown("widgets.workbench.seq_len", list(SEQ_OPTIONS), value=8192),
                "mfu": dropdown(
                    "widgets.workbench.mfu",
                    [(Text(zh="按矩阵乘形状估算", en="from matmul shapes"), "model"), 0.3, 0.4, 0.5, 0.6],
                    value="model",
                ),
                "overlap": dropdown(
                    "widgets.workbench.overlap",
                    [(Text(zh="按维度的默认值", en="per-dimension defaults"), "default"), 0.0, 0.5, 1.0],
                    value="default",
                ),
                "link_slowdown": dropdown("widgets.workbench.link_slowdown", list(LINK_SLOWDOWN_OPTIONS), value=1),
                "moe": checkbox("widgets.workbench.moe", value=False),
            }
        )

    def setup(self, fig: Figure) -> None:
        # Fixed margins instead of constrained layout: one draw per PNG instead of two.
        fig.set_layout_engine(None)
        fig.subplots_adjust(left=0.135, right=0.975, top=0.91, bottom=0.15, wspace=0.16)
        self.funnel_ax, self.breakdown_ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1.0]})
        # The artists are created once and updated in place (ax.clear() would rebuild every tick and legend).
        self._funnel = _Funnel(self.funnel_ax)
        self._breakdown = _Breakdown(self.breakdown_ax, TOP_SHOWN)
        # The legends and the gate axis never change: drawn from a bitmap after the first render.
        cache_drawing(self._funnel.legend)
        cache_drawing(self._breakdown.legend)
        cache_drawing(self.funnel_ax.yaxis, key=self.funnel_ax.yaxis.get_view_interval)
        self._plans: OrderedDict[tuple[Any, ...], PlanResult] = OrderedDict()
        self._top: tuple[PlanResult, list[PlanCandidate]] | None = None

    def compute(self, **values: Any) -> PlanResult:
        # Every control feeds the plan (mfu and overlap change the estimates and so the order); a learner
        # going back to earlier values gets the plan from the cache instead of a new search.
        key = tuple(values[name] for name in _PLAN_INPUTS)
        cached = self._plans.get(key)
        if cached is not None:
            self._plans.move_to_end(key)
            return cached
        workload = WorkloadSpec(
            global_batch=values["global_batch"],
            seq_len=values["seq_len"],
            mode=values["mode"],
            achievable_flops_fraction=None if values["mfu"] == "model" else values["mfu"],
            overlap_fraction=None if values["overlap"] == "default" else values["overlap"],
        )
        result = what_if(
            values["model"],
            values["cluster"],
            values["nodes"],
            workload,
            link_slowdown=values["link_slowdown"],
            moe=values["moe"],
        )
        self._plans[key] = result
        while len(self._plans) > PLAN_CACHE_SIZE:
            self._plans.popitem(last=False)
        return result

    def top(self, result: PlanResult) -> list[PlanCandidate]:
        """The :data:`TOP_SHOWN` fastest accepted candidates of ``result`` (computed once per result)."""
        if self._top is None or self._top[0] is not result:
            self._top = (result, result.accepted(TOP_SHOWN))
        return self._top[1]

    def draw(self, result: PlanResult) -> None:
        self._funnel.update(result)
        self._breakdown.update(self.top(result))

    def describe(self, result: PlanResult) -> str:
        best = self.top(result)
        cluster = result.cluster
        head = tr(
            "widgets.workbench.summary",
            model=result.model.name,
            world=cluster.world_size,
            size=result.space_size,
            accepted=result.accepted_count,
            top=len(best),
        )
        assumptions = tr(
            "widgets.workbench.assumptions",
            peak=cluster.peak_flops / 1e12,
            mfu=tr("planner.efficiency_model")
            if result.workload.achievable_flops_fraction is None
            else f"{result.workload.achievable_flops_fraction:.0%}",
            overlap=", ".join(f"{dim} {share:.0%}" for dim, share in result.assumptions.overlap),
            inter=cluster.inter_node_bandwidth_bytes_per_s / 1e9,
        )
        if not best:
            return f"<b>{html.escape(head)}</b><br>{html.escape(tr('widgets.workbench.none'))}"
        cell = "padding:1px 6px;border-bottom:1px solid #ddd;text-align:left"
        header = "".join(
            f'<th style="{cell}">{html.escape(tr(key))}</th>'
            for key in (
                "widgets.workbench.col_degrees",
                "widgets.workbench.col_memory",
                "widgets.workbench.col_step",
                "widgets.workbench.col_parts",
            )
        )
        rank_head = html.escape(tr("widgets.workbench.col_rank", uncertainty=result.assumptions.uncertainty))
        rows = [f"<tr><th style='{cell}'>{rank_head}</th>{header}</tr>"]
        groups = result.tie_groups()
        group_of = {index: g for g, members in enumerate(groups[: len(best)], 1) for index in members}
        for rank, (index, cand) in enumerate(zip(result.accepted_indices(), best, strict=False), 1):
            t, mem = cand.timeline, cand.memory
            assert t is not None and mem is not None
            parts = f"{t.compute_s:.3g} / {t.exposed_communication_s:.3g} / {t.bubble_s:.3g}"
            rows.append(
                f'<tr><td style="{cell}">{rank} ({group_of.get(index, "")})</td>'
                f'<td style="{cell}"><code>{html.escape(cand.label())}</code></td>'
                f'<td style="{cell}">{mem.total_gib:.1f} / {mem.device_gib:g}</td>'
                f'<td style="{cell}">{t.step_s:.3g}</td><td style="{cell}">{parts}</td></tr>'
            )
        return (
            f"<b>{html.escape(head)}</b>"
            f'<table style="border-collapse:collapse;font-size:90%;margin:4px 0">{"".join(rows)}</table>'
            f"<i>{html.escape(assumptions)}</i>"
        )


#: Gate codes in funnel order (for lessons that label the chart).
GATE_ORDER: tuple[str, ...] = tuple(gate.code for gate in PLAN_GATES)
