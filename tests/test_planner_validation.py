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
    megatron_core_flops_per_step,
    megatron_core_model_flops_per_step,
    megatron_padded_vocab,
    megatron_paper_flops_per_step,
    plan,
)
from coursekit.planner.calibration import FP8_FIT_RUNS, MOE_HOST_FIT_RUNS
from coursekit.presets import CLUSTERS, MEGATRON_TABLE1, MODELS, PUBLISHED_RUNS, PublishedRun
from coursekit.published_runs import (
    EP_OVERLAP_FIT_RUNS,
    PUBLISHED_RUNS_2024,
    PUBLISHED_RUNS_2025,
    RUN_ROLES,
    all_published_runs,
)

#: Runs that miss a criterion, which ones, and why (the same reasons lesson 9 gives). The test holds each run to
#: exactly these misses, so a change that closes (or opens) a gap shows up here.
KNOWN_GAPS: dict[str, tuple[frozenset[str], str]] = {
    "DGX Cloud DeepSeek-V3 (MoE), 4K, 1024 H100 (BF16)": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "rank 28 (tie group 2), 1.35x the best estimate, at 1.02x the measured throughput. Registered as its recipe "
        "sets it (no CP: the container's Transformer Engine predates MLA with CP; MLA up-projection recomputation; no "
        "TP comm overlap; the alltoall dispatcher, whose all-to-all Megatron-Core does not overlap at PP 16 without "
        "interleaving): "
        "EP 64 spans 8 nodes, and 20.0 s of its all-to-all per step cross InfiniBand, exposed. The best estimate "
        "(TP 4, PP 16, EP 8, 68.0 GiB) keeps each all-to-all inside a node (2.1 s); the recipe's first and last "
        "stage hold 3 and 2 layers, stated as edges of 1 and 2",
    ),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8)": (
        frozenset({"throughput_30pct"}),
        "rank 22 (tie group 1), 1.06x of the best (TP 1, DP 16 with EP 4 and no pipeline, whose gradient rings cross "
        "the 2 nodes on 8 NICs each: coursekit.specs.ring_nics), and 2.8x the published 5275 tokens/s. The "
        "routed experts are taken at their "
        "own grouped-GEMM shape (4096 rows per expert at EP 8 and micro-batch 2), the fused token permutation and the "
        "dispatcher's second sort by local expert at HBM bandwidth (0.83 s of an 8.8 s step), Transformer Engine's "
        "FP8 casts under current scaling (amax, cast and transpose of each linear layer's input and output "
        "gradient, 0.72 s), and the recipe's moe_a2a_overlap "
        "hides its measured share of the all-to-all (0.48) at the cost of the SMs it holds; what the estimate still "
        "leaves out (elementwise kernels, and host time beyond the fitted 9.4 ms per MoE layer, which this layout's "
        "micro-batch 2 layers outlast on the GPU) must take most of the measured 24.8 s "
        "step; the same document's 25.09 token-dropping run measured 10494 tokens/s on this layout, and the same "
        "layout family (TP 1, PP 2, EP 8, at VP 12 and global batch 1024) measured 5113 tokens/s in the 26.02 "
        "container (docs/performance-summary.md @ c0b9a000) and 9058 in 26.02.01 (performance-summary-archive.md @ "
        "067f987d): a 1.77x spread between releases of one engine, which no layout model can follow",
    ),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, GBS 1024, 26.02)": (
        frozenset({"throughput_30pct"}),
        "the estimate is 1.77x the published 5113 tokens/s, and 1.00x the 9058 that the 26.02.01 patch release "
        "measured on the same config (TP 1, PP 2, VP 12, EP 8, global batch 1024, DeepEP and the all-to-all "
        "overlap; the next run): the two releases of one engine are 1.77x apart, and the estimate sits on the faster",
    ),
    "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "with the recipe's expert tensor parallelism 1 (Megatron-Core's MoE parallel folding; Megatron-Bridge "
        "scripts/performance/configs/qwen/qwen3_workload_base_configs.py @ "
        "01b2977e518f0a58ec870daba2fb2c04d76a91b2, BASE_QWEN3_235B_A22B_CONFIG: expert_tensor_parallel_size=1) "
        "the layout is accepted, interleaved without recomputation (FP8 activations counted, and no copy of the "
        "experts' outputs: Megatron-Core from 0.13; the recipe's split counts the embedding and the loss as a layer "
        "each, 94 + 2 = 8 x 12); its 32 EP ranks span 4 nodes and the all-to-all over InfiniBand, 14.4 s a step, "
        "hides under the compute only in the measured share of the recipe's moe_a2a_overlap (EP_A2A_OVERLAP_ON, "
        "0.48): a 19.9 s step against the measured 20.8 s (1.05x the throughput), but 1.48x the best estimate "
        "(rank 680, tie group 3): TP 1, PP 8 and EP 8 inside a node, ZeRO-2, at 78.2 GiB of 80. None of the three EP 8 "
        "layouts the ModelZoo measured for this model beat EP 32 with the overlap (17.6 s): FSDP tied it, PP 32 ran "
        "24.2 s and TP 4 29.0 s; the layout the estimate prefers was not measured, and only measuring settles it",
    ),
    "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8, GBS 8192)": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "the same layout as the 25.11 row at four times the global batch, with the same reason: 1.55x the best "
        "(rank 695, tie group 3) at 1.03x the published throughput",
    ),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32)": (
        frozenset({"group1_or_top10"}),
        "accepted at the published v = 4 with the run's norm and activation recomputation (70.8 GiB); its 32 EP "
        "ranks span 4 nodes and DeepEP's all-to-all (a token crosses InfiniBand once per other node it reaches, "
        "2.70 of 3, to the GPU with its in-node index) is 5.8 s a step, all exposed without the 1F1B overlap: "
        "19.3 s against the measured 19.7 s (1.02x the throughput), 1.22x the best estimate (rank 24, tie group "
        "2; the best keeps TP 2 and PP 8 with EP 16, 15.8 s): EP 16 spans 2 nodes, where a token crosses "
        "InfiniBand once, to the one other node. One of the two rows that fit the host time per MoE layer, and of the "
        "two that fit the share of the all-to-all the 1F1B overlap hides",
    ),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 8, FSDP)": (
        frozenset({"group1_or_top10"}),
        "Megatron-FSDP's sharding strategy is not stated; the memory gate leaves ZeRO-3 (ZeRO-1 to 3 searched), "
        "which, as Megatron-FSDP's optim_grads_params does (Megatron-LM 1e057005, custom_fsdp/"
        "fully_sharded_data_parallel.py: grad_reduce_every_bprop), all-gathers each rank's 28.4 billion expert "
        "parameters for every forward and backward and reduce-scatters their gradients after every micro-batch, "
        "over the 32 expert-data-parallel ranks, one per node: 18.1 s of traffic against 16.0 s of compute (full "
        "recomputation), 4.7 s exposed: 20.7 s against the measured 17.6 s (0.85x), 1.249x the best estimate, "
        "just within 1.25x (plain ZeRO-3 data parallelism without EP, 16.6 s; rank 89, tie group 2)",
    ),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, TP 4, EP 8)": (
        frozenset({"group1_or_top10", "within_1.25x"}),
        "one of the two rows that fit the host time per MoE layer (9.4 ms; coursekit.planner.calibration."
        "MOE_HOST_FIT_RUNS): with TP 4 each rank runs 256 micro-batches of 12 layers, each half the TP 2 rows' work, "
        "and 12.1 s of its 29.0 s step waits for the host (measured 29.0 s, 1.00x the throughput); the estimate "
        "puts it 1.77x behind its best (rank 87) and the measurements agree: the same table's fastest row ran "
        "17.6 s and the CUDA-graph run 15.2 s",
    ),
    "NeMo Nemotron-3 22B, 4K, 64 H100 (FP8)": (
        frozenset({"group1_or_top10"}),
        "the estimate puts TP 2, PP 4, VP 10 1.23x behind its best (rank 327) and the same table agrees: GPT-3 20B, "
        "a model of the same width (hidden 6144) on the same 64 GPUs, ran TP 2, PP 1 at 750 model TFLOP/s against "
        "this row's 554; the published layout is not the fastest one",
    ),
    "DGX Cloud Grok-1 314B (MoE), 8K, 512 H100 (FP8)": (
        frozenset({"group1_or_top10"}),
        "the recipe sets no expert tensor parallelism, so Megatron's default ETP = TP = 4 splits each expert's "
        "matmuls four ways; the estimate prefers ETP 1 (parallel folding) with more CP, 1.21x faster (rank 218, tie "
        "group 2, beyond the 20 % uncertainty; throughput 1.00x): the FP8 peak doubles the matmuls' speed and leaves "
        "the ETP 4 layout's communication as it was (the BF16 row, 1.12x, is in tie group 1 and passes)",
    ),
}


