"""MoE keys under other names: ERNIE 4.5's (transformers' Ernie4_5_MoeConfig: moe_num_experts, moe_k,
moe_num_shared_experts, moe_layer_start_index, moe_layer_interval, moe_layer_end_index) and Jamba's
expert_layer_period, and a config read as dense that names experts under a key the reader does not take.

The ERNIE 4.5 300B-A47B dimensions are its model card's: 54 layers, hidden 8192, 64 query and 8 KV heads, 64 experts
of width 3584 with 8 per token, the first 3 layers dense (width 28672), vocabulary 103424; "A47B": about 47B
parameters active per token.
"""

from __future__ import annotations

import pytest

import coursekit
from coursekit.planner import ModelSpec

ERNIE = {
    "architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "hidden_size": 8192,
    "intermediate_size": 28672, "max_position_embeddings": 131072, "moe_intermediate_size": 3584, "moe_k": 8,
    "moe_layer_interval": 1, "moe_layer_start_index": 3, "moe_layer_end_index": 53, "moe_num_experts": 64,
    "moe_num_shared_experts": 0, "num_attention_heads": 64, "num_hidden_layers": 54, "num_key_value_heads": 8,
    "tie_word_embeddings": False, "use_bias": False, "vocab_size": 103424, "hidden_act": "silu",
}  # fmt: skip


def test_ernie_45_reads_as_a_mixture_of_experts() -> None:
    spec = ModelSpec.from_config(ERNIE)
    assert (spec.num_experts, spec.top_k, spec.first_k_dense, spec.shared_experts) == (64, 8, 3, 0)
    assert spec.moe_ffn_hidden == 3584 and spec.ffn_hidden == 28672 and spec.kv_heads == 8
    # the card's "A47B": about 47B parameters active per token
    assert spec.active_params == pytest.approx(47e9, rel=0.02)
    # -1 as the end index means "to the last layer" too
    assert ModelSpec.from_config({**ERNIE, "moe_layer_end_index": -1}) == spec


@pytest.mark.parametrize(
    ("key", "value", "text"),
    [
        ("moe_layer_interval", 2, "needs 1"),
        ("moe_layer_end_index", 40, "the last layer (53) or -1"),
    ],
)
def test_spaced_or_ending_moe_layers_are_refused_naming_the_key(key: str, value: int, text: str) -> None:
    with pytest.raises(ValueError, match=f"'{key}' = {value}") as refused:
        ModelSpec.from_config({**ERNIE, key: value})
    assert text in str(refused.value)


def test_jamba_expert_period_is_refused() -> None:
    config = {**ERNIE, "expert_layer_period": 2}
    with pytest.raises(ValueError, match="'expert_layer_period' = 2"):
        ModelSpec.from_config(config)


def test_experts_under_an_unread_key_are_refused_not_read_as_dense() -> None:
    dense_named = {k: v for k, v in ERNIE.items() if k != "moe_num_experts"}
    dense_named["num_total_experts"] = 64
    with pytest.raises(ValueError, match="'num_total_experts' = 64 names experts") as refused:
        ModelSpec.from_config(dense_named)
    assert "moe_num_experts" in str(refused.value) and "num_experts_per_tok" in str(refused.value)
    coursekit.set_language("zh")  # the autouse fixture restores English
    with pytest.raises(ValueError, match="说的是专家"):
        ModelSpec.from_config(dense_named)
    coursekit.set_language("en")
    # 0 or 1 experts, or a flag, say nothing about a mixture: read as dense as before (without ERNIE's top-k, moe_k = 8,
    # which routes each token to 8 experts: refused with no expert count, tests/test_fuzz_regressions17.py)
    for value in (0, 1, True):
        dense = {k: v for k, v in dense_named.items() if k not in ("num_total_experts", "moe_k")}
        assert ModelSpec.from_config({**dense, "num_total_experts": value}).num_experts == 0
