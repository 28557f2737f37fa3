"""Pipeline parallelism (流水线并行, PP): the bubble formula and a schedule simulator.

With ``p`` stages and ``m`` micro-batches, every schedule that flushes at the end
of the step leaves each device idle while the pipeline fills and drains. The
course (lesson 6) gives the share of the step that is bubble as ``(p-1)/(m+p-1)``; the
interleaved schedule of Megatron-LM (``v`` model chunks per device) shrinks it
to ``(p-1)/(v·m+p-1)``.

:func:`simulate_schedule` replays GPipe, 1F1B and interleaved 1F1B as a
dependency-driven event simulation, so the formula can be checked, and broken
on purpose with an unbalanced stage or a point-to-point (p2p) transfer time.

Sources:

- GPipe: Huang et al., "GPipe: Efficient Training of Giant Neural Networks
  using Pipeline Parallelism", arXiv 1811.06965.
- 1F1B (PipeDream-Flush): Narayanan et al., "Memory-Efficient Pipeline-Parallel
  DNN Training", arXiv 2006.09503.
- Interleaved 1F1B and the bubble formulas: Narayanan et al., "Efficient
  Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
  arXiv 2104.04473, §2.2.1-§2.2.2; op order as in Megatron-Core's
  ``megatron/core/pipeline_parallel/schedules.py``
  (``get_pp_rank_microbatches``, ``get_schedule_table``,
  ``forward_backward_pipelining_with_interleaving``).

>>> round(bubble_fraction(4, 16), 4)
0.1579

Taught in: lesson 6 (pipeline bubble and scaling efficiency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._validate import check_choice, check_int, check_number, finite_result, learner_functions
from .i18n import Text, register, tr

__all__ = [
    "DEFAULT_BACKWARD_S",
    "DEFAULT_FORWARD_S",
    "PHASES",
    "SCHEDULES",
    "GanttBar",
    "GanttRow",
    "Schedule",
    "ScheduleEvent",
    "bubble_fraction",
    "bubble_overhead",
    "gantt_rows",
    "simulate_schedule",
    "warmup_microbatches",
]

#: The schedules :func:`simulate_schedule` knows, in the order the lesson introduces them.
SCHEDULES: tuple[str, ...] = ("gpipe", "1f1b", "interleaved")

#: Event phases: ``"F"`` forward, ``"B"`` backward.
PHASES: tuple[str, ...] = ("F", "B")

#: Default forward time of one micro-batch on one stage, in seconds (a unit of time).
DEFAULT_FORWARD_S: float = 1.0
#: Default backward time: twice the forward, since the backward pass computes gradients for both the
#: inputs and the weights (2 matmuls for every forward matmul); Narayanan et al. 2021 (arXiv 2104.04473),
#: §5.1, count a training iteration as 3x the forward FLOPs for this reason.
DEFAULT_BACKWARD_S: float = 2.0

#: Most forward passes (``stages * microbatches * virtual_stages``) :func:`simulate_schedule`
#: replays: each is an event with a backward twin, and 4096 of them answer well under a second.
MAX_SIMULATED_PASSES: int = 4096

register(
    {
        "pipeline.too_many_passes": {
            "zh": "stages · microbatches · virtual_stages = {stages} · {microbatches} · {virtual_stages}："
            "模拟会逐个重放每个前向传播，最多 {limit} 个；更大的规模请用 bubble_fraction 的闭式公式。",
            "en": "stages · microbatches · virtual_stages = {stages} · {microbatches} · {virtual_stages}: "
            "the simulation replays every forward pass, at most {limit}; use bubble_fraction's closed form "
            "for larger ones.",
        },
        "pipeline.interleaved_multiple": {
            "zh": (
                "microbatches = {microbatches!r}：交错调度 (interleaved schedule) 要求微批次 (micro-batch) 数是 "
                "stages = {stages!r} 的整数倍（Megatron-LM 按每组 {stages} 个微批次轮流送入各模型块 (model chunk)）。"
            ),
            "en": (
                "microbatches = {microbatches!r}: the interleaved schedule needs a multiple of "
                "stages = {stages!r} (Megatron-LM feeds micro-batches to each model chunk in groups of {stages})."
            ),
        },
        "pipeline.virtual_needs_interleaved": {
            "zh": (
                "virtual_stages = {virtual_stages!r}：调度 {schedule!r} 每个设备只有一个模型块；"
                "virtual_stages > 1 请用 schedule='interleaved'。"
            ),
            "en": (
                "virtual_stages = {virtual_stages!r}: schedule {schedule!r} runs one model chunk per device; "
                "use schedule='interleaved' for virtual_stages > 1."
            ),
        },
        "pipeline.interleaved_needs_virtual": {
            "zh": (
                "virtual_stages = {virtual_stages!r}：交错调度 (interleaved) 每个设备至少需要 2 个模型块 "
                "(virtual_stages >= 2)；只有 1 个时请用 schedule='1f1b'。"
            ),
            "en": (
                "virtual_stages = {virtual_stages!r}: the interleaved schedule needs at least 2 model chunks "
                "per device (virtual_stages >= 2); with 1 chunk use schedule='1f1b'."
            ),
        },
        "pipeline.stage_times_type": {
            "zh": "{name} = {value!r}：必须是每个阶段一个数的列表或元组，而不是 {type}。",
            "en": "{name} = {value!r}: must be a list or tuple with one number per stage, not {type}.",
        },
        "pipeline.stage_times_length": {
            "zh": "{name} 有 {length} 个值：必须每个阶段一个（stages = {stages}）。",
            "en": "{name} has {length:@value}: must have one per stage (stages == {stages}).",
        },
        "pipeline.stage_out_of_range": {
            "zh": "stage = {stage!r}：必须在 0 到 stages - 1 = {last} 之间。",
            "en": "stage = {stage!r}: must be between 0 and stages - 1 == {last}.",
        },
        "pipeline.type_schedule": {
            "zh": "schedule = {value!r}：必须是 simulate_schedule 返回的 Schedule，而不是 {type}。",
            "en": "schedule = {value!r}: must be a Schedule returned by simulate_schedule, not {type}.",
        },
        "pipeline.event_order": {
            "zh": "end_s = {end!r}：一次传播 (pass) 不能在开始之前结束，必须 >= start_s = {start!r}。",
            "en": "end_s = {end!r}: a pass cannot end before it starts; must be >= start_s == {start!r}.",
        },
        "pipeline.type_event": {
            "zh": "{name} = {value!r}：必须是 ScheduleEvent，而不是 {type}。",
            "en": "{name} = {value!r}: must be a ScheduleEvent, not {type}.",
        },
        "pipeline.type_events": {
            "zh": "events = {value!r}：必须是 ScheduleEvent 的列表或元组，而不是 {type}。",
            "en": "events = {value!r}: must be a list or tuple of ScheduleEvent, not {type}.",
        },
        "pipeline.row_label": {
            "zh": "设备 {stage}",
            "en": "device {stage}",
        },
    }
)


# ---------------------------------------------------------------------------
# Closed-form bubble
# ---------------------------------------------------------------------------


def _check_ints(stages: Any, microbatches: Any, virtual_stages: Any) -> tuple[int, int, int]:
    return (
        check_int("stages", stages, ge=1),
        check_int("microbatches", microbatches, ge=1),
        check_int("virtual_stages", virtual_stages, ge=1),
    )


def _check_shape(stages: Any, microbatches: Any, virtual_stages: Any) -> tuple[int, int, int]:
    p, m, v = _check_ints(stages, microbatches, virtual_stages)
    if v > 1 and m % p:
        raise ValueError(tr("pipeline.interleaved_multiple", microbatches=m, stages=p))
    return p, m, v


def _bubble_fraction(stages: Any, microbatches: Any, virtual_stages: Any) -> Any:
    """(p-1)/(v·m + p-1); array-generic, no validation (the planner's vectorised search calls it)."""
    return (stages - 1) / (virtual_stages * microbatches + stages - 1)


def _microbatches_in_flight(stages: Any, microbatches: Any, virtual_stages: Any = 1) -> tuple[Any, Any, Any]:
    """Micro-batches whose activations the (first, heaviest middle, last) stage holds at its peak; array-generic.

    1F1B (v = 1): the first stage holds min(p, m), a middle one min(max(p - 1, 1), m), the last one 1
    (:func:`warmup_microbatches` + 1, capped by the m micro-batches there are). Interleaved (v > 1): pipeline rank
    r runs 2·(p - r - 1) + (v - 1)·p warm-up chunk forwards and one more before its first backward
    (Megatron-Core's interleaved schedule, ``num_warmup_microbatches``), capped by the m·v chunk forwards there
    are; a chunk is 1/v of the stage, so rank r holds min(p + (p - 1 - 2r)/v, m) micro-batches' worth of its
    stage. Rank 0 gives Korthikanti et al.'s p·(1 + (p - 1)/(p·v)) (arXiv:2205.05198, §4.2.3); rank 1, the
    heaviest middle stage, p + (p - 3)/v; the last rank p - (p - 1)/v. The planner's memory ledger and lesson 1's
    capacity widget both count activations with it. The p in (v - 1)·p is the number N of contiguous micro-batches
    per model chunk (Megatron-Core's ``--microbatch-group-size-per-virtual-stage``, Llama 3's tunable N,
    arXiv:2407.21783 §3.3.2); Megatron-Core refuses N outside [p, m], so N = p is the fewest warm-up forwards
    the schedule allows and a larger N only holds more.

    >>> [int(x) for x in _microbatches_in_flight(4, 8)], [int(x) for x in _microbatches_in_flight(4, 2)]
    ([4, 3, 1], [2, 2, 1])
    >>> [float(x) for x in _microbatches_in_flight(4, 8, 2)]
    [5.5, 4.5, 2.5]
    """
    import numpy as np

    p, m, v = stages, microbatches, virtual_stages

    def interleaved(rank: Any) -> Any:
        return np.minimum(p + (p - 1 - 2 * rank) / v, m)

    one_chunk = np.equal(v, 1)
    return (
        np.where(one_chunk, np.minimum(p, m), interleaved(0)),
        np.where(one_chunk, np.minimum(np.maximum(p - 1, 1), m), interleaved(np.minimum(1, p - 1))),
        np.where(one_chunk, 1.0, interleaved(p - 1)),
    )


#: DualPipe's bubble per device (DeepSeek-V3, arXiv:2412.19437, §3.2.1, Table 2) is (PP/2 - 1)(F&B + B - 3W): F a
#: forward chunk, B a full backward chunk, W its weight-gradient part, F&B a forward and a backward chunk run together.
#: Taken at F : B : W = 1 : 2 : 1 (a backward twice a forward, half of it the weight gradients, as Zero Bubble splits
#: it) and F&B = F + B (the two chunks share the GPU; what they overlap is communication): (PP/2 - 1)·2F, which is
#: this share of one micro-batch's F + B per pair of stages.
DUALPIPE_BUBBLE_PER_STAGE_PAIR: float = 2.0 / 3.0


def _dualpipe_bubble_fraction(stages: Any, microbatches: Any) -> Any:
    """Share of the step DualPipe leaves idle: the bubble over the m micro-batches' F + B of a device and the bubble,
    r/(1 + r) with r = (p/2 - 1)·2/3 / m; array-generic, no validation. Each device runs a stage of each direction
    (stage i and stage p - 1 - i), so its compute is m micro-batches' worth of their mean.

    >>> round(float(_dualpipe_bubble_fraction(16, 120)), 4)  # DeepSeek-V3: PP 16; 1F1B's (p-1)/(m+p-1) is 0.1111
    0.0374
    """
    import numpy as np

    r = np.maximum(stages / 2.0 - 1.0, 0.0) * DUALPIPE_BUBBLE_PER_STAGE_PAIR / microbatches
    return r / (1.0 + r)


@finite_result
def bubble_fraction(stages: int, microbatches: int, virtual_stages: int = 1) -> float:
    """Share of the whole step that each device spends idle: ``(p-1)/(v·m + p-1)``.

    Parameters:
        stages: pipeline stages (devices) ``p``, int >= 1.
        microbatches: micro-batches per step ``m``, int >= 1.
        virtual_stages: model chunks per device ``v`` (Megatron-LM's interleaved
            schedule), int >= 1. With ``v > 1``, ``m`` must be a multiple of ``p``:
            Megatron-LM feeds micro-batches to each chunk in groups of ``p``
            (arXiv 2104.04473, §2.2.2), and :func:`simulate_schedule` uses that order.

    With ``v = 1`` this is ``(p-1)/(m+p-1)``, the form lesson 6 starts from. It is a share of the total
    step, so it lies in [0, 1); compare :func:`bubble_overhead`, which divides the
    same bubble time by the ideal (bubble-free) time instead.

    >>> bubble_fraction(4, 4)  # 3/7
    0.42857142857142855
    >>> bubble_fraction(4, 16, virtual_stages=2)  # 3/35
    0.08571428571428572
    >>> bubble_fraction(4, 6, virtual_stages=2)
    Traceback (most recent call last):
    ...
    ValueError: microbatches = 6: the interleaved schedule needs a multiple of stages = 4 (Megatron-LM feeds \
micro-batches to each model chunk in groups of 4).

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    p, m, v = _check_shape(stages, microbatches, virtual_stages)
    return float(_bubble_fraction(p, m, v))


@finite_result
def bubble_overhead(stages: int, microbatches: int, virtual_stages: int = 1) -> float:
    """Bubble time relative to the ideal time: ``(p-1)/(v·m)`` (Megatron-LM, arXiv 2104.04473, §2.2).

    Parameters are those of :func:`bubble_fraction`.

    Why two numbers? Let one micro-batch take ``t`` on a device (forward plus
    backward). The ideal step is ``t_ideal = m·t``; the fill and drain add
    ``t_bubble = (p-1)·t/v``. Megatron-LM reports the *overhead*
    ``t_bubble / t_ideal = (p-1)/(v·m)``, which can exceed 1. Lesson 6 reports
    the *fraction* of the actual step, ``t_bubble / (t_ideal + t_bubble)``.
    They are tied by ``fraction = overhead / (1 + overhead)``. Interleaving with
    ``v`` chunks divides the overhead by exactly ``v``.

    >>> bubble_overhead(4, 4)  # 3/4: the bubble is 75 % of the useful work ...
    0.75
    >>> round(bubble_overhead(4, 4) / (1 + bubble_overhead(4, 4)), 6) == round(bubble_fraction(4, 4), 6)
    True
    >>> bubble_overhead(4, 8, virtual_stages=2)  # ... and interleaving with v = 2 halves it: 3/16
    0.1875

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    p, m, v = _check_shape(stages, microbatches, virtual_stages)
    return (p - 1) / (v * m)


# ---------------------------------------------------------------------------
# Schedule simulator
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleEvent:
    """One forward or backward pass of one micro-batch on one device.

    Fields: ``stage`` (device index, 0 = first), ``microbatch`` (0-based),
    ``phase`` (``"F"`` or ``"B"``), ``start_s`` and ``end_s`` (seconds from the
    start of the step), ``chunk`` (model chunk on that device, 0-based; always 0
    unless the schedule is interleaved; chunk ``c`` of device ``s`` holds the
    layers of virtual stage ``c·p + s``).

    >>> ScheduleEvent(stage=0, microbatch=0, phase="F", start_s=0.0, end_s=1.0, chunk=0).duration_s
    1.0
    """

    stage: int
    microbatch: int
    phase: str
    start_s: float
    end_s: float
    chunk: int = 0

    def __post_init__(self) -> None:
        """An event built by hand holds a device, micro-batch and chunk index (ints >= 0), a phase of
        :data:`PHASES` and finite seconds ``0 <= start_s <= end_s`` (kept as floats): ``stage='0'`` or an end before
        its start is refused naming the field (fuzz pass 24). The simulator builds its events through
        :meth:`_of_checked`, validating once at its public boundary."""
        object.__setattr__(self, "stage", check_int("stage", self.stage, ge=0))
        object.__setattr__(self, "microbatch", check_int("microbatch", self.microbatch, ge=0))
        object.__setattr__(self, "phase", check_choice("phase", self.phase, PHASES))
        start = check_number("start_s", self.start_s, ge=0)
        end = check_number("end_s", self.end_s)
        if end < start:
            raise ValueError(tr("pipeline.event_order", end=end, start=start))
        object.__setattr__(self, "start_s", start)
        object.__setattr__(self, "end_s", end)
        object.__setattr__(self, "chunk", check_int("chunk", self.chunk, ge=0))

    @classmethod
    def _of_checked(
        cls, stage: int, microbatch: int, phase: str, start_s: float, end_s: float, chunk: int = 0
    ) -> ScheduleEvent:
        """An event of fields the simulator computed from a checked layout (valid by construction), without the
        field-by-field check of :meth:`__post_init__`; ``tests/test_fuzz_regressions24.py`` checks it equals the
        checked constructor on the simulator's events."""
        event = object.__new__(cls)
        for name, value in (
            ("stage", stage),
            ("microbatch", microbatch),
            ("phase", phase),
            ("start_s", start_s),
            ("end_s", end_s),
            ("chunk", chunk),
        ):
            object.__setattr__(event, name, value)
        return event

    @property
    def duration_s(self) -> float:
        """``end_s - start_s`` in seconds."""
        return self.end_s - self.start_s


@dataclass(frozen=True)
class Schedule:
    """The simulated timeline of one training step of a pipeline.

    Fields:
        schedule: ``"gpipe"``, ``"1f1b"`` or ``"interleaved"``.
        stages, microbatches, virtual_stages: the shape ``p``, ``m``, ``v``.
        events: every pass, sorted by device then start time.
        makespan_s: end of the last pass (seconds).
        busy_s_per_stage: seconds each device computes.
        idle_fraction: total idle time over ``stages × makespan_s``.
        peak_inflight_per_stage: per device, the largest number of forward passes
            (one per micro-batch and chunk) finished whose backward has not finished:
            the activations the device must hold at once. GPipe: ``m``; 1F1B: at
            most ``p - s`` on device ``s``. With ``v`` chunks each pass holds the
            activations of ``1/v`` of the device's layers.

    >>> s = simulate_schedule(2, 2, schedule="gpipe")
    >>> s.makespan_s, s.idle_fraction
    (9.0, 0.3333333333333333)

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """

    schedule: str
    stages: int
    microbatches: int
    virtual_stages: int
    events: tuple[ScheduleEvent, ...]
    makespan_s: float
    busy_s_per_stage: tuple[float, ...]
    idle_fraction: float
    peak_inflight_per_stage: tuple[int, ...]

    def __post_init__(self) -> None:
        """A schedule built by hand is checked as :func:`simulate_schedule` checks its arguments (the schedule's name
        and a shape it can run), its events are :class:`ScheduleEvent` on its devices, micro-batches and chunks
        ending by ``makespan_s``, its per-device figures one per device (busy seconds at most the makespan, peaks
        ints >= 0) and its idle fraction in [0, 1]; lists come back as tuples (fuzz pass 24). The simulator builds
        its result through :meth:`_of_checked`."""
        name = check_choice("schedule", self.schedule, SCHEDULES)
        p, m, v = _check_layout(name, self.stages, self.microbatches, self.virtual_stages)
        makespan = check_number("makespan_s", self.makespan_s, ge=0)
        if not isinstance(self.events, (list, tuple)):
            raise TypeError(tr("pipeline.type_events", value=self.events, type=type(self.events).__name__))
        for i, event in enumerate(self.events):
            if not isinstance(event, ScheduleEvent):
                raise TypeError(tr("pipeline.type_event", name=f"events[{i}]", value=event, type=type(event).__name__))
            check_int(f"events[{i}].stage", event.stage, ge=0, le=p - 1)
            check_int(f"events[{i}].microbatch", event.microbatch, ge=0, le=m - 1)
            check_int(f"events[{i}].chunk", event.chunk, ge=0, le=v - 1)
            check_number(f"events[{i}].end_s", event.end_s, le=makespan)
        busy = _stage_times("busy_s_per_stage", self.busy_s_per_stage, 0.0, p, ge=0, le=makespan)
        peaks = _stage_values("peak_inflight_per_stage", self.peak_inflight_per_stage, p)
        object.__setattr__(self, "schedule", name)
        object.__setattr__(self, "stages", p)
        object.__setattr__(self, "microbatches", m)
        object.__setattr__(self, "virtual_stages", v)
        object.__setattr__(self, "events", tuple(self.events))
        object.__setattr__(self, "makespan_s", makespan)
        object.__setattr__(self, "busy_s_per_stage", busy)
        object.__setattr__(self, "idle_fraction", check_number("idle_fraction", self.idle_fraction, ge=0, le=1))
        object.__setattr__(
            self,
            "peak_inflight_per_stage",
            tuple(check_int(f"peak_inflight_per_stage[{i}]", x, ge=0) for i, x in enumerate(peaks)),
        )

    @classmethod
    def _of_checked(cls, **fields: Any) -> Schedule:
        """A schedule :func:`simulate_schedule` computed from checked arguments, without :meth:`__post_init__`'s
        checks (validated once, at the public boundary; ``tests/test_fuzz_regressions24.py`` checks it equals the
        checked constructor on the simulator's results)."""
        schedule = object.__new__(cls)
        for name in cls.__dataclass_fields__:
            object.__setattr__(schedule, name, fields[name])
        return schedule

    @property
    def peak_activation_microbatches_per_stage(self) -> tuple[float, ...]:
        """Peak stashed activations per device, in whole-micro-batch units (``peak_inflight / v``).

        One pass of one chunk holds ``1/v`` of a device's layers. On device 0 the
        interleaved schedule needs ``p·(1 + (p-1)/(p·v))`` of them against ``p`` for
        1F1B (Korthikanti et al., arXiv 2205.05198, §4.2.3).

        >>> simulate_schedule(4, 8, schedule="interleaved", virtual_stages=2).peak_activation_microbatches_per_stage[0]
        5.5
        """
        return tuple(peak / self.virtual_stages for peak in self.peak_inflight_per_stage)


def warmup_microbatches(
    stages: int, microbatches: int, stage: int, *, schedule: str = "1f1b", virtual_stages: int = 1
) -> int:
    """Forward passes device ``stage`` runs before its first backward pass.

    Parameters:
        stages, microbatches, virtual_stages: ``p``, ``m``, ``v`` as in :func:`bubble_fraction`.
        stage: device index ``s`` in ``0 .. p-1``.
        schedule: ``"gpipe"`` (all ``m`` forwards first), ``"1f1b"``
            (``min(p - s - 1, m)``, PipeDream-Flush, arXiv 2006.09503) or
            ``"interleaved"`` (``min(2·(p - s - 1) + (v - 1)·p, v·m)``, counting one
            pass per micro-batch and chunk, as in Megatron-Core's
            ``get_pp_rank_microbatches``).

    >>> [warmup_microbatches(4, 8, s) for s in range(4)]
    [3, 2, 1, 0]
    >>> [warmup_microbatches(4, 8, s, schedule="interleaved", virtual_stages=2) for s in range(4)]
    [10, 8, 6, 4]

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    name = check_choice("schedule", schedule, SCHEDULES)
    p, m, v = _check_layout(name, stages, microbatches, virtual_stages)
    s = check_int("stage", stage, ge=0)
    if s >= p:
        raise ValueError(tr("pipeline.stage_out_of_range", stage=stage, last=p - 1))
    return _warmup(name, p, m, v, s)


def _check_layout(schedule: str, stages: Any, microbatches: Any, virtual_stages: Any) -> tuple[int, int, int]:
    _, _, v = _check_ints(stages, microbatches, virtual_stages)
    if schedule == "interleaved" and v < 2:
        raise ValueError(tr("pipeline.interleaved_needs_virtual", virtual_stages=v))
    if schedule != "interleaved" and v > 1:
        raise ValueError(tr("pipeline.virtual_needs_interleaved", virtual_stages=v, schedule=schedule))
    return _check_shape(stages, microbatches, virtual_stages)


def _warmup(schedule: str, p: int, m: int, v: int, s: int) -> int:
    if schedule == "gpipe":
        return m
    if schedule == "1f1b":
        return min(p - s - 1, m)
    return min(2 * (p - s - 1) + (v - 1) * p, v * m)


# An op on one device: (phase, microbatch, chunk).
_Op = tuple[str, int, int]


def _device_order(schedule: str, p: int, m: int, v: int, s: int) -> list[_Op]:
    """The fixed order in which device ``s`` runs its passes."""
    if schedule == "gpipe":
        # All forwards, then all backwards. With equal stages the order of the backwards changes neither
        # the step time nor the peak memory (m); micro-batch order keeps the chart easy to read.
        return [("F", i, 0) for i in range(m)] + [("B", i, 0) for i in range(m)]
    if schedule == "1f1b":
        forwards: list[_Op] = [("F", i, 0) for i in range(m)]
        backwards: list[_Op] = [("B", i, 0) for i in range(m)]
    else:
        # Megatron-Core's schedule table: micro-batches go to chunk 0 in a group of p, then the same
        # group to chunk 1, ..., then the next group. Backward passes walk the same table with the
        # chunk order reversed (the last chunk's backward comes first).
        table = [(i, c) for first in range(0, m, p) for c in range(v) for i in range(first, first + p)]
        forwards = [("F", i, c) for i, c in table]
        backwards = [("B", i, v - 1 - c) for i, c in table]
    warmup = _warmup(schedule, p, m, v, s)
    steady = len(forwards) - warmup
    order: list[_Op] = list(forwards[:warmup])
    for k in range(steady):  # one forward, one backward
        order.append(forwards[warmup + k])
        order.append(backwards[k])
    order.extend(backwards[steady:])  # cool-down
    return order


def _stage_values(name: str, values: Any, p: int) -> tuple[Any, ...]:
    """``values`` as a tuple after checking it is a list or tuple of one value per device (the values unchecked)."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(tr("pipeline.stage_times_type", name=name, value=values, type=type(values).__name__))
    if len(values) != p:
        raise ValueError(tr("pipeline.stage_times_length", name=name, length=len(values), stages=p))
    return tuple(values)


def _stage_times(name: str, values: Any, default: float, p: int, **bounds: float) -> tuple[float, ...]:
    """Per-device seconds: ``default`` for each of ``p`` devices when ``values`` is None, else ``values`` checked
    (one finite number per device, each > 0 unless ``bounds`` say otherwise)."""
    if values is None:
        return (default,) * p
    limits = bounds or {"gt": 0}
    return tuple(check_number(f"{name}[{i}]", x, **limits) for i, x in enumerate(_stage_values(name, values, p)))


def _run_schedule(
    name: str, p: int, m: int, v: int, fwd: Sequence[float], bwd: Sequence[float], link_s: float
) -> list[list[ScheduleEvent]]:
    """Every device's passes in the order ``name`` runs them, each as soon as its input has arrived."""
    orders = [_device_order(name, p, m, v, s) for s in range(p)]
    last_virtual = p * v - 1
    done: dict[tuple[str, int, int], float] = {}  # (phase, microbatch, virtual stage) -> end time
    position = [0] * p
    free_at = [0.0] * p
    timeline: list[list[ScheduleEvent]] = [[] for _ in range(p)]

    def ready_at(s: int, op: _Op) -> float | None:
        phase, i, c = op
        g = c * p + s
        if phase == "F":
            if g == 0:
                return 0.0
            source = ("F", i, g - 1)
        elif g == last_virtual:
            source = ("F", i, g)
        else:
            source = ("B", i, g + 1)
        end = done.get(source)
        if end is None:
            return None
        return end + (link_s if source[2] % p != s else 0.0)

    remaining = sum(len(order) for order in orders)
    while remaining:
        progressed = False
        for s in range(p):
            while position[s] < len(orders[s]):
                op = orders[s][position[s]]
                arrival = ready_at(s, op)
                if arrival is None:
                    break
                phase, i, c = op
                start = max(free_at[s], arrival)
                end = start + (fwd[s] if phase == "F" else bwd[s]) / v
                timeline[s].append(ScheduleEvent._of_checked(s, i, phase, start, end, c))
                done[(phase, i, c * p + s)] = end
                free_at[s] = end
                position[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:  # pragma: no cover - the schedules above never deadlock
            raise RuntimeError(f"pipeline schedule {name!r} deadlocked at positions {position}")

    return timeline


def _peak_inflight(row: Sequence[ScheduleEvent]) -> int:
    """Most micro-batches one device holds activations for: forwards run minus backwards run, at its peak."""
    inflight = peak = 0
    for event in row:  # passes on one device run one after another
        inflight += 1 if event.phase == "F" else -1
        peak = max(peak, inflight)
    return peak


@finite_result
def simulate_schedule(
    stages: int,
    microbatches: int,
    *,
    schedule: str = "1f1b",
    virtual_stages: int = 1,
    forward_s: float = DEFAULT_FORWARD_S,
    backward_s: float = DEFAULT_BACKWARD_S,
    stage_forward_s: Sequence[float] | None = None,
    stage_backward_s: Sequence[float] | None = None,
    p2p_s: float = 0.0,
) -> Schedule:
    """Replay one training step of a pipeline schedule as a dependency-driven event simulation.

    Every device runs its passes in the fixed order the schedule prescribes. A
    forward pass of micro-batch ``i`` on virtual stage ``g`` starts when its device
    is free and the activation from virtual stage ``g-1`` has arrived; a backward
    pass needs the gradient from virtual stage ``g+1`` (the last virtual stage
    needs only its own forward pass).

    Parameters:
        stages, microbatches: ``p`` devices and ``m`` micro-batches (ints >= 1).
        schedule: ``"gpipe"`` (all forwards, then all backwards; arXiv 1811.06965),
            ``"1f1b"`` (PipeDream-Flush: ``p - s - 1`` warm-up forwards, then one
            forward / one backward; arXiv 2006.09503) or ``"interleaved"``
            (Megatron-LM's interleaved 1F1B with ``v`` chunks per device; arXiv
            2104.04473 §2.2.2; needs ``m`` a multiple of ``p``).
        virtual_stages: model chunks per device ``v``: 1 for gpipe and 1f1b, >= 2 for interleaved.
        forward_s, backward_s: seconds for one micro-batch's forward / backward
            pass through one device's layers (all its chunks together; one chunk takes ``1/v`` of it).
        stage_forward_s, stage_backward_s: optional list or tuple of ``p`` per-device
            times (seconds) that replace ``forward_s`` / ``backward_s``, to model an
            unbalanced stage.
        p2p_s: seconds to send one activation or gradient to another device (>= 0).

    With equal stages and ``p2p_s = 0`` the idle fraction equals
    :func:`bubble_fraction` for any forward/backward ratio. Every pass is
    simulated, so ``stages * microbatches * virtual_stages`` is at most
    :data:`MAX_SIMULATED_PASSES`; the closed form has no such bound.

    >>> s = simulate_schedule(4, 4)
    >>> s.makespan_s  # (m + p - 1)·(forward + backward) = 7·3
    21.0
    >>> s.idle_fraction == bubble_fraction(4, 4)
    True
    >>> s.peak_inflight_per_stage
    (4, 3, 2, 1)
    >>> simulate_schedule(4, 8, schedule="interleaved", virtual_stages=2).makespan_s  # 8·3 + 3·3/2
    28.5

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    name = check_choice("schedule", schedule, SCHEDULES)
    p, m, v = _check_layout(name, stages, microbatches, virtual_stages)
    if p * m * v > MAX_SIMULATED_PASSES:
        raise ValueError(
            tr("pipeline.too_many_passes", stages=p, microbatches=m, virtual_stages=v, limit=MAX_SIMULATED_PASSES)
        )
    fwd = _stage_times("stage_forward_s", stage_forward_s, check_number("forward_s", forward_s, gt=0), p)
    bwd = _stage_times("stage_backward_s", stage_backward_s, check_number("backward_s", backward_s, gt=0), p)
    link_s = check_number("p2p_s", p2p_s, ge=0)

    timeline = _run_schedule(name, p, m, v, fwd, bwd, link_s)
    free_at = [row[-1].end_s if row else 0.0 for row in timeline]
    makespan = max(free_at)
    busy = tuple(sum(e.duration_s for e in row) for row in timeline)
    idle = sum(makespan - b for b in busy) / (p * makespan)
    return Schedule._of_checked(
        schedule=name,
        stages=p,
        microbatches=m,
        virtual_stages=v,
        events=tuple(e for row in timeline for e in row),
        makespan_s=makespan,
        busy_s_per_stage=busy,
        idle_fraction=idle,
        peak_inflight_per_stage=tuple(_peak_inflight(row) for row in timeline),
    )


# ---------------------------------------------------------------------------
# Plain data for a Gantt chart
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GanttBar:
    """One bar of a pipeline Gantt chart.

    Fields: ``start_s`` and ``duration_s`` (seconds), ``phase`` (``"F"``/``"B"``),
    ``microbatch``, ``chunk`` (colour key for interleaved schedules) and ``text``
    (the language-neutral bar caption, e.g. ``"F3"``).
    """

    start_s: float
    duration_s: float
    phase: str
    microbatch: int
    chunk: int
    text: str


@dataclass(frozen=True)
class GanttRow:
    """One device's row: ``stage`` index, bilingual ``label`` and its ``bars`` in time order."""

    stage: int
    label: Text
    bars: tuple[GanttBar, ...]


def gantt_rows(schedule: Schedule) -> tuple[GanttRow, ...]:
    """Turn a :class:`Schedule` into one row of bars per device, for ``broken_barh``-style plots.

    Device 0 comes first; idle time is simply the gaps between bars.

    >>> rows = gantt_rows(simulate_schedule(2, 2))
    >>> [bar.text for bar in rows[0].bars]
    ['F0', 'F1', 'B0', 'B1']
    >>> str(rows[1].label)
    'device 1'

    Taught in: lesson 6 (pipeline bubble and scaling efficiency).
    """
    if not isinstance(schedule, Schedule):
        raise TypeError(tr("pipeline.type_schedule", value=schedule, type=type(schedule).__name__))
    rows = []
    for s in range(schedule.stages):
        bars = tuple(
            GanttBar(e.start_s, e.duration_s, e.phase, e.microbatch, e.chunk, f"{e.phase}{e.microbatch}")
            for e in schedule.events
            if e.stage == s
        )
        label = Text(zh=tr("pipeline.row_label", lang="zh", stage=s), en=tr("pipeline.row_label", lang="en", stage=s))
        rows.append(GanttRow(stage=s, label=label, bars=bars))
    return tuple(rows)


learner_functions(globals())