def _comparison(
    rank: int | None, tie_group: int | None, step_over_best: float, over_published: float
) -> PublishedComparison:
    accepted = rank is not None
    return PublishedComparison(
        "hand-made", accepted, rank, 100, tie_group, step_over_best if accepted else None,
        over_published if accepted else None, None, 400.0, "TFLOP/s/GPU", "", "", "",
    )  # fmt: skip


#: The rule of issue 19's "Done when", read off its words (accepted; first tie group or top 10; within 1.25x of the
#: best; throughput within ±30 %), at and just past each bound.
RULE_CASES = [
    ((None, None, 1.0, 1.0), {"accepted", "group1_or_top10", "within_1.25x", "throughput_30pct"}),
    ((1, 1, 1.0, 1.0), set()),
    ((10, 4, 1.0, 1.0), set()),
    ((11, 4, 1.0, 1.0), {"group1_or_top10"}),
    ((60, 1, 1.0, 1.0), set()),
    ((3, 2, 1.25, 1.0), set()),
    ((3, 2, 1.26, 1.0), {"within_1.25x"}),
    ((3, 2, 1.0, 1.29), set()),
    ((3, 2, 1.0, 1.31), {"throughput_30pct"}),
    ((3, 2, 1.0, 0.71), set()),
    ((3, 2, 1.0, 0.69), {"throughput_30pct"}),
    ((11, 2, 1.3, 0.5), {"group1_or_top10", "within_1.25x", "throughput_30pct"}),
]


