"""Sliding-window attention: the spec reads it from config.json, and the FLOPs and the serving KV cache count it.

A query on a window layer attends the last w tokens, itself included (Mistral 7B, Jiang et al. 2023, §2: "each
hidden state ... attends to all hidden states from the previous layer with positions between i - W and i";
transformers' ``sliding_window``). Every expected value below is counted from that definition by brute force or by
hand, never read off the code under test:

* pairs a causal layer computes over s tokens: 1 + 2 + ... + s; a window layer: sum over i of min(i, w);
* PaLM's 12·L·h·s counts every query against all s keys (twice the causal pairs), so a window layer's s is
  s · (window pairs / causal pairs) in the same convention;
* the serving KV cache keeps, per request, the whole context on a full layer and at most w tokens on a window layer
  (an engine that frees what leaves the window, as vLLM's hybrid KV cache manager does).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from coursekit import i18n
from coursekit.planner import ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS
from coursekit.serving import ServingWorkload, kv_cache_bytes, plan_serving
from tests.model_configs import GEMMA_3_27B
from tests.model_configs import GPT_OSS_120B as OSS_CONFIG

LLAMA_LIKE = {
    "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "intermediate_size": 14336, "vocab_size": 32000, "hidden_act": "silu", "tie_word_embeddings": False,
}  # fmt: skip
# mistralai/Mistral-7B-v0.1 config.json: a 4096-token window on every layer, 32768 positions
MISTRAL_7B_V01 = {**LLAMA_LIKE, "model_type": "mistral", "max_position_embeddings": 32768, "sliding_window": 4096}
GPT_OSS_120B = {**OSS_CONFIG, "layer_types": ["sliding_attention", "full_attention"] * 18}


def _causal_pairs(s: int) -> int:
    return sum(range(1, s + 1))


def _window_pairs(s: int, w: int) -> int:
    return sum(min(i, w) for i in range(1, s + 1))


@pytest.mark.parametrize(
    ("config", "window", "layers"),
    [(MISTRAL_7B_V01, 4096, 32), (GEMMA_3_27B, 1024, 52), (GPT_OSS_120B, 128, 18)],
)
def test_the_window_is_read_from_config_json_and_leaves_the_parameters_alone(
    config: dict[str, object], window: int, layers: int
) -> None:
    model = ModelSpec.from_config(config)
    assert (model.window_tokens, model.window_layers) == (window, layers)
    plain = replace(model, window_tokens=None, window_layers=0)
    assert model.num_params == plain.num_params and model.active_params == plain.active_params


@pytest.mark.parametrize(
    "config",
    [
        {**MISTRAL_7B_V01, "sliding_window": None},
        {**MISTRAL_7B_V01, "sliding_window": 32768},  # as long as the model: no window
        {**MISTRAL_7B_V01, "model_type": "qwen2", "use_sliding_window": False},
        {**MISTRAL_7B_V01, "model_type": "qwen2"},  # Qwen2's window is off unless use_sliding_window is true
    ],
)
def test_no_window_when_the_config_turns_it_off(config: dict[str, object]) -> None:
    model = ModelSpec.from_config(config)
    assert (model.window_tokens, model.window_layers) == (None, 0)


def test_width_and_layer_count_come_together_named_in_the_learners_language() -> None:
    base = ModelSpec.from_config(MISTRAL_7B_V01)
    for changes in ({"window_layers": 0}, {"window_tokens": None}):
        with pytest.raises(ValueError, match=r"window_tokens = .*window_layers = .*give both"):
            replace(base, **changes)
    with pytest.raises(ValueError, match="window_layers = 33"):
        replace(base, window_layers=33)  # more layers than the model has
    with pytest.raises(ValueError, match="window_tokens = 0"):
        replace(base, window_tokens=0)
    i18n.set_language("zh")
    with pytest.raises(ValueError, match="两者要么都不给"):
        replace(base, window_layers=0)


@pytest.mark.parametrize(("s", "w"), [(8192, 4096), (4096, 128), (100, 7), (64, 64), (50, 4096)])
def test_the_attention_span_counts_the_pairs_inside_the_window(s: int, w: int) -> None:
    model = replace(ModelSpec.from_config(MISTRAL_7B_V01), window_tokens=w, window_layers=32)
    expected = s * _window_pairs(s, w) / _causal_pairs(s)
    assert float(model.attention_span(s)) == pytest.approx(expected, rel=1e-12)
    # only some layers windowed: the layers' mean
    half = replace(model, window_layers=16)
    assert float(half.attention_span(s)) == pytest.approx((16 * s + 16 * expected) / 32, rel=1e-12)


def test_mistral_at_8k_by_hand() -> None:
    # 8192 tokens, window 4096: 4096 · 4097 / 2 + 4096 · 4096 = 25,167,872 pairs of 8192 · 8193 / 2 = 33,558,528
    model = ModelSpec.from_config(MISTRAL_7B_V01)
    assert _window_pairs(8192, 4096) == 25_167_872 and _causal_pairs(8192) == 33_558_528
    assert float(model.attention_span(8192)) == pytest.approx(8192 * 25_167_872 / 33_558_528)  # 6143.8


def test_the_training_estimate_counts_model_flops_over_the_window() -> None:
    model = ModelSpec.from_config(MISTRAL_7B_V01)
    workload = WorkloadSpec(global_batch=16, seq_len=8192)
    span = 8192 * _window_pairs(8192, 4096) / _causal_pairs(8192)
    expected = 6 * model.matmul_params + 12 * model.layers * model.hidden * span  # PaLM appendix B, with the span
    cand = plan(model, CLUSTERS["h100-8"], workload).explain("tp=1,pp=1,dp=8,mb=1,zero=1")
    assert cand.model_flops_per_step / cand.tokens_per_step == pytest.approx(expected, rel=1e-9)
    plain = plan(replace(model, window_tokens=None, window_layers=0), CLUSTERS["h100-8"], workload)
    full = plain.explain("tp=1,pp=1,dp=8,mb=1,zero=1")
    assert full.model_flops_per_step / full.tokens_per_step == pytest.approx(
        6 * model.matmul_params + 12 * model.layers * model.hidden * 8192, rel=1e-9
    )
    assert cand.step_s < full.step_s  # fewer pairs to compute, the same everything else
    # sequences no longer than the window: the window changes nothing
    short = WorkloadSpec(global_batch=16, seq_len=4096)
    windowed = plan(model, CLUSTERS["h100-8"], short).explain("tp=1,pp=1,dp=8,mb=1,zero=1")
    plain4k = plan(replace(model, window_tokens=None, window_layers=0), CLUSTERS["h100-8"], short)
    assert windowed.step_s == pytest.approx(plain4k.explain("tp=1,pp=1,dp=8,mb=1,zero=1").step_s, rel=1e-12)


def test_the_plan_states_the_window_in_both_languages() -> None:
    model = ModelSpec.from_config(MISTRAL_7B_V01)
    result = plan(model, CLUSTERS["h100-8"], WorkloadSpec(global_batch=16, seq_len=8192))
    (note,) = result.assumptions.workload_notes
    assert "32 of 32 layers" in note.en and "s = 6144, not 8192" in note.en  # type: ignore[attr-defined]
    assert "s = 6144，而不是 8192" in note.zh and "滑动窗口" in note.zh  # type: ignore[attr-defined]
    assert "s = 6144, not 8192" in result.report()


# Gemma 3 27B: 2 (K and V) · 16 KV heads · 128 = 4096 elements per token and layer, 2 bytes each.
GEMMA_BYTES_PER_TOKEN_LAYER = 2 * 16 * 128 * 2


def test_gemma3_kv_cache_by_hand() -> None:
    model = ModelSpec.from_config(GEMMA_3_27B)
    # one 32K-token request: 10 full layers hold 32768 tokens, 52 window layers 1024
    assert kv_cache_bytes(model, tokens=32768) == (10 * 32768 + 52 * 1024) * GEMMA_BYTES_PER_TOKEN_LAYER
    # four 8K requests: the window layers keep 1024 of each
    four = kv_cache_bytes(model, tokens=4 * 8192, requests=4)
    assert four == (10 * 4 * 8192 + 52 * 4 * 1024) * GEMMA_BYTES_PER_TOKEN_LAYER
    # a request inside the window: every layer holds it all
    assert kv_cache_bytes(model, tokens=1000) == 62 * 1000 * GEMMA_BYTES_PER_TOKEN_LAYER
    # two pipeline stages of 31 layers, the 10 full ones spread over both: at most 5 on a stage
    assert kv_cache_bytes(model, tokens=32768, pp=2) == (5 * 32768 + 26 * 1024) * GEMMA_BYTES_PER_TOKEN_LAYER
    with pytest.raises(ValueError, match="requests = 9"):
        kv_cache_bytes(model, tokens=8, requests=9)  # more requests than tokens


def test_serving_plans_with_the_window_and_says_so() -> None:
    model = ModelSpec.from_config(GEMMA_3_27B)
    plain = replace(model, window_tokens=None, window_layers=0)
    workload = ServingWorkload(prompt_tokens=30000, output_tokens=2000, concurrency=16)
    windowed_plan = plan_serving(model, CLUSTERS["h100-8"], workload)
    plain_plan = plan_serving(plain, CLUSTERS["h100-8"], workload)
    # per request at 32,000 tokens of context: (10 · 32000 + 52 · 1024) token-layers instead of 62 · 32000
    by_hand = (10 * 32000 + 52 * 1024) / (62 * 32000)
    windowed, full = windowed_plan.candidate(tp=8), plain_plan.candidate(tp=8)
    assert windowed.ledger is not None and full.ledger is not None
    assert windowed.ledger.kv_per_request_gib / full.ledger.kv_per_request_gib == pytest.approx(by_hand, rel=1e-12)
    assert windowed.estimate is not None and full.estimate is not None  # fewer keys to read per decoded token
    assert windowed.estimate.time_per_output_token_s < full.estimate.time_per_output_token_s
    assert any("1024 tokens per request" in str(note) for note in windowed_plan.notes)
    assert "1024 tokens per request" in windowed_plan.report()
    assert not plain_plan.notes
