"""Inputs a seventh adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The rules: bad input is a ``TypeError`` / ``ValueError`` naming the parameter, the value and the rule in the learner's
language (no English fragment in a Chinese message); a real Hugging Face ``config.json`` the docstrings say is read
is read as transformers reads it. The expected values come from those rules and from the sources named in each test
(transformers' configuration classes, the published config files), not from running the code.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from coursekit.i18n import get_language, set_language
from coursekit.model_config import config_notes, load_model_config
from coursekit.planner import ModelSpec

CJK = re.compile(r"[\u4e00-\u9fff]")
#: ASCII words of Python's JSON decoder (json.decoder / _json), which must not reach a Chinese message.
DECODER_WORDS = re.compile(r"Expecting|delimiter|Unterminated|Invalid|Extra data|Exceeds the limit")


@pytest.fixture
def zh() -> Any:
    before = get_language()
    set_language("zh")
    yield
    set_language(before)


@pytest.mark.parametrize(
    "text",
    [
        "",  # an empty file
        "hello",
        '{"hidden_size" 64}',
        '{"hidden_size": 64 "num_hidden_layers": 2}',
        '{"model_type": "llama',
        '{"model_type": "llama"} trailing',
        '{"model_type": "\\q"}',
        "{'hidden_size': 64}",
    ],
)
def test_json_syntax_errors_are_said_in_chinese(tmp_path: Path, text: str, zh: Any) -> None:
    """The line and column were localized, the decoder's reason ("Expecting value") was not."""
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_model_config(path)
    message = str(info.value)
    assert CJK.search(message) and "第 1 行" in message
    assert not DECODER_WORDS.search(message), message