@pytest.mark.parametrize(("fields", "missed"), RULE_CASES)
def test_pass_rule_follows_the_issue(fields: tuple[int | None, int | None, float, float], missed: set[str]) -> None:
    c = _comparison(*fields)
    assert c.missed == missed
    assert c.passes is (not missed)


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
    """Every vendor-table row names its table's release (NeMo 24.07, or a Megatron-Bridge release at a commit) and row,
    runs FP8 as published, and the rows hold dense and MoE models."""
    vendor = (*PUBLISHED_RUNS_2024, *(run for run in PUBLISHED_RUNS_2025 if run.flop_convention == "tokens"))
    assert len(vendor) >= 20 and {MODELS[run.model].kind for run in vendor} == {"dense", "moe"}
    bridge_releases = ("25.09", "25.11", "26.02", "26.02.01", "26.04")
    assert all(", row " in run.source for run in vendor)
    assert all(
        "NeMo 24.07" in run.source
        or (any(f"{r} NeMo container" in run.source for r in bridge_releases) and " @ " in run.source)
        for run in vendor
    )
    assert len({run.name for run in vendor}) == len(vendor)
    assert all(dict(run.workload_options)["precision"] == "fp8" for run in vendor)
    assert all(run.measured_tokens_per_gpu_s > 0 and run.flop_convention == "tokens" for run in vendor)


def test_megatron_core_table_rows_in_its_own_flop_count() -> None:
    """Megatron-Core's 2024 H100 model table: nine bf16 rows, each the layout as published (TP · PP · DP = GPUs), in
    Megatron-Core's own FLOP count. The table's MFU column is its teraFLOP/s over the H100's dense bf16 peak (989.4
    TFLOP/s, the cluster preset's datasheet figure): the transcription reproduces it to the printed percent."""
    rows = [run for run in PUBLISHED_RUNS_2025 if run.model.startswith("mcore-gpt")]
    mfu_column = (41, 47, 49, 46, 42, 43, 44, 48, 47)  # the table's MFU, %
    assert len(rows) == len(mfu_column) == 9
    for run, mfu in zip(rows, mfu_column, strict=True):
        degrees = dict(run.degrees)
        assert degrees["tp"] * degrees["pp"] * degrees["dp"] == run.gpus and run.seq_len == 4096
        assert (
            "precision" not in dict(run.workload_options) and "f2e5db402c44ae309aa6448bcb4ae87e8ae0f5f4" in run.source
        )
        assert round(100 * run.measured_tflops_per_gpu * 1e12 / CLUSTERS["h100-8"].peak_flops) == mfu
    # Megatron-Core's count for the 1.7B row, by hand: 72·l·h² + 12·l·h·s + 6·h·V per token (24 layers, h 2048,
    # V 131072, s 4096), times 192 sequences of 4096 tokens; at 408.8 TFLOP/s on 48 GPUs a step takes 0.45 s.
    per_token = 72 * 24 * 2048**2 + 12 * 24 * 2048 * 4096 + 6 * 2048 * 131072
    assert megatron_core_flops_per_step(24, 2048, 192, 131072, 4096) == pytest.approx(per_token * 192 * 4096)
    assert per_token * 192 * 4096 / (408.8e12 * 48) == pytest.approx(0.4518, abs=1e-4)


def test_megatron_core_count_of_a_gpt_layer_is_the_table_formula() -> None:
    """The general count (GQA, SwiGLU, MoE) reduces, for the table's GPT layers (MHA, 4h GELU MLP), to the formula
    the table rows use, for every row's model; its 2025 release halves only the attention-score term."""
    for run in PUBLISHED_RUNS_2025:
        if not run.model.startswith("mcore-gpt"):
            continue
        m = MODELS[run.model]
        old = megatron_core_flops_per_step(m.layers, m.hidden, run.global_batch, m.vocab, run.seq_len)
        assert megatron_core_model_flops_per_step(m, run.global_batch, run.seq_len) == pytest.approx(old, rel=1e-12)
        causal_half = 12 * run.global_batch * run.seq_len * m.layers * m.hidden * run.seq_len / 2
        new = megatron_core_model_flops_per_step(m, run.global_batch, run.seq_len, "2025")
        assert new == pytest.approx(old - causal_half, rel=1e-12)


