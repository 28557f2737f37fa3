"""Measure a real training step: profiler timelines split into compute, communication and waiting.

:func:`run_timeline` trains the lab's small transformer for a few steps
under DDP, FSDP2 or tensor parallelism with :mod:`torch.profiler` running on
every rank, exports one Chrome / Perfetto trace per rank (open it in
``chrome://tracing`` or https://ui.perfetto.dev) and reduces each rank's
step, read back from that exported JSON, to:

* **compute** — the main thread busy in PyTorch operators that are not
  collectives;
* **communication** — the backend running a collective (``gloo:*`` /
  ``nccl:*`` spans on any thread, and the collective operators ``c10d::*``
  on the main thread), split into the part **hidden** under compute and the
  **exposed** part;
* **waiting for a slower rank** — the share of a collective a rank spends
  before the last rank arrives. For the k-th collective of a step, every rank
  measures its duration; the rank that arrived last waited for nobody, so the
  shortest duration over ranks is the transfer and each rank's excess is its
  wait (the "wait at N×N" pattern of trace analysers such as Scalasca). No
  clock has to agree between ranks, so the rule holds across nodes too;
* **input wait** — time in the step's input region (loading the batch);
* **other** — the rest of the step: the main thread between operators
  (Python, dispatch, the profiler's own cost). It is reported, not hidden.

The five parts partition the step, so they sum to it exactly (to the trace's
microsecond rounding, :data:`SUM_TOLERANCE_S`); the trace's step also lies
inside an independent wall clock read around each step (:func:`step_inside_wall_clock`),
and usually agrees with it within :data:`WALL_TOLERANCE_FRACTION` (:func:`wall_clock_agrees`
checks a recording; how close they are depends on the machine's load, so it is not guaranteed).

Faults can be injected, each in a scenario of its own after a clean
baseline: a slow rank (extra compute on one rank), an input delay, and, for
DDP, gradient communication moved after backward (no bucketing, no overlap).
Each scenario is compared with :func:`coursekit.scaling.step_timeline` fed
with the baseline's measured compute and communication and the injected
amounts.

The reduction is plain Python (no torch import), so it can be tested on
synthetic traces and re-read from a recorded run.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from .._validate import check_choice, check_int, check_number
from ..i18n import Reason, register, tr
from ..scaling import StepTimeline, load_imbalance_s, scaling_efficiency, step_timeline
from ..units import MS_PER_S
from ._env import quiet_profiler, temporary_folder
from ._format import render_table
from .collectives import DEVICES, check_ranks

__all__ = [
    "COMM_PREFIXES",
    "INPUT_REGION",
    "PARTS",
    "SCENARIOS",
    "STEP_REGION",
    "SUM_TOLERANCE_S",
    "TIMELINE_SCHEMA",
    "TIMELINE_STRATEGIES",
    "WALL_TOLERANCE_FRACTION",
    "EfficiencyPoint",
    "RankStepEvents",
    "Scenario",
    "ScenarioResult",
    "StepBreakdown",
    "TimelineReport",
    "breakdown_steps",
    "efficiency_points",
    "extract_steps",
    "load_timeline_json",
    "predict",
    "run_timeline",
    "scenarios_for",
    "skip_reason",
    "step_inside_wall_clock",
    "step_intervals",
]

#: Strategies of the timeline lab (FSDP is FSDP2 ``fully_shard`` with resharding after forward).
TIMELINE_STRATEGIES: tuple[str, ...] = ("ddp", "fsdp", "tp")
#: Scenarios in the order they run; ``baseline`` always runs first.
SCENARIOS: tuple[str, ...] = ("baseline", "slow_rank", "input_delay", "no_overlap")
#: Parts of a step; they partition it (``other`` is what no named part covers).
PARTS: tuple[str, ...] = ("compute", "exposed_communication", "wait_slower_rank", "input_wait", "other")
#: ``record_function`` names the worker puts around each step and its input.
STEP_REGION: str = "coursekit.step"
INPUT_REGION: str = "coursekit.input"
#: Names of collective spans in a PyTorch trace: the c10d operators, and the backends' own spans.
COMM_PREFIXES: tuple[str, ...] = ("c10d::", "_c10d_functional::", "c10d_functional::", "gloo:", "nccl:", "nccl")
#: Backend spans, one per collective call, matched across ranks to split waiting from transfer.
BACKEND_PREFIXES: tuple[str, ...] = ("gloo:", "nccl:")
#: The parts partition the step; what they may miss is the trace's rounding (1 µs per event edge).
SUM_TOLERANCE_S: float = 1e-5
#: The trace's step may differ from the wall clock read around it by this share (plus 1 ms):
#: ``record_function`` enters and leaves a few microseconds inside the two clock reads.
WALL_TOLERANCE_FRACTION: float = 0.05
WALL_TOLERANCE_S: float = 1e-3
#: Version tag of the JSON written by :meth:`TimelineReport.to_json_dict`.
TIMELINE_SCHEMA: str = "coursekit.lab.timeline/1"
#: Default number of profiled steps per scenario, and its ceiling.
DEFAULT_STEPS: int = 3
MAX_STEPS: int = 50
#: Largest slow factor and input delay (the lab must finish in minutes on 2 cores).
MAX_SLOW_FACTOR: float = 20.0
MAX_INPUT_DELAY_MS: float = 2000.0

#: Sizes of the timeline model that tensor parallelism must divide (the worker's TIMELINE_CONFIG).
TIMELINE_SIZES: Mapping[str, int] = {"heads": 8, "d_model": 128, "d_ff": 512}

_US_PER_S = 1e6

register(
    {
        "lab.tl_part_compute": {"zh": "计算", "en": "compute"},
        "lab.tl_part_exposed_communication": {"zh": "暴露的通信", "en": "exposed comm"},
        "lab.tl_part_wait_slower_rank": {"zh": "等慢 rank", "en": "wait: slower rank"},
        "lab.tl_part_input_wait": {"zh": "等输入", "en": "wait: input"},
        "lab.tl_part_other": {"zh": "其他", "en": "other"},
        "lab.tl_part_hidden_communication": {"zh": "被掩盖的通信", "en": "hidden comm"},
        "lab.tl_part_step": {"zh": "步时", "en": "step"},
        "lab.tl_legend": {
            "zh": "前五列相加等于步时；“其他”是主线程在算子之间的时间（Python、调度、profiler 自身），"
            "模型把它算进计算；“被掩盖的通信”与计算同时进行，不占步时。",
            "en": "The first five columns sum to the step; 'other' is the main thread's time between operators "
            "(Python, dispatch, the profiler itself), which the model counts as compute; 'hidden comm' runs "
            "under compute and costs no step time.",
        },
        "lab.tl_scenario_baseline": {"zh": "基线（无注入）", "en": "baseline (nothing injected)"},
        "lab.tl_scenario_slow_rank": {
            "zh": "慢 rank：rank {rank} 的计算 × {factor:g}",
            "en": "slow rank: rank {rank} computes × {factor:g}",
        },
        "lab.tl_scenario_input_delay": {
            "zh": "输入延迟：每步 {delay_ms:g} ms",
            "en": "input delay: {delay_ms:g} ms per step",
        },
        "lab.tl_scenario_no_overlap": {
            "zh": "关闭重叠：反向结束后一次性 all-reduce 全部梯度",
            "en": "no overlap: all gradients all-reduced after backward",
        },
        "lab.tl_title": {
            "zh": "{strategy}，{scenario}：{ranks} 个 rank，每个 rank {steps} 步的平均（毫秒）",
            "en": "{strategy}, {scenario}: {ranks} ranks, mean of {steps} steps per rank (ms)",
        },
        "lab.tl_col_rank": {"zh": "rank 编号", "en": "rank"},
        "lab.tl_model": {"zh": "模型预测", "en": "model"},
        "lab.tl_measured_mean": {"zh": "实测（各 rank 平均）", "en": "measured (mean of ranks)"},
        "lab.tl_sum_ok": {
            "zh": "各部分之和等于步时（误差 ≤ {tolerance_us:g} µs）；“其他”占步时的 {other:.0%}。",
            "en": "The parts sum to the step (within {tolerance_us:g} µs); 'other' is {other:.0%} of the step.",
        },
        "lab.tl_slowest": {
            "zh": "等待最少的是 rank {rank}：其他 rank 在集合通信处等它，它就是慢 rank。",
            "en": "rank {rank} waits least: the others wait for it at the collectives, so it is the slow rank.",
        },
        "lab.tl_skipped": {
            "zh": "{strategy}，{scenario}：跳过，{message}",
            "en": "{strategy}, {scenario}: skipped, {message}",
        },
        "lab.tl_no_overlap_ddp_only": {
            "zh": "关闭重叠只对 DDP 有意义（它在反向中按桶重叠 all-reduce）。",
            "en": "turning overlap off applies to DDP only (it overlaps bucketed all-reduces with backward).",
        },
        "lab.tl_tp_unsupported": {
            "zh": "张量并行需要 rank 数整除 heads = {heads}、d_model = {d_model} 与 d_ff = {d_ff}，"
            "而 ranks = {ranks}。",
            "en": "tensor parallelism needs the rank count to divide heads = {heads}, d_model = {d_model} and "
            "d_ff = {d_ff}; ranks = {ranks}.",
        },
        "lab.tl_slow_rank_range": {
            "zh": "slow_rank = {value!r}：必须在 0 到 ranks - 1 = {last} 之间。",
            "en": "slow_rank = {value!r}: must be between 0 and ranks - 1 = {last}.",
        },
        "lab.tl_slow_pair": {
            "zh": "slow_rank 与 slow_factor 必须一起给出（slow_factor > 1）。",
            "en": "give slow_rank and slow_factor together (slow_factor > 1).",
        },
        "lab.tl_not_trace": {
            "zh": "{name}：不是 PyTorch profiler 导出的 Chrome 追踪（缺少 traceEvents 列表）。",
            "en": "{name}: not a Chrome trace exported by the PyTorch profiler (no traceEvents list).",
        },
        "lab.tl_no_steps": {
            "zh": "{name}：追踪中没有名为 {region} 的步区间。",
            "en": "{name}: the trace has no step region named {region}.",
        },
        "lab.tl_bad_json": {
            "zh": "不是 coursekit 时间线实验的结果（schema 应为 {schema}）。",
            "en": "not a result of coursekit's timeline lab (schema should be {schema}).",
        },
        "lab.tl_eff_title": {
            "zh": "扩展效率 E(P)（弱扩展：每个 rank 的 batch 固定），{strategy}，本机",
            "en": "Scaling efficiency E(P) (weak scaling: fixed batch per rank), {strategy}, this machine",
        },
        "lab.tl_eff_col_p": {"zh": "P（rank 数）", "en": "P (ranks)"},
        "lab.tl_eff_col_step": {"zh": "步时 (ms)", "en": "step (ms)"},
        "lab.tl_eff_col_e": {"zh": "效率 E(P)", "en": "E(P)"},
        "lab.tl_eff_col_cause": {"zh": "比 P = 1 多出的时间主要来自", "en": "extra time over P = 1 mostly from"},
        "lab.tl_eff_none": {"zh": "（基准）", "en": "(reference)"},
    }
)


# ---------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One run of a strategy: ``name`` (one of :data:`SCENARIOS`) and what is injected.

    ``slow_rank`` computes ``slow_factor`` times its baseline compute (the extra
    is busy matrix work before the forward pass); ``input_delay_s`` is slept in
    every step's input region; ``overlap=False`` makes DDP all-reduce all
    gradients in one call after backward.

    Taught in: lesson 8 (formula vs measurement).
    """

    name: str
    slow_rank: int | None = None
    slow_factor: float = 1.0
    input_delay_s: float = 0.0
    overlap: bool = True

    def label(self) -> str:
        """The scenario in words, in the current language."""
        if self.name == "slow_rank":
            return tr("lab.tl_scenario_slow_rank", rank=self.slow_rank, factor=self.slow_factor)
        if self.name == "input_delay":
            return tr("lab.tl_scenario_input_delay", delay_ms=self.input_delay_s * MS_PER_S)
        return tr(f"lab.tl_scenario_{self.name}")

    def to_json_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return {
            "name": self.name,
            "slow_rank": self.slow_rank,
            "slow_factor": self.slow_factor,
            "input_delay_s": self.input_delay_s,
            "overlap": self.overlap,
        }


