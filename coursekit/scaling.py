"""Scaling efficiency (扩展效率) ``E(P)`` and the step timeline that explains it.

The course (lesson 6) defines ``E(P) = throughput(P) / (P · throughput(1))`` and warns
that a falling ``E(P)`` does not by itself mean the strategy is wrong: it may be
communication, load imbalance, an input bottleneck or a batch limit, so the step
timeline has to be decomposed. This module gives the definition
(:func:`scaling_efficiency`), a step-timeline model (:func:`step_timeline`), a
weak-scaling curve for data parallelism (数据并行, DP) with a ring all-reduce
(:func:`scaling_curve`) and a diagnosis of which term eats the step
(:func:`diagnose_efficiency`).

>>> round(scaling_efficiency(700.0, 8, 100.0), 3)
0.875

Taught in: lesson 6 (pipeline bubble and scaling efficiency).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ._validate import check_finite_result, check_int, check_items, check_number, finite_result, learner_functions
from .communication import _collective_time_s
from .i18n import Reason, Text, register, tr
from .units import MS_PER_S

__all__ = [
    "DIAGNOSIS_TERMS",
    "EfficiencyDiagnosis",
    "ScalingCurve",
    "ScalingPoint",
    "StepTimeline",
    "TimelineSegment",
    "diagnose_efficiency",
    "load_imbalance_s",
    "scaling_curve",
    "scaling_efficiency",
    "step_timeline",
]

#: Overhead terms of a step, in the order :func:`diagnose_efficiency` breaks ties.
DIAGNOSIS_TERMS: tuple[str, ...] = ("communication", "bubble", "input", "load_imbalance")

register(
    {
        "scaling.segment_compute": {"zh": "计算", "en": "compute"},
        "scaling.segment_communication": {"zh": "通信（暴露）", "en": "communication (exposed)"},
        "scaling.segment_hidden_communication": {
            "zh": "通信（被计算掩盖）",
            "en": "communication (hidden under compute)",
        },
        "scaling.segment_bubble": {"zh": "等待：流水线气泡", "en": "wait: pipeline bubble"},
        "scaling.segment_input": {"zh": "等待：输入数据", "en": "wait: input data"},
        "scaling.segment_load_imbalance": {"zh": "等待：负载不均", "en": "wait: load imbalance"},
        "scaling.segment_host": {"zh": "等待：主机发射内核", "en": "wait: host launching kernels"},
        "scaling.comm_model_missing": {
            "zh": (
                "通信模型缺失：请给出 communication_s_fn，或同时给出 gradient_bytes 与 bandwidth_bytes_per_s"
                "（用环形全归约 (all-reduce) 估算）。"
            ),
            "en": (
                "no communication model: give communication_s_fn, or both gradient_bytes and "
                "bandwidth_bytes_per_s (for a ring all-reduce)."
            ),
        },
        "scaling.comm_model_both": {
            "zh": "通信模型重复：communication_s_fn 与 gradient_bytes / bandwidth_bytes_per_s 只能二选一。",
            "en": "two communication models: give communication_s_fn or gradient_bytes / bandwidth_bytes_per_s, "
            "not both.",
        },
        "scaling.not_callable": {
            "zh": "{name} = {value!r}：必须是可调用对象（设备数 -> 秒），而不是 {type}。",
            "en": "{name} = {value!r}: must be callable (devices -> seconds), not {type}.",
        },
        "scaling.not_sequence": {
            "zh": "{name} = {value!r}：必须是非空的列表或元组，而不是 {type}。",
            "en": "{name} = {value!r}: must be a non-empty list or tuple, not {type}.",
        },
        "scaling.empty_sequence": {
            "zh": "{name} 为空：至少需要一个值。",
            "en": "{name} is empty: give at least one value.",
        },
        "scaling.timeline_sum": {
            "zh": "{name} = {value!r}：必须等于 {parts} = {expected!r}（一步的时间线各部分相加）。",
            "en": "{name} = {value!r}: must equal {parts} = {expected!r} (the parts of the step's timeline added).",
        },
        "scaling.not_timeline": {
            "zh": "timeline = {value!r}：必须是 step_timeline 返回的 StepTimeline，而不是 {type}。",
            "en": "timeline = {value!r}: must be a StepTimeline returned by step_timeline, not {type}.",
        },
        "scaling.diagnosis_none": {
            "zh": "这一步只有计算（{compute_ms:.3g} ms），没有暴露的开销；若 E(P) 仍下降，"
            "请测量单卡计算本身是否变慢（例如每卡微批次太小）。",
            "en": "the step is pure compute ({compute_ms:.3g} ms) with no exposed overhead; if E(P) still falls, "
            "measure whether per-device compute itself slowed down (e.g. a too-small per-device micro-batch).",
        },
        "scaling.diagnosis_communication": {
            "zh": "暴露的通信 (exposed communication) 占一步时间的 {share:.0%~}（{overhead_ms:.3g} ms）："
            "先提高与计算的重叠、减少通信量，或把高频集合通信放到更快的链路上。",
            "en": "exposed communication takes {share:.0%~} of the step ({overhead_ms:.3g} ms): overlap it with "
            "compute, send fewer bytes, or keep the frequent collectives on faster links.",
        },
        "scaling.diagnosis_communication_capped": {
            "zh": "暴露的通信 (exposed communication) 占一步时间的 {share:.0%~}（{overhead_ms:.3g} ms）："
            "计算（{compute_ms:.3g} ms）下面已经藏满了，再提高重叠也没用；"
            "减少通信量、把高频集合通信放到更快的链路上，或让每步多算一些。",
            "en": "exposed communication takes {share:.0%~} of the step ({overhead_ms:.3g} ms): the compute "
            "({compute_ms:.3g} ms) already hides all it can, so more overlap cannot help; send fewer bytes, keep the "
            "frequent collectives on faster links, or give each step more compute.",
        },
        "scaling.diagnosis_bubble": {
            "zh": "流水线气泡 (pipeline bubble) 占一步时间的 {share:.0%~}（{overhead_ms:.3g} ms）：增加微批次"
            "数、使用交错调度 (interleaved schedule)，或减少流水线阶段数。",
            "en": "the pipeline bubble takes {share:.0%~} of the step ({overhead_ms:.3g} ms): use more "
            "micro-batches, an interleaved schedule, or fewer pipeline stages.",
        },
        "scaling.diagnosis_input": {
            "zh": "等待输入数据占一步时间的 {share:.0%~}（{overhead_ms:.3g} ms）：数据加载跟不上，"
            "增加数据加载进程 (dataloader worker)、预取或缓存，与并行策略无关。",
            "en": "waiting for input data takes {share:.0%~} of the step ({overhead_ms:.3g} ms): the input "
            "pipeline cannot keep up; add loader workers, prefetching or caching; the parallel strategy is "
            "not the cause.",
        },
        "scaling.diagnosis_load_imbalance": {
            "zh": "负载不均 (load imbalance) 占一步时间的 {share:.0%~}（{overhead_ms:.3g} ms）：其他设备在同步点"
            "等最慢的设备 (straggler)；请平衡各流水线阶段 / rank 的工作量，或排查慢节点。",
            "en": "load imbalance takes {share:.0%~} of the step ({overhead_ms:.3g} ms): the other devices wait "
            "for the slowest one (straggler) at the synchronization point; balance the work per stage / "
            "rank or find the slow node.",
        },
    }
)


@finite_result
def scaling_efficiency(throughput: float, devices: int, single_device_throughput: float) -> float:
    """Scaling efficiency ``E(P) = throughput(P) / (P · throughput(1))``: the share of ideal linear scaling reached.

    Parameters:
        throughput: measured throughput on ``devices`` devices (samples/s, tokens/s, ... > 0).
        devices: number of devices ``P`` (int >= 1).
        single_device_throughput: throughput of one device, in the same unit (> 0).

    The result is a float in (0, ∞). Values above 1 (superlinear scaling) do
    happen: with more devices each one holds a smaller slice of the model or
    data, which may start to fit in cache or in device memory without
    offloading. A value below 1 is the norm; :func:`diagnose_efficiency` says why.

    >>> scaling_efficiency(1800.0, 16, 125.0)
    0.9
    >>> scaling_efficiency(900.0, 0, 125.0)
    Traceback (most recent call last):
    ...
    ValueError: devices = 0: must be >= 1.

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    total = check_number("throughput", throughput, gt=0)
    p = check_int("devices", devices, ge=1)
    single = check_number("single_device_throughput", single_device_throughput, gt=0)
    return total / (p * single)


