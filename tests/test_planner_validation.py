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
    PlanResult,
    PublishedComparison,
    compare_published,
    megatron_paper_flops_per_step,
    plan,
)
from coursekit.presets import CLUSTERS, MEGATRON_TABLE1, MODELS, PUBLISHED_RUNS, PublishedRun
from coursekit.published_runs import PUBLISHED_RUNS_2024, PUBLISHED_RUNS_2025, RUN_ROLES, all_published_runs

#: The issue's pass criteria for one run: the published layout is accepted; it is in tie group 1 or the top 10; its
#: estimated step is within 1.25x of the best; its estimated throughput is within ±30 % of the published one.
CRITERIA: tuple[str, ...] = ("accepted", "group1_or_top10", "within_1.25x", "throughput_30pct")

#: Runs that miss a criterion, which ones, and why (the same reasons lesson 9 gives). The test holds each run to
#: exactly these misses, so a change that closes (or opens) a gap shows up here.
KNOWN_GAPS: dict[str, tuple[frozenset[str], str]] = {
    "Llama 3 405B, 8K, 8192 GPUs": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "the activation model keeps the published tp 8, pp 16 layout's interleaved schedule above 80 GiB without "
        "recomputation (96.8 GiB at v = 4 with ZeRO-1, 85.2 GiB with ZeRO-2: the second pipeline rank holds 77 "
        "two-layer chunk forwards of 32 micro-batches, the fewest Megatron-Core's warm-up allows, since its group "
        "of contiguous micro-batches N may not be below pp), so it runs v = 1 with a 32 % bubble; the estimate's best "
        "runs TP 4 and splits the sequence over CP 4, which frees the memory for v = 4 without recomputation (with "
        "v = 4 the published layout would be within 1.06x of it)",
    ),
    "Llama 3 405B, 8K, 16384 GPUs": (
        frozenset({"group1_or_top10"}),
        "16 micro-batches on 16 stages are all in flight at v = 4 (63.6 GiB of activations), which fits without "
        "recomputation with ZeRO-2; within 1.13x of the best and 0.86x the published throughput, but rank 55 "
        "(tie group 6): the best splits the sequence over CP 4, which gives each pipeline 64 micro-batches instead "
        "of 16 (bubble 15/271 at v = 4 against the published 15/79)",
    ),
    "DeepSeek-V3 (MoE), 2048 H800 GPUs": (
        frozenset({"group1_or_top10", "within_1.25x", "throughput_30pct"}),
        "pp = 16 over 61 layers gives every stage 4 layers and the last one also the output layer (1.41x the "
        "average stage's work, against 1.12x with pp = 4); DualPipe's schedule and the multi-token-prediction "
        "module are not modelled",
    ),
    "NeMo Nemotron-4 340B, 4K, 128 H100 (FP8)": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "the memory ledger puts tp 8, pp 8, dp 2, v = 12 without recomputation at 81.4 GiB, 1.4 GiB over 80 (with "
        "the launcher config's bf16 gradients and ZeRO-1; every saved activation counted at 16 bits, though FP8 "
        "training keeps some GEMM inputs in 8 bits), so the layout runs full recompute (3.53 s a step, 1.30x the "
        "best's 2.72 s, rank 22); admitted, its 2.72 s step would be the fastest; NeMo measured 3.18 s",
    ),
    "Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8)": (
        frozenset({"group1_or_top10"}),
        "within 1.07x of the best and 0.98x the published throughput, but rank 34 (tie group 3): with the TP "
        "communication overlap its recipe turns on, TP traffic hides, and the estimate prefers TP 8 with PP 2 "
        "(9.83 s against 10.49 s a step): of 8 stages the last holds 10 layers and the 128K-vocabulary output layer, "
        "of 2 stages 40 layers and it",
    ),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8)": (
        frozenset({"throughput_30pct"}),
        "rank 6, 1.08x of the best, but 3.2x the published 5275 tokens/s. The routed experts are taken at their own "
        "grouped-GEMM shape (2048 rows per expert at EP 8), the fused token permutation and the dispatcher's second "
        "sort by local expert at HBM bandwidth (0.83 s of a 7.7 s step), and the recipe's moe_a2a_overlap hides the "
        "all-to-all in the 1F1B steady state at the cost of the SMs it holds; what the estimate still leaves out (FP8 "
        "casts of narrow h = 2048 GEMM inputs, elementwise kernels, the dropless dispatcher's host synchronisation "
        "and the kernel launches of 48 small layers) must take most of the measured 24.8 s step; the same "
        "document's 25.09 token-dropping run measured 10494 tokens/s on this layout",
    ),
    "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "with the recipe's expert tensor parallelism 1 (Megatron-Core's MoE parallel folding; Megatron-Bridge "
        "scripts/performance/configs/qwen/qwen3_workload_base_configs.py @ 01b2977e518f0a58ec870daba2fb2c04d76a91b2, "
        "BASE_QWEN3_235B_A22B_CONFIG: expert_tensor_parallel_size=1) the layout is accepted, but only at v = 1 (or "
        "v = 3 with full recomputation): the ledger puts the published v = 4 without recomputation at 82.8 GiB. "
        "Megatron-Core runs the recipe's moe_a2a_overlap only with interleaving and without full recomputation, so "
        "the accepted twins hide none of the all-to-all, 14.4 s a step over InfiniBand for 32 EP ranks on 4 nodes: "
        "a 26.0 s step, 0.80x the published throughput, 2.09x the best (rank 1382). Admitted, the published v = 4 "
        "would hide it under 12.2 s of compute: 15.3 s, 1.23x the best and 1.36x the published throughput",
    ),
    "MT-NLG 530B, 420 nodes": (
        frozenset({"group1_or_top10"}),
        "within 1.06x of the best (rank 14), outside tie group 1: the estimate prefers 7 stages to the published 35 "
        "(a smaller bubble, and no 3-layer last stage that also carries the output layer), with CP 2 or without "
        "it (39.33 s and 39.34 s against 41.32 s)",
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


def test_vendor_table_runs_cover_dense_and_moe_at_fp8_with_a_versioned_source() -> None:
    """Every vendor-table row names its table's release (NeMo 24.07, or Megatron-Bridge 25.11 at a commit) and row,
    runs FP8 as published, and the rows hold dense and MoE models."""
    vendor = (*PUBLISHED_RUNS_2024, *PUBLISHED_RUNS_2025)
    assert len(PUBLISHED_RUNS_2025) >= 6 and {MODELS[run.model].kind for run in vendor} == {"dense", "moe"}
    assert all(("NeMo 24.07" in run.source or "25.11" in run.source) and ", row " in run.source for run in vendor)
    assert all(dict(run.workload_options)["precision"] == "fp8" for run in vendor)
    assert all(run.measured_tokens_per_gpu_s > 0 and run.flop_convention == "tokens" for run in vendor)


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


def test_the_405b_8k_activation_ledger_by_hand() -> None:
    """The published 8K layout at v = 4 without recomputation, worked by hand tensor by tensor.

    Per token and layer, 16-bit, flash attention, no dropout (Llama 3: h 16384, 128 heads of 128, 8 KV heads,
    SwiGLU 53248): two norm inputs 2·2h, attention input 2h, Q 2h, K and V 2·2·8·128, attention output 2h, MLP
    input 2h, SwiGLU's gate and up outputs and their product 2·3·53248, fp32 logsumexp 4·128; all over TP 8 (with
    sequence parallelism). The heaviest stage is the second pipeline rank: 8 layers (Llama 3 gives the first and
    last stages one layer fewer), v = 4 chunks of 2 layers, and 2·(16 - 2) + 3·16 + 1 = 77 chunk forwards in
    flight (Megatron-Core's interleaved warm-up) = 154 layer-micro-batches."""
    h, f = 16384, 53248
    per_token = 2 * 2 * h + 2 * h + 2 * h + 2 * 2 * 8 * 128 + 2 * h + 2 * h + 2 * 3 * f + 4 * 128
    per_layer = per_token * 8192 / 8
    run = PUBLISHED_RUNS[0]
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
    c = result.explain("tp=8,pp=16,dp=64,v=4,zero=1,mb=1,recompute=none")
    assert c.stage_layers == (7, 8, 7)
    assert c.memory is not None
    assert c.memory.activations_gib == pytest.approx(per_layer * 77 * 2 / 2**30)


def _plan_run(name: str) -> tuple[PublishedRun, PlanResult]:
    run = next(r for r in all_published_runs() if r.name == name)
    return run, plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())


