"""Lesson 7 widget: one GPU's share of a transformer layer's matmuls, placed on that GPU's roofline.

:class:`RooflineWidget` takes a training layout — GPU, model, tensor-parallel
degree TP, micro-batch, sequence length, context-parallel degree CP — and
computes what one GPU multiplies in one layer: ``micro_batch · seq_len / cp``
tokens against weight matrices whose width is divided by TP
(:func:`coursekit.roofline.transformer_layer_matmul_intensity`). It draws the
GPU's roofline on log-log axes (the hard roofline and the smooth curve of
:func:`coursekit.roofline.achieved_flops`), the ridge point, and the layer as
one point (intensity, attainable FLOP/s), and says in words whether the
matmuls are memory-bound or compute-bound and what share of peak the roofline
allows.

The point is an upper bound for the layer's linear matmuls only: the smooth
curve uses ``ceiling = 1`` (no calibration), and attention's core,
normalisation, communication and kernel overheads are left out.

>>> w = RooflineWidget()
>>> w.status, w.result.tokens, w.result.bound
('ok', 8192, 'compute')

Taught in: lesson 7 (compute efficiency).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from matplotlib.figure import Figure

from .._validate import check_choice, check_int, learner_functions
from ..hardware import A100_80GB_HBM_BYTES_PER_S, A100_BF16_DENSE_FLOPS, H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S
from ..i18n import Text, register, tr
from ..plotting import cache_drawing, label
from ..presets import MODELS
from ..roofline import (
    achieved_flops,
    layout_matmul_intensity,
    ridge_point_flop_per_byte,
    roofline_flops,
    tokens_per_gpu,
)
from ..specs import ModelSpec
from ..units import _share_text, telling_digits
from . import LessonWidget, dropdown, stepper

__all__ = [
    "CP_CHOICES",
    "GPUS",
    "MICRO_BATCH_CHOICES",
    "MODEL_CHOICES",
    "SEQ_LEN_CHOICES",
    "TP_CHOICES",
    "Gpu",
    "RooflineView",
    "RooflineWidget",
    "roofline_view",
]

#: FLOP/s in one TFLOP/s (the figure's y unit).
FLOPS_PER_TFLOPS: float = 1e12


@dataclass(frozen=True)
class Gpu:
    """A GPU on the roofline: dense bf16 peak (FLOP/s) and memory bandwidth (bytes/s), from the datasheet."""

    name: str
    peak_flops: float
    memory_bandwidth_bytes_per_s: float


#: The GPUs of the widget, figures from coursekit.hardware (NVIDIA datasheets, SXM parts).
GPUS: Mapping[str, Gpu] = {
    "a100": Gpu("A100 80GB SXM", A100_BF16_DENSE_FLOPS, A100_80GB_HBM_BYTES_PER_S),
    "h100": Gpu("H100 SXM", H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S),
}
#: Dense model presets offered (an MoE layer's expert matmuls see only the tokens routed to them).
MODEL_CHOICES: tuple[str, ...] = ("gpt2-small", "llama3-8b", "llama3-70b", "gpt3-175b", "llama3-405b")
#: Their names as the papers write them (proper names: the same in both languages).
_MODEL_LABELS: dict[str, str] = {
    "gpt2-small": "GPT-2 small",
    "llama3-8b": "Llama 3 8B",
    "llama3-70b": "Llama 3 70B",
    "gpt3-175b": "GPT-3 175B",
    "llama3-405b": "Llama 3 405B",
}
TP_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
MICRO_BATCH_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16)
SEQ_LEN_CHOICES: tuple[int, ...] = (1024, 2048, 4096, 8192, 32768, 131072)
CP_CHOICES: tuple[int, ...] = (1, 2, 4, 8, 16, 32)

#: Axis limits: intensity (FLOP/byte) and attainable TFLOP/s.
INTENSITY_RANGE: tuple[float, float] = (1.0, 3e4)  # the largest layout (405B, TP 1, 2M tokens) is at ~12,000
TFLOPS_RANGE: tuple[float, float] = (1.0, 2000.0)
#: Points of the smooth roofline curve.
_CURVE_X: np.ndarray = np.geomspace(*INTENSITY_RANGE, 161)

register(
    {
        "widgets.roofline.gpu": {"zh": "GPU 型号", "en": "GPU"},
        "widgets.roofline.model": {"zh": "模型", "en": "model"},
        "widgets.roofline.tp": {"zh": "张量并行度 TP", "en": "tensor-parallel degree TP"},
        "widgets.roofline.micro_batch": {"zh": "微批次大小（序列数）", "en": "micro-batch (sequences)"},
        "widgets.roofline.seq_len": {"zh": "序列长度 (token)", "en": "sequence length (tokens)"},
        "widgets.roofline.cp": {"zh": "上下文并行度 CP", "en": "context-parallel degree CP"},
        "widgets.roofline.compute_bound": {
            "zh": "<b>计算受限 (compute-bound)</b>：每层线性矩阵乘的计算强度 {intensity:.0f} FLOP/字节，"
            "是 {gpu} 脊点 ({ridge:.0f} FLOP/字节) 的 {times:.1f} 倍。",
            "en": "<b>Compute-bound</b>: the layer's linear matmuls do {intensity:.0f} FLOP per byte, "
            "{times:.1f}× {gpu}'s ridge point ({ridge:.0f} FLOP/byte).",
        },
        "widgets.roofline.memory_bound": {
            "zh": "<b>访存受限 (memory-bound)</b>：每层线性矩阵乘的计算强度 {intensity:.{digits}f} FLOP/字节，"
            "只有 {gpu} 脊点 ({ridge:.{digits}f} FLOP/字节) 的 {share:.0%~}。",
            "en": "<b>Memory-bound</b>: the layer's linear matmuls do {intensity:.{digits}f} FLOP per byte, "
            "only {share:.0%~} of {gpu}'s ridge point ({ridge:.{digits}f} FLOP/byte).",
        },
        "widgets.roofline.shapes": {
            "zh": "每张 GPU：微批次 {micro_batch} × {seq_len} token ÷ CP {cp} = {tokens} 个 token；"
            "隐藏维 {hidden} ÷ TP {tp} = 每个 rank {hidden_per_rank}。",
            "en": "Per GPU: micro-batch {micro_batch} × {seq_len:@token} ÷ CP {cp} = {tokens:@token}; "
            "hidden {hidden} ÷ TP {tp} = {hidden_per_rank} per rank.",
        },
        "widgets.roofline.share": {
            "zh": "屋顶线上限：硬屋顶线 {hard} 峰值，平滑曲线 {smooth} 峰值 = {tflops:.0f} TFLOP/s。",
            "en": "Roofline bound: {hard} of peak on the hard roofline, {smooth} on the smooth curve "
            "= {tflops:.0f} TFLOP/s.",
        },
        "widgets.roofline.note": {
            "zh": "这是上限，不是测量：只算每层的四个线性矩阵乘（QKV、输出投影、MLP 上投影和下投影），"
            "不含注意力核心、归一化、通信和内核开销；真实内核到不了峰值（第 9 课校准这个上限）。",
            "en": "An upper bound, not a measurement: only the layer's four linear matmuls (QKV, output projection, "
            "MLP up and down) count; attention's core, normalisation, communication and kernel overheads are left "
            "out, and real kernels do not reach peak (lesson 9 calibrates that ceiling).",
        },
        "widgets.roofline.axis_intensity": {"zh": "计算强度 (FLOP/字节)", "en": "arithmetic intensity (FLOP/byte)"},
        "widgets.roofline.axis_flops": {"zh": "可达算力 (TFLOP/s)", "en": "attainable TFLOP/s"},
        "widgets.roofline.ridge": {"zh": "脊点 {ridge:.0f}", "en": "ridge {ridge:.0f}"},
        # the red point's label: its axis reads FLOP/字节 in Chinese, so does the point (review 24)
        "widgets.roofline.point": {
            "zh": "{intensity:.0f} FLOP/字节，{tflops:.0f} TFLOP/s",
            "en": "{intensity:.0f} FLOP/B, {tflops:.0f} TFLOP/s",
        },
        "widgets.roofline.hard": {"zh": "硬屋顶线", "en": "hard roofline"},
        "widgets.roofline.smooth": {"zh": "平滑屋顶线", "en": "smooth roofline"},
        "widgets.roofline.tp_heads": {
            "zh": "张量并行度 TP = {tp} 不整除 {model} 的 {heads} 个注意力头（每个 rank 要拿到整数个头）："
            "请把 TP 调到 {choices} 之一，或换一个模型。",
            "en": "tensor-parallel degree TP = {tp} does not divide {model}'s {heads:@attention head} (each rank "
            "takes whole heads): set TP to one of {choices}, or pick another model.",
        },
    }
)


@dataclass(frozen=True)
class RooflineView:
    """What :class:`RooflineWidget` shows for one layout.

    ``tokens`` one GPU multiplies per layer (micro_batch · seq_len / cp), ``hidden_per_rank`` = hidden / tp,
    ``intensity_flop_per_byte`` of the layer's linear matmuls on one rank, the GPU's ``ridge_flop_per_byte``,
    the hard-roofline bound ``roofline_flops`` and the smooth bound ``achieved_flops`` (FLOP/s).
    """

    gpu: Gpu
    model: ModelSpec
    tp: int
    micro_batch: int
    seq_len: int
    cp: int
    tokens: int
    hidden_per_rank: int
    intensity_flop_per_byte: float
    ridge_flop_per_byte: float
    roofline_flops: float
    achieved_flops: float

    @property
    def bound(self) -> str:
        """``"memory"`` below the ridge point, ``"compute"`` at or above it."""
        return "memory" if self.intensity_flop_per_byte < self.ridge_flop_per_byte else "compute"

    @property
    def share_of_peak(self) -> float:
        """The smooth roofline's attainable FLOP/s over the GPU's peak."""
        return self.achieved_flops / self.gpu.peak_flops

    @property
    def hard_share_of_peak(self) -> float:
        """The hard roofline's attainable FLOP/s over the GPU's peak (1.0 when compute-bound)."""
        return self.roofline_flops / self.gpu.peak_flops


def _check_option(name: str, value: Any, options: Sequence[int]) -> int:
    number = check_int(name, value, ge=1)
    if number not in options:
        raise ValueError(tr("validate.choice", name=name, value=number, choices=", ".join(map(repr, options))))
    return number


def roofline_view(gpu: str, model: str, tp: int, micro_batch: int, seq_len: int, cp: int) -> RooflineView:
    """Place one GPU's share of a layer of ``model`` under the layout on the roofline of ``gpu``.

    Parameters: ``gpu`` a key of :data:`GPUS`; ``model`` one of :data:`MODEL_CHOICES`; ``tp`` (dividing the
    attention heads), ``micro_batch`` sequences, ``seq_len`` tokens and ``cp`` (dividing ``seq_len``), ints >= 1.

    >>> v = roofline_view("a100", "llama3-70b", 8, 1, 8192, 1)
    >>> v.tokens, v.hidden_per_rank, round(v.intensity_flop_per_byte), round(v.ridge_flop_per_byte)
    (8192, 1024, 1816, 153)

    Taught in: lesson 7 (compute efficiency).
    """
    chip = GPUS[check_choice("gpu", gpu, GPUS)]
    spec = MODELS[check_choice("model", model, MODEL_CHOICES)]
    tp = check_int("tp", tp, ge=1)
    if spec.heads % tp:
        # name the model's heads and the TP values that work, in the learner's language ("heads" is no word of theirs)
        choices = Text(zh="、", en=", ").render().join(str(t) for t in TP_CHOICES if spec.heads % t == 0)
        raise ValueError(
            tr("widgets.roofline.tp_heads", tp=tp, model=_MODEL_LABELS[model], heads=spec.heads, choices=choices)
        )
    tokens = tokens_per_gpu(micro_batch, seq_len, cp)
    intensity = layout_matmul_intensity(spec, tp=tp, micro_batch=micro_batch, seq_len=seq_len, cp=cp)
    peak, bandwidth = chip.peak_flops, chip.memory_bandwidth_bytes_per_s
    return RooflineView(
        gpu=chip,
        model=spec,
        tp=tp,
        micro_batch=micro_batch,
        seq_len=seq_len,
        cp=cp,
        tokens=tokens,
        hidden_per_rank=spec.hidden // tp,
        intensity_flop_per_byte=intensity,
        ridge_flop_per_byte=ridge_point_flop_per_byte(peak, bandwidth),
        roofline_flops=roofline_flops(intensity, peak, bandwidth),
        achieved_flops=achieved_flops(intensity, peak, bandwidth),
    )


def _text(key: str, **params: Any) -> str:
    """A figure label in the figure's language (English where no CJK font exists)."""
    return label(Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params)))