@dataclass(frozen=True)
class TimelineSegment:
    """One bar of a step-timeline chart.

    Fields: ``kind`` (stable code: ``"compute"``, ``"communication"``,
    ``"hidden_communication"``, ``"bubble"``, ``"input"``, ``"load_imbalance"``),
    ``label`` (bilingual :class:`~coursekit.i18n.Text`), ``start_s`` and
    ``duration_s`` in seconds. ``"hidden_communication"`` runs *under* compute,
    so it overlaps the compute bar; draw it on a second lane.
    """

    kind: str
    label: Text
    start_s: float
    duration_s: float


def _label(kind: str) -> Text:
    key = f"scaling.segment_{kind}"
    return Text(zh=tr(key, lang="zh"), en=tr(key, lang="en"))


#: The fields of :class:`StepTimeline`, each seconds >= 0.
_TIMELINE_FIELDS: tuple[str, ...] = (
    "compute_s",
    "communication_s",
    "exposed_communication_s",
    "hidden_communication_s",
    "bubble_s",
    "input_wait_s",
    "step_s",
    "load_imbalance_s",
    "host_wait_s",
)
#: The sums a :class:`StepTimeline` holds: (total, its parts).
_TIMELINE_SUMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("communication_s", ("exposed_communication_s", "hidden_communication_s")),
    (
        "step_s",
        ("compute_s", "exposed_communication_s", "bubble_s", "input_wait_s", "load_imbalance_s", "host_wait_s"),
    ),
)
#: How far a sum may be from its parts: floating-point rounding of sums taken in another order, nothing more.
_TIMELINE_REL_TOL: float = 1e-9
_TIMELINE_ABS_TOL_S: float = 1e-12


