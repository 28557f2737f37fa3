"""Lesson 6 widget: the scaling efficiency E(P) of data parallelism, and the step that explains it.

:class:`ScalingWidget` draws ``E(P) = throughput(P) / (P · throughput(1))``
against the number of devices for a weak-scaling data-parallel job whose
gradients are all-reduced around a ring
(:func:`coursekit.scaling.scaling_curve`). Next to the curve, the step at the
largest device count is taken apart into compute, communication hidden under
compute and exposed communication (:func:`coursekit.scaling.step_timeline`),
and the message names the term that eats the step
(:func:`coursekit.scaling.diagnose_efficiency`).

Controls: overlap (share of the communication hidden under compute), link
bandwidth (per GPU and per direction, GB/s: NVLink's figure sums a GPU's links), gradient bytes all-reduced per step
(GB) and compute time per step (ms).

>>> w = ScalingWidget()
>>> w.status, w.result.curve.devices[-1], w.result.diagnosis.dominant
('ok', 512, 'communication')

Taught in: lesson 6 (pipeline bubble and scaling efficiency).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from .._validate import check_number, learner_functions
from ..hardware import (
    HDR_PER_GPU_BYTES_PER_S,
    IB_NDR_BYTES_PER_S,
    NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
    NVLINK4_H100_BYTES_PER_S,
    NVLINK_H800_BYTES_PER_S,
)
from ..i18n import Text, nonzero, register, tr
from ..plotting import cache_drawing, label
from ..scaling import EfficiencyDiagnosis, ScalingCurve, diagnose_efficiency, scaling_curve
from ..units import GB_BYTES, MS_PER_S
from . import LessonWidget, number_stepper, significant_unchecked, slider

__all__ = [
    "BANDWIDTH_STEPS_GB_S",
    "COMPUTE_STEPS_MS",
    "DEFAULT_BANDWIDTH_GB_S",
    "DEFAULT_GRADIENT_GB",
    "DEVICE_COUNTS",
    "GRADIENT_STEPS_GB",
    "MAX_BANDWIDTH_GB_S",
    "ScalingView",
    "ScalingWidget",
    "scaling_view",
]

#: Device counts of the curve: powers of two from 1 to 512.
DEVICE_COUNTS: tuple[int, ...] = tuple(2**k for k in range(10))

#: Default and largest link bandwidth of the slider (GB/s, one way): InfiniBand NDR and H100 NVLink.
DEFAULT_BANDWIDTH_GB_S: float = IB_NDR_BYTES_PER_S / GB_BYTES
MAX_BANDWIDTH_GB_S: float = NVLINK4_H100_BYTES_PER_S / GB_BYTES
#: Default gradients per step: a 7-billion-parameter model in bf16 (2 bytes per gradient), in GB (illustrative).
DEFAULT_GRADIENT_GB: float = 7e9 * 2 / GB_BYTES

#: The bandwidth slider's stops (GB/s, one way per GPU), a few presses apart: slow links, InfiniBand HDR and NDR per
#: GPU, then the NVLink of H800, A100 and H100. A value given to the widget that is not a stop becomes one.
BANDWIDTH_STEPS_GB_S: tuple[float, ...] = tuple(
    sorted(
        {5.0, 10.0, 100.0}
        | {
            rate / GB_BYTES
            for rate in (
                HDR_PER_GPU_BYTES_PER_S,
                IB_NDR_BYTES_PER_S,
                NVLINK_H800_BYTES_PER_S,
                NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
                NVLINK4_H100_BYTES_PER_S,
            )
        }
    )
)
#: The gradient slider's stops (GB), 1-2-5 apart up to 40 GB, with the default 7B model's 14 GB.
GRADIENT_STEPS_GB: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0, DEFAULT_GRADIENT_GB, 20.0, 40.0)
#: The compute slider's stops (ms per step), 1-2-5 apart from 50 ms to 2 s: a 50 ms step took 39 presses end to end.
COMPUTE_STEPS_MS: tuple[float, ...] = (50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0)


#: Timeline colours by segment kind.
_SEGMENT_COLOURS: dict[str, str] = {
    "compute": "#4c72b0",
    "hidden_communication": "#8fbc8f",
    "communication": "#c44e52",
}
#: Lane of each segment kind in the timeline axes (hidden communication runs under compute).
_SEGMENT_LANES: dict[str, float] = {"compute": 1.0, "hidden_communication": 0.0, "communication": 1.0}

register(
    {
        "widgets.scaling.overlap": {"zh": "通信与计算重叠比例", "en": "overlap with compute"},
        "widgets.scaling.bandwidth_gb_s": {
            "zh": "每 GPU 单向带宽 (GB/s)",
            "en": "bandwidth per GPU, one way (GB/s)",
        },
        "widgets.scaling.gradient_gb": {"zh": "每步全归约的梯度 (GB)", "en": "gradients all-reduced per step (GB)"},
        "widgets.scaling.compute_ms": {"zh": "每步计算时间 (ms)", "en": "compute per step (ms)"},
        "widgets.scaling.efficiency": {
            "zh": "E({devices}) = <b>{efficiency:.2f~}</b>：{devices} 个设备的吞吐是单设备的 {speedup:.0f} 倍，"
            "不是 {devices} 倍。",
            "en": "E({devices}) = <b>{efficiency:.2f~}</b>: {devices} devices give {speedup:.0f}× the throughput of "
            "one, not {devices}×.",
        },
        "widgets.scaling.efficiency_ideal": {
            "zh": "E({devices}) = <b>{efficiency:.2f~}</b>：{devices} 个设备的吞吐是单设备的 {devices} 倍，"
            "达到了理想的线性扩展：通信全部藏在计算之下。",
            "en": "E({devices}) = <b>{efficiency:.2f~}</b>: {devices} devices give {devices}× the throughput of one, "
            "the ideal linear scaling: all communication is hidden under compute.",
        },
        "widgets.scaling.efficiency_near": {
            "zh": "E({devices}) = <b>{efficiency:.2f~}</b>：{devices} 个设备的吞吐约是单设备的 {devices} 倍，"
            "接近理想的线性扩展：暴露的通信只占一步的 {share_percent}%。",
            "en": "E({devices}) = <b>{efficiency:.2f~}</b>: {devices} devices give about {devices}× the throughput of "
            "one, close to the ideal linear scaling: exposed communication takes only {share_percent}% of the step.",
        },
        "widgets.scaling.step": {
            "zh": "P = {devices} 时一步 {step_ms} ms：计算 {compute_ms} ms，暴露的通信 {exposed_ms} ms"
            "（另有 {hidden_ms} ms 被计算掩盖）。",
            "en": "At P = {devices} a step takes {step_ms} ms: compute {compute_ms} ms, exposed communication "
            "{exposed_ms} ms ({hidden_ms} ms more hidden under compute).",
        },
        "widgets.scaling.overlap_capped": {
            "zh": "重叠比例 {overlap:.2f} 本可掩盖 {wanted_ms} ms 通信，但通信只能藏在 {compute_ms} ms 的计算之下："
            "P = {devices} 时，重叠比例从 {threshold:.2f~} 往上，一步的时间都一样；再提高重叠也没用，"
            "只有减少通信量、换更快的链路或加大每步计算才能缩短暴露的通信。",
            "en": "An overlap of {overlap:.2f} would hide {wanted_ms} ms of communication, but communication can hide "
            "only under the {compute_ms} ms of compute: at P = {devices} every overlap from {threshold:.2f~} up gives "
            "this same step. More overlap cannot help here: only fewer bytes, a faster link or more compute per step "
            "shorten the exposed communication.",
        },
        "widgets.scaling.diagnosis": {"zh": "诊断：{reason}", "en": "Diagnosis: {reason}"},
        "widgets.scaling.model_note": {
            "zh": "这是模型，不是测量：环形全归约的传输项趋近 2·S/B，所以 E(P) 趋平而不是跌到 0；"
            "拥塞、掉队者和输入瓶颈只有实测才看得到（第 8 课）。",
            "en": "This is a model, not a measurement: the ring all-reduce's transfer term tends to 2·S/B, so E(P) "
            "levels off instead of falling to 0; congestion, stragglers and input stalls show up only when "
            "measured (lesson 8).",
        },
        "widgets.scaling.axis_devices": {"zh": "设备数 P", "en": "devices P"},
        "widgets.scaling.axis_efficiency": {"zh": "扩展效率 E(P)", "en": "scaling efficiency E(P)"},
        "widgets.scaling.axis_step": {"zh": "P = {devices} 时一步的时间 (ms)", "en": "step at P = {devices} (ms)"},
        "widgets.scaling.lane_compute": {"zh": "计算 + 暴露通信", "en": "compute + exposed"},
        "widgets.scaling.lane_hidden": {"zh": "被掩盖的通信", "en": "hidden comm."},
        "widgets.scaling.key_compute": {"zh": "计算", "en": "compute"},
        "widgets.scaling.key_communication": {"zh": "暴露的通信", "en": "exposed"},
        "widgets.scaling.key_hidden_communication": {"zh": "被掩盖的通信", "en": "hidden"},
    }
)


@dataclass(frozen=True)
class ScalingView:
    """What :class:`ScalingWidget` shows: the ``curve`` and the ``diagnosis`` of its last point."""

    curve: ScalingCurve
    diagnosis: EfficiencyDiagnosis
    #: the overlap the curve was computed with (its share of the communication that may hide under compute)
    overlap: float = 0.0

    @property
    def last_efficiency(self) -> float:
        """``E(P)`` at the largest device count."""
        return self.curve.efficiencies[-1]


def scaling_view(overlap: float, bandwidth_gb_s: float, gradient_gb: float, compute_ms: float) -> ScalingView:
    """The weak-scaling curve over :data:`DEVICE_COUNTS` and the diagnosis at the largest count.

    Parameters: ``overlap`` in [0, 1]; ``bandwidth_gb_s`` per-GPU, per-direction
    bandwidth in GB/s (10**9 bytes/s, > 0); ``gradient_gb`` gradient bytes
    all-reduced per step in GB (> 0); ``compute_ms`` compute per step in ms (> 0).

    >>> v = scaling_view(0.0, 50.0, 14.0, 500.0)
    >>> round(v.last_efficiency, 3), v.diagnosis.dominant
    (0.472, 'communication')

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    bandwidth = check_number("bandwidth_gb_s", bandwidth_gb_s, gt=0)
    gradient = check_number("gradient_gb", gradient_gb, gt=0)
    compute = check_number("compute_ms", compute_ms, gt=0)
    curve = scaling_curve(
        list(DEVICE_COUNTS),
        single_device_step_s=compute / MS_PER_S,
        gradient_bytes=gradient * GB_BYTES,
        bandwidth_bytes_per_s=bandwidth * GB_BYTES,
        overlap_fraction=overlap,
    )
    return ScalingView(curve=curve, diagnosis=diagnose_efficiency(curve.points[-1].timeline), overlap=overlap)


