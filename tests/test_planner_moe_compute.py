"""The routed experts' compute, worked by hand: rows per expert, their matmul intensity, the token permutation bytes.

Sources: Megatron-Core ``megatron/core/transformer/moe/experts.py`` (``TEGroupedMLP``: one GEMM per local expert on
the ``tokens_per_expert`` rows the dispatcher sorted to it) and ``token_dispatcher.py`` (``MoEAlltoAllTokenDispatcher``:
each rank permutes its tokens ``top_k`` times, all-to-alls them over EP, and unpermutes the results); Transformer
Engine's fused ``moe_permute`` / ``moe_unpermute`` (Megatron-Core ``--moe-permute-fusion``). Routing is taken as
balanced: Megatron-Bridge's MoE benchmark rows force-balance it.

The small model of tests/test_planner_etp.py: 4 layers, hidden 1024, 8 experts of width 512 (SwiGLU), top-2, on one
node of 8 H100s, one 1024-token sequence per micro-batch.
"""

from __future__ import annotations

import pytest

from coursekit.planner import ModelSpec, WorkloadSpec
from coursekit.planner.estimate import (
    expert_rows,
    routed_expert_flops_per_token,
    token_permutation_bytes_per_token,
    training_estimate,
)
from coursekit.presets import CLUSTERS, MODELS
from coursekit.roofline import expert_matmul_intensity

TINY_MOE = ModelSpec(
    "tiny-moe", 4, 1024, 8, 4096, 1000, 1024, num_experts=8, top_k=2, moe_ffn_hidden=512, source="hand-made"
)
NODE = CLUSTERS["h100-8"]
# The host limit off: this tiny model's layers are far shorter on the GPU than the host's launch time per MoE layer
# (coursekit.planner.calibration.MOE_LAYER_HOST_S), which would hide the compute these tests work out by hand.
WORK = WorkloadSpec(global_batch=4, seq_len=1024, zero_stages=(0, 1), recompute_modes=("none",), moe_layer_host_s=0.0)


def _columns(**more: int) -> dict[str, list[int]]:
    row = {"tp": 1, "cp": 1, "pp": 1, "dp": 4, "ep": 4, "etp": 1, "v": 1, "zero": 0, "mb": 1, "ga": 1, "rc": 0}
    row.update(more)
    return {key: [value] for key, value in row.items()}


def test_rows_per_expert() -> None:
    # 4 EP ranks each dispatch 1024 tokens, 2 copies each: 8192 copies over 8 experts = 1024 rows per expert.
    assert expert_rows(TINY_MOE, 1024.0, 1, 4, 1) == 1024
    # TP 2 with ETP 1: each rank dispatches its sequence-parallel half, 512 tokens: 512 rows per expert.
    assert expert_rows(TINY_MOE, 1024.0, 2, 4, 1) == 512
    # Qwen3 30B-A3B (128 experts, top-8) at the published EP 8, 4096 tokens a rank: 8·4096·8/128 = 2048 rows; at
    # EP 1 the same expert sees 256 rows.
    qwen = MODELS["qwen3-30b-a3b"]
    assert expert_rows(qwen, 4096.0, 1, 8, 1) == 2048
    assert expert_rows(qwen, 4096.0, 1, 1, 1) == 256


def test_expert_matmul_intensity_by_hand() -> None:
    # One SwiGLU expert, m rows, h = 1024, f = 512: up+gate m x 1024 x 1024, down m x 512 x 1024, bf16.
    # m = 1024: FLOPs 2·1024·(1024·1024 + 512·1024) = 3,221,225,472;
    # bytes 2·(1024·1024 + 1024·1024 + 1024·1024) + 2·(1024·512 + 512·1024 + 1024·1024) = 6,291,456 + 4,194,304.
    assert expert_matmul_intensity(1024, 1024, 512) == pytest.approx(3_221_225_472 / 10_485_760)
    # ETP 2 halves the shards: up+gate 1024 x 1024 x 512, down 1024 x 256 x 1024: half the FLOPs,
    # bytes 2·(1024·1024 + 1024·512 + 1024·512) + 2·(1024·256 + 256·1024 + 1024·1024) = 4,194,304 + 3,145,728.
    assert expert_matmul_intensity(1024, 1024, 512, etp=2) == pytest.approx(1_610_612_736 / 7_340_032)
    # Fewer rows, lower intensity: the point of EP for many small experts.
    assert expert_matmul_intensity(128, 1024, 512) < expert_matmul_intensity(1024, 1024, 512)