@dataclass(frozen=True)
class StepTimeline:
    """One training step split into compute, communication and waits (all in seconds).

    ``step_s = compute_s + exposed_communication_s + bubble_s + input_wait_s + load_imbalance_s + host_wait_s``;
    ``hidden_communication_s`` runs under compute and costs nothing. ``host_wait_s`` is the time the GPU waits for the
    host (CPU) to launch its kernels (:func:`coursekit.planner.estimate.moe_host_wait_s`).

    >>> t = step_timeline(0.100, 0.040, overlap_fraction=0.5)
    >>> [(str(seg.label), seg.start_s, seg.duration_s) for seg in t.segments()]
    [('compute', 0.0, 0.1), ('communication (hidden under compute)', 0.08, 0.02),
     ('communication (exposed)', 0.1, 0.02)]

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """

    compute_s: float
    communication_s: float
    exposed_communication_s: float
    hidden_communication_s: float
    bubble_s: float
    input_wait_s: float
    step_s: float
    load_imbalance_s: float = 0.0
    host_wait_s: float = 0.0

    def __post_init__(self) -> None:
        """Each field a finite number of seconds, at least 0, kept as a float (``-0.0`` as 0.0); the communication
        the exposed part plus the hidden part, and the step the sum of its parts (the rule above), each to within
        floating-point rounding. A timeline built by hand that breaks them (a string, a negative wait, a step that
        is not its parts: fuzz pass 23) is refused naming the field, instead of a Python TypeError from
        :func:`diagnose_efficiency` or a share of a step that is not the sum of its parts."""
        for name in _TIMELINE_FIELDS:
            object.__setattr__(self, name, check_number(name, getattr(self, name), ge=0))
        for total, parts in _TIMELINE_SUMS:
            expected = math.fsum(getattr(self, name) for name in parts)
            value = getattr(self, total)
            if not math.isclose(value, expected, rel_tol=_TIMELINE_REL_TOL, abs_tol=_TIMELINE_ABS_TOL_S):
                raise ValueError(
                    tr("scaling.timeline_sum", name=total, value=value, parts=" + ".join(parts), expected=expected)
                )

    @classmethod
    def _of_checked(cls, **seconds: float) -> StepTimeline:
        """A timeline of numbers the course's own estimate computed (finite, at least 0, its sums holding by
        construction), without the field-by-field check a timeline built by hand gets: the planner builds one per
        candidate it shows, and validates at the public boundary only (``tests/test_validation_counts.py``). Fields
        not given keep their defaults."""
        timeline = object.__new__(cls)
        for name in _TIMELINE_FIELDS:
            value: Any = seconds[name] if name in seconds else cls.__dataclass_fields__[name].default
            object.__setattr__(timeline, name, float(value))
        return timeline

    def segments(self) -> tuple[TimelineSegment, ...]:
        """Bars for a chart, in step order: compute (with hidden communication at its end), exposed
        communication, then the waits (bubble, input, load imbalance, host). Zero-length waits are left out."""
        bars = [TimelineSegment("compute", _label("compute"), 0.0, self.compute_s)]
        if self.hidden_communication_s > 0:
            start = self.compute_s - self.hidden_communication_s
            bars.append(
                TimelineSegment(
                    "hidden_communication", _label("hidden_communication"), start, self.hidden_communication_s
                )
            )
        clock = self.compute_s
        for kind, duration in (
            ("communication", self.exposed_communication_s),
            ("bubble", self.bubble_s),
            ("input", self.input_wait_s),
            ("load_imbalance", self.load_imbalance_s),
            ("host", self.host_wait_s),
        ):
            if duration > 0:
                bars.append(TimelineSegment(kind, _label(kind), clock, duration))
                clock += duration
        return tuple(bars)


