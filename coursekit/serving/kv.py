"""Serving memory: the KV cache and one rank's ledger (weights, KV cache, workspace, reserve).

Taught in: lesson 10 (serving).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._validate import check_int, check_number, finite_result, learner_functions
from ..i18n import Text, register, tr
from ..specs import (
    ACTIVATION_BYTES,
    DEFAULT_RUNTIME_RESERVE_GIB,
    MAX_CONCURRENCY,
    MAX_ELEMENT_BYTES,
    ClusterSpec,
    ModelSpec,
    check_weight_bytes,
    kv_heads_split,
)
from ..units import GIB_BYTES, telling_digits

register(
    {
        "serving.fits": {
            "zh": "放得下，余量 {headroom_gib:.{digits}f} GiB",
            "en": "fits, {headroom_gib:.{digits}f} GiB headroom",
        },
        "serving.short": {
            "zh": "放不下，差 {short_gib:.{digits}f} GiB",
            "en": "does not fit, {short_gib:.{digits}f} GiB short",
        },
        "serving.tp_kv_heads": {
            "zh": "tp = {tp!r}：必须整除 kv_heads = {kv_heads!r}，或是它的整数倍"
            "（KV 头要么平分给各个 rank，要么整头复制到几个 rank 上）。",
            "en": "tp = {tp!r}: must divide kv_heads = {kv_heads!r} or be a multiple of it (the KV heads are either "
            "split evenly over the ranks or copied whole to several ranks).",
        },
        "serving.tp_heads": {
            "zh": "tp = {tp!r}：必须整除 heads = {heads!r}（{model} 的注意力头数：每个 rank 要拿到整数个头；"
            "规划器的形状门槛同样拒绝这样的 TP）。这个模型能用的 TP：{choices}。",
            "en": "tp = {tp!r}: must divide heads = {heads!r}, the attention heads of {model} (each rank needs whole "
            "heads; the planner's shape gate refuses such a TP too). TP values that work for this model: {choices}.",
        },
        "serving.chunk_beyond_context": {
            "zh": "prefill_chunk_tokens = {chunk!r}：必须 <= context_tokens = {context!r}（预填充块是一个提示的一段，"
            "不会比请求的上下文还长；默认就是整个上下文）。",
            "en": "prefill_chunk_tokens = {chunk!r}: must be <= context_tokens = {context!r} (a prefill chunk is a "
            "piece of one prompt, never longer than the request's context; by default it is the whole context).",
        },
        "serving.requests_tokens": {
            "zh": "requests = {requests!r}：必须 <= {limit}（tokens = {tokens!r}：每个请求至少缓存一个 token；"
            "没有缓存 token 时为 1）。",
            "en": "requests = {requests!r}: must be <= {limit} (tokens = {tokens!r}: each request holds at least one "
            "of the cached tokens; 1 when none are cached).",
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


def _splits_kv_heads(kv_heads: int, tp: int) -> bool:
    """True when tp divides kv_heads (each rank holds kv_heads / tp heads) or is a multiple of it (each head is
    copied whole to tp / kv_heads ranks): vLLM's ``QKVParallelLinear`` accepts nothing else
    (vllm/model_executor/layers/linear.py, ``divide(total_num_kv_heads, tp_size)`` or
    ``divide(tp_size, total_num_kv_heads)``)."""
    return kv_heads % tp == 0 or tp % kv_heads == 0


def _check_kv_split(tp: int, kv_heads: int) -> None:
    """ValueError naming ``tp`` when it neither divides ``kv_heads`` nor is a multiple of it."""
    if not _splits_kv_heads(kv_heads, tp):
        raise ValueError(tr("serving.tp_kv_heads", tp=tp, kv_heads=kv_heads))


#: Most TP values a refusal lists (a model with hundreds of heads has many divisors; the small ones are useful).
_LISTED_TPS = 8


def _working_tps(model: ModelSpec) -> str:
    """The TP values that divide ``model``'s attention heads and split or copy its KV heads, smallest first, as the
    learner's language lists them (at most :data:`_LISTED_TPS`, then "…")."""
    fits = [t for t in range(1, model.heads + 1) if model.heads % t == 0 and _splits_kv_heads(model.kv_heads, t)]
    shown = [str(t) for t in fits[:_LISTED_TPS]] + (["…"] if len(fits) > _LISTED_TPS else [])
    return Text(zh="、", en=", ").render().join(shown)


