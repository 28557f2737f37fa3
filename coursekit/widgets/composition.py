"""Lesson 4 widget: parallel degrees and a rank order -> ranks on nodes, coloured by group.

The learner picks the degrees TP, CP, EP, DP, PP, the GPUs per node, the rank
order (fastest-varying dimension first, Megatron-Core style) and the
dimension to colour by. The widget calls

* :func:`coursekit.composition.topology_report` for the rank groups, their
  placement on nodes (rank ``r`` on node ``r // gpus_per_node``) and the TP
  groups that leave a node;
* :func:`coursekit.composition.validate_megatron_composition` for the engine's
  rank count (EP folded into DP·CP) and
  :func:`coursekit.composition.validate_parallel_composition` for the naive
  count (every degree multiplies), with the ranks the engine occupies as the
  available ranks, so the two counts can be compared.

The figure draws each rank as a square, one row per node, coloured by its
group in the chosen dimension; groups that span more than one node get a red
hatched outline. At most :data:`MAX_DRAWN_RANKS` ranks are drawn; above that
the message says so and the counts and checks still hold.

>>> w = CompositionWidget()
>>> w.result.world_size, w.result.naive.required_ranks, w.result.topology.ok
(16, 16, True)
>>> w.controls["order"].value = "PP-DP-CP-EP-TP"
>>> w.result.topology.ok, w.result.topology.reasons[0].code
(False, 'interconnect')

Taught in: lesson 4 (Q4 composition and risk).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from matplotlib import colormaps
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.transforms import Affine2D

from .._validate import learner_functions
from ..composition import (
    DEFAULT_ORDER,
    ENGINE_DIMENSIONS,
    CompositionReport,
    MegatronLayout,
    TopologyReport,
    topology_report,
    validate_megatron_composition,
    validate_parallel_composition,
)
from ..gates import MODEL_KINDS
from ..i18n import Text, register, tr
from ..plotting import label
from . import LessonWidget, dropdown, stepper

__all__ = [
    "DEGREE_OPTIONS",
    "GPUS_PER_NODE_OPTIONS",
    "MAX_DRAWN_RANKS",
    "ORDER_OPTIONS",
    "CompositionView",
    "CompositionWidget",
]

#: Degrees offered for each dimension (small powers of 2).
DEGREE_OPTIONS: tuple[int, ...] = (1, 2, 4, 8)

#: GPUs per node offered.
GPUS_PER_NODE_OPTIONS: tuple[int, ...] = (4, 8)

#: Width of the rank-order menu: wider than the other controls, so its longest option (with its note) shows whole.
ORDER_CONTROL_WIDTH: str = "46em"
#: Width of a control in one of the two columns (CP | EP, DP | PP, GPUs per node | colour): two fit side by side in
#: the 732 px output area of a 1280 px laptop screen at 110 % with the file browser open.
PAIR_CONTROL_WIDTH: str = "22em"
#: The controls shown side by side, in pairs; a pair goes one under the other where the two do not fit.
CONTROL_PAIRS: tuple[tuple[str, str], ...] = (("cp", "ep"), ("dp", "pp"), ("gpus_per_node", "colour_by"))

#: Rank orders offered, fastest-varying dimension first. The first is Megatron-Core's default;
#: the second is its ``--use-tp-pp-dp-mapping`` order; the last two move TP away from consecutive ranks.
ORDER_OPTIONS: tuple[tuple[str, Text], ...] = (
    (DEFAULT_ORDER, Text(zh=f"{DEFAULT_ORDER}（Megatron-Core 默认）", en=f"{DEFAULT_ORDER} (Megatron-Core default)")),
    ("TP-CP-EP-PP-DP", Text(zh="TP-CP-EP-PP-DP（DP 在最外层）", en="TP-CP-EP-PP-DP (DP outermost)")),
    ("DP-TP-CP-EP-PP", Text(zh="DP-TP-CP-EP-PP（DP 变化最快）", en="DP-TP-CP-EP-PP (DP varies fastest)")),
    ("PP-DP-CP-EP-TP", Text(zh="PP-DP-CP-EP-TP（TP 变化最慢）", en="PP-DP-CP-EP-TP (TP varies slowest)")),
)

#: Ranks drawn at most (the checks run for any size); keeps the figure light.
MAX_DRAWN_RANKS: int = 64

#: Node rows labelled at most (every k-th node above that).
MAX_NODE_LABELS: int = 8

#: Typographic points per inch (matplotlib's unit of font sizes).
POINTS_PER_INCH: float = 72.0

_CROSS_EDGE = "#d50000"
_COLOURS = colormaps["tab20"]
#: tab20 pairs a dark and a light shade of each hue; take the dark ones first so neighbouring groups differ.
_COLOUR_ORDER: tuple[int, ...] = (*range(0, 20, 2), *range(1, 20, 2))


def _group_colour(index: int) -> tuple[float, float, float, float]:
    rgba = _COLOURS(_COLOUR_ORDER[index % len(_COLOUR_ORDER)])
    return (float(rgba[0]), float(rgba[1]), float(rgba[2]), float(rgba[3]))


def _box(x: float, y: float, width: float, height: float) -> list[tuple[float, float]]:
    return [(x, y), (x + width, y), (x + width, y + height), (x, y + height)]


def _number_path(number: int) -> Path:
    """The outline of ``str(number)`` in 7-point DejaVu Sans, centred on (0, 0), in points."""
    path = TextPath((0, 0), str(number), prop=FontProperties(family="DejaVu Sans", size=7))
    extents = path.get_extents()
    return path.transformed(Affine2D().translate(-(extents.x0 + extents.x1) / 2, -(extents.y0 + extents.y1) / 2))


_NUMBER_PATHS: tuple[Path, ...] = tuple(_number_path(rank) for rank in range(MAX_DRAWN_RANKS))

register(
    {
        "widgets.composition.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"},
        "widgets.composition.cp": {"zh": "上下文并行度 CP", "en": "context-parallel degree CP"},
        "widgets.composition.ep": {"zh": "专家并行度 EP", "en": "expert-parallel degree EP"},
        "widgets.composition.dp": {"zh": "数据并行度 DP", "en": "data-parallel degree DP"},
        "widgets.composition.pp": {"zh": "流水线并行度 PP", "en": "pipeline-parallel degree PP"},
        "widgets.composition.gpus_per_node": {"zh": "每节点 GPU 数", "en": "GPUs per node"},
        "widgets.composition.order": {"zh": "rank 排列顺序（变化最快的在前）", "en": "rank order (fastest first)"},
        "widgets.composition.colour_by": {"zh": "按哪个维度的组着色", "en": "colour by the groups of"},
        "widgets.composition.model_kind": {"zh": "模型结构", "en": "model structure"},
        "widgets.composition.counts": {
            "zh": "朴素规则（所有并行度相乘，EP 也算）：{naive} 个 rank；Megatron-Core 规则（EP 复用 DP·CP 的 rank）："
            "{engine} 个 rank = {nodes} 个节点 × 每节点 {gpus_per_node} 张 GPU。",
            "en": "Naive rule (every degree multiplies, EP included): {naive:@rank}; Megatron-Core rule (EP reuses "
            "the DP·CP ranks): {engine:@rank} = {nodes} × {gpus_per_node:@GPU} (nodes × GPUs per node).",
        },
        "widgets.composition.counts_differ": {
            "zh": "两种计数相差 {diff} 个 rank：朴素规则把 EP 当作独立的一维；引擎让专家层在同一批 rank 上重新分组。",
            "en": "The counts differ by {diff:@rank}: the naive rule treats EP as a dimension of its own; the engine "
            "regroups the same ranks for the expert layers.",
        },
        "widgets.composition.naive_issues": {"zh": "朴素检查的问题：{issues}", "en": "Naive check issues: {issues}"},
        "widgets.composition.engine_issues": {"zh": "引擎检查的问题：{issues}", "en": "Engine check issues: {issues}"},
        "widgets.composition.topology": {"zh": "拓扑映射：{issues}", "en": "Topology mapping: {issues}"},
        "widgets.composition.none": {"zh": "无", "en": "none"},
        "widgets.composition.inputs": {
            "zh": "rank 排列顺序 {order}（变化最快的在前）；模型结构：{kind}。",
            "en": "Rank order {order} (fastest first); model structure: {kind}.",
        },
        "widgets.composition.kind_dense": {"zh": "稠密 (dense)", "en": "dense"},
        "widgets.composition.kind_moe": {"zh": "混合专家 (MoE)", "en": "MoE"},
        "widgets.composition.separator": {"zh": "；", "en": "; "},
        "widgets.composition.topology_ok": {
            "zh": "TP 组都在节点之内：每层的集合通信留在高速链路上。",
            "en": "Every TP group stays inside a node: per-layer collectives stay on the fast links.",
        },
        "widgets.composition.colour_crossing": {
            "zh": "{dim}：{total} 个组中有 {count} 个跨节点（红色斜线框）。",
            "en": "{dim}: {count} of {total:@group} span more than one node (red hatched outline).",
        },
        "widgets.composition.no_expert_groups": {
            "zh": "EP：引擎排不出专家层（见上面引擎检查的 [ep_fold]），没有 EP 组可以着色；"
            "图中的 rank 是稠密层的排列。",
            "en": "EP: the engine cannot lay out the expert layers (see [ep_fold] in the engine check above), so there "
            "are no EP groups to colour; the figure shows the dense layers' ranks.",
        },
        "widgets.composition.too_many": {
            "zh": "{world} 个 rank 超过绘图上限 {limit}，图中不画 rank；上面的计数和检查仍然有效。",
            "en": "{world:@rank} exceed the drawing limit of {limit}: the figure shows no ranks; the counts and "
            "checks above still hold.",
        },
        "widgets.composition.title": {
            "zh": "{world} 个 rank，按 {dim} 组着色；红色斜线框 = 跨节点的组",
            "en": "{world:@rank} coloured by {dim} group; red hatched outline = group spans nodes",
        },
        "widgets.composition.node": {"zh": "节点 {node}", "en": "node {node}"},
        "widgets.composition.too_many_short": {
            "zh": "{world} 个 rank：超过绘图上限 {limit}",
            "en": "{world:@rank}: above the drawing limit of {limit}",
        },
    }
)


def _figure_text(key: str, **params: Any) -> str:
    """Catalog entry ``key`` in the figure's language (English when no CJK font is installed)."""
    return label(Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params)))


