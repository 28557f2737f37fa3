"""What one layer saves for backward, tensor by tensor (coursekit.activations).

Expected values are worked by hand from the tensor lists of Korthikanti et al. 2022 (arXiv:2205.05198, §4.1)
and FlashAttention-2 (Dao 2023, arXiv:2307.08691, Algorithms 1-2), with each model's published shape.
"""

from __future__ import annotations

import pytest

from coursekit.activations import LayerWidths, korthikanti_widths, layer_activation_ledger
from coursekit.capacity import activation_memory_breakdown

E = 2  # bytes per 16-bit activation element


def test_korthikanti_eq1_tensor_by_tensor() -> None:
    # §4.1, GPT-3 shape: attention block 11·sbh + 5·as²b, MLP 19·sbh, two layer norms 4·sbh.
    s, b, h, a = 2048, 1, 12288, 96
    sbh = s * b * h
    ledger = layer_activation_ledger(korthikanti_widths(hidden=h, heads=a), seq_len=s, micro_batch=b)
    attention = ["attention input", "Q", "K", "V", "attention output (projection input)"]
    assert sum(ledger[k] for k in attention) + sbh == 11 * sbh  # + the dropout mask after the attention block (1 byte)
    assert ledger["MLP input"] + ledger["MLP inner"] + sbh == 19 * sbh  # 2sbh + GELU in/out 8sbh + 8sbh + mask
    assert ledger["layer norm inputs (2)"] == 4 * sbh
    assert ledger["dropout masks (2)"] == 2 * sbh
    assert ledger["attention scores (softmax, dropout)"] == 5 * a * s * s * b


def test_llama3_8b_gqa_swiglu_flash_by_hand() -> None:
    # Llama 3 8B (arXiv:2407.21783 Table 3): h 4096, 32 heads, 8 KV heads of 128, SwiGLU width 14336, no dropout.
    # s = 8192, b = 1, flash attention, no recomputation, no parallelism.
    s, h, a, kv, hd, f = 8192, 4096, 32, 8, 128, 14336
    per_token = (
        E
        * (
            2 * h  # two RMSNorm inputs
            + h  # QKV projection input
            + a * hd  # Q
            + kv * hd  # K: kv_heads / heads of Q
            + kv * hd  # V
            + a * hd  # attention output, input of the output projection
            + h  # MLP input
            + 2 * f  # gate and up outputs (the fused SwiGLU saves its input)
            + f  # down projection input
        )
        + 4 * a
    )  # flash attention: one fp32 logsumexp per head and query
    assert per_token == 139392
    widths = LayerWidths(hidden=h, heads=a, qk_head_dim=hd, v_head_dim=hd, kv_heads=kv, mlp_split=3 * f)
    ledger = layer_activation_ledger(widths, seq_len=s, micro_batch=1, flash_attention=True)
    assert sum(ledger.values()) == per_token * s
    assert "attention scores (softmax, dropout)" not in ledger and "dropout masks (2)" not in ledger
    act = activation_memory_breakdown(
        seq_len=s, micro_batch=1, hidden=h, heads=a, layers=32, widths=widths, flash_attention=True
    )
    assert act.total_bytes == 32 * per_token * s  # 34.0 GiB for the whole model
    assert round(act.total_gib, 1) == 34.0
    # The same layer without flash attention materialises 32 heads of 8192² bf16 scores: 4 GiB.
    eager = activation_memory_breakdown(seq_len=s, micro_batch=1, hidden=h, heads=a, widths=widths)
    assert eager.attention_bytes_per_layer == E * a * s * s


def test_gqa_heads_per_rank_are_copied_when_tp_exceeds_kv_heads() -> None:
    # 8 KV heads over tp = 16: each rank holds ceil(8 / 16) = 1 head of K and of V (a copy), not half a head.
    widths = LayerWidths(hidden=4096, heads=32, qk_head_dim=128, v_head_dim=128, kv_heads=8, mlp_split=3 * 14336)
    for tp, heads_per_rank in ((8, 1), (16, 1), (2, 4)):
        ledger = layer_activation_ledger(widths, seq_len=1024, micro_batch=1, tp=tp, sequence_parallel=True)
        assert ledger["K"] == E * 1024 * heads_per_rank * 128


