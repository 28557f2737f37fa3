"""The presets the vendor-table runs need, counted by hand from their public configs.

Llama 2 70B: arXiv:2307.09288 Table 1 and meta-llama/Llama-2-70b-hf config.json; Nemotron-4 340B: arXiv:2406.11704
Table 1; Qwen3 30B-A3B and 235B-A22B: arXiv:2505.09388 and their config.json (the model cards state 30.5B total /
3.3B activated and 235B / 22B). Qwen3's per-head QK-norm scales (2 · 128 weights a layer, 12288 in the 30B model)
are not in the spec's ledger: under 0.0001 % of either count.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from coursekit.presets import MODELS
from coursekit.specs import ModelSpec

QWEN3_MOE = {"model_type": "qwen3_moe", "hidden_act": "silu", "num_key_value_heads": 4, "head_dim": 128,
             "num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, "tie_word_embeddings": False,
             "attention_dropout": 0.0, "max_position_embeddings": 40960}  # fmt: skip
QWEN3_30B = {**QWEN3_MOE, "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 32,
             "intermediate_size": 6144, "moe_intermediate_size": 768}  # fmt: skip
QWEN3_235B = {**QWEN3_MOE, "hidden_size": 4096, "num_hidden_layers": 94, "num_attention_heads": 64,
              "intermediate_size": 12288, "moe_intermediate_size": 1536}  # fmt: skip
LLAMA2_70B = {"model_type": "llama", "hidden_act": "silu", "hidden_size": 8192, "intermediate_size": 28672,
              "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 80, "vocab_size": 32000,
              "max_position_embeddings": 4096, "tie_word_embeddings": False}  # fmt: skip


def qwen3_moe_counts(h: int, layers: int, heads: int, width: int) -> tuple[int, int]:
    """Total and activated parameters: Q and O 2·h·(a·128), K and V 2·h·(4·128), 128 SwiGLU experts 3·h·width
    each and a router h·128, two RMSNorm scales; untied embedding and output 2·V·h, the final norm h."""
    attention = 2 * h * heads * 128 + 2 * h * 4 * 128
    expert = 3 * h * width
    per_layer = attention + 128 * expert + 128 * h + 2 * h
    total = layers * per_layer + 2 * 151936 * h + h
    return total, total - layers * (128 - 8) * expert


def test_qwen3_moe_presets_from_config() -> None:
    cases: tuple[tuple[dict[str, Any], str, tuple[float, float]], ...] = (
        (QWEN3_30B, "qwen3-30b-a3b", (30.5, 3.3)),
        (QWEN3_235B, "qwen3-235b-a22b", (235, 22)),
    )
    for config, name, published in cases:
        total, active = qwen3_moe_counts(
            config["hidden_size"], config["num_hidden_layers"], config["num_attention_heads"],
            config["moe_intermediate_size"],
        )  # fmt: skip
        model = ModelSpec.from_config(config)
        assert (model.num_params, model.active_params) == (total, active)
        assert (MODELS[name].num_params, MODELS[name].active_params) == (total, active)
        scale = 10 if published[0] < 100 else 1  # the cards state 30.5B / 3.3B and 235B / 22B, truncated
        assert (math.floor(total / 1e9 * scale) / scale, math.floor(active / 1e9 * scale) / scale) == published
        assert MODELS[name].head_dim == 128 and MODELS[name].kv_heads == 4 and MODELS[name].shared_experts == 0


@pytest.mark.parametrize(
    ("name", "layers", "h", "heads", "kv", "f", "published"),
    [
        ("llama2-7b", 32, 4096, 32, 32, 11008, 6738415616),
        ("llama2-13b", 40, 5120, 40, 40, 13824, 13015864320),
        ("llama2-70b", 80, 8192, 64, 8, 28672, 68976648192),
    ],
)
def test_llama2_presets_from_config(
    name: str, layers: int, h: int, heads: int, kv: int, f: int, published: int
) -> None:
    """Q and O h·h, K and V h·(kv·128), SwiGLU 3·h·f, two RMSNorm scales; untied embedding and output 2·V·h, the final
    norm h. ``published``: the parameter counts of the released checkpoints (6.74B, 13.0B, 69.0B as the model cards
    round them), which the sum must reproduce to the parameter."""
    hd = h // heads
    per_layer = 2 * h * heads * hd + 2 * h * kv * hd + 3 * h * f + 2 * h
    total = layers * per_layer + 2 * 32000 * h + h
    config = {**LLAMA2_70B, "num_hidden_layers": layers, "hidden_size": h, "num_attention_heads": heads,
              "num_key_value_heads": kv, "intermediate_size": f}  # fmt: skip
    assert ModelSpec.from_config(config).num_params == total == MODELS[name].num_params == published
    assert MODELS[name].seq_len == 4096


def test_nemotron4_340b_preset_by_hand() -> None:
    """Table 1: 96 layers, h 18432, 96 heads with 8 KV heads, a 2-matrix squared-ReLU MLP of width 4h, LayerNorm
    (scale and bias), no linear biases, untied 256000-token embedding and output."""
    h, layers, vocab, kv = 18432, 96, 256000, 8
    hd = h // 96
    per_layer = 2 * h * h + 2 * h * kv * hd + 2 * h * 4 * h + 2 * 2 * h
    total = layers * per_layer + 2 * vocab * h + 2 * h
    model = MODELS["nemotron4-340b"]
    assert model.num_params == total
    assert round(total / 1e9) == 341 and round(2 * vocab * h / 1e9, 1) == 9.4


def test_nemotron_family_presets_by_hand() -> None:
    """Nemotron-4 15B (arXiv:2402.16819 §2): 32 layers, h 6144, 48 heads with 8 KV heads, squared-ReLU MLP of 24576,
    LayerNorm, untied 256000 vocabulary — per layer 2·6144² + 2·6144·1024 + 2·6144·24576 + 4·6144 = 390,094,848,
    so 32 · 390,094,848 + 2 · 256000 · 6144 + 2 · 6144 = 15,628,775,424, of which 12.48B are not embeddings (the
    report's "12.5 billion non-embedding parameters"). NeMo's Nemotron-3 configs: 8B per layer 4·4096² + 2·4096·16384
    + 4·4096 = 201,342,976 (x 32, plus 2,097,152,000 of embeddings and 8192 of final norm: 8,540,135,424, the 8.54B
    whose 6N = 51.2 GFLOP the 24.07 table's 653 TFLOP/s ÷ 12701 tokens/s = 51.4 GFLOP per token matches); 22B per
    layer 4·6144² + 2·6144·24576 + 4·6144 = 453,009,408 (x 40, plus 3,145,728,000 and 12,288: 21,266,116,608)."""
    assert MODELS["nemotron4-15b"].num_params == 15_628_775_424
    assert round((15_628_775_424 - 2 * 256000 * 6144) / 1e9, 2) == 12.48
    assert MODELS["nemotron3-8b"].num_params == 8_540_135_424
    assert round(653e12 / 12701 / 1e9, 1) == 51.4 and round(6 * 8_540_135_424 / 1e9, 1) == 51.2
    assert MODELS["nemotron3-22b"].num_params == 21_266_116_608
    assert all(MODELS[name].mlp == "gelu" for name in ("nemotron4-15b", "nemotron3-8b", "nemotron3-22b"))


def test_grok1_proxy_preset_by_hand() -> None:
    """dgxc-benchmarking grok1_314b.yaml: per layer attention 6144·6144 (Q) + 2·6144·1024 (K, V: 8 groups of 128)
    + 6144·6144 (output) = 88,080,384; eight gated experts 8·3·6144·32768 = 4,831,838,208; router 6144·8 = 49,152;
    two RMSNorms 12,288: 4,919,980,032 a layer, x 64 = 314,878,722,048; embedding and output 2·128256·6144 =
    1,576,009,728 and the final norm 6144: 316,454,737,920 in all (xAI's "314B" counts without embeddings: 314.9B)."""
    model = MODELS["grok1-314b"]
    assert model.num_params == 316_454_737_920
    assert (model.num_experts, model.top_k, model.capacity_factor, model.vocab) == (8, 2, 1.0, 128256)


def test_qwen3_runs_state_their_recipes_ep_overlap() -> None:
    # Megatron-Bridge qwen3_workload_base_configs.py @ df0289c: QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 and
    # QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_FP8_CS_V1 (and V2, the same with GBS 8192) set moe_a2a_overlap=True; the
    # 26.04 EP 16 recipe (perf_recipes/qwen/h100/qwen3_moe.py @ 067f987) sets moe_a2a_overlap = False. The 26.02 and
    # 26.02.01 rows of Qwen3 30B-A3B at global batch 1024 ran the 26.02 V1 config (VP 12, DeepEP, the overlap on).
    from coursekit.published_runs import PUBLISHED_RUNS_2025
    from coursekit.specs import EP_A2A_OVERLAP_ON

    qwen = {
        run.name: run
        for run in PUBLISHED_RUNS_2025
        if run.model.startswith("qwen3-") and run.name.startswith("Megatron-Bridge")
    }
    overlapped = [run for name, run in qwen.items() if "EP 16" not in name]
    assert len(overlapped) == 5
    for run in overlapped:  # the overlap on: the share of the all-to-all it was measured to hide
        assert run.workload().overlap("ep") == EP_A2A_OVERLAP_ON == 0.48
        assert "moe_a2a_overlap=True" in run.source
    ep16 = qwen["Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, EP 16)"]
    assert ep16.workload().overlap("ep") == 0.0


def test_moe_zoo_rows_state_what_their_commands_set() -> None:
    """The Megatron-MoE-ModelZoo's Qwen3 H100 rows (e865051): sbatch_benchmarking.sh adds --tp-comm-overlap for
    PR=bf16 and --overlap-moe-expert-parallel-comm only with A2A_OVERLAP=1 (the "+1f1b overlap" row); the model
    config sets the distributed optimizer with overlapped gradient reduce and parameter gather (ZeRO-1) and counts the
    embedding and the loss as pipeline layers; DISPATCHER=deepep (all but the A2A row) sends a token once per node;
    the "norm, act" rows (and run_h100_235b.sh's 320 TFLOPS config) recompute --recompute-modules moe_act layernorm
    and nothing else."""
    from coursekit.published_runs import MOE_ZOO_QWEN3_RUNS
    from coursekit.specs import EP_A2A_OVERLAP_ON, TP_COMM_OVERLAP_ON

    assert len(MOE_ZOO_QWEN3_RUNS) == 6
    for run in MOE_ZOO_QWEN3_RUNS:
        w = run.workload()
        assert w.overlap("tp") == TP_COMM_OVERLAP_ON and w.pipeline_edge_layers == 1 and w.precision == "bf16"
        assert w.overlap("ep") == (EP_A2A_OVERLAP_ON if "1F1B overlap" in run.name else 0.0)
        assert w.ep_dedup_per_node == ("DeepEP" in run.name)
        assert w.zero_stages == ((1, 2, 3) if "FSDP" in run.name else (1,))
        norm_act = "norm, act" in run.source or "moe_act layernorm" in run.source
        assert w.recompute_modules == (("layernorm", "moe_act") if norm_act else ())
        if norm_act:  # the modules list replaces Megatron-Core's default core_attn: no recompute mode besides
            assert w.recompute_modes == ("none",)


@pytest.mark.parametrize(
    ("name", "layers", "h", "heads", "billions"), [("gpt3-5b", 24, 4096, 32, 5), ("gpt3-20b", 44, 6144, 48, 20)]
)
def test_nemo_gpt3_presets_from_launcher_config(name: str, layers: int, h: int, heads: int, billions: int) -> None:
    """NeMo-Framework-Launcher's gpt3/5b.yaml and 20b.yaml (megatron_gpt defaults: biases, LayerNorm, GELU MLP of
    width 4h, learned positions over 2048 tokens, tied embeddings; GPT-2 BPE's 50257 tokens, before padding). Per
    layer: QKV and output projections 4·h² + 4·h, MLP 8·h² + 5·h, two LayerNorms 4·h; then the token and position
    embeddings and the final LayerNorm."""
    per_layer = 4 * h * h + 4 * h + 8 * h * h + 5 * h + 4 * h
    total = layers * per_layer + 50257 * h + 2048 * h + 2 * h
    model = MODELS[name]
    assert model.num_params == total and round(total / 1e9) == billions
    assert (model.heads, model.ffn_hidden, model.seq_len, model.dropout) == (heads, 4 * h, 2048, 0.1)
    assert {5: 5047365632, 20: 20256221184}[billions] == total


def test_megatron_core_scaling_table_presets_by_hand() -> None:
    """Megatron-Core's 2024 H100 model table names each model by its size; its shapes (heads, hidden, layers),
    vocabulary 131072 and sequence 4096 give that size with Megatron-LM's defaults (biases, LayerNorm, learned
    positions, GELU MLP of width 4h) only with the output layer untied: per layer 12·h² + 13·h, then 2·V·h, 4096·h
    of positions and the final LayerNorm. Tied, the 1.7B model would have 1.49B parameters."""
    table = (
        (1.7, 16, 2048, 24), (7.1, 32, 4096, 30), (16, 48, 6144, 32), (32, 56, 7168, 48), (70, 64, 8192, 84),
        (119, 80, 10240, 92), (177, 96, 12288, 96), (314, 128, 16384, 96), (462, 144, 18432, 112),
    )  # fmt: skip
    vocab = 131072
    for size, heads, h, layers in table:
        total = layers * (12 * h * h + 13 * h) + 2 * vocab * h + 4096 * h + 2 * h
        model = MODELS[f"mcore-gpt-{size:g}b"]
        assert model.num_params == total and (model.heads, model.layers, model.vocab) == (heads, layers, vocab)
        assert abs(total / 1e9 - size) / size < 0.035  # the table's labels, truncated (1.75 -> 1.7) or rounded
        assert not model.tied_embeddings and model.seq_len == 4096 and h // heads == 128
    tied_17b = 24 * (12 * 2048**2 + 13 * 2048) + vocab * 2048 + 4096 * 2048 + 2 * 2048
    assert round(tied_17b / 1e9, 2) == 1.49
