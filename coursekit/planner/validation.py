"""The workbench against published runs: does it accept the layout, where does it rank it, how close is it?

:func:`compare_published` plans one :class:`coursekit.presets.PublishedRun` and reports what the issue
asks of the estimate: whether the published layout is accepted, its rank among the accepted ones (and
its tie group), its estimated step time divided by the best estimate, and its estimated throughput
divided by the published one, in the paper's own FLOP convention. Lesson 9 prints the table; the tests
hold it to the goals (within 1.25x of the best, throughput within ±30 %) or to a stated reason.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from typing import NamedTuple

from .specs import megatron_core_model_flops_per_step, megatron_paper_flops_per_step

__all__ = [
    "PASS_CRITERIA",
    "PASS_STEP_OVER_BEST_MAX",
    "PASS_THROUGHPUT_TOLERANCE",
    "PASS_TOP_RANK",
    "PublishedComparison",
    "compare_published",
]

# The pass rule for one published run, from issue 19's "Done when": a run passes when it is accepted; it is in the
# first tie group or the top 10; the best step is within 1.25x of it; and throughput is within ±30 %.
#: Rank at or above which an accepted layout outside the first tie group still counts as found.
PASS_TOP_RANK = 10
#: Largest estimated step of the published layout divided by the best estimated step.
PASS_STEP_OVER_BEST_MAX = 1.25
#: Largest |estimated throughput / published throughput - 1|.
PASS_THROUGHPUT_TOLERANCE = 0.3
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


def compare_published(run: object) -> PublishedComparison:
    """Plan ``run`` (a :class:`coursekit.presets.PublishedRun`) and compare it with what its paper measured.

    Throughput uses the paper's convention: ``"palm"`` model FLOPs (6N + 12·L·h·s per token) per second
    per GPU, ``"megatron"`` Megatron-LM's eq. 3 (recomputation included), ``"megatron-core"`` Megatron-Core r0.8.0's
    logged model FLOPs, ``"megatron-core-2025"`` those of its 2025 count (causal attention at half, MoE and MLA
    terms; both :func:`coursekit.planner.specs.megatron_core_model_flops_per_step`), or ``"tokens"`` per GPU-second.
    """
    from ..presets import CLUSTERS, MODELS, PublishedRun
    from ..specs import type_error
    from .search import plan

    if not isinstance(run, PublishedRun):
        raise type_error("run", run, "PublishedRun")
    model = MODELS[run.model]
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)
    result = plan(model, cluster, run.workload())
    order = result.accepted_indices()
    degrees = dict(run.degrees)
    if model.is_moe:  # a run that states no expert TP ran Megatron's default, expert TP = TP
        degrees.setdefault("etp", degrees.get("tp", 1))
    wanted = set(result.find(**degrees))
    matching = [i for i in order if i in wanted]
    best_layout = result.candidate(order[0]).label() if order else ""
    unit = "tokens/s/GPU" if run.flop_convention == "tokens" else "TFLOP/s/GPU"
    published = run.measured_tokens_per_gpu_s if run.flop_convention == "tokens" else run.measured_tflops_per_gpu
    if not matching:
        return PublishedComparison(
            run.name, False, None, len(order), None, None, None, None, published, unit, "", best_layout, run.source
        )
    cand = result.candidate(matching[0])
    best = result.candidate(order[0])
    assert cand.step_s is not None and best.step_s is not None
    gpus = cluster.world_size
    if run.flop_convention == "palm":
        estimated = cand.model_flops_per_step / (cand.step_s * gpus) / 1e12
    elif run.flop_convention == "megatron":
        flops = megatron_paper_flops_per_step(model.layers, model.hidden, run.global_batch, model.vocab, run.seq_len)
        estimated = flops / (cand.step_s * gpus) / 1e12
    elif run.flop_convention in ("megatron-core", "megatron-core-2025"):
        release = "2025" if run.flop_convention == "megatron-core-2025" else "r0.8"
        flops = megatron_core_model_flops_per_step(model, run.global_batch, run.seq_len, release, degrees.get("tp", 1))
        estimated = flops / (cand.step_s * gpus) / 1e12
    else:
        estimated = cand.tokens_per_step / cand.step_s / gpus
    rank, group = result.rank_of(matching[0])
    return PublishedComparison(
        name=run.name,
        accepted=True,
        rank=rank,
        accepted_count=len(order),
        tie_group=group,
        step_over_best=cand.step_s / best.step_s,
        estimated_over_published=estimated / published,
        estimated=estimated,
        published=published,
        unit=unit,
        layout=cand.label(),
        best_layout=best_layout,
        source=run.source,
    )