def test_routed_flops_and_permutation_bytes_by_hand() -> None:
    # 4 MoE layers x top-2 x 1,572,864 parameters x 6 = 75,497,472 FLOPs per token; full recomputation: x 8/6.
    assert routed_expert_flops_per_token(TINY_MOE, 0) == 75_497_472
    assert routed_expert_flops_per_token(TINY_MOE, 2) == 100_663_296
    # (5k + 4)·h elements of 2 bytes, k = 2: 14 x 1024 x 2 = 28,672 bytes; full recomputation adds 2(k+1)·h·2.
    # With all 8 experts on one rank of 8 (ep = 8) there is no second sort.
    assert token_permutation_bytes_per_token(TINY_MOE, 0, 8) == 28_672
    assert token_permutation_bytes_per_token(TINY_MOE, 2, 8) == 28_672 + 6 * 1024 * 2
    # Two local experts (ep = 4): Megatron's dispatcher sorts the received copies by expert and back, forward and
    # backward: 8k·h = 16 x 1024 x 2 = 32,768 bytes more; full recomputation repeats its forward half, 4k·h.
    assert token_permutation_bytes_per_token(TINY_MOE, 0, 4) == 28_672 + 32_768
    assert token_permutation_bytes_per_token(TINY_MOE, 2, 4) == 28_672 + 32_768 + 6 * 1024 * 2 + 8 * 1024 * 2
    assert token_permutation_bytes_per_token(MODELS["llama3-8b"], 0) == 0


def test_the_estimate_charges_permutation_at_hbm_bandwidth() -> None:
    # dp 4, one micro-batch of 1024 tokens per rank, 4 MoE layers, 2 local experts (ep 4):
    # 1024 x 4 x (28,672 + 32,768) bytes at 3.35 TB/s.
    est = training_estimate(TINY_MOE, NODE, WORK, _columns())
    moved = 1024 * 4 * (28_672 + 32_768)
    assert float(est["permutation_s"][0]) == pytest.approx(moved / NODE.memory_bandwidth_bytes_per_s)
    assert float(est["expert_rows"][0]) == 1024


def test_the_experts_take_their_own_efficiency() -> None:
    """Compute seconds = the rest's FLOPs at the rest's efficiency + the routed FLOPs at the experts' + permutation,
    each over the ranks and peak: worked from the estimate's own efficiencies (computed from their shapes above)."""
    est = training_estimate(TINY_MOE, NODE, WORK, _columns())
    eff, eff_e = float(est["efficiency"][0]), float(est["expert_efficiency"][0])
    # The one stage's executed FLOPs per token: PaLM's 6N share of the embedding (the lookup does no matmul) out,
    # the output layer's matmul 6·V·h in.
    m = TINY_MOE
    executed = float(est["executed_flops_per_token"][0])
    executed += 6.0 * m.vocab * m.hidden - 6.0 * (m.input_embedding_params + m.output_params)
    # attention's core, PaLM's 12·L·h·s, is causal flash attention: each counted FLOP weighs 0.5 / rate, the rate
    # from FlashAttention-3's H100 bars at the 1024-token sequence (forward 565, backward 424 TFLOP/s, backward = 2.5
    # forwards) over 792.1
    weight = 0.5 / (3 / (1 / 565 + 2 / (424 * 0.8)) / 792.1)
    executed += 12.0 * m.layers * m.hidden * 1024 * (weight - 1.0)
    routed = routed_expert_flops_per_token(TINY_MOE, 0)
    tokens_rank = 4 * 1024 / 4  # global batch 4 sequences of 1024 over dp 4
    peak = NODE.peak_flops
    expected = tokens_rank * ((executed - routed) / eff + routed / eff_e) / peak + float(est["permutation_s"][0])
    assert float(est["compute_s"][0]) == pytest.approx(expected)
    # 1024 rows per expert over EP 4, 256 at EP 1: EP 1 leaves the experts' matmuls less efficient.
    one = training_estimate(TINY_MOE, NODE, WORK, _columns(ep=1))
    assert float(one["expert_rows"][0]) == 256
    assert float(one["expert_efficiency"][0]) < eff_e


