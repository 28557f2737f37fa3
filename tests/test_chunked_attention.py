"""Chunked attention (Llama 4): the spec's chunk fields, read from config.json, in the FLOPs and the KV cache.

Llama 4 cuts the sequence into chunks of ``attention_chunk_size`` = 8192 tokens from its start; on 3 of every 4
layers (those with rotary positions, ``no_rope_layers`` 1) a query attends only the earlier tokens of its own chunk
(transformers' Llama4TextConfig and its chunked causal mask). Expected values here are counted by brute force over
the query-key pairs, or worked by hand from Llama 4 Scout's published config (48 layers, 8 KV heads of 128).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import coursekit
from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS
from coursekit.serving import kv_cache_bytes, serving_estimate

CJK = re.compile(r"[\u4e00-\u9fff]")

#: meta-llama/Llama-4-Scout-17B-16E's text_config (the keys the planner reads).
SCOUT: dict[str, Any] = {
    "model_type": "llama4_text", "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384,
    "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 202048, "max_position_embeddings": 10485760, "num_local_experts": 16, "num_experts_per_tok": 1,
    "attention_chunk_size": 8192, "no_rope_layers": [], "tie_word_embeddings": False,
}  # fmt: skip


def _tiny(layers: int = 1, chunk: int = 4, chunked: int = 1) -> ModelSpec:
    return ModelSpec("c", layers=layers, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=1 << 20,
                     chunk_tokens=chunk, chunk_layers=chunked)  # fmt: skip


def _keys(position: int, chunk: int) -> int:
    """Keys the query at 1-based ``position`` attends in a chunked layer, counted one by one."""
    return sum(1 for key in range(1, position + 1) if (key - 1) // chunk == (position - 1) // chunk)


def test_attention_span_counts_the_pairs_inside_the_chunks() -> None:
    """One chunked layer: span = s · pairs / (s(s+1)/2), pairs counted query by query."""
    for chunk in (1, 3, 4, 7):
        model = _tiny(chunk=chunk)
        for s in range(1, 40):
            pairs = sum(_keys(q, chunk) for q in range(1, s + 1))
            assert float(model.attention_span(s)) == pytest.approx(s * pairs / (s * (s + 1) / 2))
    spans = _tiny(chunk=4).attention_span(np.array([4.0, 10.0]))  # arrays as well: 4 (one chunk), 10·23/55
    assert spans == pytest.approx([4.0, 10 * 23 / 55])


def test_attended_keys_restart_at_each_chunk() -> None:
    model = _tiny(layers=4, chunk=5, chunked=3)  # one full layer, three chunked
    for position in range(1, 30):
        assert float(model.attended_keys(position)) == pytest.approx((position + 3 * _keys(position, 5)) / 4)


def test_decode_keys_average_the_chunked_layers_over_the_output() -> None:
    """The full layer at the middle query (prompt + output/2); the chunked ones the mean over the output's
    queries prompt + 1 .. prompt + output, which here cross a chunk boundary (8 + 8 of chunk 16)."""
    model = _tiny(layers=4, chunk=16, chunked=3)
    for prompt, output in ((8, 16), (1, 1), (15, 1), (16, 1), (40, 30), (3, 100)):
        chunked = sum(_keys(q, 16) for q in range(prompt + 1, prompt + output + 1)) / output
        assert float(model.decode_keys(prompt, output)) == pytest.approx((prompt + output / 2 + 3 * chunked) / 4)


def test_llama4_scout_reads_its_chunks_from_config() -> None:
    model = ModelSpec.from_config(SCOUT)
    assert (model.chunk_tokens, model.chunk_layers, model.window_tokens) == (8192, 36, None)  # 48 - 48 // 4
    marked = ModelSpec.from_config({**SCOUT, "no_rope_layers": [1, 1, 0] * 16})  # 32 layers marked chunked
    assert marked.chunk_layers == 32
    assert ModelSpec.from_config({**SCOUT, "attention_chunk_size": None}).chunk_tokens is None  # null: no chunks
    absent = {key: value for key, value in SCOUT.items() if key != "attention_chunk_size"}
    assert ModelSpec.from_config(absent).chunk_tokens == 8192  # Llama4TextConfig's default
    assert ModelSpec.from_config({**SCOUT, "attention_chunk_size": 1 << 24}).chunk_tokens is None  # beyond its length


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"attention_chunk_size": "8192"}, "attention_chunk_size"),
        ({"attention_chunk_size": 8192.5}, "attention_chunk_size"),  # 8192.0, an integer value, is read as 8192
        ({"no_rope_layers": [1, 1, 0]}, "no_rope_layers"),  # shorter than the 48 layers
        ({"no_rope_layers": [2] * 48}, "no_rope_layers"),
        ({"layer_types": ["chunked_attention"] * 5}, "layer_types"),
    ],
)
def test_a_malformed_chunk_key_is_refused_naming_it(change: dict[str, Any], key: str, lang: str) -> None:
    coursekit.set_language(lang)
    with pytest.raises(ValueError, match=key) as caught:
        ModelSpec.from_config({**SCOUT, **change})
    assert bool(CJK.search(str(caught.value))) == (lang == "zh")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_chunk_fields_come_in_pairs_and_not_with_a_window(lang: str) -> None:
    coursekit.set_language(lang)
    base: dict[str, Any] = dict(name="m", layers=4, hidden=64, heads=4, ffn_hidden=128, vocab=100, seq_len=64)
    for fields in ({"chunk_tokens": 8}, {"chunk_layers": 2}, {"chunk_tokens": 8, "chunk_layers": 0}):
        with pytest.raises(ValueError, match="chunk_layers") as caught:
            ModelSpec(**base, **fields)
        assert "chunk_tokens" in str(caught.value) and bool(CJK.search(str(caught.value))) == (lang == "zh")
    with pytest.raises(ValueError, match="chunk_layers"):
        ModelSpec(**base, chunk_tokens=8, chunk_layers=5)  # more layers than the model has
    with pytest.raises(ValueError) as caught:
        ModelSpec(**base, chunk_tokens=8, chunk_layers=2, window_tokens=16, window_layers=2)
    assert "window_tokens" in str(caught.value) and "chunk_tokens" in str(caught.value)


def test_llama4_scout_kv_cache_by_hand() -> None:
    """12 full layers keep every token, 36 chunked layers at most 8192 per request; 2 · 1 KV head of 128 per TP 8
    rank, 2 bytes."""
    model = ModelSpec.from_config(SCOUT)
    assert model.kv_token_layers(32768) == 12 * 32768 + 36 * 8192
    assert model.kv_token_layers(32768, pp=2) == 6 * 32768 + 18 * 8192  # a stage: 24 layers, 6 of them full
    assert model.kv_token_layers(80000, requests=4) == 12 * 80000 + 36 * 4 * 8192
    assert model.kv_token_layers(4000) == 48 * 4000  # shorter than a chunk: every layer keeps it all
    assert kv_cache_bytes(model, tokens=32768, tp=8) == (12 * 32768 + 36 * 8192) * 2 * 128 * 2


def test_decoding_reads_only_the_current_chunk() -> None:
    """Past a chunk boundary a chunked layer's query reads the current chunk only, so the decode step of Scout at an
    8K prompt reads less cache and does fewer attention FLOPs than the same model without chunks; inside the first
    chunk the two agree to within the half key between the middle query and the mean."""
    chunked = ModelSpec.from_config(SCOUT)
    full = ModelSpec.from_config({**SCOUT, "attention_chunk_size": None})
    cluster = CLUSTERS["h100-8"]

    def step(model: ModelSpec, prompt: int, output: int) -> Any:
        return serving_estimate(model, cluster, tp=8, batch=16, prompt_tokens=prompt, output_tokens=output)

    later, later_full = step(chunked, 8000, 400), step(full, 8000, 400)
    assert later.decode_memory_s < later_full.decode_memory_s and later.decode_compute_s < later_full.decode_compute_s
    inside, inside_full = step(chunked, 2000, 400), step(full, 2000, 400)
    assert inside.decode_memory_s == pytest.approx(inside_full.decode_memory_s, rel=1e-3)
    assert inside.time_to_first_token_s == pytest.approx(inside_full.time_to_first_token_s)  # prefill inside a chunk


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_plans_say_what_the_chunks_change(lang: str) -> None:
    coursekit.set_language(lang)
    model = ModelSpec.from_config(SCOUT)
    cluster: ClusterSpec = CLUSTERS["h100-8"].with_nodes(2)
    notes = plan(model, cluster, WorkloadSpec(global_batch=16, seq_len=16384)).assumptions.workload_notes
    text = " ".join(note.render(lang) if hasattr(note, "render") else str(note) for note in notes)
    span = (12 * 16384 + 36 * 16384 * (2 * 8192 * 8193 / 2) / (16384 * 16385 / 2)) / 48  # two whole chunks
    assert f"{span:.0f}" in text and "8192" in text
    assert ("分块注意力" in text) if lang == "zh" else ("chunked attention" in text)
