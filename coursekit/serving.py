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

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ._validate import check_int, check_number, finite_result
from .communication import collective_time_s
from .hardware import (
    NCCL_BASE_LATENCY_US,
    NCCL_LL_MAX_BUS_BYTES_PER_S,
    NCCL_NVLINK_STEP_LATENCY_US,
    NCCL_PROTOCOL_BANDWIDTH_SHARE,
    NCCL_RING_NVLINK_LATENCY_S,
)
from .i18n import Reason, register, tr
from .planner import ACTIVATION_BYTES, DEFAULT_RUNTIME_RESERVE_GIB, LOGITS_BYTES, ClusterSpec, ModelSpec, group_link
from .roofline import _attention_flops_per_token, _roofline_time_s
from .units import GIB_BYTES, US_PER_S

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

#: The serving search's gates, in the order the funnel applies them.
SERVING_GATES: tuple[str, ...] = ("shape", "interconnect", "memory", "replica", "slo")

#: Keys of the assumptions every serving estimate rests on (``serving.assume.<key>`` in the message catalog).
SERVING_ASSUMPTIONS: tuple[str, ...] = ("roofline", "context", "comm", "throughput")

#: Accepted layouts whose throughput per GPU is within this share of the best are reported as a tie:
#: a lower-bound model cannot separate them.
TIE_TOLERANCE: float = 0.15

_MAX_CONCURRENCY: int = 10**7