def test_a_dense_model_is_unchanged_by_the_expert_terms() -> None:
    dense = MODELS["llama3-8b"]
    work = WorkloadSpec(global_batch=8, seq_len=8192, zero_stages=(1,), recompute_modes=("none",))
    est = training_estimate(dense, NODE, work, _columns(ep=1, dp=8))
    assert float(est["permutation_s"][0]) == 0.0
    assert float(est["expert_efficiency"][0]) == 1.0


def _ep_share(pp: int, v: int, ga: int, o: float = 1.0, rc: int = 0, schedule: str = "dualpipe") -> float:
    import numpy as np

    from coursekit.planner.estimate import _Columns, _ep_overlap_share

    k = _Columns.of(np, _columns(pp=pp, v=v, ga=ga, rc=rc))
    return float(_ep_overlap_share(np, k, o, schedule)[0])


def test_the_all_to_all_hides_only_in_the_steady_state() -> None:
    # Megatron-Core schedules.py get_pp_rank_microbatches, first rank, with the extra forward of the EP overlap:
    # interleaved p = 8, v = 4, m = 128: W = 2·7 + 3·8 + 1 = 39 of 512 chunk passes run alone.
    assert _ep_share(8, 4, 128) == pytest.approx(1 - 39 / 512)
    # No pipeline, 32 micro-batches: the first forward and the last backward run alone, 1 of 32.
    assert _ep_share(1, 1, 32) == pytest.approx(1 - 1 / 32)
    # Without interleaving, p = 4, m = 8: W = 3 + 1 = 4 of 8; at overlap 0.5 a quarter hides.
    assert _ep_share(4, 1, 8, 0.5) == pytest.approx(0.25)
    # More warm-up than micro-batches: nothing hides.
    assert _ep_share(8, 4, 2) == 0.0


def test_megatron_refuses_the_ep_overlap_without_interleaving_or_under_full_recompute() -> None:
    # megatron/core/transformer/transformer_config.py: overlap_moe_expert_parallel_comm asserts
    # virtual_pipeline_model_parallel_size is set when pp > 1, and recompute_granularity != 'full'.
    assert _ep_share(8, 4, 128, schedule="megatron") == pytest.approx(1 - 39 / 512)
    assert _ep_share(1, 1, 32, schedule="megatron") == pytest.approx(1 - 1 / 32)
    assert _ep_share(4, 1, 8, schedule="megatron") == 0.0
    assert _ep_share(8, 4, 128, rc=2, schedule="megatron") == 0.0
    # DeepSeek-V3's DualPipe has its own schedule: neither rule applies.
    assert _ep_share(8, 4, 128, rc=2, schedule="dualpipe") == pytest.approx(1 - 39 / 512)


def test_a_hidden_all_to_all_slows_the_matmuls_by_its_sm_share() -> None:
    # DeepSeek-V3 §3.2.2: 20 of the H800's 132 SMs run dispatch and combine. Overlap 1, 1 s of all-to-all hidden
    # under 5 s of compute: 20/132 s more; 10 s of all-to-all hides only under the 5 s of compute: 5·20/132.
    import numpy as np

    from coursekit.planner.estimate import _ep_overlap_slowdown_s

    assert float(_ep_overlap_slowdown_s(np, np.array([1.0]), 1.0, np.array([5.0]))[0]) == pytest.approx(20 / 132)
    assert float(_ep_overlap_slowdown_s(np, np.array([10.0]), 1.0, np.array([5.0]))[0]) == pytest.approx(100 / 132)


