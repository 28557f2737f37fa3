"""Exercises of lesson 10 (serving): the KV cache, how many requests fit, where TP stops paying, Little's law.

Every expected answer is computed with :mod:`coursekit.serving` from the inputs named below
(module constants, so the notebook quotes the same set-up).

>>> from coursekit.exercises import get_exercise
>>> get_exercise("serve.kv_kib_per_token").expected_value()
320.0

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

from dataclasses import replace

from .._validate import learner_functions
from ..i18n import Text
from ..presets import CLUSTERS, MODELS
from ..serving import ServingLedger, kv_cache_bytes, littles_law_concurrency, serving_estimate, serving_memory_ledger
from ..units import KB_BYTES, KIB_BYTES
from . import BINARY_UNIT, ROUNDED_COUNT, SECONDS_VS_MS, Exercise, mistake, register

#: serve.kv_kib_per_token and serve.max_requests: Llama-3 70B.
MODEL: str = "llama3-70b"
#: serve.max_requests: one replica on the 8 H100s of one node, requests of 8192 + 512 tokens (the lesson's
#: worked example uses 2048 + 256).
CLUSTER: str = "h100-8"
REPLICA_TP: int = 8
PROMPT_TOKENS: int = 8192
OUTPUT_TOKENS: int = 512
#: serve.best_tp: Megatron-LM's 1.7B model (Table 1: 24 layers, h = 2304, 24 heads) decoding one request on an
#: H100 node; the TP degrees tried (each divides the 24 heads). The lesson's table shows GPT-2 small, not this model.
SMALL_MODEL: str = "megatron-1.7b"
TP_DEGREES: tuple[int, ...] = (1, 2, 4, 8)
#: serve.littles_law: arrivals per second and seconds each request spends in the system.
RATE_PER_S: float = 20.0
LATENCY_S: float = 3.2


def kv_kib_per_token() -> float:
    """serve.kv_kib_per_token: KiB of K and V per token of Llama-3 70B (one rank, bf16)."""

    return kv_cache_bytes(MODELS[MODEL], tokens=1) / KIB_BYTES


def _kv_kb_per_token() -> float:
    """The same bytes in kB (1000 bytes), the slip of kB for KiB."""
    return kv_cache_bytes(MODELS[MODEL], tokens=1) / KB_BYTES


def _kv_kib_per_token_all_heads() -> float:
    """KiB per token if every query head kept its own K and V (multi-head attention, no GQA)."""
    model = MODELS[MODEL]
    return kv_cache_bytes(replace(model, kv_heads=model.heads), tokens=1) / KIB_BYTES


def _replica_ledger(context_tokens: int, prefill_chunk_tokens: int = PROMPT_TOKENS) -> ServingLedger:
    return serving_memory_ledger(
        MODELS[MODEL],
        CLUSTERS[CLUSTER],
        tp=REPLICA_TP,
        concurrency=1,
        context_tokens=context_tokens,
        prefill_chunk_tokens=prefill_chunk_tokens,
    )


def max_requests() -> int:
    """serve.max_requests: requests of :data:`PROMPT_TOKENS` + :data:`OUTPUT_TOKENS` tokens one TP=8 replica holds
    before its KV cache overflows."""
    return _replica_ledger(PROMPT_TOKENS + OUTPUT_TOKENS).max_concurrency


#: serve.max_requests: the ledger of lesson 10's section 3 (2048 prompt + 256 output tokens a request, prefilled in
#: chunks of 2048), whose capacity a learner may carry over to this exercise's longer requests.
SECTION3_CONTEXT_TOKENS: int = 2048 + 256
SECTION3_PREFILL_CHUNK: int = 2048


def _max_requests_section3() -> int:
    """The slip of answering with section 3's capacity (:data:`SECTION3_CONTEXT_TOKENS`, its prefill chunk)."""
    return _replica_ledger(SECTION3_CONTEXT_TOKENS, SECTION3_PREFILL_CHUNK).max_concurrency


def _max_requests_kv_not_split() -> int:
    """The slip of keeping a whole request's KV cache on every rank (not split by TP)."""
    ledger = _replica_ledger(PROMPT_TOKENS + OUTPUT_TOKENS)
    return replace(ledger, kv_per_request_gib=ledger.kv_per_request_gib * REPLICA_TP).max_concurrency