@finite_result
def step_timeline(
    compute_s: float,
    communication_s: float,
    overlap_fraction: float = 0.0,
    bubble_s: float = 0.0,
    input_wait_s: float = 0.0,
    load_imbalance_s: float = 0.0,
) -> StepTimeline:
    """Build a :class:`StepTimeline` from its parts.

    Parameters:
        compute_s: seconds of computation per step on one device (> 0).
        communication_s: seconds of communication per step (>= 0).
        overlap_fraction: share of the communication that runs under compute, in [0, 1].
            The hidden part is ``communication_s · overlap_fraction`` but never more
            than ``compute_s`` (communication cannot hide under compute that is not
            there); the rest is exposed.
        bubble_s: seconds idle in the pipeline bubble (>= 0; see :mod:`coursekit.pipeline`).
        input_wait_s: seconds waiting for the input pipeline (>= 0).
        load_imbalance_s: seconds waiting for the slowest device at a synchronization
            point (>= 0; see :func:`load_imbalance_s`).

    >>> t = step_timeline(0.100, 0.040, overlap_fraction=0.75, bubble_s=0.010)
    >>> round(t.exposed_communication_s, 6), round(t.step_s, 6)
    (0.01, 0.12)
    >>> step_timeline(0.01, 0.04, overlap_fraction=1.0).exposed_communication_s  # only 0.01 s can hide
    0.03

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    compute = check_number("compute_s", compute_s, gt=0)
    communication = check_number("communication_s", communication_s, ge=0)
    overlap = check_number("overlap_fraction", overlap_fraction, ge=0, le=1)
    bubble = check_number("bubble_s", bubble_s, ge=0)
    input_wait = check_number("input_wait_s", input_wait_s, ge=0)
    imbalance = check_number("load_imbalance_s", load_imbalance_s, ge=0)
    hidden = min(communication * overlap, compute)
    exposed = communication - hidden
    return StepTimeline(
        compute_s=compute,
        communication_s=communication,
        exposed_communication_s=exposed,
        hidden_communication_s=hidden,
        bubble_s=bubble,
        input_wait_s=input_wait,
        step_s=compute + exposed + bubble + input_wait + imbalance,
        load_imbalance_s=imbalance,
    )


@finite_result
def load_imbalance_s(device_compute_s: Sequence[float]) -> float:
    """Average wait for the slowest device: ``max(t) - mean(t)`` over per-device compute times (seconds).

    At a synchronization point (a gradient all-reduce, a pipeline hand-off) every
    device waits for the straggler; this is the mean of those waits.

    >>> round(load_imbalance_s([1.0, 1.0, 1.0, 1.4]), 6)  # 1.4 - 1.1
    0.3

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    times = _number_sequence("device_compute_s", device_compute_s, gt=0)
    slowest = max(times)
    # the mean of the waits max(t) - t_i: each wait is >= 0, so equal times give exactly 0 (max - mean can round below)
    return math.fsum((slowest - t) / len(times) for t in times)  # each term <= max(t) / n: no overflow