def _check_tp(model: ModelSpec, tp: Any) -> int:
    """``tp`` checked for a model: an int >= 1 that divides the attention heads (the planner's and the serving
    search's shape gate) and splits the KV heads evenly or copies them whole (:func:`kv_heads_per_rank`)."""
    checked: int = check_int("tp", tp, ge=1)
    if model.heads % checked:
        raise ValueError(tr("serving.tp_heads", tp=checked, heads=model.heads, model=model.name,
                            choices=_working_tps(model)))  # fmt: skip
    _check_kv_split(checked, model.kv_heads)
    return checked


def kv_heads_per_rank(kv_heads: int, tp: int) -> int:
    """KV heads one TP rank holds: kv_heads / tp, or 1 when tp is a multiple of kv_heads (each head is replicated).

    A ``tp`` that neither divides ``kv_heads`` nor is a multiple of it is refused: the heads could be neither split
    evenly nor copied whole (serving engines such as vLLM refuse it too).

    >>> kv_heads_per_rank(8, 4), kv_heads_per_rank(8, 16), kv_heads_per_rank(1, 8)
    (2, 1, 1)
    >>> kv_heads_per_rank(8, 3)
    Traceback (most recent call last):
    ...
    ValueError: tp = 3: must divide kv_heads = 8 or be a multiple of it (the KV heads are either split evenly ...).

    Taught in: lesson 10 (serving).
    """
    kv_heads = check_int("kv_heads", kv_heads, ge=1)
    tp = check_int("tp", tp, ge=1)
    _check_kv_split(tp, kv_heads)
    return int(kv_heads_split(kv_heads, tp))


def _kv_bytes(model: ModelSpec, tokens: Any, tp: int, pp: int, kv_bytes: Any, requests: Any = 1) -> Any:
    return model._kv_token_layers(tokens, pp, requests) * model._kv_cache_elements_per_token(tp) * kv_bytes


