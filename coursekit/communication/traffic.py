"""What each parallel strategy sends per training step (DP, ZeRO / FSDP, TP, PP, CP, EP, replicas), and its time.

Taught in: lesson 2 (Q2 communication).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .._validate import (
    MAX_INT,
    check_bool,
    check_choice,
    check_divides,
    check_int,
    check_items,
    check_keywords,
    check_number,
    finite_result,
    keyword_parameters,
    learner_functions,
)
from ..i18n import Text, register, tr
from .collectives import BUS_BANDWIDTH_KINDS, CollectiveCost, _collective_cost, _collective_time_s
from .ledger import _dominant

register(
    {
        "communication.entry_type": {
            "zh": "{name} = {value!r}：必须是 TrafficEntry，而不是 {type}。",
            "en": "{name} = {value!r}: must be a TrafficEntry, not {type}.",
        },
    }
)


#: Process groups a traffic entry can run over.
TRAFFIC_GROUPS: tuple[str, ...] = ("dp", "tp", "pp", "cp", "ep")

ZERO_SOURCE: str = "Rajbhandari et al., ZeRO, arXiv:1910.02054, §7 (communication analysis of ZeRO-DP)"
DDP_BUCKET_SOURCE: str = (
    "Li et al., PyTorch Distributed: Experiences on Accelerating Data Parallel Training, arXiv:2006.15704, "
    "§3.2.3 gradient bucketing"
)
MEGATRON_TP_SOURCE: str = "Shoeybi et al., Megatron-LM, arXiv:1909.08053, §3 (operators f and g)"
SEQUENCE_PARALLEL_SOURCE: str = "Korthikanti et al., arXiv:2205.05198, §4.2.2 (g and g-bar: all-gather, reduce-scatter)"
PIPELINE_SOURCE: str = (
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
    "arXiv:2104.04473, §2.2 and §3 (point-to-point activations between stages)"
)
RING_ATTENTION_SOURCE: str = (
    "Liu et al., Ring Attention with Blockwise Transformers, arXiv:2310.01889, §3; "
    "Megatron-Core developer guide, context parallelism"
)
MOE_SOURCE: str = (
    "Lepikhin et al., GShard, arXiv:2006.16668, §2-3 (dispatch and combine all-to-all); "
    "Megatron-Core MoE token dispatcher"
)


@dataclass(frozen=True)
class TrafficEntry:
    """One kind of collective a rank issues per training step.

    Fields:
        collective: one of :data:`BUS_BANDWIDTH_KINDS`.
        payload_bytes: nccl-tests' S per call (see :func:`collective_cost`).
        calls_per_step: how many times this rank issues it per training step.
        group: the process group it runs over (:data:`TRAFFIC_GROUPS`).
        ranks: ranks taking part in one call (2 for point-to-point send_recv).
        description: bilingual one-line explanation.
        source: citation for the count and the payload.

    >>> (entry,) = dp_traffic(num_params=1e9, dp=8)
    >>> entry.collective, entry.total_payload_bytes, entry.group, entry.ranks
    ('all_reduce', 2000000000.0, 'dp', 8)

    Taught in: lesson 2 (Q2 communication).
    """

    collective: str
    payload_bytes: float
    calls_per_step: int
    group: str
    ranks: int
    description: Text
    source: str

    def __post_init__(self) -> None:
        check_choice("collective", self.collective, BUS_BANDWIDTH_KINDS)
        object.__setattr__(self, "payload_bytes", check_number("payload_bytes", self.payload_bytes, ge=0))
        check_int("calls_per_step", self.calls_per_step, ge=0)
        check_choice("group", self.group, TRAFFIC_GROUPS)
        check_int("ranks", self.ranks, ge=1)

    @property
    def total_payload_bytes(self) -> float:
        """``payload_bytes * calls_per_step``: the buffers handed to the library per step."""
        return self.payload_bytes * self.calls_per_step


_ENTRY_FIELDS: tuple[str, ...] = (
    "collective",
    "payload_bytes",
    "calls_per_step",
    "group",
    "ranks",
    "description",
    "source",
)


def _entry(
    collective: str, payload: float, calls: int, group: str, ranks: int, description: Text, source: str
) -> TrafficEntry:
    """A :class:`TrafficEntry` from a traffic kernel, whose inputs the public function already checked."""
    if not math.isfinite(payload) or calls > MAX_INT:  # inputs in range, result overflowed: @finite_result names them
        raise OverflowError(collective)
    entry = object.__new__(TrafficEntry)  # the fields hold by construction: no second validation
    values = (collective, float(payload), int(calls), group, int(ranks), description, source)
    for name, value in zip(_ENTRY_FIELDS, values, strict=True):
        object.__setattr__(entry, name, value)
    return entry


@finite_result
def dp_traffic(
    *,
    num_params: float,
    dp: int,
    grad_bytes: float = 2,
    bucket_bytes: float | None = None,
) -> tuple[TrafficEntry, ...]:
    """Data parallelism: one gradient all-reduce over the DP group per step (or one per bucket).

    Parameters:
        num_params: parameters of the model shard this rank holds (after any
            TP / PP split), > 0.
        dp: data-parallel degree; ``dp == 1`` sends nothing.
        grad_bytes: bytes per gradient element that is reduced (2 for bf16 / fp16).
        bucket_bytes: if given (> 0), gradients are reduced in
            ``ceil(total / bucket_bytes)`` equal buckets, one all-reduce each,
            as DDP's ``bucket_cap_mb`` does; otherwise one all-reduce.

    All-reduce of Ψ elements = reduce-scatter + all-gather, 2Ψ on the wire per
    rank (ZeRO §7.1).

    >>> [e.calls_per_step for e in dp_traffic(num_params=1e9, dp=8, bucket_bytes=25 * 2**20)]
    [77]

    Taught in: lesson 2 (Q2 communication).
    """
    params = check_number("num_params", num_params, gt=0)
    n = check_int("dp", dp, ge=1)
    grad = check_number("grad_bytes", grad_bytes, gt=0)
    total = params * grad
    calls = 1
    if bucket_bytes is not None:
        bucket = check_number("bucket_bytes", bucket_bytes, gt=0)
        calls = max(1, math.ceil(total / bucket))
    if n == 1:
        return ()
    return (
        _entry(
            "all_reduce",
            total / calls,
            calls,
            "dp",
            n,
            Text(
                zh="反向结束后对梯度做全归约（按桶切分时每桶一次）",
                en="Gradient all-reduce after backward (one per bucket when bucketed)",
            ),
            ZERO_SOURCE + "; " + DDP_BUCKET_SOURCE,
        ),
    )


def _zero_payloads(params: Any, grad_bytes: Any, param_bytes: Any, units: Any) -> tuple[Any, Any]:
    """(gradient bytes, weight bytes) per ZeRO call: Ψ·g/units and Ψ·p/units; array-generic."""
    return params * grad_bytes / units, params * param_bytes / units


def _zero_calls(stage: Any, units: Any, micro_batches: Any) -> tuple[Any, Any, Any]:
    """(all-reduce, reduce-scatter, all-gather) calls per step of ZeRO ``stage``; array-generic.

    Stage 0: ``units`` all-reduces. Stage 1: ``units`` reduce-scatters and all-gathers, once per
    step. Stage 2: reduce-scatter every micro-batch (``units·m``), all-gather once. Stage 3:
    reduce-scatter every micro-batch, all-gather before every forward and every backward (``2·units·m``).
    """
    per_micro_batch = units * micro_batches
    all_reduce = units * (stage == 0)
    reduce_scatter = (stage == 1) * units + (stage >= 2) * per_micro_batch
    gather = (stage == 1) * units + (stage == 2) * units + (stage == 3) * 2 * per_micro_batch
    return all_reduce, reduce_scatter, gather


@finite_result
def zero_traffic(
    *,
    num_params: float,
    dp: int,
    stage: int,
    param_bytes: float = 2,
    grad_bytes: float = 2,
    units: int = 1,
    micro_batches: int = 1,
) -> tuple[TrafficEntry, ...]:
    """ZeRO / FSDP data parallelism: the collectives one rank issues per step at a given stage.

    Parameters:
        num_params: parameters of the model shard this rank holds (after any
            TP / PP split), > 0.
        dp: data-parallel degree; ``dp == 1`` sends nothing.
        stage: ZeRO stage 0-3 (FSDP NO_SHARD = 0, SHARD_GRAD_OP = 2, FULL_SHARD = 3).
        param_bytes: bytes per weight element that is all-gathered.
        grad_bytes: bytes per gradient element that is reduced.
        units: calls each collective is split into: buckets for stages 0-2,
            FSDP units (typically one per transformer layer) for stage 3.
        micro_batches: micro-batches m per step (gradient accumulation).

    With one micro-batch per step — ZeRO §7's setting — stage 0 is a gradient
    all-reduce (2Ψ); stages 1-2 a reduce-scatter of gradients + an all-gather of
    updated weights, Ψ + Ψ = 2Ψ, the volume of DP (ZeRO §7.2.1); stage 3
    all-gathers weights in forward, again in backward, and reduce-scatters
    gradients: 3Ψ, 1.5x DP (ZeRO §7.2.2).

    With m micro-batches, what a rank no longer holds must move every
    micro-batch: stage 2 keeps only its gradient shard, so it reduce-scatters
    each micro-batch's gradients (m·Ψ); stage 3 also gathers the weights for
    every micro-batch's forward and backward (2·m·Ψ). Stages 0 and 1 keep full
    gradients, accumulate locally and synchronise once per step (DeepSpeed's
    ZeRO-2/3 reduce in every backward; FSDP FULL_SHARD gathers per forward and
    backward). See :func:`_zero_calls`.

    >>> [(e.collective, e.calls_per_step) for e in zero_traffic(num_params=1e9, dp=8, stage=3, units=32)]
    [('all_gather', 32), ('all_gather', 32), ('reduce_scatter', 32)]
    >>> [(e.collective, e.calls_per_step) for e in zero_traffic(num_params=1e9, dp=8, stage=2, micro_batches=4)]
    [('reduce_scatter', 4), ('all_gather', 1)]

    Taught in: lesson 2 (Q2 communication).
    """
    params = check_number("num_params", num_params, gt=0)
    n = check_int("dp", dp, ge=1)
    zero_stage = check_int("stage", stage, ge=0, le=3)
    weight = check_number("param_bytes", param_bytes, gt=0)
    grad = check_number("grad_bytes", grad_bytes, gt=0)
    k = check_int("units", units, ge=1)
    m = check_int("micro_batches", micro_batches, ge=1)
    return _zero_entries(params, n, zero_stage, weight, grad, k, m)


def _zero_entries(
    params: Any, n: Any, zero_stage: Any, weight: Any, grad: Any, k: Any, m: Any, trained: Any = None
) -> tuple[TrafficEntry, ...]:
    """:func:`zero_traffic` on checked arguments (the planner calls it). ``trained`` (default ``params``) of the
    parameters have gradients (LoRA: the adapters): only they are reduced and, below ZeRO-3, gathered after the step."""
    if n == 1:
        return ()
    trained = params if trained is None else trained
    grads_payload = _zero_payloads(trained, grad, weight, k)[0]
    params_payload = _zero_payloads(params if zero_stage == 3 else trained, grad, weight, k)[1]
    all_reduce_calls, reduce_scatter_calls, gather_calls = _zero_calls(zero_stage, k, m)
    if zero_stage == 0:
        return (
            _entry(
                "all_reduce",
                grads_payload,
                all_reduce_calls,
                "dp",
                n,
                Text(
                    zh="梯度全归约（ZeRO-0 即普通数据并行）",
                    en="Gradient all-reduce (ZeRO-0 is plain data parallelism)",
                ),
                ZERO_SOURCE,
            ),
        )
    reduce_grads = _entry(
        "reduce_scatter",
        grads_payload,
        reduce_scatter_calls,
        "dp",
        n,
        Text(
            zh="梯度归约散射：每个 rank 只拿到自己那一片的归约结果",
            en="Gradient reduce-scatter: each rank keeps the reduced slice it owns",
        ),
        ZERO_SOURCE,
    )
    if zero_stage in (1, 2):
        return (
            reduce_grads,
            _entry(
                "all_gather",
                params_payload,
                gather_calls,
                "dp",
                n,
                Text(
                    zh="优化器更新后全收集参数，各 rank 重新拿到完整参数",
                    en="All-gather of updated weights after the optimizer step",
                ),
                ZERO_SOURCE,
            ),
        )
    return (
        _entry(
            "all_gather",
            params_payload,
            gather_calls // 2,
            "dp",
            n,
            Text(
                zh="前向：每个单元计算前全收集它的参数，用完即释放",
                en="Forward: all-gather each unit's weights before it runs, free them after",
            ),
            ZERO_SOURCE,
        ),
        _entry(
            "all_gather",
            params_payload,
            gather_calls // 2,
            "dp",
            n,
            Text(
                zh="反向：再次全收集每个单元的参数",
                en="Backward: all-gather each unit's weights again",
            ),
            ZERO_SOURCE,
        ),
        reduce_grads,
    )


def _activation_bytes(seq_len: Any, micro_batch: Any, hidden: Any, element_bytes: Any) -> Any:
    return seq_len * micro_batch * hidden * element_bytes


def _layer_collective_calls(layers: Any, micro_batches: Any, blocks: Any = 2) -> Any:
    """Calls per phase of per-layer collectives, one per block (TP's g/f in the attention and the MLP block, MoE
    dispatch+combine): blocks·L·m, 2·L·m by default. The planner splits TP's pair into the attention block (over
    TP) and the expert block (over expert TP) of a mixture of experts: one block each."""
    return blocks * layers * micro_batches


def _tp_time_s(
    tokens: Any,
    micro_batch: Any,
    hidden: Any,
    layers: Any,
    tp: Any,
    element_bytes: Any,
    sequence_parallel: bool,
    full_recompute: Any,
    micro_batches: Any,
    bandwidth_bytes_per_s: Any,
    latency_s: Any,
    blocks: Any = 2,
) -> Any:
    """Seconds per step of :func:`tp_traffic` (2 or 3 phases; all-reduce, or all-gather + reduce-scatter);
    ``blocks`` collectives per layer and phase (2: attention and MLP; 1: one of them, see
    :func:`_layer_collective_calls`)."""
    payload = _activation_bytes(tokens, micro_batch, hidden, element_bytes)
    calls = _layer_collective_calls(layers, micro_batches, blocks) * (2 + full_recompute)
    if sequence_parallel:
        one = _collective_time_s("all_gather", tp, payload, bandwidth_bytes_per_s, latency_s) + _collective_time_s(
            "reduce_scatter", tp, payload, bandwidth_bytes_per_s, latency_s
        )
    else:
        one = _collective_time_s("all_reduce", tp, payload, bandwidth_bytes_per_s, latency_s)
    return calls * one


def _pp_time_s(
    tokens: Any,
    micro_batch: Any,
    hidden: Any,
    pp: Any,
    micro_batches: Any,
    element_bytes: Any,
    bandwidth: Any,
    latency: Any,
) -> Any:
    """Seconds per step of :func:`pp_traffic` at one stage boundary: m sends forward and m backward."""
    payload = _activation_bytes(tokens, micro_batch, hidden, element_bytes)
    return (pp > 1) * 2 * micro_batches * _collective_time_s("send_recv", 2, payload, bandwidth, latency)


def _cp_kv_block_bytes(seq_len: Any, cp: Any, micro_batch: Any, kv_hidden: Any, element_bytes: Any) -> Any:
    """One ring step's K and V block: 2·b·(s/cp)·kv_hidden·bytes."""
    return 2 * _activation_bytes(seq_len / cp, micro_batch, kv_hidden, element_bytes)


