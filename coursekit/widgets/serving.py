"""Lesson 10 widget: one serving replica's memory ledger and its latency–throughput curve as the batch grows.

Controls pick a preset model and GPU, the tensor-parallel degree of the replica, the batch (concurrent
requests on the replica), the prompt and output lengths and the precision: BF16, or FP8 (W8A8: 1-byte weights, the
linear layers' matmuls at the device's FP8 peak, attention at BF16's, as ``serving_estimate(precision="fp8")`` times
them; a GPU without an FP8 peak refuses it with a message). The left panel is the memory ledger of
one rank (:func:`coursekit.serving.serving_memory_ledger`); the right panel places every batch of
:data:`BATCH_OPTIONS` at its time per output token and its throughput per GPU
(:func:`coursekit.serving.serving_estimate`), so the trade-off reads off one curve: a bigger batch buys
throughput with latency, until the KV cache no longer fits.

>>> w = ServingWidget()
>>> w.status, w.result.ledger.fits, w.result.estimate.decode_bound
('ok', True, 'memory')
>>> ServingWidget(tp=3)
Traceback (most recent call last):
...
ValueError: tp = 3: must be one of 1, 2, 4, 8.

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
from matplotlib.transforms import offset_copy

from .._validate import check_choice, check_int, learner_functions
from ..i18n import Text, register, tr
from ..plotting import label
from ..presets import CLUSTERS, MODELS
from ..serving import ServingEstimate, ServingLedger
from ..serving.estimate import _estimate
from ..serving.kv import _check_specs, _memory_ledger
from ..specs import (
    DEFAULT_RUNTIME_RESERVE_GIB,
    FP8_TENSOR_CORE_COMPUTE_CAPABILITY,
    PRECISIONS,
    ClusterSpec,
    ModelSpec,
    type_error,
)
from ..units import MS_PER_S, TB_BYTES, parts_adding_up
from . import LessonWidget, dropdown, node_label, node_note_html, significant_unchecked, slider
from .roofline import FLOPS_PER_TFLOPS

__all__ = [
    "BATCH_OPTIONS",
    "GPU_OPTIONS",
    "KV_BYTES",
    "PRECISION_OPTIONS",
    "PRECISION_WEIGHT_BYTES",
    "TP_OPTIONS",
    "ServingView",
    "ServingWidget",
    "ledger_sentence",
    "log_axes",
    "precision_sentence",
    "serving_view",
    "tradeoff_curve",
]

#: Batches (concurrent requests on one replica) of the curve: powers of two.
BATCH_OPTIONS: tuple[int, ...] = tuple(2**k for k in range(10))
#: Tensor-parallel degrees offered (inside one 8-GPU node).
TP_OPTIONS: tuple[int, ...] = (1, 2, 4, 8)
#: GPU presets offered (the cluster presets with GPUs).
GPU_OPTIONS: tuple[str, ...] = ("h100-8", "a100-8", "pcie-24g-8")
#: Bytes per weight of each precision offered: BF16's 2; FP8 (W8A8) 1, the largest ``serving_estimate`` takes with
#: ``precision="fp8"``.
PRECISION_WEIGHT_BYTES: dict[str, float] = {"bf16": 2.0, "fp8": 1.0}
#: Precisions offered, as the library names them (:data:`coursekit.specs.PRECISIONS`).
PRECISION_OPTIONS: tuple[str, ...] = PRECISIONS
#: Bytes per cached K/V element, at either precision (the KV cache stays BF16, as in the lesson's FP8 comparison).
KV_BYTES: int = 2
#: Models offered.
WIDGET_MODELS: tuple[str, ...] = ("llama3-8b", "llama3-70b", "mixtral-8x7b", "gpt3-175b", "gpt2-small")

_COLOURS: dict[str, str] = {"weights": "#4c72b0", "kv": "#dd8452", "other": "#8c8c8c"}

register(
    {
        "widgets.serving.model": {"zh": "模型", "en": "model"},
        "widgets.serving.gpu": {"zh": "节点（GPU）", "en": "node (GPU)"},
        "widgets.serving.tp": {"zh": "每副本张量并行度 TP", "en": "TP per replica"},
        "widgets.serving.batch": {"zh": "每副本并发请求（批）", "en": "requests per replica (batch)"},
        "widgets.serving.prompt_tokens": {"zh": "提示 token 数", "en": "prompt tokens"},
        "widgets.serving.output_tokens": {"zh": "输出 token 数", "en": "output tokens"},
        "widgets.serving.precision": {"zh": "精度", "en": "precision"},
        "widgets.serving.precision_bf16": {"zh": "bf16（权重 2 字节）", "en": "bf16 (2-byte weights)"},
        "widgets.serving.precision_fp8": {"zh": "FP8 W8A8（权重 1 字节）", "en": "FP8 W8A8 (1-byte weights)"},
        "widgets.serving.peaks_bf16": {
            "zh": "精度 bf16：权重每个 {weight_bytes:g} 字节，矩阵乘按每设备 bf16 峰值 {bf16:.0f} TFLOP/s 计，"
            "显存带宽 {hbm:.2f} TB/s；KV 缓存每个元素 {kv_bytes} 字节。",
            "en": "Precision bf16: {weight_bytes:g}-byte weights, matmuls at the bf16 peak of {bf16:.0f} TFLOP/s a "
            "device, memory bandwidth {hbm:.2f} TB/s; {kv_bytes}-byte KV cache elements.",
        },
        "widgets.serving.peaks_fp8": {
            "zh": "精度 FP8 (W8A8)：权重每个 {weight_bytes:g} 字节，线性层的矩阵乘按每设备 FP8 峰值 {fp8:.0f} TFLOP/s "
            "计，注意力仍按 bf16 峰值 {bf16:.0f} TFLOP/s 计，显存带宽 {hbm:.2f} TB/s；KV 缓存仍是每个元素 "
            "{kv_bytes} 字节。FP8 的数字是屋顶线下界：真实的 FP8 矩阵乘达不到数据手册的峰值，"
            "量化让输出质量付出多少代价，只有评测才知道。",
            "en": "Precision FP8 (W8A8): {weight_bytes:g}-byte weights, the linear layers' matmuls at the FP8 peak of "
            "{fp8:.0f} TFLOP/s a device, attention still at the bf16 peak of {bf16:.0f} TFLOP/s, memory bandwidth "
            "{hbm:.2f} TB/s; the KV cache keeps {kv_bytes}-byte elements. The FP8 figures are roofline lower bounds"
            ": real FP8 matmuls fall short of the datasheet's peak, and what quantisation costs in output quality "
            "only an evaluation tells.",
        },
        "widgets.serving.no_fp8": {
            "zh": "GPU 型号 {gpu} 没有 FP8 张量核心（数据手册上没有 FP8 峰值），FP8 的时间无从估算："
            "请把“精度”选回 bf16，或选有 FP8 的 GPU（{fp8_gpus}）。",
            "en": "GPU {gpu} has no FP8 tensor cores (its datasheet gives no FP8 peak), so there is no FP8 time to "
            "estimate: set the precision back to bf16, or pick a GPU with FP8 ({fp8_gpus}).",
        },
        "widgets.serving.ledger": {
            "zh": "每 rank：权重 {weights_gib} + KV 缓存 {kv_gib} + 工作区与预留 {other_gib} = "
            "<b>{total_gib}</b> / {device_gib:.0f} GiB，{verdict}；{capacity}",
            "en": "Per rank: weights {weights_gib} + KV cache {kv_gib} + workspace and reserve "
            "{other_gib} = <b>{total_gib}</b> / {device_gib:.0f} GiB, {verdict}; {capacity}",
        },
        "widgets.serving.capacity": {
            "zh": "一个副本最多容纳 {max_concurrency} 个请求。",
            "en": "one replica holds at most {max_concurrency:@request}.",
        },
        "widgets.serving.capacity_none": {
            "zh": "权重、工作区与预留本身就放不下，一个请求也容纳不了：加大 TP 或换显存更大的 GPU。",
            "en": "the weights, workspace and reserve alone do not fit, so not one request does: raise TP or pick a "
            "GPU with more memory.",
        },
        "widgets.serving.times": {
            "zh": "TTFT >= <b>{ttft_ms} ms</b>，TPOT >= <b>{tpot_ms} ms</b>（其中 TP 通信 {comm_ms} ms，"
            "权重下限 {floor_ms} ms）；每副本 <= {tps:,.0f} token/秒，每 GPU <= {tps_gpu:,.0f} token/秒。",
            "en": "TTFT >= <b>{ttft_ms} ms</b>, TPOT >= <b>{tpot_ms} ms</b> (TP communication {comm_ms} "
            "ms, weights floor {floor_ms} ms); <= {tps:,.0f} tokens/s per replica, <= {tps_gpu:,.0f} per GPU.",
        },
        "widgets.serving.note": {
            "zh": "这些是下界估计（屋顶线、无排队、不重叠的通信）；尾延迟、排队和缓存命中只有实测才知道。",
            "en": "These are lower-bound estimates (roofline, no queueing, communication not overlapped); tail "
            "latency, queueing and cache hits are known only by measuring.",
        },
        "widgets.serving.axis_gib": {"zh": "每 rank 显存 (GiB)", "en": "memory per rank (GiB)"},
        "widgets.serving.axis_tpot": {"zh": "每输出 token 时间 TPOT (ms)", "en": "time per output token, TPOT (ms)"},
        "widgets.serving.axis_tps": {"zh": "每 GPU token/秒", "en": "tokens/s per GPU"},
        "widgets.serving.bar_weights": {"zh": "权重", "en": "weights"},
        "widgets.serving.bar_kv": {"zh": "KV 缓存", "en": "KV cache"},
        "widgets.serving.bar_other": {"zh": "工作区 + 预留", "en": "workspace + reserve"},
        "widgets.serving.no_fit_points": {"zh": "放不下", "en": "does not fit"},
        "widgets.serving.floor_legend": {"zh": "权重下限", "en": "weights floor"},
    }
)


@dataclass(frozen=True)
class ServingView:
    """What :class:`ServingWidget` shows: the chosen batch's ledger and estimate, and the curve over batches.

    ``curve`` holds ``(batch, tpot_s, tokens_per_s_per_gpu, fits)`` for every batch of :data:`BATCH_OPTIONS`;
    ``note`` says when a request (prompt plus output) is longer than the model's learned position table;
    ``precision`` is the one everything was computed at, on ``cluster`` (whose peaks the description names).
    """

    ledger: ServingLedger
    estimate: ServingEstimate
    curve: tuple[tuple[int, float, float, bool], ...]
    note: Text | None = None  # a request longer than a learned position table (ModelSpec.position_table_note)
    precision: str = "bf16"
    cluster: ClusterSpec | None = None


def _check_tp(tp: Any) -> int:
    value = check_int("tp", tp, ge=1)
    if value not in TP_OPTIONS:
        raise ValueError(tr("validate.choice", name="tp", value=value, choices=", ".join(map(str, TP_OPTIONS))))
    return value


def serving_view(
    model: str,
    gpu: str,
    tp: int,
    batch: int,
    prompt_tokens: int,
    output_tokens: int,
    precision: str = "bf16",
) -> ServingView:
    """The ledger and estimate of one replica with ``batch`` requests, and the curve over :data:`BATCH_OPTIONS`.

    ``precision`` is ``"bf16"`` or ``"fp8"`` (W8A8: weights of :data:`PRECISION_WEIGHT_BYTES` bytes, timed by
    :func:`coursekit.serving.serving_estimate` with ``precision="fp8"``); FP8 on a GPU without an FP8 peak is a
    ``ValueError`` that says so in the learner's language.

    >>> v = serving_view("llama3-70b", "h100-8", 8, 64, 2048, 256)
    >>> [fits for *_, fits in v.curve] == sorted((fits for *_, fits in v.curve), reverse=True)
    True
    >>> serving_view("llama3-70b", "a100-8", 8, 64, 2048, 256, precision="fp8")
    Traceback (most recent call last):
    ...
    ValueError: GPU a100-8 has no FP8 tensor cores (its datasheet gives no FP8 peak), so there is no FP8 time to ...

    Taught in: lesson 10 (serving).
    """
    spec = MODELS[check_choice("model", model, tuple(MODELS))]
    cluster = CLUSTERS[check_choice("gpu", gpu, GPU_OPTIONS)]
    tp = _check_tp(tp)
    batch = check_int("batch", batch, ge=1)
    prompt = check_int("prompt_tokens", prompt_tokens, ge=1)
    output = check_int("output_tokens", output_tokens, ge=1)
    precision = check_choice("precision", precision, PRECISION_OPTIONS)
    if spec.heads % tp:
        raise ValueError(tr("serving.reason.tp_heads", tp=tp, heads=spec.heads))
    _check_fp8(cluster, gpu, precision)

    curve = _tradeoff_curve(spec, cluster, tp, 1, prompt, output, precision)
    ledger, estimate = _replica_at(spec, cluster, tp, 1, batch, prompt, output, precision)
    note = spec.position_table_note(prompt + output)
    return ServingView(ledger=ledger, estimate=estimate, curve=curve, note=note, precision=precision, cluster=cluster)


def _replica_at(
    spec: ModelSpec,
    cluster: ClusterSpec,
    tp: int,
    pp: int,
    batch: int,
    prompt: int,
    output: int,
    precision: str = "bf16",
) -> tuple[ServingLedger, ServingEstimate]:
    """One replica's ledger and estimate; the arguments come from the widget's own (checked) controls."""
    weight_bytes = PRECISION_WEIGHT_BYTES[precision]
    ledger = _memory_ledger(
        spec, cluster, tp, pp, batch, prompt + output, weight_bytes, KV_BYTES, prompt, DEFAULT_RUNTIME_RESERVE_GIB
    )
    return ledger, _estimate(spec, cluster, tp, pp, batch, prompt, output, weight_bytes, KV_BYTES, precision)


def _check_fp8(cluster: ClusterSpec, gpu: str, precision: str) -> None:
    """FP8 on a device without an FP8 peak: a ``ValueError`` in the learner's language naming the ones that have it."""
    if precision == "fp8" and cluster.peak_flops_fp8 is None:
        fp8_gpus = ", ".join(name for name in GPU_OPTIONS if CLUSTERS[name].peak_flops_fp8 is not None)
        raise ValueError(tr("widgets.serving.no_fp8", gpu=gpu, fp8_gpus=fp8_gpus))