def test_megatron_core_count_of_moe_and_mla_models_by_hand() -> None:
    """Megatron-LM's ``num_floating_point_operations`` worked by hand from each model's public config.

    Mixtral 8x7B, r0.8 count (core_r0.8.0 ... core_r0.10.0): L 32, h 4096, 32 heads of 128, 8 KV heads, FFN 14336
    (SwiGLU, 3/2), top-2, V 32000: per token 12·L·h²·[(1 + 8/32 + 4096/4096)·1 + 14336/4096·2·3/2] + 6·h·V
    = 12·32·4096²·(2.25 + 10.5) + 6·4096·32000. At 468 TFLOP/s on 64 GPUs, a step of 256 × 4096 tokens takes 2.90 s.
    """
    mixtral = 12 * 32 * 4096**2 * (2.25 + 10.5) + 6 * 4096 * 32000
    assert mixtral == 82_927_681_536
    assert megatron_core_model_flops_per_step(MODELS["mixtral-8x7b"], 256, 4096) == pytest.approx(
        mixtral * 256 * 4096, rel=1e-12
    )
    assert mixtral * 256 * 4096 / (468e12 * 64) == pytest.approx(2.903, abs=1e-3)
    # Qwen3 235B-A22B, 2025 count at TP 2: L 94, h 4096, 64 heads of 128 (query width 8192 = 2h), 4 KV heads;
    # 128 experts of width 1536, top-8, no shared expert, no dense layer; V 151936 padded to a multiple of 128·2.
    assert megatron_padded_vocab(151936, 2) == 152064
    attention = 12 * 94 * 4096**2 * (1 + 4 / 64 + 4096 / (2 * 4096)) * 2
    mlp = 12 * 4096 * 1.5 * 94 * 8 * 1536
    qwen = attention + mlp + 6 * 4096 * 152064
    got = megatron_core_model_flops_per_step(MODELS["qwen3-235b-a22b"], 2048, 4096, "2025", tp=2)
    assert got == pytest.approx(qwen * 2048 * 4096, rel=1e-12)
    # DeepSeek-V3, 2025 count, MLA: h 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128; 61
    # layers, the first 3 dense (FFN 18432), 58 MoE (top-8 of width 2048 plus 1 shared of 2048); V 129280; s 4096.
    q_term = 1536 * (7168 + 128 * (128 + 64) + 1)
    per_layer = q_term + 512 * (7168 + 128 * (128 + 128) + 1) + 7168 * 64 + 128 * 128 * 7168
    per_layer += 4096 * 128 * (128 + 64 + 128) / 2
    mla = 6 * 61 * per_layer
    mlp = 12 * 7168 * 1.5 * (3 * 18432 + 58 * (8 * 2048 + 2048))
    deepseek = mla + mlp + 6 * 7168 * 129280
    assert deepseek == pytest.approx(249.812e9, rel=1e-5)
    got = megatron_core_model_flops_per_step(MODELS["deepseek-v3"], 1, 4096, "2025")
    assert got == pytest.approx(deepseek * 4096, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"global_batch": 0}, "global_batch"), ({"release": "2026"}, "release"), ({"tp": 0}, "tp")],
)
def test_megatron_core_count_refuses_bad_input(kwargs: dict[str, object], name: str) -> None:
    args: dict[str, object] = {"model": MODELS["mixtral-8x7b"], "global_batch": 8, "seq_len": 4096, **kwargs}
    with pytest.raises(ValueError, match=name):
        megatron_core_model_flops_per_step(**args)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model"):
        megatron_core_model_flops_per_step("mixtral-8x7b", 8, 4096)  # type: ignore[arg-type]


def test_no_run_both_fits_and_validates() -> None:
    """Megatron-LM's Table 1 fits the efficiency ceiling, two ModelZoo rows the host time per MoE layer, one DGX
    Cloud BF16/FP8 pair the FP8 matmul share and two ModelZoo rows (one of them a host row) the share of the EP
    all-to-all the 1F1B overlap hides; they check nothing. Every other published run only checks."""
    runs = all_published_runs()
    host_fit, fp8_fit, overlap_fit = set(MOE_HOST_FIT_RUNS), set(FP8_FIT_RUNS), set(EP_OVERLAP_FIT_RUNS)
    names = {run.name for run in runs}
    assert len(host_fit) == 2 and host_fit <= names
    assert len(fp8_fit) == 2 and fp8_fit <= names and not fp8_fit & host_fit
    # the overlap pair shares its row without the overlap with the host fit; that fit has no overlap in it
    assert len(overlap_fit) == 2 and overlap_fit <= names and len(overlap_fit & host_fit) == 1
    all_fit = host_fit | fp8_fit | overlap_fit
    assert {run.name for run in runs if RUN_ROLES[run.name] == "fit"} == all_fit
    assert {RUN_ROLES[run.name] for run in runs if run.name not in all_fit} == {"validation"}
    fit = {name for name, role in RUN_ROLES.items() if role == "fit"}
    assert len(fit) == len(MEGATRON_TABLE1) + 5