def test_fp8_dispatch_sends_a_quarter_fewer_bytes() -> None:
    # DeepSeek-V3 §3.3.3: dispatch and the gradient before the down-projection in FP8 (1 byte), combine and the other
    # gradient in bf16 (2 bytes): (1 + 2 + 1 + 2) / 4 = 1.5 bytes an element. The tiny model at tp 2, ep 4, etp 2,
    # Megatron-Core's all-to-all dispatcher (each rank sends its sequence-parallel share, 1024 / 2 = 512 tokens):
    # 16 all-to-alls of 512 tokens x top-2 x 1024 x 1.5 bytes = 1.5 MiB each, 24 MiB (bf16: 32 MiB).
    from coursekit.planner import evaluate_composition
    from coursekit.planner.estimate import ep_element_bytes

    fp8 = WorkloadSpec(global_batch=4, seq_len=1024, zero_stages=(0,), recompute_modes=("none",), ep_fp8_dispatch=True)
    assert ep_element_bytes(fp8) == 1.5 and ep_element_bytes(WORK) == 2.0
    cand = evaluate_composition(TINY_MOE, NODE, fp8, tp=2, dp=4, ep=4, etp=2, zero=0, mb=1, recompute="none")
    ep = next(row for row in cand.communication if row.dimension == "EP")
    assert ep.calls == 16 and ep.payload_bytes == 16 * 1.5 * (1 << 20)


def test_a_capacity_factor_pads_the_experts_work_and_the_all_to_all_by_hand() -> None:
    """Megatron-Core pads every expert's input to its capacity, ceil(top_k·tokens/E·c) rows (``get_capacity`` in
    moe_utils.py; token_dispatcher.py's ``drop_and_pad`` branches: the all-to-all dispatcher sends each expert its
    capacity, the flex dispatcher pads after the dispatch). With c = 1.25 the tiny model's experts multiply
    2 x 1.25 = 2.5 rows per token instead of 2: every per-copy term grows by a quarter, and the step slows."""
    import dataclasses

    from coursekit.planner import evaluate_composition

    padded = dataclasses.replace(TINY_MOE, capacity_factor=1.25)
    # Routed FLOPs: 4 MoE layers x 2.5 rows x 1,572,864 parameters x 6 = 94,371,840 per token (75,497,472 at c = 1).
    assert routed_expert_flops_per_token(padded, 0) == 94_371_840
    # Permutation with k = 2.5 copies and two local experts (ep 4): (5k + 4 + 8k)·h·2 bytes = 36.5 x 1024 x 2.
    assert token_permutation_bytes_per_token(padded, 0, 4) == 36.5 * 1024 * 2
    # 4 EP ranks x 1024 tokens x 2.5 rows over 8 experts = 1280 rows per expert.
    assert expert_rows(padded, 1024.0, 1, 4, 1) == 1280
    # The executed FLOPs grow by the padding, 94,371,840 - 75,497,472 = 18,874,368 per token; model FLOPs do not.
    base = training_estimate(TINY_MOE, NODE, WORK, _columns())
    pad = training_estimate(padded, NODE, WORK, _columns())
    grown = float(pad["executed_flops_per_token"][0]) - float(base["executed_flops_per_token"][0])
    assert grown == pytest.approx(18_874_368)
    assert float(pad["model_flops_per_token"]) == float(base["model_flops_per_token"])
    assert float(pad["compute_s"][0]) > float(base["compute_s"][0])
    # The all-to-all dispatcher sends the padded buffers: at tp 1, ep 4 each of the 4 all-to-alls per layer carries
    # 1024 tokens x 2.5 x 1024 x 2 bytes = 5 MiB (4 MiB at c = 1). The flex dispatcher (DeepEP) sends the routed
    # tokens unpadded: 4 MiB.
    four = dataclasses.replace(NODE, gpus_per_node=4)  # dp 4 fills it (idle ranks are refused)
    for work, mib in ((WORK, 5.0), (dataclasses.replace(WORK, ep_dedup_per_node=True), 4.0)):
        cand = evaluate_composition(padded, four, work, dp=4, ep=4, zero=0, mb=1, recompute="none")
        ep = next(row for row in cand.communication if row.dimension == "EP")
        assert ep.calls == 16 and ep.payload_bytes == 16 * mib * (1 << 20)
    unpadded = evaluate_composition(TINY_MOE, four, WORK, dp=4, ep=4, zero=0, mb=1, recompute="none")
    padded_step = evaluate_composition(padded, four, WORK, dp=4, ep=4, zero=0, mb=1, recompute="none")
    assert padded_step.step_s > unpadded.step_s