def _cp_step_times_s(
    seq_len: Any, cp: Any, micro_batch: Any, kv_hidden: Any, element_bytes: Any, bandwidth: Any, latency: Any
) -> tuple[Any, Any]:
    """(forward, backward) seconds of one ring step of :func:`cp_traffic`: a K, V block forward; K, V and
    dK, dV (twice the block) backward. A layer runs cp-1 steps of each per micro-batch."""
    block = _cp_kv_block_bytes(seq_len, cp, micro_batch, kv_hidden, element_bytes)
    forward = _collective_time_s("send_recv", 2, block, bandwidth, latency)
    return forward, _collective_time_s("send_recv", 2, 2 * block, bandwidth, latency)


def _ep_payload_bytes(tokens: Any, micro_batch: Any, hidden: Any, element_bytes: Any, top_k: Any) -> Any:
    """One dispatch (or combine) all-to-all's buffer S = b·s·h·top_k·bytes: uniform routing, no capacity padding."""
    return _activation_bytes(tokens, micro_batch, hidden, element_bytes) * top_k


def _ep_calls(moe_layers: Any, micro_batches: Any) -> Any:
    """All-to-alls per step: dispatch and combine forward, their gradients backward: 4·L·m (GShard §2-3)."""
    return 2 * _layer_collective_calls(moe_layers, micro_batches)


