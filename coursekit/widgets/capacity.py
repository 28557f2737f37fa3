"""Lesson 1 widget: one rank's memory, split by component, against the device line.

Controls: model shape, precision recipe, ZeRO stage, DP / TP / PP degrees,
sequence length, micro-batch, activation recomputation, runtime reserve and
device memory. The figure shows one stacked bar per ZeRO stage (the chosen one
solid, the others faded) so the smallest stage that fits is visible at once;
the verdict is :meth:`coursekit.capacity.ResourceLedger.explain` of the chosen
configuration plus its breakdown.

How a rank's memory is counted (all by coursekit):

* model states: :func:`coursekit.capacity.training_state_memory` of the shape's
  parameter count (:func:`coursekit.shapes.transformer_params`) — even TP
  split, ZeRO over ``dp``; with PP, the share of the first stage, the heaviest
  (its layers by the planner's stage layout :func:`coursekit.planner.stage_layers`, which is
  ``ceil(layers / pp)`` without edge layers; parameters spread with the layers);
* activations: :func:`coursekit.capacity.activation_memory_breakdown` for the first stage's
  layers, times the micro-batches it keeps in flight by the planner's rule, min(pp, micro-batches)
  for 1F1B, with the micro-batches per step assumed to be at least ``pp`` (so pp in flight);
* the runtime reserve as given; :func:`coursekit.capacity.build_resource_ledger`
  sums them and compares with the device.

>>> from coursekit.widgets.capacity import CapacityWidget
>>> w = CapacityWidget()
>>> w.status, w.result.ledger.fits_one_device
('ok', False)
>>> w.controls["zero_stage"].value = 1
>>> w.result.ledger.fits_one_device, w.result.smallest_fitting_stage
(True, 1)
>>> w.verdict
'pass'

PP must not exceed the layers (an error), and a PP that does not divide the
layers is a warning, as the PP rule of :func:`coursekit.gates.check_pp_degree`
says: the ledger is then the heaviest stage's.

>>> w.controls["pp"].value = 8  # 36 layers: stages of 4 and 5 layers
>>> w.status, w.verdict, w.result.stage_layers
('ok', 'warning', 5)

Taught in: lesson 1 (Q1 capacity).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, ClassVar

from matplotlib.figure import Figure

from .._validate import check_choice, check_int, check_number, learner_functions
from ..capacity import (
    LEDGER_DECIMALS,
    PRECISION_RECIPES,
    ActivationMemory,
    ResourceLedger,
    TrainingStateMemory,
    activation_memory_breakdown,
    build_resource_ledger,
    training_state_memory,
)
from ..gates import WARNING_CODES, check_pp_degree
from ..i18n import Reason, Text, register, tr
from ..pipeline import _microbatches_in_flight
from ..plotting import cache_drawing, label
from ..shapes import MODEL_SHAPES, ModelShape, model_shape
from ..specs import DEFAULT_RUNTIME_RESERVE_GIB, stage_layer_counts
from ..units import parts_adding_up
from . import LessonWidget, dropdown, slider, stepper

__all__ = [
    "DEFAULT_RUNTIME_RESERVE_GIB",
    "DEVICE_MEMORY_CHOICES_GIB",
    "ZERO_STAGES",
    "CapacityView",
    "CapacityWidget",
]

register(
    {
        "widgets.capacity.model": {"zh": "模型形状", "en": "model shape"},
        "widgets.capacity.recipe": {"zh": "精度方案", "en": "precision recipe"},
        "widgets.capacity.zero_stage": {"zh": "ZeRO 阶段", "en": "ZeRO stage"},
        "widgets.capacity.dp": {"zh": "数据并行度 DP", "en": "data-parallel degree DP"},
        "widgets.capacity.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"},
        "widgets.capacity.pp": {"zh": "流水线并行度 PP", "en": "pipeline-parallel degree PP"},
        "widgets.capacity.seq_len": {"zh": "序列长度 s", "en": "sequence length s"},
        "widgets.capacity.micro_batch": {"zh": "微批次大小 b", "en": "micro-batch size b"},
        "widgets.capacity.recompute": {"zh": "激活重计算", "en": "activation recomputation"},
        "widgets.capacity.reserve_gib": {"zh": "运行时预留 (GiB)", "en": "runtime reserve (GiB)"},
        "widgets.capacity.device_gib": {"zh": "设备显存", "en": "device memory"},
        "widgets.capacity.breakdown": {
            "zh": "每个 rank：参数 {params_gib} + 梯度 {grads_gib} + 优化器状态 {optimizer_gib} "
            "+ 激活 {activation_gib}（{in_flight} 个微批次在途）+ 预留 {reserve_gib} GiB。"
            "模型共 {billions:.2f}B 参数，每个 rank 的模型并行分片 {shard_billions:.2f}B。",
            "en": "Per rank: parameters {params_gib} + gradients {grads_gib} + optimizer state "
            "{optimizer_gib} + activations {activation_gib} (micro-batches in flight: {in_flight}) "
            "+ reserve {reserve_gib} GiB. The model has {billions:.2f}B parameters; each rank's "
            "model-parallel shard holds {shard_billions:.2f}B.",
        },
        "widgets.capacity.view_type": {
            "zh": "result 必须是 CapacityView（CapacityWidget.compute 的结果），而不是 {type}。",
            "en": "result must be a CapacityView (what CapacityWidget.compute returns), not {type}.",
        },
        "widgets.capacity.smallest_stage": {
            "zh": "在这个配置下（DP = {dp}），能放下的最小 ZeRO 阶段是 {stage}。",
            "en": "With this configuration (DP = {dp}) the smallest ZeRO stage that fits is {stage}.",
        },
        "widgets.capacity.dp_stage0": {
            "zh": "ZeRO-0 不切分模型状态：每个 rank 都存一整份，所以 DP 不改变 ZeRO-0 那一条（实色）；"
            "淡色的 ZeRO-1、2、3 各条把模型状态切分到 DP = {dp} 个 rank 上，会随 DP 变。",
            "en": "ZeRO-0 does not split the model states: every rank keeps a whole copy, so DP does not change the "
            "ZeRO-0 bar (solid); the faded ZeRO-1, 2 and 3 bars split the model states over {dp:@rank} (DP) and "
            "change with DP.",
        },
        "widgets.capacity.no_stage": {
            "zh": "即使 ZeRO-3（切分到 DP = {dp} 个 rank）也放不下：试试激活重计算、更小的微批次，"
            "或用 TP / PP 切分模型。",
            "en": "Not even ZeRO-3 fits (split over {dp:@rank}, the DP degree): try activation recomputation, a "
            "smaller micro-batch, or split the model with TP / PP.",
        },
    }
)

#: ZeRO stages shown as rows of the figure.
ZERO_STAGES: tuple[int, ...] = (0, 1, 2, 3)
#: Device memory sizes offered, GiB; 24 is the device of lesson 1's first ledger.
DEVICE_MEMORY_CHOICES_GIB: tuple[float, ...] = (16.0, 24.0, 32.0, 40.0, 48.0, 80.0, 96.0, 128.0)
#: Width of a control in one of the two columns, and of a menu with long labels, which spans both.
_COLUMN_WIDTH: str = "27em"
#: Room of the figure above the bars (the device line's label) and below them (tick labels, axis label, legend), in
#: inches: what the 2.75 in figure before review 24 gave them (9 % and 27 % of its height, less 0.1 in of blank).
_TITLE_ROOM_IN: float = 0.24
_LEGEND_ROOM_IN: float = 0.64
_WIDE_WIDTH: str = "60em"
_WIDE_CONTROLS: tuple[str, ...] = ("model", "recipe")
#: Parallel degrees offered (some split some shapes unevenly, e.g. PP = 8 with 36 layers: a warning).
_DP_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128)
_TP_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16)
_PP_CHOICES: tuple[int, ...] = (1, 2, 3, 4, 6, 8)
_SEQ_CHOICES: tuple[int, ...] = (1024, 2048, 4096, 8192, 16384, 32768)

_RECOMPUTE_LABELS: dict[str, Text] = {
    "none": Text(zh="不重计算 (none)", en="none"),
    "selective": Text(zh="选择性重计算 (selective)", en="selective"),
    "full": Text(zh="完全重计算 (full)", en="full"),
}
#: Short enough for the slider's readout (109 CSS pixels in a 27em column, ipywidgets 8): longer labels were cut off
#: ("3 (+ parameters shard", "3（再切分参数，类 FSDF"; at 27em, "3 (+ parameters)" by 4 px).
_STAGE_LABELS: dict[int, Text] = {
    0: Text(zh="0（不切分）", en="0 (plain DP)"),
    1: Text(zh="1（切优化器状态）", en="1 (+ optimizer)"),
    2: Text(zh="2（再切梯度）", en="2 (+ gradients)"),
    3: Text(zh="3（再切参数）", en="3 (+ weights)"),
}
#: Words after each bar's total (no check-mark glyphs: they need a font that has them).
_FIT_LABELS: dict[bool, Text] = {True: Text(zh="放得下", en="fits"), False: Text(zh="放不下", en="does not fit")}
_COMPONENTS: tuple[tuple[str, Text, str], ...] = (
    ("params", Text(zh="参数", en="parameters"), "#4c72b0"),
    ("grads", Text(zh="梯度", en="gradients"), "#55a868"),
    ("optimizer", Text(zh="优化器状态", en="optimizer state"), "#dd8452"),
    ("activations", Text(zh="激活", en="activations"), "#8172b3"),
    ("reserve", Text(zh="运行时预留", en="runtime reserve"), "#937860"),
)


@dataclass(frozen=True)
class CapacityView:
    """What :class:`CapacityWidget` computed for one set of control values.

    ``state`` and ``ledger`` belong to the chosen ZeRO stage; ``stage_ledgers``
    holds the ledger of every stage in :data:`ZERO_STAGES` (same other inputs)
    and ``stage_segments_gib`` their five components (parameters, gradients,
    optimizer state, activations, reserve) in GiB. ``activation_gib`` is
    ``activations.total_gib * in_flight``. ``stage_layers`` is the number of
    layers of the heaviest pipeline stage, and ``warnings`` the PP rule's
    warning when the layers do not split evenly (the ledger is then the heaviest stage's).
    """

    shape: ModelShape
    state: TrainingStateMemory
    activations: ActivationMemory
    in_flight: int
    activation_gib: float
    reserve_gib: float
    ledger: ResourceLedger
    stage_ledgers: tuple[ResourceLedger, ...]
    stage_segments_gib: tuple[tuple[float, ...], ...]
    stage_layers: int = 0
    warnings: tuple[Reason, ...] = ()

    @property
    def segments_gib(self) -> tuple[float, ...]:
        """The chosen stage's five components in GiB."""
        return self.stage_segments_gib[ZERO_STAGES.index(self.state.zero_stage)]

    @property
    def smallest_fitting_stage(self) -> int | None:
        """The smallest ZeRO stage whose ledger fits the device, or None."""
        for stage, ledger in zip(ZERO_STAGES, self.stage_ledgers, strict=True):
            if ledger.fits_one_device:
                return stage
        return None


def _options(labels: dict[Any, Text]) -> list[tuple[Text, Any]]:
    return [(text, value) for value, text in labels.items()]


def breakdown_parts(result: CapacityView) -> list[str]:
    """The chosen stage's five parts per rank (parameters, gradients, optimizer state, activations, reserve), GiB,
    printed to :data:`coursekit.capacity.LEDGER_DECIMALS` places so that they add up, as printed, to the total the
    ledger's sentence prints (:func:`coursekit.units.parts_adding_up`: a part moves at most 0.01 GiB).

    >>> widget = CapacityWidget()
    >>> view = widget.compute(**widget.values())
    >>> parts = breakdown_parts(view)
    >>> sum(float(part) for part in parts) == view.ledger.required_gib
    True
    """
    if not isinstance(result, CapacityView):
        raise TypeError(tr("widgets.capacity.view_type", type=type(result).__name__))
    state = result.state
    parts = (state.params_gib, state.grads_gib, state.optimizer_gib, result.activation_gib, result.reserve_gib)
    shown = parts_adding_up(parts, LEDGER_DECIMALS)
    unit = 10**LEDGER_DECIMALS
    # the ledger rounds its own float sum (state total + activations + reserve); at a tie of the last digit the two
    # sums may round apart: then the largest part takes the difference, one unit of the last place
    gap = round(result.ledger.required_gib * unit) - sum(round(float(part) * unit) for part in shown)
    if gap:
        largest = max(range(len(parts)), key=lambda i: parts[i])
        shown[largest] = f"{(round(float(shown[largest]) * unit) + gap) / unit:.{LEDGER_DECIMALS}f}"
    return shown


class CapacityWidget(LessonWidget[CapacityView]):
    """Per-rank memory (parameters, gradients, optimizer, activations, reserve) against device memory.

    Keyword arguments set the initial control values (names as in
    :meth:`compute`); the defaults are the ZeRO paper's 7.5B model at DP = 8,
    ZeRO-0, s = 2048, b = 1, selective recomputation, 80 GiB device.

    Taught in: lesson 1 (Q1 capacity).
    """

    #: 2.1 in tall, not 2.75: projected at 1024 x 768 and 125 % (493 px of notebook visible) the figure under the
    #: seven rows of controls ended 24-27 px below the visible area (review 24); the four stage bars keep 30 px each.
    figure_size_in: ClassVar[tuple[float, float]] = (6.4, 2.1)
    main_control: ClassVar[str | None] = "zero_stage"
    grid_controls: ClassVar[bool] = True
    wide_controls: ClassVar[tuple[str, ...]] = _WIDE_CONTROLS

    def __init__(
        self,
        *,
        model: str = "megatron-7.5b",
        recipe: str = "zero-fp16-adam",
        zero_stage: int = 0,
        dp: int = 8,
        tp: int = 1,
        pp: int = 1,
        seq_len: int = 2048,
        micro_batch: int = 1,
        recompute: str = "selective",
        reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB,
        device_gib: float = 80.0,
    ) -> None:
        models = [(shape.label, name) for name, shape in MODEL_SHAPES.items()]
        recipes = [
            (
                Text(zh=f"{name}（{r.bytes_per_param:g} 字节/参数）", en=f"{name} ({r.bytes_per_param:g} bytes/param)"),
                name,
            )
            for name, r in PRECISION_RECIPES.items()
        ]
        super().__init__(
            {
                "model": dropdown("widgets.capacity.model", models, value=model),
                "recipe": dropdown("widgets.capacity.recipe", recipes, value=recipe),
                "zero_stage": stepper("widgets.capacity.zero_stage", _options(_STAGE_LABELS), value=zero_stage),
                "dp": dropdown("widgets.capacity.dp", list(_DP_CHOICES), value=dp),
                "tp": dropdown("widgets.capacity.tp", list(_TP_CHOICES), value=tp),
                "pp": dropdown("widgets.capacity.pp", list(_PP_CHOICES), value=pp),
                "seq_len": dropdown("widgets.capacity.seq_len", list(_SEQ_CHOICES), value=seq_len),
                "micro_batch": slider("widgets.capacity.micro_batch", value=micro_batch, min=1, max=16, step=1),
                "recompute": dropdown("widgets.capacity.recompute", _options(_RECOMPUTE_LABELS), value=recompute),
                "reserve_gib": slider(
                    "widgets.capacity.reserve_gib",
                    value=check_number("reserve_gib", reserve_gib),
                    min=0.0,
                    max=8.0,
                    step=0.5,
                ),
                "device_gib": dropdown(
                    "widgets.capacity.device_gib",
                    [(f"{g:g} GiB", g) for g in DEVICE_MEMORY_CHOICES_GIB],
                    value=check_number("device_gib", device_gib),
                ),
            }
        )
        # Two columns of controls keep the widget short (grid_controls). The menus of the model shape and the
        # precision recipe span both: in a column their labels were cut off ("7.5B（Megatron 表 1：36 层，h=4096，32
        # 个", and in English "bf16-adam-no-master (12 bytes/pa"). The two columns of 27em each (780 px) went one under
        # the other in a projected 639 px output area (1024 px at 125 %): eleven rows, the figure 161-179 px below
        # the visible 493 px (review 24); the grid's columns share the width instead.

    # -- LessonWidget -------------------------------------------------------------------

    def setup(self, fig: Figure) -> None:
        # Fixed margins instead of constrained layout: the layout never changes, and each PNG is cheaper.
        fig.set_layout_engine(None)
        height_in = fig.get_figheight()
        fig.subplots_adjust(
            left=0.1, right=0.98, top=1 - _TITLE_ROOM_IN / height_in, bottom=_LEGEND_ROOM_IN / height_in
        )
        ax = fig.add_subplot()
        self.ax = ax
        rows = list(range(len(ZERO_STAGES)))
        self.bars: list[list[Any]] = []
        for _key, text, colour in _COMPONENTS:
            container = ax.barh(rows, [0.0] * len(rows), left=[0.0] * len(rows), height=0.62, color=colour)
            container.set_label(label(text))
            self.bars.append(list(container))
        box = {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 1.0}
        self.value_texts = [ax.text(0.0, row, "", va="center", ha="left", fontsize=8, bbox=box) for row in rows]
        self.device_line = ax.axvline(0.0, color="#c44e52", linestyle="--", linewidth=1.5)
        self.device_text = ax.text(
            0.0, 1.01, "", color="#c44e52", fontsize=8, ha="center", va="bottom", transform=ax.get_xaxis_transform()
        )
        ax.set_yticks(rows, labels=[f"ZeRO-{s}" for s in ZERO_STAGES])
        ax.invert_yaxis()
        ax.set_xlabel(label(Text(zh="每个 rank 的显存 (GiB)", en="memory per rank (GiB)")))
        # The legend and the stage axis never change: drawn from a bitmap after the first render.
        cache_drawing(fig.legend(loc="lower center", fontsize=7, ncols=len(_COMPONENTS), frameon=False))
        cache_drawing(ax.yaxis, key=ax.yaxis.get_view_interval)
        ax.set_xlim(0.0, 100.0)

    def compute(self, **values: Any) -> CapacityView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        shape = model_shape(values["model"])
        recipe = check_choice("recipe", values["recipe"], PRECISION_RECIPES)
        chosen_stage = check_int("zero_stage", values["zero_stage"], ge=0, le=3)
        dp = check_int("dp", values["dp"], ge=1)
        tp = check_int("tp", values["tp"], ge=1)
        pp = check_int("pp", values["pp"], ge=1)
        pp_reason = check_pp_degree(pp, shape.layers)
        if pp_reason is not None and pp_reason.code not in WARNING_CODES:
            raise ValueError(pp_reason.message)
        # The first stage is the heaviest: the most layers (no edge layers here) and the most micro-batches.
        stage_layers = int(stage_layer_counts(shape.layers, pp)[0])
        # Parameters spread with the layers: the heaviest stage holds stage_layers / layers of them,
        # which training_state_memory(..., pp=pp) gets from this count divided by pp.
        stage_params = shape.num_params * stage_layers * pp / shape.layers
        reserve = check_number("reserve_gib", values["reserve_gib"], ge=0)
        device = check_number("device_gib", values["device_gib"], gt=0)
        activations = activation_memory_breakdown(
            seq_len=values["seq_len"],
            micro_batch=values["micro_batch"],
            hidden=shape.hidden,
            heads=shape.heads,
            layers=stage_layers,
            tp=tp,
            recompute=values["recompute"],
        )
        # The first stage of a 1F1B pipeline keeps min(pp, micro-batches) in flight; at least pp per step assumed.
        in_flight = int(_microbatches_in_flight(pp, pp)[0])
        activation_gib = activations.total_gib * in_flight
        states = [
            training_state_memory(stage_params, dp=dp, zero_stage=stage, tp=tp, pp=pp, recipe=recipe)
            for stage in ZERO_STAGES
        ]
        ledgers = tuple(build_resource_ledger(s.total_gib, activation_gib, reserve, device) for s in states)
        segments = tuple((s.params_gib, s.grads_gib, s.optimizer_gib, activation_gib, reserve) for s in states)
        index = ZERO_STAGES.index(chosen_stage)
        return CapacityView(
            shape=shape,
            state=states[index],
            activations=activations,
            in_flight=in_flight,
            activation_gib=activation_gib,
            reserve_gib=reserve,
            ledger=ledgers[index],
            stage_ledgers=ledgers,
            stage_segments_gib=segments,
            stage_layers=stage_layers,
            warnings=() if pp_reason is None else (pp_reason,),
        )

    def draw(self, result: CapacityView) -> None:
        device = result.ledger.device_memory_gib
        chosen = ZERO_STAGES.index(result.state.zero_stage)
        # Room right of the longest bar (any stage's, not only the chosen one) for its "… GiB" label.
        x_max = max(device * 1.3, max(sum(segments) for segments in result.stage_segments_gib) * 1.45)
        for row, segments in enumerate(result.stage_segments_gib):
            left = 0.0
            alpha = 1.0 if row == chosen else 0.3
            for component, width in enumerate(segments):
                bar = self.bars[component][row]
                bar.set_x(left)
                bar.set_width(width)
                bar.set_alpha(alpha)
                left += width
            text = self.value_texts[row]
            fits = result.stage_ledgers[row].fits_one_device
            text.set_text(f"{left:.1f} GiB {label(_FIT_LABELS[fits])}")
            text.set_x(left + x_max * 0.01)
            text.set_color("#2e7d32" if fits else "#c62828")
            text.set_fontweight("bold" if row == chosen else "normal")
        self.ax.set_xlim(0.0, x_max)
        self.device_line.set_xdata([device, device])
        self.device_text.set_x(device)
        self.device_text.set_text(label(Text(zh=f"设备 {device:g} GiB", en=f"device {device:g} GiB")))

    def describe(self, result: CapacityView) -> str:
        state = result.state
        verdict = result.ledger.explain()
        # the five parts as printed add up to the total the verdict prints (each rounded to 2 places on its own,
        # 133 of 297 random states were 0.01 GiB off it)
        params, grads, optimizer, activations, reserve = breakdown_parts(result)
        breakdown = tr(
            "widgets.capacity.breakdown",
            params_gib=params,
            grads_gib=grads,
            optimizer_gib=optimizer,
            activation_gib=activations,
            in_flight=result.in_flight,
            reserve_gib=reserve,
            billions=result.shape.num_params / 1e9,
            shard_billions=state.params_per_model_parallel_rank / 1e9,
        )
        stage = result.smallest_fitting_stage
        dp = result.state.dp
        hint = (
            tr("widgets.capacity.no_stage", dp=dp)
            if stage is None
            else tr("widgets.capacity.smallest_stage", stage=stage, dp=dp)
        )
        if result.state.zero_stage == 0:  # the solid bar ignores DP; say so, or a DP change looks like a no-op
            hint += "<br>" + html.escape(tr("widgets.capacity.dp_stage0", dp=dp))
        warnings = "".join(f"<br><i>{html.escape(reason.message)}</i>" for reason in result.warnings)
        return f"<b>{html.escape(verdict)}</b><br>{breakdown}<br>{hint}{warnings}"

    def verdict_level(self, result: CapacityView) -> str:
        """Fail when the chosen stage does not fit; a warning for an uneven pipeline split; else pass."""
        if not result.ledger.fits_one_device:
            return "fail"
        return "warning" if result.warnings else "pass"


learner_functions(globals())
