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