def test_json_reason_in_english_names_what_was_expected(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size" 64}', encoding="utf-8")
    with pytest.raises(ValueError, match=r"not valid JSON: line 1, column 16, a ':' was expected here\.$"):
        load_model_config(path)


def test_an_integer_past_pythons_digit_limit_is_said_in_chinese(tmp_path: Path, zh: Any) -> None:
    """Python refuses to convert an integer of more than sys.get_int_max_str_digits() digits (4300 by default)."""
    path = tmp_path / "config.json"
    path.write_text('{"hidden_size": ' + "9" * (sys.get_int_max_str_digits() + 1) + "}", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_model_config(path)
    message = str(info.value)
    assert CJK.search(message) and str(sys.get_int_max_str_digits()) in message
    assert not DECODER_WORDS.search(message), message


#: google/gemma-3-27b-it's config.json as published: the text_config states neither vocab_size nor
#: max_position_embeddings nor sliding_window_pattern (transformers' Gemma3TextConfig supplies 262_208, 131_072, 6).
GEMMA3_27B: dict[str, Any] = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "mm_tokens_per_image": 256,
    "text_config": {
        "head_dim": 128,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "model_type": "gemma3_text",
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
        "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "vision_config": {"hidden_size": 1152, "model_type": "siglip_vision_model", "num_hidden_layers": 27},
}


def test_gemma3_published_config_reads_with_transformers_defaults() -> None:
    """Before, the published file was refused ("no key 'vocab_size'") though the module says Gemma 3 is read."""
    m = ModelSpec.from_config(GEMMA3_27B)
    assert (m.vocab, m.seq_len, m.tied_embeddings, m.layers, m.kv_heads) == (262_208, 131_072, True, 62, 16)
    # every 6th layer is global (Gemma3TextConfig's sliding_window_pattern = 6): 62 - 62 // 6 = 52 windowed layers
    (note,) = config_notes(GEMMA3_27B)
    assert "on 52 of 62 layers" in note.render("en")
    # a value the file states wins over the default
    stated = {**GEMMA3_27B, "text_config": {**GEMMA3_27B["text_config"], "vocab_size": 262_144}}
    assert ModelSpec.from_config(stated).vocab == 262_144


#: meta-llama/Llama-4-Scout-17B-16E's config.json as published: tie_word_embeddings sits beside text_config, not in
#: it; transformers' Llama4TextConfig defaults it to False.
LLAMA4_SCOUT: dict[str, Any] = {
    "model_type": "llama4",
    "text_config": {
        "attention_chunk_size": 8192,
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 5120,
        "interleave_moe_layer_step": 1,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "max_position_embeddings": 10485760,
        "model_type": "llama4_text",
        "no_rope_layers": [],
        "num_attention_heads": 40,
        "num_experts_per_tok": 1,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "num_local_experts": 16,
        "vocab_size": 202048,
    },
    "tie_word_embeddings": False,
}


def test_llama4_published_config_has_an_untied_output_layer() -> None:
    """Before, the absent key read as Hugging Face's generic default (tied): 202048 x 5120 = 1,034,485,760 parameters
    short of Meta's model."""
    m = ModelSpec.from_config(LLAMA4_SCOUT)
    assert m.tied_embeddings is False
    layer = 2 * 5120 * 5120 + 2 * 5120 * 1024 + 2 * 5120  # attention and two RMSNorms
    expert = 3 * 5120 * 8192
    assert m.num_params == 48 * (layer + 17 * expert + 5120 * 16) + 5120 + 2 * 202048 * 5120
    flat = ModelSpec.from_config(LLAMA4_SCOUT["text_config"])  # a text-only llama4_text config.json
    assert flat.num_params == m.num_params
    tied = {**LLAMA4_SCOUT["text_config"], "tie_word_embeddings": True}
    assert m.num_params - ModelSpec.from_config(tied).num_params == 202048 * 5120


def test_published_configs_load_from_file(tmp_path: Path) -> None:
    for name, config in (("gemma3", GEMMA3_27B), ("llama4", LLAMA4_SCOUT)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        assert ModelSpec.from_config(load_model_config(path)) == ModelSpec.from_config(config)


#: THUDM/chatglm3-6b's config.json: ChatGLM names its key/value groups multi_query_group_num (2), read by its
#: modeling_chatglm.py only when multi_query_attention is true; its embedding and output layer are padded_vocab_size
#: wide.
CHATGLM3_6B: dict[str, Any] = {
    "model_type": "chatglm",
    "add_bias_linear": False,
    "add_qkv_bias": True,
    "ffn_hidden_size": 13696,
    "hidden_size": 4096,
    "kv_channels": 128,
    "layernorm_epsilon": 1e-05,
    "multi_query_attention": True,
    "multi_query_group_num": 2,
    "num_attention_heads": 32,
    "num_layers": 28,
    "padded_vocab_size": 65024,
    "rmsnorm": True,
    "seq_length": 8192,
    "tie_word_embeddings": False,
    "vocab_size": 65024,
}


def test_chatglm_key_value_groups_are_read() -> None:
    """Before, the config loaded as multi-head attention (32 key/value heads): K and V 16 times too wide, 880 M
    parameters too many and a KV cache 16 times too large. THUDM states 6.24 B parameters (6,243,584,000 with the
    query/key/value biases the spec leaves out: 28 x 4608)."""
    m = ModelSpec.from_config(CHATGLM3_6B)
    assert (m.kv_heads, m.mlp, m.norm) == (2, "swiglu", "rmsnorm")
    h, kv, f, v = 4096, 2 * 128, 13696, 65024
    layer = h * (h + 2 * kv) + h * h + 3 * h * f + 2 * h
    assert m.num_params == 28 * layer + 2 * v * h + h
    assert round(m.num_params / 1e9, 2) == 6.24
    # without multi_query_attention the groups are not used (every head has its own keys and values)
    assert ModelSpec.from_config({**CHATGLM3_6B, "multi_query_attention": False}).kv_heads == 32


def test_chatglm_padded_vocabulary_is_read() -> None:
    """GLM-4-9B-chat's config.json names only padded_vocab_size (151552); it was refused as having no vocab_size."""
    config = {key: value for key, value in CHATGLM3_6B.items() if key != "vocab_size"}
    assert ModelSpec.from_config({**config, "padded_vocab_size": 151552}).vocab == 151552


#: baichuan-inc/Baichuan2-13B-Base's config.json: ALiBi positions, so no max_position_embeddings; its
#: modeling_baichuan.py builds the ALiBi mask for model_max_length (4096) tokens.
BAICHUAN2_13B: dict[str, Any] = {
    "model_type": "baichuan",
    "hidden_act": "silu",
    "hidden_size": 5120,
    "intermediate_size": 13696,
    "model_max_length": 4096,
    "num_attention_heads": 40,
    "num_hidden_layers": 40,
    "rms_norm_eps": 1e-06,
    "tie_word_embeddings": False,
    "vocab_size": 125696,
}


def test_baichuan2_13b_length_is_read() -> None:
    """Before, the published file was refused: no key 'max_position_embeddings'."""
    m = ModelSpec.from_config(BAICHUAN2_13B)
    assert m.seq_len == 4096
    layer = 4 * 5120 * 5120 + 3 * 5120 * 13696 + 2 * 5120
    assert m.num_params == 40 * layer + 2 * 125696 * 5120 + 5120  # Baichuan states 13.9 B
    assert round(m.num_params / 1e9, 1) == 13.9


def test_serving_plan_ties_follow_the_serving_rank_with_a_lighter_replica() -> None:
    """3 requests on 2 replicas: one replica serves 2, the other 1. The serving search ranks by every replica's
    tokens/s per GPU (the lighter one at its own batch), the planner grouped ties by the full replica's alone, so
    the values were out of order and ``to_dict`` / ``tie_groups`` raised "step_s must be sorted ascending"."""
    from coursekit.planner import WorkloadSpec, plan
    from coursekit.presets import CLUSTERS
    from coursekit.serving import TIE_TOLERANCE

    model = ModelSpec(name="tiny", layers=32, hidden=64, heads=8, ffn_hidden=199, vocab=50257, seq_len=2)
    workload = WorkloadSpec(global_batch=3, seq_len=4096, mode="serving")
    result = plan(model, CLUSTERS["h800-8"].with_nodes(4), workload)
    accepted = result.accepted()
    assert any(c.replicas > 1 and 3 % c.replicas for c in accepted)  # a layout with a lighter replica is ranked
    json.dumps(result.to_dict(top=5), allow_nan=False)
    per_gpu = [c.serving.tokens_per_s_per_gpu for c in accepted if c.serving is not None]
    assert per_gpu == sorted(per_gpu, reverse=True)  # the serving search's order
    first = result.tie_groups()[0]
    floor = per_gpu[0] * (1 - TIE_TOLERANCE)  # the serving search's tie rule
    assert len(first) == sum(1 for value in per_gpu if value >= floor)