class RooflineWidget(LessonWidget[RooflineView]):
    """A layout's per-GPU layer matmuls on the GPU's roofline, with GPU, model, TP, micro-batch, s and CP controls.

    Keyword arguments set the initial control values; the defaults are Llama-3 70B on H100 at TP = 8,
    micro-batch 1, 8192 tokens, CP = 1. Each is checked against its choices (ValueError naming it).

    Taught in: lesson 7 (compute efficiency).
    """

    figure_size_in: ClassVar[tuple[float, float]] = (6.0, 2.9)
    grid_controls: ClassVar[bool] = True
    main_control: ClassVar[str | None] = "tp"

    def __init__(
        self,
        *,
        gpu: str = "h100",
        model: str = "llama3-70b",
        tp: int = 8,
        micro_batch: int = 1,
        seq_len: int = 8192,
        cp: int = 1,
    ) -> None:
        check_choice("gpu", gpu, GPUS)
        check_choice("model", model, MODEL_CHOICES)
        options: dict[str, tuple[int, ...]] = {
            "tp": TP_CHOICES,
            "micro_batch": MICRO_BATCH_CHOICES,
            "seq_len": SEQ_LEN_CHOICES,
            "cp": CP_CHOICES,
        }
        initial = {"tp": tp, "micro_batch": micro_batch, "seq_len": seq_len, "cp": cp}
        for name, value in initial.items():
            _check_option(name, value, options[name])
        controls = {
            "gpu": dropdown("widgets.roofline.gpu", [(chip.name, key) for key, chip in GPUS.items()], value=gpu),
            "model": dropdown("widgets.roofline.model", [(_MODEL_LABELS[m], m) for m in MODEL_CHOICES], value=model),
            **{
                # the main control (tp) steps from the keyboard: a slider over the same choices
                name: (stepper if name == self.main_control else dropdown)(
                    f"widgets.roofline.{name}", list(options[name]), value=initial[name]
                )
                for name in options
            },
        }
        super().__init__(controls)

    # -- LessonWidget -------------------------------------------------------------------

    def setup(self, fig: Figure) -> None:
        self._smooth_curves: dict[str, list[float]] = {}
        fig.set_layout_engine("none")  # fixed margins: the layout never changes, and each PNG is cheaper
        ax = fig.add_axes((0.13, 0.16, 0.83, 0.78))
        self.ax = ax
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(*INTENSITY_RANGE)
        ax.set_ylim(*TFLOPS_RANGE)
        ax.set_xlabel(_text("widgets.roofline.axis_intensity"), fontsize=8)
        ax.set_ylabel(_text("widgets.roofline.axis_flops"), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.minorticks_off()  # fewer artists: the cached axes redraw faster
        ax.grid(True, which="major", linewidth=0.4, alpha=0.5)
        (self.hard_line,) = ax.plot([], [], color="#4c72b0", linewidth=2.0, label=_text("widgets.roofline.hard"))
        (self.smooth_line,) = ax.plot(
            [], [], color="#4c72b0", linestyle="--", linewidth=1.0, label=_text("widgets.roofline.smooth")
        )
        self.ridge_line = ax.axvline(1.0, color="grey", linestyle=":", linewidth=1.0)
        self.ridge_text = ax.text(1.0, 1.5, "", fontsize=7, color="grey", ha="left", va="bottom")
        self.peak_text = ax.text(INTENSITY_RANGE[0] * 1.3, 1.0, "", fontsize=7, color="#4c72b0", ha="left")
        (self.point,) = ax.plot([], [], marker="o", markersize=7, color="#c44e52", linestyle="none")
        self.point_text = ax.text(1.0, 1.0, "", fontsize=7, color="#c44e52", ha="center", va="top")
        cache_drawing(ax.legend(loc="lower right", fontsize=7, frameon=False))
        for axis in (ax.xaxis, ax.yaxis):  # fixed limits: drawn from a bitmap after the first render
            cache_drawing(axis, key=axis.get_view_interval)

    def compute(self, **values: Any) -> RooflineView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        return roofline_view(
            values["gpu"], values["model"], values["tp"], values["micro_batch"], values["seq_len"], values["cp"]
        )

    def draw(self, result: RooflineView) -> None:
        chip = result.gpu
        peak_tflops = chip.peak_flops / FLOPS_PER_TFLOPS
        ridge = result.ridge_flop_per_byte
        low, high = INTENSITY_RANGE
        self.hard_line.set_data(
            [low, ridge, high],
            [
                roofline_flops(x, chip.peak_flops, chip.memory_bandwidth_bytes_per_s) / FLOPS_PER_TFLOPS
                for x in (low, ridge, high)
            ],
        )
        smooth = self._smooth_curves.get(chip.name)
        if smooth is None:  # depends on the GPU only
            smooth = [
                achieved_flops(float(x), chip.peak_flops, chip.memory_bandwidth_bytes_per_s) / FLOPS_PER_TFLOPS
                for x in _CURVE_X
            ]
            self._smooth_curves[chip.name] = smooth
        self.smooth_line.set_data(_CURVE_X, smooth)
        self.ridge_line.set_xdata([ridge, ridge])
        self.ridge_text.set_position((ridge * 1.08, TFLOPS_RANGE[0] * 1.3))
        self.ridge_text.set_text(_text("widgets.roofline.ridge", ridge=ridge))
        self.peak_text.set_position((low * 1.3, peak_tflops * 1.12))
        self.peak_text.set_text(f"{chip.name}: {peak_tflops:.0f} TFLOP/s")
        x, y = result.intensity_flop_per_byte, result.achieved_flops / FLOPS_PER_TFLOPS
        self.point.set_data([x], [y])
        # below the point and to its right (left of it near the right edge, to stay inside the axes): the roofline
        # rises to the right of the point or is flat above it, so it never crosses the label (centred under the
        # point, the slope ran through it; review 24)
        right_edge = x > 1e4
        self.point_text.set_position((x / 1.15 if right_edge else x * 1.15, y / 1.3))
        self.point_text.set_horizontalalignment("right" if right_edge else "left")
        self.point_text.set_text(_text("widgets.roofline.point", intensity=x, tflops=y))

    def describe(self, result: RooflineView) -> str:
        common: dict[str, Any] = {
            "intensity": result.intensity_flop_per_byte,
            "gpu": result.gpu.name,
            "ridge": result.ridge_flop_per_byte,
        }
        if result.bound == "compute":
            verdict = tr(
                "widgets.roofline.compute_bound",
                times=result.intensity_flop_per_byte / result.ridge_flop_per_byte,
                **common,
            )
        else:
            verdict = tr(
                "widgets.roofline.memory_bound",
                share=result.intensity_flop_per_byte / result.ridge_flop_per_byte,
                # just below the ridge (A100, Llama 3 8B, TP 32: 152.6 against 153.0) the whole numbers read alike
                digits=0
                if f"{common['intensity']:.0f}" != f"{common['ridge']:.0f}"
                else telling_digits(common["intensity"], common["ridge"]),
                **common,
            )
        shapes = tr(
            "widgets.roofline.shapes",
            micro_batch=result.micro_batch,
            seq_len=result.seq_len,
            cp=result.cp,
            tokens=result.tokens,
            hidden=result.model.hidden,
            tp=result.tp,
            hidden_per_rank=result.hidden_per_rank,
        )
        share = tr(
            "widgets.roofline.share",
            hard=_share_text(result.hard_share_of_peak),
            smooth=_share_text(result.share_of_peak),
            tflops=result.achieved_flops / FLOPS_PER_TFLOPS,
        )
        return "<br>".join([verdict, html.escape(shapes), html.escape(share), html.escape(tr("widgets.roofline.note"))])


learner_functions(globals())