def _number_sequence(name: str, values: Any, **bounds: float) -> tuple[float, ...]:
    if not isinstance(values, (list, tuple)):
        raise TypeError(tr("scaling.not_sequence", name=name, value=values, type=type(values).__name__))
    if not values:
        raise ValueError(tr("scaling.empty_sequence", name=name))
    return tuple(check_number(f"{name}[{i}]", x, **bounds) for i, x in enumerate(values))


# ---------------------------------------------------------------------------
# Weak-scaling curve of data parallelism
# ---------------------------------------------------------------------------


def _ring_allreduce_s(devices: int, message_bytes: float, bandwidth_bytes_per_s: float, latency_s: float) -> float:
    """Ring all-reduce = reduce-scatter + all-gather (Patarasuk & Yuan 2009): the ring alpha-beta model of
    :func:`coursekit.communication.collective_cost`, 2(P-1)/P of the message per link in 2(P-1) steps."""
    return float(_collective_time_s("all_reduce", devices, message_bytes, bandwidth_bytes_per_s, latency_s))


@dataclass(frozen=True)
class ScalingPoint:
    """One point of a weak-scaling curve.

    Fields: ``devices`` ``P``; ``timeline`` (the :class:`StepTimeline` at ``P``);
    ``step_s`` (seconds); ``speedup`` (``throughput(P) / throughput(1)``);
    ``efficiency`` (``E(P) = speedup / P``).
    """

    devices: int
    timeline: StepTimeline
    step_s: float
    speedup: float
    efficiency: float


@dataclass(frozen=True)
class ScalingCurve:
    """A weak-scaling curve: ``points`` in the order the device counts were given.

    >>> curve = scaling_curve([1, 8], single_device_step_s=1.0, communication_s_fn=lambda p: 0.25 * (p > 1))
    >>> curve.devices, curve.efficiencies
    ((1, 8), (1.0, 0.8))
    """

    points: tuple[ScalingPoint, ...]

    @property
    def devices(self) -> tuple[int, ...]:
        """The device counts ``P``."""
        return tuple(point.devices for point in self.points)

    @property
    def efficiencies(self) -> tuple[float, ...]:
        """``E(P)`` for each point."""
        return tuple(point.efficiency for point in self.points)


#: Most device counts one :func:`scaling_curve` takes (a plotted curve needs tens; each point is a full step).
MAX_CURVE_POINTS: int = 1024