def _max_requests_no_workspace() -> int:
    """The slip of leaving the activation workspace (prefill activations, logits) out of the ledger."""
    ledger = _replica_ledger(PROMPT_TOKENS + OUTPUT_TOKENS)
    return replace(ledger, workspace_gib=0.0, workspace_per_request_gib=0.0).max_concurrency


def _best_tp_times() -> dict[int, float]:
    """TPOT bound (s) of :data:`SMALL_MODEL` at batch 1 for each of :data:`TP_DEGREES`."""
    return {
        tp: serving_estimate(
            MODELS[SMALL_MODEL], CLUSTERS[CLUSTER], tp=tp, batch=1, prompt_tokens=512, output_tokens=128
        ).time_per_output_token_s
        for tp in TP_DEGREES
    }


def _weight_read_us(tp: int) -> float:
    """Microseconds one GPU takes to read its 1/tp of :data:`SMALL_MODEL`'s bf16 weights from HBM."""
    return MODELS[SMALL_MODEL].num_params * 2 / tp / CLUSTERS[CLUSTER].memory_bandwidth_bytes_per_s * 1e6


def best_tp() -> int:
    """serve.best_tp: the TP degree of :data:`TP_DEGREES` with the lowest TPOT for :data:`SMALL_MODEL` at batch 1."""
    times = _best_tp_times()
    return min(times, key=times.__getitem__)


def littles_law() -> float:
    """serve.littles_law: requests in flight at :data:`RATE_PER_S` arrivals/s that each take :data:`LATENCY_S`."""
    return littles_law_concurrency(RATE_PER_S, LATENCY_S)


KV_KIB_PER_TOKEN = register(
    Exercise(
        id="serve.kv_kib_per_token",
        lesson=10,
        prompt=Text(
            zh="Llama-3 70B 有 80 层、8 个 KV 头、head_dim 128，KV 用 bf16（2 字节）。"
            "每个 token 的 KV 缓存是多少 KiB？",
            en="Llama-3 70B has 80 layers, 8 KV heads and head_dim 128, with bf16 (2-byte) keys and values. How many "
            "KiB of KV cache does one token take?",
        ),
        expected=kv_kib_per_token,
        kind="number",
        hint=Text(
            zh="K 和 V 两份 × 层数 × KV 头数 × head_dim × 每元素字节数；1 KiB = 1024 字节。",
            en="Two tensors (K and V) × layers × KV heads × head_dim × bytes per element; 1 KiB = 1024 bytes.",
        ),
        why=lambda kib: Text(
            zh=f"2 · 80 · 8 · 128 · 2 = 327,680 字节 = {kib:.0f} KiB。若是 64 个头的多头注意力，要再乘 8。",
            en=f"2 · 80 · 8 · 128 · 2 = 327,680 bytes = {kib:.0f} KiB. With 64-head multi-head attention it would "
            "be 8 times more.",
        ),
        slips=(
            mistake(
                "k_or_v_only",
                lambda: kv_kib_per_token() / 2,
                Text(
                    zh="你只算了 K 或 V 中的一个：每层每个 KV 头要同时缓存键 (K) 和值 (V)，共两份。",
                    en="You counted only one of K and V: every layer caches both keys (K) and values (V) for each KV "
                    "head, two tensors.",
                ),
            ),
            mistake(
                "kb_not_kib",
                _kv_kb_per_token,
                Text(
                    zh="你用的是 kB（1000 字节）；题目要 KiB（1024 字节）。",
                    en="You used kB (1000 bytes); the question asks for KiB (1024 bytes).",
                ),
            ),
            mistake(
                "query_heads",
                _kv_kib_per_token_all_heads,
                Text(
                    zh="你用了 64 个查询头 (query heads)；分组查询注意力 (GQA) 只为 8 个 KV 头缓存 K 和 V。",
                    en="You used the 64 query heads; grouped-query attention (GQA) caches K and V for the 8 KV heads "
                    "only.",
                ),
            ),
            BINARY_UNIT,  # 327,680 (bytes) or 0.3125 (MiB) for 320 KiB
        ),
    ),
    replace=True,
)

