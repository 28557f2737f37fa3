"""Model specs of today's architectures: parameter counts from the published configs, worked by hand.

The config dicts below are written from the numbers each model publishes in its config.json and paper
(Llama 3: arXiv:2407.21783 Table 3; Mixtral: arXiv:2401.04088 Table 1; DeepSeek-V3: arXiv:2412.19437 §2.1 and
§4.2, DeepSeek-V2: arXiv:2405.04434 §2.1; GPT-2: Radford et al. 2019). Every expected count is computed here from
those numbers, term by term; none is read back from coursekit.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.model_config import load_model_config
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import kv_cache_bytes
from coursekit.specs import ModelSpec, WorkloadSpec

LLAMA3 = {
    "model_type": "llama",
    "hidden_act": "silu",
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "attention_dropout": 0.0,
    "rms_norm_eps": 1e-5,
    "num_key_value_heads": 8,
}
LLAMA3_8B = {**LLAMA3, "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
             "num_hidden_layers": 32, "max_position_embeddings": 8192}  # fmt: skip
LLAMA3_70B = {**LLAMA3, "hidden_size": 8192, "intermediate_size": 28672, "num_attention_heads": 64,
              "num_hidden_layers": 80, "max_position_embeddings": 8192}  # fmt: skip
LLAMA3_405B = {**LLAMA3, "hidden_size": 16384, "intermediate_size": 53248, "num_attention_heads": 128,
               "num_hidden_layers": 126, "max_position_embeddings": 131072}  # fmt: skip
MIXTRAL = {"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
           "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 32000, "max_position_embeddings": 32768,
           "num_local_experts": 8, "num_experts_per_tok": 2, "hidden_act": "silu",
           "tie_word_embeddings": False}  # fmt: skip
DEEPSEEK_V3 = {"model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432,
               "moe_intermediate_size": 2048, "num_hidden_layers": 61, "num_attention_heads": 128,
               "num_key_value_heads": 128, "n_shared_experts": 1, "n_routed_experts": 256, "num_experts_per_tok": 8,
               "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
               "qk_nope_head_dim": 128, "v_head_dim": 128, "vocab_size": 129280, "max_position_embeddings": 163840,
               "hidden_act": "silu", "tie_word_embeddings": False}  # fmt: skip
GPT2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024,
        "resid_pdrop": 0.1, "attn_pdrop": 0.1}  # fmt: skip


def llama_params(h: int, f: int, a: int, kv: int, layers: int, vocab: int) -> int:
    hd = h // a
    attention = h * a * hd + 2 * h * kv * hd + a * hd * h  # Q, K, V, O (no biases)
    mlp = 3 * h * f  # gate, up, down
    norms = 2 * h  # two RMSNorm scales
    return layers * (attention + mlp + norms) + 2 * vocab * h + h  # untied embedding and output, final norm


@pytest.mark.parametrize(
    ("config", "preset", "published"),
    [
        (LLAMA3_8B, "llama3-8b", 8.03e9),
        (LLAMA3_70B, "llama3-70b", 70.6e9),
        (LLAMA3_405B, "llama3-405b", 405.9e9),
    ],
)
def test_llama3_counts_from_config(config: dict[str, Any], preset: str, published: float) -> None:
    expected = llama_params(
        config["hidden_size"],
        config["intermediate_size"],
        config["num_attention_heads"],
        config["num_key_value_heads"],
        config["num_hidden_layers"],
        config["vocab_size"],
    )
    model = ModelSpec.from_config(config)
    assert model.num_params == expected == MODELS[preset].num_params
    assert round(expected / 1e9, 2 if published < 1e10 else 1) == published / 1e9
    assert model.attention_kind == "gqa" and model.mlp == "swiglu" and model.dropout == 0


def test_mixtral_total_and_active_from_config() -> None:
    h, f, a, kv, layers, vocab, experts, k = 4096, 14336, 32, 8, 32, 32000, 8, 2
    hd = h // a
    attention = 2 * h * a * hd + 2 * h * kv * hd
    expert = 3 * h * f
    per_layer = attention + experts * expert + h * experts + 2 * h  # experts, router, two norms
    total = layers * per_layer + 2 * vocab * h + h
    active = total - layers * (experts - k) * expert
    model = ModelSpec.from_config(MIXTRAL)
    assert (model.num_params, model.active_params) == (total, active)
    assert (round(total / 1e9, 1), round(active / 1e9, 1)) == (46.7, 12.9)  # Jiang et al. 2024, §2
    assert MODELS["mixtral-8x7b"].num_params == total


def test_deepseek_v3_mla_shared_expert_dense_first_layers() -> None:
    h, a, layers, vocab = 7168, 128, 61, 129280
    q_rank, kv_rank, rope, nope, v = 1536, 512, 64, 128, 128
    # MLA (DeepSeek-V2 §2.1.2-2.1.3): W_DQ, the q latent's RMSNorm, W_UQ (nope + rope per head); W_DKV with the
    # shared rope key W_KR, the kv latent's RMSNorm, W_UK and W_UV; W_O.
    attention = h * q_rank + q_rank + q_rank * a * (nope + rope) + h * (kv_rank + rope) + kv_rank
    attention += kv_rank * a * (nope + v) + a * v * h
    dense_mlp = 3 * h * 18432  # the first 3 layers (first_k_dense_replace)
    expert = 3 * h * 2048  # moe_intermediate_size
    moe_mlp = 256 * expert + 1 * expert + h * 256  # routed, shared, router
    total = layers * (attention + 2 * h) + 3 * dense_mlp + 58 * moe_mlp + 2 * vocab * h + h
    active = total - 58 * (256 - 8) * expert
    model = ModelSpec.from_config(DEEPSEEK_V3)
    assert (model.num_params, model.active_params) == (total, active)
    assert (round(total / 1e9), round(active / 1e9)) == (671, 38)  # the report: 671B total, 37B activated
    assert MODELS["deepseek-v3"].num_params == total and MODELS["deepseek-v3"].active_params == active
    assert model.attention_kind == "mla" and model.moe_layers == 58


def test_gpt2_from_config_is_gpt_style() -> None:
    model = ModelSpec.from_config(GPT2)
    # Radford et al. 2019: 124M; tied embeddings, learned positions, biases, LayerNorm, GELU MLP of 4h
    h, L, V, s = 768, 12, 50257, 1024
    per_layer = 4 * h * h + 4 * h + 2 * h * 4 * h + 4 * h + h + 2 * 2 * h
    assert model.num_params == L * per_layer + V * h + s * h + 2 * h == 124439808
    assert (model.mlp, model.norm, model.position, model.dropout) == ("gelu", "layernorm", "learned", 0.1)


def test_mla_kv_cache_is_the_latent_plus_the_rope_key() -> None:
    # DeepSeek-V2 Table 1: MLA caches (d_c + d_h^R)·l elements per token; with d_c = 4·d_h and d_h^R = d_h/2 that
    # is 4.5·d_h·l. DeepSeek-V3: d_c = 512, d_h^R = 64 (d_h = 128): 576 per layer, on every TP rank.
    model = MODELS["deepseek-v3"]
    assert model.kv_cache_elements_per_token() == 512 + 64 == 4.5 * 128
    assert model.kv_cache_elements_per_token(8) == 576
    assert kv_cache_bytes(model, tokens=1000, tp=8) == 1000 * 61 * 576 * 2
    # the same model with plain multi-head attention would cache 2·128 heads·128 per layer: 56.9x more
    assert 2 * 128 * 128 / 576 == pytest.approx(56.9, abs=0.05)
    # GQA: 2 · ceil(kv_heads / tp) · head_dim
    assert MODELS["llama3-70b"].kv_cache_elements_per_token(16) == 2 * 1 * 128


def test_mla_attention_flops_width() -> None:
    # Attention's two matmuls per token and layer, forward: QKᵀ 2·s·a·(d_nope + d_rope), AV 2·s·a·d_v (DeepSeek-V2
    # §2.1.3: queries and keys are d_h + d_h^R wide). PaLM's 4·s·h form therefore has h = a·(d_qk + d_v)/2.
    assert MODELS["deepseek-v3"].attention_flops_width == 128 * (128 + 64 + 128) // 2 == 20480
    assert MODELS["llama3-70b"].attention_flops_width == 8192


def test_deepseek_v3_layer_widths_by_hand() -> None:
    w = MODELS["deepseek-v3"].layer_widths()
    # MoE layer: 8 routed copies of each token save the expert input and output (2h each copy) and 3·2048 inner;
    # the shared expert another 3·2048; the router's 256 fp32 probabilities count as 512 bf16 elements.
    assert w.mlp_split == 8 * 3 * 2048 + 3 * 2048
    assert w.mlp_replicated == 8 * 2 * 7168 + 2 * 256
    assert (w.kv_heads, w.qk_head_dim, w.v_head_dim) == (128, 192, 128)
    assert w.latent_width == 2 * 1536 + 2 * 512  # each latent's norm input and output
    padded = dataclasses.replace(MODELS["deepseek-v3"], capacity_factor=1.25).layer_widths()
    assert padded.mlp_split == 1.25 * 8 * 3 * 2048 + 3 * 2048


def test_replace_keeps_a_valid_spec_and_mla_fields_need_mla() -> None:
    model = dataclasses.replace(MODELS["llama3-8b"], name="copy")
    assert model.head_dim == 128 and model.v_head_dim == 128
    with pytest.raises(ValueError, match="v_head_dim = 64: belongs to multi-head latent attention"):
        ModelSpec("x", 2, 1024, 8, 4096, 1000, 128, v_head_dim=64)
    assert ModelSpec("gemma-like", 2, 1024, 8, 4096, 1000, 128, head_dim=256).attention_params_per_layer == (
        2 * 1024 * 8 * 256 + 2 * 1024 * 8 * 256
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**LLAMA3_8B, "hidden_size": None}, "no key 'hidden_size' (also accepted: n_embd, d_model)"),
        ({**LLAMA3_8B, "num_hidden_layers": "32"}, "'num_hidden_layers' = '32': must be an integer >= 1"),
        ({**LLAMA3_8B, "tie_word_embeddings": "no"}, "'tie_word_embeddings' = 'no': must be true or false"),
        ({**LLAMA3_8B, "attention_dropout": 2}, "'attention_dropout' = 2: must be a number from 0 to 1"),
        ({**MIXTRAL, "num_experts_per_tok": None}, "no key 'num_experts_per_tok'"),
        ({k: v for k, v in LLAMA3_8B.items() if k != "intermediate_size"}, "no key 'intermediate_size'"),
    ],
)
def test_bad_config_names_the_key(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ModelSpec.from_config(config)


def test_bad_config_in_chinese_and_not_a_mapping() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        ModelSpec.from_config({**LLAMA3_8B, "vocab_size": None})
    assert str(info.value).startswith("模型配置缺少键 'vocab_size'（也接受：padded_vocab_size）。")
    coursekit.set_language("en")
    with pytest.raises(TypeError, match="must be a JSON object"):
        ModelSpec.from_config([1, 2])


def test_load_model_config_file_errors(tmp_path: Path) -> None:
    good = tmp_path / "config.json"
    good.write_text(json.dumps(LLAMA3_8B), encoding="utf-8")
    assert ModelSpec.from_config(load_model_config(good)).num_params == MODELS["llama3-8b"].num_params
    broken = tmp_path / "broken.json"
    broken.write_text('{"hidden_size": 4096,\n "num_hidden_layers": }', encoding="utf-8")
    with pytest.raises(ValueError, match="is not valid JSON: line 2, column 23"):
        load_model_config(broken)
    with pytest.raises(ValueError, match="does not exist"):
        load_model_config(tmp_path / "missing.json")


def test_fp8_peak_and_refusal() -> None:
    # H100 SXM datasheet: FP8 3,958 TFLOP/s with sparsity -> 1,979 dense; A100 has no FP8 tensor cores.
    assert CLUSTERS["h100-8"].peak("fp8") == 1979e12 and CLUSTERS["h800-8"].peak("fp8") == 1979e12
    with pytest.raises(ValueError, match="no FP8 tensor cores"):
        CLUSTERS["a100-8"].peak("fp8")
    with pytest.raises(ValueError, match="precision = 'fp4'"):
        WorkloadSpec(global_batch=8, precision="fp4")


def test_fp8_peak_mix_by_hand() -> None:
    # fp8: the layers' linear GEMMs at the FP8 peak; attention's core (PaLM's 12·L·h·s per token) and the output
    # layer (6·V·h per token: Megatron-Core's output layer is tensor_parallel.ColumnParallelLinear, outside
    # Transformer Engine's fp8_autocast) at bf16.
    import numpy as np

    from coursekit.planner.estimate import precision_peak_flops

    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"]
    s, L, h, n, vocab = 8192, 32, 4096, MODELS["llama3-8b"].active_params, 128256
    # Causal flash attention: each counted FLOP of the core costs 0.5 / rate linear-layer FLOPs, rate from
    # FlashAttention-3's H100 bars at 8K tokens (forward 646, backward 559 TFLOP/s, backward = 2.5 forwards) over 792.1.
    weight = 0.5 / (3 / (1 / 646 + 2 / (559 * 0.8)) / 792.1)
    executed = 6 * n + 12 * L * h * s * weight  # no recomputation; the count the estimate charges
    at_bf16 = (12 * L * h * s * weight + 6 * vocab * h) / executed
    expected = 1 / (at_bf16 / 989e12 + (1 - at_bf16) / 1979e12)
    # By hand: 6·N = 48.18e9, 12·L·h·s = 12.88e9 (x 0.795 = 10.24e9), 6·V·h = 3.152e9: 13.39e9 of 58.42e9 at bf16.
    assert at_bf16 == pytest.approx(0.2292, abs=1e-4)
    # at face value (the datasheet's doubling kept whole: fp8_matmul_share = 1)
    workload = WorkloadSpec(global_batch=8, seq_len=s, precision="fp8", fp8_matmul_share=1.0)
    assert precision_peak_flops(model, cluster, workload, executed, np.asarray(0)) == pytest.approx(expected)
    # keeping half the speed-up runs the linear GEMMs at 1979 / 2 = 989.5 TFLOP/s: the mix is then about the bf16 peak
    half = WorkloadSpec(global_batch=8, seq_len=s, precision="fp8", fp8_matmul_share=0.5)
    expected_half = 1 / (at_bf16 / 989e12 + (1 - at_bf16) / 989.5e12)
    assert precision_peak_flops(model, cluster, half, executed, np.asarray(0)) == pytest.approx(expected_half)
    assert expected_half == pytest.approx(989.4e12, rel=1e-4)
    bf16 = WorkloadSpec(global_batch=8, seq_len=s)
    assert precision_peak_flops(model, cluster, bf16, executed, np.asarray(0)) == 989e12


#: Llama 4 Scout's config.json (meta-llama/Llama-4-Scout-17B-16E): the language model sits under text_config.
LLAMA4_SCOUT: dict[str, Any] = {
    "model_type": "llama4",
    "text_config": {
        "model_type": "llama4_text",
        "hidden_size": 5120,
        "num_hidden_layers": 48,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "num_local_experts": 16,
        "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 1,
        "vocab_size": 202048,
        "max_position_embeddings": 10485760,
        "tie_word_embeddings": False,
    },
}
#: Qwen2-57B-A14B's config.json: 64 experts of 2560, top-8, one shared expert MLP of 20480 = 8 expert widths.
QWEN2_57B: dict[str, Any] = {
    "model_type": "qwen2_moe",
    "hidden_size": 3584,
    "num_hidden_layers": 28,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "intermediate_size": 18944,
    "moe_intermediate_size": 2560,
    "shared_expert_intermediate_size": 20480,
    "num_experts": 64,
    "num_experts_per_tok": 8,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "vocab_size": 151936,
    "max_position_embeddings": 32768,
    "tie_word_embeddings": False,
}


def test_llama4_scout_from_its_text_config_by_hand() -> None:
    """Every layer: attention (Q and O 5120 x 5120, K and V 5120 x 1024), 2 norms, 16 experts and 1 shared expert
    of 3 x 5120 x 8192 (transformers' Llama4TextMoe), a 5120 x 16 router; untied 202048 x 5120 embeddings. Meta
    states 17B active parameters (109B in all, vision encoder included)."""
    m = coursekit.ModelSpec.from_config(LLAMA4_SCOUT)
    layer = 2 * 5120 * 5120 + 2 * 5120 * 1024 + 2 * 5120
    expert = 3 * 5120 * 8192
    edges = 5120 + 2 * 202048 * 5120
    assert (m.num_experts, m.top_k, m.shared_experts, m.moe_ffn_hidden, m.ffn_hidden) == (16, 1, 1, 8192, 16384)
    assert m.num_params == 48 * (layer + 17 * expert + 5120 * 16) + edges
    assert m.active_params == 48 * (layer + 2 * expert + 5120 * 16) + edges
    assert round(m.active_params / 1e9) == 17


def test_qwen2_moe_shared_expert_width_in_expert_widths() -> None:
    """Qwen2 technical report (arXiv:2407.10671), Table 1: 57B parameters, 14B activated."""
    m = coursekit.ModelSpec.from_config(QWEN2_57B)
    assert m.shared_experts == 8 and m.first_k_dense == 0
    assert (round(m.num_params / 1e9), round(m.active_params / 1e9)) == (57, 14)
    assert coursekit.ModelSpec.from_config({**QWEN2_57B, "mlp_only_layers": [0, 1]}).first_k_dense == 2


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {**LLAMA4_SCOUT, "text_config": {**LLAMA4_SCOUT["text_config"], "interleave_moe_layer_step": 2}},
            "'interleave_moe_layer_step' = 2: the spec can only express a MoE layer in every layer",
        ),
        ({**QWEN2_57B, "decoder_sparse_step": 2}, "'decoder_sparse_step' = 2"),
        ({**QWEN2_57B, "shared_expert_intermediate_size": 5000}, "must be a whole multiple of the expert width 2560"),
        ({**QWEN2_57B, "mlp_only_layers": [3]}, "'mlp_only_layers' = \\[3\\]: the dense layers must be the first"),
    ],
)
def test_moe_configs_the_spec_cannot_express_are_refused(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        coursekit.ModelSpec.from_config(config)
    coursekit.set_language("zh")
    try:
        with pytest.raises(ValueError, match="模型配置的"):
            coursekit.ModelSpec.from_config(config)
    finally:
        coursekit.set_language("en")


# The four MoE presets of Megatron-Core's MoE model zoo that the course adds: their configs as published, and their
# totals worked by hand. DeepSeek's "activated" counts match ours without the input embedding (a lookup, not a
# matmul): DeepSeek-V3 37.55B - 129280 x 7168 = 36.6B, its report's 37B; V2 and V2-Lite below.
MIXTRAL_8X22B = {**MIXTRAL, "hidden_size": 6144, "intermediate_size": 16384, "num_attention_heads": 48,
                 "num_hidden_layers": 56, "vocab_size": 32768, "max_position_embeddings": 65536}  # fmt: skip
DEEPSEEK_V2 = {**DEEPSEEK_V3, "model_type": "deepseek_v2", "hidden_size": 5120, "intermediate_size": 12288,
               "moe_intermediate_size": 1536, "num_hidden_layers": 60, "num_attention_heads": 128,
               "num_key_value_heads": 128, "n_shared_experts": 2, "n_routed_experts": 160, "num_experts_per_tok": 6,
               "first_k_dense_replace": 1, "vocab_size": 102400, "max_position_embeddings": 4096}  # fmt: skip
DEEPSEEK_V2_LITE = {**DEEPSEEK_V2, "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
                    "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16,
                    "n_routed_experts": 64, "q_lora_rank": None}  # fmt: skip


def _mla_attention(h: int, a: int, q_rank: int | None) -> int:
    """MLA's weights (DeepSeek-V2 §2.1.2-2.1.3): the query path (W_DQ, its norm, W_UQ; or one W_Q without query
    compression), W_DKV with the shared rope key, the kv latent's norm, W_UK and W_UV, and W_O."""
    kv_rank, rope, nope, v = 512, 64, 128, 128
    query = h * q_rank + q_rank + q_rank * a * (nope + rope) if q_rank else h * a * (nope + rope)
    return query + h * (kv_rank + rope) + kv_rank + kv_rank * a * (nope + v) + a * v * h