def test_the_qwen3_235b_gap_is_the_expert_tensor_fold() -> None:
    """The published layout is refused by the fold rule alone, with the experts' TP tied to the dense TP 2:
    2 · 32 · 8 = 512 ranks do not divide 256. Megatron-Bridge's Qwen3 recipe sets expert_tensor_parallel_size = 1,
    for which 1 · 32 · 8 = 256 would fold."""
    run, result = _plan_run("Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)")
    c = result.explain("tp=2,pp=8,dp=16,ep=32,v=4,zero=1,mb=1,recompute=none")
    assert c.codes == ("ep_fold",) and 2 * 32 * 8 % run.gpus == 0 and run.gpus % (1 * 32 * 8) == 0


def test_the_nemotron_gap_is_the_memory_ledger() -> None:
    """The published interleaved layout without recomputation is refused on memory by less than 2 GiB; admitted, it
    would be faster than the best estimate. Every accepted candidate of the layout is slower than the step NeMo
    measured (32 · 4096 tokens / (322 tokens/s/GPU · 128 GPUs) = 3.18 s)."""
    _, result = _plan_run("NeMo Nemotron-4 340B, 4K, 128 H100 (FP8)")
    none = result.explain("tp=8,pp=8,dp=2,v=12,zero=1,mb=1,recompute=none")
    best = result.accepted(1)[0]
    assert none.codes == ("memory",) and none.memory is not None and 80 < none.memory.total_gib < 82
    assert none.step_s is not None and best.step_s is not None and none.step_s < best.step_s
    measured_step_s = 32 * 4096 / (322 * 128)
    assert measured_step_s == pytest.approx(3.18, abs=0.005)
    layout = set(result.find(tp=8, pp=8, dp=2, cp=1))
    accepted = [result.candidate(i) for i in result.accepted_indices() if i in layout]
    assert {c.recompute for c in accepted if c.virtual_stages > 1} == {"full"}
    assert min(c.step_s for c in accepted if c.step_s is not None) > measured_step_s


