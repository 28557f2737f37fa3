"""Lesson 10 widget: one serving replica's memory ledger and its latency–throughput curve as the batch grows.

Controls pick a preset model and GPU, the tensor-parallel degree of the replica, the batch (concurrent
requests on the replica) and the prompt and output lengths. The left panel is the memory ledger of
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
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
from matplotlib.transforms import offset_copy

from .._validate import check_choice, check_int
from ..i18n import Text, register, tr
from ..plotting import label
from ..presets import CLUSTERS, MODELS
from ..serving import ServingEstimate, ServingLedger
from ..serving.estimate import _estimate
from ..serving.kv import _check_specs, _memory_ledger
from ..specs import DEFAULT_RUNTIME_RESERVE_GIB, ClusterSpec, ModelSpec, type_error
from ..units import MS_PER_S
from . import LessonWidget, dropdown, slider

__all__ = [
    "BATCH_OPTIONS",
    "GPU_OPTIONS",
    "TP_OPTIONS",
    "ServingView",
    "ServingWidget",
    "ledger_sentence",
    "log_axes",
    "serving_view",
    "tradeoff_curve",
]

#: Batches (concurrent requests on one replica) of the curve: powers of two.
BATCH_OPTIONS: tuple[int, ...] = tuple(2**k for k in range(10))
#: Tensor-parallel degrees offered (inside one 8-GPU node).
TP_OPTIONS: tuple[int, ...] = (1, 2, 4, 8)
#: GPU presets offered (the cluster presets with GPUs).
GPU_OPTIONS: tuple[str, ...] = ("h100-8", "a100-8", "pcie-24g-8")
#: Models offered.
WIDGET_MODELS: tuple[str, ...] = ("llama3-8b", "llama3-70b", "mixtral-8x7b", "gpt3-175b", "gpt2-small")

_COLOURS: dict[str, str] = {"weights": "#4c72b0", "kv": "#dd8452", "other": "#8c8c8c"}

register(
    {
        "widgets.serving.model": {"zh": "模型", "en": "model"},
        "widgets.serving.gpu": {"zh": "GPU 型号", "en": "GPU"},
        "widgets.serving.tp": {"zh": "每副本张量并行度 TP", "en": "TP per replica"},
        "widgets.serving.batch": {"zh": "每副本并发请求（批）", "en": "requests per replica (batch)"},
        "widgets.serving.prompt_tokens": {"zh": "提示 token 数", "en": "prompt tokens"},
        "widgets.serving.output_tokens": {"zh": "输出 token 数", "en": "output tokens"},
        "widgets.serving.ledger": {
            "zh": "每 rank：权重 {weights_gib:.1f} + KV 缓存 {kv_gib:.1f} + 工作区与预留 {other_gib:.1f} = "
            "<b>{total_gib:.1f}</b> / {device_gib:.0f} GiB，{verdict}；{capacity}",
            "en": "Per rank: weights {weights_gib:.1f} + KV cache {kv_gib:.1f} + workspace and reserve "
            "{other_gib:.1f} = <b>{total_gib:.1f}</b> / {device_gib:.0f} GiB, {verdict}; {capacity}",
        },
        "widgets.serving.capacity": {
            "zh": "一个副本最多容纳 {max_concurrency} 个请求。",
            "en": "one replica holds at most {max_concurrency} requests.",
        },
        "widgets.serving.capacity_none": {
            "zh": "权重、工作区与预留本身就放不下，一个请求也容纳不了：加大 TP 或换显存更大的 GPU。",
            "en": "the weights, workspace and reserve alone do not fit, so not one request does: raise TP or pick a "
            "GPU with more memory.",
        },
        "widgets.serving.times": {
            "zh": "TTFT >= <b>{ttft_ms:.0f} ms</b>，TPOT >= <b>{tpot_ms:.1f} ms</b>（其中 TP 通信 {comm_ms:.1f} ms，"
            "权重下限 {floor_ms:.1f} ms）；每副本 <= {tps:,.0f} token/秒，每 GPU <= {tps_gpu:,.0f} token/秒。",
            "en": "TTFT >= <b>{ttft_ms:.0f} ms</b>, TPOT >= <b>{tpot_ms:.1f} ms</b> (TP communication {comm_ms:.1f} "
            "ms, weights floor {floor_ms:.1f} ms); <= {tps:,.0f} tokens/s per replica, <= {tps_gpu:,.0f} per GPU.",
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
    }
)


@dataclass(frozen=True)
class ServingView:
    """What :class:`ServingWidget` shows: the chosen batch's ledger and estimate, and the curve over batches.

    ``curve`` holds ``(batch, tpot_s, tokens_per_s_per_gpu, fits)`` for every batch of :data:`BATCH_OPTIONS`;
    ``note`` says when a request (prompt plus output) is longer than the model's learned position table.
    """

    ledger: ServingLedger
    estimate: ServingEstimate
    curve: tuple[tuple[int, float, float, bool], ...]
    note: Text | None = None  # a request longer than a learned position table (ModelSpec.position_table_note)


def _check_tp(tp: Any) -> int:
    value = check_int("tp", tp, ge=1)
    if value not in TP_OPTIONS:
        raise ValueError(tr("validate.choice", name="tp", value=value, choices=", ".join(map(str, TP_OPTIONS))))
    return value


def serving_view(model: str, gpu: str, tp: int, batch: int, prompt_tokens: int, output_tokens: int) -> ServingView:
    """The ledger and estimate of one replica with ``batch`` requests, and the curve over :data:`BATCH_OPTIONS`.

    >>> v = serving_view("llama3-70b", "h100-8", 8, 64, 2048, 256)
    >>> [fits for *_, fits in v.curve] == sorted((fits for *_, fits in v.curve), reverse=True)
    True

    Taught in: lesson 10 (serving).
    """
    spec = MODELS[check_choice("model", model, tuple(MODELS))]
    cluster = CLUSTERS[check_choice("gpu", gpu, GPU_OPTIONS)]
    tp = _check_tp(tp)
    batch = check_int("batch", batch, ge=1)
    prompt = check_int("prompt_tokens", prompt_tokens, ge=1)
    output = check_int("output_tokens", output_tokens, ge=1)
    if spec.heads % tp:
        raise ValueError(tr("serving.reason.tp_heads", tp=tp, heads=spec.heads))

    curve = _tradeoff_curve(spec, cluster, tp, 1, prompt, output)
    ledger, estimate = _replica_at(spec, cluster, tp, 1, batch, prompt, output)
    note = spec.position_table_note(prompt + output)
    return ServingView(ledger=ledger, estimate=estimate, curve=curve, note=note)


def _replica_at(
    spec: ModelSpec, cluster: ClusterSpec, tp: int, pp: int, batch: int, prompt: int, output: int
) -> tuple[ServingLedger, ServingEstimate]:
    """One replica's ledger and estimate; the arguments come from the widget's own (checked) controls."""
    ledger = _memory_ledger(spec, cluster, tp, pp, batch, prompt + output, 2.0, 2, prompt, DEFAULT_RUNTIME_RESERVE_GIB)
    return ledger, _estimate(spec, cluster, tp, pp, batch, prompt, output, 2.0, 2)


def tradeoff_curve(
    model: ModelSpec, cluster: ClusterSpec, *, tp: int, pp: int = 1, prompt_tokens: int, output_tokens: int
) -> tuple[tuple[int, float, float, bool], ...]:
    """``(batch, tpot_s, tokens_per_s_per_gpu, fits)`` of one replica for every batch of :data:`BATCH_OPTIONS`.

    The latency–throughput trade-off as the batch grows: TPOT rises (more KV cache per step), throughput
    rises (one read of the weights serves more requests), until the KV cache no longer fits.

    Taught in: lesson 10 (serving); used by the workbench's serving mode (lesson 9).
    """
    _check_specs(model, cluster)
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    prompt = check_int("prompt_tokens", prompt_tokens, ge=1)
    output = check_int("output_tokens", output_tokens, ge=1)
    return _tradeoff_curve(model, cluster, tp, pp, prompt, output)


def _tradeoff_curve(
    model: ModelSpec, cluster: ClusterSpec, tp: int, pp: int, prompt_tokens: int, output_tokens: int
) -> tuple[tuple[int, float, float, bool], ...]:
    """:func:`tradeoff_curve` on checked arguments."""
    curve = []
    for b in BATCH_OPTIONS:
        ledger, estimate = _replica_at(model, cluster, tp, pp, b, prompt_tokens, output_tokens)
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
    text = tr(
        "widgets.serving.ledger",
        weights_gib=ledger.weights_gib,
        kv_gib=ledger.kv_cache_gib,
        other_gib=ledger.workspace_gib + ledger.reserve_gib,
        total_gib=ledger.total_gib,
        device_gib=ledger.device_gib,
        verdict=html.escape(ledger.verdict()) if bold else ledger.verdict(),
        capacity=html.escape(capacity) if bold else capacity,
    )
    return text if bold else text.replace("<b>", "").replace("</b>", "")


class ServingWidget(LessonWidget[ServingView]):
    """One replica's memory ledger and latency–throughput curve; model, GPU, TP, batch and lengths as controls.

    Taught in: lesson 10 (serving).
    """

    figure_size_in = (6.8, 2.8)
    main_control = "batch"

    def __init__(
        self,
        model: str = "llama3-70b",
        gpu: str = "h100-8",
        tp: int = 8,
        batch: int = 64,
        prompt_tokens: int = 2048,
        output_tokens: int = 256,
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
                "gpu": dropdown("widgets.serving.gpu", list(GPU_OPTIONS), value=gpu),
                "tp": dropdown("widgets.serving.tp", list(TP_OPTIONS), value=tp),
                "batch": slider("widgets.serving.batch", value=batch, min=1, max=BATCH_OPTIONS[-1], step=1),
                "prompt_tokens": slider(
                    "widgets.serving.prompt_tokens", value=prompt_tokens, min=128, max=32768, step=128
                ),
                "output_tokens": slider(
                    "widgets.serving.output_tokens", value=output_tokens, min=16, max=8192, step=16
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
        self.ax_mem.legend(handles=list(self.bars.values()), fontsize=6, loc="upper right", frameon=False)
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
        self.floor_line = self.ax_curve.axvline(0.0, color="grey", linestyle=":", linewidth=0.8)
        self.batch_labels = [self.ax_curve.text(0.0, 0.0, str(b), fontsize=6, color="#4c72b0") for b in BATCH_OPTIONS]
        log_axes(self.ax_curve)
        self.ax_curve.set_xlabel(_label("widgets.serving.axis_tpot"), fontsize=8)
        self.ax_curve.set_ylabel(_label("widgets.serving.axis_tps"), fontsize=8)
        place_ylabel(self.ax_curve)
        self.ax_curve.tick_params(labelsize=7)
        self.ax_curve.legend(handles=[self.misfit_line], fontsize=6, loc="lower right", frameon=False)

    def compute(self, **values: Any) -> ServingView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        return serving_view(
            values["model"],
            values["gpu"],
            values["tp"],
            values["batch"],
            values["prompt_tokens"],
            values["output_tokens"],
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
                    ttft_ms=est.time_to_first_token_s * MS_PER_S,
                    tpot_ms=est.time_per_output_token_s * MS_PER_S,
                    comm_ms=est.decode_comm_s * MS_PER_S,
                    floor_ms=est.weights_floor_s * MS_PER_S,
                    tps=est.tokens_per_s,
                    tps_gpu=est.tokens_per_s_per_gpu,
                ),
                html.escape(tr("widgets.serving.note")),
            ]
            + ([] if result.note is None else [f"<b>{html.escape(str(result.note))}</b>"])
        )
