"""The estimate against published large-scale runs (none of them calibrates it) and against its calibration set.

Goals of the workbench issue: each published layout is accepted, within 1.25x of the best estimate, and its
estimated throughput within ±30 % of the published one (in the paper's own FLOP convention). Each layout's rank and
tie group are held to RANK_BOUNDS. Where the model does not reach a goal, KNOWN_GAPS (beyond 1.25x) and
OUTSIDE_FIRST_TIE_GROUP say why — the same reasons lesson 9 gives — and the test holds the gap to its stated size, so
a change that closes (or widens) it shows up here.
"""

from __future__ import annotations

import math

import pytest

from coursekit.planner import (
    EFFICIENCY_CEILING,
    MODEL_UNCERTAINTY,
    PublishedComparison,
    compare_published,
    megatron_paper_flops_per_step,
    plan,
)
from coursekit.presets import CLUSTERS, MEGATRON_TABLE1, MODELS, PUBLISHED_RUNS, PublishedRun

#: Where each published layout stands among the accepted ones: (rank at most, tie group at most). Measured with the
#: context gate that compares a CP layout with every layout without CP in its least-memory settings; a change that
#: moves a layout down shows up here (and in lesson 9's table).
RANK_BOUNDS: dict[str, tuple[int, int]] = {
    "Llama 3 405B, 8K, 8192 GPUs": (3, 1),
    "Llama 3 405B, 8K, 16384 GPUs": (5, 1),
    "Llama 3 405B, 128K, 16384 GPUs": (198, 3),
    "MT-NLG 530B, 280 nodes": (2, 1),
    "MT-NLG 530B, 350 nodes": (1, 1),
    "MT-NLG 530B, 420 nodes": (4, 1),
    "BLOOM 176B, 384 GPUs": (10, 1),
    "DeepSeek-V3 (MoE), 2048 H800 GPUs": (99, 2),
}

#: Runs whose layout the estimate ranks beyond 1.25x of its best, and why (the same reasons lesson 9 gives).
KNOWN_GAPS: dict[str, str] = {
    "Llama 3 405B, 128K, 16384 GPUs": "the activation model (tensor by tensor: GQA, SwiGLU, flash attention, no "
    "offloading) gives the interleaved schedule 86.8 GiB per GPU at ZeRO-2 without recomputation (86.7 selective), "
    "so the published tp 8, cp 16, pp 16 layout runs v = 4 with full recompute and pays the recomputed forward; the "
    "estimate's best splits the sequence over cp = 32 with pp = 4 instead, which fits without recomputation",
    "DeepSeek-V3 (MoE), 2048 H800 GPUs": "pp = 16 over 61 layers gives every stage 4 layers and the last one also the "
    "output layer (6·V·h = 5.6 GFLOP per token, 1.5 layers' worth): 1.41x the average stage's work, against 1.12x "
    "with pp = 4; DualPipe's schedule and the multi-token-prediction module are not modelled",
}

#: Runs within 1.25x of the best but outside the first tie group, and why.
OUTSIDE_FIRST_TIE_GROUP: dict[str, str] = {
    **KNOWN_GAPS,
}


@pytest.fixture(scope="module", params=PUBLISHED_RUNS, ids=lambda run: run.name)
def comparison(request: pytest.FixtureRequest) -> tuple[PublishedRun, PublishedComparison]:
    run: PublishedRun = request.param
    return run, compare_published(run)


def test_published_runs_are_at_least_six_and_cover_dense_moe_a100_h100() -> None:
    assert len(PUBLISHED_RUNS) >= 6
    kinds = {MODELS[run.model].kind for run in PUBLISHED_RUNS}
    clusters = {run.cluster for run in PUBLISHED_RUNS}
    assert kinds == {"dense", "moe"} and {"a100-8", "h100-8"} <= clusters
    assert all("arXiv:" in run.source for run in PUBLISHED_RUNS)