def test_selective_and_full_recompute_with_flash() -> None:
    widths = LayerWidths(hidden=1024, heads=8, qk_head_dim=128, v_head_dim=128, kv_heads=2, mlp_split=3 * 4096)
    none = layer_activation_ledger(widths, seq_len=512, micro_batch=2, flash_attention=True)
    selective = layer_activation_ledger(widths, seq_len=512, micro_batch=2, flash_attention=True, recompute="selective")
    assert none["attention scores (flash softmax stats)"] == 4 * 8 * 512 * 2
    assert sum(none.values()) - sum(selective.values()) == 4 * 8 * 512 * 2  # only the statistics differ
    full = layer_activation_ledger(widths, seq_len=512, micro_batch=2, recompute="full", tp=4, sequence_parallel=True)
    assert full == {"full recompute: layer input": E * 512 * 2 * 1024 / 4}


def test_widths_must_match_the_shape() -> None:
    widths = korthikanti_widths(hidden=1024, heads=8)
    with pytest.raises(ValueError, match="hidden = 1024, heads = 8, not hidden = 2048"):
        activation_memory_breakdown(seq_len=64, micro_batch=1, hidden=2048, heads=8, widths=widths)
    with pytest.raises(TypeError, match="must be a LayerWidths"):
        activation_memory_breakdown(seq_len=64, micro_batch=1, hidden=1024, heads=8, widths={"hidden": 1})  # type: ignore[arg-type]


def test_flash_attention_makes_no_recompute_a_real_option() -> None:
    """Llama 3 70B at 8K on 16 H100 nodes, tp 8, pp 4, dp 4, no recomputation: with flash attention (the
    workbench's default) it fits; with the scores materialised it does not. No dropout, so the scores cost
    e·a·s²·b = 2·64·8192² bytes per layer, /t = 1 GiB, against flash attention's 4·a·s·b/t; the first stage keeps
    20 layers of 4 micro-batches in flight (1F1B)."""
    from coursekit.planner import WorkloadSpec, plan
    from coursekit.presets import CLUSTERS, MODELS

    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16)
    layout = "tp=8,pp=4,dp=4,zero=1,mb=1"
    flash = plan(model, cluster, WorkloadSpec(global_batch=1024, recompute_modes=("none",))).explain(layout)
    eager_workload = WorkloadSpec(global_batch=1024, recompute_modes=("none",), flash_attention=False)
    eager = plan(model, cluster, eager_workload).explain(layout)
    assert flash.accepted and eager.codes == ("memory",)
    assert flash.memory is not None and eager.memory is not None
    per_layer = (2 * 64 * 8192**2 - 4 * 64 * 8192) / 8
    assert (eager.memory.total_gib - flash.memory.total_gib) * 2**30 == pytest.approx(20 * 4 * per_layer)


