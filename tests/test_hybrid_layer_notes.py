"""Configs whose layers are not all softmax attention, stated other than by ``layer_types``, get a note naming the
key, how many layers it concerns and what the planner counts instead (``coursekit.model_config.config_notes``).

Counts worked by hand from each configuration class's rule (transformers):
* Qwen3NextConfig: layer i is ``"linear_attention"`` unless (i + 1) is a multiple of ``full_attention_interval``;
* NemotronHConfig: ``hybrid_override_pattern`` has one character per block, M Mamba-2, - MLP, * attention, E MoE;
* MiniMax's ``attn_type_list``: one entry per layer, 0 linear (lightning) attention, 1 softmax attention.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from coursekit.model_config import config_notes
from coursekit.planner import ModelSpec

QWEN3_NEXT = {
    "architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 2048,
    "intermediate_size": 5120, "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512,
    "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
    "num_experts": 512, "num_experts_per_tok": 10, "vocab_size": 151936, "full_attention_interval": 4,
    "max_position_embeddings": 262144, "tie_word_embeddings": False, "hidden_act": "silu",
}  # fmt: skip


def _texts(config: dict, lang: str = "en") -> list[str]:
    return [note.render(lang) for note in config_notes(config)]


def test_full_attention_interval_counts_the_linear_layers() -> None:
    # 48 layers, interval 4: layers 3, 7, ..., 47 (12 of them) are full attention, 48 - 12 = 36 linear
    (note,) = [t for t in _texts(QWEN3_NEXT) if t.startswith("full_attention_interval")]
    assert "full_attention_interval=4" in note and "other 36 are linear attention" in note and "48 layers" in note
    (zh,) = [t for t in _texts(QWEN3_NEXT, "zh") if t.startswith("full_attention_interval")]
    assert "48 层" in zh and "其余 36 层是线性注意力" in zh
    # 10 layers, interval 3: full at 3, 6, 9 (i = 2, 5, 8): 7 linear
    assert "other 7 are" in _texts({"num_hidden_layers": 10, "full_attention_interval": 3})[0]


def test_a_listed_layer_types_speaks_instead_of_the_interval() -> None:
    types = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12
    texts = _texts({**QWEN3_NEXT, "layer_types": types})
    assert not any(t.startswith("full_attention_interval") for t in texts)
    assert any(t.startswith("layer_types: 36 of 48 layers are 'linear_attention'") for t in texts)


@pytest.mark.parametrize("value", [1, 0, None, "4", 4.5, True, [4]])
def test_a_neutral_or_odd_interval_gets_no_note_and_refuses_nothing(value: object) -> None:
    texts = _texts({**QWEN3_NEXT, "full_attention_interval": value})
    assert not any(t.startswith("full_attention_interval") for t in texts)


def test_hybrid_override_pattern_counts_each_block_kind() -> None:
    # "M-M*-EM*": M at 0, 2, 6 (3); - at 1, 3 (2); * at 4, 7 (2); E at 5 (1); 8 blocks
    (note,) = _texts({"num_hidden_layers": 8, "hybrid_override_pattern": "M-M-*EM*"})
    assert "of 8 blocks, 3 are Mamba (M), 2 MLP only (-), 2 attention (*) and 1 MoE (E)" in note
    (zh,) = _texts({"num_hidden_layers": 8, "hybrid_override_pattern": "M-M-*EM*"}, "zh")
    assert "8 个块中 3 个是 Mamba（M）、2 个只有 MLP（-）、2 个是注意力（*）、1 个是 MoE（E）" in zh
    assert _texts({"num_hidden_layers": 4, "hybrid_override_pattern": "****"}) == []  # all attention: nothing to say


def test_attn_type_list_counts_the_linear_layers() -> None:
    # MiniMax's pattern: seven lightning-attention layers, then one softmax layer, twice: 14 of 16 linear
    (note,) = _texts({"num_hidden_layers": 16, "attn_type_list": ([0] * 7 + [1]) * 2})
    assert note.startswith("attn_type_list: 14 of 16 layers are linear attention (0)")
    assert _texts({"num_hidden_layers": 2, "attn_type_list": [1, 1]}) == []
    assert _texts({"num_hidden_layers": 2, "attn_type_list": [True, False]}) == []  # not 0/1 integers: passed over


def test_the_spec_and_the_command_line_carry_the_note(tmp_path) -> None:
    spec = ModelSpec.from_config(QWEN3_NEXT)
    assert spec.layers == 48 and "full_attention_interval=4" in spec.source
    path = tmp_path / "config.json"
    path.write_text(json.dumps(QWEN3_NEXT))
    out = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", "--model-config", str(path), "--cluster", "h100-8",
         "--global-batch", "64", "--seq-len", "4096", "--top", "1"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    assert "full_attention_interval=4" in out and "36 are linear attention" in out