def test_published_layout_is_accepted_and_close(comparison: tuple[PublishedRun, PublishedComparison]) -> None:
    run, c = comparison
    assert c.accepted, f"{run.name}: the published layout is rejected"
    ratio = c.estimated_over_published
    step = c.step_over_best
    assert ratio is not None and step is not None and c.rank is not None and c.tie_group is not None
    assert 0.70 <= ratio <= 1.30, f"{run.name}: estimated / published throughput {ratio:.2f}"
    rank_bound, group_bound = RANK_BOUNDS[run.name]
    assert c.rank <= rank_bound, f"{run.name}: rank {c.rank} of {c.accepted_count} (bound {rank_bound})"
    assert c.tie_group <= group_bound, f"{run.name}: tie group {c.tie_group} (bound {group_bound})"
    if run.name in KNOWN_GAPS:
        assert 1.25 < step <= 1.5, f"{run.name}: {KNOWN_GAPS[run.name]} (now {step:.2f}x; update the lesson)"
    else:
        assert step <= 1.25, f"{run.name}: {step:.2f}x of the best estimate"
    if c.tie_group > 1:
        assert run.name in OUTSIDE_FIRST_TIE_GROUP, f"{run.name}: tie group {c.tie_group} without a stated reason"
    else:
        assert run.name not in OUTSIDE_FIRST_TIE_GROUP, f"{run.name} reached tie group 1: update the reason"


def test_every_published_run_has_a_rank_bound() -> None:
    assert set(RANK_BOUNDS) == {run.name for run in PUBLISHED_RUNS}
    assert set(OUTSIDE_FIRST_TIE_GROUP) <= set(RANK_BOUNDS)


def test_the_128k_gap_is_the_recompute_the_interleaved_schedule_forces() -> None:
    """The stated reason of the 128K gap, checked: the published layout with v = 4 fits only with full recompute
    (none or selective needs more than the 80 GiB), and with v = 1 its 1F1B bubble at 16 micro-batches on 16 stages
    is 15 / 31 — both slower than the best estimate, which uses CP 32 without recomputation instead."""
    run = next(r for r in PUBLISHED_RUNS if r.name == "Llama 3 405B, 128K, 16384 GPUs")
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
    base = "tp=8,pp=16,dp=8,cp=16,zero=2,mb=1"
    selective = result.explain(base + ",v=4,recompute=selective")
    none = result.explain(base + ",v=4,recompute=none")
    full = result.explain(base + ",v=4,recompute=full")
    plain = result.explain(base + ",v=1,recompute=selective")
    assert selective.codes == none.codes == ("memory",) and full.accepted and plain.accepted
    assert plain.bubble_fraction == pytest.approx(15 / 31)
    best = result.accepted(1)[0]
    assert best.cp == 32 and best.recompute == "none"
    assert best.step_s is not None and full.step_s is not None and plain.step_s is not None
    assert best.step_s * 1.25 < full.step_s < plain.step_s


def test_megatron_flops_convention_reproduces_mtnlg_iteration_time() -> None:
    """MT-NLG's Table: 126 TFLOP/s per GPU at 60.1 s per iteration on 2240 GPUs — the Megatron count, checked."""
    flops = megatron_paper_flops_per_step(105, 20480, 1920, 50257, 2048)
    assert flops / (60.1 * 2240) / 1e12 == pytest.approx(126, rel=0.01)


def test_calibration_geometric_mean_on_megatron_table1() -> None:
    """EFFICIENCY_CEILING is fitted so that the geometric mean of estimated / published TFLOP/s over Megatron-LM's
    Table 1 is 1; the largest step-time error left bounds MODEL_UNCERTAINTY."""
    logs, worst = [], 0.0
    for run in MEGATRON_TABLE1:
        result = plan(MODELS[run.name], run.cluster(), run.workload())
        wanted = set(result.find(tp=run.tp, pp=run.pp, dp=run.dp))
        best = next(result.candidate(i) for i in result.accepted_indices() if i in wanted)
        assert best.step_s is not None
        estimate = megatron_paper_flops_per_step(run.layers, run.hidden, run.global_batch) / (best.step_s * run.gpus)
        ratio = estimate / 1e12 / run.tflops_per_gpu
        logs.append(math.log(ratio))
        worst = max(worst, abs(1 / ratio - 1))
    assert math.exp(sum(logs) / len(logs)) == pytest.approx(1.0, abs=0.01)
    assert worst <= MODEL_UNCERTAINTY < worst + 0.05
    assert 0 < EFFICIENCY_CEILING < 1