def _ep_remote_share(ep: Any, members_per_node: Any, top_k: int, dedup_per_node: bool, node_limit: float | None) -> Any:
    """Share of a token's off-node copies that are actually sent; array-generic.

    Without de-duplication a token's top_k copies land on uniformly random EP ranks, k·(ep - r)/ep of them
    off its node (r EP ranks share a node). With per-node de-duplication (DeepSeek-V3 §3.2.1) it is sent once
    per distinct other node it reaches, (G - 1)·(1 - (1 - 1/G)^k) for G = ep/r nodes; node-limited routing
    caps that at ``node_limit`` nodes (DeepSeek-V3 §2.1.2).
    """
    import numpy as np

    group_nodes = np.maximum(ep / members_per_node, 1.0)
    copies_remote = top_k * (ep - members_per_node) / ep
    distinct = (group_nodes - 1) * (1 - (1 - 1 / group_nodes) ** top_k)
    remote = distinct if dedup_per_node else copies_remote
    if node_limit is not None:
        remote = np.minimum(remote, float(node_limit))
    return np.where(copies_remote > 0, remote / np.maximum(copies_remote, 1e-300), 1.0)


def _all_to_all_two_tier_s(
    n: Any,
    members_per_node: Any,
    payload_bytes: Any,
    remote_share: Any,
    intra_bandwidth: Any,
    intra_latency: Any,
    inter_bandwidth: Any,
    inter_latency: Any,
    node_forwarding: Any = False,
) -> tuple[Any, Any]:
    """(intra-node s, inter-node s) of one all-to-all whose ``n`` ranks sit ``members_per_node`` to a node.

    Each rank sends ``payload_bytes·(r-1)/n`` to the r-1 peers on its node and ``payload_bytes·(n-r)/n``
    to the others, scaled by ``remote_share`` (1 = every copy sent; smaller with per-node
    de-duplication or node-limited routing). The two parts use different links and run concurrently, so
    the call takes the larger of the two. With r = n it is :func:`collective_time_s` of an all_to_all.

    Each inter-node peer costs one ``inter_latency``: n - r of them when every copy goes to its expert's rank;
    with ``node_forwarding`` (DeepSeek-V3, arXiv:2412.19437, §3.2.1, and DeepEP's normal kernels: a token crosses
    InfiniBand once, to the GPU with the same in-node index on each target node, which forwards it over NVLink)
    a rank's inter-node peers are those GPUs, one per other node: n/r - 1.
    """
    r = members_per_node
    intra = (r > 1) * ((r - 1) * intra_latency + payload_bytes * (r - 1) / n / intra_bandwidth)
    peers = (n - r) + node_forwarding * ((n / r - 1) - (n - r))
    inter = (n > r) * (peers * inter_latency + payload_bytes * (n - r) / n * remote_share / inter_bandwidth)
    return intra, inter