def test_the_128k_layout_fits_with_zero2_and_is_close_to_the_best() -> None:
    """The 128K layout, checked: with 16 micro-batches on 16 stages every micro-batch is in flight at v = 4, which
    fits without recomputation once ZeRO-2 shards the gradients (ZeRO-1's fp32 gradients do not); with v = 1 its 1F1B
    bubble is 15 / 31. It is within 1.25x of the best, which uses a wider CP (with Llama 3's exposed all-gather CP the
    published layout is in tie group 1)."""
    run = next(r for r in PUBLISHED_RUNS if r.name == "Llama 3 405B, 128K, 16384 GPUs")
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
    base = "tp=8,pp=16,dp=8,cp=16,mb=1"
    none = result.explain(base + ",zero=2,v=4,recompute=none")
    zero1 = result.explain(base + ",zero=1,v=4,recompute=none")
    full = result.explain(base + ",zero=2,v=4,recompute=full")
    plain = result.explain(base + ",zero=2,v=1,recompute=selective")
    assert none.accepted and zero1.codes == ("memory",) and full.accepted and plain.accepted
    assert plain.bubble_fraction == pytest.approx(15 / 31)
    best = result.accepted(1)[0]
    assert best.cp > 16 and best.recompute == "none"
    assert best.step_s is not None and none.step_s is not None and full.step_s is not None
    assert best.step_s < none.step_s < 1.25 * best.step_s < full.step_s


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
