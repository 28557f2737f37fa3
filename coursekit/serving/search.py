"""The serving search: gate and estimate every (tp, pp, replicas) layout, rank by throughput per GPU.

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from typing import Any

from .._validate import called_from_outside, check_bool, check_int, check_number, learner_functions
from ..i18n import Reason, Text, nonzero, register, tr
from ..model_config import localized_source
from ..specs import (
    ClusterSpec,
    ModelSpec,
    ServingWorkload,
    _peak_flops,
    type_error,
)
from ..units import US_PER_S, adding_up_places, parts_adding_up, telling_digits
from .estimate import SERVING_ASSUMPTIONS, ServingEstimate, _estimate
from .kv import ServingLedger, _check_specs, _memory_ledger, _splits_kv_heads

#: The serving search's gates, in the order the funnel applies them.
SERVING_GATES: tuple[str, ...] = ("shape", "interconnect", "memory", "replica", "slo")

#: Accepted layouts whose throughput per GPU is within this share of the best are reported as a tie:
#: a lower-bound model cannot separate them.
TIE_TOLERANCE: float = 0.15

register(
    {
        "serving.layout_too_big": {
            "zh": "tp·pp = {used} 超过集群的 {world} 张卡：一个副本都放不下。",
            "en": "tp·pp = {used} exceeds the cluster's {world:@GPU}: not one replica fits.",
        },
        "serving.gate.shape": {
            "zh": "形状：TP 整除注意力头数（KV 头平分或整头复制），PP 不超过层数",
            "en": "shape: TP divides the heads (KV heads split evenly or copied whole), PP <= layers",
        },
        "serving.gate.interconnect": {"zh": "互连：TP 留在一个节点内", "en": "interconnect: TP stays inside a node"},
        "serving.gate.memory": {
            "zh": "显存：权重 + KV 缓存 + 工作区 + 预留",
            "en": "memory: weights + KV cache + workspace + reserve",
        },
        "serving.gate.replica": {
            "zh": "副本：每个副本都有请求可处理（副本不是 DP：各自排队，没有梯度同步）",
            "en": "replica: every replica gets requests (replicas are not DP: own queues, no gradient sync)",
        },
        "serving.gate.slo": {
            "zh": "服务目标 (SLO)：TTFT、TPOT、请求速率",
            "en": "service-level objectives (SLO): TTFT, TPOT, request rate",
        },
        "serving.reason.tp_heads": {
            "zh": "tp = {tp} 不整除 {heads} 个注意力头：每个 rank 必须拿到整数个头",
            "en": "tp = {tp} does not divide the {heads:@attention head}: each rank needs whole heads",
        },
        "serving.reason.tp_kv_heads": {
            "zh": "tp = {tp} 既不整除 {kv_heads} 个 KV 头，也不是它的整数倍：KV 头既不能平分，也不能整头复制",
            "en": "tp = {tp} neither divides the {kv_heads:@KV head} nor is a multiple of them: the KV heads can be "
            "neither split evenly nor copied whole",
        },
        "serving.reason.pp_layers": {
            "zh": "pp = {pp} 超过 {layers} 层：有的流水线阶段没有层",
            "en": "pp = {pp} exceeds the {layers:@layer}: some pipeline stage would hold no layer",
        },
        "serving.reason.interconnect_domain": {
            "zh": "tp = {tp} 超出这次部署每个 NVLink 域的 {gpn} 个设备（或不整除它）："
            "每个 token 每层两次全归约 (all-reduce) 要走域间网络，延迟会压倒解码",
            "en": "tp = {tp} does not fit inside the {gpn:@device} of an NVLink domain this deployment fills: two "
            "all-reduces per layer per token would cross the network between domains, and their latency would "
            "swamp decoding",
        },
        "serving.reason.interconnect": {
            "zh": "tp = {tp} 超出一个节点的 {gpn} 个设备（或不整除它）："
            "每个 token 每层两次全归约 (all-reduce) 要跨节点，"
            "延迟会压倒解码",
            "en": "tp = {tp} does not fit inside one node of {gpn:@device}: two all-reduces per layer per token would "
            "cross nodes, and their latency would swamp decoding",
        },
        "serving.reason.memory": {
            "zh": "每个 rank 需要 {need_gib:.{digits}f} GiB（权重 {weights_gib:.1f} + KV 缓存 {kv_gib:.1f} + 工作区 "
            "{workspace_gib:.1f} + 预留 {reserve_gib:.1f}），设备只有 {have_gib:.{digits}f} GiB："
            "差 {short_gib:.{digits}f} GiB",
            "en": "each rank needs {need_gib:.{digits}f} GiB (weights {weights_gib:.1f} + KV cache {kv_gib:.1f} + "
            "workspace {workspace_gib:.1f} + reserve {reserve_gib:.1f}) but a device has {have_gib:.{digits}f} GiB: "
            "{short_gib:.{digits}f} GiB short",
        },
        "serving.reason.replica": {
            "zh": "{replicas} 个副本只分到 {concurrency} 个并发请求：副本不是数据并行 (DP)，它们不切分同一个批次，"
            "而是各自服务自己的队列，没有请求的副本只是闲置",
            "en": "{replicas:@replica} for {concurrency:@concurrent request}: replicas are not data parallelism (DP), "
            "they do not split one batch but each serves its own queue, so a replica without requests sits idle",
        },
        "serving.reason.ttft": {
            "zh": "首 token 时间 (TTFT) 下界 {ttft_ms:.0f~} ms 超过目标 {slo_ms:.0f~} ms",
            "en": "time to first token (TTFT) is at least {ttft_ms:.0f~} ms, above the {slo_ms:.0f~} ms objective",
        },
        "serving.reason.tpot": {
            "zh": "每输出 token 时间 (TPOT) 下界 {tpot_ms:.2f~} ms 超过目标 {slo_ms:.2f~} ms",
            "en": "time per output token (TPOT) is at least {tpot_ms:.2f~} ms, above the {slo_ms:.2f~} ms objective",
        },
        "serving.reason.rate": {
            "zh": "每个副本 {rate:.2f} 请求/秒：按利特尔定律 (Little's law) 并发数 = 速率 × 时延，而时延随并发上升；"
            "在显存能容纳的 {max_concurrency} 个并发内，没有一个并发既容纳得下速率 × 时延个请求、吞吐又跟得上该速率，"
            "这个布局撑不住该速率",
            "en": "{rate:.2f} requests/s per replica: by Little's law concurrency = rate × latency, and latency grows "
            "with concurrency; no concurrency within the {max_concurrency:@concurrent request} memory holds both "
            "holds rate × latency requests and keeps up with the rate, so this layout cannot sustain the rate",
        },
        "serving.title": {
            "zh": "服务规划：{model} 在 {cluster}（{world} 个设备）上，{load}，"
            "提示 {prompt} token，输出 {output} token",
            "en": "Serving plan: {model} on {cluster} ({world:@device}), {load}, prompts of {prompt:@token}, "
            "{output:@output token}",
        },
        "serving.fp8_line": {
            "zh": "FP8 (W{weight_bits:g}A8)：权重每个 {weight_bytes:g} 字节，线性层的矩阵乘按每设备 FP8 峰值 "
            "{fp8:.0f} TFLOP/s 计，注意力按 bf16 峰值 {bf16:.0f} TFLOP/s 计"
            "（屋顶线下界：不扣训练校准出的 FP8 加速折扣）",
            "en": "FP8 (W{weight_bits:g}A8): {weight_bytes:g}-byte weights, the linear layers' matmuls at the FP8 peak "
            "of {fp8:.0f} TFLOP/s a device, attention at the bf16 peak of {bf16:.0f} TFLOP/s (a roofline lower bound: "
            "training's calibrated discount on the FP8 speed-up is not applied)",
        },
        "serving.load_concurrency": {"zh": "{concurrency} 个并发请求", "en": "{concurrency:@concurrent request}"},
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
            "zh": "  replicas={replicas} tp={tp} pp={pp}：每副本 {batch} 个请求；TTFT >= {ttft_ms:.0f~} ms，TPOT >= "
            "{tpot_ms:.2f~} ms，每副本 <= {tps:,.0f} token/秒，每 GPU <= {tps_gpu:,.0f} token/秒{tie}",
            "en": "  replicas={replicas} tp={tp} pp={pp}: {batch:@request} per replica; TTFT >= {ttft_ms:.0f~} ms, "
            "TPOT >= {tpot_ms:.2f~} ms, <= {tps:,.0f} tokens/s per replica, <= {tps_gpu:,.0f} tokens/s per GPU{tie}",
        },
        "serving.candidate_split": {
            "zh": "  replicas={replicas} tp={tp} pp={pp}：{full} 个副本各 {batch} 个请求，其余 {rest} 个各 {less} 个；"
            "最满的副本 TTFT >= {ttft_ms:.0f~} ms，TPOT >= {tpot_ms:.2f~} ms；平均每副本 <= {tps:,.0f} token/秒，"
            "每 GPU <= {tps_gpu:,.0f} token/秒{tie}",
            "en": "  replicas={replicas} tp={tp} pp={pp}: {batch:@request} on {full} of the replicas, {less} on the "
            "other {rest}; the fullest has TTFT >= {ttft_ms:.0f~} ms, TPOT >= {tpot_ms:.2f~} ms; <= {tps:,.0f} "
            "tokens/s per replica on average, <= {tps_gpu:,.0f} tokens/s per GPU{tie}",
        },
        "serving.tie": {
            "zh": "（与最佳相差不到 {tol:.0%}，模型分不出高下）",
            "en": " (within {tol:.0%} of the best: a tie)",
        },
        "serving.ledger": {
            "zh": "    每 rank 显存：权重 {weights_gib} + KV 缓存 {kv_gib} + 工作区 {workspace_gib} + 预留 "
            "{reserve_gib} = {total_gib} / {device_gib:.0f} GiB，{verdict}",
            "en": "    memory per rank: weights {weights_gib} + KV cache {kv_gib} + workspace "
            "{workspace_gib} + reserve {reserve_gib} = {total_gib} / {device_gib:.0f} GiB, {verdict}",
        },
        "serving.comm": {
            "zh": "    TP 全归约：每 token {count} 次 × {each_us} µs（NCCL 选{choice}）"
            "= {total_ms} ms；解码受{bound}限制",
            "en": "    TP all-reduce: {count} per token × {each_us} µs (NCCL picks the {choice}) = "
            "{total_ms} ms; decode is {bound}-bound",
        },
        "serving.bound.memory": {"zh": "显存带宽", "en": "memory"},
        "serving.bound.compute": {"zh": "算力", "en": "compute"},
        "serving.none_accepted": {"zh": "没有布局通过。", "en": "No layout passes."},
        "serving.no_fit": {
            "zh": "没有布局放得下：最接近的是 replicas={replicas} tp={tp} pp={pp}，每个副本要同时服务 {wanted} 个"
            "请求，每 rank 还差 {short_gib:.{digits}f} GiB；它的一个副本最多只放得下 {max_concurrency} 个并发请求的 "
            "KV 缓存。",
            "en": "No layout fits: the closest is replicas={replicas} tp={tp} pp={pp}; serving {wanted:@request} at "
            "once per replica, it is {short_gib:.{digits}f} GiB short per rank: one of its replicas has room for the "
            "KV cache of at most {max_concurrency:@concurrent request}.",
        },
        "serving.no_fit_weights": {
            "zh": "没有布局放得下：最接近的是 replicas={replicas} tp={tp} pp={pp}，"
            "每 rank 差 {short_gib:.{digits}f} GiB；光是权重就放不下，需要更多设备或更低精度的权重。",
            "en": "No layout fits: the closest is replicas={replicas} tp={tp} pp={pp}, {short_gib:.{digits}f} GiB "
            "short per rank; the weights alone do not fit, so it needs more devices or lower-precision weights.",
        },
        "serving.no_fit_one_request": {
            "zh": "没有布局放得下：最接近的是 replicas={replicas} tp={tp} pp={pp}，每 rank 差 {short_gib:.{digits}f} "
            "GiB；权重放得下（每 rank {weights_gib:.1f} GiB），但连一个请求也放不下：一个请求的 KV 缓存每 rank 要 "
            "{kv_gib:.1f} GiB，激活工作区要 {workspace_gib:.1f} GiB；需要更多设备、更短的请求或更小的 KV 元素。",
            "en": "No layout fits: the closest is replicas={replicas} tp={tp} pp={pp}, {short_gib:.{digits}f} GiB "
            "short per rank; the weights fit ({weights_gib:.1f} GiB per rank) but not one request: its KV cache takes "
            "{kv_gib:.1f} GiB per rank and the activation workspace {workspace_gib:.1f} GiB, so it needs more devices, "
            "shorter requests or smaller KV elements.",
        },
        "serving.assumptions_head": {
            "zh": "假设（所有时间都是下界）：",
            "en": "Assumptions (every time is a lower bound):",
        },
    }
)


@dataclass(frozen=True)
class ServingCandidate:
    """One layout ``replicas × tp × pp``: its gate verdicts, ledger and lower-bound estimate.

    ``concurrency_per_replica`` is the fullest replica's requests: ``ledger`` and ``estimate`` are its. With a
    concurrency that ``replicas`` does not divide, only ``full_replicas`` of them hold that many and the others
    one fewer (``lighter_estimate``; None when that is no request at all): the ceiling sizes the memory gate and the
    latencies, the real split the throughput (:attr:`cluster_tokens_per_s`). ``full_replicas`` None: all of them.
    """

    tp: int
    pp: int
    replicas: int
    concurrency_per_replica: int
    reasons: tuple[Reason, ...]
    ledger: ServingLedger | None
    estimate: ServingEstimate | None
    tie: bool = False
    full_replicas: int | None = None
    lighter_estimate: ServingEstimate | None = None

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
    def _full(self) -> int:
        return self.replicas if self.full_replicas is None else self.full_replicas

    @property
    def requests(self) -> int:
        """Requests in flight over all replicas: ``full_replicas`` hold ``concurrency_per_replica``, the rest one
        fewer."""
        return self.replicas * self.concurrency_per_replica - (self.replicas - self._full)

    @property
    def cluster_tokens_per_s(self) -> float:
        """Output tokens/s of all replicas together, each at its own batch (0 without an estimate)."""
        if self.estimate is None:
            return 0.0
        lighter = self.lighter_estimate.tokens_per_s if self.lighter_estimate is not None else 0.0
        return self.estimate.tokens_per_s * self._full + lighter * (self.replicas - self._full)

    @property
    def tokens_per_s_per_gpu(self) -> float:
        """:attr:`cluster_tokens_per_s` per device of the layout: what the search ranks by."""
        return self.cluster_tokens_per_s / self.gpus

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``accepted``, ``degrees``, ``reasons``, ``ledger``, ``estimate``."""
        estimate = None
        if self.estimate is not None:
            estimate = self.estimate.to_dict()
            estimate["cluster_tokens_per_s"] = self.cluster_tokens_per_s
            estimate["cluster_tokens_per_s_per_gpu"] = self.tokens_per_s_per_gpu
        return {
            "accepted": self.accepted,
            "degrees": {"tp": self.tp, "pp": self.pp, "replicas": self.replicas},
            "concurrency_per_replica": self.concurrency_per_replica,
            "replicas_at_concurrency": self._full,
            "requests": self.requests,
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


def _sustains(estimate: ServingEstimate, rate: float) -> bool:
    """True when one replica serving ``estimate.batch`` requests keeps up with ``rate`` arrivals/s.

    Little's law (N = λ·W, :func:`~coursekit.serving.littles_law_concurrency`): the requests in flight,
    ceil(rate · latency), fit in the batch, latency = TTFT + O · TPOT; and throughput: the replica finishes
    tokens_per_s / O >= rate requests per second.
    """
    output = estimate.output_tokens
    latency = estimate.time_to_first_token_s + output * estimate.time_per_output_token_s
    # ceil(rate · latency) <= batch, an integer >= 1, is rate · latency <= batch: no ceil of an overflowed infinity
    return rate * latency <= estimate.batch and rate <= estimate.tokens_per_s / output


def _first(low: int, high: int, holds: Callable[[int], bool]) -> int | None:
    """The smallest n in [low, high] with ``holds(n)``, for a ``holds`` false below some n and true from it on
    (bisection); None when ``holds(high)`` is false (or the range is empty)."""
    if low > high or not holds(high):
        return None
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _rate_concurrency(
    model: ModelSpec, cluster: ClusterSpec, w: ServingWorkload, tp: int, pp: int, rate: float, cap: int
) -> int | None:
    """The smallest concurrency c <= ``cap`` per replica that sustains ``rate`` arrivals/s (:func:`_sustains`:
    ceil(rate · latency(c)) <= c and rate <= throughput(c)), or None when no c <= cap does.

    Exact by bisection, on this monotonicity. TTFT does not depend on c; TPOT depends only on the decode group
    g = ceil(c / pp) and is a sum, max and min of terms a + b·g (a, b >= 0: roofline limbs, NCCL's
    latency + size/bandwidth, PP hand-offs) and of a mixture of experts' concave expert reads, which are 0 at
    g = 0; so TPOT(g) / g does not grow with g. Both conditions read rate · (k·TTFT + O·TPOT) <= c
    (k = 1: Little's law; k = c: throughput, tokens_per_s = c·O / (c·TTFT + O·TPOT)). Hence:

    * inside one group (TPOT fixed) each condition, once true, stays true as c grows;
    * at the groups' last concurrencies c = g·pp, divided by c: rate · (k·TTFT / c + O·TPOT(g) / (g·pp)) <= 1,
      whose left side does not grow with g, so once true it stays true.

    Between groups it can fail again (with pp > 1, c = g·pp + 1 opens a new decode group of one request), so
    the search bisects the full groups' last concurrencies, then the first group that sustains (any group with a
    sustaining c sustains at its end, so the first such group holds the smallest c); a last, partial group
    (``cap`` not a multiple of pp) is tried after the full ones. ``tests/test_serving_fuzz2.py`` checks the
    monotonicity and compares with a scan of every c.
    """

    def holds(concurrency: int) -> bool:
        est = _estimate(
            model,
            cluster,
            tp,
            pp,
            concurrency,
            w.prompt_tokens,
            w.output_tokens,
            w.weight_bytes,
            w.kv_bytes,
            w.precision,
        )
        return _sustains(est, rate)

    full_groups = cap // pp
    group = _first(1, full_groups, lambda g: holds(g * pp))
    if group is not None:
        return _first((group - 1) * pp + 1, group * pp, holds)
    return _first(full_groups * pp + 1, cap, holds)


def _shape_reasons(model: ModelSpec, cluster: ClusterSpec, tp: int, pp: int) -> list[Reason]:
    """The shape and interconnect gates: TP divides the heads (and divides the KV heads or is a multiple of them),
    PP <= layers, TP inside one node."""
    reasons: list[Reason] = []
    if model.heads % tp:
        reasons.append(Reason("tp_heads", "serving.reason.tp_heads", {"tp": tp, "heads": model.heads}))
    elif not _splits_kv_heads(model.kv_heads, tp):
        reasons.append(Reason("tp_heads", "serving.reason.tp_kv_heads", {"tp": tp, "kv_heads": model.kv_heads}))
    if pp > model.layers:
        reasons.append(Reason("pp_layers", "serving.reason.pp_layers", {"pp": pp, "layers": model.layers}))
    if tp > cluster.domain_gpus or cluster.domain_gpus % tp:
        key = "serving.reason.interconnect" + ("_domain" if cluster.nvlink_domain_gpus is not None else "")
        reasons.append(Reason("interconnect", key, {"tp": tp, "gpn": cluster.domain_gpus}))
    return reasons


def _memory_reason(ledger: ServingLedger) -> Reason:
    """The memory gate's reason for a ledger that does not fit: every part and how much is missing."""
    params = {
        "need_gib": ledger.total_gib,
        "weights_gib": ledger.weights_gib,
        "kv_gib": ledger.kv_cache_gib,
        "workspace_gib": ledger.workspace_gib,
        "reserve_gib": ledger.reserve_gib,
        "have_gib": ledger.device_gib,
        "short_gib": -ledger.headroom_gib,
        # enough decimals that the need does not read as the device, nor the shortfall as 0
        "digits": max(telling_digits(ledger.total_gib, ledger.device_gib), telling_digits(-ledger.headroom_gib)),
    }
    return Reason("memory", "serving.reason.memory", params)


def _slo_reasons(w: ServingWorkload, estimate: ServingEstimate) -> list[Reason]:
    """The service-level objectives the estimate misses: TTFT and TPOT (the request rate is checked earlier)."""
    reasons: list[Reason] = []
    ttft, tpot = estimate.time_to_first_token_s, estimate.time_per_output_token_s
    if w.ttft_slo_s is not None and ttft > w.ttft_slo_s:
        reasons.append(Reason("ttft", "serving.reason.ttft", {"ttft_ms": ttft * 1e3, "slo_ms": w.ttft_slo_s * 1e3}))
    if w.tpot_slo_s is not None and tpot > w.tpot_slo_s:
        reasons.append(Reason("tpot", "serving.reason.tpot", {"tpot_ms": tpot * 1e3, "slo_ms": w.tpot_slo_s * 1e3}))
    return reasons


def evaluate_layout(
    model: ModelSpec, cluster: ClusterSpec, w: ServingWorkload, tp: int, pp: int, replicas: int | None = None
) -> ServingCandidate:
    """Gate and estimate one layout: ``replicas`` copies (default: as many as the cluster holds) of tp · pp devices.

    The one serving evaluation: :func:`plan_serving` runs it on every layout, and the planner's serving mode
    (:func:`coursekit.planner.evaluate_composition` with ``replicas``) on one.
    """
    if called_from_outside():
        _check_specs(model, cluster)
        if not isinstance(w, ServingWorkload):
            raise type_error("w", w, "ServingWorkload")
        check_int("tp", tp, ge=1)
        check_int("pp", pp, ge=1)
        if replicas is not None:
            check_int("replicas", replicas, ge=1)
        elif tp * pp > cluster.world_size:  # not one replica fits: the count below would be 0
            raise ValueError(tr("serving.layout_too_big", used=tp * pp, world=cluster.world_size))
    if replicas is None:
        replicas = cluster.world_size // (tp * pp)
    reasons = _shape_reasons(model, cluster, tp, pp)
    if reasons and reasons[0].code in ("tp_heads", "pp_layers"):
        return ServingCandidate(tp, pp, replicas, 0, tuple(reasons), None, None)
    probe = _memory_ledger(
        model,
        cluster,
        tp,
        pp,
        1,
        w.context_tokens,
        w.weight_bytes,
        w.kv_bytes,
        w.prompt_tokens,
        w.runtime_reserve_gib,
    )
    rate_reason: Reason | None = None
    if w.concurrency is not None:
        per_replica = -(-w.concurrency // replicas)  # the fullest replica: memory gate and latencies
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
    ledger = _memory_ledger(
        model,
        cluster,
        tp,
        pp,
        per_replica,
        w.context_tokens,
        w.weight_bytes,
        w.kv_bytes,
        w.prompt_tokens,
        w.runtime_reserve_gib,
    )
    if not ledger.fits:
        reasons.append(_memory_reason(ledger))
    if w.concurrency is not None and replicas > total:
        reasons.append(Reason("replica", "serving.reason.replica", {"replicas": replicas, "concurrency": total}))
    estimate = _estimate(
        model, cluster, tp, pp, per_replica, w.prompt_tokens, w.output_tokens, w.weight_bytes, w.kv_bytes, w.precision
    )
    # Throughput from the real split: total = full · per_replica + (replicas - full) · (per_replica - 1).
    full = min(total - (per_replica - 1) * replicas, replicas)
    lighter = None
    if full < replicas and per_replica > 1:
        lighter = _estimate(
            model,
            cluster,
            tp,
            pp,
            per_replica - 1,
            w.prompt_tokens,
            w.output_tokens,
            w.weight_bytes,
            w.kv_bytes,
            w.precision,
        )
    reasons.extend(_slo_reasons(w, estimate))
    if rate_reason is not None:
        reasons.append(rate_reason)
    reasons.sort(key=lambda r: SERVING_GATES.index(_GATE_OF[r.code]))
    return ServingCandidate(
        tp, pp, replicas, per_replica, tuple(reasons), ledger, estimate, full_replicas=full, lighter_estimate=lighter
    )


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
        tp, pp = check_int("tp", tp, ge=1), check_int("pp", pp, ge=1)  # True is no degree, though True == 1
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

    @property
    def notes(self) -> tuple[Text, ...]:
        """Notes about this model and workload: a request (prompt plus output tokens) longer than a learned position
        table holds (:meth:`~coursekit.specs.ModelSpec.position_table_note`), and what a sliding window changes
        (:meth:`~coursekit.specs.ModelSpec.window_note`)."""
        tokens = self.workload.context_tokens
        notes = (self.model.position_table_note(tokens), self.model.window_note(tokens, serving=True))
        return tuple(note for note in notes if note is not None)

    def _load_text(self) -> str:
        w = self.workload
        if w.concurrency is not None:
            return tr("serving.load_concurrency", concurrency=w.concurrency)
        return tr("serving.load_rate", rate=w.request_rate_per_s)

    def _precision_lines(self) -> list[str]:
        """The FP8 line under the title (none at bf16, the default)."""
        if self.workload.precision == "bf16":
            return []
        fp8 = _peak_flops(self.cluster, "fp8")
        return [
            tr(
                "serving.fp8_line",
                weight_bytes=self.workload.weight_bytes,
                weight_bits=8 * self.workload.weight_bytes,  # W8A8 at 1 byte, W4A8 at 0.5 (--weight-bytes)
                fp8=fp8 / 1e12,
                bf16=self.cluster.peak_flops / 1e12,
            )
        ]

    def report(self, top: int = 5) -> str:
        """The funnel, the accepted layouts with their ledgers, or why none fits; then the assumptions."""
        top = check_int("top", top, ge=0)
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
            *self._precision_lines(),
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
                lines.extend(candidate_lines(c))
        else:
            lines.append(tr("serving.none_accepted"))
            misfit = self.closest_misfit
            if misfit is not None and misfit.ledger is not None:
                ledger = misfit.ledger
                if ledger.max_concurrency:
                    key = "serving.no_fit"
                elif ledger.weights_gib + ledger.reserve_gib > ledger.device_gib:
                    key = "serving.no_fit_weights"
                else:  # the weights fit; a request's KV cache and workspace do not
                    key = "serving.no_fit_one_request"
                lines.append(
                    tr(
                        key,
                        weights_gib=ledger.weights_gib,
                        kv_gib=ledger.kv_per_request_gib,
                        workspace_gib=ledger.workspace_gib,
                        replicas=misfit.replicas,
                        tp=misfit.tp,
                        pp=misfit.pp,
                        short_gib=-misfit.ledger.headroom_gib,
                        digits=telling_digits(-misfit.ledger.headroom_gib),
                        max_concurrency=misfit.ledger.max_concurrency,
                        wanted=misfit.concurrency_per_replica,
                    )
                )
            else:
                for c in sorted(self.candidates, key=_rank_key)[:top]:
                    lines.extend(candidate_lines(c))
                    lines.extend(f"    [{r.code}] {r.message}" for r in c.reasons)
        lines.append("")
        lines.append(tr("serving.assumptions_head"))
        lines.extend(f"  - {tr(f'serving.assume.{key}')}" for key in SERVING_ASSUMPTIONS)
        lines.extend(f"  - {note}" for note in self.notes)
        return "\n".join(lines)

    def to_dict(self, top: int = 5, include_rejected: bool = False) -> dict[str, Any]:
        """JSON-ready result: ``top`` holds the best layouts, accepted ones first; ``model`` and ``cluster`` are the
        names, ``model_spec`` and ``cluster_spec`` all the fields (``model_spec`` as the training JSON's ``model``)."""
        top = check_int("top", top, ge=0)
        include_rejected = check_bool("include_rejected", include_rejected)
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
            # every field the plan read (a --model-config's own), the source in the current language
            "model_spec": {**asdict(self.model), "source": localized_source(self.model.source)},
            "cluster": self.cluster.name,
            "world_size": self.cluster.world_size,
            "cluster_spec": asdict(self.cluster),  # every figure the plan read (a custom cluster's own)
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
            "notes": [str(note) for note in self.notes],
        }
        if include_rejected:
            payload["rejected"] = [c.to_dict() for c in ranked if not c.accepted]
        return payload


def _rank_key(c: ServingCandidate) -> tuple[bool, float, float]:
    if c.estimate is None:
        return (not c.accepted, math.inf, math.inf)
    return (not c.accepted, -c.tokens_per_s_per_gpu, c.estimate.time_per_output_token_s)


def candidate_lines(c: ServingCandidate) -> list[str]:
    """The report's lines of one layout: requests per replica, times of the fullest replica, throughput of the real
    split of the requests (per replica on average and per GPU), ledger and TP all-reduces."""
    if called_from_outside() and not isinstance(c, ServingCandidate):
        raise type_error("c", c, "ServingCandidate")
    lines: list[str] = []
    if c.estimate is not None:
        e = c.estimate
        batch, full = c.concurrency_per_replica, c._full
        split: dict[str, Any] = (
            {"full": full, "rest": c.replicas - full, "less": batch - 1} if full < c.replicas else {}
        )
        lines.append(
            tr(
                "serving.candidate_split" if split else "serving.candidate",
                **split,
                replicas=c.replicas,
                tp=c.tp,
                pp=c.pp,
                batch=batch,
                ttft_ms=e.time_to_first_token_s * 1e3,
                tpot_ms=e.time_per_output_token_s * 1e3,
                tps=c.cluster_tokens_per_s / c.replicas,
                tps_gpu=c.tokens_per_s_per_gpu,
                tie=tr("serving.tie", tol=TIE_TOLERANCE) if c.tie else "",
            )
        )
    if c.ledger is not None:
        lg = c.ledger
        # the four terms as printed add up to the printed total: 1 place, or up to 3 where 1 does not
        parts = (lg.weights_gib, lg.kv_cache_gib, lg.workspace_gib, lg.reserve_gib)
        places = adding_up_places(parts, 1, 3)
        weights, kv, workspace, reserve = parts_adding_up(parts, places)
        lines.append(
            tr(
                "serving.ledger",
                weights_gib=weights,
                kv_gib=kv,
                workspace_gib=workspace,
                reserve_gib=reserve,
                total_gib=f"{sum(parts):.{places}f}",
                device_gib=lg.device_gib,
                verdict=lg.verdict(places),
            )
        )
    if c.estimate is not None and c.estimate.all_reduces_per_token:
        e = c.estimate
        each_us, total_ms = all_reduce_product(e.all_reduces_per_token, e.all_reduce.time_s)
        lines.append(
            tr(
                "serving.comm",
                count=e.all_reduces_per_token,
                each_us=each_us,
                choice=e.all_reduce.label,
                total_ms=total_ms,
                bound=tr(f"serving.bound.{e.decode_bound}"),
            )
        )
    return lines


#: The most decimals :func:`all_reduce_product` gives one all-reduce's microseconds.
MAX_ALL_REDUCE_US_PLACES: int = 4


def all_reduce_product(count: int, each_s: float) -> tuple[str, str]:
    """(one all-reduce in µs, all ``count`` of a token in ms) as the serving line prints them, "count × each = total",
    so that the product of the printed numbers rounds to the printed total (each rounded on its own, 28 of 140 lines
    did not: "64 × 51.0 µs = 3.27 ms", 64 × 51.0 µs being 3.264 ms). The microseconds take the fewest places, 1 to
    :data:`MAX_ALL_REDUCE_US_PLACES`, at which that product rounds, to 0.01 ms, as the exact total does (and a nonzero
    time shows a digit); the total is the printed product rounded to 0.01 ms (more places only for a nonzero total
    that would read as zero).

    >>> all_reduce_product(64, 51.04e-6)  # 51.0 µs would give 3.264 ms, not the 3.27 ms of 64 × 51.04 µs
    ('51.04', '3.27')
    >>> all_reduce_product(160, 19.2e-6)
    ('19.2', '3.07')
    """
    count = check_int("count", count, ge=0)
    each_us = check_number("each_s", each_s, ge=0) * US_PER_S
    exact = f"{count * each_us / 1e3:.2f}"
    for places in range(1, MAX_ALL_REDUCE_US_PLACES + 1):
        shown = Decimal(f"{each_us:.{places}f}")
        product = count * shown / 1000
        if f"{product:.2f}" == exact and (shown > 0 or each_us == 0):
            break
    total = f"{product:.2f}"
    if product > 0 and not any(ch in "123456789" for ch in total):  # a nonzero total never reads as zero
        total = nonzero(float(product), ".2f")
    return str(shown), total


def plan_serving(model: ModelSpec, cluster: ClusterSpec, workload: ServingWorkload) -> ServingPlanResult:
    """Search every serving layout replicas × tp × pp = world, gate it and estimate the rest.

    Gates, in order (:data:`SERVING_GATES`): shape (TP divides the heads and divides the KV heads or is a multiple
    of them, PP <= layers), interconnect (TP inside one node), memory (the per-rank ledger fits), replica (every
    replica gets requests: replicas are independent queues, not DP), SLO (TTFT, TPOT, and a request rate that some
    concurrency memory holds sustains). A concurrency that the replicas do not divide gives the fullest replica
    ceil(concurrency / replicas) requests (memory and latencies) and counts each replica's own throughput; the
    ranking is by that throughput per GPU.

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
    _peak_flops(cluster, workload.precision)  # FP8 on a device without FP8 tensor cores: refused before the search
    world = cluster.world_size
    layouts = [
        (tp, pp)
        for tp in range(1, world + 1)
        if world % tp == 0
        for pp in range(1, min(workload.max_pp, world // tp) + 1)
        if (world // tp) % pp == 0
    ]
    evaluated = [evaluate_layout(model, cluster, workload, tp, pp) for tp, pp in layouts]
    ranked = sorted(evaluated, key=_rank_key)
    best = next((c for c in ranked if c.accepted), None)
    if best is not None and best.estimate is not None:
        floor = best.tokens_per_s_per_gpu * (1 - TIE_TOLERANCE)
        ranked = [
            replace(c, tie=True)
            if c.accepted and c is not best and c.estimate is not None and c.tokens_per_s_per_gpu >= floor
            else c
            for c in ranked
        ]
    funnel = tuple((gate, sum(1 for c in ranked if c.first_gate == gate)) for gate in SERVING_GATES)
    return ServingPlanResult(model, cluster, workload, tuple(ranked), funnel)


learner_functions(globals())