def test_published_layout_meets_the_criteria_or_its_stated_gap(
    comparison: tuple[PublishedRun, PublishedComparison],
) -> None:
    run, c = comparison
    expected, reason = KNOWN_GAPS.get(run.name, (frozenset(), ""))
    assert c.missed == expected, (
        f"{run.name}: misses {sorted(c.missed)}, stated {sorted(expected)} ({reason}); rank {c.rank}, group "
        f"{c.tie_group}, {c.step_over_best}x of the best, {c.estimated_over_published}x the published throughput"
    )


def test_every_gap_names_a_run() -> None:
    assert set(KNOWN_GAPS) <= {run.name for run in all_published_runs()}


def test_moe_zoo_qwen3_rows_are_in_the_2025_count() -> None:
    """The zoo's Qwen3 235B H100 table gives each row's step time and "Per GPU TF": the 2025 count of Megatron-Core
    (Megatron-LM 1e057005, which the rows ran, contains 8873b55) turns every step time into its figure within the
    table's rounding (3 digits: 0.5 %), the r0.8 count 13 % above it."""
    from coursekit.published_runs import MOE_ZOO_QWEN3_RUNS

    published = {19.7: 245.0, 17.6: 276.0, 24.2: 200.0, 29.0: 167.0}  # step s: TFLOP/s per GPU, from the table
    m = MODELS["qwen3-235b-a22b"]
    new = megatron_core_model_flops_per_step(m, 2048, 4096, "2025", tp=2)
    old = megatron_core_model_flops_per_step(m, 2048, 4096, "r0.8", tp=2)
    for step_s, tflops in published.items():
        assert new / (step_s * 256) / 1e12 == pytest.approx(tflops, rel=0.01)
        assert old / (step_s * 256) / 1e12 > 1.12 * tflops
    # and run_h100_235b.sh's "H100 config, 320 TFLOPS" (no step time): 1.2418e18 / (320e12 · 256) = 15.2 s
    assert {run.measured_tflops_per_gpu for run in MOE_ZOO_QWEN3_RUNS} == set(published.values()) | {320.0}
    assert round(new / (320e12 * 256), 1) == 15.2
    assert all(run.flop_convention == "megatron-core-2025" and run.gpus == 256 for run in MOE_ZOO_QWEN3_RUNS)


def test_moe_zoo_deepep_all_to_all_by_hand() -> None:
    """The EP 32 row's all-to-all, worked by hand: each rank dispatches its sequence-parallel share, 4096 / 2 = 2048
    tokens of h = 4096 in bf16, 8 copies each: 134.2 MB. 24 of the 32 EP ranks are off-node; DeepEP sends a token
    once to each other node it reaches: (4 - 1)·(1 - (3/4)^8) of the 8·24/32 = 6 off-node copies, over InfiniBand
    to the GPU with its in-node index on each of the 3 other nodes (which forwards it over NVLink). Per call
    3 peers x 14 us plus that share of 134.2 MB·24/32 over 50 GB/s; 4 calls per layer and micro-batch, 12 layers
    on the heaviest stage, 128 micro-batches."""
    from coursekit.published_runs import MOE_ZOO_QWEN3_RUNS

    run = MOE_ZOO_QWEN3_RUNS[0]
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
    c = result.explain("tp=2,pp=8,dp=16,ep=32,etp=1,v=4,zero=1,mb=1,recompute=none")
    payload = 2048 * 4096 * 2 * 8
    share = 3 * (1 - 0.75**8) / 6
    per_call = 3 * 14e-6 + payload * 24 / 32 * share / 50e9
    ep = next(row for row in c.communication if row.dimension == "EP")
    assert ep.time_s == pytest.approx(4 * 12 * 128 * per_call, rel=1e-9)
    assert c.stage_layers == (11, 12, 11)  # 94 layers + the embedding's and the loss's slots = 96 over 8 stages


