"""The workbench against published runs: does it accept the layout, where does it rank it, how close is it?

:func:`compare_published` plans one :class:`coursekit.presets.PublishedRun` and reports what the issue
asks of the estimate: whether the published layout is accepted, its rank among the accepted ones (and
its tie group), its estimated step time divided by the best estimate, and its estimated throughput
divided by the published one, in the paper's own FLOP convention. Lesson 9 prints the table; the tests
hold it to the goals (within 1.25x of the best, throughput within ±30 %) or to a stated reason.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .._validate import learner_functions
from ..i18n import register, tr
from .calibration import MEASUREMENT_REPEATABILITY, PASS_THROUGHPUT_TOLERANCE
from .specs import megatron_core_model_flops_per_step, megatron_paper_flops_per_step

__all__ = [
    "PASS_CRITERIA",
    "PASS_STEP_OVER_BEST_MAX",
    "PASS_THROUGHPUT_TOLERANCE",
    "PASS_TOP_RANK",
    "CpSpeedup",
    "Fp8Speedup",
    "LayoutPair",
    "PublishedComparison",
    "compare_published",
    "cp_speedups",
    "fp8_speedups",
    "layout_pairs",
    "published_degrees",
]

register(
    {
        "planner.comparison_not_registered": {
            "zh": "{name} = {value!r}：不是已登记的已发表训练的比较（名字或出处对不上）；用 compare_published(run) "
            "对 all_published_runs() 中的训练做出的结果。",
            "en": "{name} = {value!r}: not a comparison of a registered published run (its name or source does not "
            "match); pass what compare_published(run) returns for the runs of all_published_runs().",
        },
    }
)

# The pass rule for one published run, from issue 19's "Done when": a run passes when it is accepted; it is in the
# first tie group or the top 10; the best step is within 1.25x of it; and throughput is within ±30 %.
#: Rank at or above which an accepted layout outside the first tie group still counts as found.
PASS_TOP_RANK = 10
#: Largest estimated step of the published layout divided by the best estimated step.
PASS_STEP_OVER_BEST_MAX = 1.25
# PASS_THROUGHPUT_TOLERANCE, the largest |estimated throughput / published throughput - 1|, is imported from
# coursekit.planner.calibration (whose stated spreads of the registered runs count the runs outside it).
#: The four criteria, by name (:attr:`PublishedComparison.missed` names those a comparison misses).
PASS_CRITERIA: tuple[str, ...] = ("accepted", "group1_or_top10", "within_1.25x", "throughput_30pct")


class PublishedComparison(NamedTuple):
    """One published run against the estimate (see :func:`compare_published`).

    :attr:`passes` applies the pass rule (:data:`PASS_CRITERIA`); :attr:`missed` names the criteria it misses.
    """

    name: str
    accepted: bool
    rank: int | None
    accepted_count: int
    tie_group: int | None
    step_over_best: float | None
    estimated_over_published: float | None
    estimated: float | None
    published: float
    unit: str
    layout: str
    best_layout: str
    source: str

    @property
    def missed(self) -> frozenset[str]:
        """The names (from :data:`PASS_CRITERIA`) of the criteria this comparison misses; all four if refused."""
        if not self.accepted:
            return frozenset(PASS_CRITERIA)
        assert self.rank is not None and self.step_over_best is not None
        assert self.estimated_over_published is not None
        met = (
            True,
            self.tie_group == 1 or self.rank <= PASS_TOP_RANK,
            self.step_over_best <= PASS_STEP_OVER_BEST_MAX,
            abs(self.estimated_over_published - 1) <= PASS_THROUGHPUT_TOLERANCE,
        )
        return frozenset(name for name, ok in zip(PASS_CRITERIA, met, strict=True) if not ok)

    @property
    def passes(self) -> bool:
        """Whether the run meets all four criteria of the pass rule."""
        return not self.missed


def published_degrees(run: object) -> dict[str, int]:
    """The degrees of ``run``'s published layout (a :class:`coursekit.presets.PublishedRun`) as
    :meth:`coursekit.planner.PlanResult.check_layout` takes them. An MoE run that states no expert TP ran
    Megatron's default, expert TP = TP.

    >>> from coursekit.published_runs import all_published_runs
    >>> run = next(r for r in all_published_runs() if r.name == "Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100")
    >>> published_degrees(run)
    {'tp': 1, 'cp': 1, 'pp': 4, 'dp': 16, 'ep': 8, 'etp': 1}
    """
    from ..presets import PublishedRun
    from ..specs import type_error

    if not isinstance(run, PublishedRun):
        raise type_error("run", run, "PublishedRun")
    from .space import expert_tp_default

    return expert_tp_default(run.model_spec().is_moe, dict(run.degrees))


def _published_layout(run: Any, workload: Any) -> tuple[Any, Any]:
    """Plan ``run``'s model and cluster under ``workload`` and check its published layout
    (:meth:`coursekit.planner.PlanResult.check_layout` of the degrees it states): (the result, the check). An MoE
    run that states no expert TP is checked at Megatron's default, expert TP = TP (:func:`published_degrees`), unless
    that default folds into none of its ranks: then at the recipes' ``etp=1``, as ``check_layout`` says."""
    from .search import plan

    result = plan(run.model_spec(), run.cluster_spec(), workload)
    return result, result.check_layout(dict(run.degrees))


