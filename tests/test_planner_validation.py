"""The estimate against published large-scale runs (none of them calibrates it) and against its calibration set.

Goals of the workbench issue: each published layout is accepted, in tie group 1 or the top 10, within 1.25x of the
best estimate, and its estimated throughput within ±30 % of the published one (in the paper's own convention). Where
the model does not reach a goal, KNOWN_GAPS says which and why — the same reasons lesson 9 gives — and the test holds
each run to exactly its stated misses, so a change that closes (or opens) a gap shows up here.
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
from coursekit.published_runs import PUBLISHED_RUNS_2024, RUN_ROLES, all_published_runs

#: The issue's pass criteria for one run: the published layout is accepted; it is in tie group 1 or the top 10; its
#: estimated step is within 1.25x of the best; its estimated throughput is within ±30 % of the published one.
CRITERIA: tuple[str, ...] = ("accepted", "group1_or_top10", "within_1.25x", "throughput_30pct")

#: Runs that miss a criterion, which ones, and why (the same reasons lesson 9 gives). The test holds each run to
#: exactly these misses, so a change that closes (or opens) a gap shows up here.
KNOWN_GAPS: dict[str, tuple[frozenset[str], str]] = {
    "Llama 3 405B, 8K, 8192 GPUs": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "the activation model keeps the published tp 8, pp 16 layout's interleaved schedule above 80 GiB without "
        "recomputation (98.8 GiB at v = 4), so it runs v = 1 with a 30 % bubble; the estimate's best splits the "
        "sequence over CP 4, which frees the memory for v = 3 without recomputation (with v = 4 the published "
        "layout would be within 1.05x of it)",
    ),
    "Llama 3 405B, 8K, 16384 GPUs": (
        frozenset({"group1_or_top10", "within_1.25x", "throughput_30pct"}),
        "as at 8192 GPUs: v = 4 without recomputation needs 98.6 GiB, so the published layout runs full recompute "
        "(0.66x the published throughput; with v = 4 it would be 0.89x and within 1.08x of the best)",
    ),
    "Llama 3 405B, 128K, 16384 GPUs": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "the activation model gives the interleaved schedule more than 80 GiB per GPU without recomputation, so "
        "the published tp 8, cp 16, pp 16 layout runs v = 4 with full recompute and pays the recomputed forward; "
        "the estimate's best splits the sequence over cp = 64, which fits without recomputation",
    ),
    "DeepSeek-V3 (MoE), 2048 H800 GPUs": (
        frozenset({"group1_or_top10", "within_1.25x", "throughput_30pct"}),
        "pp = 16 over 61 layers gives every stage 4 layers and the last one also the output layer (1.41x the "
        "average stage's work, against 1.12x with pp = 4); DualPipe's schedule and the multi-token-prediction "
        "module are not modelled",
    ),
    "BLOOM 176B, 384 GPUs": (
        frozenset({"group1_or_top10"}),
        "within 1.09x of the best, but no assumption moved within its uncertainty makes it as fast: the estimate "
        "prefers TP 8 with fewer stages and CP 2 variants whose half-length micro-batches halve the bubble; only "
        "a measurement can order them",
    ),
    "MT-NLG 530B, 420 nodes": (
        frozenset({"group1_or_top10"}),
        "within 1.06x of the best (rank 14), outside tie group 1: the best layouts split each 2048-token sequence "
        "over CP 2, halving each micro-batch's pipeline bubble at the price of an inter-node K/V ring",
    ),
}


def missed(c: PublishedComparison) -> frozenset[str]:
    """The criteria comparison ``c`` misses."""
    if not c.accepted:
        return frozenset(CRITERIA)
    assert c.rank is not None and c.tie_group is not None
    assert c.step_over_best is not None and c.estimated_over_published is not None
    checks = {
        "accepted": True,
        "group1_or_top10": c.tie_group == 1 or c.rank <= 10,
        "within_1.25x": c.step_over_best <= 1.25,
        "throughput_30pct": 0.70 <= c.estimated_over_published <= 1.30,
    }
    return frozenset(name for name, ok in checks.items() if not ok)


@pytest.fixture(scope="module", params=all_published_runs(), ids=lambda run: run.name)
def comparison(request: pytest.FixtureRequest) -> tuple[PublishedRun, PublishedComparison]:
    run: PublishedRun = request.param
    return run, compare_published(run)


def test_published_runs_are_at_least_six_and_cover_dense_moe_a100_h100() -> None:
    assert len(PUBLISHED_RUNS) >= 6
    kinds = {MODELS[run.model].kind for run in PUBLISHED_RUNS}
    clusters = {run.cluster for run in PUBLISHED_RUNS}
    assert kinds == {"dense", "moe"} and {"a100-8", "h100-8"} <= clusters
    assert all("arXiv:" in run.source for run in PUBLISHED_RUNS)
    assert all("NeMo" in run.source for run in PUBLISHED_RUNS_2024)


def test_no_run_both_fits_and_validates() -> None:
    """Megatron-LM's Table 1 fits the efficiency ceiling and checks nothing; every published run only checks."""
    runs = all_published_runs()
    assert {RUN_ROLES[run.name] for run in runs} == {"validation"}
    fit = {name for name, role in RUN_ROLES.items() if role == "fit"}
    assert len(fit) == len(MEGATRON_TABLE1) and not fit & {run.name for run in runs}


def test_published_layout_meets_the_criteria_or_its_stated_gap(
    comparison: tuple[PublishedRun, PublishedComparison],
) -> None:
    run, c = comparison
    expected, reason = KNOWN_GAPS.get(run.name, (frozenset(), ""))
    assert missed(c) == expected, (
        f"{run.name}: misses {sorted(missed(c))}, stated {sorted(expected)} ({reason}); rank {c.rank}, group "
        f"{c.tie_group}, {c.step_over_best}x of the best, {c.estimated_over_published}x the published throughput"
    )


def test_every_gap_names_a_run() -> None:
    assert set(KNOWN_GAPS) <= {run.name for run in all_published_runs()}


def test_the_8k_405b_gap_is_the_interleaved_schedule_memory() -> None:
    """The stated reason of the 8K gaps, checked: with v = 4 and no recomputation the published layout is refused on
    memory, and were it admitted it would be within 1.1x of the best and within ±30 % of the published throughput."""
    for run in PUBLISHED_RUNS[:2]:
        result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
        dp = dict(run.degrees)["dp"]
        interleaved = result.explain(f"tp=8,pp=16,dp={dp},v=4,zero=1,mb=1,recompute=none")
        best = result.accepted(1)[0]
        assert interleaved.codes == ("memory",) and best.cp > 1
        assert interleaved.step_s is not None and best.step_s is not None
        assert interleaved.step_s < 1.1 * best.step_s
        tflops = interleaved.model_flops_per_step / (interleaved.step_s * run.gpus) / 1e12
        assert 0.7 <= tflops / run.measured_tflops_per_gpu <= 1.3


def test_the_128k_gap_is_the_recompute_the_interleaved_schedule_forces() -> None:
    """The stated reason of the 128K gap, checked: the published layout with v = 4 fits only with full recompute
    (none or selective needs more than the 80 GiB), and with v = 1 its 1F1B bubble at 16 micro-batches on 16 stages
    is 15 / 31 — both slower than the best estimate, which uses a wider CP without recomputation instead."""
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
    assert best.cp > 16 and best.recompute == "none"
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
