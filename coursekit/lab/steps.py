"""The timeline lab's scenarios, and how a PyTorch profiler trace becomes steps and their parts.

Plain Python (no torch import): the ranks (the torch worker) and the driver (:mod:`coursekit.lab.timeline`)
both read it, and it can be tested on synthetic traces. :mod:`coursekit.lab.timeline` re-exports every name.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from .._validate import (
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_items,
    check_number,
    learner_functions,
)
from ..i18n import Reason, register, tr
from ..units import MS_PER_S

register(
    {
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
            "zh": "关闭重叠：反向结束后对全部梯度一次性做全归约",
            "en": "no overlap: all gradients all-reduced after backward",
        },
        "lab.tl_slow_pair": {
            "zh": "slow_rank 与 slow_factor 必须一起给出（slow_factor > 1）。",
            "en": "give slow_rank and slow_factor together (slow_factor > 1).",
        },
        "lab.tl_slow_rank_range": {
            "zh": "slow_rank = {value!r}：必须在 0 到 ranks - 1 = {last} 之间。",
            "en": "slow_rank = {value!r}: must be between 0 and ranks - 1 = {last}.",
        },
        "lab.tl_no_overlap_ddp_only": {
            "zh": "关闭重叠只对 DDP 有意义（它在反向中按桶重叠全归约）。",
            "en": "turning overlap off applies to DDP only (it overlaps bucketed all-reduces with backward).",
        },
        "lab.tl_tp_unsupported": {
            "zh": "张量并行需要 rank 数整除 heads = {heads}、d_model = {d_model} 与 d_ff = {d_ff}，"
            "而 ranks = {ranks}。",
            "en": "tensor parallelism needs the rank count to divide heads = {heads}, d_model = {d_model} and "
            "d_ff = {d_ff}; ranks = {ranks}.",
        },
        "lab.tl_no_steps": {
            "zh": "{name}：追踪中没有名为 {region} 的步区间。",
            "en": "{name}: the trace has no step region named {region}.",
        },
        "lab.tl_interval": {
            "zh": "{name} = {value!r}：必须是区间 (start, end)，两端为有限的微秒数，且 end >= start。",
            "en": "{name} = {value!r}: must be an interval (start, end) of finite µs with end >= start.",
        },
        "lab.tl_collective": {
            "zh": "{name} = {value!r}：必须是 (名称, 开始 µs, 时长 µs) 三项。",
            "en": "{name} = {value!r}: must be the three items (name, start µs, duration µs).",
        },
        "lab.tl_not_trace": {
            "zh": "{name}：不是 PyTorch profiler 导出的 Chrome 追踪（缺少 traceEvents 列表）。",
            "en": "{name}: not a Chrome trace exported by the PyTorch profiler (no traceEvents list).",
        },
    }
)

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


#: Largest slow factor and input delay (the lab must finish in minutes on 2 cores).
MAX_SLOW_FACTOR: float = 20.0


MAX_INPUT_DELAY_MS: float = 2000.0


#: Sizes of the timeline model that tensor parallelism must divide (the worker's TIMELINE_CONFIG).
TIMELINE_SIZES: Mapping[str, int] = {"heads": 8, "d_model": 128, "d_ff": 512}


_US_PER_S = 1e6


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

    def __post_init__(self) -> None:
        """The bounds :func:`scenarios_for` and the command line keep (whether ``slow_rank`` exists is the
        run's: :func:`coursekit.lab.timeline.predict` checks it against the baseline's ranks)."""
        check_choice("name", self.name, SCENARIOS)
        if self.slow_rank is not None:
            check_int("slow_rank", self.slow_rank, ge=0)
        check_number("slow_factor", self.slow_factor, ge=1, le=MAX_SLOW_FACTOR)
        check_number("input_delay_s", self.input_delay_s, ge=0, le=MAX_INPUT_DELAY_MS / MS_PER_S)
        check_bool("overlap", self.overlap)

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


#: Most intervals or collectives one step of one trace may hold (a slow rank's busy loop is thousands of operators).
MAX_TRACE_ITEMS: int = 10_000_000


def _check_interval(name: str, interval: Any) -> None:
    """``interval`` is a ``(start, end)`` pair of finite µs with ``end >= start``, else an error naming ``name``."""
    if not isinstance(interval, (list, tuple)) or len(interval) != 2:
        raise ValueError(tr("lab.tl_interval", name=name, value=interval))
    start = check_number(f"{name}[0]", interval[0])
    end = check_number(f"{name}[1]", interval[1])
    if end < start:
        raise ValueError(tr("lab.tl_interval", name=name, value=interval))


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

    def __post_init__(self) -> None:
        """Every interval ends at or after it starts (finite µs), every collective lasts >= 0 µs: a step of
        ``(100, 0)`` would give negative times."""
        _check_interval("step", self.step)
        for name in ("input", "compute", "comm"):
            for index, interval in enumerate(check_items(name, getattr(self, name), max_items=MAX_TRACE_ITEMS)):
                _check_interval(f"{name}[{index}]", interval)
        for index, collective in enumerate(check_items("collectives", self.collectives, max_items=MAX_TRACE_ITEMS)):
            label = f"collectives[{index}]"
            if not isinstance(collective, (list, tuple)) or len(collective) != 3:
                raise ValueError(tr("lab.tl_collective", name=label, value=collective))
            if not isinstance(collective[0], str):
                raise TypeError(
                    tr(
                        "validate.type_choice",
                        name=f"{label}[0]",
                        value=collective[0],
                        type=type(collective[0]).__name__,
                    )
                )
            check_number(f"{label}[1]", collective[1])
            check_number(f"{label}[2]", collective[2], ge=0)
        if self.wall_s is not None:
            check_number("wall_s", self.wall_s, ge=0)


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


def mean_breakdown(rank: int, steps: Sequence[StepBreakdown]) -> StepBreakdown:
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
    for index, item in enumerate(check_items("events", events)):
        check_instance(f"events[{index}]", item, RankStepEvents)
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
    per_rank = check_items("per_rank", per_rank)
    for r, rank_steps in enumerate(per_rank):
        for k, events in enumerate(check_items(f"per_rank[{r}]", rank_steps)):
            check_instance(f"per_rank[{r}][{k}]", events, RankStepEvents)
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


learner_functions(globals())