@finite_result
def _communication_model(
    gradient_bytes: float | None,
    bandwidth_bytes_per_s: float | None,
    latency: float,
    communication_s_fn: Callable[[int], float] | None,
) -> Callable[[int], float]:
    """:func:`scaling_curve`'s communication seconds per step as a function of P: the learner's callable (its
    results checked) or the built-in ring all-reduce; exactly one of the two must be given."""
    ring = gradient_bytes is not None or bandwidth_bytes_per_s is not None
    if communication_s_fn is not None and ring:
        raise ValueError(tr("scaling.comm_model_both"))
    if communication_s_fn is not None:
        if not callable(communication_s_fn):
            raise TypeError(
                tr(
                    "scaling.not_callable",
                    name="communication_s_fn",
                    value=communication_s_fn,
                    type=type(communication_s_fn).__name__,
                )
            )
        comm_fn = communication_s_fn

        def communication(p: int) -> float:
            return check_number(f"communication_s_fn({p})", comm_fn(p), ge=0)

    elif gradient_bytes is not None and bandwidth_bytes_per_s is not None:
        size = check_number("gradient_bytes", gradient_bytes, gt=0)
        bandwidth = check_number("bandwidth_bytes_per_s", bandwidth_bytes_per_s, gt=0)

        def communication(p: int) -> float:
            inputs = {"devices": p, "gradient_bytes": size, "bandwidth_bytes_per_s": bandwidth, "latency_s": latency}
            return check_finite_result("communication_s", _ring_allreduce_s(p, size, bandwidth, latency), inputs)

    else:
        raise ValueError(tr("scaling.comm_model_missing"))

    return communication