@finite_result
def tp_traffic(
    *,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    layers: int,
    tp: int,
    activation_bytes: float = 2,
    sequence_parallel: bool = False,
    recompute: str = "none",
    micro_batches: int = 1,
) -> tuple[TrafficEntry, ...]:
    """Megatron tensor parallelism: the activation collectives of one rank per step.

    Parameters:
        seq_len, micro_batch, hidden: s, b, h; one collective carries the
            b·s·h activation tensor, S = b·s·h·activation_bytes.
        layers: transformer layers this rank runs (its pipeline stage).
        tp: tensor-parallel degree; ``tp == 1`` sends nothing.
        activation_bytes: bytes per activation element (2 for bf16).
        sequence_parallel: Megatron sequence parallelism: each all-reduce
            becomes a reduce-scatter plus an all-gather of the same S, so the
            volume is unchanged (Korthikanti §4.2.2).
        recompute: ``"full"`` reruns each layer's forward in backward and so
            its two forward collectives; ``"none"`` and ``"selective"`` add none.
        micro_batches: micro-batches this rank processes per step.

    Per layer and micro-batch: 2 all-reduces in forward (after attention and
    after the MLP, operator g) and 2 in backward (operator f) — Megatron-LM §3.

    >>> entries = tp_traffic(seq_len=2048, micro_batch=1, hidden=4096, layers=32, tp=8)
    >>> [(e.collective, e.calls_per_step) for e in entries]
    [('all_reduce', 64), ('all_reduce', 64)]

    Taught in: lesson 2 (Q2 communication).
    """
    s = check_int("seq_len", seq_len, ge=1)
    b = check_int("micro_batch", micro_batch, ge=1)
    h = check_int("hidden", hidden, ge=1)
    n_layers = check_int("layers", layers, ge=1)
    t = check_int("tp", tp, ge=1)
    element = check_number("activation_bytes", activation_bytes, gt=0)
    sp = check_bool("sequence_parallel", sequence_parallel)
    mode = check_choice("recompute", recompute, ("none", "selective", "full"))
    m = check_int("micro_batches", micro_batches, ge=1)
    return _tp_entries(s, b, h, n_layers, t, element, sp, mode, m)