def scenarios_for(
    ranks: int,
    *,
    slow_rank: int | None = None,
    slow_factor: float | None = None,
    input_delay_ms: float | None = None,
    no_overlap: bool = False,
) -> tuple[Scenario, ...]:
    """The baseline and one scenario per requested fault, validated.

    >>> [s.name for s in scenarios_for(2, slow_rank=1, slow_factor=3, input_delay_ms=20)]
    ['baseline', 'slow_rank', 'input_delay']
    >>> scenarios_for(2, slow_rank=2, slow_factor=3)
    Traceback (most recent call last):
    ...
    ValueError: slow_rank = 2: must be between 0 and ranks - 1 = 1.

    Taught in: lesson 8 (formula vs measurement).
    """
    n = check_int("ranks", ranks, ge=1)
    chosen = [Scenario("baseline")]
    if (slow_rank is None) != (slow_factor is None):
        raise ValueError(tr("lab.tl_slow_pair"))
    if slow_rank is not None and slow_factor is not None:
        rank = check_int("slow_rank", slow_rank, ge=0)
        if rank >= n:
            raise ValueError(tr("lab.tl_slow_rank_range", value=rank, last=n - 1))
        factor = check_number("slow_factor", slow_factor, gt=1, le=MAX_SLOW_FACTOR)
        chosen.append(Scenario("slow_rank", slow_rank=rank, slow_factor=factor))
    if input_delay_ms is not None:
        delay = check_number("input_delay_ms", input_delay_ms, gt=0, le=MAX_INPUT_DELAY_MS)
        chosen.append(Scenario("input_delay", input_delay_s=delay / MS_PER_S))
    if no_overlap:
        chosen.append(Scenario("no_overlap", overlap=False))
    return tuple(chosen)