def compare_published(run: object) -> PublishedComparison:
    """Plan ``run`` (a :class:`coursekit.presets.PublishedRun`) and compare it with what its paper measured.

    Throughput uses the paper's convention: ``"palm"`` model FLOPs (6N + 12·L·h·s per token) per second
    per GPU, ``"megatron"`` Megatron-LM's eq. 3 (recomputation included), ``"megatron-core"`` Megatron-Core r0.8.0's
    logged model FLOPs, ``"megatron-core-2025"`` those of its 2025 count (causal attention at half, MoE and MLA
    terms; both :func:`coursekit.planner.specs.megatron_core_model_flops_per_step`), or ``"tokens"`` per GPU-second.
    The run's model and cluster may be presets or specs of your own (:class:`coursekit.presets.PublishedRun`).
    """
    from ..presets import PublishedRun
    from ..specs import type_error

    if not isinstance(run, PublishedRun):
        raise type_error("run", run, "PublishedRun")
    model = run.model_spec()
    cluster = run.cluster_spec()
    _, check = _published_layout(run, run.workload())
    best_layout = "" if check.best is None else check.best.label()
    unit = "tokens/s/GPU" if run.flop_convention == "tokens" else "TFLOP/s/GPU"
    published = run.measured_tokens_per_gpu_s if run.flop_convention == "tokens" else run.measured_tflops_per_gpu
    if not check.accepted:
        return PublishedComparison(
            run.name, False, None, check.accepted_count, None, None, None, None, published, unit, "", best_layout,
            run.source,
        )  # fmt: skip
    cand = check.candidate
    assert cand is not None and cand.step_s is not None and check.over_best is not None
    gpus = cluster.world_size
    if run.flop_convention == "palm":
        estimated = cand.model_flops_per_step / (cand.step_s * gpus) / 1e12
    elif run.flop_convention == "megatron":
        flops = megatron_paper_flops_per_step(model.layers, model.hidden, run.global_batch, model.vocab, run.seq_len)
        estimated = flops / (cand.step_s * gpus) / 1e12
    elif run.flop_convention in ("megatron-core", "megatron-core-2025"):
        release = "2025" if run.flop_convention == "megatron-core-2025" else "r0.8"
        tp = int(check.degrees.get("tp", 1))
        flops = megatron_core_model_flops_per_step(model, run.global_batch, run.seq_len, release, tp)
        estimated = flops / (cand.step_s * gpus) / 1e12
    else:
        estimated = cand.tokens_per_step / cand.step_s / gpus
    return PublishedComparison(
        name=run.name,
        accepted=True,
        rank=check.rank,
        accepted_count=check.accepted_count,
        tie_group=check.tie_group,
        step_over_best=check.over_best,
        estimated_over_published=estimated / published,
        estimated=estimated,
        published=published,
        unit=unit,
        layout=cand.label(),
        best_layout=best_layout,
        source=run.source,
    )


class Fp8Speedup(NamedTuple):
    """One pair of published runs, the same model, GPUs, batch and layout in BF16 and in FP8 (see
    :func:`fp8_speedups`): FP8's speed-up as measured and as estimated, and the pair's role (``"fit"`` for the pair
    :data:`coursekit.planner.calibration.FP8_MATMUL_SHARE` is fitted on, else ``"validation"``)."""

    bf16_name: str
    fp8_name: str
    measured: float
    estimated: float
    role: str

    @property
    def estimated_over_measured(self) -> float:
        """The estimated speed-up divided by the measured one: above 1, the estimate makes FP8 too fast."""
        return self.estimated / self.measured


def _published_step_s(run: object, workload: object) -> float:
    """The estimated step (s) of ``run``'s published layout (its fastest accepted candidate) under ``workload``."""
    _, check = _published_layout(run, workload)
    step = check.candidate.step_s if check.accepted and check.candidate is not None else None
    assert step is not None
    return float(step)