def _tp_entries(
    s: Any, b: Any, h: Any, n_layers: Any, t: Any, element: Any, sp: Any, mode: Any, m: Any, blocks: int = 2
) -> tuple[TrafficEntry, ...]:
    """:func:`tp_traffic` on checked arguments (the planner calls it); ``blocks`` as in :func:`_tp_time_s`."""
    if t == 1:
        return ()
    payload = _activation_bytes(s, b, h, element)
    calls = _layer_collective_calls(n_layers, m, blocks)
    which = (
        Text(zh="注意力块与 MLP 块各一次", en="one per attention block, one per MLP block")
        if blocks == 2
        else Text(zh="注意力块或专家块", en="the attention block or the expert block")
    )
    phases = [Text(zh="前向", en="Forward"), Text(zh="反向", en="Backward")]
    if mode == "full":
        phases.append(Text(zh="重计算的前向", en="Recomputed forward"))
    entries: list[TrafficEntry] = []
    for phase in phases:
        if sp:
            entries.append(
                _entry(
                    "all_gather",
                    payload,
                    calls,
                    "tp",
                    t,
                    Text(
                        zh=f"{phase.zh}：每层 {blocks} 次全收集（{which.zh}），把按序列切分的激活拼回完整序列",
                        en=f"{phase.en}: {blocks} all-gathers per layer ({which.en}), sequence-sharded activations "
                        "to full sequence",
                    ),
                    SEQUENCE_PARALLEL_SOURCE,
                )
            )
            entries.append(
                _entry(
                    "reduce_scatter",
                    payload,
                    calls,
                    "tp",
                    t,
                    Text(
                        zh=f"{phase.zh}：每层 {blocks} 次归约散射（{which.zh}），部分和归约后按序列切回",
                        en=f"{phase.en}: {blocks} reduce-scatters per layer ({which.en}), partial sums reduced and "
                        "re-sharded by sequence",
                    ),
                    SEQUENCE_PARALLEL_SOURCE,
                )
            )
        else:
            entries.append(
                _entry(
                    "all_reduce",
                    payload,
                    calls,
                    "tp",
                    t,
                    Text(
                        zh=f"{phase.zh}：每层 {blocks} 次全归约（{which.zh}）",
                        en=f"{phase.en}: {blocks} all-reduces per layer ({which.en})",
                    ),
                    MEGATRON_TP_SOURCE,
                )
            )
    return tuple(entries)


@finite_result
def pp_traffic(
    *,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    pp: int,
    micro_batches: int,
    activation_bytes: float = 2,
) -> tuple[TrafficEntry, ...]:
    """Pipeline parallelism: point-to-point activations and their gradients at one stage boundary.

    Parameters:
        seq_len, micro_batch, hidden: s, b, h; one message is the b·s·h
            activation (or its gradient), S = b·s·h·activation_bytes.
        pp: pipeline stages p; ``pp == 1`` sends nothing.
        micro_batches: micro-batches m per step.
        activation_bytes: bytes per activation element.

    Entries count one stage boundary: m sends forward and m backward. The
    pipeline has p - 1 boundaries, so 2·m·(p - 1) transfers in total, on
    different links that work in parallel.

    >>> [(e.collective, e.calls_per_step) for e in pp_traffic(seq_len=2048, micro_batch=1, hidden=4096, pp=4,
    ...                                                          micro_batches=8)]
    [('send_recv', 8), ('send_recv', 8)]

    Taught in: lesson 2 (Q2 communication).
    """
    s = check_int("seq_len", seq_len, ge=1)
    b = check_int("micro_batch", micro_batch, ge=1)
    h = check_int("hidden", hidden, ge=1)
    p = check_int("pp", pp, ge=1)
    m = check_int("micro_batches", micro_batches, ge=1)
    element = check_number("activation_bytes", activation_bytes, gt=0)
    return _pp_entries(s, b, h, p, m, element)