def test_the_405b_8k_runs_interleave_one_layer_per_chunk() -> None:
    """Llama 3's pipeline as its paper states it (arXiv:2407.21783, §3.3.2): one layer off the first and the last
    stage, so that the first model chunk holds only the embedding and the last only the output layer and the loss,
    i.e. one layer per chunk, v = (126 + 2) / 16 = 8; FSDP sharding gradients and optimizer states (ZeRO-2); no
    activation checkpointing at 8K. That layout is accepted without recomputation and is in tie group 1, its bubble
    15 / (8·m + 15). At v = 4 (two layers per chunk, m = 32) it is refused on memory: the second pipeline rank holds
    2·(16 - 2) + 3·16 + 1 = 77 chunk forwards of 2 layers (154 layer-micro-batches) against 2·14 + 7·16 + 1 = 141 of
    1 layer at v = 8."""
    for run in PUBLISHED_RUNS[:2]:
        result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
        dp = dict(run.degrees)["dp"]
        chunks8 = result.explain(f"tp=8,pp=16,dp={dp},v=8,zero=2,mb=1,recompute=none")
        chunks4 = result.explain(f"tp=8,pp=16,dp={dp},v=4,zero=2,mb=1,recompute=none")
        assert chunks8.accepted and chunks8.stage_layers == (7, 8, 7)
        index = result.find(tp=8, pp=16, dp=dp, v=8, zero=2, mb=1, recompute="none")[0]
        rank, group = result.rank_of(index)
        # tie group 1 at 8192 GPUs; at 16384 in the top 10 (6th, tie group 4): TP 4 with CP 2 puts 2 of its DP ranks
        # on each node, whose rings cross on 2 NICs (coursekit.specs.ring_nics), while TP 8 leaves one a node
        assert group == 1 if dp == 64 else rank <= 10
        m = 2048 // dp
        assert chunks8.bubble_fraction == pytest.approx(15 / (8 * m + 15))
        if m == 32:  # at m = 16 every chunk forward of the step is in flight at either v
            assert chunks4.codes == ("memory",)


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
    # v = 8, one layer per chunk: 2·(16 - 2) + 7·16 + 1 = 141 chunk forwards of one layer on the second rank.
    one = result.explain("tp=8,pp=16,dp=64,v=8,zero=2,mb=1,recompute=none")
    assert one.memory is not None
    assert one.memory.activations_gib == pytest.approx(per_layer * 141 / 2**30)


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


def test_nemotron_fits_without_recompute_once_fp8_inputs_are_counted() -> None:
    """The published interleaved layout without recomputation: counted with every saved activation at 16 bits it
    needs 81.4 GiB, over 80; with FP8 linear layers saving their inputs at 1 byte (Transformer Engine) it fits, and it
    is the best estimate. The saving, per layer and rank (h 18432, f 73728, a·d_v 18432, s 4096, t 8, sequence
    parallel): (2·h + f − a·d_v)·s/t bytes = 45 MiB; the gap between the two ledgers is that times the one-layer
    chunks the first pipeline rank holds: Megatron-Core's interleaved warm-up, (pp − 1)·2 + (v − 1)·pp = 14 + 88 = 102
    chunk forwards, plus the one of the first steady-state step: 103."""
    from dataclasses import replace

    run, result = _plan_run("NeMo Nemotron-4 340B, 4K, 128 H100 (FP8)")
    layout = "tp=8,pp=8,dp=2,v=12,zero=1,mb=1,recompute=none"
    fp8 = result.explain(layout)
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)
    counted_16bit = plan(MODELS[run.model], cluster, replace(run.workload(), precision="bf16")).explain(layout)
    assert counted_16bit.codes == ("memory",) and counted_16bit.memory is not None
    assert fp8.accepted and fp8.memory is not None and counted_16bit.memory is not None
    assert round(counted_16bit.memory.total_gib, 1) == 81.4 and round(fp8.memory.total_gib, 1) == 76.9
    per_layer = (2 * 18432 + 73728 - 18432) * 4096 / 8
    assert per_layer / 2**20 == 45
    gap_bytes = (counted_16bit.memory.total_gib - fp8.memory.total_gib) * 2**30
    assert gap_bytes == pytest.approx(((8 - 1) * 2 + (12 - 1) * 8 + 1) * per_layer)
    best = result.accepted(1)[0]
    assert fp8.step_s is not None and best.step_s == fp8.step_s


def test_deepseek_v3_fits_without_full_recompute_when_the_combine_keeps_no_expert_outputs() -> None:
    """The DeepSeek-V3 report trains PP 16 / EP 64 without tensor parallelism, recomputing only the norms, MLA's
    up-projections and the SwiGLU output (arXiv:2412.19437 §3.2, §3.2.3, §3.3.4); DeepEP's training interface applies
    the router weights on the experts' side and combines unweighted (the run's comment). Registered so, the published
    layout fits without full recomputation; with the combine keeping each routed copy's output (top-8 copies of
    h = 7168 at 2 bytes per token and MoE layer) it needs more than 80 GiB. The gap, by hand: DualPipe keeps PP + 1 =
    17 micro-batches of activations (DeepSeek-V3 Table 2), each of 4 MoE layers on the heaviest stage (61 layers over
    16 stages with the embedding first and the output layer and MTP module last: 4 a stage), 4096 tokens each."""
    from dataclasses import replace

    run, result = _plan_run("DeepSeek-V3 (MoE), 2048 H800 GPUs")
    layout = "tp=1,pp=16,dp=128,ep=64,etp=1,v=1,zero=1,mb=1,recompute=none"
    registered = result.explain(layout)
    assert dict(run.workload_options)["moe_probs_in_experts"] is True
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)
    kept_workload = replace(run.workload(), moe_probs_in_experts=False)
    kept = plan(MODELS[run.model], cluster, kept_workload).explain(layout)
    assert registered.accepted and registered.memory is not None and registered.memory.total_gib < 80
    assert kept.codes == ("memory",) and kept.memory is not None and kept.memory.total_gib > 80
    per_layer_bytes = 8 * 7168 * 2 * 4096
    gap_bytes = (kept.memory.total_gib - registered.memory.total_gib) * 2**30
    assert gap_bytes == pytest.approx((16 + 1) * 4 * per_layer_bytes)