def fp8_speedups(fp8_matmul_share: float | None = None) -> tuple[Fp8Speedup, ...]:
    """FP8's speed-up over BF16, measured and estimated, for every published pair that ran one layout in both
    (DGX Cloud Benchmarking's recipes: each at its smallest scale that runs the whole model, in BF16 and in FP8).

    The measured speed-up is the FP8 row's throughput over the BF16 row's (the recipes' step times, inverted); the
    estimated one is the BF16 row's estimated step over the FP8 row's, each at its published layout. FP8's linear
    matmuls keep ``fp8_matmul_share`` of the speed-up the doubled peak promises (``None``: the fitted
    :data:`coursekit.planner.calibration.FP8_MATMUL_SHARE`; ``1``: the datasheet's doubling at face value).

    Taught in: lesson 9 (decision workbench).
    """
    import dataclasses

    from .._validate import check_number
    from ..published_runs import FP8_FIT_RUNS, RUN_ROLES, all_published_runs

    share = None if fp8_matmul_share is None else check_number("fp8_matmul_share", fp8_matmul_share, gt=0, le=1)
    runs = {run.name: run for run in all_published_runs()}
    pairs = []
    for name, bf16 in runs.items():
        fp8 = runs.get(name.replace("(BF16)", "(FP8)")) if name.endswith("(BF16)") else None
        if fp8 is None:
            continue
        measured = fp8.measured_tokens_per_gpu_s / bf16.measured_tokens_per_gpu_s
        # the share is the FP8 run's: the bf16 run reads none (plan() warns about a setting no answer reads)
        steps = [_published_step_s(bf16, bf16.workload())]
        steps.append(_published_step_s(fp8, dataclasses.replace(fp8.workload(), fp8_matmul_share=share)))
        role = "fit" if {name, fp8.name} <= set(FP8_FIT_RUNS) else RUN_ROLES[fp8.name]
        pairs.append(Fp8Speedup(name, fp8.name, measured, steps[0] / steps[1], role))
    return tuple(pairs)


class CpSpeedup(NamedTuple):
    """What context parallelism buys at one sequence length, measured and estimated (see :func:`cp_speedups`).

    ``measured``: the published run's throughput with CP over the vendor's fastest run without it (their table's
    "speedup" column); ``estimated``: the best accepted layout's estimated step when the search may not use CP
    (``max_cp`` 1), over the estimated step of the published CP layout. ``no_cp_layout`` is that best CP-free layout
    (the vendor does not publish theirs), or ``""`` when no CP-free layout fits.
    """

    name: str
    seq_len: int
    measured: float
    estimated: float | None
    no_cp_layout: str

    @property
    def estimated_over_measured(self) -> float | None:
        """The estimated speed-up over the measured one: above 1, the estimate makes CP pay more than it did."""
        return None if self.estimated is None else self.estimated / self.measured


def cp_speedups(*, recompute_modes: tuple[str, ...] | None = None) -> tuple[CpSpeedup, ...]:
    """Context parallelism's speed-up over the fastest layout without it, measured and estimated, for each row of
    NeMo's long-sequence table on whole nodes (:data:`coursekit.published_runs.NEMO_LONG_CONTEXT_ROWS`: Llama 2 7B
    on H100s from 8K to 1024K tokens). The measured one is the row's TFLOP/s with CP over its TFLOP/s without (the
    same FLOP count, so the ratio needs no conversion).

    ``recompute_modes`` limits the modes the search for the layout without CP may use (default: the workload's, all
    of :data:`~coursekit.specs.PLAN_RECOMPUTE_MODES`); ``RECOMPUTE_MODES`` alone asks what that layout is when
    activations may not be offloaded (lesson 9's 128K row, review 29). A mode outside them is a ``ValueError``
    naming ``recompute_modes``, as :class:`~coursekit.specs.WorkloadSpec` says it.

    Taught in: lesson 9 (decision workbench).
    """
    import dataclasses

    from ..published_runs import NEMO_LONG_CONTEXT_ROWS, NEMO_LONG_CONTEXT_RUNS
    from .search import plan

    rows = {row[0] * 1024: row for row in NEMO_LONG_CONTEXT_ROWS}
    out = []
    for run in NEMO_LONG_CONTEXT_RUNS:
        row = rows[run.seq_len]
        workload = run.workload()
        with_cp = _published_step_s(run, workload)
        limits: dict[str, Any] = {"max_cp": 1}
        if recompute_modes is not None:
            limits["recompute_modes"] = recompute_modes
        free = plan(run.model_spec(), run.cluster_spec(), dataclasses.replace(workload, **limits))
        best = next(iter(free.accepted(1)), None)
        estimated = None if best is None or best.step_s is None else float(best.step_s) / with_cp
        layout = "" if best is None else best.label()
        out.append(CpSpeedup(run.name, run.seq_len, row[7] / row[8], estimated, layout))
    return tuple(out)