MAX_REQUESTS = register(
    Exercise(
        id="serve.max_requests",
        lesson=10,
        prompt=Text(
            zh=f"一个副本用一个 H100 节点的 8 卡 (TP=8) 服务 Llama-3 70B，每个请求 {PROMPT_TOKENS} 个提示 token 加 "
            f"{OUTPUT_TOKENS} 个输出 token，提示一次预填充完（prefill_chunk_tokens={PROMPT_TOKENS}）。"
            "按每 rank 的显存账本，这个副本最多能同时容纳多少个请求？用整数作答。",
            en="One replica serves Llama-3 70B on the 8 GPUs of one H100 node (TP=8); each request has "
            f"{PROMPT_TOKENS} prompt tokens and {OUTPUT_TOKENS} output tokens, the prompt prefilled in one chunk "
            f"(prefill_chunk_tokens={PROMPT_TOKENS}). By the per-rank memory ledger, how many requests can the "
            "replica hold at once? Answer with an integer.",
        ),
        expected=max_requests,
        kind="exact",
        hint=Text(
            zh="用 serving_memory_ledger(...) 建账本，读 max_concurrency："
            "空闲显存除以一个请求在这个 rank 上的 KV 缓存。",
            en="Build the ledger with serving_memory_ledger(...) and read max_concurrency: free memory over one "
            "request's KV cache on this rank.",
        ),
        why=lambda n: Text(
            zh=f"{n} 个：权重只占每卡约 16 GiB，剩下的几乎全给 KV 缓存；每个请求在每卡上要 "
            f"{PROMPT_TOKENS + OUTPUT_TOKENS} × 40 KiB。",
            en=f"{n}: the weights take only about 16 GiB per GPU and nearly all the rest goes to the KV cache; one "
            f"request needs {PROMPT_TOKENS + OUTPUT_TOKENS} × 40 KiB per GPU.",
        ),
        slips=(
            mistake(
                "prompt_only",
                lambda: _replica_ledger(PROMPT_TOKENS).max_concurrency,
                Text(
                    zh="你只算了提示 token；请求生成的输出 token 也留在 KV 缓存里，每个请求的上下文是提示加输出。",
                    en="You counted the prompt tokens only; the output tokens a request generates stay in the KV "
                    "cache too, so its context is prompt plus output.",
                ),
            ),
            mistake(
                "no_workspace",
                _max_requests_no_workspace,
                Text(
                    zh="你没算激活工作区 (activation workspace)：预填充一个提示块的激活和输出层的 logits 也占显存，"
                    "账本在权重和运行时预留之外还要扣掉它，剩下的才分给 KV 缓存。",
                    en="You left out the activation workspace: the activations of prefilling one prompt chunk and the "
                    "output layer's logits take memory too, and the ledger sets it aside with the weights and the "
                    "runtime reserve before the rest goes to the KV cache.",
                ),
            ),
            mistake(
                "times_gpus",
                lambda: max_requests() * REPLICA_TP,
                Text(
                    zh=f"你把一张卡的容量乘了 {REPLICA_TP}：TP = {REPLICA_TP} 时每个请求的 KV 缓存分在全部 "
                    f"{REPLICA_TP} 张卡上，每张卡存每个请求的 1/{REPLICA_TP}，"
                    "所以一张卡能容纳的请求数就是整个副本能容纳的请求数。",
                    en=f"You multiplied one GPU's capacity by {REPLICA_TP}: at TP = {REPLICA_TP} every request's KV "
                    f"cache is split over all {REPLICA_TP} GPUs, each holding 1/{REPLICA_TP} of every request, so "
                    "the requests one GPU holds are the requests the whole replica holds.",
                ),
            ),
            mistake(
                "kv_not_split",
                _max_requests_kv_not_split,
                Text(
                    zh="你让每张卡都存一个请求的全部 KV 缓存；TP = 8 把 KV 头分到 8 张卡上，每张卡只存 1/8。",
                    en="You kept a request's whole KV cache on every GPU; TP = 8 splits the KV heads over 8 GPUs, "
                    "so each holds 1/8 of it.",
                ),
            ),
            mistake(
                "section3_ledger",
                _max_requests_section3,
                Text(
                    zh=f"这是第 3 节那本账的容量（每个请求 {SECTION3_CONTEXT_TOKENS} 个 token，预填充块 "
                    f"{SECTION3_PREFILL_CHUNK}）；本题的请求更长（{PROMPT_TOKENS} + {OUTPUT_TOKENS} 个 token），"
                    f"预填充块是 {PROMPT_TOKENS}：用本题的数重建账本。",
                    en=f"That is the capacity of section 3's ledger ({SECTION3_CONTEXT_TOKENS} tokens a request, "
                    f"prefill chunks of {SECTION3_PREFILL_CHUNK}); this exercise's requests are longer "
                    f"({PROMPT_TOKENS} + {OUTPUT_TOKENS} tokens) and prefilled in chunks of {PROMPT_TOKENS}: build "
                    "the ledger again with its numbers.",
                ),
            ),
            ROUNDED_COUNT,
        ),
    ),
    replace=True,
)