@finite_result
def kv_cache_bytes(
    model: ModelSpec, *, tokens: int, tp: int = 1, pp: int = 1, kv_bytes: int = 2, requests: int = 1
) -> int:
    """Bytes of keys and values for ``tokens`` cached tokens on one rank (the fullest one).

    2 (K and V) · layers per stage · KV heads per rank · head_dim · kv_bytes · tokens. Grouped-query
    attention (GQA) and multi-query attention (MQA) have fewer KV heads than query heads, which is the
    whole saving. Multi-head latent attention (MLA, DeepSeek-V2 §2.1.2) caches instead one compressed latent
    and a shared rope key, kv_lora_rank + qk_rope_head_dim elements per token and layer, on every TP rank
    (:meth:`~coursekit.specs.ModelSpec.kv_cache_elements_per_token`).
    TP splits the KV heads (:func:`kv_heads_per_rank`: replicated when tp > kv_heads);
    PP splits the layers (the first stages hold ceil(layers / pp)). A model with sliding-window layers
    (``window_tokens``: Mistral 7B, Gemma 2/3, GPT-OSS) keeps at most the last ``window_tokens`` of each of the
    ``requests`` requests on those layers (:meth:`~coursekit.specs.ModelSpec.kv_token_layers`: an engine that frees
    what leaves the window, as vLLM's hybrid KV cache manager does), and one with chunked-attention layers
    (``chunk_tokens``: Llama 4) at most ``chunk_tokens`` of each, the current chunk.

    Parameters:
        model: a :class:`~coursekit.planner.ModelSpec`.
        tokens: cached tokens, summed over the requests on the rank, >= 0.
        tp, pp: tensor- and pipeline-parallel degrees, >= 1; tp divides the KV heads or is a multiple of them
            (:func:`kv_heads_per_rank`); pp <= layers.
        kv_bytes: bytes per cached element (2 for bf16/fp16, 1 for fp8), 1 to
            :data:`~coursekit.specs.MAX_ELEMENT_BYTES`.
        requests: how many requests the ``tokens`` belong to, 1 to ``tokens`` (at least 1); it matters only on
            sliding-window or chunked layers, which keep at most ``window_tokens`` or ``chunk_tokens`` per request.

    >>> from coursekit.presets import MODELS
    >>> kv_cache_bytes(MODELS["llama3-70b"], tokens=2048, tp=8) / 2**20   # one 2K-token request on one of 8 GPUs
    80.0
    >>> kv_cache_bytes(MODELS["deepseek-v3"], tokens=1)  # MLA: 61 layers x (512 + 64) elements x 2 bytes
    70272

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, with_cluster=False)
    tokens = check_int("tokens", tokens, ge=0)
    tp = check_int("tp", tp, ge=1)
    _check_kv_split(tp, model.kv_heads)  # the cache needs only the KV heads split or copied whole
    pp = check_int("pp", pp, ge=1, le=model.layers)
    kv_bytes = check_int("kv_bytes", kv_bytes, ge=1, le=MAX_ELEMENT_BYTES)
    requests = check_int("requests", requests, ge=1)
    if requests > max(tokens, 1):
        raise ValueError(tr("serving.requests_tokens", requests=requests, limit=max(tokens, 1), tokens=tokens))
    return int(_kv_bytes(model, tokens, tp, pp, kv_bytes, requests))


# --------------------------------------------------------------------------- the memory ledger


@dataclass(frozen=True)
class ServingLedger:
    """Memory of one serving rank, GiB: weights, KV cache, activation workspace, runtime reserve.

    ``kv_per_request_gib`` is one request's full context on this rank; ``workspace_per_request_gib`` the part of
    the workspace each request adds (the fp32 logits of its last token); ``max_concurrency`` the most requests one
    replica holds before they no longer fit (0 when the weights alone do not). It counts every request's KV cache
    and logits, so it is the same whatever ``concurrency`` the ledger was built for.
    """

    weights_gib: float
    kv_cache_gib: float
    workspace_gib: float
    reserve_gib: float
    device_gib: float
    kv_per_request_gib: float
    concurrency: int
    workspace_per_request_gib: float = 0.0

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
        """Requests one replica holds before their KV cache and logits overflow the device.

        The largest n for which the ledger of n requests still fits: what one request needs (its KV cache and its
        share of the workspace) is set against what is left besides them.
        """
        per_request = self.kv_per_request_gib + self.workspace_per_request_gib
        held = max(self.concurrency, 1)  # the workspace is sized for at least one request
        fixed = self.weights_gib + self.workspace_gib - held * self.workspace_per_request_gib + self.reserve_gib
        free = self.device_gib - fixed
        if free <= 0:
            return 0
        if per_request <= 0:
            return MAX_CONCURRENCY
        most = int(free // per_request)
        if most > 0 and fixed + most * per_request > self.device_gib:  # rounding at the boundary
            most -= 1
        return most

    def verdict(self, decimals: int = 1) -> str:
        """``fits, x GiB headroom`` or ``does not fit, x GiB short``, in the current language: the headroom to
        ``decimals`` places (a sentence that prints the total to more places passes them), the shortfall to at least
        as many as tell it from zero."""
        decimals = check_int("decimals", decimals, ge=0, le=6)
        if self.fits:
            return tr("serving.fits", headroom_gib=self.headroom_gib, digits=decimals)
        short = -self.headroom_gib
        return tr("serving.short", short_gib=short, digits=max(decimals, telling_digits(short)))

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
    """Parameters a token multiplies through (:attr:`~coursekit.specs.ModelSpec.matmul_params`)."""
    return float(model.matmul_params)


def _workspace_bytes(model: ModelSpec, tp: int, chunk_tokens: int, batch: int) -> float:
    """One layer's transient tensors for the largest forward pass (a prefill chunk), reused layer after layer.

    Residual stream and its normalised copy (2h), the QKV output ((h + 2·kv)/tp), the MLP's inner
    activations ((matrices - 1)·f/tp), in bf16; plus fp32 logits of the batch's last tokens (V/tp each).
    """
    matrices = 3 if model.mlp == "swiglu" else 2
    width = model.moe_ffn_hidden or model.ffn_hidden
    per_token = 2 * model.hidden + (model.hidden + 2 * model.kv_hidden) / tp + (matrices - 1) * width / tp
    return float(ACTIVATION_BYTES * chunk_tokens * per_token + model._logits_bytes(batch, tp))


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
    (one layer's tensors for a prefill chunk of at most ``context_tokens``, default one whole prompt of
    ``context_tokens``) + reserve.
    ``tp`` must divide the attention heads and divide the KV heads or be a multiple of them (the serving search's
    shape gate); ``weight_bytes`` and ``kv_bytes`` are at most :data:`~coursekit.specs.MAX_ELEMENT_BYTES`.

    >>> from coursekit.presets import CLUSTERS, MODELS
    >>> ledger = serving_memory_ledger(MODELS["llama3-70b"], CLUSTERS["h100-8"], tp=8, concurrency=64,
    ...                                context_tokens=2304)
    >>> round(ledger.weights_gib, 1), round(ledger.kv_cache_gib, 1), ledger.fits
    (16.4, 5.6, True)

    Taught in: lesson 10 (serving).
    """
    _check_specs(model, cluster)
    tp = _check_tp(model, tp)
    pp = check_int("pp", pp, ge=1, le=model.layers)
    concurrency = check_int("concurrency", concurrency, ge=0)
    context_tokens = check_int("context_tokens", context_tokens, ge=1)
    weight_bytes = check_weight_bytes(weight_bytes)
    kv_bytes = check_int("kv_bytes", kv_bytes, ge=1, le=MAX_ELEMENT_BYTES)
    chunk = (
        context_tokens
        if prefill_chunk_tokens is None
        else check_int("prefill_chunk_tokens", prefill_chunk_tokens, ge=1)
    )
    if chunk > context_tokens:  # its workspace would be sized for tokens no request has
        raise ValueError(tr("serving.chunk_beyond_context", chunk=chunk, context=context_tokens))
    reserve = check_number("runtime_reserve_gib", runtime_reserve_gib, ge=0)
    return _memory_ledger(model, cluster, tp, pp, concurrency, context_tokens, weight_bytes, kv_bytes, chunk, reserve)


def _memory_ledger(
    model: ModelSpec,
    cluster: ClusterSpec,
    tp: int,
    pp: int,
    concurrency: int,
    context_tokens: int,
    weight_bytes: float,
    kv_bytes: int,
    chunk: int,
    reserve: float,
) -> ServingLedger:
    """:func:`serving_memory_ledger` on checked arguments (the serving search calls it for every layout)."""
    per_request = _kv_bytes(model, context_tokens, tp, pp, kv_bytes)
    return ServingLedger(
        weights_gib=model.num_params * weight_bytes / (tp * pp) / GIB_BYTES,
        kv_cache_gib=concurrency * per_request / GIB_BYTES,
        workspace_gib=_workspace_bytes(model, tp, chunk, max(concurrency, 1)) / GIB_BYTES,
        reserve_gib=reserve,
        device_gib=cluster.memory_per_device_gib,
        kv_per_request_gib=per_request / GIB_BYTES,
        concurrency=concurrency,
        workspace_per_request_gib=model._logits_bytes(1, tp) / GIB_BYTES,
    )


learner_functions(globals())