def test_the_128k_layout_fits_with_zero2_and_is_close_to_the_best() -> None:
    """The 128K layout, checked: with 16 micro-batches on 16 stages every micro-batch is in flight at v = 4 and at
    v = 8, which fits without recomputation once ZeRO-2 shards the gradients (ZeRO-1's fp32 gradients do not); with
    v = 1 its 1F1B bubble is 15 / 31, with the paper's one layer per chunk (v = 8) 15 / (8·16 + 15) = 15 / 143
    against 15 / 79 at v = 4. It is within 1.25x of the best, in tie group 1; full recomputation is not."""
    run = next(r for r in PUBLISHED_RUNS if r.name == "Llama 3 405B, 128K, 16384 GPUs")
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), run.workload())
    base = "tp=8,pp=16,dp=8,cp=16,mb=1"
    published = result.explain(base + ",zero=2,v=8,recompute=none")
    none = result.explain(base + ",zero=2,v=4,recompute=none")
    zero1 = result.explain(base + ",zero=1,v=8,recompute=none")
    full = result.explain(base + ",zero=2,v=4,recompute=full")
    plain = result.explain(base + ",zero=2,v=1,recompute=selective")
    assert published.accepted and none.accepted and zero1.codes == ("memory",) and full.accepted and plain.accepted
    assert plain.bubble_fraction == pytest.approx(15 / 31)
    assert published.bubble_fraction == pytest.approx(15 / 143) and none.bubble_fraction == pytest.approx(15 / 79)
    best = result.accepted(1)[0]
    assert best.recompute == "none"
    assert best.step_s is not None and published.step_s is not None and full.step_s is not None
    assert none.step_s is not None
    assert best.step_s <= published.step_s < none.step_s < 1.25 * best.step_s < full.step_s


def test_megatron_bridge_llama_runs_reduce_gradients_in_bf16() -> None:
    """Megatron-Bridge's Llama performance scripts set ``cfg.ddp.grad_reduce_in_fp32 = False`` (df0289c,
    set_llama3_common_configs / set_llama31_common_configs): bf16 gradients, 2 + 2 + 12 bytes per parameter.

    By hand, the 70B layout's heaviest stage is the last (TP 4, PP 8 over 80 layers): 10 layers of
    2·8192² + 2·8192·1024 (attention, 8 KV heads of 128) + 3·8192·28672 (SwiGLU) + 2·8192 (norms) = 855,654,400
    parameters, the output layer 128256·8192 and the final norm 8192: 9,607,225,344 parameters, a quarter per TP
    rank, 2 bytes of gradient each (ZeRO-1 keeps them whole)."""
    runs = [run for run in all_published_runs() if run.name.startswith("Megatron-Bridge Llama")]
    # H100: 25.11 and 26.02; B200: 25.09 and 25.11; GB200: 8B 25.09 and 25.11, 405B 25.11 and 26.06
    assert len(runs) == 13 and all(run.workload().recipe == "zero-fp16-adam" for run in runs)
    _, result = _plan_run("Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8)")
    layer = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
    last = 10 * layer + 128256 * 8192 + 8192
    assert (layer, last) == (855_654_400, 9_607_225_344)
    c = result.explain("tp=4,pp=8,dp=2,v=5,zero=1,mb=1,recompute=none")
    assert c.memory is not None and c.stage_layers == (10, 10, 10)
    assert c.memory.grads_gib == pytest.approx(2 * last / 4 / 2**30)


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