def _pp_entries(s: Any, b: Any, h: Any, p: Any, m: Any, element: Any) -> tuple[TrafficEntry, ...]:
    """:func:`pp_traffic` on checked arguments (the planner calls it)."""
    if p == 1:
        return ()
    payload = _activation_bytes(s, b, h, element)
    return (
        _entry(
            "send_recv",
            payload,
            m,
            "pp",
            2,
            Text(
                zh="前向：每个微批次把激活发给下一个流水线阶段（每个阶段边界）",
                en="Forward: each micro-batch's activation to the next stage (per stage boundary)",
            ),
            PIPELINE_SOURCE,
        ),
        _entry(
            "send_recv",
            payload,
            m,
            "pp",
            2,
            Text(
                zh="反向：每个微批次把激活梯度发回上一个流水线阶段（每个阶段边界）",
                en="Backward: each micro-batch's activation gradient to the previous stage (per stage boundary)",
            ),
            PIPELINE_SOURCE,
        ),
    )


@finite_result
def cp_traffic(
    *,
    seq_len: int,
    micro_batch: int,
    kv_hidden: int,
    layers: int,
    cp: int,
    activation_bytes: float = 2,
    micro_batches: int = 1,
) -> tuple[TrafficEntry, ...]:
    """Context parallelism with ring attention: K/V blocks passed around the CP ring.

    Parameters:
        seq_len: full sequence length s; ``cp`` must divide it.
        micro_batch: b.
        kv_hidden: width of K (and of V): kv_heads x head_dim (= hidden without GQA).
        layers: transformer layers this rank runs.
        cp: context-parallel degree; ``cp == 1`` sends nothing.
        activation_bytes: bytes per element of K, V and their gradients.
        micro_batches: micro-batches this rank processes per step.

    Each rank holds s/cp tokens. Forward, per layer: cp - 1 ring steps, each
    passing a K and a V block, S = 2·b·(s/cp)·kv_hidden·bytes. Backward: cp - 1
    steps passing K, V and the accumulated dK, dV, twice that payload. This is
    a model of Ring Attention (arXiv:2310.01889); Megatron-Core overlaps these
    steps with the blockwise attention compute.

    >>> [e.calls_per_step for e in cp_traffic(seq_len=8192, micro_batch=1, kv_hidden=1024, layers=32, cp=4)]
    [96, 96]

    Taught in: lesson 2 (Q2 communication).
    """
    s = check_int("seq_len", seq_len, ge=1)
    b = check_int("micro_batch", micro_batch, ge=1)
    kv = check_int("kv_hidden", kv_hidden, ge=1)
    n_layers = check_int("layers", layers, ge=1)
    c = check_int("cp", cp, ge=1)
    element = check_number("activation_bytes", activation_bytes, gt=0)
    m = check_int("micro_batches", micro_batches, ge=1)
    check_divides("cp", c, "seq_len", s)
    return _cp_entries(s, b, kv, n_layers, c, element, m)


def _cp_entries(
    s: Any, b: Any, kv: Any, n_layers: Any, c: Any, element: Any, m: Any, recomputed: bool = False
) -> tuple[TrafficEntry, ...]:
    """:func:`cp_traffic` on checked arguments (the planner calls it); ``recomputed``: full recomputation runs each
    layer's forward again in backward, and with it the forward ring (the planner's estimate counts two forward rings
    then)."""
    if c == 1:
        return ()
    kv_block = _cp_kv_block_bytes(s, c, b, kv, element)
    calls = (c - 1) * n_layers * m
    forward = [Text(zh="前向", en="Forward")] + [Text(zh="重计算的前向", en="Recomputed forward")] * bool(recomputed)
    rings = [
        _entry(
            "send_recv",
            kv_block,
            calls,
            "cp",
            2,
            Text(
                zh=f"{phase.zh}：每层 cp-1 步环形传递 K、V 块",
                en=f"{phase.en}: cp-1 ring steps per layer passing K and V blocks",
            ),
            RING_ATTENTION_SOURCE,
        )
        for phase in forward
    ]
    backward = _entry(
        "send_recv",
        2 * kv_block,
        calls,
        "cp",
        2,
        Text(
            zh="反向：每层 cp-1 步环形传递 K、V 及其梯度 dK、dV",
            en="Backward: cp-1 ring steps per layer passing K, V and their gradients dK, dV",
        ),
        RING_ATTENTION_SOURCE,
    )
    return (*rings, backward)


