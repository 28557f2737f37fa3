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

from .._validate import check_bool, check_choice, check_instance, check_int, check_items, learner_functions
from ..i18n import Reason, register, tr
from ..scaling import StepTimeline, load_imbalance_s, scaling_efficiency, step_timeline
from ..units import MS_PER_S
from ._env import quiet_profiler, temporary_folder
from ._format import LabTable
from ._json import Field, read_source
from .collectives import DEVICES, check_listed, check_ranks
from .steps import (
    BACKEND_PREFIXES as BACKEND_PREFIXES,
)
from .steps import (
    COMM_PREFIXES,
    INPUT_REGION,
    PARTS,
    SCENARIOS,
    STEP_REGION,
    SUM_TOLERANCE_S,
    TIMELINE_STRATEGIES,
    Interval,
    RankStepEvents,
    Scenario,
    StepBreakdown,
    breakdown_steps,
    extract_steps,
    mean_breakdown,
    scenarios_for,
    skip_reason,
    step_intervals,
)
from .steps import (
    MAX_INPUT_DELAY_MS as MAX_INPUT_DELAY_MS,
)
from .steps import (
    MAX_SLOW_FACTOR as MAX_SLOW_FACTOR,
)
from .steps import (
    TIMELINE_SIZES as TIMELINE_SIZES,
)

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

