"""Published serving measurements the lower-bound estimate is compared with.

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import learner_functions
from ..specs import (
    ModelSpec,
)


@dataclass(frozen=True)
class PublishedMeasurement:
    """One serving measurement an inference engine published, to compare the lower bounds with."""

    label: str
    model: ModelSpec
    gpu: str
    tp: int
    batch: int
    prompt_tokens: int
    output_tokens: int
    metric: str
    value: float
    source: str


_TRTLLM_PERF: str = (
    "NVIDIA TensorRT-LLM, docs/source/performance.md (v0.6.1 throughput tables, v0.5 low-latency tables), "
    "A100 GPUs (FP16)"
)
_LLAMA2: str = (
    "Touvron et al., Llama 2, arXiv:2307.09288 (7B: 32 layers, d 4096, 32 heads; 70B: 80, 8192, 64, GQA 8 KV heads)"
)
LLAMA2_7B: ModelSpec = ModelSpec(
    name="llama2-7b", layers=32, hidden=4096, heads=32, ffn_hidden=11008, vocab=32000, seq_len=4096, source=_LLAMA2
)
LLAMA2_70B: ModelSpec = ModelSpec(
    name="llama2-70b",
    layers=80,
    hidden=8192,
    heads=64,
    kv_heads=8,
    ffn_hidden=28672,
    vocab=32000,
    seq_len=4096,
    source=_LLAMA2,
)

#: Published TensorRT-LLM measurements on A100 80GB in FP16 (the course's bf16 byte counts apply).
#: ``metric`` is ``"ttft_s"`` (first-token latency at batch 1) or ``"tokens_per_s"`` (output tokens/s).
PUBLISHED_MEASUREMENTS: tuple[PublishedMeasurement, ...] = (
    PublishedMeasurement(
        "Llama-2-7B, 1×A100, TTFT, prompt 2048", LLAMA2_7B, "a100-8", 1, 1, 2048, 1, "ttft_s", 0.133, _TRTLLM_PERF
    ),
    PublishedMeasurement(
        "Llama-2-70B, 4×A100 TP4, TTFT, prompt 2048", LLAMA2_70B, "a100-8", 4, 1, 2048, 1, "ttft_s", 0.377, _TRTLLM_PERF
    ),
    PublishedMeasurement(
        "Llama-2-7B, 1×A100, batch 60, 128 in / 2048 out",
        LLAMA2_7B,
        "a100-8",
        1,
        60,
        128,
        2048,
        "tokens_per_s",
        1928.0,
        _TRTLLM_PERF,
    ),
)

learner_functions(globals())