register(
    {
        "serving.both_load": {
            "zh": "concurrency = {concurrency!r}，request_rate_per_s = {rate!r}：两者只能给一个"
            "（并发数，或用利特尔定律从请求速率推出并发）。",
            "en": "concurrency = {concurrency!r}, request_rate_per_s = {rate!r}: give exactly one (a concurrency, "
            "or a request rate that Little's law turns into one).",
        },
        "serving.gate.shape": {
            "zh": "形状：TP 整除注意力头数，PP 不超过层数",
            "en": "shape: TP divides the heads, PP <= layers",
        },
        "serving.gate.interconnect": {"zh": "互联：TP 留在一个节点内", "en": "interconnect: TP stays inside a node"},
        "serving.gate.memory": {
            "zh": "显存：权重 + KV 缓存 + 工作区 + 预留",
            "en": "memory: weights + KV cache + workspace + reserve",
        },
        "serving.gate.replica": {
            "zh": "副本不是 DP：各自排队，没有梯度同步",
            "en": "replicas are not DP: own queues, no gradient sync",
        },
        "serving.gate.slo": {
            "zh": "服务目标 (SLO)：TTFT、TPOT、请求速率",
            "en": "service-level objectives (SLO): TTFT, TPOT, request rate",
        },
        "serving.reason.tp_heads": {
            "zh": "tp = {tp} 不整除 {heads} 个注意力头：每个 rank 必须拿到整数个头",
            "en": "tp = {tp} does not divide the {heads} attention heads: each rank needs whole heads",
        },
        "serving.reason.pp_layers": {
            "zh": "pp = {pp} 超过 {layers} 层：有的流水线阶段没有层",
            "en": "pp = {pp} exceeds the {layers} layers: some pipeline stage would hold no layer",
        },
        "serving.reason.interconnect": {
            "zh": "tp = {tp} 超出一个节点的 {gpn} 个设备（或不整除它）："
            "每个 token 每层两次全归约 (all-reduce) 要跨节点，"
            "延迟会压倒解码",
            "en": "tp = {tp} does not fit inside one node of {gpn} devices: two all-reduces per layer per token would "
            "cross nodes, and their latency would swamp decoding",
        },
        "serving.reason.memory": {
            "zh": "每个 rank 需要 {need_gib:.1f} GiB（权重 {weights_gib:.1f} + KV 缓存 {kv_gib:.1f} + 工作区 "
            "{workspace_gib:.1f} + 预留 {reserve_gib:.1f}），设备只有 {have_gib:.1f} GiB：差 {short_gib:.1f} GiB",
            "en": "each rank needs {need_gib:.1f} GiB (weights {weights_gib:.1f} + KV cache {kv_gib:.1f} + workspace "
            "{workspace_gib:.1f} + reserve {reserve_gib:.1f}) but a device has {have_gib:.1f} GiB: "
            "{short_gib:.1f} GiB short",
        },
        "serving.reason.replica": {
            "zh": "{replicas} 个副本只分到 {concurrency} 个并发请求：副本不是数据并行 (DP)，它们不切分同一个批次，"
            "而是各自服务自己的队列，没有请求的副本只是闲置",
            "en": "{replicas} replicas for {concurrency} concurrent requests: replicas are not data parallelism (DP), "
            "they do not split one batch but each serves its own queue, so a replica without requests sits idle",
        },
        "serving.reason.ttft": {
            "zh": "首 token 时间 (TTFT) 下界 {ttft_ms:.0f} ms 超过目标 {slo_ms:.0f} ms",
            "en": "time to first token (TTFT) is at least {ttft_ms:.0f} ms, above the {slo_ms:.0f} ms objective",
        },
        "serving.reason.tpot": {
            "zh": "每输出 token 时间 (TPOT) 下界 {tpot_ms:.1f} ms 超过目标 {slo_ms:.1f} ms",
            "en": "time per output token (TPOT) is at least {tpot_ms:.1f} ms, above the {slo_ms:.1f} ms objective",
        },
        "serving.reason.rate": {
            "zh": "每个副本 {rate:.2f} 请求/秒：按利特尔定律 (Little's law) 并发数 = 速率 × 时延，而时延随并发上升，"
            "在显存能容纳的 {max_concurrency} 个并发内不收敛，这个布局撑不住该速率",
            "en": "{rate:.2f} requests/s per replica: by Little's law concurrency = rate × latency, and latency grows "
            "with concurrency; within the {max_concurrency} concurrent requests memory holds it does not settle, so "
            "this layout cannot sustain the rate",
        },
        "serving.fits": {"zh": "放得下，余量 {headroom_gib:.1f} GiB", "en": "fits, {headroom_gib:.1f} GiB headroom"},
        "serving.short": {"zh": "放不下，差 {short_gib:.1f} GiB", "en": "does not fit, {short_gib:.1f} GiB short"},
        "serving.title": {
            "zh": "服务规划：{model} 在 {cluster}（{world} 个设备）上，{load}，"
            "提示 {prompt} token，输出 {output} token",
            "en": "Serving plan: {model} on {cluster} ({world} devices), {load}, prompts of {prompt} tokens, "
            "{output} output tokens",
        },
        "serving.load_concurrency": {"zh": "{concurrency} 个并发请求", "en": "{concurrency} concurrent requests"},
        "serving.load_rate": {"zh": "{rate:g} 请求/秒", "en": "{rate:g} requests/s"},
        "serving.funnel_head": {"zh": "漏斗（每道门槛筛掉的布局数）：", "en": "Funnel (layouts each gate removes):"},
        "serving.funnel_start": {
            "zh": "  全部布局 replicas × tp × pp：{count}",
            "en": "  all layouts replicas × tp × pp: {count}",
        },
        "serving.funnel_row": {
            "zh": "  - {label}：筛掉 {removed}，剩 {left}",
            "en": "  - {label}: removes {removed}, {left} left",
        },
        "serving.accepted_head": {
            "zh": "通过的布局（下界估计，按每 GPU 吞吐排序）：",
            "en": "Accepted layouts (lower-bound estimates, by throughput per GPU):",
        },
        "serving.candidate": {
            "zh": "  replicas={replicas} tp={tp} pp={pp}：每副本 {batch} 个请求；TTFT >= {ttft_ms:.0f} ms，TPOT >= "
            "{tpot_ms:.1f} ms，每副本 <= {tps:,.0f} token/秒，每 GPU <= {tps_gpu:,.0f} token/秒{tie}",
            "en": "  replicas={replicas} tp={tp} pp={pp}: {batch} requests per replica; TTFT >= {ttft_ms:.0f} ms, "
            "TPOT >= {tpot_ms:.1f} ms, <= {tps:,.0f} tokens/s per replica, <= {tps_gpu:,.0f} tokens/s per GPU{tie}",
        },
        "serving.tie": {
            "zh": "（与最佳相差不到 {tol:.0%}，模型分不出高下）",
            "en": " (within {tol:.0%} of the best: a tie)",
        },
        "serving.ledger": {
            "zh": "    每 rank 显存：权重 {weights_gib:.1f} + KV 缓存 {kv_gib:.1f} + 工作区 {workspace_gib:.1f} + 预留 "
            "{reserve_gib:.1f} = {total_gib:.1f} / {device_gib:.0f} GiB，{verdict}",
            "en": "    memory per rank: weights {weights_gib:.1f} + KV cache {kv_gib:.1f} + workspace "
            "{workspace_gib:.1f} + reserve {reserve_gib:.1f} = {total_gib:.1f} / {device_gib:.0f} GiB, {verdict}",
        },
        "serving.comm": {
            "zh": "    TP 全归约：每 token {count} 次 × {each_us:.1f} µs（NCCL 选 {algorithm}/{protocol}）"
            "= {total_ms:.2f} ms；解码受{bound}限制",
            "en": "    TP all-reduce: {count} per token × {each_us:.1f} µs (NCCL picks {algorithm}/{protocol}) = "
            "{total_ms:.2f} ms; decode is {bound}-bound",
        },
        "serving.bound.memory": {"zh": "显存带宽", "en": "memory"},
        "serving.bound.compute": {"zh": "算力", "en": "compute"},
        "serving.none_accepted": {"zh": "没有布局通过。", "en": "No layout passes."},
        "serving.no_fit": {
            "zh": "没有布局放得下：最接近的是 replicas={replicas} tp={tp} pp={pp}，每 rank 差 {short_gib:.1f} GiB；"
            "它每个副本最多容纳 {max_concurrency} 个并发请求。",
            "en": "No layout fits: the closest is replicas={replicas} tp={tp} pp={pp}, {short_gib:.1f} GiB short per "
            "rank; one of its replicas holds at most {max_concurrency} concurrent requests.",
        },
        "serving.no_fit_weights": {
            "zh": "没有布局放得下：最接近的是 replicas={replicas} tp={tp} pp={pp}，每 rank 差 {short_gib:.1f} GiB；"
            "光是权重就放不下，需要更多设备或更低精度的权重。",
            "en": "No layout fits: the closest is replicas={replicas} tp={tp} pp={pp}, {short_gib:.1f} GiB short per "
            "rank; the weights alone do not fit, so it needs more devices or lower-precision weights.",
        },
        "serving.assumptions_head": {
            "zh": "假设（所有时间都是下界）：",
            "en": "Assumptions (every time is a lower bound):",
        },
        "serving.assume.roofline": {
            "zh": "内核达到峰值算力或满 HBM 带宽（屋顶线）；没有排队、调度或内核启动开销",
            "en": "kernels run at peak FLOP/s or full HBM bandwidth (the roofline); no queueing, scheduling or launch "
            "overhead",
        },
        "serving.assume.context": {
            "zh": "显存按每个请求的完整上下文（提示 + 输出）计；解码时间按平均上下文（提示 + 输出/2）计",
            "en": "memory holds each request's full context (prompt + output); decode time uses the mean context "
            "(prompt + output/2)",
        },
        "serving.assume.comm": {
            "zh": "TP 每层两次全归约，按 NCCL 自己的成本模型选算法和协议（小消息用 LL），不与计算重叠",
            "en": "two TP all-reduces per layer, with the algorithm and protocol NCCL's own cost model picks (LL for "
            "small messages), not overlapped with compute",
        },
        "serving.assume.throughput": {
            "zh": "吞吐 = 输出 token / (各请求预填充时间之和 + 输出长度 × TPOT)："
            "预填充与解码串行，连续批处理保持批次满",
            "en": "throughput = output tokens / (the batch's prefills + output length × TPOT): prefill and decode take "
            "turns, continuous batching keeps the batch full",
        },
    }
)


def _check_specs(model: Any, cluster: Any = None, *, with_cluster: bool = True) -> None:
    """TypeError naming ``model`` or ``cluster`` when they are not the planner's specs (e.g. a preset's name)."""
    if not isinstance(model, ModelSpec):
        raise TypeError(tr("validate.type_choice", name="model", value=model, type=type(model).__name__))
    if with_cluster and not isinstance(cluster, ClusterSpec):
        raise TypeError(tr("validate.type_choice", name="cluster", value=cluster, type=type(cluster).__name__))


# --------------------------------------------------------------------------- the KV cache