def test_llama3_8b_fp8_against_bf16_by_hand() -> None:
    """The same Llama 3 8B layer as above with its linear layers in FP8 (Transformer Engine, fp8_autocast).

    Tensor by tensor, from what Transformer Engine v1.9 saves for backward (coursekit.activations.
    FP8_SAVED_INPUTS_SOURCE): the fused norm + QKV projection keeps the bf16 norm input and its output cast to FP8;
    the output projection keeps its input in FP8; the fused norm + fc1 the bf16 norm input and the FP8 norm output;
    the SwiGLU keeps its bf16 input (gate and up, 2·f), fc2 its input in FP8 (f); flash attention keeps bf16 Q, K,
    V and its own bf16 output besides the projection's FP8 copy.
    """
    s, h, a, kv, hd, f = 8192, 4096, 32, 8, 128, 14336
    fp8_per_token = (
        2 * 2 * h  # two RMSNorm inputs, bf16
        + 1 * h  # QKV projection input, FP8
        + 2 * a * hd  # Q, bf16
        + 2 * kv * hd  # K
        + 2 * kv * hd  # V
        + 1 * a * hd  # attention output as the output projection saves it, FP8
        + 2 * a * hd  # the same output as flash attention saves it, bf16
        + 1 * h  # fc1 input (norm output), FP8
        + 2 * 2 * f  # gate and up outputs, the SwiGLU's input, bf16
        + 1 * f  # down projection input, FP8
        + 4 * a  # flash attention's fp32 logsumexp
    )
    assert fp8_per_token == 120960
    assert 139392 - fp8_per_token == 2 * h + f - a * hd  # 18432 bytes per token less than bf16
    widths = LayerWidths(
        hidden=h, heads=a, qk_head_dim=hd, v_head_dim=hd, kv_heads=kv, mlp_split=3 * f, mlp_down_inputs=f
    )
    fp8 = layer_activation_ledger(widths, seq_len=s, micro_batch=1, flash_attention=True, precision="fp8")
    assert sum(fp8.values()) == fp8_per_token * s
    assert fp8["attention output (flash kernel's bf16 copy)"] == 2 * a * hd * s
    # Selective recomputation re-runs the attention core: it keeps neither its bf16 output nor its statistics.
    selective = layer_activation_ledger(
        widths, seq_len=s, micro_batch=1, flash_attention=True, precision="fp8", recompute="selective"
    )
    assert sum(selective.values()) == (fp8_per_token - 2 * a * hd - 4 * a) * s
    # The model preset gives the same widths, and bf16 stays the count of the test above.
    from coursekit.presets import MODELS

    preset = MODELS["llama3-8b"].layer_widths()
    assert sum(layer_activation_ledger(preset, seq_len=s, micro_batch=1, flash_attention=True).values()) == 139392 * s
    preset_fp8 = layer_activation_ledger(preset, seq_len=s, micro_batch=1, flash_attention=True, precision="fp8")
    assert sum(preset_fp8.values()) == fp8_per_token * s
    # Full recomputation keeps only the bf16 layer input, FP8 or not.
    full = layer_activation_ledger(widths, seq_len=s, micro_batch=1, recompute="full", precision="fp8")
    assert full == {"full recompute: layer input": 2 * s * h}


def test_fp8_moe_router_keeps_the_mlp_input_in_bf16() -> None:
    """An MoE layer: the router (a plain matmul) keeps the bf16 MLP input; each routed copy's expert input is saved
    by the FP8 grouped linear at 1 byte, its output (read by the weighted combine) in bf16; a shared expert saves one
    more FP8 copy of the MLP input. Widths per token: h 1024, top-2 of 8 experts of width 512, one shared expert."""
    h, k, n, w = 1024, 2, 8, 512
    widths = LayerWidths(
        hidden=h,
        heads=8,
        qk_head_dim=128,
        v_head_dim=128,
        kv_heads=8,
        mlp_split=(k + 1) * 3 * w,
        mlp_replicated=k * 2 * h + 2 * n,
        mlp_down_inputs=(k + 1) * w,
        moe_expert_inputs=k * h,
        router=True,
        shared_expert_input=True,
    )
    bf16 = layer_activation_ledger(widths, seq_len=16, micro_batch=1, recompute="selective")
    fp8 = layer_activation_ledger(widths, seq_len=16, micro_batch=1, recompute="selective", precision="fp8")
    assert bf16["MLP input"] == 2 * h * 16 and fp8["MLP input"] == (2 + 1) * h * 16
    assert fp8["MoE routed inputs and outputs"] == (k * h * 1 + k * h * 2 + 4 * n) * 16
    assert fp8["MLP inner"] == ((k + 1) * 2 * w * 2 + (k + 1) * w * 1) * 16
    with pytest.raises(ValueError, match="precision"):
        layer_activation_ledger(widths, seq_len=16, micro_batch=1, precision="fp4")