@pytest.mark.parametrize(
    ("config", "preset", "dense_width", "q_rank", "published"),
    [
        (DEEPSEEK_V2, "deepseek-v2", 12288, 1536, (236, 21)),
        (DEEPSEEK_V2_LITE, "deepseek-v2-lite", 10944, None, (15.7, 2.4)),
    ],
)
def test_deepseek_v2_counts_by_hand(
    config: dict[str, Any], preset: str, dense_width: int, q_rank: int | None, published: tuple[float, float]
) -> None:
    h, a, layers, vocab = config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"], 102400
    experts, width = config["n_routed_experts"], config["moe_intermediate_size"]
    expert = 3 * h * width
    moe_mlp = experts * expert + 2 * expert + h * experts  # routed, 2 shared, router
    total = layers * (_mla_attention(h, a, q_rank) + 2 * h) + 3 * h * dense_width + (layers - 1) * moe_mlp
    total += 2 * vocab * h + h
    active = total - (layers - 1) * (experts - 6) * expert
    model = ModelSpec.from_config(config)
    assert (model.num_params, model.active_params) == (total, active)
    assert (MODELS[preset].num_params, MODELS[preset].active_params) == (total, active)
    digits = 0 if published[0] > 100 else 1
    assert round(total / 1e9, digits) == published[0]
    # activated without the input embedding: 20.85B (printed 21B) and 2.451B (printed 2.4B), within 3 %
    assert (active - vocab * h) / 1e9 == pytest.approx(published[1], rel=0.03)
    assert model.attention_kind == "mla" and model.moe_layers == layers - 1


