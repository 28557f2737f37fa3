"""Prefill and decode on the roofline: lower-bound TTFT, TPOT and tokens/s of one replica.

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._validate import check_choice, check_int, check_number, finite_result, learner_functions
from ..communication import _collective_time_s
from ..hardware import (
    NCCL_RING_NVLINK_LATENCY_S,
)
from ..i18n import register, tr
from ..roofline import _attention_forward_flops_per_token, _roofline_time_s
from ..specs import (
    ACTIVATION_BYTES,
    MAX_ELEMENT_BYTES,
    PRECISIONS,
    ClusterSpec,
    ModelSpec,
    _group_link,
    _peak_flops,
    check_weight_bytes,
)
from .kv import _check_specs, _check_tp, _kv_bytes, _matmul_params
from .nccl import AllReduceChoice, _tp_all_reduce

#: Keys of the assumptions every serving estimate rests on (``serving.assume.<key>`` in the message catalog).
SERVING_ASSUMPTIONS: tuple[str, ...] = ("roofline", "context", "comm", "throughput")

register(
    {
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
    bandwidth, latency = cluster.link(_group_link(tp * pp, cluster.domain_gpus))
    hop = float(_collective_time_s("send_recv", 2, tokens * model.hidden * ACTIVATION_BYTES / tp, bandwidth, latency))
    return (pp - 1) * hop


def _all_reduce(model: ModelSpec, cluster: ClusterSpec, tp: int, tokens: int) -> AllReduceChoice:
    scale = cluster.intra_node_latency_s / NCCL_RING_NVLINK_LATENCY_S
    return _tp_all_reduce(tokens * model.hidden * ACTIVATION_BYTES, tp, cluster.intra_node_bandwidth_bytes_per_s, scale)


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
    precision: str = "bf16",
) -> ServingEstimate:
    peak, hbm = cluster.peak_flops, cluster.memory_bandwidth_bytes_per_s
    ranks = tp * pp
    n_matmul = _matmul_params(model)
    # FP8 (W8A8): the linear layers' matmuls run at the FP8 peak, attention at bf16's. The FLOPs below are timed at
    # the bf16 peak, so each matmul FLOP counts peak / FP8 peak of one there (1/2 on H100).
    matmul_weight = peak / _peak_flops(cluster, precision)
    # attention's h: hidden, or MLA's wider query/key heads (DeepSeek-V2 §2.1; no weight absorption assumed)
    layers, hidden = model.layers, model.attention_flops_width
    all_reduces = 2 * layers if tp > 1 else 0
    # Prefill of one prompt: 2·N per token plus causal attention (half the full 4·L·h·s per token, forward).
    # (a sliding window on some layers shortens the span: ModelSpec.attention_span)
    prefill_flops = (
        2 * n_matmul * prompt * matmul_weight
        + _attention_forward_flops_per_token(layers, hidden, model._attention_span(prompt)) / 2 * prompt
    )
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
    keys = model._decode_keys(prompt, output)  # about the context, less on sliding-window or chunked layers
    step_flops = (
        2 * n_matmul * group * matmul_weight + _attention_forward_flops_per_token(layers, hidden, 1) * keys * group
    )
    if model.chunk_tokens is None:  # the cache a step reads: the context, or at most the window on window layers
        kv_read = _kv_bytes(model, context, 1, 1, kv_bytes)
    else:  # a chunked layer reads only its current chunk: the keys its queries attend, averaged over the output
        kv_read = layers * keys * model._kv_cache_elements_per_token(1) * kv_bytes
    step_bytes = _weight_read_params(model, group) * weight_bytes + group * kv_read
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
    precision: str = "bf16",
) -> ServingEstimate:
    """Lower-bound TTFT, TPOT and tokens/s of one replica on ``tp · pp`` devices serving ``batch`` requests.

    * **Prefill** (TTFT) of one prompt of P tokens: FLOPs 2·N·P + causal attention 2·L·h·P², bytes the
      weights once; on the roofline it is compute-bound for any real prompt. Plus 2·L all-reduces of
      P·h activations and (pp - 1) hand-offs.
    * **Decode** (TPOT): a step reads the weights and the batch's KV cache (mean context P + O/2) and
      does 2·N + 4·L·h·context FLOPs per request; plus 2·L all-reduces of batch·h activations, priced by
      :func:`tp_all_reduce`, and (pp - 1) hand-offs. PP splits the batch into pp groups that keep every
      stage busy, but one token still passes all pp stages in turn. On sliding-window or chunked layers the keys
      a query attends, and so the cache it reads, are fewer (:meth:`~coursekit.specs.ModelSpec.decode_keys`).

    ``tp`` must divide the attention heads and divide the KV heads or be a multiple of them (the serving search's
    shape gate); ``weight_bytes`` and ``kv_bytes`` are at most :data:`~coursekit.specs.MAX_ELEMENT_BYTES`, as in
    :class:`~coursekit.serving.ServingWorkload`. ``precision="fp8"`` (W8A8, weights of at most 1 byte) times the
    linear layers' 2·N FLOPs at the device's FP8 peak and attention's at the bf16 peak.

    >>> from coursekit.presets import CLUSTERS, MODELS
    >>> est = serving_estimate(MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, batch=64, prompt_tokens=2048,
    ...                        output_tokens=256)
    >>> round(est.time_per_output_token_s * 1e3, 1), est.decode_bound, est.all_reduce.protocol
    (12.7, 'memory', 'LL')

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, cluster)
    tp = _check_tp(model, tp)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    batch = check_int("batch", batch, ge=1)
    prompt = check_int("prompt_tokens", prompt_tokens, ge=1)
    output = check_int("output_tokens", output_tokens, ge=1)
    weight_bytes = check_weight_bytes(weight_bytes)
    kv_bytes = check_int("kv_bytes", kv_bytes, ge=1, le=MAX_ELEMENT_BYTES)
    precision = check_choice("precision", precision, PRECISIONS)
    if precision == "fp8" and weight_bytes > 1:
        raise ValueError(tr("serving.fp8_weights", weight_bytes=weight_bytes))
    return _estimate(model, cluster, tp, pp, batch, prompt, output, weight_bytes, kv_bytes, precision)


@finite_result
def littles_law_concurrency(request_rate_per_s: float, latency_s: float) -> float:
    """Little's law: requests in the system = arrival rate × time each spends in it (N = λ · W).

    >>> littles_law_concurrency(10.0, 3.2)   # 10 requests/s that each take 3.2 s keep 32 in flight
    32.0

    Taught in: lesson 10 (serving).
    """
    rate = check_number("request_rate_per_s", request_rate_per_s, ge=0)
    latency = check_number("latency_s", latency_s, ge=0)
    return rate * latency


learner_functions(globals())