@finite_result
def ep_traffic(
    *,
    seq_len: int,
    micro_batch: int,
    hidden: int,
    moe_layers: int,
    ep: int,
    top_k: int,
    activation_bytes: float = 2,
    micro_batches: int = 1,
) -> tuple[TrafficEntry, ...]:
    """Expert parallelism: token dispatch and combine all-to-alls of each MoE layer.

    Parameters:
        seq_len, micro_batch, hidden: s, b, h of the tokens this rank routes.
        moe_layers: MoE layers this rank runs.
        ep: expert-parallel degree; ``ep == 1`` sends nothing.
        top_k: experts each token is sent to; S = b·s·h·top_k·activation_bytes
            (no capacity-factor padding, uniform routing).
        activation_bytes: bytes per element of the routed hidden states.
        micro_batches: micro-batches this rank processes per step.

    Per MoE layer and micro-batch: dispatch + combine in forward, and their
    two gradients in backward — 4 all-to-alls (GShard §2-3).

    >>> [e.calls_per_step for e in ep_traffic(seq_len=4096, micro_batch=1, hidden=4096, moe_layers=16,
    ...                                       ep=8, top_k=2)]
    [32, 32]

    Taught in: lesson 2 (Q2 communication).
    """
    s = check_int("seq_len", seq_len, ge=1)
    b = check_int("micro_batch", micro_batch, ge=1)
    h = check_int("hidden", hidden, ge=1)
    n_layers = check_int("moe_layers", moe_layers, ge=1)
    e = check_int("ep", ep, ge=1)
    k = check_int("top_k", top_k, ge=1)
    element = check_number("activation_bytes", activation_bytes, gt=0)
    m = check_int("micro_batches", micro_batches, ge=1)
    return _ep_entries(s, b, h, n_layers, e, k, element, m)


def _ep_recompute_entries(
    s: Any, b: Any, h: Any, n_layers: Any, e: Any, k: Any, element: Any, m: Any
) -> tuple[TrafficEntry, ...]:
    """The dispatch and combine that recomputing the MoE block runs again in backward -- Megatron-Core's module-level
    recomputation of the whole block (``--recompute-modules moe``) or full recomputation, which re-runs every layer's
    forward (``--recompute-granularity full``: ``TransformerBlock._checkpointed_forward``,
    megatron/core/transformer/transformer_block.py): the forward pair once more (the planner calls it)."""
    if e == 1:
        return ()
    return (
        _entry(
            "all_to_all",
            _ep_payload_bytes(s, b, h, element, k),
            _layer_collective_calls(n_layers, m),
            "ep",
            e,
            Text(
                zh="反向中重计算 MoE 块（完全重计算或重计算模块 moe）：dispatch 与 combine 再各一次",
                en="Backward, the MoE block recomputed (full recomputation or the module moe): dispatch and combine "
                "once more",
            ),
            MOE_SOURCE,
        ),
    )


def _ep_entries(
    s: Any, b: Any, h: Any, n_layers: Any, e: Any, k: Any, element: Any, m: Any
) -> tuple[TrafficEntry, ...]:
    """:func:`ep_traffic` on checked arguments (the planner calls it)."""
    if e == 1:
        return ()
    payload = _ep_payload_bytes(s, b, h, element, k)
    calls = _layer_collective_calls(n_layers, m)
    return (
        _entry(
            "all_to_all",
            payload,
            calls,
            "ep",
            e,
            Text(
                zh="前向：每个 MoE 层一次分发 (dispatch)（token 发往专家）和一次汇合 (combine)（结果发回）",
                en="Forward: per MoE layer one dispatch (tokens to experts) and one combine (results back)",
            ),
            MOE_SOURCE,
        ),
        _entry(
            "all_to_all",
            payload,
            calls,
            "ep",
            e,
            Text(
                zh="反向：汇合 (combine) 与分发 (dispatch) 的梯度各一次全对全",
                en="Backward: one all-to-all each for the gradients of combine and dispatch",
            ),
            MOE_SOURCE,
        ),
    )


def replica_traffic(*, replicas: int = 1) -> tuple[TrafficEntry, ...]:
    """Serving replicas: no model tensors are exchanged, so the traffic list is empty.

    Parameters:
        replicas: number of independent serving copies, >= 1.

    Each replica holds a whole model and answers its own requests; nothing is
    synchronised between replicas (unlike training DP, which all-reduces
    gradients). Their cost is routing: queueing, cache locality and tail latency.

    >>> replica_traffic(replicas=4)
    ()

    Taught in: lesson 2 (Q2 communication).
    """
    check_int("replicas", replicas, ge=1)
    return ()


#: Strategy name -> traffic function, for :func:`strategy_traffic`.
_TRAFFIC_FUNCTIONS: dict[str, Callable[..., tuple[TrafficEntry, ...]]] = {
    "dp": dp_traffic,
    "zero": zero_traffic,
    "tp": tp_traffic,
    "pp": pp_traffic,
    "cp": cp_traffic,
    "ep": ep_traffic,
    "replica": replica_traffic,
}

#: Strategy names :func:`strategy_traffic` accepts.
STRATEGIES: tuple[str, ...] = tuple(_TRAFFIC_FUNCTIONS)