def scaling_curve(
    devices_list: Sequence[int],
    *,
    single_device_step_s: float,
    gradient_bytes: float | None = None,
    bandwidth_bytes_per_s: float | None = None,
    latency_s: float = 0.0,
    overlap_fraction: float = 0.0,
    communication_s_fn: Callable[[int], float] | None = None,
) -> ScalingCurve:
    """``E(P)`` of data parallelism under weak scaling (fixed per-device batch).

    Each device computes for ``single_device_step_s`` whatever ``P`` is; after
    the backward pass the gradients are all-reduced. The step is
    ``step(P) = compute + exposed communication`` (see :func:`step_timeline`) and,
    since ``P`` devices process ``P`` times the samples,
    ``E(P) = throughput(P) / (P · throughput(1)) = step(1) / step(P)``.

    Parameters:
        devices_list: device counts ``P`` (list or tuple of ints >= 1, at most :data:`MAX_CURVE_POINTS`).
        single_device_step_s: compute seconds per step on one device (> 0).
        gradient_bytes: bytes all-reduced per step (> 0); with ``bandwidth_bytes_per_s``
            selects the built-in ring all-reduce
            ``2(P-1)/P · gradient_bytes / bandwidth + 2(P-1) · latency_s``.
        bandwidth_bytes_per_s: bandwidth of the ring per GPU and direction, bytes/s (> 0).
        latency_s: per-step latency ``α`` of the ring, seconds (>= 0).
        overlap_fraction: share of the communication hidden under compute, in [0, 1].
        communication_s_fn: instead of the ring, a callable ``P -> seconds`` of communication per step.

    >>> curve = scaling_curve(
    ...     [1, 2, 8, 64], single_device_step_s=0.5, gradient_bytes=2e9, bandwidth_bytes_per_s=50e9
    ... )
    >>> [round(e, 3) for e in curve.efficiencies]  # the ring term tends to 2·S/B = 0.08 s
    [1.0, 0.926, 0.877, 0.864]

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    counts = tuple(check_int(f"devices_list[{i}]", p, ge=1) for i, p in enumerate(_sequence(devices_list)))
    compute = check_number("single_device_step_s", single_device_step_s, gt=0)
    latency = check_number("latency_s", latency_s, ge=0)
    overlap = check_number("overlap_fraction", overlap_fraction, ge=0, le=1)
    communication = _communication_model(gradient_bytes, bandwidth_bytes_per_s, latency, communication_s_fn)
    baseline = step_timeline(compute, communication(1), overlap)
    points = []
    for p in counts:
        timeline = step_timeline(compute, communication(p), overlap)
        # E(P) = throughput(P) / (P · throughput(1)) with throughput(P) = P / step(P): the P cancels.
        efficiency = baseline.step_s / timeline.step_s
        points.append(
            ScalingPoint(
                devices=p,
                timeline=timeline,
                step_s=timeline.step_s,
                speedup=p * efficiency,
                efficiency=efficiency,
            )
        )
    return ScalingCurve(points=tuple(points))


def _sequence(values: Any) -> Sequence[Any]:
    if not isinstance(values, (list, tuple)):
        raise TypeError(tr("scaling.not_sequence", name="devices_list", value=values, type=type(values).__name__))
    if not values:
        raise ValueError(tr("scaling.empty_sequence", name="devices_list"))
    return check_items("devices_list", values, max_items=MAX_CURVE_POINTS)


# ---------------------------------------------------------------------------
# Diagnosis
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EfficiencyDiagnosis:
    """Which overhead term of a step dominates, and what to do about it.

    Fields:
        dominant: ``"communication"``, ``"bubble"``, ``"input"``, ``"load_imbalance"``
            or ``"none"`` (pure compute).
        dominant_s: seconds of the dominant term.
        overhead_s: seconds of all overhead terms together (``step_s - compute_s``).
        compute_fraction: ``compute_s / step_s``; with a compute-only step on one
            device this is the best ``E(P)`` the step allows.
        terms: ``(code, seconds)`` for each of :data:`DIAGNOSIS_TERMS`.
        reason: a :class:`~coursekit.i18n.Reason` whose ``code`` is ``dominant`` and
            whose ``message`` explains it in the current language.
    """

    dominant: str
    dominant_s: float
    overhead_s: float
    compute_fraction: float
    terms: tuple[tuple[str, float], ...]
    reason: Reason


@finite_result
def diagnose_efficiency(timeline: StepTimeline) -> EfficiencyDiagnosis:
    """Name the term that makes a step longer than its compute (the step timeline decomposed, lesson 6).

    The overhead terms are exposed communication, the pipeline bubble, input
    wait and load imbalance; the largest one wins (ties go to the earlier term in
    :data:`DIAGNOSIS_TERMS`). ``E(P)`` falling is a symptom; this names the cause
    to measure next. Where communication already hides under all of the compute,
    the advice leaves out "overlap more", which could not help.

    >>> d = diagnose_efficiency(step_timeline(0.100, 0.040, bubble_s=0.010))
    >>> d.dominant, round(d.compute_fraction, 3)
    ('communication', 0.667)
    >>> d.reason.message
    'exposed communication takes 27% of the step (40 ms): overlap it with compute, send fewer bytes, or keep the \
frequent collectives on faster links.'
    >>> diagnose_efficiency(step_timeline(0.010, 0.040, overlap_fraction=1.0)).reason.key  # 10 ms hide, 30 ms show
    'scaling.diagnosis_communication_capped'

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    if not isinstance(timeline, StepTimeline):
        raise TypeError(tr("scaling.not_timeline", value=timeline, type=type(timeline).__name__))
    terms = (
        ("communication", timeline.exposed_communication_s),
        ("bubble", timeline.bubble_s),
        ("input", timeline.input_wait_s),
        ("load_imbalance", timeline.load_imbalance_s),
    )
    overhead = sum(seconds for _, seconds in terms)
    code, seconds = max(terms, key=lambda term: term[1])  # max keeps the first of equal terms
    if seconds <= 0:
        code = "none"
        reason = Reason(code, "scaling.diagnosis_none", {"compute_ms": timeline.compute_s * MS_PER_S})
    else:
        # the compute already has communication under all of it: more overlap cannot shorten the step
        capped = code == "communication" and timeline.hidden_communication_s >= timeline.compute_s
        reason = Reason(
            code,
            f"scaling.diagnosis_{code}" + ("_capped" if capped else ""),
            {"share": seconds / timeline.step_s, "overhead_ms": seconds * MS_PER_S}
            | ({"compute_ms": timeline.compute_s * MS_PER_S} if capped else {}),
        )
    return EfficiencyDiagnosis(
        dominant=code,
        dominant_s=max(seconds, 0.0),
        overhead_s=overhead,
        compute_fraction=timeline.compute_s / timeline.step_s,
        terms=terms,
        reason=reason,
    )


learner_functions(globals())