def test_mixtral_8x22b_counts_by_hand() -> None:
    h, f, a, kv, layers, vocab, experts = 6144, 16384, 48, 8, 56, 32768, 8
    attention = 2 * h * a * (h // a) + 2 * h * kv * (h // a)
    expert = 3 * h * f
    total = layers * (attention + experts * expert + h * experts + 2 * h) + 2 * vocab * h + h
    active = total - layers * (experts - 2) * expert
    assert (ModelSpec.from_config(MIXTRAL_8X22B).num_params, MODELS["mixtral-8x22b"].num_params) == (total, total)
    assert MODELS["mixtral-8x22b"].active_params == active
    assert (round(total / 1e9), round(active / 1e9)) == (141, 39)  # Mistral AI: 141B parameters, 39B active


def test_qwen2_57b_preset_by_hand() -> None:
    h, a, kv, layers, vocab, experts, width = 3584, 28, 4, 28, 151936, 64, 2560
    attention = 2 * h * a * 128 + 2 * h * kv * 128
    # Qwen2-MoE's attention has biases on q_proj, k_proj and v_proj (bias=True in transformers' modeling file):
    # a·128 + 2·kv·128 a layer, in the preset as in the config.json read
    qkv_biases = a * 128 + 2 * kv * 128
    expert = 3 * h * width
    total = layers * (attention + qkv_biases + experts * expert + 8 * expert + h * experts + 2 * h) + 2 * vocab * h + h
    active = total - layers * (experts - 8) * expert
    model = MODELS["qwen2-57b-a14b"]
    assert (model.num_params, model.active_params) == (total, active)
    assert ModelSpec.from_config(QWEN2_57B).num_params == total
    # the shared expert's one-output gate (h weights a layer) is the only tensor left out: with it, the count
    # rounds to the "57.4B" of the model card (Hugging Face Qwen/Qwen2-57B-A14B)
    assert round((total + layers * h) / 1e8) == 574
    assert (round(total / 1e9), round(active / 1e9)) == (57, 14)


# Falcon's configs (Hugging Face tiiuae/falcon-7b and falcon-40b config.json): GPT-style layers (LayerNorm, a GELU
# MLP of 4h) without biases ("bias": false), tied embeddings, no length key; multi-query attention in the 7B
# ("multi_query": true, one K/V head), 8 K/V heads in the 40B ("num_kv_heads").
FALCON_7B = {"model_type": "falcon", "vocab_size": 65024, "hidden_size": 4544, "num_hidden_layers": 32,
             "num_attention_heads": 71, "multi_query": True, "parallel_attn": True, "bias": False}  # fmt: skip
FALCON_40B = {"model_type": "falcon", "vocab_size": 65024, "hidden_size": 8192, "num_hidden_layers": 60,
              "num_attention_heads": 128, "num_kv_heads": 8, "new_decoder_architecture": True,
              "bias": False}  # fmt: skip


@pytest.mark.parametrize(("config", "kv"), [(FALCON_7B, 1), (FALCON_40B, 8)])
def test_falcon_configs_by_hand(config: dict[str, Any], kv: int) -> None:
    h, a, layers, vocab = config["hidden_size"], config["num_attention_heads"], config["num_hidden_layers"], 65024
    hd = h // a
    attention = 2 * h * a * hd + 2 * h * kv * hd  # Q and O, K and V
    mlp = 2 * h * 4 * h
    norms = 2 * 2 * h  # two LayerNorms (scale and bias) per layer, as the spec counts every layer
    model = ModelSpec.from_config(config)
    assert (model.kv_heads, model.biases, model.seq_len, model.tied_embeddings) == (kv, False, 2048, True)
    assert model.num_params == layers * (attention + mlp + norms) + vocab * h + 2 * h
    with pytest.raises(ValueError, match="'num_kv_heads' = 0"):
        ModelSpec.from_config({**config, "num_kv_heads": 0})