def test_planner_counts_fp8_activations() -> None:
    """Llama 3 70B at 8K on 16 H100 nodes, tp 8 (sequence parallel), pp 4, dp 4, no recomputation, flash attention:
    FP8 keeps (2·h + f − a·d_v)·s·b/t bytes per layer less (h 8192, f 28672, a·d_v 8192, s 8192, t 8), and the first
    stage holds 20 layers of 4 micro-batches in flight (1F1B). Weights, gradients and optimizer states do not move."""
    from coursekit.planner import WorkloadSpec, plan
    from coursekit.presets import CLUSTERS, MODELS

    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16)
    layout = "tp=8,pp=4,dp=4,zero=1,mb=1"
    bf16 = plan(model, cluster, WorkloadSpec(global_batch=1024, recompute_modes=("none",))).explain(layout)
    fp8_workload = WorkloadSpec(global_batch=1024, recompute_modes=("none",), precision="fp8")
    fp8 = plan(model, cluster, fp8_workload).explain(layout)
    assert bf16.memory is not None and fp8.memory is not None
    per_layer = (2 * 8192 + 28672 - 8192) * 8192 / 8
    assert (bf16.memory.total_gib - fp8.memory.total_gib) * 2**30 == pytest.approx(20 * 4 * per_layer)


def test_korthikanti_layer_in_fp8_keeps_27_sbh() -> None:
    """Korthikanti's GPT layer (scores materialised, dropout on) with its four linear layers in FP8: of the 34·s·b·h
    of §4.1, the QKV input (2sbh), the projection input (2sbh), the fc1 input (2sbh) and the fc2 input (8sbh) are
    saved at 1 byte instead of 2, so 7·s·b·h less: 27·s·b·h + 5·a·s²·b. The eager attention core does not keep its
    output (its backward needs the scores and V), so no bf16 copy stays beside the FP8 one."""
    s, b, h, a = 2048, 1, 12288, 96
    widths = korthikanti_widths(hidden=h, heads=a)
    ledger = layer_activation_ledger(widths, seq_len=s, micro_batch=b, precision="fp8")
    scores = ledger.pop("attention scores (softmax, dropout)")
    assert scores == 5 * a * s * s * b and sum(ledger.values()) == 27 * s * b * h
    tp8 = layer_activation_ledger(widths, seq_len=s, micro_batch=b, tp=8, sequence_parallel=True, precision="fp8")
    assert sum(tp8.values()) == (27 * s * b * h + 5 * a * s * s * b) / 8


def test_module_recompute_discards_the_moe_norm_and_activation_outputs_by_hand() -> None:
    """Megatron-Core's --recompute-modules layernorm moe_act on a Qwen3 235B-A22B MoE layer (h 4096, 8 routed
    copies of width 1536, no MLA): the pre-MLP norm's bf16 output (2·h bytes per token) and the routed experts'
    bf16 activation output (2·8·1536 bytes per token) are discarded after the forward (output-discarding
    checkpoints, megatron/core/transformer/moe/experts.py and transformer_layer.py at 1e057005); every other
    tensor stays. Under full recomputation nothing changes (only the layer input is kept anyway). In FP8 the
    experts' down projection keeps its own FP8 copy of the activation output, so moe_act discards nothing there;
    the norm output (the router's bf16 input) still goes."""
    from coursekit.presets import MODELS

    w = MODELS["qwen3-235b-a22b"].layer_widths()
    shape = {"seq_len": 4096, "micro_batch": 1, "tp": 2, "sequence_parallel": True, "flash_attention": True}
    modules = ("layernorm", "moe_act")
    plain = layer_activation_ledger(w, **shape)
    both = layer_activation_ledger(w, **shape, recompute_modules=modules)
    tokens_rank = 4096 / 2
    assert plain["MLP input"] - both.get("MLP input", 0.0) == 2 * 4096 * tokens_rank
    assert plain["MLP inner"] - both["MLP inner"] == 2 * 8 * 1536 * tokens_rank
    assert {k: v for k, v in plain.items() if k not in ("MLP input", "MLP inner")} == {
        k: v for k, v in both.items() if k not in ("MLP input", "MLP inner")
    }
    full = layer_activation_ledger(w, **shape, recompute="full")
    assert layer_activation_ledger(w, **shape, recompute="full", recompute_modules=modules) == full
    fp8 = layer_activation_ledger(w, **shape, precision="fp8")
    fp8_both = layer_activation_ledger(w, **shape, precision="fp8", recompute_modules=modules)
    assert sum(fp8.values()) - sum(fp8_both.values()) == 2 * 4096 * tokens_rank
    dense = layer_activation_ledger(MODELS["llama3-8b"].layer_widths(), **shape)  # norms fused, no experts
    assert layer_activation_ledger(MODELS["llama3-8b"].layer_widths(), **shape, recompute_modules=modules) == dense
    with pytest.raises(ValueError, match="recompute_modules"):
        layer_activation_ledger(w, **shape, recompute_modules=("core_attn",))