def skip_reason(
    strategy: str, scenario: Scenario, ranks: int, config: Mapping[str, int] | None = None
) -> Reason | None:
    """Why ``strategy`` cannot run ``scenario`` on ``ranks`` ranks, or ``None``.

    >>> skip_reason("tp", Scenario("no_overlap", overlap=False), 2).code
    'no_overlap_ddp_only'
    >>> skip_reason("tp", Scenario("baseline"), 3, {"heads": 8, "d_model": 128, "d_ff": 512}).code
    'tp_unsupported'

    Taught in: lesson 8 (formula vs measurement).
    """
    if scenario.name == "no_overlap" and strategy != "ddp":
        return Reason("no_overlap_ddp_only", "lab.tl_no_overlap_ddp_only", {})
    sizes = dict(config or TIMELINE_SIZES)
    if strategy == "tp" and any(sizes[name] % ranks for name in ("heads", "d_model", "d_ff")):
        return Reason(
            "tp_unsupported",
            "lab.tl_tp_unsupported",
            {**{k: sizes[k] for k in ("heads", "d_model", "d_ff")}, "ranks": ranks},
        )
    return None


# ---------------------------------------------------------------------------
# Reading the exported trace
# ---------------------------------------------------------------------------

Interval = tuple[float, float]


def _union(intervals: Iterable[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _length(intervals: Iterable[Interval]) -> float:
    return sum(end - start for start, end in intervals)


def _intersect(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if end > start:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def _subtract(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    out: list[Interval] = []
    for start, end in a:
        cursor = start
        for b_start, b_end in b:
            if b_end <= cursor or b_start >= end:
                continue
            if b_start > cursor:
                out.append((cursor, b_start))
            cursor = max(cursor, b_end)
        if cursor < end:
            out.append((cursor, end))
    return out


def _is_comm(name: str) -> bool:
    return name.startswith(COMM_PREFIXES)


@dataclass(frozen=True)
class RankStepEvents:
    """What one rank's trace says about one step (all times in µs of that trace's clock).

    ``step``: the step region; ``input``: input regions; ``compute``: operator
    spans of the compute stream (the main thread on CPU, GPU kernels on CUDA)
    that are not collectives; ``comm``: every collective span (any thread);
    ``collectives``: ``(name, start, duration)`` of each backend collective,
    in order of start; ``wall_s``: the wall clock read around the step, if known.

    Taught in: lesson 8 (formula vs measurement).
    """

    step: Interval
    input: tuple[Interval, ...]
    compute: tuple[Interval, ...]
    comm: tuple[Interval, ...]
    collectives: tuple[tuple[str, float, float], ...]
    wall_s: float | None = None


def extract_steps(trace: Mapping[str, Any], name: str = "trace", device: str = "cpu") -> tuple[RankStepEvents, ...]:
    """The steps of one exported trace (``json.load`` of ``export_chrome_trace``'s file).

    Only complete events (``"ph": "X"``) are read: their ``name``, ``cat``,
    ``tid``, ``ts`` and ``dur``. An event belongs to the step it lies in; a communication event belongs to the
    step it starts in, clipped to the step's end. On CPU the compute stream is the thread that
    holds the step regions; with ``device="cuda"`` it is every GPU kernel
    whose name is not a NCCL kernel.

    >>> ev = [{"ph": "X", "name": STEP_REGION, "cat": "user_annotation", "tid": 1, "ts": 0, "dur": 100},
    ...       {"ph": "X", "name": "aten::mm", "cat": "cpu_op", "tid": 1, "ts": 10, "dur": 50},
    ...       {"ph": "X", "name": "gloo:all_reduce", "cat": "user_annotation", "tid": 2, "ts": 40, "dur": 40}]
    >>> step = extract_steps({"traceEvents": ev})[0]
    >>> step.compute, step.comm, step.collectives
    (((10.0, 60.0),), ((40.0, 80.0),), (('gloo:all_reduce', 40.0, 40.0),))

    Taught in: lesson 8 (formula vs measurement).
    """
    events = trace.get("traceEvents") if isinstance(trace, Mapping) else None
    if not isinstance(events, list):
        raise ValueError(tr("lab.tl_not_trace", name=name))
    complete = [e for e in events if isinstance(e, Mapping) and e.get("ph") == "X" and "dur" in e]
    steps = sorted((e for e in complete if e.get("name") == STEP_REGION), key=lambda e: float(e["ts"]))
    if not steps:
        raise ValueError(tr("lab.tl_no_steps", name=name, region=STEP_REGION))
    main_tid = steps[0].get("tid")
    result = []
    for step in steps:
        s0, s1 = float(step["ts"]), float(step["ts"]) + float(step["dur"])

        def inside(e: Mapping[str, Any], lo: float = s0, hi: float = s1) -> bool:
            return lo <= float(e["ts"]) and float(e["ts"]) + float(e["dur"]) <= hi

        window = [e for e in complete if inside(e)]
        span = [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in window]
        names = [str(e.get("name", "")) for e in window]
        inputs = tuple(_union(sp for sp, n in zip(span, names, strict=True) if n == INPUT_REGION))
        if device == "cuda":  # the GPU's own record: kernels; NCCL's kernels are the communication
            kernels = [(sp, n) for sp, n, e in zip(span, names, window, strict=True) if e.get("cat") == "kernel"]
            ops = [sp for sp, n in kernels if "nccl" not in n.lower()]
            comm = _union(sp for sp, n in kernels if "nccl" in n.lower())
            backend = [(n, sp[0], sp[1] - sp[0]) for sp, n in kernels if "nccl" in n.lower()]
            main_comm: list[Interval] = []
        else:
            # Communication that starts inside the step counts, clipped to the step: the backend thread's event
            # for the last bucket can close a few ms after the step region on the rank that waited for it.
            started = [e for e in complete if s0 <= float(e["ts"]) < s1 and _is_comm(str(e.get("name", "")))]
            clipped = [
                (str(e.get("name", "")), (float(e["ts"]), min(float(e["ts"]) + float(e["dur"]), s1))) for e in started
            ]
            comm = _union(sp for _, sp in clipped)
            backend = [(n, sp[0], sp[1] - sp[0]) for n, sp in clipped if n.startswith(BACKEND_PREFIXES)]
            ops = [
                sp
                for sp, n, e in zip(span, names, window, strict=True)
                if e.get("cat") == "cpu_op" and e.get("tid") == main_tid and not _is_comm(n)
            ]
            main_comm = _union(
                sp for sp, n, e in zip(span, names, window, strict=True) if e.get("tid") == main_tid and _is_comm(n)
            )
        compute = tuple(_subtract(_union(ops), main_comm))
        collectives = tuple(sorted(backend, key=lambda c: c[1]))
        result.append(RankStepEvents((s0, s1), inputs, compute, tuple(comm), collectives))
    return tuple(result)


# ---------------------------------------------------------------------------
# The breakdown
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StepBreakdown:
    """One rank's step split into parts (seconds).

    ``compute_s + exposed_communication_s + wait_slower_rank_s + input_wait_s +
    other_s == step_s`` (the parts partition the step). ``communication_s``
    is the collectives' transfer time, ``hidden_communication_s`` the part of
    it under compute. ``wall_s`` is the wall clock read around the step.

    Taught in: lesson 8 (formula vs measurement).
    """

    rank: int
    step_s: float
    compute_s: float
    communication_s: float
    hidden_communication_s: float
    exposed_communication_s: float
    wait_slower_rank_s: float
    input_wait_s: float
    other_s: float
    wall_s: float | None = None

    @property
    def parts_s(self) -> float:
        """Sum of the five parts of :data:`PARTS`."""
        return float(sum(getattr(self, f"{part}_s") for part in PARTS))


def _mean_breakdown(rank: int, steps: Sequence[StepBreakdown]) -> StepBreakdown:
    fields = [
        "step_s",
        "compute_s",
        "communication_s",
        "hidden_communication_s",
        "exposed_communication_s",
        "wait_slower_rank_s",
        "input_wait_s",
        "other_s",
    ]
    walls = [s.wall_s for s in steps if s.wall_s is not None]
    values = {name: fmean(getattr(s, name) for s in steps) for name in fields}
    return StepBreakdown(rank=rank, wall_s=fmean(walls) if walls else None, **values)


def step_intervals(events: Sequence[RankStepEvents]) -> list[dict[str, list[Interval]]]:
    """One step of every rank (``events[rank]``) as intervals per part, in each trace's µs.

    Keys: the parts of :data:`PARTS` except ``other``, plus ``communication``
    (the transfer) and ``hidden_communication``. See :func:`breakdown_steps`.

    Taught in: lesson 8 (formula vs measurement).
    """
    counts = {len(e.collectives) for e in events}
    matched = len(counts) == 1
    count = counts.pop() if matched else 0
    shortest = [min(e.collectives[i][2] for e in events) for i in range(count)]
    result = []
    for e in events:
        whole = [e.step]
        inputs = _intersect(_union(e.input), whole)
        busy = _subtract(_intersect(_union(e.compute), whole), inputs)
        comm = _subtract(_intersect(_union(e.comm), whole), inputs)
        waits = _union(
            (start, start + duration - shortest[i])
            for i, (_, start, duration) in enumerate(e.collectives)
            if matched and duration > shortest[i]
        )
        waits = _intersect(waits, comm)
        exposed = _subtract(comm, busy)
        transfer = _subtract(comm, waits)
        result.append(
            {
                "compute": busy,
                "exposed_communication": _subtract(exposed, waits),
                "wait_slower_rank": _intersect(exposed, waits),
                "input_wait": inputs,
                "communication": transfer,
                "hidden_communication": _intersect(transfer, busy),
            }
        )
    return result


def breakdown_steps(per_rank: Sequence[Sequence[RankStepEvents]]) -> tuple[tuple[StepBreakdown, ...], ...]:
    """Split every rank's steps (``per_rank[rank][step]``) into the parts of :data:`PARTS`.

    The k-th backend collective of a step is matched across ranks by order; its
    shortest duration over ranks is the transfer, and each rank's excess, at
    the start of its span, is waiting for a slower rank. When ranks disagree on
    the number of collectives in a step, no wait is split off for that step.

    >>> def rank(start):  # 100 µs step, compute 0-50, a collective from start to 90
    ...     return [RankStepEvents((0, 100), (), ((0, 50),), ((start, 90),), (("gloo:x", start, 90 - start),))]
    >>> fast, slow = breakdown_steps([rank(50), rank(80)])
    >>> round(fast[0].wait_slower_rank_s * 1e6), round(fast[0].exposed_communication_s * 1e6)
    (30, 10)
    >>> round(slow[0].wait_slower_rank_s * 1e6), round(slow[0].other_s * 1e6)
    (0, 40)

    Taught in: lesson 8 (formula vs measurement).
    """
    ranks = len(per_rank)
    steps = min((len(s) for s in per_rank), default=0)
    out: list[list[StepBreakdown]] = [[] for _ in range(ranks)]
    for k in range(steps):
        events = [per_rank[r][k] for r in range(ranks)]
        for r, (e, parts) in enumerate(zip(events, step_intervals(events), strict=True)):
            s0, s1 = e.step
            lengths = {name: _length(intervals) / _US_PER_S for name, intervals in parts.items()}
            named = sum(lengths[name] for name in PARTS if name != "other")
            out[r].append(
                StepBreakdown(
                    rank=r,
                    step_s=(s1 - s0) / _US_PER_S,
                    compute_s=lengths["compute"],
                    communication_s=lengths["communication"],
                    hidden_communication_s=lengths["hidden_communication"],
                    exposed_communication_s=lengths["exposed_communication"],
                    wait_slower_rank_s=lengths["wait_slower_rank"],
                    input_wait_s=lengths["input_wait"],
                    other_s=max((s1 - s0) / _US_PER_S - named, 0.0),
                    wall_s=e.wall_s,
                )
            )
    return tuple(tuple(steps_of_rank) for steps_of_rank in out)


# ---------------------------------------------------------------------------
# Results, the model's prediction, the report
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ScenarioResult:
    """One strategy under one scenario: every rank's steps, their means, and the model's prediction.

    ``predicted`` is ``None`` for the baseline (it is the model's input) and
    for a skipped scenario (``skipped`` then holds the reason's message).

    Taught in: lesson 8 (formula vs measurement).
    """

    strategy: str
    scenario: Scenario
    steps: tuple[tuple[StepBreakdown, ...], ...]
    predicted: StepTimeline | None = None
    trace_files: tuple[str, ...] = ()
    skipped: Reason | None = None
    sample: tuple[RankStepEvents, ...] = ()

    @property
    def ranks(self) -> int:
        """Number of ranks."""
        return len(self.steps)

    @property
    def per_rank(self) -> tuple[StepBreakdown, ...]:
        """Each rank's mean over its steps."""
        return tuple(_mean_breakdown(r, steps) for r, steps in enumerate(self.steps) if steps)

    @property
    def mean(self) -> StepBreakdown:
        """The mean over ranks of :attr:`per_rank` (``rank`` is -1)."""
        return _mean_breakdown(-1, self.per_rank)

    @property
    def least_waiting_rank(self) -> int:
        """The rank that waits least for others at collectives: under an injected straggler, the straggler."""
        return min(self.per_rank, key=lambda b: (b.wait_slower_rank_s, b.rank)).rank

    def table(self, name: str | None = None, *, model: bool = True, notes: bool = True) -> str:
        """Per-rank means, their mean, and the model's prediction, in ms, in the current language.

        ``name`` replaces the scenario's description in the title (to hide what
        was injected); ``model=False`` leaves the model's row out, ``notes=False``
        the legend and the sum check below the table.
        """
        title = tr(
            "lab.tl_title",
            strategy=self.strategy.upper(),
            scenario=self.scenario.label() if name is None else name,
            ranks=self.ranks,
            steps=min((len(s) for s in self.steps), default=0),
        )
        if self.skipped is not None:
            return tr(
                "lab.tl_skipped",
                strategy=self.strategy.upper(),
                scenario=self.scenario.label(),
                message=self.skipped.message,
            )
        columns = [*PARTS, "hidden_communication", "step"]
        header = [tr("lab.tl_col_rank"), *(tr(f"lab.tl_part_{c}") for c in columns)]

        def cells(b: StepBreakdown) -> list[str]:
            values = [getattr(b, f"{p}_s") for p in PARTS] + [b.hidden_communication_s, b.step_s]
            return [f"{v * MS_PER_S:.2f}" for v in values]

        rows = [[str(b.rank), *cells(b)] for b in self.per_rank]
        rows.append([tr("lab.tl_measured_mean"), *cells(self.mean)])
        if self.predicted is not None and model:
            p = self.predicted
            parts = [p.compute_s, p.exposed_communication_s, p.load_imbalance_s, p.input_wait_s, 0.0]
            values = [f"{v * MS_PER_S:.2f}" for v in [*parts, p.hidden_communication_s, p.step_s]]
            values[PARTS.index("other")] = "—"
            rows.append([tr("lab.tl_model"), *values])
        body = render_table(header, rows, right=set(range(1, len(header))))
        mean = self.mean
        lines = [
            tr("lab.tl_legend"),
            tr("lab.tl_sum_ok", tolerance_us=SUM_TOLERANCE_S * 1e6, other=mean.other_s / mean.step_s),
        ]
        if self.scenario.name == "slow_rank" and self.ranks > 1 and name is None:
            lines.append(tr("lab.tl_slowest", rank=self.least_waiting_rank))
        return "\n".join([title, body, *(lines if notes else [])])

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the scenario, every step of every rank, the prediction."""
        return {
            "strategy": self.strategy,
            "scenario": self.scenario.to_json_dict(),
            "skipped": None
            if self.skipped is None
            else {"code": self.skipped.code, "key": self.skipped.key, "params": dict(self.skipped.params)},
            "trace_files": list(self.trace_files),
            "steps": [[_breakdown_dict(b) for b in steps] for steps in self.steps],
            "predicted": None if self.predicted is None else _timeline_dict(self.predicted),
            "sample": [_sample_dict(e) for e in self.sample],
        }


#: Gaps between compute spans shorter than this are closed in the drawing sample saved to JSON (µs):
#: a slow rank's busy loop is thousands of tiny operators; the tables are computed before this.
SAMPLE_GAP_US: float = 10.0


def _close_gaps(intervals: Sequence[Interval], gap: float) -> list[Interval]:
    closed: list[Interval] = []
    for start, end in intervals:
        if closed and start - closed[-1][1] < gap:
            closed[-1] = (closed[-1][0], end)
        else:
            closed.append((start, end))
    return closed


def _sample_dict(e: RankStepEvents) -> dict[str, Any]:
    """A step's events for JSON, in µs from the step's start (to 0.001 µs), compute gaps under
    :data:`SAMPLE_GAP_US` closed: short, and enough to redraw the step."""
    origin = e.step[0]

    def shift(intervals: Iterable[Interval]) -> list[list[float]]:
        return [[round(a - origin, 3), round(b - origin, 3)] for a, b in intervals]

    return {
        "step": [0.0, round(e.step[1] - origin, 3)],
        "input": shift(e.input),
        "compute": shift(_close_gaps(e.compute, SAMPLE_GAP_US)),
        "comm": shift(e.comm),
        "collectives": [[n, round(a - origin, 3), round(d, 3)] for n, a, d in e.collectives],
        "wall_s": e.wall_s,
    }


def _breakdown_dict(b: StepBreakdown) -> dict[str, Any]:
    return {name: getattr(b, name) for name in StepBreakdown.__dataclass_fields__}


def _timeline_dict(t: StepTimeline) -> dict[str, float]:
    return {name: getattr(t, name) for name in StepTimeline.__dataclass_fields__}


def predict(baseline: ScenarioResult, scenario: Scenario) -> StepTimeline:
    """What :func:`coursekit.scaling.step_timeline` predicts for ``scenario``, from the baseline's measurements.

    Inputs: each rank's baseline compute (compute + other, the host's share of
    the step), the baseline's communication transfer and the share of it
    hidden under compute, and the injected amounts: the slow rank computes
    ``slow_factor`` times its baseline (``load_imbalance_s`` of the per-rank
    compute), the input wait is the injected delay, and without overlap no
    communication hides.

    Taught in: lesson 8 (formula vs measurement).
    """
    per_rank = baseline.per_rank
    compute = [b.compute_s + b.other_s for b in per_rank]
    if scenario.slow_rank is not None:
        compute[scenario.slow_rank] *= scenario.slow_factor
    mean = baseline.mean
    overlap = mean.hidden_communication_s / mean.communication_s if mean.communication_s > 0 else 0.0
    return step_timeline(
        compute_s=fmean(compute),
        communication_s=mean.communication_s,
        overlap_fraction=overlap if scenario.overlap else 0.0,
        input_wait_s=scenario.input_delay_s,
        load_imbalance_s=load_imbalance_s(compute) if len(compute) > 1 else 0.0,
    )


@dataclass(frozen=True)
class TimelineReport:
    """Every strategy under every scenario, plus where it ran.

    Taught in: lesson 8 (formula vs measurement).
    """

    ranks: int
    backend: str
    device: str
    launcher: str
    torch_version: str
    steps: int
    results: tuple[ScenarioResult, ...]
    config: Mapping[str, int] = field(default_factory=dict)

    def result(self, strategy: str, scenario: str = "baseline") -> ScenarioResult:
        """The result of ``strategy`` under ``scenario``."""
        for item in self.results:
            if item.strategy == strategy and item.scenario.name == scenario:
                return item
        raise KeyError((strategy, scenario))

    def format(self) -> str:
        """Every table, in the current language."""
        return "\n\n".join(result.table() for result in self.results)

    def to_json_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (schema :data:`TIMELINE_SCHEMA`)."""
        return {
            "schema": TIMELINE_SCHEMA,
            "ranks": self.ranks,
            "backend": self.backend,
            "device": self.device,
            "launcher": self.launcher,
            "torch_version": self.torch_version,
            "steps": self.steps,
            "config": dict(self.config),
            "results": [result.to_json_dict() for result in self.results],
        }

    def write_json(self, path: str | Path) -> None:
        """Write :meth:`to_json_dict` to ``path`` (UTF-8, indented)."""
        Path(path).write_text(json.dumps(self.to_json_dict(), indent=1, allow_nan=False) + "\n", encoding="utf-8")


def load_timeline_json(source: str | Path | Mapping[str, Any]) -> TimelineReport:
    """A :class:`TimelineReport` from what :meth:`TimelineReport.write_json` wrote (a path or the parsed dict).

    Taught in: lesson 8 (formula vs measurement).
    """
    data = source if isinstance(source, Mapping) else json.loads(Path(source).read_text(encoding="utf-8"))
    if data.get("schema") != TIMELINE_SCHEMA:
        raise ValueError(tr("lab.tl_bad_json", schema=TIMELINE_SCHEMA))
    results = []
    for item in data["results"]:
        scenario = Scenario(**item["scenario"])
        steps = tuple(tuple(StepBreakdown(**b) for b in rank) for rank in item["steps"])
        predicted = None if item["predicted"] is None else StepTimeline(**item["predicted"])
        skipped = item["skipped"]
        reason = None if skipped is None else Reason(skipped["code"], skipped["key"], skipped["params"])
        sample = tuple(_events(e) for e in item.get("sample", ()))
        files = tuple(item.get("trace_files", ()))
        results.append(ScenarioResult(item["strategy"], scenario, steps, predicted, files, reason, sample))
    return TimelineReport(
        ranks=int(data["ranks"]),
        backend=str(data["backend"]),
        device=str(data["device"]),
        launcher=str(data["launcher"]),
        torch_version=str(data["torch_version"]),
        steps=int(data["steps"]),
        results=tuple(results),
        config=dict(data.get("config", {})),
    )


# ---------------------------------------------------------------------------
# Scaling efficiency from measured steps
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EfficiencyPoint:
    """``E(P)`` of one rank count from measured steps, and where the extra time went.

    ``extra_s`` maps each part of :data:`PARTS` to its mean growth over the
    one-rank step (seconds; negative when it shrank); ``cause`` is the part
    that grew most (``None`` for the reference point).

    Taught in: lesson 8 (formula vs measurement).
    """

    ranks: int
    step_s: float
    efficiency: float
    extra_s: Mapping[str, float]
    cause: str | None


def efficiency_points(baselines: Sequence[ScenarioResult]) -> tuple[EfficiencyPoint, ...]:
    """``E(P)`` under weak scaling (fixed batch per rank) from baseline results at several rank counts.

    The first result is the reference (normally one rank). Each rank processes
    the same batch, so ``throughput(P) = P / step(P)`` and
    :func:`coursekit.scaling.scaling_efficiency` gives ``step(1) / step(P)``.

    Taught in: lesson 8 (formula vs measurement).
    """
    if not baselines:
        raise ValueError(tr("scaling.empty_sequence", name="baselines"))
    reference = baselines[0].mean
    single_throughput = baselines[0].ranks / reference.step_s
    points = []
    for result in baselines:
        mean = result.mean
        throughput = result.ranks / mean.step_s
        extra = {part: getattr(mean, f"{part}_s") - getattr(reference, f"{part}_s") for part in PARTS}
        is_reference = result is baselines[0]
        cause = None if is_reference else max(PARTS, key=lambda part: extra[part])
        points.append(
            EfficiencyPoint(
                ranks=result.ranks,
                step_s=mean.step_s,
                efficiency=scaling_efficiency(throughput, result.ranks, single_throughput) * baselines[0].ranks,
                extra_s=extra,
                cause=cause,
            )
        )
    return tuple(points)


def efficiency_table(points: Sequence[EfficiencyPoint], strategy: str, *, with_efficiency: bool = True) -> str:
    """The E(P) points as a text table in the current language.

    ``with_efficiency=False`` leaves the E(P) column out (the lesson asks the learner to work it out from the steps).
    """
    columns = ("p", "step", "e", "cause") if with_efficiency else ("p", "step", "cause")
    header = [tr(f"lab.tl_eff_col_{c}") for c in columns]
    rows = []
    for p in points:
        cause = (
            tr("lab.tl_eff_none")
            if p.cause is None
            else f"{tr(f'lab.tl_part_{p.cause}')} +{p.extra_s[p.cause] * MS_PER_S:.2f} ms"
        )
        efficiency = [f"{p.efficiency:.2f}"] if with_efficiency else []
        rows.append([str(p.ranks), f"{p.step_s * MS_PER_S:.2f}", *efficiency, cause])
    right = {0, 1, 2} if with_efficiency else {0, 1}
    return "\n".join([tr("lab.tl_eff_title", strategy=strategy.upper()), render_table(header, rows, right=right)])


# ---------------------------------------------------------------------------
# Running it
# ---------------------------------------------------------------------------


def _check_timeline_strategies(strategies: Iterable[str] | str) -> tuple[str, ...]:
    if isinstance(strategies, str):
        strategies = [part.strip() for part in strategies.split(",") if part.strip()]
    chosen = tuple(dict.fromkeys(check_choice("strategy", s, TIMELINE_STRATEGIES) for s in strategies))
    if not chosen:
        raise ValueError(
            tr("validate.choice", name="strategy", value="", choices=", ".join(map(repr, TIMELINE_STRATEGIES)))
        )
    return chosen


def run_timeline(
    *,
    ranks: int | None = 2,
    strategies: Iterable[str] | str = ("ddp",),
    steps: int = DEFAULT_STEPS,
    slow_rank: int | None = None,
    slow_factor: float | None = None,
    input_delay_ms: float | None = None,
    no_overlap: bool = False,
    trace_dir: str | Path | None = None,
    device: str = "auto",
) -> TimelineReport:
    """Profile a few training steps per strategy and scenario on every rank; return a :class:`TimelineReport`.

    Parameters:
        ranks: processes to spawn (>= 1; ``None`` under torchrun = WORLD_SIZE).
        strategies: subset of :data:`TIMELINE_STRATEGIES` (list or comma-separated string).
        steps: profiled steps per scenario, 1 to :data:`MAX_STEPS` (two unprofiled warm-up steps come first).
        slow_rank, slow_factor: inject a straggler (give both; factor in (1, :data:`MAX_SLOW_FACTOR`]).
        input_delay_ms: inject an input delay per step, in (0, :data:`MAX_INPUT_DELAY_MS`] ms.
        no_overlap: also run DDP with its gradient all-reduce after backward.
        trace_dir: where the Chrome traces go (``{strategy}-{scenario}-rank{r}.json``); default a
            temporary folder removed afterwards.
        device: ``"auto"``, ``"cpu"`` or ``"cuda"``.

    >>> run_timeline(strategies="pp")
    Traceback (most recent call last):
    ...
    ValueError: strategy = 'pp': must be one of 'ddp', 'fsdp', 'tp'.

    Taught in: lesson 8 (formula vs measurement).
    """
    chosen = _check_timeline_strategies(strategies)
    n = check_ranks(ranks)
    k = check_int("steps", steps, ge=1, le=MAX_STEPS)
    scenarios = scenarios_for(
        n, slow_rank=slow_rank, slow_factor=slow_factor, input_delay_ms=input_delay_ms, no_overlap=no_overlap
    )
    device = check_choice("device", device, DEVICES)
    quiet_profiler()
    try:
        from . import _timeline_worker
    except ImportError as error:  # pragma: no cover - exercised only without torch
        raise ImportError(tr("lab.no_torch")) from error
    from ._dist import run_distributed

    if trace_dir is not None:
        Path(trace_dir).mkdir(parents=True, exist_ok=True)
        raw = run_distributed(_timeline_worker.timeline_worker, n, (chosen, scenarios, k, str(trace_dir)), device)
        return build_timeline_report(raw)
    with temporary_folder() as tmp:
        raw = run_distributed(_timeline_worker.timeline_worker, n, (chosen, scenarios, k, tmp), device)
    return without_folders(build_timeline_report(raw))


def without_folders(report: TimelineReport) -> TimelineReport:
    """``report`` with only the file names of its traces (their temporary folder is gone)."""
    results = tuple(
        dataclasses.replace(r, trace_files=tuple(Path(f).name for f in r.trace_files)) for r in report.results
    )
    return dataclasses.replace(report, results=results)


def build_timeline_report(raw: Mapping[str, Any]) -> TimelineReport:
    """Turn the worker's per-rank step events into a :class:`TimelineReport`."""
    results = []
    for strategy, runs in raw["runs"].items():
        baseline: ScenarioResult | None = None
        for run in runs:
            scenario = Scenario(**run["scenario"])
            if run["skipped"] is not None:
                skipped = run["skipped"]
                reason = Reason(skipped["code"], skipped["key"], skipped["params"])
                results.append(ScenarioResult(strategy, scenario, (), None, (), reason))
                continue
            per_rank = [[_events(e) for e in rank_steps] for rank_steps in run["events"]]
            sample = tuple(rank_steps[0] for rank_steps in per_rank if rank_steps)
            files = tuple(run["trace_files"])
            result = ScenarioResult(strategy, scenario, breakdown_steps(per_rank), None, files, None, sample)
            if scenario.name == "baseline":
                baseline = result
            elif baseline is not None:
                result = dataclasses.replace(result, predicted=predict(baseline, scenario))
            results.append(result)
    return TimelineReport(
        ranks=int(raw["world_size"]),
        backend=str(raw["backend"]),
        device=str(raw["device"]),
        launcher=str(raw["launcher"]),
        torch_version=str(raw["torch_version"]),
        steps=int(raw["steps"]),
        results=tuple(results),
        config=dict(raw.get("config", {})),
    )


def _events(data: Mapping[str, Any]) -> RankStepEvents:
    """A :class:`RankStepEvents` from its dict (JSON lists back to tuples)."""
    return RankStepEvents(
        step=(float(data["step"][0]), float(data["step"][1])),
        input=tuple((float(a), float(b)) for a, b in data["input"]),
        compute=tuple((float(a), float(b)) for a, b in data["compute"]),
        comm=tuple((float(a), float(b)) for a, b in data["comm"]),
        collectives=tuple((str(n), float(a), float(d)) for n, a, d in data["collectives"]),
        wall_s=None if data.get("wall_s") is None else float(data["wall_s"]),
    )


def step_inside_wall_clock(breakdown: StepBreakdown) -> bool:
    """True when the trace's step fits inside the wall clock read around it (to the trace's rounding).

    The step region is entered after the first clock read and left before the second, so this holds on any
    machine, loaded or not; a trace whose step is longer than the wall clock is wrong.
    """
    if breakdown.wall_s is None:
        return True
    return breakdown.step_s <= breakdown.wall_s + SUM_TOLERANCE_S


def wall_clock_agrees(breakdown: StepBreakdown) -> bool:
    """True when the trace's step and the wall clock read around it agree within the stated tolerance.

    The gap is the cost of entering and leaving the profiled region, which grows on a loaded machine: a
    quality indicator for a recording, not an invariant (see :func:`step_inside_wall_clock`).
    """
    if breakdown.wall_s is None:
        return True
    tolerance = WALL_TOLERANCE_FRACTION * breakdown.wall_s + WALL_TOLERANCE_S
    return math.isclose(breakdown.step_s, breakdown.wall_s, abs_tol=tolerance)
