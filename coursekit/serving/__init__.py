"""Serving: the KV cache, prefill and decode on the roofline, and replicas versus tensor parallelism.

A serving *replica* is one full copy of the model on ``tp · pp`` devices with its own queue of
requests. Replicas are not data parallelism: they exchange no gradients and never wait for each
other, so adding one adds throughput and nothing else.

Every request has two phases:

* **prefill** reads the prompt (P tokens) in one pass and writes its keys and values into the
  **KV cache**; it does about 2·N FLOPs per token, so it is compute-bound. It ends with the first
  output token: its time is the *time to first token* (TTFT).
* **decode** makes one token per step for every request in the batch. Each step reads all the
  weights and the batch's whole KV cache but does only 2·N FLOPs per request, so it is
  memory-bound: its time is the *time per output token* (TPOT).

TP splits the weights each step reads, so TPOT falls with TP — until its two all-reduces per
layer per token, which are latency-bound at decode's small message sizes, dominate. PP splits
them too, but a token still passes every stage in turn, so PP does not lower TPOT.

Every time here is a **lower-bound estimate**: kernels at peak FLOP/s or at full HBM bandwidth
(the roofline of :mod:`coursekit.roofline`), no queueing, no scheduler or launch overhead,
communication not overlapped (decode's all-reduces sit between layers). Real engines are slower;
:data:`PUBLISHED_MEASUREMENTS` compares with one.

>>> from coursekit.presets import MODELS
>>> kv_cache_bytes(MODELS["llama3-70b"], tokens=1)   # 2 (K and V) · 80 layers · 8 KV heads · 128 · 2 bytes
327680

The package splits along the concepts: :mod:`.kv` (KV cache and memory ledger), :mod:`.nccl` (NCCL's
all-reduce model), :mod:`.estimate` (prefill and decode), :mod:`.search` (the layout search) and
:mod:`.published` (published measurements); every name stays importable from ``coursekit.serving``.

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

from .._validate import learner_functions
from ..specs import ServingWorkload
from .estimate import SERVING_ASSUMPTIONS, ServingEstimate, littles_law_concurrency, serving_estimate
from .kv import ServingLedger, kv_cache_bytes, kv_heads_per_rank, serving_memory_ledger
from .nccl import AllReduceChoice, tp_all_reduce
from .published import PUBLISHED_MEASUREMENTS, PublishedMeasurement
from .search import SERVING_GATES, ServingCandidate, ServingPlanResult, plan_serving

# Used by the planner's serving mode and report (not part of the lesson's vocabulary).
from .search import TIE_TOLERANCE as TIE_TOLERANCE
from .search import candidate_lines as candidate_lines
from .search import evaluate_layout as evaluate_layout

__all__ = [
    "PUBLISHED_MEASUREMENTS",
    "SERVING_ASSUMPTIONS",
    "SERVING_GATES",
    "AllReduceChoice",
    "PublishedMeasurement",
    "ServingCandidate",
    "ServingEstimate",
    "ServingLedger",
    "ServingPlanResult",
    "ServingWorkload",
    "kv_cache_bytes",
    "kv_heads_per_rank",
    "littles_law_concurrency",
    "plan_serving",
    "serving_estimate",
    "serving_memory_ledger",
    "tp_all_reduce",
]

learner_functions(globals())