def _label(key: str, **params: Any) -> str:
    return label(Text(zh=tr(key, lang="zh", **params), en=tr(key, lang="en", **params)))


class ScalingWidget(LessonWidget[ScalingView]):
    """E(P) of data parallelism against devices, with overlap, bandwidth, gradient and compute sliders.

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """

    figure_size_in = (6.6, 2.7)
    main_control = "overlap"

    def __init__(
        self,
        overlap: float = 0.0,
        bandwidth_gb_s: float = DEFAULT_BANDWIDTH_GB_S,
        gradient_gb: float = DEFAULT_GRADIENT_GB,
        compute_ms: float = 500.0,
    ) -> None:
        super().__init__(
            {
                "overlap": slider(
                    "widgets.scaling.overlap", value=overlap, min=0.0, max=1.0, step=0.05, readout_format=".2f"
                ),
                # stops, not a 5 GB/s step: 50 to 450 GB/s took 80 arrow presses
                "bandwidth_gb_s": number_stepper(
                    "widgets.scaling.bandwidth_gb_s", "bandwidth_gb_s", bandwidth_gb_s, BANDWIDTH_STEPS_GB_S, gt=0
                ),
                "gradient_gb": number_stepper(
                    "widgets.scaling.gradient_gb", "gradient_gb", gradient_gb, GRADIENT_STEPS_GB, gt=0
                ),
                "compute_ms": number_stepper(
                    "widgets.scaling.compute_ms", "compute_ms", compute_ms, COMPUTE_STEPS_MS, gt=0
                ),
            }
        )

    def setup(self, fig: Figure) -> None:
        fig.set_layout_engine("none")  # fixed margins: a layout engine makes savefig draw twice
        self.ax_curve = fig.add_axes((0.1, 0.2, 0.36, 0.7))
        self.ax_step = fig.add_axes((0.67, 0.2, 0.3, 0.7))
        (self.ideal,) = self.ax_curve.plot(
            [DEVICE_COUNTS[0], DEVICE_COUNTS[-1]], [1.0, 1.0], linestyle="--", color="grey", linewidth=0.8
        )
        (self.curve_line,) = self.ax_curve.plot([], [], marker="o", markersize=3, color="#4c72b0")
        self.ax_curve.set_xscale("log", base=2)
        self.ax_curve.set_xlim(DEVICE_COUNTS[0] * 0.8, DEVICE_COUNTS[-1] * 1.25)
        self.ax_curve.set_xticks(list(DEVICE_COUNTS[::2]), labels=[str(p) for p in DEVICE_COUNTS[::2]])
        self.ax_curve.minorticks_off()
        self.ax_curve.set_ylim(0.0, 1.05)
        self.ax_curve.set_xlabel(_label("widgets.scaling.axis_devices"), fontsize=8)
        self.ax_curve.set_ylabel(_label("widgets.scaling.axis_efficiency"), fontsize=8)
        self.ax_curve.tick_params(labelsize=7)
        self.end_label = self.ax_curve.text(
            DEVICE_COUNTS[-1], 0.0, "", ha="right", va="bottom", fontsize=8, color="#4c72b0"
        )
        self.segments = {
            kind: Rectangle((0.0, lane - 0.35), 0.0, 0.7, facecolor=colour)
            for (kind, colour), lane in zip(_SEGMENT_COLOURS.items(), _SEGMENT_LANES.values(), strict=True)
        }
        for patch in self.segments.values():
            self.ax_step.add_patch(patch)
        # room above the lanes for the colour key: which colour is compute, exposed and hidden communication
        self.ax_step.set_ylim(-0.6, 2.3)
        key = [
            Patch(facecolor=_SEGMENT_COLOURS[kind], label=_label(f"widgets.scaling.key_{kind}"))
            for kind in ("compute", "communication", "hidden_communication")
        ]
        self.key = self.ax_step.legend(
            handles=key, loc="upper center", ncols=3, fontsize=6.5, frameon=False, handlelength=1.0, columnspacing=0.6
        )
        self.ax_step.set_yticks(
            [0.0, 1.0], labels=[_label("widgets.scaling.lane_hidden"), _label("widgets.scaling.lane_compute")]
        )
        self.ax_step.set_xlabel(_label("widgets.scaling.axis_step", devices=DEVICE_COUNTS[-1]), fontsize=8)
        self.ax_step.tick_params(labelsize=7)
        cache_drawing(self.key)  # the colour key never changes
        # Axes with fixed limits look the same at every update: drawn from a bitmap.
        for axis in (self.ax_curve.xaxis, self.ax_curve.yaxis, self.ax_step.yaxis):
            cache_drawing(axis, key=axis.get_view_interval)

    def compute(self, **values: Any) -> ScalingView:
        values = self.check_values(values)  # a direct call may pass what no control offers
        return scaling_view(values["overlap"], values["bandwidth_gb_s"], values["gradient_gb"], values["compute_ms"])

    def draw(self, result: ScalingView) -> None:
        curve = result.curve
        self.curve_line.set_data(list(curve.devices), list(curve.efficiencies))
        self.end_label.set_position((curve.devices[-1], curve.efficiencies[-1] + 0.03))
        self.end_label.set_text(nonzero(curve.efficiencies[-1], ".2f"))
        timeline = curve.points[-1].timeline
        for bar in self.segments.values():
            bar.set_width(0.0)
        for segment in timeline.segments():
            patch = self.segments.get(segment.kind)
            if patch is not None:  # only compute and communication appear in a DP weak-scaling step
                patch.set_x(segment.start_s * MS_PER_S)
                patch.set_width(segment.duration_s * MS_PER_S)
        self.ax_step.set_xlim(0.0, timeline.step_s * MS_PER_S * 1.05)

    def describe(self, result: ScalingView) -> str:
        point = result.curve.points[-1]
        timeline = point.timeline
        # "512 devices give 512x, not 512x" says nothing: at (or, as shown, next to) the ideal, say so instead
        if timeline.step_s <= timeline.compute_s:
            key = "widgets.scaling.efficiency_ideal"
        elif f"{point.efficiency:.2f}" == f"{1.0:.2f}" or round(point.speedup) >= point.devices:
            key = "widgets.scaling.efficiency_near"
        else:
            key = "widgets.scaling.efficiency"
        share_percent = significant_unchecked(100 * (1.0 - timeline.compute_s / timeline.step_s), 2)
        lines = [
            tr(
                key,
                devices=point.devices,
                efficiency=point.efficiency,
                speedup=point.speedup,
                share_percent=share_percent,
            ),
            html.escape(
                tr(
                    "widgets.scaling.step",
                    devices=point.devices,
                    step_ms=shown_ms(timeline.step_s),
                    compute_ms=shown_ms(timeline.compute_s),
                    exposed_ms=shown_ms(timeline.exposed_communication_s),
                    hidden_ms=shown_ms(timeline.hidden_communication_s),
                )
            ),
        ]
        wanted_s = result.overlap * timeline.communication_s
        if wanted_s > timeline.hidden_communication_s * (1 + 1e-9):  # the compute caps the overlap: say why
            lines.append(
                html.escape(
                    tr(
                        "widgets.scaling.overlap_capped",
                        overlap=result.overlap,
                        wanted_ms=shown_ms(wanted_s),
                        compute_ms=shown_ms(timeline.compute_s),
                        devices=point.devices,
                        threshold=timeline.compute_s / timeline.communication_s,
                    )
                )
            )
        lines += [
            html.escape(tr("widgets.scaling.diagnosis", reason=_diagnosis_message(result.diagnosis))),
            html.escape(tr("widgets.scaling.model_note")),
        ]
        return "<br>".join(lines)


def shown_ms(seconds: float) -> str:
    """Seconds as the widget writes milliseconds: whole ms from 100 ms up, else three significant figures.

    >>> shown_ms(1.4968), shown_ms(0.5), shown_ms(0.0022222), shown_ms(0.0)
    ('1497', '500', '2.22', '0')
    """
    return significant_unchecked(seconds * MS_PER_S)


class _Milliseconds(float):
    """A time in ms that formats as :func:`shown_ms` whatever format spec a message gives it (``.3g`` would
    write 1497 ms as ``1.5e+03``)."""

    def __format__(self, spec: str) -> str:
        return significant_unchecked(float(self))


def _diagnosis_message(diagnosis: EfficiencyDiagnosis) -> str:
    """The diagnosis in the current language, its milliseconds written as the step line writes them."""
    reason = diagnosis.reason
    params: dict[str, Any] = {
        key: _Milliseconds(value) if key.endswith("_ms") else value for key, value in reason.params.items()
    }
    return tr(reason.key, **params)


learner_functions(globals())