@dataclass(frozen=True)
class CompositionView:
    """Everything the composition widget shows for one set of controls.

    ``naive`` counts the plan by the naive rule, every degree multiplied (against
    the ranks the engine occupies); ``engine`` is Megatron-Core's count and checks; ``topology`` holds
    the rank groups, their node mapping and the TP-crossing reasons;
    ``colour_by`` names the dimension whose groups colour the figure.
    """

    degrees: dict[str, int]
    order: str
    gpus_per_node: int
    colour_by: str
    model_kind: str
    naive: CompositionReport
    engine: MegatronLayout
    topology: TopologyReport
    #: False when the engine cannot fold EP into DP·CP (issue ``ep_fold``): ``topology`` is then the dense layers'
    #: layout (TP, CP, DP, PP groups), which the engine can lay out, and there are no EP groups.
    experts_fold: bool = True

    @property
    def seed(self) -> CompositionReport:
        """Former name of :attr:`naive`, kept importable."""
        return self.naive

    @property
    def world_size(self) -> int:
        """Ranks the plan occupies in the engine: TP·CP·DP·PP."""
        return self.engine.world_size

    @property
    def drawn(self) -> bool:
        """Whether the figure draws the ranks (at most :data:`MAX_DRAWN_RANKS`)."""
        return self.world_size <= MAX_DRAWN_RANKS

    @property
    def group_of_rank(self) -> tuple[int, ...]:
        """For each rank, the index of its group in the ``colour_by`` dimension (one colour for all when EP is
        coloured but does not fold: there are no EP groups)."""
        owner = [0] * self.world_size
        if self.colour_by == "EP" and not self.experts_fold:
            return tuple(owner)
        for index, group in enumerate(self.topology.groups[self.colour_by]):
            for rank in group:
                owner[rank] = index
        return tuple(owner)

    @property
    def crossing_ranks(self) -> frozenset[int]:
        """Ranks whose ``colour_by`` group spans more than one node."""
        return frozenset(rank for group in self.topology.mapping.crossing[self.colour_by] for rank in group)