def test_nemo_gpt3_20b_states_its_config_and_syncs_data_parallel_under_one_micro_batch() -> None:
    """NeMo 24.07's GPT-3 20B row carries what its launcher config states: TP comm-GEMM overlap
    (``ub_tp_comm_overlap: True``), micro-batch 2, and Apex's distributed Adam with fp32 gradient reduction (no
    ``grad_sync_dtype``) and bf16 parameter gathers (``megatron_amp_O2``): the ``megatron-bf16`` recipe.

    By hand: a TP rank holds 44 · (12·h² + 13·h) / 2 layer parameters, half the 50432-row vocabulary (50257 padded
    to a multiple of 128 · TP) and the 2048 · h learned positions and the final layer norm's 2·h, h = 6144:
    10.135e9. Over DP 32 the fp32 reduce-scatter and the bf16 all-gather move (4 + 2) · 31/32 bytes per parameter;
    the DP group holds 4 ranks on each node (TP 2 on 8-GPU nodes), so NCCL's rings cross nodes on 4 of the node's
    400 Gb/s NICs (NVIDIA/nccl#569; 4 · 50 GB/s, below NVLink's 450 GB/s): 1.178 s / 4 = 0.294 s. NeMo runs every
    micro-batch but the last under the optimizer's ``no_sync``, so the reduce-scatter hides only under the last
    micro-batch's backward (2/3 of it) and the all-gather under the first forward (1/3): one micro-batch of the 4,
    a quarter of the compute (0.378 s with the FP8 casts' memory passes, the FP8 matmuls keeping
    FP8_MATMUL_SHARE of the FP8 peak's speed-up), hides all of it; what
    stays exposed is TP's share the comm-GEMM overlap leaves."""
    run = next(r for r in all_published_runs() if r.name == "NeMo GPT-3 20B, 2K, 64 H100 (FP8)")
    workload = run.workload()
    assert (workload.overlap_tp, workload.recipe, workload.max_micro_batch) == (15 / 16, "megatron-bf16", 2)
    assert all(s in run.source for s in ("ub_tp_comm_overlap: True", "overlap_grad_sync: True", "bucket_cap_mb: 220"))
    h = 6144
    psi = 44 * (12 * h * h + 13 * h) / 2 + 50432 * h / 2 + 2048 * h + 2 * h
    assert psi == pytest.approx(10.135e9, rel=1e-3)
    traffic_s = psi * (4 + 2) * 31 / 32 / (4 * 400e9 / 8)
    result = plan(MODELS[run.model], CLUSTERS[run.cluster].with_nodes(run.nodes), workload)
    layout = result.explain("tp=2,pp=1,dp=32,zero=1,mb=2,recompute=none")
    dp_s = {row.dimension: row.time_s for row in layout.communication}["DP"]
    assert dp_s == pytest.approx(traffic_s, rel=0.005)
    hidden_dp_s = layout.timeline.compute_s / 4  # one micro-batch of the 4: its backward and its forward
    tp_exposed_s = {row.dimension: row.time_s for row in layout.communication}["TP"] / 16
    assert dp_s <= hidden_dp_s < 1.3 * dp_s
    assert tp_exposed_s <= layout.timeline.exposed_communication_s < tp_exposed_s + 0.01 * dp_s


def test_moe_zoo_norm_and_activation_recompute_in_the_estimate_by_hand() -> None:
    """The EP 32 row states its --recompute-modules layernorm moe_act. Memory: each layer-micro-batch in flight on
    the heaviest stage keeps (2·4096 + 2·8·1536)·4096/2 bytes less (the test of
    coursekit.activations works it tensor by tensor). Time: both modules re-run in the forward of the backward
    pass at HBM bandwidth (3.35 TB/s): the norm reads and writes h = 4096 bf16 values on each rank's
    sequence-parallel share, the SwiGLU reads 2·1536 and writes 1536 bf16 values for each of 8 copies of the
    tokens the rank dispatches (4096·2048/16 tokens a rank, over TP 2), on 12 layers."""
    from coursekit.published_runs import MOE_ZOO_QWEN3_RUNS

    run = MOE_ZOO_QWEN3_RUNS[0]
    assert dict(run.workload_options)["recompute_modules"] == ("layernorm", "moe_act")
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)
    code = "tp=2,pp=8,dp=16,ep=32,etp=1,v=4,zero=1,mb=1,recompute=none"
    with_modules = plan(MODELS[run.model], cluster, run.workload()).explain(code)
    options = {k: v for k, v in run.workload_options if k != "recompute_modules"}
    plain_workload = run.workload().__class__(global_batch=2048, seq_len=4096, **options)
    plain = plan(MODELS[run.model], cluster, plain_workload).explain(code)
    tokens = 2048 * 4096 / 16
    seconds = tokens * 12 * (2 * 2 * 4096 / 2 + 8 * 3 * 1536 * 2 / 2) / 3.35e12
    assert with_modules.timeline.compute_s - plain.timeline.compute_s == pytest.approx(seconds, rel=1e-9)
    # the heaviest stage is the second pipeline rank (12 layers): 2·(8 - 2) + 3·8 + 1 = 37 chunk forwards of 3
    # layers in flight (Megatron-Core's interleaved warm-up), 111 layer-micro-batches
    freed_gib = 37 * 3 * (2 * 4096 + 2 * 8 * 1536) * 4096 / 2 / 2**30
    assert plain.memory.activations_gib - with_modules.memory.activations_gib == pytest.approx(freed_gib, rel=1e-12)