def kv_heads_per_rank(kv_heads: int, tp: int) -> int:
    """KV heads one TP rank holds: kv_heads / tp, or 1 when tp exceeds kv_heads (each head is replicated).

    >>> kv_heads_per_rank(8, 4), kv_heads_per_rank(8, 16), kv_heads_per_rank(1, 8)
    (2, 1, 1)

    Taught in: lesson 10 (serving).
    """
    kv_heads = check_int("kv_heads", kv_heads, ge=1)
    tp = check_int("tp", tp, ge=1)
    return -(-kv_heads // tp)


def _kv_bytes(model: ModelSpec, tokens: Any, tp: int, pp: int, kv_bytes: Any) -> Any:
    assert model.kv_heads is not None
    layers_per_stage = -(-model.layers // pp)
    return 2 * tokens * layers_per_stage * (-(-model.kv_heads // tp)) * model.head_dim * kv_bytes


@finite_result
def kv_cache_bytes(model: ModelSpec, *, tokens: int, tp: int = 1, pp: int = 1, kv_bytes: int = 2) -> int:
    """Bytes of keys and values for ``tokens`` cached tokens on one rank (the fullest one).

    2 (K and V) · layers per stage · KV heads per rank · head_dim · kv_bytes · tokens. Grouped-query
    attention (GQA) and multi-query attention (MQA) have fewer KV heads than query heads, which is the
    whole saving. TP splits the KV heads (:func:`kv_heads_per_rank`: replicated when tp > kv_heads);
    PP splits the layers (the first stages hold ceil(layers / pp)).

    Parameters:
        model: a :class:`~coursekit.planner.ModelSpec`.
        tokens: cached tokens, summed over the requests on the rank, >= 0.
        tp, pp: tensor- and pipeline-parallel degrees, >= 1; pp <= layers.
        kv_bytes: bytes per cached element (2 for bf16/fp16, 1 for fp8), >= 1.

    >>> from coursekit.presets import MODELS
    >>> kv_cache_bytes(MODELS["llama3-70b"], tokens=2048, tp=8) / 2**20   # one 2K-token request on one of 8 GPUs
    80.0

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, with_cluster=False)
    tokens = check_int("tokens", tokens, ge=0)
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    kv_bytes = check_int("kv_bytes", kv_bytes, ge=1)
    return int(_kv_bytes(model, tokens, tp, pp, kv_bytes))


# --------------------------------------------------------------------------- the memory ledger


@dataclass(frozen=True)
class ServingLedger:
    """Memory of one serving rank, GiB: weights, KV cache, activation workspace, runtime reserve.

    ``kv_per_request_gib`` is one request's full context on this rank; ``max_concurrency`` the most
    requests one replica holds before the KV cache no longer fits (0 when the weights alone do not).
    """

    weights_gib: float
    kv_cache_gib: float
    workspace_gib: float
    reserve_gib: float
    device_gib: float
    kv_per_request_gib: float
    concurrency: int

    @property
    def total_gib(self) -> float:
        """Everything a rank holds."""
        return self.weights_gib + self.kv_cache_gib + self.workspace_gib + self.reserve_gib

    @property
    def headroom_gib(self) -> float:
        """Device memory left over; negative when it does not fit."""
        return self.device_gib - self.total_gib

    @property
    def fits(self) -> bool:
        """True when the rank's total fits in the device."""
        return self.headroom_gib >= 0

    @property
    def max_concurrency(self) -> int:
        """Requests one replica holds before its KV cache overflows the device."""
        free = self.device_gib - self.weights_gib - self.workspace_gib - self.reserve_gib
        if free <= 0:
            return 0
        return int(free // self.kv_per_request_gib) if self.kv_per_request_gib > 0 else _MAX_CONCURRENCY

    def verdict(self) -> str:
        """``fits, x GiB headroom`` or ``does not fit, x GiB short``, in the current language."""
        if self.fits:
            return tr("serving.fits", headroom_gib=self.headroom_gib)
        return tr("serving.short", short_gib=-self.headroom_gib)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready numbers."""
        return {
            "weights_gib": self.weights_gib,
            "kv_cache_gib": self.kv_cache_gib,
            "workspace_gib": self.workspace_gib,
            "reserve_gib": self.reserve_gib,
            "total_gib": self.total_gib,
            "device_gib": self.device_gib,
            "headroom_gib": self.headroom_gib,
            "fits": self.fits,
            "max_concurrency_per_replica": self.max_concurrency,
        }


def _matmul_params(model: ModelSpec) -> float:
    """Parameters a token multiplies through (``active_params`` minus the input embedding lookup)."""
    lookup = model.input_embedding_params - (model.vocab * model.hidden if model.tied_embeddings else 0)
    return float(model.active_params - lookup)


def _workspace_bytes(model: ModelSpec, tp: int, chunk_tokens: int, batch: int) -> float:
    """One layer's transient tensors for the largest forward pass (a prefill chunk), reused layer after layer.

    Residual stream and its normalised copy (2h), the QKV output ((h + 2·kv)/tp), the MLP's inner
    activations ((matrices - 1)·f/tp), in bf16; plus fp32 logits of the batch's last tokens (V/tp each).
    """
    matrices = 3 if model.mlp == "swiglu" else 2
    width = model.moe_ffn_hidden or model.ffn_hidden
    per_token = 2 * model.hidden + (model.hidden + 2 * model.kv_hidden) / tp + (matrices - 1) * width / tp
    return ACTIVATION_BYTES * chunk_tokens * per_token + LOGITS_BYTES * batch * model.vocab / tp


@finite_result
def serving_memory_ledger(
    model: ModelSpec,
    cluster: ClusterSpec,
    *,
    tp: int = 1,
    pp: int = 1,
    concurrency: int,
    context_tokens: int,
    weight_bytes: float = 2.0,
    kv_bytes: int = 2,
    prefill_chunk_tokens: int | None = None,
    runtime_reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB,
) -> ServingLedger:
    """Memory of one rank of a replica serving ``concurrency`` requests of ``context_tokens`` tokens each.

    weights · weight_bytes / (tp · pp) + KV cache of every request's context + activation workspace
    (one layer's tensors for a prefill chunk, default one whole prompt of ``context_tokens``) + reserve.

    >>> from coursekit.presets import CLUSTERS, MODELS
    >>> ledger = serving_memory_ledger(MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, concurrency=64,
    ...                                context_tokens=2304)
    >>> round(ledger.weights_gib, 1), round(ledger.kv_cache_gib, 1), ledger.fits
    (16.4, 5.6, True)

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, cluster)
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    concurrency = check_int("concurrency", concurrency, ge=0)
    context_tokens = check_int("context_tokens", context_tokens, ge=1)
    weight_bytes = check_number("weight_bytes", weight_bytes, gt=0)
    kv_bytes = check_int("kv_bytes", kv_bytes, ge=1)
    chunk = (
        context_tokens
        if prefill_chunk_tokens is None
        else check_int("prefill_chunk_tokens", prefill_chunk_tokens, ge=1)
    )
    reserve = check_number("runtime_reserve_gib", runtime_reserve_gib, ge=0)
    per_request = _kv_bytes(model, context_tokens, tp, pp, kv_bytes)
    return ServingLedger(
        weights_gib=model.num_params * weight_bytes / (tp * pp) / GIB_BYTES,
        kv_cache_gib=concurrency * per_request / GIB_BYTES,
        workspace_gib=_workspace_bytes(model, tp, chunk, max(concurrency, 1)) / GIB_BYTES,
        reserve_gib=reserve,
        device_gib=cluster.memory_per_device_gib,
        kv_per_request_gib=per_request / GIB_BYTES,
        concurrency=concurrency,
    )


# --------------------------------------------------------------------------- TP's all-reduce at small sizes


@dataclass(frozen=True)
class AllReduceChoice:
    """One all-reduce as NCCL's cost model prices it: the (algorithm, protocol) it picks and the time."""

    algorithm: str
    protocol: str
    latency_s: float
    transfer_s: float

    @property
    def time_s(self) -> float:
        """Latency plus transfer."""
        return self.latency_s + self.transfer_s


@finite_result
def tp_all_reduce(
    payload_bytes: float,
    *,
    ranks: int,
    bandwidth_bytes_per_s: float,
    step_latency_s: float = NCCL_RING_NVLINK_LATENCY_S,
) -> AllReduceChoice:
    """The fastest (algorithm, protocol) for one all-reduce inside a node, by NCCL's own cost model.

    For each of ring and tree with the LL, LL128 and Simple protocols: base latency + 2·(n-1) hops ·
    hop latency + S / (bandwidth · protocol share · n / (2(n-1))) — the tables of NCCL's
    ``src/graph/tuning.cc`` (see :data:`coursekit.hardware.NCCL_BASE_LATENCY_US`). Hop latencies are
    NVLink's, scaled by ``step_latency_s`` / 3.4 µs (NCCL's ring/Simple NVLink hop) for other links.
    With ``ranks == 1`` nothing is exchanged.

    >>> small = tp_all_reduce(16 * 8192 * 2, ranks=8, bandwidth_bytes_per_s=450e9)   # a decode step, batch 16
    >>> small.algorithm, small.protocol, round(small.time_s * 1e6, 1)
    ('ring', 'LL', 20.2)
    >>> tp_all_reduce(256e6, ranks=8, bandwidth_bytes_per_s=450e9).protocol   # a large message
    'Simple'

    Taught in: lesson 10 (serving).
    """
    payload = check_number("payload_bytes", payload_bytes, ge=0)
    n = check_int("ranks", ranks, ge=1)
    bandwidth = check_number("bandwidth_bytes_per_s", bandwidth_bytes_per_s, gt=0)
    scale = check_number("step_latency_s", step_latency_s, ge=0) / NCCL_RING_NVLINK_LATENCY_S
    if n == 1:
        return AllReduceChoice("none", "none", 0.0, 0.0)
    best: AllReduceChoice | None = None
    for key, share in NCCL_PROTOCOL_BANDWIDTH_SHARE.items():
        algorithm, protocol = key
        latency_us = NCCL_BASE_LATENCY_US[key] + 2 * (n - 1) * NCCL_NVLINK_STEP_LATENCY_US[key] * scale
        bus = bandwidth * share
        if protocol == "LL":
            bus = min(bus, NCCL_LL_MAX_BUS_BYTES_PER_S * (share / NCCL_PROTOCOL_BANDWIDTH_SHARE[("ring", "LL")]))
        algorithm_bandwidth = bus * n / (2 * (n - 1)) if algorithm == "ring" else bus
        choice = AllReduceChoice(algorithm, protocol, latency_us / US_PER_S, payload / algorithm_bandwidth)
        if best is None or choice.time_s < best.time_s:
            best = choice
    assert best is not None
    return best


# --------------------------------------------------------------------------- prefill and decode


@dataclass(frozen=True)
class ServingEstimate:
    """Lower-bound times of one replica (``tp · pp`` devices) serving ``batch`` concurrent requests.

    Fields:
        time_to_first_token_s: prefill of one prompt (TTFT), no queueing.
        time_per_output_token_s: one decode step (TPOT) = compute-or-memory time + communication.
        decode_compute_s, decode_memory_s: the two roofline limbs of a decode step (all stages).
        decode_comm_s: TP all-reduces and PP hand-offs per decode step.
        weights_floor_s: the weights one decode step reads, per GPU, ÷ HBM bandwidth — the floor no decode step
            beats. A dense model's step reads all of its weights; a mixture of experts' only the experts its
            ``ceil(batch / pp)`` tokens are routed to (expected distinct experts per layer under uniform routing,
            ``E · (1 - (1 - k/E)^tokens)``), so at batch 1 the floor is its active parameters, not all of them.
        all_reduce: NCCL's choice for one decode all-reduce (``none`` without TP).
        tokens_per_s: output tokens per second of the replica (see ``assumptions``).
        decode_tokens_per_s: batch / TPOT, decode alone.
        tokens_per_s_per_gpu: ``tokens_per_s`` / (tp · pp).
    """

    tp: int
    pp: int
    batch: int
    prompt_tokens: int
    output_tokens: int
    time_to_first_token_s: float
    time_per_output_token_s: float
    prefill_compute_s: float
    prefill_memory_s: float
    prefill_comm_s: float
    decode_compute_s: float
    decode_memory_s: float
    decode_comm_s: float
    weights_floor_s: float
    all_reduce: AllReduceChoice
    all_reduces_per_token: int
    tokens_per_s: float
    decode_tokens_per_s: float
    lower_bound: bool = True
    assumptions: tuple[str, ...] = SERVING_ASSUMPTIONS

    @property
    def tokens_per_s_per_gpu(self) -> float:
        """Output tokens per second per device of the replica."""
        return self.tokens_per_s / (self.tp * self.pp)

    @property
    def decode_bound(self) -> str:
        """``"memory"`` or ``"compute"``: the roofline limb that sets a decode step."""
        return "memory" if self.decode_memory_s >= self.decode_compute_s else "compute"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready numbers, every time labelled a lower bound."""
        return {
            "lower_bound": self.lower_bound,
            "time_to_first_token_s": self.time_to_first_token_s,
            "time_per_output_token_s": self.time_per_output_token_s,
            "tokens_per_s": self.tokens_per_s,
            "tokens_per_s_per_gpu": self.tokens_per_s_per_gpu,
            "decode_tokens_per_s": self.decode_tokens_per_s,
            "weights_floor_s": self.weights_floor_s,
            "decode_compute_s": self.decode_compute_s,
            "decode_memory_s": self.decode_memory_s,
            "decode_comm_s": self.decode_comm_s,
            "decode_bound": self.decode_bound,
            "all_reduce": {
                "algorithm": self.all_reduce.algorithm,
                "protocol": self.all_reduce.protocol,
                "time_s": self.all_reduce.time_s,
                "per_token": self.all_reduces_per_token,
            },
            "assumptions": [tr(f"serving.assume.{key}") for key in self.assumptions],
        }


def _experts_read(model: ModelSpec, tokens: int) -> float:
    """Expected distinct experts per MoE layer that ``tokens`` uniformly routed tokens touch."""
    e, k = model.num_experts, model.top_k
    return float(e * (1 - (1 - k / e) ** tokens))


def _weight_read_params(model: ModelSpec, batch: int) -> float:
    """Parameters a step over ``batch`` tokens must read: all of a dense model; the touched experts of an MoE."""
    if not model.is_moe:
        return float(model.num_params)
    unread = model.layers * (model.num_experts - _experts_read(model, batch)) * model.expert_params
    return float(model.num_params - unread)


def _handoff_s(model: ModelSpec, cluster: ClusterSpec, tp: int, pp: int, tokens: int) -> float:
    if pp == 1:
        return 0.0
    bandwidth, latency = cluster.link(group_link(tp * pp, cluster.gpus_per_node))
    hop = collective_time_s(
        "send_recv",
        payload_bytes=tokens * model.hidden * ACTIVATION_BYTES / tp,
        ranks=2,
        bandwidth_bytes_per_s=bandwidth,
        latency_s=latency,
    )
    return (pp - 1) * hop


def _all_reduce(model: ModelSpec, cluster: ClusterSpec, tp: int, tokens: int) -> AllReduceChoice:
    return tp_all_reduce(
        tokens * model.hidden * ACTIVATION_BYTES,
        ranks=tp,
        bandwidth_bytes_per_s=cluster.intra_node_bandwidth_bytes_per_s,
        step_latency_s=cluster.intra_node_latency_s,
    )


def _estimate(
    model: ModelSpec,
    cluster: ClusterSpec,
    tp: int,
    pp: int,
    batch: int,
    prompt: int,
    output: int,
    weight_bytes: float,
    kv_bytes: int,
) -> ServingEstimate:
    peak, hbm = cluster.peak_flops, cluster.memory_bandwidth_bytes_per_s
    ranks = tp * pp
    n_matmul = _matmul_params(model)
    layers, hidden = model.layers, model.hidden
    all_reduces = 2 * layers if tp > 1 else 0
    # Prefill of one prompt: 2·N per token plus causal attention (half the full 4·L·h·s per token, forward).
    prefill_flops = 2 * n_matmul * prompt + _attention_flops_per_token(layers, hidden, prompt) / 3 / 2 * prompt
    prefill_bytes = _weight_read_params(model, prompt) * weight_bytes + _kv_bytes(model, prompt, 1, 1, kv_bytes)
    prefill_compute = prefill_flops / ranks / peak * pp
    prefill_memory = prefill_bytes / ranks / hbm * pp
    prefill_comm = all_reduces * _all_reduce(model, cluster, tp, prompt).time_s + _handoff_s(
        model, cluster, tp, pp, prompt
    )
    ttft = pp * float(_roofline_time_s(prefill_flops / ranks, prefill_bytes / ranks, peak, hbm)) + prefill_comm
    # Decode: the batch is split into pp groups that keep the pipeline full; one token passes every stage.
    group = -(-batch // pp)
    context = prompt + output / 2
    step_flops = 2 * n_matmul * group + _attention_flops_per_token(layers, hidden, 1) / 3 * context * group
    step_bytes = _weight_read_params(model, group) * weight_bytes + _kv_bytes(model, group * context, 1, 1, kv_bytes)
    stage = float(_roofline_time_s(step_flops / ranks, step_bytes / ranks, peak, hbm))
    choice = _all_reduce(model, cluster, tp, group)
    decode_comm = all_reduces * choice.time_s + _handoff_s(model, cluster, tp, pp, group)
    tpot = pp * stage + decode_comm
    cycle = batch * ttft + output * tpot
    return ServingEstimate(
        tp=tp,
        pp=pp,
        batch=batch,
        prompt_tokens=prompt,
        output_tokens=output,
        time_to_first_token_s=ttft,
        time_per_output_token_s=tpot,
        prefill_compute_s=prefill_compute,
        prefill_memory_s=prefill_memory,
        prefill_comm_s=prefill_comm,
        decode_compute_s=step_flops / ranks / peak * pp,
        decode_memory_s=step_bytes / ranks / hbm * pp,
        decode_comm_s=decode_comm,
        weights_floor_s=_weight_read_params(model, group) * weight_bytes / ranks / hbm,
        all_reduce=choice,
        all_reduces_per_token=all_reduces,
        tokens_per_s=batch * output / cycle,
        decode_tokens_per_s=batch / tpot,
    )


@finite_result
def serving_estimate(
    model: ModelSpec,
    cluster: ClusterSpec,
    *,
    tp: int = 1,
    pp: int = 1,
    batch: int = 1,
    prompt_tokens: int,
    output_tokens: int,
    weight_bytes: float = 2.0,
    kv_bytes: int = 2,
) -> ServingEstimate:
    """Lower-bound TTFT, TPOT and tokens/s of one replica on ``tp · pp`` devices serving ``batch`` requests.

    * **Prefill** (TTFT) of one prompt of P tokens: FLOPs 2·N·P + causal attention 2·L·h·P², bytes the
      weights once; on the roofline it is compute-bound for any real prompt. Plus 2·L all-reduces of
      P·h activations and (pp - 1) hand-offs.
    * **Decode** (TPOT): a step reads the weights and the batch's KV cache (mean context P + O/2) and
      does 2·N + 4·L·h·context FLOPs per request; plus 2·L all-reduces of batch·h activations, priced by
      :func:`tp_all_reduce`, and (pp - 1) hand-offs. PP splits the batch into pp groups that keep every
      stage busy, but one token still passes all pp stages in turn.

    >>> from coursekit.presets import CLUSTERS, MODELS
    >>> est = serving_estimate(MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, batch=64, prompt_tokens=2048,
    ...                        output_tokens=256)
    >>> round(est.time_per_output_token_s * 1e3, 1), est.decode_bound, est.all_reduce.protocol
    (12.7, 'memory', 'LL')

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, cluster)
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    batch = check_int("batch", batch, ge=1)
    prompt = check_int("prompt_tokens", prompt_tokens, ge=1)
    output = check_int("output_tokens", output_tokens, ge=1)
    weight_bytes = check_number("weight_bytes", weight_bytes, gt=0)
    kv_bytes = check_int("kv_bytes", kv_bytes, ge=1)
    return _estimate(model, cluster, tp, pp, batch, prompt, output, weight_bytes, kv_bytes)


@finite_result
def littles_law_concurrency(request_rate_per_s: float, latency_s: float) -> float:
    """Little's law: requests in the system = arrival rate × time each spends in it (L = λ · W).

    >>> littles_law_concurrency(10.0, 3.2)   # 10 requests/s that each take 3.2 s keep 32 in flight
    32.0

    Taught in: lesson 10 (serving).
    """
    rate = check_number("request_rate_per_s", request_rate_per_s, ge=0)
    latency = check_number("latency_s", latency_s, ge=0)
    return rate * latency


# --------------------------------------------------------------------------- the serving search


@dataclass(frozen=True)
class ServingWorkload:
    """What to serve: request shape, load and the optional service-level objectives (SLO).

    Parameters:
        prompt_tokens, output_tokens: tokens per request read (P) and generated (O), >= 1.
        concurrency: requests in flight over the whole cluster; or
        request_rate_per_s: arrivals per second, turned into a concurrency by Little's law (give one).
        ttft_slo_s, tpot_slo_s: objectives for TTFT and TPOT, seconds; ``None`` = none.
        weight_bytes: bytes per weight (2 for bf16); kv_bytes: bytes per cached K/V element.
        runtime_reserve_gib: memory kept free per device (CUDA context, allocator), GiB.
        max_pp: largest pipeline degree the search tries.

    >>> ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=64).context_tokens
    2304
    >>> ServingWorkload(prompt_tokens=0, output_tokens=256, concurrency=64)
    Traceback (most recent call last):
    ...
    ValueError: prompt_tokens = 0: must be >= 1.

    Taught in: lesson 10 (serving).
    """

    prompt_tokens: int
    output_tokens: int
    concurrency: int | None = None
    request_rate_per_s: float | None = None
    ttft_slo_s: float | None = None
    tpot_slo_s: float | None = None
    weight_bytes: float = 2.0
    kv_bytes: int = 2
    runtime_reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB
    max_pp: int = 8

    def __post_init__(self) -> None:
        raw: Any = self
        check_int("prompt_tokens", raw.prompt_tokens, ge=1)
        check_int("output_tokens", raw.output_tokens, ge=1)
        if (raw.concurrency is None) == (raw.request_rate_per_s is None):
            raise ValueError(tr("serving.both_load", concurrency=raw.concurrency, rate=raw.request_rate_per_s))
        if raw.concurrency is not None:
            check_int("concurrency", raw.concurrency, ge=1, le=_MAX_CONCURRENCY)
        else:
            object.__setattr__(
                self, "request_rate_per_s", check_number("request_rate_per_s", raw.request_rate_per_s, gt=0)
            )
        for name in ("ttft_slo_s", "tpot_slo_s"):
            if getattr(raw, name) is not None:
                object.__setattr__(self, name, check_number(name, getattr(raw, name), gt=0))
        object.__setattr__(self, "weight_bytes", check_number("weight_bytes", raw.weight_bytes, gt=0))
        check_int("kv_bytes", raw.kv_bytes, ge=1)
        object.__setattr__(
            self, "runtime_reserve_gib", check_number("runtime_reserve_gib", raw.runtime_reserve_gib, ge=0)
        )
        check_int("max_pp", raw.max_pp, ge=1)

    @property
    def mode(self) -> str:
        """Always ``"serving"`` (the planner's :class:`~coursekit.planner.WorkloadSpec` has training too)."""
        return "serving"

    @property
    def context_tokens(self) -> int:
        """A request's full context, prompt + output: what its KV cache holds at the end."""
        return self.prompt_tokens + self.output_tokens

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "concurrency": self.concurrency,
            "request_rate_per_s": self.request_rate_per_s,
            "ttft_slo_s": self.ttft_slo_s,
            "tpot_slo_s": self.tpot_slo_s,
            "weight_bytes": self.weight_bytes,
            "kv_bytes": self.kv_bytes,
            "runtime_reserve_gib": self.runtime_reserve_gib,
        }


@dataclass(frozen=True)
class ServingCandidate:
    """One layout ``replicas × tp × pp``: its gate verdicts, ledger and lower-bound estimate."""

    tp: int
    pp: int
    replicas: int
    concurrency_per_replica: int
    reasons: tuple[Reason, ...]
    ledger: ServingLedger | None
    estimate: ServingEstimate | None
    tie: bool = False

    @property
    def accepted(self) -> bool:
        """True when no gate rejected the layout."""
        return not self.reasons

    @property
    def gpus(self) -> int:
        """Devices of the whole layout."""
        return self.tp * self.pp * self.replicas

    @property
    def first_gate(self) -> str | None:
        """The first gate (in :data:`SERVING_GATES` order) that rejected it."""
        return _GATE_OF[self.reasons[0].code] if self.reasons else None

    @property
    def cluster_tokens_per_s(self) -> float:
        """Output tokens/s of all replicas together (0 without an estimate)."""
        return self.estimate.tokens_per_s * self.replicas if self.estimate is not None else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``accepted``, ``degrees``, ``reasons``, ``ledger``, ``estimate``."""
        estimate = None
        if self.estimate is not None:
            estimate = self.estimate.to_dict()
            estimate["cluster_tokens_per_s"] = self.cluster_tokens_per_s
        return {
            "accepted": self.accepted,
            "degrees": {"tp": self.tp, "pp": self.pp, "replicas": self.replicas},
            "concurrency_per_replica": self.concurrency_per_replica,
            "tie_with_best": self.tie,
            "reasons": [{"code": r.code, "message": r.message} for r in self.reasons],
            "ledger": self.ledger.to_dict() if self.ledger is not None else None,
            "estimate": estimate,
        }


_GATE_OF: dict[str, str] = {
    "tp_heads": "shape",
    "pp_layers": "shape",
    "interconnect": "interconnect",
    "memory": "memory",
    "replica": "replica",
    "ttft": "slo",
    "tpot": "slo",
    "rate": "slo",
}


def _rate_concurrency(
    model: ModelSpec, cluster: ClusterSpec, w: ServingWorkload, tp: int, pp: int, rate: float, cap: int
) -> int | None:
    """Concurrency per replica that Little's law settles on for ``rate`` arrivals/s, or None if none <= cap."""
    concurrency = 1
    for _ in range(200):
        est = _estimate(
            model, cluster, tp, pp, concurrency, w.prompt_tokens, w.output_tokens, w.weight_bytes, w.kv_bytes
        )
        latency = est.time_to_first_token_s + w.output_tokens * est.time_per_output_token_s
        needed = max(1, math.ceil(littles_law_concurrency(rate, latency)))
        # Throughput must also keep up: the replica finishes at most tokens_per_s / O requests per second.
        if rate > est.tokens_per_s / w.output_tokens:
            needed = max(needed, concurrency + 1)
        if needed <= concurrency:
            return concurrency
        if needed > cap:
            return None
        concurrency = needed
    return None


def _evaluate(
    model: ModelSpec, cluster: ClusterSpec, w: ServingWorkload, tp: int, pp: int, replicas: int | None = None
) -> ServingCandidate:
    """Gate and estimate one layout: ``replicas`` copies (default: as many as the cluster holds) of tp · pp devices.

    The one serving evaluation: :func:`plan_serving` runs it on every layout, and the planner's serving mode
    (:func:`coursekit.planner.evaluate_composition` with ``replicas``) on one.
    """
    if replicas is None:
        replicas = cluster.world_size // (tp * pp)
    reasons: list[Reason] = []
    if model.heads % tp:
        reasons.append(Reason("tp_heads", "serving.reason.tp_heads", {"tp": tp, "heads": model.heads}))
    if pp > model.layers:
        reasons.append(Reason("pp_layers", "serving.reason.pp_layers", {"pp": pp, "layers": model.layers}))
    if tp > cluster.gpus_per_node or cluster.gpus_per_node % tp:
        reasons.append(Reason("interconnect", "serving.reason.interconnect", {"tp": tp, "gpn": cluster.gpus_per_node}))
    if reasons and reasons[0].code in ("tp_heads", "pp_layers"):
        return ServingCandidate(tp, pp, replicas, 0, tuple(reasons), None, None)
    probe = serving_memory_ledger(
        model,
        cluster,
        tp=tp,
        pp=pp,
        concurrency=1,
        context_tokens=w.context_tokens,
        weight_bytes=w.weight_bytes,
        kv_bytes=w.kv_bytes,
        prefill_chunk_tokens=w.prompt_tokens,
        runtime_reserve_gib=w.runtime_reserve_gib,
    )
    rate_reason: Reason | None = None
    if w.concurrency is not None:
        per_replica = -(-w.concurrency // replicas)
        total = w.concurrency
    else:
        assert w.request_rate_per_s is not None
        rate = w.request_rate_per_s / replicas
        settled = _rate_concurrency(model, cluster, w, tp, pp, rate, max(probe.max_concurrency, 1))
        if settled is None:
            rate_reason = Reason(
                "rate", "serving.reason.rate", {"rate": rate, "max_concurrency": probe.max_concurrency}
            )
            per_replica = max(probe.max_concurrency, 1)
        else:
            per_replica = settled
        total = per_replica * replicas
    ledger = serving_memory_ledger(
        model,
        cluster,
        tp=tp,
        pp=pp,
        concurrency=per_replica,
        context_tokens=w.context_tokens,
        weight_bytes=w.weight_bytes,
        kv_bytes=w.kv_bytes,
        prefill_chunk_tokens=w.prompt_tokens,
        runtime_reserve_gib=w.runtime_reserve_gib,
    )
    if not ledger.fits:
        reasons.append(
            Reason(
                "memory",
                "serving.reason.memory",
                {
                    "need_gib": ledger.total_gib,
                    "weights_gib": ledger.weights_gib,
                    "kv_gib": ledger.kv_cache_gib,
                    "workspace_gib": ledger.workspace_gib,
                    "reserve_gib": ledger.reserve_gib,
                    "have_gib": ledger.device_gib,
                    "short_gib": -ledger.headroom_gib,
                },
            )
        )
    if w.concurrency is not None and replicas > total:
        reasons.append(Reason("replica", "serving.reason.replica", {"replicas": replicas, "concurrency": total}))
    estimate = _estimate(
        model, cluster, tp, pp, per_replica, w.prompt_tokens, w.output_tokens, w.weight_bytes, w.kv_bytes
    )
    if w.ttft_slo_s is not None and estimate.time_to_first_token_s > w.ttft_slo_s:
        reasons.append(
            Reason(
                "ttft",
                "serving.reason.ttft",
                {"ttft_ms": estimate.time_to_first_token_s * 1e3, "slo_ms": w.ttft_slo_s * 1e3},
            )
        )
    if w.tpot_slo_s is not None and estimate.time_per_output_token_s > w.tpot_slo_s:
        reasons.append(
            Reason(
                "tpot",
                "serving.reason.tpot",
                {"tpot_ms": estimate.time_per_output_token_s * 1e3, "slo_ms": w.tpot_slo_s * 1e3},
            )
        )
    if rate_reason is not None:
        reasons.append(rate_reason)
    reasons.sort(key=lambda r: SERVING_GATES.index(_GATE_OF[r.code]))
    return ServingCandidate(tp, pp, replicas, per_replica, tuple(reasons), ledger, estimate)


@dataclass(frozen=True)
class ServingPlanResult:
    """Every layout of a serving search, the funnel and the accepted ones ranked by throughput per GPU."""

    model: ModelSpec
    cluster: ClusterSpec
    workload: ServingWorkload
    candidates: tuple[ServingCandidate, ...]
    funnel: tuple[tuple[str, int], ...] = field(default=())

    @property
    def accepted(self) -> tuple[ServingCandidate, ...]:
        """Accepted layouts, best throughput per GPU first."""
        return tuple(c for c in self.candidates if c.accepted)

    @property
    def closest_misfit(self) -> ServingCandidate | None:
        """When no layout fits in memory: the one with the smallest shortfall (None otherwise)."""
        if any(c.ledger is not None and c.ledger.fits for c in self.candidates):
            return None
        misfits = [c for c in self.candidates if c.ledger is not None]
        if not misfits:
            return None
        return max(misfits, key=lambda c: c.ledger.headroom_gib if c.ledger is not None else -math.inf)

    def candidate(self, *, tp: int, pp: int = 1) -> ServingCandidate:
        """The layout with these degrees (replicas follow from the cluster)."""
        for c in self.candidates:
            if c.tp == tp and c.pp == pp:
                return c
        raise ValueError(
            tr(
                "validate.choice",
                name="(tp, pp)",
                value=(tp, pp),
                choices=", ".join(f"({c.tp}, {c.pp})" for c in self.candidates),
            )
        )

    def _load_text(self) -> str:
        w = self.workload
        if w.concurrency is not None:
            return tr("serving.load_concurrency", concurrency=w.concurrency)
        return tr("serving.load_rate", rate=w.request_rate_per_s)

    def report(self, top: int = 5) -> str:
        """The funnel, the accepted layouts with their ledgers, or why none fits; then the assumptions."""
        w = self.workload
        lines = [
            tr(
                "serving.title",
                model=self.model.name,
                cluster=self.cluster.name,
                world=self.cluster.world_size,
                load=self._load_text(),
                prompt=w.prompt_tokens,
                output=w.output_tokens,
            ),
            "",
            tr("serving.funnel_head"),
            tr("serving.funnel_start", count=len(self.candidates)),
        ]
        left = len(self.candidates)
        for gate, removed in self.funnel:
            left -= removed
            lines.append(tr("serving.funnel_row", label=tr(f"serving.gate.{gate}"), removed=removed, left=left))
        lines.append("")
        accepted = self.accepted
        if accepted:
            lines.append(tr("serving.accepted_head"))
            for c in accepted[:top]:
                lines.extend(_candidate_lines(c))
        else:
            lines.append(tr("serving.none_accepted"))
            misfit = self.closest_misfit
            if misfit is not None and misfit.ledger is not None:
                lines.append(
                    tr(
                        "serving.no_fit" if misfit.ledger.max_concurrency else "serving.no_fit_weights",
                        replicas=misfit.replicas,
                        tp=misfit.tp,
                        pp=misfit.pp,
                        short_gib=-misfit.ledger.headroom_gib,
                        max_concurrency=misfit.ledger.max_concurrency,
                    )
                )
            else:
                for c in sorted(self.candidates, key=_rank_key)[:top]:
                    lines.extend(_candidate_lines(c))
                    lines.extend(f"    [{r.code}] {r.message}" for r in c.reasons)
        lines.append("")
        lines.append(tr("serving.assumptions_head"))
        lines.extend(f"  - {tr(f'serving.assume.{key}')}" for key in SERVING_ASSUMPTIONS)
        return "\n".join(lines)

    def to_dict(self, top: int = 5, include_rejected: bool = False) -> dict[str, Any]:
        """JSON-ready result: ``top`` holds the best layouts, accepted ones first."""
        ranked = sorted(self.candidates, key=_rank_key)
        misfit = self.closest_misfit
        left = len(self.candidates)
        funnel = []
        for gate, removed in self.funnel:
            left -= removed
            funnel.append({"gate": gate, "label": tr(f"serving.gate.{gate}"), "removed": removed, "left": left})
        payload: dict[str, Any] = {
            "mode": "serving",
            "model": self.model.name,
            "cluster": self.cluster.name,
            "world_size": self.cluster.world_size,
            "workload": self.workload.to_dict(),
            "candidates": len(self.candidates),
            "accepted": len(self.accepted),
            "funnel": funnel,
            "top": [c.to_dict() for c in ranked[:top]],
            "no_fit": None
            if misfit is None or misfit.ledger is None
            else {
                "degrees": {"tp": misfit.tp, "pp": misfit.pp, "replicas": misfit.replicas},
                "shortfall_gib": -misfit.ledger.headroom_gib,
                "max_concurrency_per_replica": misfit.ledger.max_concurrency,
            },
            "assumptions": [tr(f"serving.assume.{key}") for key in SERVING_ASSUMPTIONS],
        }
        if include_rejected:
            payload["rejected"] = [c.to_dict() for c in ranked if not c.accepted]
        return payload


def _rank_key(c: ServingCandidate) -> tuple[bool, float, float]:
    if c.estimate is None:
        return (not c.accepted, math.inf, math.inf)
    return (not c.accepted, -c.estimate.tokens_per_s_per_gpu, c.estimate.time_per_output_token_s)


def _candidate_lines(c: ServingCandidate) -> list[str]:
    lines: list[str] = []
    if c.estimate is not None:
        e = c.estimate
        lines.append(
            tr(
                "serving.candidate",
                replicas=c.replicas,
                tp=c.tp,
                pp=c.pp,
                batch=c.concurrency_per_replica,
                ttft_ms=e.time_to_first_token_s * 1e3,
                tpot_ms=e.time_per_output_token_s * 1e3,
                tps=e.tokens_per_s,
                tps_gpu=e.tokens_per_s_per_gpu,
                tie=tr("serving.tie", tol=TIE_TOLERANCE) if c.tie else "",
            )
        )
    if c.ledger is not None:
        lg = c.ledger
        lines.append(
            tr(
                "serving.ledger",
                weights_gib=lg.weights_gib,
                kv_gib=lg.kv_cache_gib,
                workspace_gib=lg.workspace_gib,
                reserve_gib=lg.reserve_gib,
                total_gib=lg.total_gib,
                device_gib=lg.device_gib,
                verdict=lg.verdict(),
            )
        )
    if c.estimate is not None and c.estimate.all_reduces_per_token:
        e = c.estimate
        lines.append(
            tr(
                "serving.comm",
                count=e.all_reduces_per_token,
                each_us=e.all_reduce.time_s * US_PER_S,
                algorithm=e.all_reduce.algorithm,
                protocol=e.all_reduce.protocol,
                total_ms=e.all_reduces_per_token * e.all_reduce.time_s * 1e3,
                bound=tr(f"serving.bound.{e.decode_bound}"),
            )
        )
    return lines


def plan_serving(model: ModelSpec, cluster: ClusterSpec, workload: ServingWorkload) -> ServingPlanResult:
    """Search every serving layout replicas × tp × pp = world, gate it and estimate the rest.

    Gates, in order (:data:`SERVING_GATES`): shape (TP divides the heads, PP <= layers), interconnect (TP
    inside one node), memory (the per-rank ledger fits), replica (every replica gets requests: replicas
    are independent queues, not DP), SLO (TTFT, TPOT, and a request rate Little's law can settle).

    >>> from coursekit.presets import CLUSTERS, MODELS
    >>> result = plan_serving(MODELS["llama3-70b"], CLUSTERS["h100-8"],
    ...                       ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=64))
    >>> [(c.replicas, c.tp, c.pp) for c in result.accepted][:2]
    [(2, 4, 1), (1, 8, 1)]

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, cluster)
    if not isinstance(workload, ServingWorkload):
        raise TypeError(tr("validate.type_choice", name="workload", value=workload, type=type(workload).__name__))
    world = cluster.world_size
    layouts = [
        (tp, pp)
        for tp in range(1, world + 1)
        if world % tp == 0
        for pp in range(1, min(workload.max_pp, world // tp) + 1)
        if (world // tp) % pp == 0
    ]
    evaluated = [_evaluate(model, cluster, workload, tp, pp) for tp, pp in layouts]
    ranked = sorted(evaluated, key=_rank_key)
    best = next((c for c in ranked if c.accepted), None)
    if best is not None and best.estimate is not None:
        floor = best.estimate.tokens_per_s_per_gpu * (1 - TIE_TOLERANCE)
        ranked = [
            ServingCandidate(c.tp, c.pp, c.replicas, c.concurrency_per_replica, c.reasons, c.ledger, c.estimate, True)
            if c.accepted and c is not best and c.estimate is not None and c.estimate.tokens_per_s_per_gpu >= floor
            else c
            for c in ranked
        ]
    funnel = tuple((gate, sum(1 for c in ranked if c.first_gate == gate)) for gate in SERVING_GATES)
    return ServingPlanResult(model, cluster, workload, tuple(ranked), funnel)


# --------------------------------------------------------------------------- a published measurement


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
