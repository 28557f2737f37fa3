"""Expert tensor parallelism (ETP) under Megatron-Core's MoE parallel folding, worked by hand.

Source: Megatron-LM ``megatron/core/parallel_state.py`` (``initialize_model_parallel``: the expert layers' rank grid
is ETP × EP × EDP × PP with cp = 1 over the same world; ``world % (etp·ep·pp) == 0``; ETP defaults to TP) and
``megatron/core/transformer/moe/README.md`` ("MoE Parallel Folding": attention TP × CP × DP × PP, MoE
ETP × EP × EDP × PP; ETP = 1 recommended for fine-grained MoE).

The small model: 4 layers, hidden 1024, 8 experts of width 512 (SwiGLU: 3·h·f = 1,572,864 parameters each), top-2,
on one node of 8 H100s with tp = 2, dp = 4, ep = 4, pp = 1, one 1024-token sequence per micro-batch.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from coursekit.capacity import PRECISION_RECIPES
from coursekit.i18n import set_language
from coursekit.planner import ModelSpec, WorkloadSpec, evaluate_composition, parse_degrees
from coursekit.planner.estimate import training_estimate
from coursekit.planner.result import CommRow
from coursekit.planner.space import training_space
from coursekit.presets import CLUSTERS, MODELS
from coursekit.roofline import _transformer_layer_matmul_intensity

MIB = 1 << 20
EXPERT_PARAMS = 3 * 1024 * 512  # one SwiGLU expert: up, gate and down, h x f each
ALL_EXPERTS = 4 * 8 * EXPERT_PARAMS  # 4 layers x 8 experts = 50,331,648

TINY_MOE = ModelSpec(
    "tiny-moe", 4, 1024, 8, 4096, 1000, 1024, num_experts=8, top_k=2, moe_ffn_hidden=512, source="hand-made"
)
NODE = CLUSTERS["h100-8"]
WORK = WorkloadSpec(global_batch=4, seq_len=1024, zero_stages=(0, 1), recompute_modes=("none",))


def _columns(etp: int, zero: int = 0, **more: int) -> dict[str, list[int]]:
    row = {"tp": 2, "cp": 1, "pp": 1, "dp": 4, "ep": 4, "etp": etp, "v": 1, "zero": zero, "mb": 1, "ga": 1, "rc": 0}
    row.update(more)
    return {key: [value] for key, value in row.items()}


def _memory(etp: int, zero: int) -> dict[str, float]:
    est = training_estimate(TINY_MOE, NODE, WORK, _columns(etp, zero))
    return {key: float(value[0]) for key, value in est["memory"].items()}


def test_the_small_model_has_the_hand_counted_experts() -> None:
    assert TINY_MOE.expert_params == 1_572_864
    assert TINY_MOE.param_ledger()["experts"] == ALL_EXPERTS


def test_expert_parameter_bytes_per_gpu_follow_etp() -> None:
    # etp = tp = 2: 8 experts over etp·ep = 8 ranks, EDP = 8/(2·4·1) = 1; etp = 1: over 4 ranks, EDP = 2.
    # The dense part (attention, router, embedding) is the same in both, so the difference is the experts':
    # 50,331,648/4 - 50,331,648/8 = 6,291,456 parameters more per GPU at etp = 1.
    pb = PRECISION_RECIPES[WORK.recipe].param_bytes
    kb = PRECISION_RECIPES[WORK.recipe].optimizer_bytes
    gb = PRECISION_RECIPES[WORK.recipe].grad_bytes
    one, two = _memory(1, 0), _memory(2, 0)
    assert one["params"] - two["params"] == pytest.approx((ALL_EXPERTS / 4 - ALL_EXPERTS / 8) * pb)
    assert one["grads"] - two["grads"] == pytest.approx((ALL_EXPERTS / 4 - ALL_EXPERTS / 8) * gb)
    # ZeRO-1 shards the optimizer over the expert data-parallel group: (1/4)/2 = (1/8)/1 of the experts per GPU.
    one_z1, two_z1 = _memory(1, 1), _memory(2, 1)
    assert one_z1["optimizer"] == pytest.approx(two_z1["optimizer"])
    assert one_z1["params"] - two_z1["params"] == pytest.approx((ALL_EXPERTS / 4 - ALL_EXPERTS / 8) * pb)
    # What ZeRO-1 saves beyond the dense weights' share (the same at both): the experts' optimizer half at etp = 1
    # (EDP 2), nothing at etp = 2 (EDP 1).
    saved_one, saved_two = one["optimizer"] - one_z1["optimizer"], two["optimizer"] - two_z1["optimizer"]
    assert saved_one - saved_two == pytest.approx(ALL_EXPERTS / 4 / 2 * kb)


def _rows(etp: int, **workload: object) -> dict[str, CommRow]:
    work = replace(WORK, **workload)
    cand = evaluate_composition(TINY_MOE, NODE, work, tp=2, dp=4, ep=4, etp=etp, zero=0, mb=1, recompute="none")
    return {row.dimension: row for row in cand.communication}


def test_all_to_all_bytes_follow_the_dispatcher() -> None:
    # 4 all-to-alls per MoE layer and micro-batch (dispatch, combine, and their gradients): 4·4·1 = 16 calls.
    # Megatron-Core's all-to-all dispatcher (MoEAlltoAllTokenDispatcher: "A2A(EP)" then "AG(TP)") sends each
    # rank's sequence-parallel share, s/tp = 512 tokens, top-2 copies of h = 1024 bf16 values: 2 MiB a call at
    # either ETP. The flex dispatcher DeepEP runs under (one group over TP x EP) sends a token to each expert-TP
    # rank of its expert: s·etp/tp, 4 MiB at ETP 2, 2 MiB at ETP 1.
    for etp in (2, 1):
        ep = _rows(etp)["EP"]
        assert ep.calls == 16
        assert ep.payload_bytes == 16 * 2 * MIB
    for etp, per_call in ((2, 4 * MIB), (1, 2 * MIB)):
        assert _rows(etp, ep_dedup_per_node=True)["EP"].payload_bytes == 16 * per_call


def test_tp_traffic_of_the_moe_block_follows_etp() -> None:
    # Sequence parallelism: per layer and phase (forward, backward) one all-gather and one reduce-scatter per
    # block. Attention block over TP 2, the 1024 x 1024 bf16 activation = 2 MiB each: 2 phases x 2 kinds x 4 layers
    # = 16 calls, 32 MiB. Expert block over ETP 2 (all-to-all dispatcher): after the all-to-all each rank holds about
    # top-2 x 512 = 1024 routed rows; the all-gather over ETP 2 gathers 2048 rows x 1024 x 2 bytes = 4 MiB (the
    # reduce-scatter before the combine returns them): 16 calls, 64 MiB — 96 MiB in all. At ETP 1 the expert block
    # has no TP collectives: 32 MiB; nor under the flex dispatcher, whose all-to-all reached both ETP ranks.
    assert WORK.sequence_parallel
    two, one = _rows(2)["TP"], _rows(1)["TP"]
    assert (two.calls, two.payload_bytes) == (32, 96 * MIB)
    assert (one.calls, one.payload_bytes) == (16, 32 * MIB)
    flex = _rows(2, ep_dedup_per_node=True)["TP"]
    assert (flex.calls, flex.payload_bytes) == (16, 32 * MIB)
    assert one.time_s < two.time_s and flex.time_s < two.time_s


def test_expert_matmul_shapes_follow_etp() -> None:
    # tokens 1024, hidden 1024, MLP width 1024, K/V width 1024, TP 2, SwiGLU, bf16. The expert block at ETP 1
    # multiplies 512 rows (tokens·etp/tp) by 1024 x 2048 and 1024 x 1024 shards instead of 1024 rows by
    # 1024 x 1024 and 512 x 1024: the same FLOPs, other bytes (2 bytes·(m·k + k·n + m·n) per matmul).
    def moved(m: int, k: int, n: int) -> int:
        return 2 * (m * k + k * n + m * n)

    flops = 2 * 1024 * (1024 * 1536 + 512 * 1024 + 1024 * 1024 + 512 * 1024)  # 7,516,192,768
    attention = moved(1024, 1024, 1536) + moved(1024, 512, 1024)  # fused QKV, output projection (TP 2)
    bytes_etp2 = attention + moved(1024, 1024, 1024) + moved(1024, 512, 1024)  # MLP up+gate, down over ETP 2
    bytes_etp1 = attention + moved(512, 1024, 2048) + moved(512, 1024, 1024)  # over ETP 1: 512 rows
    assert bytes_etp2 == 23_068_672 and bytes_etp1 == 24_117_248
    args = (1024, 1024, 1024, 1024, 2, 3, 2)
    assert _transformer_layer_matmul_intensity(*args) == pytest.approx(flops / bytes_etp2)
    assert _transformer_layer_matmul_intensity(*args, 2) == pytest.approx(flops / bytes_etp2)
    assert _transformer_layer_matmul_intensity(*args, 1) == pytest.approx(flops / bytes_etp1)


def test_fold_rule_is_megatrons() -> None:
    # The Megatron-Bridge Qwen3 235B recipe: TP 2, EP 32, PP 8 on 256 GPUs. ETP = TP: 2·32·8 = 512 does not
    # divide 256; ETP 1: 32·8 = 256 does (EDP = 1).
    qwen, cluster = MODELS["qwen3-235b-a22b"], CLUSTERS["h100-8"].with_nodes(32)
    work = WorkloadSpec(global_batch=2048, seq_len=4096)
    tied = evaluate_composition(qwen, cluster, work, tp=2, pp=8, dp=16, ep=32, zero=1, recompute="full")
    assert "ep_fold" in tied.codes and tied.etp == 2
    folded = evaluate_composition(qwen, cluster, work, tp=2, pp=8, dp=16, ep=32, etp=1, zero=1, recompute="full")
    assert "ep_fold" not in folded.codes
    # The README's example: CP 8 and EP 8 on 8 GPUs — expert layers have no CP, its ranks join EP/EDP.
    cand = evaluate_composition(TINY_MOE, NODE, WORK, tp=1, cp=8, dp=1, ep=8, etp=1, mb=1, recompute="none")
    assert "ep_fold" not in cand.codes
    est = training_estimate(TINY_MOE, NODE, WORK, _columns(1, tp=1, cp=8, dp=1, ep=8))
    assert est["memory"]["params"][0] > 0
    edp_row = {row.dimension for row in cand.communication}
    assert "EDP" not in edp_row  # EDP = 8 / (1·8·1) = 1: no expert gradient traffic


def test_space_labels_and_dense_models() -> None:
    space = training_space(TINY_MOE, NODE, WORK)
    pairs = set(zip(space["tp"].tolist(), space["etp"].tolist(), strict=True))
    # The two ends practice uses: ETP = TP (Megatron's default) and ETP = 1 (the MoE README's advice).
    assert pairs == {(tp, etp) for tp in (1, 2, 4, 8) for etp in {1, tp}}
    dense = MODELS["llama3-8b"]
    dense_space = training_space(dense, NODE, WORK)
    assert (dense_space["etp"] == dense_space["tp"]).all()
    assert parse_degrees("tp=2,ep=4,etp=1") == {"tp": 2, "ep": 4, "etp": 1}
    label = evaluate_composition(TINY_MOE, NODE, WORK, tp=2, dp=4, ep=4, etp=1).label()
    assert "etp=1" in label
    assert "etp" not in evaluate_composition(dense, NODE, WORK, tp=2).label()
    for language, words in (("en", "expert tensor parallelism"), ("zh", "专家张量并行")):
        set_language(language)
        try:
            with pytest.raises(ValueError, match=words):
                evaluate_composition(dense, NODE, WORK, tp=2, etp=1)
        finally:
            set_language("en")


def test_probabilities_in_the_experts_keep_no_copy_of_their_outputs() -> None:
    # Megatron-Core from 0.13 (Megatron-LM 2659630721) multiplies the router's probabilities into the experts'
    # activation, so the combine sums the expert outputs unweighted and saves none of them: per token, top-2 copies
    # of h = 1024 bf16 values, 2 · 1024 · 2 = 4 KiB. At TP 2 with sequence parallelism a rank holds 512 of the 1024
    # tokens: 2 MiB less per layer, 8 MiB over the 4 layers of the one stage (one micro-batch in flight).
    from coursekit.activations import layer_activation_ledger

    widths = TINY_MOE.layer_widths()
    args = {"seq_len": 1024, "micro_batch": 1, "tp": 2, "sequence_parallel": True, "flash_attention": True}
    weighed = layer_activation_ledger(widths, **args)["MoE routed inputs and outputs"]
    unweighed = layer_activation_ledger(widths, **args, moe_probs_in_experts=True)["MoE routed inputs and outputs"]
    assert weighed - unweighed == 2 * MIB
    # the expert inputs and the fp32 router probabilities stay: 1024 · (2 · 1024 + 2 · 8) · 2 bytes / 2
    assert unweighed == 1024 * (2 * 1024 + 2 * 8) * 2 / 2
    plain = evaluate_composition(TINY_MOE, NODE, WORK, tp=2, dp=4, ep=4, etp=1, zero=0, mb=1, recompute="none")
    work = replace(WORK, moe_probs_in_experts=True)
    lean = evaluate_composition(TINY_MOE, NODE, work, tp=2, dp=4, ep=4, etp=1, zero=0, mb=1, recompute="none")
    assert plain.memory is not None and lean.memory is not None
    assert (plain.memory.activations_gib - lean.memory.activations_gib) * (1 << 30) == pytest.approx(8 * MIB)
    for language, words in (("en", "moe_probs_in_experts"), ("zh", "moe_probs_in_experts")):
        set_language(language)
        try:
            with pytest.raises(TypeError, match=words):
                WorkloadSpec(global_batch=4, moe_probs_in_experts="yes")  # type: ignore[arg-type]
        finally:
            set_language("en")