#: The trace's step may differ from the wall clock read around it by this share (plus 1 ms):
#: ``record_function`` enters and leaves a few microseconds inside the two clock reads.
WALL_TOLERANCE_FRACTION: float = 0.05
WALL_TOLERANCE_S: float = 1e-3
#: Version tag of the JSON written by :meth:`TimelineReport.to_json_dict`.
TIMELINE_SCHEMA: str = "coursekit.lab.timeline/1"
#: Default number of profiled steps per scenario, and its ceiling.
DEFAULT_STEPS: int = 3
MAX_STEPS: int = 50


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
        "lab.tl_title": {
            "zh": "{strategy}，{scenario}：{ranks} 个 rank，每个 rank {steps} 步的平均（毫秒）",
            "en": "{strategy}, {scenario}: {ranks:@rank}, mean of {steps:@step} per rank (ms)",
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
        "lab.tl_json_items": {
            "zh": "{name} = {value!r}：必须恰好有 {size} 项。",
            "en": "{name} = {value!r}: must have exactly {size:@item}.",
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
        return tuple(mean_breakdown(r, steps) for r, steps in enumerate(self.steps) if steps)

    @property
    def mean(self) -> StepBreakdown:
        """The mean over ranks of :attr:`per_rank` (``rank`` is -1)."""
        return mean_breakdown(-1, self.per_rank)

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
        return self.table_view(name, model=model, notes=notes).text()

    def table_view(self, name: str | None = None, *, model: bool = True, notes: bool = True) -> LabTable:
        """:meth:`table` as a :class:`~coursekit.lab._format.LabTable` (an HTML table in a notebook)."""
        title = tr(
            "lab.tl_title",
            strategy=self.strategy.upper(),
            scenario=self.scenario.label() if name is None else name,
            ranks=self.ranks,
            steps=min((len(s) for s in self.steps), default=0),
        )
        if self.skipped is not None:
            return LabTable.of(
                [
                    tr(
                        "lab.tl_skipped",
                        strategy=self.strategy.upper(),
                        scenario=self.scenario.label(),
                        message=self.skipped.message,
                    )
                ]
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
        mean = self.mean
        lines = [
            tr("lab.tl_legend"),
            tr("lab.tl_sum_ok", tolerance_us=SUM_TOLERANCE_S * 1e6, other=mean.other_s / mean.step_s),
        ]
        if self.scenario.name == "slow_rank" and self.ranks > 1 and name is None:
            lines.append(tr("lab.tl_slowest", rank=self.least_waiting_rank))
        return LabTable.of([title], header, rows, right=range(1, len(header)), after=lines if notes else [])

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
    check_instance("baseline", baseline, ScenarioResult)
    check_instance("scenario", scenario, Scenario)
    per_rank = baseline.per_rank
    compute = [b.compute_s + b.other_s for b in per_rank]
    if scenario.slow_rank is not None:
        if scenario.slow_rank >= len(compute):
            raise ValueError(tr("lab.tl_slow_rank_range", value=scenario.slow_rank, last=len(compute) - 1))
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
        """The result of ``strategy`` under ``scenario``; a strategy or a scenario the report does not hold is a
        ``ValueError`` naming those it holds, never a ``KeyError``."""
        strategy = check_listed("strategy", strategy, (item.strategy for item in self.results))
        runs = [item for item in self.results if item.strategy == strategy]
        scenario = check_listed("scenario", scenario, (item.scenario.name for item in runs))
        return next(item for item in runs if item.scenario.name == scenario)

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

    A path that cannot be read, or a result with a key missing or a value of the wrong kind, is a ``ValueError``
    or ``TypeError`` naming the path or the key (``source['results'][0]['steps']``), in the current language.

    >>> load_timeline_json({"schema": TIMELINE_SCHEMA})
    Traceback (most recent call last):
    ...
    ValueError: source['ranks'] is missing; every result python -m coursekit.lab timeline --json writes has it.

    Taught in: lesson 8 (formula vs measurement).
    """
    return timeline_report_from(read_source(source, TIMELINE_WRITER))


#: The command that writes what :func:`load_timeline_json` reads (named in its messages).
TIMELINE_WRITER: str = "python -m coursekit.lab timeline --json"


def timeline_report_from(data: Field) -> TimelineReport:
    """A :class:`TimelineReport` from its JSON object (see :func:`load_timeline_json`)."""
    data.check_schema(TIMELINE_SCHEMA)
    config = data.get("config")
    return TimelineReport(
        ranks=data["ranks"].int(ge=1),
        backend=data["backend"].text(),
        device=data["device"].text(),
        launcher=data["launcher"].text(),
        torch_version=data["torch_version"].text(),
        steps=data["steps"].int(ge=0),
        results=tuple(scenario_result_from(item) for item in data["results"].items()),
        config={} if config is None else {key: value.int(ge=0) for key, value in config.entries()},
    )


def scenario_result_from(item: Field) -> ScenarioResult:
    """A :class:`ScenarioResult` from its JSON object (:meth:`ScenarioResult.to_json_dict`), every value checked."""
    scenario = item["scenario"]
    scenario["name"].choice(SCENARIOS)
    predicted = item.get("predicted")
    files = item.get("trace_files")
    sample = item.get("sample")
    return ScenarioResult(
        strategy=item["strategy"].choice(TIMELINE_STRATEGIES),
        scenario=scenario.build(Scenario),
        steps=tuple(tuple(b.build(StepBreakdown) for b in rank.items()) for rank in item["steps"].items()),
        predicted=None if predicted is None else predicted.build(StepTimeline),
        trace_files=() if files is None else tuple(name.text() for name in files.items()),
        skipped=item["skipped"].reason(),
        sample=() if sample is None else tuple(_events(e) for e in sample.items()),
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
    for index, result in enumerate(check_items("baselines", baselines)):
        check_instance(f"baselines[{index}]", result, ScenarioResult)
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
    return efficiency_table_view(points, strategy, with_efficiency=with_efficiency).text()


def efficiency_table_view(
    points: Sequence[EfficiencyPoint], strategy: str, *, with_efficiency: bool = True
) -> LabTable:
    """:func:`efficiency_table` as a :class:`~coursekit.lab._format.LabTable` (an HTML table in a notebook)."""
    points = check_items("points", points)
    for index, point in enumerate(points):
        check_instance(f"points[{index}]", point, EfficiencyPoint)
    check_instance("strategy", strategy, str)
    check_bool("with_efficiency", with_efficiency)
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
    return LabTable.of([tr("lab.tl_eff_title", strategy=strategy.upper())], header, rows, right=right)


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
            per_rank = [
                [_events(Field(e, f"events[{r}][{k}]", TIMELINE_WRITER)) for k, e in enumerate(rank_steps)]
                for r, rank_steps in enumerate(run["events"])
            ]
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


def _events(data: Field) -> RankStepEvents:
    """A :class:`RankStepEvents` from its JSON object (JSON lists back to tuples), every number checked."""

    def pair(value: Field) -> Interval:
        a, b = _exactly(value, 2)
        return a.number(), b.number()

    def intervals(key: str) -> tuple[Interval, ...]:
        return tuple(pair(value) for value in data[key].items())

    def collective(value: Field) -> tuple[str, float, float]:
        name, start, duration = _exactly(value, 3)
        return name.text(), start.number(), duration.number(ge=0)

    wall = data.get("wall_s")
    return RankStepEvents(
        step=pair(data["step"]),
        input=intervals("input"),
        compute=intervals("compute"),
        comm=intervals("comm"),
        collectives=tuple(collective(value) for value in data["collectives"].items()),
        wall_s=None if wall is None else wall.number(ge=0),
    )


def _exactly(value: Field, size: int) -> list[Field]:
    """The ``size`` items of a JSON list (an interval, a collective), else ``ValueError`` naming it."""
    items = value.items()
    if len(items) != size:
        raise ValueError(tr("lab.tl_json_items", name=value.name, value=value.value, size=size))
    return items


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


learner_functions(globals())