def test_workload_refuses_unknown_recompute_modules() -> None:
    from coursekit.planner import WorkloadSpec

    assert WorkloadSpec(global_batch=8).recompute_modules == ()
    assert WorkloadSpec(global_batch=8, recompute_modules=["moe_act", "layernorm"]).recompute_modules == (
        "layernorm",
        "moe_act",
    )
    with pytest.raises(ValueError, match="recompute_modules"):
        WorkloadSpec(global_batch=8, recompute_modules=("core_attn",))
    with pytest.raises(TypeError, match="recompute_modules"):
        WorkloadSpec(global_batch=8, recompute_modules="layernorm")


def test_moe_block_recompute_keeps_only_the_block_input_by_hand() -> None:
    """--recompute-modules moe (Megatron-LM 1e057005, moe_layer.py: tensor_parallel.checkpoint around the router,
    the dispatch, the experts and the combine): of a Qwen3 235B-A22B MoE layer's MLP part only the block's input
    stays. Per token it drops the routed experts' inner activations, 8 copies x 3 x 1536 bf16 values, and the copies'
    expert inputs and outputs, 8 x 2 x 4096 bf16 values, and the fp32 router probabilities, 128 x 4 bytes; with
    "layernorm" also the block's input (the pre-MLP norm output, 4096 bf16 values), recomputed from the norm's."""
    from coursekit.presets import MODELS

    w = MODELS["qwen3-235b-a22b"].layer_widths()
    shape = {"seq_len": 4096, "micro_batch": 1, "tp": 2, "sequence_parallel": True, "flash_attention": True}
    plain = sum(layer_activation_ledger(w, **shape).values())
    moe = sum(layer_activation_ledger(w, **shape, recompute_modules=("moe",)).values())
    both = sum(layer_activation_ledger(w, **shape, recompute_modules=("layernorm", "moe", "moe_act")).values())
    per_token = 2 * 8 * 3 * 1536 + 2 * 8 * 2 * 4096 + 4 * 128
    assert plain - moe == per_token * 4096 / 2
    assert moe - both == 2 * 4096 * 4096 / 2


def test_mla_up_proj_recompute_discards_q_k_v_by_hand() -> None:
    """Megatron-Core's --recompute-modules mla_up_proj (megatron/core/transformer/multi_latent_attention.py: the up
    projections and the rotary embedding under CheckpointWithoutOutput, their output discarded after core
    attention) on a DeepSeek-V3 layer (arXiv:2412.19437 §3.2.3 recomputes them too): 128 heads, Q and K of
    128 + 64 = 192 per head, V of 128, all 16-bit, so 2·128·(192 + 192 + 128) = 131072 bytes per token go, in bf16
    and in FP8 alike (the flash kernel's inputs stay 16-bit). The latents stay; nothing changes under full
    recomputation, nor for a model without MLA."""
    from coursekit.presets import MODELS

    w = MODELS["deepseek-v3"].layer_widths()
    shape = {"seq_len": 4096, "micro_batch": 1, "flash_attention": True}
    for precision in ("bf16", "fp8"):
        plain = layer_activation_ledger(w, **shape, precision=precision)
        up = layer_activation_ledger(w, **shape, precision=precision, recompute_modules=("mla_up_proj",))
        assert sum(plain.values()) - sum(up.values()) == 2 * 128 * (192 + 192 + 128) * 4096
        assert "MLA latents" in up and up["MLA latents"] == plain["MLA latents"]
    full = layer_activation_ledger(w, **shape, recompute="full")
    assert layer_activation_ledger(w, **shape, recompute="full", recompute_modules=("mla_up_proj",)) == full
    gqa = MODELS["llama3-8b"].layer_widths()
    assert layer_activation_ledger(gqa, **shape, recompute_modules=("mla_up_proj",)) == layer_activation_ledger(
        gqa, **shape
    )