class LayoutPair(NamedTuple):
    """Two published runs of one model on the same GPUs, batch, sequence and precision, in two different layouts
    (see :func:`layout_pairs`): how much faster the first ran than the second, measured and estimated.

    ``measured`` is the first run's published throughput over the second's; ``estimated`` is the same ratio of the
    workbench's estimates, each at its published layout. A ratio above 1 means the first layout is the faster one.
    ``same_source``: both rows come from one table (their sources agree up to the row), so one team measured both
    with one set-up; otherwise the pair also spans engines or releases.
    """

    first_name: str
    second_name: str
    measured: float
    estimated: float
    same_source: bool

    @property
    def estimated_over_measured(self) -> float:
        """The estimated ratio divided by the measured one: 1 when the estimate gets the gap between them right."""
        return self.estimated / self.measured

    @property
    def same_order(self) -> bool | None:
        """Whether the estimate puts the two layouts in the order they were measured in; ``None`` when the two
        measurements are closer than :data:`~coursekit.planner.calibration.MEASUREMENT_REPEATABILITY` (one run of
        each does not order them either).

        >>> LayoutPair("a", "b", 1.30, 0.95, True).same_order, LayoutPair("a", "b", 1.02, 0.95, True).same_order
        (False, None)
        """
        if abs(self.measured - 1) <= MEASUREMENT_REPEATABILITY:
            return None
        return (self.estimated > 1) == (self.measured > 1)


def layout_pairs(comparisons: Any = None) -> tuple[LayoutPair, ...]:
    """Every pair of registered published runs (:func:`coursekit.published_runs.all_published_runs`) that ran one
    model on the same GPUs (cluster and node count) with the same global batch, sequence length and precision, in two
    different layouts (published degrees), both accepted, training the same weights (all, or LoRA adapters of one
    rank): the measured and the estimated throughput ratio.

    This is the test of what the search does — put layouts of one model in order — against measurement: each pair
    is two measured layouts, and the estimate either orders them as measured (:attr:`LayoutPair.same_order`) or
    not. Pairs may come from different tables or engine releases (:attr:`LayoutPair.same_source` says which);
    throughput is compared in each run's own convention (a ratio of two runs of one batch on the same GPUs is their
    step times' ratio inverted, whatever the convention).

    ``comparisons``, a list or tuple of :class:`PublishedComparison` already made with :func:`compare_published`
    (lesson 9 makes one for every run before it asks for the pairs), is used instead of planning those runs again; a
    run it does not cover is compared here. Each must be of a registered run (by name) and of its source.

    Taught in: lesson 9 (decision workbench).
    """
    from itertools import combinations

    from .._validate import check_items
    from ..published_runs import all_published_runs
    from ..specs import type_error

    runs = all_published_runs()
    given: dict[str, PublishedComparison] = {}
    if comparisons is not None:
        registered = {run.name: run for run in runs}
        for index, comparison in enumerate(check_items("comparisons", comparisons, max_items=len(runs))):
            if not isinstance(comparison, PublishedComparison):
                raise type_error(f"comparisons[{index}]", comparison, "PublishedComparison")
            run = registered.get(comparison.name)
            if run is None or comparison.source != run.source:
                raise ValueError(tr("planner.comparison_not_registered", name=f"comparisons[{index}]",
                                    value=comparison.name))  # fmt: skip
            given[comparison.name] = comparison
    groups: dict[tuple[Any, ...], list[tuple[Any, PublishedComparison]]] = {}
    for run in runs:
        workload = run.workload()  # one job: the same precision, and all weights trained or the same LoRA rank
        key: tuple[Any, ...] = (run.model_spec(), run.cluster_spec(), run.nodes, run.global_batch, run.seq_len)
        key = (*key, workload.precision, workload.lora_rank)
        comparison = given.get(run.name)
        groups.setdefault(key, []).append((run, compare_published(run) if comparison is None else comparison))
    pairs = []
    for members in groups.values():
        for (first, a), (second, b) in combinations(members, 2):
            if published_degrees(first) == published_degrees(second) or not (a.accepted and b.accepted):
                continue
            assert a.estimated is not None and b.estimated is not None
            same = first.source.split(", row")[0] == second.source.split(", row")[0]
            measured, estimated = a.published / b.published, a.estimated / b.estimated
            pairs.append(LayoutPair(first.name, second.name, measured, estimated, same))
    return tuple(pairs)


learner_functions(globals())