BEST_TP = register(
    Exercise(
        id="serve.best_tp",
        lesson=10,
        prompt=Text(
            zh="Megatron-LM 表 1 的 1.7B 模型（24 层，h = 2304，24 个头，MODELS['megatron-1.7b']）在 H100 节点上解码"
            "单个请求（批 1，提示 512 个 token，输出 128 个）。TP = 1、2、4、8 中哪一个的 TPOT 下界最小？",
            en="Megatron-LM's Table 1 1.7B model (24 layers, h = 2304, 24 heads, MODELS['megatron-1.7b']) decodes a "
            "single request (batch 1, 512 prompt tokens, 128 output tokens) on an H100 node. Which of TP = 1, 2, 4, "
            "8 gives the lowest TPOT bound?",
        ),
        expected=best_tp,
        kind="exact",
        hint=Text(
            zh="对每个 TP 调用 serving_estimate(...)，比较 time_per_output_token_s：每翻一倍 TP，每卡读的权重减半，"
            "但每 token 2 × 24 次全归约的时延随 TP 变大。",
            en="Call serving_estimate(...) for each TP and compare time_per_output_token_s: each doubling of TP halves "
            "the weights a GPU reads, but the latency of the 2 × 24 all-reduces per token grows with TP.",
        ),
        slips=(
            mistake(
                "most_tp",
                lambda: max(TP_DEGREES),
                Text(
                    zh="TP 越大并不总是越快：小模型读权重本来就很快，每多一次全归约都要付固定的时延。",
                    en="More TP is not always faster: a small model reads its weights quickly anyway, and every extra "
                    "all-reduce pays a fixed latency.",
                ),
            ),
        ),
        why=lambda tp: Text(
            zh=f"TP = {tp}：每卡读权重从 TP = 1 的约 {_weight_read_us(1):.0f} µs 减到 {_weight_read_us(tp):.0f} µs；"
            f"再到 TP = 8 只能再省 {_weight_read_us(tp) - _weight_read_us(8):.0f} µs，"
            "而每 token 48 次全归约变慢得更多："
            f"TPOT 下界从 {_best_tp_times()[tp] * 1e3:.3f} ms 升到 {_best_tp_times()[8] * 1e3:.3f} ms。",
            en=f"TP = {tp}: each GPU's weight read drops from about {_weight_read_us(1):.0f} µs at TP = 1 to "
            f"{_weight_read_us(tp):.0f} µs; going on to TP = 8 saves only "
            f"{_weight_read_us(tp) - _weight_read_us(8):.0f} µs more, while the 48 all-reduces per token slow down "
            "by more: the TPOT bound rises from "
            f"{_best_tp_times()[tp] * 1e3:.3f} ms to {_best_tp_times()[8] * 1e3:.3f} ms.",
        ),
    ),
    replace=True,
)

LITTLES_LAW = register(
    Exercise(
        id="serve.littles_law",
        lesson=10,
        prompt=Text(
            zh="每秒到达 20 个请求，每个请求从到达到完成平均 3.2 秒。稳态下系统里平均有多少个请求？",
            en="20 requests arrive per second and each spends 3.2 s from arrival to completion on average. How many "
            "requests are in the system in steady state?",
        ),
        expected=littles_law,
        kind="number",
        hint=Text(zh="利特尔定律：N = λ · W。", en="Little's law: N = λ · W."),
        slips=(
            SECONDS_VS_MS,
            mistake(
                "divided",
                lambda: RATE_PER_S / LATENCY_S,
                Text(
                    zh="你用到达率除以了时延；利特尔定律是相乘：N = λ · W。",
                    en="You divided the arrival rate by the latency; Little's law multiplies: N = λ · W.",
                ),
            ),
        ),
        why=lambda n: Text(
            zh=f"{n:.0f} 个：这就是显存要容纳的 KV 缓存份数；时延一长，同样的速率就要更多并发。",
            en=f"{n:.0f}: that is how many KV caches memory must hold; a longer latency needs more concurrency at the "
            "same rate.",
        ),
    ),
    replace=True,
)

learner_functions(globals())