class CompositionWidget(LessonWidget[CompositionView]):
    """Degrees, GPUs per node, rank order, colouring and model kind -> ranks on nodes plus both rank counts.

    Controls (keyword names of :meth:`compute`): ``tp``, ``cp``, ``ep``, ``dp``, ``pp``
    (dropdowns of :data:`DEGREE_OPTIONS`), ``gpus_per_node``, ``order`` (:data:`ORDER_OPTIONS`),
    ``colour_by`` (a dimension of :data:`~coursekit.composition.ENGINE_DIMENSIONS`) and
    ``model_kind``. The defaults are Megatron-Core's reference layout: 16 GPUs, TP = 2,
    PP = 4, DP = 2, on nodes of 8 GPUs.
    """

    figure_size_in: ClassVar[tuple[float, float]] = (6.4, 2.75)
    main_control: ClassVar[str | None] = "tp"
    grid_controls: ClassVar[bool] = True
    wide_controls: ClassVar[tuple[str, ...]] = ("order",)

    def __init__(self) -> None:
        def degrees(key: str, value: int) -> Any:
            return dropdown(f"widgets.composition.{key}", list(DEGREE_OPTIONS), value=value)

        kinds = [(Text(zh="稠密 (dense)", en="dense"), "dense"), (Text(zh="混合专家 (MoE)", en="MoE"), "moe")]
        super().__init__(
            {
                # the main control steps from the keyboard: a slider over the same choices
                "tp": stepper("widgets.composition.tp", list(DEGREE_OPTIONS), value=2),
                "cp": degrees("cp", 1),
                "ep": degrees("ep", 1),
                "dp": degrees("dp", 2),
                "pp": degrees("pp", 4),
                "gpus_per_node": dropdown("widgets.composition.gpus_per_node", list(GPUS_PER_NODE_OPTIONS), value=8),
                "order": dropdown(
                    "widgets.composition.order", [(text, order) for order, text in ORDER_OPTIONS], value=DEFAULT_ORDER
                ),
                "colour_by": dropdown("widgets.composition.colour_by", list(ENGINE_DIMENSIONS), value="TP"),
                "model_kind": dropdown("widgets.composition.model_kind", [k for k in kinds if k[1] in MODEL_KINDS]),
            }
        )
        # The rank order's options carry a note ("(Megatron-Core default)"): in a column the note was cut off, so
        # the menu spans the grid (wide_controls). Nine controls in one column were 286 px tall, in pairs six rows
        # (186 px): projected at 1024 x 768 and 125 % the figure ended 36 px below the visible 493 px (review 24).

    # -- LessonWidget ---------------------------------------------------------------------

    def setup(self, fig: Figure) -> None:
        # Fixed margins instead of constrained layout: one draw per PNG instead of two.
        fig.set_layout_engine(None)
        fig.subplots_adjust(left=0.11, right=0.99, top=0.9, bottom=0.02)
        self.ax = fig.add_subplot()
        self.ax.set_xticks([])
        self.ax.tick_params(length=0, labelsize=8)
        for spine in self.ax.spines.values():
            spine.set_visible(False)
        # A few collections, created once and refilled on every update (cheaper than 64 patches and texts).
        self.node_frames = PolyCollection([], facecolors="#f2f2f2", edgecolors="#9e9e9e", linewidths=0.8, zorder=1)
        self.squares = PolyCollection([], edgecolors="white", linewidths=0.5, zorder=2)
        self.crossing_frames = PolyCollection(
            [], facecolors="none", edgecolors=_CROSS_EDGE, linewidths=2.0, hatch="//", zorder=3
        )
        # Rank numbers as glyph outlines (one path per number) in one collection: texts are slow to draw.
        self.rank_numbers = PathCollection(
            list(_NUMBER_PATHS),
            offsets=np.zeros((MAX_DRAWN_RANKS, 2)),
            offset_transform=self.ax.transData,
            facecolors="black",
            edgecolors="none",
            zorder=4,
        )
        self.rank_numbers.set_transform(Affine2D().scale(fig.dpi / POINTS_PER_INCH))
        for collection in (self.node_frames, self.squares, self.crossing_frames, self.rank_numbers):
            self.ax.add_collection(collection, autolim=False)
        self.notice = self.ax.text(
            0.5, 0.5, "", ha="center", va="center", fontsize=11, color="#b35900", transform=self.ax.transAxes
        )
        self.title = self.ax.set_title("", fontsize=9)
        self._node_labels: list[str] | None = None  # the y tick labels set last

    def compute(self, **values: Any) -> CompositionView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        degrees = {dim: values[dim.lower()] for dim in ENGINE_DIMENSIONS}
        engine = validate_megatron_composition(
            tp=degrees["TP"],
            pp=degrees["PP"],
            dp=degrees["DP"],
            cp=degrees["CP"],
            ep=degrees["EP"],
            model_kind=values["model_kind"],
        )
        # EP that does not fold into DP·CP is the engine's verdict ("fail", issue ep_fold), not an input error: the
        # dense layers' groups are still laid out and both counts shown (lesson 4's try-this step 3; review 24)
        folds = not any(issue.code == "ep_fold" for issue in engine.issues)
        dense = degrees if folds else {**degrees, "EP": 1}
        topology = topology_report(dense, values["gpus_per_node"], values["order"])
        naive = validate_parallel_composition(degrees, engine.world_size, values["model_kind"])
        return CompositionView(
            degrees=degrees,
            order=values["order"],
            gpus_per_node=values["gpus_per_node"],
            colour_by=values["colour_by"],
            model_kind=values["model_kind"],
            naive=naive,
            engine=engine,
            topology=topology,
            experts_fold=folds,
        )

    def draw(self, result: CompositionView) -> None:
        gpn = result.gpus_per_node
        world_all = result.world_size
        nodes = result.topology.mapping.num_nodes if result.drawn else 0
        world = world_all if result.drawn else 0
        owner = result.group_of_rank if result.drawn else ()
        crossing = result.crossing_ranks if result.drawn else frozenset()
        self.node_frames.set_verts([_box(-0.06, node + 0.06, gpn + 0.12, 0.88) for node in range(nodes)])
        cells = [divmod(rank, gpn) for rank in range(world)]  # (node, column)
        self.squares.set_verts([_box(column + 0.08, node + 0.14, 0.84, 0.72) for node, column in cells])
        self.squares.set_facecolor([_group_colour(owner[rank]) for rank in range(world)])
        self.crossing_frames.set_verts(
            [
                _box(column + 0.08, node + 0.14, 0.84, 0.72)
                for rank, (node, column) in enumerate(cells)
                if rank in crossing
            ]
        )
        self.rank_numbers.set_paths(list(_NUMBER_PATHS[:world]))
        self.rank_numbers.set_offsets(
            np.array([(column + 0.5, node + 0.5) for node, column in cells], dtype=float).reshape(-1, 2)
        )
        self.ax.set_xlim(-0.1, gpn + 0.1)
        self.ax.set_ylim(max(nodes, 1), 0)
        step = max(1, -(-nodes // MAX_NODE_LABELS))
        node_labels = [_figure_text("widgets.composition.node", node=node) for node in range(0, nodes, step)]
        if node_labels != self._node_labels:  # new ticks only for other nodes (or another language)
            self.ax.set_yticks([node + 0.5 for node in range(0, nodes, step)], labels=node_labels)
            self._node_labels = node_labels
        self.notice.set_visible(not result.drawn)
        self.notice.set_text(
            ""
            if result.drawn
            else _figure_text("widgets.composition.too_many_short", world=world_all, limit=MAX_DRAWN_RANKS)
        )
        self.title.set_text(_figure_text("widgets.composition.title", world=world_all, dim=result.colour_by))

    def describe(self, result: CompositionView) -> str:
        counts = tr(
            "widgets.composition.counts",
            naive=result.naive.required_ranks,
            engine=result.world_size,
            nodes=result.topology.mapping.num_nodes,
            gpus_per_node=result.gpus_per_node,
        )
        parts = [f"<b>{html.escape(counts)}</b>"]
        diff = result.naive.required_ranks - result.world_size
        if diff:
            parts.append(html.escape(tr("widgets.composition.counts_differ", diff=diff)))

        separator = tr("widgets.composition.separator")

        def issues(key: str, reasons: tuple[Any, ...]) -> str:
            body = separator.join(f"[{r.code}] {r.message}" for r in reasons)
            return html.escape(tr(key, issues=body or tr("widgets.composition.none")))

        parts.append(issues("widgets.composition.naive_issues", result.naive.issues))
        parts.append(issues("widgets.composition.engine_issues", result.engine.issues))
        topology = (
            separator.join(f"[{r.code}] {r.message}" for r in result.topology.reasons)
            if result.topology.reasons
            else tr("widgets.composition.topology_ok")
        )
        crossing = (
            tr("widgets.composition.no_expert_groups")
            if result.colour_by == "EP" and not result.experts_fold
            else tr(
                "widgets.composition.colour_crossing",
                dim=result.colour_by,
                count=len(result.topology.mapping.crossing[result.colour_by]),
                total=len(result.topology.groups[result.colour_by]),
            )
        )
        parts.append(html.escape(tr("widgets.composition.topology", issues=topology)))
        parts.append(html.escape(crossing))
        # the order and the model structure, stated: an order that leaves the coloured groups as they were (TP first
        # either way) or an MoE model with EP = 1 changes nothing else, and the change would not show at all
        kind = tr(f"widgets.composition.kind_{result.model_kind}")
        parts.append(html.escape(tr("widgets.composition.inputs", order=result.order, kind=kind)))
        if not result.drawn:
            parts.append(
                html.escape(tr("widgets.composition.too_many", world=result.world_size, limit=MAX_DRAWN_RANKS))
            )
        return "<br>".join(parts)

    def verdict_level(self, result: CompositionView) -> str:
        """Fail when the engine's checks or the node mapping find a problem (e.g. a TP group crossing nodes);
        a warning when only the naive count objects; else pass."""
        if result.engine.issues or result.topology.reasons:
            return "fail"
        return "warning" if result.naive.issues else "pass"


learner_functions(globals())