def tradeoff_curve(
    model: ModelSpec,
    cluster: ClusterSpec,
    *,
    tp: int,
    pp: int = 1,
    prompt_tokens: int,
    output_tokens: int,
    precision: str = "bf16",
) -> tuple[tuple[int, float, float, bool], ...]:
    """``(batch, tpot_s, tokens_per_s_per_gpu, fits)`` of one replica for every batch of :data:`BATCH_OPTIONS`.

    The latency–throughput trade-off as the batch grows: TPOT rises (more KV cache per step), throughput
    rises (one read of the weights serves more requests), until the KV cache no longer fits. ``precision`` is
    ``"bf16"`` or ``"fp8"`` (W8A8, as :func:`serving_view`'s; a device without an FP8 peak is a ``ValueError``).

    Taught in: lesson 10 (serving); used by the workbench's serving mode (lesson 9).
    """
    _check_specs(model, cluster)
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    prompt = check_int("prompt_tokens", prompt_tokens, ge=1)
    output = check_int("output_tokens", output_tokens, ge=1)
    precision = check_choice("precision", precision, PRECISION_OPTIONS)
    _check_fp8(cluster, cluster.name, precision)
    return _tradeoff_curve(model, cluster, tp, pp, prompt, output, precision)


def _tradeoff_curve(
    model: ModelSpec,
    cluster: ClusterSpec,
    tp: int,
    pp: int,
    prompt_tokens: int,
    output_tokens: int,
    precision: str = "bf16",
) -> tuple[tuple[int, float, float, bool], ...]:
    """:func:`tradeoff_curve` on checked arguments."""
    curve = []
    for b in BATCH_OPTIONS:
        ledger, estimate = _replica_at(model, cluster, tp, pp, b, prompt_tokens, output_tokens, precision)
        curve.append((b, estimate.time_per_output_token_s, estimate.tokens_per_s_per_gpu, ledger.fits))
    return tuple(curve)