@finite_result
def strategy_traffic(strategy: str, **params: Any) -> tuple[TrafficEntry, ...]:
    """The traffic entries of one strategy, by name (dispatches to the ``*_traffic`` functions).

    Parameters:
        strategy: one of :data:`STRATEGIES`.
        params: keyword arguments of that strategy's function.

    >>> strategy_traffic("replica", replicas=2)
    ()
    >>> strategy_traffic("fsdp")
    Traceback (most recent call last):
    ...
    ValueError: strategy = 'fsdp': must be one of 'dp', 'zero', 'tp', 'pp', 'cp', 'ep', 'replica'.

    Taught in: lesson 2 (Q2 communication).
    """
    function = _TRAFFIC_FUNCTIONS[check_choice("strategy", strategy, STRATEGIES)]
    check_keywords(function.__name__, params, *keyword_parameters(function))  # not Python's English TypeError
    return function(**params)


@dataclass(frozen=True)
class TrafficCost:
    """One traffic entry's time per step: ``calls_per_step`` times its per-call cost.

    ``bus_bytes`` is what one rank pushes through its link per step:
    ``calls_per_step * bus_factor * payload_bytes``.

    >>> t = traffic_time(dp_traffic(num_params=1e9, dp=2), bandwidth_bytes_per_s=1e9, latency_s=0)
    >>> t.rows[0].bus_bytes, t.rows[0].transfer_s
    (2000000000.0, 2.0)

    Taught in: lesson 2 (Q2 communication).
    """

    entry: TrafficEntry
    per_call: CollectiveCost
    latency_s: float
    transfer_s: float
    total_s: float
    bus_bytes: float


@dataclass(frozen=True)
class TrafficTime:
    """A step's communication time: one row per traffic entry and the totals.

    ``latency_s``, ``transfer_s``, ``total_s`` and ``bus_bytes`` are sums over
    ``rows``; no overlap with compute and no congestion are assumed.

    >>> traffic_time([], bandwidth_bytes_per_s=1e9, latency_s=1e-6).dominant_term
    'none'

    Taught in: lesson 2 (Q2 communication).
    """

    rows: tuple[TrafficCost, ...]
    latency_s: float
    transfer_s: float
    total_s: float
    bus_bytes: float

    @property
    def dominant_term(self) -> str:
        """``"latency"``, ``"bandwidth"`` or ``"none"``."""
        return _dominant(self.latency_s, self.transfer_s)


@finite_result
def traffic_time(
    entries: Iterable[TrafficEntry],
    *,
    bandwidth_bytes_per_s: float,
    latency_s: float,
) -> TrafficTime:
    """Time per step of a list of traffic entries on one kind of link.

    Parameters:
        entries: :class:`TrafficEntry` objects, e.g. from :func:`tp_traffic`.
        bandwidth_bytes_per_s: unidirectional per-link bandwidth in bytes/s, > 0.
        latency_s: alpha, fixed cost of one ring step in seconds, >= 0.

    Each entry costs ``calls_per_step x collective_cost(...)``. Groups on
    different links (TP inside a node, DP across nodes) should be timed with
    separate calls.

    >>> t = traffic_time(zero_traffic(num_params=1e9, dp=8, stage=3), bandwidth_bytes_per_s=50e9, latency_s=0)
    >>> round(t.bus_bytes / 1e9, 2), round(t.total_s, 4)
    (5.25, 0.105)

    Taught in: lesson 2 (Q2 communication).
    """
    bandwidth = check_number("bandwidth_bytes_per_s", bandwidth_bytes_per_s, gt=0)
    alpha = check_number("latency_s", latency_s, ge=0)
    checked = check_items("entries", entries)
    for index, entry in enumerate(checked):
        if not isinstance(entry, TrafficEntry):
            raise TypeError(
                tr("communication.entry_type", name=f"entries[{index}]", value=entry, type=type(entry).__name__)
            )
    return _traffic_time(checked, bandwidth, alpha)


def _traffic_time(entries: Iterable[TrafficEntry], bandwidth: float, alpha: float) -> TrafficTime:
    """:func:`traffic_time` on checked arguments (the planner's ledger rows call it)."""
    rows: list[TrafficCost] = []
    for entry in entries:
        cost = _collective_cost(entry.collective, entry.payload_bytes, entry.ranks, bandwidth, alpha)
        calls = entry.calls_per_step
        bus = 0.0 if entry.ranks == 1 else calls * cost.bus_factor * entry.payload_bytes
        rows.append(
            TrafficCost(
                entry=entry,
                per_call=cost,
                latency_s=calls * cost.latency_s,
                transfer_s=calls * cost.transfer_s,
                total_s=calls * cost.total_s,
                bus_bytes=bus,
            )
        )
    return TrafficTime(
        rows=tuple(rows),
        latency_s=sum(row.latency_s for row in rows),
        transfer_s=sum(row.transfer_s for row in rows),
        total_s=sum(row.total_s for row in rows),
        bus_bytes=sum(row.bus_bytes for row in rows),
    )


learner_functions(globals())