def log_axes(ax: Axes) -> None:
    """Log scales on both axes with ticks at 1, 2 and 5 per decade, labelled as plain numbers."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda value, _pos: f"{value:g}"))
        axis.set_minor_formatter(NullFormatter())


#: Where a log axes' y label sits, in points left of the axes: clear of the widest tick label ("100000" at 7 pt,
#: the tick and its pad).
YLABEL_OFFSET_PT: float = 36.0


def place_ylabel(ax: Axes) -> None:
    """Put ``ax``'s y label at a fixed distance left of the axes, clear of tick labels of up to six digits.

    A live widget places its axis labels once (:func:`coursekit.plotting.pin_labels`); on axes whose limits
    follow the data the tick labels change width ("50" to "20000", or a ledger's "80" to "2500" GiB), so the
    y label is given a place that clears the widest of them instead.
    """
    figure = ax.get_figure(root=True)
    ax.yaxis.set_label_coords(
        0.0, 0.5, transform=offset_copy(ax.transAxes, fig=figure, x=-YLABEL_OFFSET_PT, units="points")
    )


def _label(key: str) -> str:
    return label(Text(zh=tr(key, lang="zh"), en=tr(key, lang="en")))


def ledger_sentence(ledger: ServingLedger, bold: bool = True) -> str:
    """One rank's serving ledger in a sentence, in the learner's language: its terms, the verdict, and how many
    requests one replica holds (or that the weights, workspace and reserve alone do not fit). HTML with the total in
    bold; ``bold=False`` gives plain text.

    Taught in: lesson 10 (serving).
    """
    if not isinstance(ledger, ServingLedger):
        raise type_error("ledger", ledger, "ServingLedger")
    capacity = (
        tr("widgets.serving.capacity", max_concurrency=ledger.max_concurrency)
        if ledger.max_concurrency > 0
        else tr("widgets.serving.capacity_none")
    )
    parts = (ledger.weights_gib, ledger.kv_cache_gib, ledger.workspace_gib + ledger.reserve_gib)
    decimals = _sum_decimals(parts, ledger.device_gib if ledger.fits else None)
    weights, kv, other = parts_adding_up(parts, decimals)
    total = f"{sum(parts):.{decimals}f}"
    verdict = ledger.verdict(decimals)
    text = tr(
        "widgets.serving.ledger",
        weights_gib=weights,
        kv_gib=kv,
        other_gib=other,
        total_gib=total,
        device_gib=ledger.device_gib,
        verdict=html.escape(verdict) if bold else verdict,
        capacity=html.escape(capacity) if bold else capacity,
    )
    return text if bold else text.replace("<b>", "").replace("</b>", "")


#: The most decimals :func:`ledger_sentence` takes to make its sum add up (0.001 GiB is about 1 MiB).
MAX_LEDGER_DECIMALS: int = 3


def _sum_decimals(parts: tuple[float, ...], device_gib: float | None) -> int:
    """The fewest decimals, 1 to :data:`MAX_LEDGER_DECIMALS`, at which ``parts`` as printed add up to their total as
    printed, and (``device_gib`` given: it fits) that total and the headroom add up to the device's memory. Each
    rounded to 1 place on its own they need not: "weights 1.9 + KV cache 0.5 + workspace and reserve 2.8 = 5.1" (34
    of 85 random states of the widget)."""
    total = sum(parts)
    for decimals in range(1, MAX_LEDGER_DECIMALS):
        shown = [Decimal(f"{x:.{decimals}f}") for x in parts]
        shown_total = Decimal(f"{total:.{decimals}f}")
        adds_up = sum(shown) == shown_total
        if device_gib is not None:
            adds_up = adds_up and shown_total + Decimal(f"{device_gib - total:.{decimals}f}") == Decimal(
                f"{device_gib:.{decimals}f}"
            )
        if adds_up:
            return decimals
    return MAX_LEDGER_DECIMALS


def precision_sentence(precision: str, cluster: ClusterSpec) -> str:
    """Which precision a serving view was computed at and the peaks it used, in the learner's language: BF16's peak
    and the HBM bandwidth, or for FP8 (W8A8) the FP8 peak of the linear layers' matmuls, attention's BF16 peak and the
    bandwidth, with the reminder that FP8 figures are roofline lower bounds whose quality cost only an evaluation
    tells. Plain text (escape it for HTML).

    >>> from coursekit.presets import CLUSTERS
    >>> text = precision_sentence("fp8", CLUSTERS["h100-8"])   # H100 SXM: 1979 TFLOP/s FP8, 989 BF16, 3.35 TB/s
    >>> "1979 TFLOP/s" in text, "989 TFLOP/s" in text, "3.35 TB/s" in text, "evaluation" in text
    (True, True, True, True)

    Taught in: lesson 10 (serving).
    """
    precision = check_choice("precision", precision, PRECISION_OPTIONS)
    if not isinstance(cluster, ClusterSpec):
        raise type_error("cluster", cluster, "ClusterSpec")
    peaks: dict[str, Any] = {
        "bf16": cluster.peak_flops / FLOPS_PER_TFLOPS,
        "hbm": cluster.memory_bandwidth_bytes_per_s / TB_BYTES,
        "weight_bytes": PRECISION_WEIGHT_BYTES[precision],
        "kv_bytes": KV_BYTES,
    }
    if precision == "fp8":
        if cluster.peak_flops_fp8 is None:
            raise ValueError(tr("planner.no_fp8", cluster=cluster.name, low=FP8_TENSOR_CORE_COMPUTE_CAPABILITY))
        return tr("widgets.serving.peaks_fp8", fp8=cluster.peak_flops_fp8 / FLOPS_PER_TFLOPS, **peaks)
    return tr("widgets.serving.peaks_bf16", **peaks)


def _ms(value: float, decimals: int = 1) -> str:
    """Milliseconds as the widget writes them: ``decimals`` places, or two significant digits where those would
    show 0 or a single digit (a small model's 0.31 ms TTFT read "0 ms"; zero stays 0)."""
    if value == 0 or value >= 10 ** (1 - decimals):
        return f"{value:.{decimals}f}"
    return significant_unchecked(value, 2)


def _both(key: str) -> Text:
    """Catalog entry ``key`` in both languages (a menu label that follows ``set_language``)."""
    return Text(zh=tr(key, "zh"), en=tr(key, "en"))


class ServingWidget(LessonWidget[ServingView]):
    """One replica's memory ledger and latency–throughput curve; model, GPU, TP, batch, lengths and precision as
    controls.

    Taught in: lesson 10 (serving).
    """

    figure_size_in = (6.8, 2.55)
    grid_controls = True
    #: The GPU menu's options ("h100-8: 8 × 80 GiB per node") are too long for a column of the grid.
    wide_controls = ("gpu",)
    main_control = "batch"

    def __init__(
        self,
        model: str = "llama3-70b",
        gpu: str = "h100-8",
        tp: int = 8,
        batch: int = 64,
        prompt_tokens: int = 2048,
        output_tokens: int = 256,
        precision: str = "bf16",
    ) -> None:
        check_choice("model", model, WIDGET_MODELS)
        check_choice("gpu", gpu, GPU_OPTIONS)
        _check_tp(tp)
        check_int("batch", batch, ge=1, le=BATCH_OPTIONS[-1])
        check_int("prompt_tokens", prompt_tokens, ge=128, le=32768)
        check_int("output_tokens", output_tokens, ge=16, le=8192)
        super().__init__(
            {
                "model": dropdown("widgets.serving.model", list(WIDGET_MODELS), value=model),
                "gpu": dropdown("widgets.serving.gpu", [(node_label(name), name) for name in GPU_OPTIONS], value=gpu),
                "tp": dropdown("widgets.serving.tp", list(TP_OPTIONS), value=tp),
                "batch": slider("widgets.serving.batch", value=batch, min=1, max=BATCH_OPTIONS[-1], step=1),
                "prompt_tokens": slider(
                    "widgets.serving.prompt_tokens", value=prompt_tokens, min=128, max=32768, step=128
                ),
                "output_tokens": slider(
                    "widgets.serving.output_tokens", value=output_tokens, min=16, max=8192, step=16
                ),
                "precision": dropdown(
                    "widgets.serving.precision",
                    [(_both(f"widgets.serving.precision_{option}"), option) for option in PRECISION_OPTIONS],
                    value=precision,
                ),
            }
        )

    def setup(self, fig: Figure) -> None:
        fig.set_layout_engine("none")
        # the memory axis reaches thousands of GiB (a long context at batch 512): its y label sits left of the widest
        # tick label (place_ylabel), so the axes start far enough right for the label to stay on the figure
        self.ax_mem = fig.add_axes((0.11, 0.2, 0.27, 0.68))
        self.ax_curve = fig.add_axes((0.52, 0.2, 0.44, 0.68))
        self.bars = {
            key: Rectangle((0.0, 0.0), 0.6, 0.0, facecolor=colour, label=_label(f"widgets.serving.bar_{key}"))
            for key, colour in _COLOURS.items()
        }
        for patch in self.bars.values():
            self.ax_mem.add_patch(patch)
        self.device_line = self.ax_mem.axhline(80.0, color="#c44e52", linestyle="--", linewidth=1.0)
        self.ax_mem.set_xlim(-0.2, 1.6)
        self.ax_mem.set_xticks([])
        self.ax_mem.set_ylabel(_label("widgets.serving.axis_gib"), fontsize=8)
        place_ylabel(self.ax_mem)
        self.ax_mem.tick_params(labelsize=7)
        # above the axes: inside them the device line (red, at any height as the total grows) would cross it
        self.ax_mem.legend(
            handles=list(self.bars.values()),
            fontsize=6,
            loc="lower center",
            bbox_to_anchor=(0.5, 1.0),
            ncol=3,
            frameon=False,
        )
        (self.fit_line,) = self.ax_curve.plot([], [], marker="o", markersize=3, color="#4c72b0")
        (self.misfit_line,) = self.ax_curve.plot(
            [],
            [],
            marker="x",
            markersize=4,
            linestyle="none",
            color="#8c8c8c",
            label=_label("widgets.serving.no_fit_points"),
        )
        (self.current,) = self.ax_curve.plot([], [], marker="o", markersize=8, fillstyle="none", color="#c44e52")
        self.floor_line = self.ax_curve.axvline(
            0.0, color="grey", linestyle=":", linewidth=0.8, label=_label("widgets.serving.floor_legend")
        )
        self.batch_labels = [self.ax_curve.text(0.0, 0.0, str(b), fontsize=6, color="#4c72b0") for b in BATCH_OPTIONS]
        log_axes(self.ax_curve)
        # positive limits before any data: a widget whose first inputs cannot be computed (FP8 on an A100, a TP that
        # does not divide the heads) draws its veil over empty log axes instead of failing to scale them
        self.ax_curve.set_xlim(1.0, 100.0)
        self.ax_curve.set_ylim(1.0, 1000.0)
        self.ax_curve.set_xlabel(_label("widgets.serving.axis_tpot"), fontsize=8)
        self.ax_curve.set_ylabel(_label("widgets.serving.axis_tps"), fontsize=8)
        place_ylabel(self.ax_curve)
        self.ax_curve.tick_params(labelsize=7)
        # the dotted line is named too: the learner meets a grey line at the left with no word for it otherwise
        self.ax_curve.legend(handles=[self.misfit_line, self.floor_line], fontsize=6, loc="lower right", frameon=False)

    def compute(self, **values: Any) -> ServingView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        return serving_view(
            values["model"],
            values["gpu"],
            values["tp"],
            values["batch"],
            values["prompt_tokens"],
            values["output_tokens"],
            values["precision"],
        )

    def draw(self, result: ServingView) -> None:
        ledger = result.ledger
        heights = {
            "weights": ledger.weights_gib,
            "kv": ledger.kv_cache_gib,
            "other": ledger.workspace_gib + ledger.reserve_gib,
        }
        bottom = 0.0
        for key, patch in self.bars.items():
            patch.set_y(bottom)
            patch.set_height(heights[key])
            bottom += heights[key]
        self.device_line.set_ydata([ledger.device_gib, ledger.device_gib])
        self.ax_mem.set_ylim(0.0, max(bottom, ledger.device_gib) * 1.1)
        fit = [(t * MS_PER_S, r) for _, t, r, ok in result.curve if ok]
        misfit = [(t * MS_PER_S, r) for _, t, r, ok in result.curve if not ok]
        self.fit_line.set_data([p[0] for p in fit], [p[1] for p in fit])
        self.misfit_line.set_data([p[0] for p in misfit], [p[1] for p in misfit])
        for text, (b, t, r, _) in zip(self.batch_labels, result.curve, strict=True):
            text.set_position((t * MS_PER_S * 1.04, r * 0.9))
            text.set_text(str(b) if b in (1, 8, 64, 512) else "")
        est = result.estimate
        self.current.set_data([est.time_per_output_token_s * MS_PER_S], [est.tokens_per_s_per_gpu])
        self.floor_line.set_xdata([est.weights_floor_s * MS_PER_S] * 2)
        xs = [t * MS_PER_S for _, t, _, _ in result.curve] + [est.time_per_output_token_s * MS_PER_S]
        ys = [r for _, _, r, _ in result.curve] + [est.tokens_per_s_per_gpu]
        self.ax_curve.set_xlim(min(min(xs), est.weights_floor_s * MS_PER_S) * 0.8, max(xs) * 1.4)
        self.ax_curve.set_ylim(min(ys) * 0.6, max(ys) * 1.6)

    def verdict_level(self, result: ServingView) -> str:
        """Pass when the chosen batch fits one rank's memory, fail when it does not (the ledger says so in words); a
        warning when it fits but a request is longer than the model's learned position table (the note says so)."""
        if not result.ledger.fits:
            return "fail"
        return "warning" if result.note is not None else "pass"

    def describe(self, result: ServingView) -> str:
        ledger, est = result.ledger, result.estimate
        return "<br>".join(
            [
                ledger_sentence(ledger),
                tr(
                    "widgets.serving.times",
                    ttft_ms=_ms(est.time_to_first_token_s * MS_PER_S, 0),
                    tpot_ms=_ms(est.time_per_output_token_s * MS_PER_S),
                    comm_ms=_ms(est.decode_comm_s * MS_PER_S),
                    floor_ms=_ms(est.weights_floor_s * MS_PER_S),
                    tps=est.tokens_per_s,
                    tps_gpu=est.tokens_per_s_per_gpu,
                ),
            ]
            + ([] if result.cluster is None else [html.escape(precision_sentence(result.precision, result.cluster))])
            + [html.escape(tr("widgets.serving.note"))]
            + ([] if result.note is None else [f"<b>{html.escape(str(result.note))}</b>"])
        ) + node_note_html(self.controls["gpu"].value)  # the GPU menu's short tag in full


learner_functions(globals())
