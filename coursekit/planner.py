"""The decision workbench: apply the course's method to a whole search space of parallel compositions.

Tools such as Calculon or llm-analysis estimate or search and hand back the best
configuration. :func:`plan` applies the method of seed 000 instead — register the
constraints (:class:`ModelSpec`, :class:`ClusterSpec`, :class:`WorkloadSpec`),
enumerate every composition the cluster admits, exclude by hard gates with reasons,
check the composition, and only then estimate — and it keeps every exclusion with its
reason. Accepted candidates are ordered by an *estimated* step time built from stated
assumptions (peak FLOP/s, achievable fraction, overlap); there is no blended score.

The search space (training) is every tuple

    (tp, cp, pp, dp, ep, virtual_stages, zero_stage, micro_batch, recompute)

with ``tp · cp · pp · dp = world`` (all ranks of the cluster), ``ep`` a divisor of the
expert count (MoE only), ``virtual_stages`` in 1..``max_virtual_stages`` dividing
``layers / pp``, ``micro_batch`` a divisor of the global batch up to ``max_micro_batch``
and the recompute modes and ZeRO stages of the workload; the gradient accumulation is
``global_batch / (dp · micro_batch)``. Degrees that cannot tile the ranks are never
generated (the only pruning); everything else goes through the gates, so the funnel
shows why each composition lost. With d(W) divisors of the world size W the space has
O(d(W)³ · |ep| · |v| · |zero| · |mb| · |recompute|) candidates (about 10⁴–10⁵ for
W = 4096); each gate and each estimate is evaluated for all of them at once with
numpy, O(1) per candidate. Serving enumerates ``tp · pp · replicas = world``.

>>> from coursekit.presets import MODELS, CLUSTERS
>>> result = plan(MODELS["llama3-8b"], CLUSTERS["pcie-24g-8"], WorkloadSpec(global_batch=64, seq_len=4096))
>>> result.space_size > 0, result.funnel[-1].remaining == len(result.accepted())
(True, True)

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from ._validate import check_bool, check_choice, check_divides, check_int, check_number
from .capacity import PRECISION_RECIPES, RECOMPUTE_MODES, activation_memory_breakdown, training_state_memory
from .communication import (
    TrafficEntry,
    TrafficTime,
    cp_traffic,
    ep_traffic,
    pp_traffic,
    tp_traffic,
    traffic_time,
    zero_traffic,
)
from .composition import validate_megatron_composition, validate_parallel_composition
from .gates import (
    Candidate,
    Environment,
    check_global_batch,
    check_pp_degree,
    check_tp_degree,
    gate_context,
    gate_memory,
    gate_mode,
    gate_serving,
    gate_structure,
)
from .i18n import Reason, Text, register, tr
from .pipeline import bubble_fraction
from .scaling import StepTimeline, step_timeline
from .units import GIB_BYTES, bytes_to_gib

if TYPE_CHECKING:  # pragma: no cover - typing only; numpy is imported inside the search
    import numpy.typing as npt

__all__ = [
    "ACTIVATION_BYTES",
    "DEFAULT_ACHIEVABLE_FLOPS_FRACTION",
    "DEFAULT_OVERLAP_FRACTION",
    "DEFAULT_RUNTIME_RESERVE_GIB",
    "DEGREE_KEYS",
    "LOGITS_BYTES",
    "MLP_KINDS",
    "PLAN_GATES",
    "WORKLOAD_MODES",
    "Assumptions",
    "ClusterSpec",
    "CommRow",
    "FunnelStep",
    "MemoryLedger",
    "ModelSpec",
    "PlanCandidate",
    "PlanGate",
    "PlanResult",
    "WorkloadSpec",
    "evaluate_composition",
    "group_link",
    "megatron_paper_flops_per_step",
    "megatron_paper_param_count",
    "parse_degrees",
    "plan",
]

# --------------------------------------------------------------------------- constants

#: Workload modes (seed 000, Q3: training or serving).
WORKLOAD_MODES: tuple[str, ...] = ("training", "serving")
#: MLP kinds: SwiGLU has three h×f matrices (gate, up, down), GELU two (up, down).
MLP_KINDS: tuple[str, ...] = ("swiglu", "gelu")
#: Normalisation layers: LayerNorm has a scale and a bias (2h), RMSNorm a scale (h).
NORM_KINDS: tuple[str, ...] = ("layernorm", "rmsnorm")
#: Position embeddings: learned (a seq_len × h table, GPT-2/3) or rotary (no parameters).
POSITION_KINDS: tuple[str, ...] = ("learned", "rope")

#: Bytes per activation element sent by TP / CP / EP / PP collectives and kept in the KV cache (bf16).
ACTIVATION_BYTES: int = 2
#: Bytes per logit kept for the cross-entropy loss: Korthikanti et al. (arXiv:2205.05198, §4.3) count
#: the output layer's fp32 logits as 4·s·b·v/t bytes on the last pipeline stage.
LOGITS_BYTES: int = 4

#: Default achievable fraction of peak FLOP/s (the MFU assumption). A round prior, not a measurement:
#: set it from your own profile (lesson 8) — the estimate scales with it.
DEFAULT_ACHIEVABLE_FLOPS_FRACTION: float = 0.5
#: Default share of communication hidden under compute: none, so the estimate is an upper bound on
#: communication cost unless you state an overlap.
DEFAULT_OVERLAP_FRACTION: float = 0.0
#: Default runtime reserve per device (CUDA context, allocator fragmentation, buffers): the seed's
#: 2 GiB (seed 000, Q1 小验证 ``runtime_reserve_gib = 2.0``).
DEFAULT_RUNTIME_RESERVE_GIB: float = 2.0
#: Default largest micro-batch (sequences) the search tries.
DEFAULT_MAX_MICRO_BATCH: int = 8
#: Default largest number of model chunks per pipeline device (interleaved schedule) the search tries.
DEFAULT_MAX_VIRTUAL_STAGES: int = 4

#: Keys :func:`parse_degrees` and :meth:`PlanResult.explain` accept, with their meaning.
DEGREE_KEYS: dict[str, str] = {
    "tp": "tensor parallel",
    "pp": "pipeline parallel",
    "dp": "data parallel",
    "cp": "context parallel",
    "ep": "expert parallel",
    "v": "virtual stages (model chunks per pipeline device)",
    "zero": "ZeRO stage 0-3",
    "mb": "micro-batch (sequences)",
    "ga": "gradient accumulation (micro-batches per step)",
    "recompute": "none, selective or full",
    "replicas": "serving replicas",
}

MEGATRON_2021_SOURCE: str = (
    "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM, "
    "arXiv:2104.04473 (SC21)"
)

register(
    {
        "planner.cp_seq": {
            "zh": "cp = {cp} 不能整除序列长度 {seq_len}：每个上下文并行 (CP) rank 必须持有等长的一段序列",
            "en": "cp = {cp} does not divide the sequence length {seq_len}: every context-parallel rank must "
            "hold an equal slice of the sequence",
        },
        "planner.ep_experts": {
            "zh": "ep = {ep} 不能整除 {experts} 个专家：每个专家并行 (EP) rank 必须持有整数个专家",
            "en": "ep = {ep} does not divide the {experts} experts: every expert-parallel rank must hold whole experts",
        },
        "planner.virtual_needs_pp": {
            "zh": "v = {v} 个虚拟阶段需要流水线并行 (pp > 1)：模型块 (model chunk) 是在流水线阶段之间交错的",
            "en": "v = {v} virtual stages need pipeline parallelism (pp > 1): model chunks interleave across "
            "pipeline stages",
        },
        "planner.virtual_layers": {
            "zh": "{layers} 层不能平均分成 pp × v = {pp} × {v} = {chunks} 个模型块",
            "en": "{layers} layers do not split into pp × v = {pp} × {v} = {chunks} equal model chunks",
        },
        "planner.moe_top_k": {
            "zh": "top_k = {top_k}：MoE 模型必须在 1 到 num_experts = {experts} 之间，稠密模型必须为 0。",
            "en": "top_k = {top_k}: must be between 1 and num_experts = {experts} for an MoE model, and 0 for "
            "a dense one.",
        },
        "planner.type_spec": {
            "zh": "{name} = {value!r}：必须是 {expected}，而不是 {type}。",
            "en": "{name} = {value!r}: must be a {expected}, not {type}.",
        },
        "planner.empty_choices": {
            "zh": "{name} = {value!r}：至少要有一个取值。",
            "en": "{name} = {value!r}: must hold at least one value.",
        },
        "planner.degrees_syntax": {
            "zh": "degrees = {value!r}：{item!r} 不是 key=value 形式（例如 'tp=8,pp=4,dp=4'）。",
            "en": "degrees = {value!r}: {item!r} is not of the form key=value (e.g. 'tp=8,pp=4,dp=4').",
        },
        "planner.degrees_key": {
            "zh": "degrees = {value!r}：未知的键 {key!r}；可用的键是 {keys}。",
            "en": "degrees = {value!r}: unknown key {key!r}; the keys are {keys}.",
        },
        "planner.degrees_int": {
            "zh": "degrees = {value!r}：{key} = {item!r} 必须是正整数。",
            "en": "degrees = {value!r}: {key} = {item!r} must be a positive integer.",
        },
        "planner.degrees_mixed": {
            "zh": "degrees = {value!r}：replicas 描述服务副本，不能与训练的 dp、zero、ga 同时给出。",
            "en": "degrees = {value!r}: replicas describe serving copies and cannot be given together with the "
            "training keys dp, zero or ga.",
        },
        # ---- reports
        "planner.header": {
            "zh": "决策工作台：{model} 在 {cluster}（{nodes} 个节点 × {gpn} 个设备 = {world} 个 rank）上{mode}",
            "en": "Decision workbench: {model} on {cluster} ({nodes} nodes × {gpn} devices = {world} ranks), {mode}",
        },
        "planner.mode_training": {
            "zh": "训练，global batch {global_batch} 条序列 × {seq_len} tokens",
            "en": "training, global batch {global_batch} sequences × {seq_len} tokens",
        },
        "planner.mode_serving": {
            "zh": "服务，{global_batch} 条并发序列 × 上下文 {seq_len} tokens",
            "en": "serving, {global_batch} concurrent sequences × context {seq_len} tokens",
        },
        "planner.assumptions": {
            "zh": "假设：峰值 {peak_tflops:.0f} TFLOP/s（bf16 稠密），可达比例 {mfu:.0%}，通信重叠 {overlap:.0%}，"
            "精度方案 {recipe}，运行余量 {reserve_gib:.1f} GiB/设备；带宽为每 GPU 单向：机内 {intra_gb_s:.0f} GB/s，"
            "机间 {inter_gb_s:.1f} GB/s",
            "en": "Assumptions: peak {peak_tflops:.0f} TFLOP/s (bf16 dense), achievable fraction {mfu:.0%}, "
            "overlap {overlap:.0%}, recipe {recipe}, runtime reserve {reserve_gib:.1f} GiB per device; bandwidth "
            "unidirectional per GPU: intra-node {intra_gb_s:.0f} GB/s, inter-node {inter_gb_s:.1f} GB/s",
        },
        "planner.space": {
            "zh": "搜索空间：{size} 个组合（{dims}），用时 {elapsed_ms:.0f} ms",
            "en": "Search space: {size} compositions ({dims}), searched in {elapsed_ms:.0f} ms",
        },
        "planner.funnel_header": {
            "zh": "漏斗（按门槛顺序，每个候选记在它第一个没通过的门槛上）：",
            "en": "Funnel (gate order; each candidate counted at the first gate it fails):",
        },
        "planner.funnel_row": {
            "zh": "  {code:<13} 排除 {removed:>7}，剩余 {remaining:>7}",
            "en": "  {code:<13} removed {removed:>7}, remaining {remaining:>7}",
        },
        "planner.accepted_header": {
            "zh": "通过的候选：{count} 个；按估算的步时排序（估算，不是测量），前 {top} 个：",
            "en": "Accepted: {count}; ordered by estimated step time (an estimate, not a measurement), top {top}:",
        },
        "planner.none_accepted": {
            "zh": "没有候选通过全部门槛。用 --explain 查看某个组合被拒绝的原因。",
            "en": "No candidate passes every gate. Use --explain to see why a composition was rejected.",
        },
        "planner.accepted": {"zh": "通过", "en": "accepted"},
        "planner.rejected": {"zh": "拒绝", "en": "rejected"},
        "planner.candidate_line": {
            "zh": "{status}：{label}",
            "en": "{status}: {label}",
        },
        "planner.reasons": {"zh": "  原因：", "en": "  Reasons:"},
        "planner.warnings": {"zh": "  提醒：", "en": "  Warnings:"},
        "planner.no_ledger": {
            "zh": "  组合本身不成立，没有计算显存账本和步时。",
            "en": "  The composition itself is malformed; no memory ledger or step time was computed.",
        },
        "planner.memory_line": {
            "zh": "  每 rank 显存：参数 {params:.2f} + 梯度 {grads:.2f} + 优化器 {optimizer:.2f} "
            "+ 工作区 {workspace:.2f} + {act_label} {activations:.2f} + 余量 {reserve:.2f} "
            "= {total:.2f} GiB / 设备 {device:.1f} GiB",
            "en": "  Memory per rank: params {params:.2f} + grads {grads:.2f} + optimizer {optimizer:.2f} + workspace "
            "{workspace:.2f} + {act_label} {activations:.2f} + reserve {reserve:.2f} = {total:.2f} GiB of {device:.1f} "
            "GiB",
        },
        "planner.act_label": {"zh": "激活", "en": "activations"},
        "planner.kv_label": {"zh": "KV 缓存", "en": "KV cache"},
        "planner.comm_header": {"zh": "  每步通信（每 rank）：", "en": "  Communication per step (per rank):"},
        "planner.comm_line": {
            "zh": "    {dim:<3} {ranks:>5} 个 rank，{link}：{calls} 次调用，"
            "载荷 {payload_gib:.3f} GiB，{time_ms:.1f} ms",
            "en": "    {dim:<3} {ranks:>5} ranks, {link}: {calls} calls, "
            "payload {payload_gib:.3f} GiB, {time_ms:.1f} ms",
        },
        "planner.link_intra_node": {"zh": "机内链路", "en": "intra-node link"},
        "planner.link_inter_node": {"zh": "机间链路", "en": "inter-node link"},
        "planner.step_line": {
            "zh": "  估算步时 {step_s:.3f} s = 计算 {compute_s:.3f} + 暴露的通信 {exposed_s:.3f} + 气泡 {bubble_s:.3f} "
            "（通信共 {comm_s:.3f} s，其中 {hidden_s:.3f} s 藏在计算下；气泡占比 {bubble:.1%}）",
            "en": "  Estimated step {step_s:.3f} s = compute {compute_s:.3f} + exposed communication {exposed_s:.3f} "
            "+ bubble {bubble_s:.3f} (communication {comm_s:.3f} s, {hidden_s:.3f} s hidden under compute; "
            "bubble share {bubble:.1%})",
        },
        "planner.throughput_line": {
            "zh": "  估算吞吐 {tokens_per_s:,.0f} tokens/s，模型 FLOP/s 利用率 {mfu:.1%}",
            "en": "  Estimated throughput {tokens_per_s:,.0f} tokens/s, model FLOP/s utilisation {mfu:.1%}",
        },
        "planner.not_in_space": {
            "zh": "  （这个组合不在搜索空间内：{why}）",
            "en": "  (this composition is outside the searched space: {why})",
        },
    }
)


# --------------------------------------------------------------------------- helpers


def _type_error(name: str, value: Any, expected: str) -> TypeError:
    return TypeError(tr("planner.type_spec", name=name, value=value, expected=expected, type=type(value).__name__))


def _check_name(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _type_error(name, value, "non-empty str")
    return value


def _check_int_tuple(name: str, value: Any, *, ge: int, le: int | None = None) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise _type_error(name, value, "tuple of int")
    items = tuple(check_int(f"{name} item", item, ge=ge, le=le) for item in value)
    if not items:
        raise ValueError(tr("planner.empty_choices", name=name, value=value))
    return tuple(sorted(set(items)))


def _check_str_tuple(name: str, value: Any, choices: tuple[str, ...]) -> tuple[str, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise _type_error(name, value, "tuple of str")
    items = tuple(check_choice(f"{name} item", item, choices) for item in value)
    if not items:
        raise ValueError(tr("planner.empty_choices", name=name, value=value))
    return tuple(mode for mode in choices if mode in items)


def divisors(n: int) -> tuple[int, ...]:
    """The positive divisors of ``n``, ascending.

    >>> divisors(12)
    (1, 2, 3, 4, 6, 12)
    """
    n = check_int("n", n, ge=1)
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return tuple(sorted(set(small + [n // d for d in small])))


def group_link(span: int, gpus_per_node: int) -> str:
    """``"intra_node"`` if every group spanning ``span`` consecutive ranks stays inside one node, else ``"inter_node"``.

    Ranks are placed contiguously (rank r on node r // gpus_per_node) and a
    dimension's groups occupy aligned blocks of ``span`` ranks (Megatron-Core's
    order tp-cp-ep-dp-pp: TP spans tp, CP spans tp·cp, EP spans tp·ep, DP spans
    tp·cp·dp, PP spans the world). A block lies in one node exactly when ``span``
    divides ``gpus_per_node``; otherwise some group crosses a node and — since a
    ring runs at its slowest link — the whole dimension is timed on the
    inter-node link.

    >>> group_link(8, 8), group_link(16, 8), group_link(3, 8)
    ('intra_node', 'inter_node', 'inter_node')

    Taught in: lesson 9 (decision workbench).
    """
    span = check_int("span", span, ge=1)
    gpus_per_node = check_int("gpus_per_node", gpus_per_node, ge=1)
    return "intra_node" if gpus_per_node % span == 0 else "inter_node"


# --------------------------------------------------------------------------- the three specs


@dataclass(frozen=True)
class ModelSpec:
    """A transformer's shape, enough to count its parameters, FLOPs, activations and traffic.

    Parameters:
        name: a label.
        layers, hidden, heads: L, h, a; ``heads`` divides ``hidden`` (head_dim = h / a).
        kv_heads: key/value heads (grouped-query attention); divides ``heads``. ``None`` = ``heads``.
        ffn_hidden: the MLP's inner width f (dense layers, and experts unless ``moe_ffn_hidden``).
        vocab: vocabulary size V.
        seq_len: the context length the model was trained with (the workload's default).
        mlp: ``"swiglu"`` (3 matrices h×f) or ``"gelu"`` (2 matrices).
        norm: ``"rmsnorm"`` (h parameters) or ``"layernorm"`` (2h).
        position: ``"rope"`` (no parameters) or ``"learned"`` (seq_len × h).
        biases: linear layers carry biases (GPT-2/3, Megatron GPT) or not (Llama, Mixtral).
        tied_embeddings: the output layer reuses the input embedding.
        num_experts, top_k, moe_ffn_hidden: MoE layers (every layer) with ``num_experts`` experts,
            ``top_k`` routed per token; 0 and 0 for a dense model.
        source: where the numbers come from.

    Parameter count (:attr:`num_params`), with hd = h/a and kv = kv_heads·hd:

    * embeddings: V·h, plus seq_len·h for learned positions; output layer V·h unless tied;
    * attention per layer: h·h (Q) + 2·h·kv (K, V) + h·h (O), plus biases h + 2·kv + h;
    * MLP per layer: 3·h·f (SwiGLU) or 2·h·f (GELU), plus biases (f + h for GELU, 2f + h for SwiGLU);
    * norms: two per layer and a final one, 2h each (LayerNorm) or h (RMSNorm);
    * MoE: the MLP is replaced by ``num_experts`` expert MLPs of width ``moe_ffn_hidden`` and a
      router h·num_experts; :attr:`active_params` counts ``top_k`` experts instead of all.

    With GELU, f = 4h, biases and LayerNorm this is Megatron-LM's 12·L·h² + 13·L·h + (V + s)·h
    plus the final norm's 2h (see :func:`megatron_paper_param_count`).

    >>> gpt2 = ModelSpec("gpt2-small", layers=12, hidden=768, heads=12, ffn_hidden=3072, vocab=50257,
    ...                  seq_len=1024, mlp="gelu", norm="layernorm", position="learned", biases=True,
    ...                  tied_embeddings=True)
    >>> gpt2.num_params
    124439808

    Taught in: lesson 9 (decision workbench).
    """

    name: str
    layers: int
    hidden: int
    heads: int
    ffn_hidden: int
    vocab: int
    seq_len: int
    kv_heads: int | None = None
    mlp: str = "swiglu"
    norm: str = "rmsnorm"
    position: str = "rope"
    biases: bool = False
    tied_embeddings: bool = False
    num_experts: int = 0
    top_k: int = 0
    moe_ffn_hidden: int | None = None
    source: str = ""

    def __post_init__(self) -> None:
        raw: Any = self
        _check_name("name", raw.name)
        for attr in ("layers", "hidden", "heads", "ffn_hidden", "vocab", "seq_len"):
            check_int(attr, getattr(raw, attr), ge=1)
        check_divides("heads", raw.heads, "hidden", raw.hidden)
        if raw.kv_heads is None:
            object.__setattr__(self, "kv_heads", raw.heads)
        kv_heads = check_int("kv_heads", self.kv_heads, ge=1)
        check_divides("kv_heads", kv_heads, "heads", raw.heads)
        check_choice("mlp", raw.mlp, MLP_KINDS)
        check_choice("norm", raw.norm, NORM_KINDS)
        check_choice("position", raw.position, POSITION_KINDS)
        check_bool("biases", raw.biases)
        check_bool("tied_embeddings", raw.tied_embeddings)
        experts = check_int("num_experts", raw.num_experts, ge=0)
        top_k = check_int("top_k", raw.top_k, ge=0)
        if (experts > 0) != (1 <= top_k <= experts) or (experts == 0 and top_k != 0):
            raise ValueError(tr("planner.moe_top_k", top_k=top_k, experts=experts))
        if raw.moe_ffn_hidden is not None:
            check_int("moe_ffn_hidden", raw.moe_ffn_hidden, ge=1)
        if not isinstance(raw.source, str):
            raise _type_error("source", raw.source, "str")

    # -- shape
    @property
    def head_dim(self) -> int:
        """hd = hidden / heads."""
        return self.hidden // self.heads

    @property
    def kv_hidden(self) -> int:
        """Width of K (and of V): kv_heads · head_dim."""
        assert self.kv_heads is not None
        return self.kv_heads * self.head_dim

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model."""
        return self.num_experts > 0

    @property
    def kind(self) -> str:
        """``"moe"`` or ``"dense"`` (the structure gate's vocabulary)."""
        return "moe" if self.is_moe else "dense"

    def as_moe(self, num_experts: int = 8, top_k: int = 2) -> ModelSpec:
        """The what-if "same model, but every MLP is ``num_experts`` experts with ``top_k`` routed per token".

        >>> moe = ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).as_moe(8, 2)
        >>> moe.kind, moe.name, moe.active_params < moe.num_params
        ('moe', 'tiny-moe8x2', True)
        """
        experts = check_int("num_experts", num_experts, ge=1)
        k = check_int("top_k", top_k, ge=1)
        return replace(
            self, name=f"{self.name}-moe{experts}x{k}", num_experts=experts, top_k=k, moe_ffn_hidden=self.ffn_hidden
        )

    # -- parameter ledger
    def _norm_params(self) -> int:
        return 2 * self.hidden if self.norm == "layernorm" else self.hidden

    def _mlp_params(self, width: int) -> int:
        h = self.hidden
        if self.mlp == "swiglu":
            return 3 * h * width + ((2 * width + h) if self.biases else 0)
        return 2 * h * width + ((width + h) if self.biases else 0)

    @property
    def attention_params_per_layer(self) -> int:
        """Q, K, V, O projections (GQA-aware) and their biases."""
        h, kv = self.hidden, self.kv_hidden
        return 2 * h * h + 2 * h * kv + ((2 * h + 2 * kv) if self.biases else 0)

    @property
    def expert_params(self) -> int:
        """Parameters of one expert MLP (0 for a dense model)."""
        if not self.is_moe:
            return 0
        return self._mlp_params(self.moe_ffn_hidden or self.ffn_hidden)

    @property
    def dense_params_per_layer(self) -> int:
        """Per-layer parameters that every token uses: attention, norms, the MLP (dense) or the router (MoE)."""
        base = self.attention_params_per_layer + 2 * self._norm_params()
        if self.is_moe:
            return base + self.hidden * self.num_experts
        return base + self._mlp_params(self.ffn_hidden)

    @property
    def input_embedding_params(self) -> int:
        """Token embedding V·h, plus seq_len·h for learned positions."""
        return self.vocab * self.hidden + (self.seq_len * self.hidden if self.position == "learned" else 0)

    @property
    def output_params(self) -> int:
        """The output layer V·h (0 when tied to the input embedding) plus the final norm."""
        return (0 if self.tied_embeddings else self.vocab * self.hidden) + self._norm_params()

    def param_ledger(self) -> dict[str, int]:
        """The parameter count as a ledger ``{part: parameters}`` (all layers together).

        >>> ledger = ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).param_ledger()
        >>> sum(ledger.values()) == ModelSpec("tiny", 2, 64, 4, 256, 1000, 128).num_params
        True
        """
        ledger = {
            "embedding": self.input_embedding_params,
            "attention": self.layers * self.attention_params_per_layer,
            "norms": (2 * self.layers + 1) * self._norm_params(),
            "output": 0 if self.tied_embeddings else self.vocab * self.hidden,
        }
        if self.is_moe:
            ledger["router"] = self.layers * self.hidden * self.num_experts
            ledger["experts"] = self.layers * self.num_experts * self.expert_params
        else:
            ledger["mlp"] = self.layers * self._mlp_params(self.ffn_hidden)
        return ledger

    @property
    def num_params(self) -> int:
        """All parameters (every expert counted)."""
        return sum(self.param_ledger().values())

    @property
    def active_params(self) -> int:
        """Parameters one token passes through: ``top_k`` experts per MoE layer instead of all."""
        if not self.is_moe:
            return self.num_params
        return self.num_params - self.layers * (self.num_experts - self.top_k) * self.expert_params


@dataclass(frozen=True)
class ClusterSpec:
    """Devices, their memory and peak, and the two kinds of links between them.

    Parameters:
        name: a label.
        nodes, gpus_per_node: the cluster is ``nodes × gpus_per_node`` devices (ranks).
        memory_per_device_gib: usable device memory, GiB.
        peak_flops: peak dense bf16 FLOP/s of one device (vendor datasheet).
        intra_node_bandwidth_bytes_per_s: bytes/s one device can send to the others of its node,
            unidirectional per GPU (NVLink: half the vendor's bidirectional figure).
        inter_node_bandwidth_bytes_per_s: bytes/s one device can send off its node, unidirectional
            per GPU (the node's network injection bandwidth divided by its GPUs).
        intra_node_latency_s, inter_node_latency_s: alpha, the fixed cost of one ring step.
        memory_bandwidth_bytes_per_s: device memory bandwidth (serving's decode is bound by it).
        source: where the numbers come from.

    >>> c = ClusterSpec("toy", 2, 8, 80, 312e12, 300e9, 25e9, 2e-6, 5e-6, 2.0e12)
    >>> c.world_size, c.with_nodes(4).world_size
    (16, 32)

    Taught in: lesson 9 (decision workbench).
    """

    name: str
    nodes: int
    gpus_per_node: int
    memory_per_device_gib: float
    peak_flops: float
    intra_node_bandwidth_bytes_per_s: float
    inter_node_bandwidth_bytes_per_s: float
    intra_node_latency_s: float
    inter_node_latency_s: float
    memory_bandwidth_bytes_per_s: float
    source: str = ""

    def __post_init__(self) -> None:
        raw: Any = self
        _check_name("name", raw.name)
        check_int("nodes", raw.nodes, ge=1)
        check_int("gpus_per_node", raw.gpus_per_node, ge=1)
        for attr in (
            "memory_per_device_gib",
            "peak_flops",
            "intra_node_bandwidth_bytes_per_s",
            "inter_node_bandwidth_bytes_per_s",
            "memory_bandwidth_bytes_per_s",
        ):
            object.__setattr__(self, attr, check_number(attr, getattr(raw, attr), gt=0))
        for attr in ("intra_node_latency_s", "inter_node_latency_s"):
            object.__setattr__(self, attr, check_number(attr, getattr(raw, attr), ge=0))
        if not isinstance(raw.source, str):
            raise _type_error("source", raw.source, "str")

    @property
    def world_size(self) -> int:
        """Devices in the cluster: nodes × gpus_per_node."""
        return self.nodes * self.gpus_per_node

    def with_nodes(self, nodes: int) -> ClusterSpec:
        """The same kind of node, ``nodes`` of them."""
        return replace(self, nodes=check_int("nodes", nodes, ge=1))

    def link(self, kind: str) -> tuple[float, float]:
        """``(bandwidth_bytes_per_s, latency_s)`` of ``"intra_node"`` or ``"inter_node"``."""
        if check_choice("link", kind, ("intra_node", "inter_node")) == "intra_node":
            return self.intra_node_bandwidth_bytes_per_s, self.intra_node_latency_s
        return self.inter_node_bandwidth_bytes_per_s, self.inter_node_latency_s


@dataclass(frozen=True)
class WorkloadSpec:
    """What the cluster should do, and the assumptions the estimate rests on.

    Parameters:
        mode: ``"training"`` or ``"serving"``.
        global_batch: sequences per optimizer step (training) or concurrent sequences (serving).
        seq_len: tokens per sequence; ``None`` = the model's ``seq_len``.
        recipe: a precision recipe name of :data:`coursekit.capacity.PRECISION_RECIPES`.
        achievable_flops_fraction: the MFU assumption, share of peak FLOP/s the kernels reach, (0, 1].
        overlap_fraction: share of communication hidden under compute, [0, 1].
        runtime_reserve_gib: memory kept free per device, GiB.
        sequence_parallel: Megatron sequence parallelism inside TP groups.
        zero_stages, recompute_modes: the ZeRO stages and recompute modes the search tries.
        max_micro_batch: largest micro-batch (sequences) the search tries.
        max_virtual_stages: largest number of model chunks per pipeline device it tries.

    >>> WorkloadSpec(global_batch=1024).achievable_flops_fraction
    0.5
    >>> WorkloadSpec(global_batch=1024, overlap_fraction=1.5)
    Traceback (most recent call last):
    ...
    ValueError: overlap_fraction = 1.5: must be <= 1.

    Taught in: lesson 9 (decision workbench).
    """

    global_batch: int
    seq_len: int | None = None
    mode: str = "training"
    recipe: str = "megatron-bf16"
    achievable_flops_fraction: float = DEFAULT_ACHIEVABLE_FLOPS_FRACTION
    overlap_fraction: float = DEFAULT_OVERLAP_FRACTION
    runtime_reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB
    sequence_parallel: bool = True
    zero_stages: tuple[int, ...] = (0, 1, 2, 3)
    recompute_modes: tuple[str, ...] = RECOMPUTE_MODES
    max_micro_batch: int = DEFAULT_MAX_MICRO_BATCH
    max_virtual_stages: int = DEFAULT_MAX_VIRTUAL_STAGES

    def __post_init__(self) -> None:
        raw: Any = self
        check_int("global_batch", raw.global_batch, ge=1)
        if raw.seq_len is not None:
            check_int("seq_len", raw.seq_len, ge=1)
        check_choice("mode", raw.mode, WORKLOAD_MODES)
        check_choice("recipe", raw.recipe, PRECISION_RECIPES)
        object.__setattr__(
            self,
            "achievable_flops_fraction",
            check_number("achievable_flops_fraction", raw.achievable_flops_fraction, gt=0, le=1),
        )
        object.__setattr__(self, "overlap_fraction", check_number("overlap_fraction", raw.overlap_fraction, ge=0, le=1))
        object.__setattr__(
            self, "runtime_reserve_gib", check_number("runtime_reserve_gib", raw.runtime_reserve_gib, ge=0)
        )
        check_bool("sequence_parallel", raw.sequence_parallel)
        object.__setattr__(self, "zero_stages", _check_int_tuple("zero_stages", raw.zero_stages, ge=0, le=3))
        object.__setattr__(
            self, "recompute_modes", _check_str_tuple("recompute_modes", raw.recompute_modes, RECOMPUTE_MODES)
        )
        check_int("max_micro_batch", raw.max_micro_batch, ge=1)
        check_int("max_virtual_stages", raw.max_virtual_stages, ge=1)

    def tokens_per_sequence(self, model: ModelSpec) -> int:
        """The sequence length in force: this workload's, else the model's."""
        return self.seq_len if self.seq_len is not None else model.seq_len


# --------------------------------------------------------------------------- Megatron-LM's own formulas


def megatron_paper_param_count(layers: int, hidden: int, vocab: int = 51200, seq_len: int = 2048) -> float:
    """Parameters of a GPT model by Megatron-LM's formula: P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)).

    Narayanan et al. 2021 (arXiv:2104.04473), §5.1; Table 1 uses V = 51200 and s = 2048.

    >>> round(megatron_paper_param_count(128, 25600) / 1e9, 1)  # the 1T model of Table 1
    1008.0

    Taught in: lesson 9 (decision workbench).
    """
    l_ = check_int("layers", layers, ge=1)
    h = check_int("hidden", hidden, ge=1)
    v = check_int("vocab", vocab, ge=1)
    s = check_int("seq_len", seq_len, ge=1)
    return 12 * l_ * h * h * (1 + 13 / (12 * h) + (v + s) / (12 * l_ * h))


def megatron_paper_flops_per_step(
    layers: int, hidden: int, global_batch: int, vocab: int = 51200, seq_len: int = 2048
) -> float:
    """FLOPs of one training step as Megatron-LM counts them (activation recomputation included).

    F = 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)) — Narayanan et al. 2021 (arXiv:2104.04473), §5.1;
    the paper's "achieved teraFLOP/s per GPU" is F / (step time · GPUs).

    >>> f"{megatron_paper_flops_per_step(128, 25600, 3072):.3e}"
    '5.139e+19'

    Taught in: lesson 9 (decision workbench).
    """
    l_ = check_int("layers", layers, ge=1)
    h = check_int("hidden", hidden, ge=1)
    b = check_int("global_batch", global_batch, ge=1)
    v = check_int("vocab", vocab, ge=1)
    s = check_int("seq_len", seq_len, ge=1)
    return 96 * b * s * l_ * h * h * (1 + s / (6 * h) + v / (16 * l_ * h))


# --------------------------------------------------------------------------- gates of the planner


class PlanGate(NamedTuple):
    """One check the planner runs: its stable ``code``, what it asks, and whether it needs a ledger."""

    code: str
    description: Text
    needs_ledger: bool


#: The checks, in funnel order. First the composition must be well formed (the S18 degree rules and the
#: Q4 composition rules); then the Q3 hard gates in the order of seed 000 (fit, interconnect, structure,
#: context, serving). ``memory`` and ``context`` need a per-rank ledger, which exists only for a
#: well-formed composition. Codes are those of :mod:`coursekit.gates` and :mod:`coursekit.composition`
#: where they have one; ``cp_seq``, ``ep_experts`` and ``pp_schedule`` are the planner's.
PLAN_GATES: tuple[PlanGate, ...] = (
    PlanGate(
        "ranks", Text(zh="组合需要的 rank 数不超过集群", en="the composition needs no more ranks than exist"), False
    ),
    PlanGate(
        "global_batch",
        Text(
            zh="dp × micro-batch × 梯度累积 = global batch（S18）", en="dp × micro-batch × accumulation = global batch"
        ),
        False,
    ),
    PlanGate("tp_heads", Text(zh="TP 整除注意力头数", en="TP divides the attention heads"), False),
    PlanGate("pp_layers", Text(zh="每个流水线阶段至少一层", en="every pipeline stage holds a layer"), False),
    PlanGate("cp_seq", Text(zh="CP 整除序列长度", en="CP divides the sequence length"), False),
    PlanGate("ep_experts", Text(zh="EP 整除专家数", en="EP divides the experts"), False),
    PlanGate(
        "ep_fold",
        Text(zh="EP 复用数据并行的 rank（Megatron-Core 规则）", en="EP folds into the data-parallel ranks"),
        False,
    ),
    PlanGate(
        "pp_schedule",
        Text(
            zh="交错流水线的模型块与 micro-batch 数成立", en="the interleaved schedule's chunks and micro-batches fit"
        ),
        False,
    ),
    PlanGate("memory", Text(zh="容量门槛：每 rank 放得下", en="fit gate: one rank's ledger fits the device"), True),
    PlanGate(
        "interconnect",
        Text(zh="互连门槛：TP 组留在一个节点内", en="interconnect gate: TP groups stay inside a node"),
        False,
    ),
    PlanGate("structure", Text(zh="结构门槛：EP 只用于 MoE", en="structure gate: EP only for MoE"), False),
    PlanGate(
        "context",
        Text(zh="上下文门槛：单卡放不下时才用 CP", en="context gate: CP only when one device cannot hold the context"),
        True,
    ),
    PlanGate("mode", Text(zh="服务门槛之一：工作负载模式", en="serving gate, part 1: workload mode"), False),
    PlanGate(
        "serving", Text(zh="服务门槛之二：副本不是训练 DP", en="serving gate, part 2: replicas are not DP"), False
    ),
)

_GATE_CODES: tuple[str, ...] = tuple(gate.code for gate in PLAN_GATES)
_WELL_FORMED_CODES: frozenset[str] = frozenset(_GATE_CODES[:8])


# --------------------------------------------------------------------------- result objects


@dataclass(frozen=True)
class MemoryLedger:
    """One rank's memory (the heaviest pipeline stage), GiB, against the device.

    ``activations_gib`` holds the KV cache for serving candidates. ``workspace_gib`` is the
    unit of weights ZeRO-3 gathers for the layer it computes. ``total_gib`` sums every part
    with the reserve.
    """

    params_gib: float
    grads_gib: float
    optimizer_gib: float
    workspace_gib: float
    activations_gib: float
    reserve_gib: float
    total_gib: float
    device_gib: float

    @property
    def headroom_gib(self) -> float:
        """``device_gib - total_gib`` (negative: it does not fit)."""
        return self.device_gib - self.total_gib

    @property
    def fits(self) -> bool:
        """True when the total does not exceed the device (the fit gate's rule)."""
        return self.total_gib <= self.device_gib


@dataclass(frozen=True)
class CommRow:
    """One parallel dimension's communication per step for one rank.

    ``group_ranks`` ranks take part; ``link`` is ``"intra_node"`` or ``"inter_node"`` (see
    :func:`group_link`); ``payload_bytes`` is the buffers handed to the library per step
    (sum over calls), ``bus_bytes`` what crosses this rank's link; ``time_s`` is latency +
    transfer on that link (bandwidth unidirectional per GPU). ``traffic`` has the entries.
    """

    dimension: str
    group_ranks: int
    link: str
    calls: int
    payload_bytes: float
    bus_bytes: float
    time_s: float
    traffic: TrafficTime


@dataclass(frozen=True)
class PlanCandidate:
    """One composition, its verdict with reasons, and — when it is well formed — its ledgers and estimate.

    Degrees: ``tp``, ``pp``, ``dp``, ``cp``, ``ep``, ``virtual_stages``, ``zero_stage``,
    ``micro_batch``, ``grad_accum``, ``recompute`` and, for serving, ``replicas`` (then
    ``dp`` is 1). ``ranks`` = tp·cp·dp·pp·replicas. ``reasons`` holds one
    :class:`~coursekit.i18n.Reason` per failed check (codes of :data:`PLAN_GATES`);
    ``warnings`` holds non-excluding ones (``pp_balance``). ``memory``, ``communication``,
    ``timeline`` (a :class:`~coursekit.scaling.StepTimeline`) and ``bubble_fraction`` are
    ``None`` / empty for a malformed composition.
    """

    mode: str
    tp: int
    pp: int
    dp: int
    cp: int
    ep: int
    virtual_stages: int
    zero_stage: int
    micro_batch: int
    grad_accum: int
    recompute: str
    replicas: int
    accepted: bool
    reasons: tuple[Reason, ...]
    warnings: tuple[Reason, ...]
    memory: MemoryLedger | None
    communication: tuple[CommRow, ...]
    bubble_fraction: float | None
    timeline: StepTimeline | None
    tokens_per_step: int
    model_flops_per_step: float
    world_size: int
    peak_flops: float

    @property
    def ranks(self) -> int:
        """Ranks this composition uses: the product of its degrees."""
        return self.tp * self.cp * self.dp * self.pp * self.replicas

    @property
    def codes(self) -> tuple[str, ...]:
        """Codes of the failed checks, in gate order."""
        return tuple(reason.code for reason in self.reasons)

    @property
    def step_s(self) -> float | None:
        """Estimated seconds per step (training) or per decode step (serving); None when malformed."""
        return None if self.timeline is None else self.timeline.step_s

    @property
    def tokens_per_s(self) -> float | None:
        """Estimated tokens per second of the whole cluster."""
        step = self.step_s
        return None if step is None or step <= 0 else self.tokens_per_step / step

    @property
    def estimated_mfu(self) -> float | None:
        """Model FLOP/s (6·N_active per trained token, 2·N_active per served token) over peak, estimated."""
        step = self.step_s
        if step is None or step <= 0:
            return None
        return self.model_flops_per_step / (step * self.ranks * self.peak_flops)

    def degrees(self) -> dict[str, Any]:
        """The degrees as a dict with :data:`DEGREE_KEYS` names."""
        if self.mode == "serving":
            return {"replicas": self.replicas, "tp": self.tp, "pp": self.pp}
        return {
            "tp": self.tp,
            "pp": self.pp,
            "dp": self.dp,
            "cp": self.cp,
            "ep": self.ep,
            "v": self.virtual_stages,
            "zero": self.zero_stage,
            "mb": self.micro_batch,
            "ga": self.grad_accum,
            "recompute": self.recompute,
        }

    def label(self) -> str:
        """``tp=8,pp=4,dp=4,...`` — the form :func:`parse_degrees` reads back."""
        return ",".join(f"{key}={value}" for key, value in self.degrees().items())

    def explain(self) -> str:
        """The verdict, reasons, ledgers and estimate as text in the current language."""
        lines = [
            tr(
                "planner.candidate_line",
                status=tr(f"planner.{'accepted' if self.accepted else 'rejected'}"),
                label=self.label(),
            )
        ]
        if self.reasons:
            lines.append(tr("planner.reasons"))
            lines.extend(f"    [{reason.code}] {reason.message}" for reason in self.reasons)
        if self.warnings:
            lines.append(tr("planner.warnings"))
            lines.extend(f"    [{reason.code}] {reason.message}" for reason in self.warnings)
        if self.memory is None:
            lines.append(tr("planner.no_ledger"))
            return "\n".join(lines)
        mem = self.memory
        act_label = tr("planner.kv_label" if self.mode == "serving" else "planner.act_label")
        lines.append(
            tr(
                "planner.memory_line",
                params=mem.params_gib,
                grads=mem.grads_gib,
                optimizer=mem.optimizer_gib,
                workspace=mem.workspace_gib,
                act_label=act_label,
                activations=mem.activations_gib,
                reserve=mem.reserve_gib,
                total=mem.total_gib,
                device=mem.device_gib,
            )
        )
        if self.communication:
            lines.append(tr("planner.comm_header"))
            for row in self.communication:
                lines.append(
                    tr(
                        "planner.comm_line",
                        dim=row.dimension,
                        ranks=row.group_ranks,
                        link=tr(f"planner.link_{row.link}"),
                        calls=row.calls,
                        payload_gib=bytes_to_gib(row.payload_bytes),
                        time_ms=row.time_s * 1e3,
                    )
                )
        if self.timeline is not None:
            t = self.timeline
            lines.append(
                tr(
                    "planner.step_line",
                    step_s=t.step_s,
                    compute_s=t.compute_s,
                    exposed_s=t.exposed_communication_s,
                    bubble_s=t.bubble_s,
                    comm_s=t.communication_s,
                    hidden_s=t.hidden_communication_s,
                    bubble=self.bubble_fraction or 0.0,
                )
            )
            lines.append(
                tr("planner.throughput_line", tokens_per_s=self.tokens_per_s or 0.0, mfu=self.estimated_mfu or 0.0)
            )
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: degrees, verdict, reasons (code and message), ledgers and estimate."""
        out: dict[str, Any] = {
            "mode": self.mode,
            "degrees": self.degrees(),
            "ranks": self.ranks,
            "accepted": self.accepted,
            "reasons": [{"code": r.code, "message": r.message} for r in self.reasons],
            "warnings": [{"code": r.code, "message": r.message} for r in self.warnings],
            "memory_gib": None,
            "communication": [],
            "bubble_fraction": self.bubble_fraction,
            "estimate": None,
        }
        if self.memory is not None:
            out["memory_gib"] = {
                "params": self.memory.params_gib,
                "grads": self.memory.grads_gib,
                "optimizer": self.memory.optimizer_gib,
                "workspace": self.memory.workspace_gib,
                "activations" if self.mode == "training" else "kv_cache": self.memory.activations_gib,
                "reserve": self.memory.reserve_gib,
                "total": self.memory.total_gib,
                "device": self.memory.device_gib,
            }
        out["communication"] = [
            {
                "dimension": row.dimension,
                "group_ranks": row.group_ranks,
                "link": row.link,
                "calls": row.calls,
                "payload_bytes": row.payload_bytes,
                "bus_bytes": row.bus_bytes,
                "time_s": row.time_s,
            }
            for row in self.communication
        ]
        if self.timeline is not None:
            t = self.timeline
            out["estimate"] = {
                "step_s": t.step_s,
                "compute_s": t.compute_s,
                "communication_s": t.communication_s,
                "exposed_communication_s": t.exposed_communication_s,
                "hidden_communication_s": t.hidden_communication_s,
                "bubble_s": t.bubble_s,
                "tokens_per_s": self.tokens_per_s,
                "estimated_mfu": self.estimated_mfu,
            }
        return out


@dataclass(frozen=True)
class FunnelStep:
    """One gate of the funnel: how many candidates it removed first, and how many remain after it."""

    code: str
    description: Text
    removed: int
    remaining: int


@dataclass(frozen=True)
class Assumptions:
    """What the estimate rests on; every accepted candidate's step time is conditional on these."""

    peak_flops: float
    achievable_flops_fraction: float
    overlap_fraction: float
    recipe: str
    runtime_reserve_gib: float
    sequence_parallel: bool
    intra_node_bandwidth_bytes_per_s: float
    inter_node_bandwidth_bytes_per_s: float
    intra_node_latency_s: float
    inter_node_latency_s: float
    memory_bandwidth_bytes_per_s: float
    notes: tuple[Text, ...] = ()


#: The modelling choices behind every estimate, shown with the results.
ESTIMATE_NOTES: tuple[Text, ...] = (
    Text(
        zh="计算 = 6·N_active·tokens / (rank 数·峰值·可达比例)；完全重计算 +2·N_active·tokens，选择性重计算加上 "
        "Attention 核心的前向 4·s·h·L 每 token；最慢的流水线阶段决定节奏（层数不均时按 ceil(L/pp)）。",
        en="Compute = 6·N_active·tokens / (ranks·peak·achievable fraction); full recompute adds 2·N_active·tokens, "
        "selective adds the attention core's forward, 4·s·h·L per token; the slowest pipeline stage "
        "(ceil(L/pp) layers) sets the pace.",
    ),
    Text(
        zh="通信 = 各维度按其链路（组留在节点内用机内带宽，否则机间带宽）的 ring alpha-beta 时间之和；"
        "暴露部分 = 通信 - min(通信·重叠比例, 计算)。气泡 = bubble_fraction/(1-bubble_fraction)·计算。",
        en="Communication = the sum over dimensions of ring alpha-beta time on each group's link (intra-node "
        "if the group stays in a node, else inter-node); exposed = communication - min(communication·overlap, "
        "compute). Bubble = bubble_fraction/(1-bubble_fraction)·compute.",
    ),
    Text(
        zh="显存按最重的流水线阶段：首/末阶段的嵌入或输出层、1F1B 在途的 micro-batch（交错调度乘 1+(p-1)/(pv)）、"
        "完全重计算时一层的工作集、末阶段 fp32 logits；激活系数为 Korthikanti et al. 的 GPT 层，SwiGLU/MoE 为近似。",
        en="Memory is the heaviest pipeline stage's: the embedding or output layer, the micro-batches 1F1B keeps "
        "in flight (times 1+(p-1)/(pv) when interleaved), one layer's working set under full recompute, fp32 "
        "logits on the last stage; activation coefficients are Korthikanti et al.'s GPT layer, approximate for "
        "SwiGLU and MoE.",
    ),
    Text(
        zh="MoE 假设路由均匀、无容量因子填充；服务的估算是一次 decode 步（每条序列 1 个 token），"
        "每阶段取计算与显存读取（权重 + KV 缓存）中较慢者，流水线各阶段依次执行。",
        en="MoE assumes uniform routing and no capacity-factor padding; serving estimates one decode step (one "
        "token per sequence), each stage taking the slower of compute and memory reads (weights + KV cache), "
        "stages in turn.",
    ),
)


# --------------------------------------------------------------------------- the scalar evaluation (source of truth)


class _Derived(NamedTuple):
    """Per-model numbers the evaluations share."""

    lps: int  # layers of the heaviest pipeline stage
    dense_stage_params: float
    expert_stage_params: float  # all experts of the stage's layers, before the ep split


def _stage(model: ModelSpec, pp: int) -> _Derived:
    lps = -(-model.layers // pp)
    if pp == 1:
        extra = model.input_embedding_params + model.output_params
    else:  # tied embeddings keep a copy on the last stage too (Megatron-LM)
        extra = max(model.input_embedding_params, model.vocab * model.hidden + model._norm_params())
    return _Derived(
        lps=lps,
        dense_stage_params=float(lps * model.dense_params_per_layer + extra),
        expert_stage_params=float(lps * model.num_experts * model.expert_params),
    )


def _kv_hidden_per_rank(model: ModelSpec, tp: int) -> int:
    assert model.kv_heads is not None
    return -(-model.kv_heads // tp) * model.head_dim


def _link(cluster: ClusterSpec, span: int) -> tuple[str, float, float]:
    kind = group_link(span, cluster.gpus_per_node)
    bandwidth, latency = cluster.link(kind)
    return kind, bandwidth, latency


def _comm_row(dimension: str, entries: Sequence[TrafficEntry], ranks: int, cluster: ClusterSpec, span: int) -> CommRow:
    kind, bandwidth, latency = _link(cluster, span)
    timed = traffic_time(entries, bandwidth_bytes_per_s=bandwidth, latency_s=latency)
    return CommRow(
        dimension=dimension,
        group_ranks=ranks,
        link=kind,
        calls=sum(entry.calls_per_step for entry in entries),
        payload_bytes=sum(entry.total_payload_bytes for entry in entries),
        bus_bytes=timed.bus_bytes,
        time_s=timed.total_s,
        traffic=timed,
    )


def _activation_bytes(
    model: ModelSpec, workload: WorkloadSpec, s: int, tp: int, pp: int, cp: int, v: int, mb: int, m: int, mode: str
) -> float:
    """Activation bytes of the heaviest rank (see :data:`ESTIMATE_NOTES`)."""
    lps = _stage(model, pp).lps
    common: dict[str, Any] = {
        "seq_len": s,
        "micro_batch": mb,
        "hidden": model.hidden,
        "heads": model.heads,
        "tp": tp,
        "sequence_parallel": workload.sequence_parallel,
        "cp": cp,
    }
    per_layer = activation_memory_breakdown(recompute=mode, **common).per_layer_bytes
    inflight = min(pp, m) if v == 1 else pp * (1 + (pp - 1) / (pp * v))
    total = per_layer * lps * inflight
    if mode == "full":
        total += activation_memory_breakdown(recompute="none", **common).per_layer_bytes
    return total + LOGITS_BYTES * s * mb * model.vocab / (tp * cp)


def _max_context_tokens(
    model: ModelSpec, workload: WorkloadSpec, fixed_bytes: float, device_bytes: float, deg: Mapping[str, Any]
) -> int:
    """Longest sequence whose activations (cp = 1) fit next to ``fixed_bytes``; 0 if none does."""

    def fits(tokens: int) -> bool:
        act = _activation_bytes(
            model, workload, tokens, deg["tp"], deg["pp"], 1, deg["v"], deg["mb"], deg["m"], deg["recompute"]
        )
        return fixed_bytes + act <= device_bytes

    if not fits(1):
        return 0
    low, high = 1, 2
    while fits(high):
        low, high = high, high * 2
        if high > 2**40:
            return high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low


def _training_flops_per_token(model: ModelSpec, s: int, recompute: str) -> tuple[float, float]:
    """(executed FLOPs per token, model FLOPs per token = 6·N_active)."""
    n = float(model.active_params)
    executed = 6 * n
    if recompute == "full":
        executed += 2 * n
    elif recompute == "selective":
        executed += 4 * s * model.hidden * model.layers
    return executed, 6 * n


def _check_model_split(
    model: ModelSpec, tp: int, pp: int, gpus_per_node: int, reasons: dict[str, Reason], warnings: list[Reason]
) -> None:
    """S18's shape checks shared by training and serving: TP divides the heads; PP <= layers (balance warns)."""
    tp_rule = check_tp_degree(tp, model.heads, gpus_per_node)
    if tp_rule is not None and tp_rule.code == "tp_heads":
        reasons["tp_heads"] = tp_rule
    pp_rule = check_pp_degree(pp, model.layers)
    if pp_rule is not None and pp_rule.code == "pp_balance":
        warnings.append(pp_rule)
    elif pp_rule is not None:
        reasons[pp_rule.code] = pp_rule


def evaluate_composition(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    *,
    tp: int = 1,
    pp: int = 1,
    dp: int | None = None,
    cp: int = 1,
    ep: int = 1,
    v: int = 1,
    zero: int = 0,
    mb: int = 1,
    ga: int | None = None,
    recompute: str | None = None,
    replicas: int | None = None,
) -> PlanCandidate:
    """Run every check of :data:`PLAN_GATES` on one composition and, if well formed, its ledgers and estimate.

    Parameters (degrees, ints >= 1):
        tp, pp, cp, ep: tensor, pipeline, context and expert parallel degrees.
        dp: data parallel degree; ``None`` = the ranks left over, world / (tp·cp·pp).
        v: model chunks per pipeline device (interleaved schedule).
        zero: ZeRO stage 0-3 (sharding over dp·cp ranks; experts over the expert-data-parallel ranks).
        mb: micro-batch in sequences; ga: gradient accumulation, ``None`` = global_batch / (dp·mb).
        recompute: ``"none"``, ``"selective"`` or ``"full"``; ``None`` = the workload's first mode.
        replicas: serving replicas. Given, the candidate is a serving one (tp·pp per replica).

    This is the planner's reference: :func:`plan` evaluates the whole space with the same
    formulas vectorised and materialises candidates through this function.

    >>> from coursekit.presets import MODELS, CLUSTERS
    >>> c = evaluate_composition(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(2),
    ...                          WorkloadSpec(global_batch=64), tp=16, pp=1, zero=3, recompute="full")
    >>> c.accepted, c.codes
    (False, ('interconnect',))

    Taught in: lesson 9 (decision workbench).
    """
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1)
    cp = check_int("cp", cp, ge=1)
    ep = check_int("ep", ep, ge=1)
    v = check_int("v", v, ge=1)
    zero = check_int("zero", zero, ge=0, le=3)
    mb = check_int("mb", mb, ge=1)
    mode = workload.recompute_modes[0] if recompute is None else check_choice("recompute", recompute, RECOMPUTE_MODES)
    world = cluster.world_size
    if replicas is not None:
        return _evaluate_serving(model, cluster, workload, tp=tp, pp=pp, replicas=check_int("replicas", replicas, ge=1))
    if dp is None:
        dp = max(1, world // (tp * cp * pp))
    dp = check_int("dp", dp, ge=1)
    gb = workload.global_batch
    derived_ga = max(1, gb // (dp * mb))
    ga = derived_ga if ga is None else check_int("ga", ga, ge=1)
    s = workload.tokens_per_sequence(model)
    g = cluster.gpus_per_node

    reasons: dict[str, Reason] = {}
    warnings: list[Reason] = []
    layout = validate_megatron_composition(tp, pp, dp, cp, ep, model_kind=model.kind, available_ranks=world)
    for issue in layout.issues:
        if issue.code in ("ranks", "ep_fold"):
            reasons[issue.code] = issue
    batch = check_global_batch(dp, mb, ga, gb)
    if batch is not None:
        reasons["global_batch"] = batch
    _check_model_split(model, tp, pp, g, reasons, warnings)
    if s % cp:
        reasons["cp_seq"] = Reason("cp_seq", "planner.cp_seq", {"cp": cp, "seq_len": s})
    if model.is_moe and model.num_experts % ep:
        reasons["ep_experts"] = Reason("ep_experts", "planner.ep_experts", {"ep": ep, "experts": model.num_experts})
    if v > 1:
        if pp == 1:
            reasons["pp_schedule"] = Reason("pp_schedule", "planner.virtual_needs_pp", {"v": v})
        elif model.layers % (pp * v):
            reasons["pp_schedule"] = Reason(
                "pp_schedule", "planner.virtual_layers", {"layers": model.layers, "pp": pp, "v": v, "chunks": pp * v}
            )
        elif ga % pp:
            reasons["pp_schedule"] = Reason(
                "pp_schedule", "pipeline.interleaved_multiple", {"microbatches": ga, "stages": pp}
            )
    well_formed = not (set(reasons) & _WELL_FORMED_CODES)

    # Q3 gates through coursekit.gates (the interconnect rule is check_tp_degree's node rule, isolated from
    # the heads rule by passing heads = tp).
    node_rule = check_tp_degree(tp, tp, g)
    if node_rule is not None:
        reasons["interconnect"] = node_rule
    ledger: MemoryLedger | None = None
    rows: tuple[CommRow, ...] = ()
    timeline: StepTimeline | None = None
    bubble: float | None = None
    fixed_bytes = 0.0
    device_bytes = cluster.memory_per_device_gib * GIB_BYTES
    if well_formed:
        ledger, rows, timeline, bubble, fixed_bytes = _training_ledger(
            model, cluster, workload, tp=tp, pp=pp, dp=dp, cp=cp, ep=ep, v=v, zero=zero, mb=mb, m=ga, mode=mode
        )
    max_tokens: int | None = None
    if well_formed and cp > 1:
        deg = {"tp": tp, "pp": pp, "v": v, "mb": mb, "m": ga, "recompute": mode}
        max_tokens = _max_context_tokens(model, workload, fixed_bytes, device_bytes, deg)
    candidate = Candidate(
        name=f"tp={tp},pp={pp},dp={dp},cp={cp},ep={ep}",
        memory_per_rank_gib=ledger.total_gib if ledger is not None else 0.0,
        modes=frozenset({"training"}),
        model_kinds=frozenset({"moe"}) if ep > 1 else frozenset({"dense", "moe"}),
        required_link_scope="intra_node" if tp > 1 else "none",
        splits_context=cp > 1,
        role="training-sync",
    )
    env = Environment(
        memory_per_device_gib=cluster.memory_per_device_gib,
        mode=workload.mode,
        model_kind=model.kind,
        link_scope="intra_node" if node_rule is None else "cross_node",
        context_len=s if max_tokens is not None else None,
        max_context_per_device=max(max_tokens, 1) if max_tokens is not None else None,
    )
    if ledger is not None:
        memory_reason = gate_memory(candidate, env)
        if memory_reason is not None:
            reasons["memory"] = memory_reason
    structure = gate_structure(candidate, env)
    if structure is not None:
        reasons["structure"] = structure
    if well_formed and cp > 1:
        context = gate_context(candidate, env)
        if context is not None:
            reasons["context"] = context
    for gate in (gate_mode, gate_serving):
        reason = gate(candidate, env)
        if reason is not None:
            reasons[reason.code] = reason
    ordered = tuple(reasons[code] for code in _GATE_CODES if code in reasons)
    _, model_flops = _training_flops_per_token(model, s, mode)
    return PlanCandidate(
        mode="training",
        tp=tp,
        pp=pp,
        dp=dp,
        cp=cp,
        ep=ep,
        virtual_stages=v,
        zero_stage=zero,
        micro_batch=mb,
        grad_accum=ga,
        recompute=mode,
        replicas=1,
        accepted=not ordered,
        reasons=ordered,
        warnings=tuple(warnings),
        memory=ledger,
        communication=rows,
        bubble_fraction=bubble,
        timeline=timeline,
        tokens_per_step=gb * s,
        model_flops_per_step=model_flops * gb * s,
        world_size=world,
        peak_flops=cluster.peak_flops,
    )


def _training_ledger(
    model: ModelSpec,
    cluster: ClusterSpec,
    workload: WorkloadSpec,
    *,
    tp: int,
    pp: int,
    dp: int,
    cp: int,
    ep: int,
    v: int,
    zero: int,
    mb: int,
    m: int,
    mode: str,
) -> tuple[MemoryLedger, tuple[CommRow, ...], StepTimeline, float, float]:
    """Memory ledger, communication rows, timeline, bubble fraction and the non-activation bytes."""
    recipe = PRECISION_RECIPES[workload.recipe]
    s = workload.tokens_per_sequence(model)
    world = tp * cp * dp * pp
    stage = _stage(model, pp)
    dpc = dp * cp
    edp = world // (tp * ep * pp)
    dense = training_state_memory(stage.dense_stage_params, dp=dpc, zero_stage=zero, tp=tp, pp=1, recipe=recipe)
    params, grads, optimizer = dense.params_bytes, dense.grads_bytes, dense.optimizer_bytes
    expert_params_rank = 0.0
    if model.is_moe:
        experts = training_state_memory(
            stage.expert_stage_params, dp=edp, zero_stage=zero, tp=tp * ep, pp=1, recipe=recipe
        )
        params += experts.params_bytes
        grads += experts.grads_bytes
        optimizer += experts.optimizer_bytes
        expert_params_rank = stage.expert_stage_params / (tp * ep)
    workspace = 0.0
    if zero == 3:
        if dpc > 1:
            workspace += recipe.param_bytes * model.dense_params_per_layer / tp
        if model.is_moe and edp > 1:
            workspace += recipe.param_bytes * model.num_experts * model.expert_params / (tp * ep)
    activations = _activation_bytes(model, workload, s, tp, pp, cp, v, mb, m, mode)
    reserve = workload.runtime_reserve_gib * GIB_BYTES
    fixed = params + grads + optimizer + workspace + reserve
    total = fixed + activations
    ledger = MemoryLedger(
        params_gib=bytes_to_gib(params),
        grads_gib=bytes_to_gib(grads),
        optimizer_gib=bytes_to_gib(optimizer),
        workspace_gib=bytes_to_gib(workspace),
        activations_gib=bytes_to_gib(activations),
        reserve_gib=workload.runtime_reserve_gib,
        total_gib=bytes_to_gib(total),
        device_gib=cluster.memory_per_device_gib,
    )

    rows: list[CommRow] = []
    tokens = s // cp
    sp = workload.sequence_parallel
    lps = stage.lps
    if tp > 1:
        entries = tp_traffic(
            seq_len=tokens,
            micro_batch=mb,
            hidden=model.hidden,
            layers=lps,
            tp=tp,
            activation_bytes=ACTIVATION_BYTES,
            sequence_parallel=sp,
            recompute=mode,
            micro_batches=m,
        )
        rows.append(_comm_row("TP", entries, tp, cluster, tp))
    if cp > 1:
        entries = cp_traffic(
            seq_len=s,
            micro_batch=mb,
            kv_hidden=_kv_hidden_per_rank(model, tp),
            layers=lps,
            cp=cp,
            activation_bytes=ACTIVATION_BYTES,
            micro_batches=m,
        )
        rows.append(_comm_row("CP", entries, cp, cluster, tp * cp))
    if model.is_moe and ep > 1:
        entries = ep_traffic(
            seq_len=tokens,
            micro_batch=mb,
            hidden=model.hidden,
            moe_layers=lps,
            ep=ep,
            top_k=model.top_k,
            activation_bytes=ACTIVATION_BYTES,
            micro_batches=m,
        )
        rows.append(_comm_row("EP", entries, ep, cluster, tp * ep))
    if pp > 1:
        entries = pp_traffic(
            seq_len=tokens,
            micro_batch=mb,
            hidden=model.hidden // tp,
            pp=pp,
            micro_batches=m * v,
            activation_bytes=ACTIVATION_BYTES,
        )
        rows.append(_comm_row("PP", entries, pp, cluster, world))
    units = lps if zero == 3 else 1
    if dpc > 1:
        entries = zero_traffic(
            num_params=stage.dense_stage_params / tp,
            dp=dpc,
            stage=zero,
            param_bytes=recipe.param_bytes,
            grad_bytes=recipe.grad_bytes,
            units=units,
        )
        rows.append(_comm_row("DP", entries, dpc, cluster, world // pp))
    if model.is_moe and edp > 1:
        entries = zero_traffic(
            num_params=expert_params_rank,
            dp=edp,
            stage=zero,
            param_bytes=recipe.param_bytes,
            grad_bytes=recipe.grad_bytes,
            units=units,
        )
        rows.append(_comm_row("EDP", entries, edp, cluster, world // pp))

    executed, _ = _training_flops_per_token(model, s, mode)
    imbalance = lps * pp / model.layers
    compute = (
        executed
        * workload.global_batch
        * s
        * imbalance
        / (world * cluster.peak_flops * workload.achievable_flops_fraction)
    )
    bubble = bubble_fraction(pp, m, v) if pp > 1 else 0.0
    communication = sum(row.time_s for row in rows)
    timeline = step_timeline(
        compute, communication, overlap_fraction=workload.overlap_fraction, bubble_s=bubble / (1 - bubble) * compute
    )
    return ledger, tuple(rows), timeline, bubble, fixed


def _evaluate_serving(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec, *, tp: int, pp: int, replicas: int
) -> PlanCandidate:
    world = cluster.world_size
    g = cluster.gpus_per_node
    s = workload.tokens_per_sequence(model)
    reasons: dict[str, Reason] = {}
    warnings: list[Reason] = []
    composition = validate_parallel_composition({"TP": tp, "PP": pp, "Replica": replicas}, world, model.kind)
    for issue in composition.issues:
        if issue.code == "ranks":
            reasons["ranks"] = issue
    _check_model_split(model, tp, pp, g, reasons, warnings)
    well_formed = not (set(reasons) & _WELL_FORMED_CODES)
    node_rule = check_tp_degree(tp, tp, g)
    if node_rule is not None:
        reasons["interconnect"] = node_rule
    recipe = PRECISION_RECIPES[workload.recipe]
    per_replica = -(-workload.global_batch // replicas)
    ledger: MemoryLedger | None = None
    rows: list[CommRow] = []
    timeline: StepTimeline | None = None
    if well_formed:
        stage = _stage(model, pp)
        weights_rank = (stage.dense_stage_params + stage.expert_stage_params) / tp
        params_bytes = recipe.param_bytes * weights_rank
        kv_bytes = 2.0 * per_replica * s * stage.lps * _kv_hidden_per_rank(model, tp) * ACTIVATION_BYTES
        reserve = workload.runtime_reserve_gib * GIB_BYTES
        ledger = MemoryLedger(
            params_gib=bytes_to_gib(params_bytes),
            grads_gib=0.0,
            optimizer_gib=0.0,
            workspace_gib=0.0,
            activations_gib=bytes_to_gib(kv_bytes),
            reserve_gib=workload.runtime_reserve_gib,
            total_gib=bytes_to_gib(params_bytes + kv_bytes + reserve),
            device_gib=cluster.memory_per_device_gib,
        )
        active_rank = (
            stage.dense_stage_params + stage.expert_stage_params * model.top_k / max(model.num_experts, 1)
            if model.is_moe
            else stage.dense_stage_params
        ) / tp
        flops = 2 * active_rank * per_replica + 4 * per_replica * s * model.hidden * stage.lps / tp
        compute_stage = flops / (cluster.peak_flops * workload.achievable_flops_fraction)
        memory_stage = (params_bytes + kv_bytes) / cluster.memory_bandwidth_bytes_per_s
        if tp > 1:
            forward = tp_traffic(
                seq_len=1,
                micro_batch=per_replica,
                hidden=model.hidden,
                layers=stage.lps * pp,
                tp=tp,
                activation_bytes=ACTIVATION_BYTES,
            )[:1]
            rows.append(_comm_row("TP", forward, tp, cluster, tp))
        if pp > 1:
            hops = pp_traffic(
                seq_len=1,
                micro_batch=per_replica,
                hidden=model.hidden,
                pp=pp,
                micro_batches=pp - 1,
                activation_bytes=ACTIVATION_BYTES,
            )[:1]
            rows.append(_comm_row("PP", hops, pp, cluster, tp * pp))
        timeline = step_timeline(pp * max(compute_stage, memory_stage), sum(row.time_s for row in rows))
    candidate = Candidate(
        name=f"replicas={replicas},tp={tp},pp={pp}",
        memory_per_rank_gib=ledger.total_gib if ledger is not None else 0.0,
        modes=frozenset({"serving"}),
        model_kinds=frozenset({"dense", "moe"}),
        required_link_scope="intra_node" if tp > 1 else "none",
        role="serving-replica",
    )
    env = Environment(
        memory_per_device_gib=cluster.memory_per_device_gib,
        mode=workload.mode,
        model_kind=model.kind,
        link_scope="intra_node" if node_rule is None else "cross_node",
    )
    if ledger is not None:
        memory_reason = gate_memory(candidate, env)
        if memory_reason is not None:
            reasons["memory"] = memory_reason
    for gate in (gate_mode, gate_serving):
        reason = gate(candidate, env)
        if reason is not None:
            reasons[reason.code] = reason
    ordered = tuple(reasons[code] for code in _GATE_CODES if code in reasons)
    tokens = workload.global_batch
    return PlanCandidate(
        mode="serving",
        tp=tp,
        pp=pp,
        dp=1,
        cp=1,
        ep=1,
        virtual_stages=1,
        zero_stage=0,
        micro_batch=per_replica,
        grad_accum=1,
        recompute="none",
        replicas=replicas,
        accepted=not ordered,
        reasons=ordered,
        warnings=tuple(warnings),
        memory=ledger,
        communication=tuple(rows),
        bubble_fraction=0.0 if ledger is not None else None,
        timeline=timeline,
        tokens_per_step=tokens,
        model_flops_per_step=2.0 * model.active_params * tokens,
        world_size=world,
        peak_flops=cluster.peak_flops,
    )


# --------------------------------------------------------------------------- the vectorised search


_INT_COLUMNS: tuple[str, ...] = ("tp", "pp", "dp", "cp", "ep", "v", "zero", "mb", "ga", "rc", "replicas")


@dataclass(frozen=True)
class _Table:
    """The searched space as columns (numpy arrays), the failing checks and the estimates."""

    columns: dict[str, npt.NDArray[Any]]
    fails: dict[str, npt.NDArray[Any]]
    step_s: npt.NDArray[Any]
    memory_gib: npt.NDArray[Any]
    accepted: npt.NDArray[Any]

    def __len__(self) -> int:
        return int(self.accepted.shape[0])


def _space_columns(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> dict[str, npt.NDArray[Any]]:
    import numpy as np

    world = cluster.world_size
    divs = divisors(world)
    ep_options = divisors(model.num_experts) if model.is_moe else (1,)
    structs: list[tuple[int, int, int, int, int, int]] = []
    for tp in divs:
        for cp in divs:
            if world % (tp * cp):
                continue
            for pp in divs:
                if world % (tp * cp * pp):
                    continue
                dp = world // (tp * cp * pp)
                v_options = [1]
                if pp > 1:
                    v_options += [v for v in range(2, workload.max_virtual_stages + 1) if model.layers % (pp * v) == 0]
                for ep in ep_options:
                    for v in v_options:
                        structs.append((tp, cp, pp, dp, ep, v))
    base = np.array(structs, dtype=np.int64)
    zeros_all = np.array(workload.zero_stages, dtype=np.int64)
    zero_single = np.array([workload.zero_stages[0]], dtype=np.int64)
    sharded = base[:, 1] * base[:, 3] > 1  # dp·cp > 1: ZeRO stages differ
    counts = np.where(sharded, zeros_all.size, 1)
    rows = np.repeat(base, counts, axis=0)
    zero_col = np.concatenate([zeros_all if flag else zero_single for flag in sharded]) if len(base) else zeros_all[:0]
    mbs = np.array([d for d in divisors(workload.global_batch) if d <= workload.max_micro_batch], dtype=np.int64)
    rcs = np.array([RECOMPUTE_MODES.index(mode) for mode in workload.recompute_modes], dtype=np.int64)
    inner = mbs.size * rcs.size
    rows = np.repeat(rows, inner, axis=0)
    zero_col = np.repeat(zero_col, inner)
    n_outer = rows.shape[0] // inner if inner else 0
    mb_col = np.tile(np.repeat(mbs, rcs.size), n_outer)
    rc_col = np.tile(np.tile(rcs, mbs.size), n_outer)
    gb = workload.global_batch
    dp_col = rows[:, 3]
    ga_col = np.maximum(1, gb // (dp_col * mb_col))
    return {
        "tp": rows[:, 0],
        "cp": rows[:, 1],
        "pp": rows[:, 2],
        "dp": dp_col,
        "ep": rows[:, 4],
        "v": rows[:, 5],
        "zero": zero_col,
        "mb": mb_col,
        "ga": ga_col,
        "rc": rc_col,
        "replicas": np.ones_like(dp_col),
    }


def _group_time(
    np: Any, n: Any, calls: Any, steps_per_call: Any, factor_bytes: Any, bandwidth: Any, latency: Any
) -> Any:
    """Vectorised ``calls x collective_cost``: calls·(steps·alpha) + factor·bytes/B, zero where n == 1."""
    return np.where(n > 1, calls * steps_per_call * latency + factor_bytes / bandwidth, 0.0)


def _link_arrays(np: Any, cluster: ClusterSpec, span: Any) -> tuple[Any, Any]:
    intra = cluster.gpus_per_node % span == 0
    bandwidth = np.where(intra, cluster.intra_node_bandwidth_bytes_per_s, cluster.inter_node_bandwidth_bytes_per_s)
    latency = np.where(intra, cluster.intra_node_latency_s, cluster.inter_node_latency_s)
    return bandwidth, latency


def _evaluate_training_table(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> _Table:
    """The training space, every check and estimate evaluated for all candidates at once."""
    import numpy as np

    c = _space_columns(model, cluster, workload)
    tp, cp, pp, dp, ep, v = c["tp"], c["cp"], c["pp"], c["dp"], c["ep"], c["v"]
    zero, mb, ga, rc = c["zero"], c["mb"], c["ga"], c["rc"]
    f64 = np.float64
    world = cluster.world_size
    g = cluster.gpus_per_node
    gb = workload.global_batch
    s = workload.tokens_per_sequence(model)
    L, h, a, V = model.layers, model.hidden, model.heads, model.vocab
    recipe = PRECISION_RECIPES[workload.recipe]
    used = tp * cp * dp * pp

    fails: dict[str, Any] = {}
    fails["ranks"] = used > world
    fails["global_batch"] = gb % (dp * mb) != 0
    fails["tp_heads"] = a % tp != 0
    fails["pp_layers"] = pp > L
    fails["cp_seq"] = s % cp != 0
    fails["ep_experts"] = (model.num_experts % ep != 0) if model.is_moe else np.zeros_like(tp, dtype=bool)
    fails["ep_fold"] = used % (tp * ep * pp) != 0
    fails["pp_schedule"] = (v > 1) & ((pp == 1) | (L % (pp * v) != 0) | (ga % pp != 0))
    well = ~np.logical_or.reduce([fails[code] for code in _GATE_CODES[:8]])
    fails["interconnect"] = g % tp != 0
    fails["structure"] = (ep > 1) & (not model.is_moe)
    fails["mode"] = np.full(tp.shape, workload.mode != "training")
    fails["serving"] = fails["mode"].copy()

    # ---- memory (mirrors _training_ledger)
    safe_pp = np.minimum(pp, L)
    lps = (L + safe_pp - 1) // safe_pp
    extra_one = float(model.input_embedding_params + model.output_params)
    extra_many = float(max(model.input_embedding_params, V * h + model._norm_params()))
    dense_stage = lps * float(model.dense_params_per_layer) + np.where(pp == 1, extra_one, extra_many)
    expert_stage = lps * float(model.num_experts * model.expert_params)
    dpc = (dp * cp).astype(f64)
    edp = used / (tp * ep * pp)
    psi_d = dense_stage / tp
    psi_e = expert_stage / (tp * ep)
    pb, gbytes, kb = recipe.param_bytes, recipe.grad_bytes, recipe.optimizer_bytes

    def state(psi: Any, n: Any) -> tuple[Any, Any, Any]:
        return (
            pb * psi / np.where(zero >= 3, n, 1.0),
            gbytes * psi / np.where(zero >= 2, n, 1.0),
            kb * psi / np.where(zero >= 1, n, 1.0),
        )

    dp_par, dp_grad, dp_opt = state(psi_d, dpc)
    ex_par, ex_grad, ex_opt = state(psi_e, edp) if model.is_moe else (0.0, 0.0, 0.0)
    workspace = np.where(zero == 3, np.where(dpc > 1, pb * model.dense_params_per_layer / tp, 0.0), 0.0)
    if model.is_moe:
        workspace = workspace + np.where(
            (zero == 3) & (edp > 1), pb * model.num_experts * model.expert_params / (tp * ep), 0.0
        )
    sbh = float(s) * mb * h
    sp = workload.sequence_parallel
    lin_none = 34.0 * sbh / tp if sp else sbh * (10.0 + 24.0 / tp)
    att = 5.0 * a * float(s) * s * mb / tp
    full = 2.0 * sbh / (tp if sp else 1)
    per_layer = np.select([rc == 0, rc == 1], [lin_none + att, lin_none], full) / cp
    inflight = np.where(v == 1, np.minimum(pp, ga), pp * (1.0 + (pp - 1.0) / (pp * v)))
    act = (
        per_layer * lps * inflight
        + np.where(rc == 2, (lin_none + att) / cp, 0.0)
        + LOGITS_BYTES * sbh / h * V / (tp * cp)
    )
    reserve = workload.runtime_reserve_gib * GIB_BYTES
    fixed = dp_par + dp_grad + dp_opt + ex_par + ex_grad + ex_opt + workspace + reserve
    total_gib = (fixed + act) / GIB_BYTES
    device = cluster.memory_per_device_gib
    fails["memory"] = well & (total_gib > device)
    fails["context"] = well & (cp > 1) & ((fixed + act * cp) / GIB_BYTES <= device)

    # ---- communication (mirrors coursekit.communication through _training_ledger)
    tokens = float(s) / cp
    bw, lat = _link_arrays(np, cluster, tp)
    phases = 2 + (rc == 2)
    calls = 2 * lps * ga
    s_tp = tokens * mb * h * ACTIVATION_BYTES
    t_tp = phases * 2 * _group_time(np, tp, calls, tp - 1, calls * (tp - 1) / tp * s_tp, bw, lat)
    bw, lat = _link_arrays(np, cluster, tp * cp)
    assert model.kv_heads is not None
    kv_rank = -(-model.kv_heads // tp) * model.head_dim  # ceil(kv_heads / tp) heads per TP rank
    kv_block = 2.0 * tokens * mb * kv_rank * ACTIVATION_BYTES
    calls_cp = (cp - 1) * lps * ga
    t_cp = np.where(cp > 1, 2 * calls_cp * lat + calls_cp * 3 * kv_block / bw, 0.0)
    t_ep = 0.0
    if model.is_moe:
        bw, lat = _link_arrays(np, cluster, tp * ep)
        s_ep = tokens * mb * h * ACTIVATION_BYTES * model.top_k
        t_ep = 2 * _group_time(np, ep, 2 * lps * ga, ep - 1, 2 * lps * ga * (ep - 1) / ep * s_ep, bw, lat)
    bw, lat = _link_arrays(np, cluster, used)
    s_pp = tokens * mb * (h // tp) * ACTIVATION_BYTES
    t_pp = np.where(pp > 1, 2 * ga * v * (lat + s_pp / bw), 0.0)
    bw, lat = _link_arrays(np, cluster, used // pp)
    units = np.where(zero == 3, lps, 1)

    def dp_time(psi: Any, n: Any) -> Any:
        frac = (n - 1) / n
        return np.select(
            [zero == 0, zero <= 2],
            [
                units * 2 * (n - 1) * lat + 2 * frac * psi * gbytes / bw,
                2 * units * (n - 1) * lat + frac * psi * (gbytes + pb) / bw,
            ],
            3 * units * (n - 1) * lat + frac * psi * (2 * pb + gbytes) / bw,
        ) * (n > 1)

    t_dp = dp_time(psi_d, dpc)
    if model.is_moe:
        t_dp = t_dp + dp_time(psi_e, edp)
    comm = t_tp + t_cp + t_ep + t_pp + t_dp

    # ---- compute, overlap, bubble (mirrors scaling.step_timeline and pipeline.bubble_fraction)
    n_act = float(model.active_params)
    per_token = np.select([rc == 2, rc == 1], [8.0 * n_act, 6.0 * n_act + 4.0 * s * h * L], 6.0 * n_act)
    compute = per_token * gb * s * (lps * pp / L) / (used * cluster.peak_flops * workload.achievable_flops_fraction)
    hidden = np.minimum(comm * workload.overlap_fraction, compute)
    bubble = np.where(pp > 1, (pp - 1.0) / (v * ga + pp - 1.0), 0.0)
    step = compute + (comm - hidden) + bubble / (1.0 - bubble) * compute
    any_fail = np.logical_or.reduce([fails[code] for code in _GATE_CODES])
    columns = {key: c[key] for key in _INT_COLUMNS}
    return _Table(
        columns=columns,
        fails={code: fails[code] for code in _GATE_CODES},
        step_s=np.where(well, step, np.nan),
        memory_gib=np.where(well, total_gib, np.nan),
        accepted=~any_fail,
    )


def _serving_table(
    model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec
) -> tuple[_Table, list[PlanCandidate]]:
    import numpy as np

    world = cluster.world_size
    candidates = [
        evaluate_composition(model, cluster, workload, tp=tp, pp=pp, replicas=world // (tp * pp))
        for tp in divisors(world)
        for pp in divisors(world // tp)
    ]
    columns = {key: np.array([_column_value(cand, key) for cand in candidates], dtype=np.int64) for key in _INT_COLUMNS}
    fails = {code: np.array([code in cand.codes for cand in candidates], dtype=bool) for code in _GATE_CODES}
    step = np.array([cand.step_s if cand.step_s is not None else np.nan for cand in candidates], dtype=np.float64)
    memory = np.array(
        [cand.memory.total_gib if cand.memory is not None else np.nan for cand in candidates], dtype=np.float64
    )
    accepted = np.array([cand.accepted for cand in candidates], dtype=bool)
    return _Table(columns, fails, step, memory, accepted), candidates


def _column_value(candidate: PlanCandidate, key: str) -> int:
    if key == "rc":
        return RECOMPUTE_MODES.index(candidate.recompute)
    attr = {"v": "virtual_stages", "zero": "zero_stage", "mb": "micro_batch", "ga": "grad_accum"}.get(key, key)
    value: int = getattr(candidate, attr)
    return value


# --------------------------------------------------------------------------- degrees as text


def parse_degrees(text: str | Mapping[str, Any]) -> dict[str, Any]:
    """Read ``"tp=8,pp=4,dp=4,zero=1,mb=1"`` (or a mapping) into keyword arguments of :func:`evaluate_composition`.

    Keys are those of :data:`DEGREE_KEYS`; values are positive integers except
    ``recompute`` (``none``, ``selective``, ``full``) and ``zero`` (0-3).

    >>> parse_degrees("tp=8, pp=4, dp=4, zero=1, mb=1")
    {'tp': 8, 'pp': 4, 'dp': 4, 'zero': 1, 'mb': 1}
    >>> parse_degrees("tp=8,xp=2")
    Traceback (most recent call last):
    ...
    ValueError: degrees = 'tp=8,xp=2': unknown key 'xp'; the keys are tp, pp, dp, cp, ep, v, zero, mb, ga, \
recompute, replicas.

    Taught in: lesson 9 (decision workbench).
    """
    keys = ", ".join(DEGREE_KEYS)
    if isinstance(text, Mapping):
        items = [(str(key), value) for key, value in text.items()]
    elif isinstance(text, str):
        items = []
        for part in (chunk.strip() for chunk in text.split(",")):
            if not part:
                continue
            if part.count("=") != 1:
                raise ValueError(tr("planner.degrees_syntax", value=text, item=part))
            key, value = (side.strip() for side in part.split("="))
            items.append((key.lower(), value))
    else:
        raise _type_error("degrees", text, "str or mapping")
    out: dict[str, Any] = {}
    for key, raw_value in items:
        if key not in DEGREE_KEYS:
            raise ValueError(tr("planner.degrees_key", value=text, key=key, keys=keys))
        if key == "recompute":
            out[key] = check_choice("recompute", str(raw_value).strip().lower(), RECOMPUTE_MODES)
            continue
        try:
            number = int(raw_value) if isinstance(raw_value, str) else raw_value
        except ValueError:
            raise ValueError(tr("planner.degrees_int", value=text, key=key, item=raw_value)) from None
        if isinstance(number, bool) or not isinstance(number, int) or number < (0 if key == "zero" else 1):
            raise ValueError(tr("planner.degrees_int", value=text, key=key, item=raw_value))
        out[key] = number
    if "replicas" in out and {"dp", "zero", "ga"} & set(out):
        raise ValueError(tr("planner.degrees_mixed", value=text))
    return out


# --------------------------------------------------------------------------- the result


@dataclass(frozen=True)
class PlanResult:
    """Everything :func:`plan` found: the space, the funnel, the candidates and the assumptions.

    * ``space_size``: candidates evaluated; ``space_dimensions``: the options per dimension;
    * ``funnel``: one :class:`FunnelStep` per gate of :data:`PLAN_GATES`, in order;
    * :meth:`accepted` — accepted candidates, fastest estimate first; :meth:`rejected`;
      :meth:`candidate` — the i-th candidate; :meth:`explain` — any composition;
    * ``assumptions`` — what every estimate rests on; ``elapsed_s`` — search time.

    Candidates are materialised on demand (each through :func:`evaluate_composition`).
    """

    model: ModelSpec
    cluster: ClusterSpec
    workload: WorkloadSpec
    assumptions: Assumptions
    space_dimensions: dict[str, tuple[Any, ...]]
    funnel: tuple[FunnelStep, ...]
    elapsed_s: float
    _table: _Table = field(repr=False, compare=False)
    _materialised: dict[int, PlanCandidate] = field(default_factory=dict, repr=False, compare=False)

    @property
    def space_size(self) -> int:
        """How many compositions were evaluated."""
        return len(self._table)

    def __len__(self) -> int:
        return self.space_size

    @property
    def accepted_count(self) -> int:
        """How many candidates pass every check."""
        return int(self._table.accepted.sum())

    def codes(self, index: int) -> tuple[str, ...]:
        """Codes of the checks candidate ``index`` fails (from the vectorised table)."""
        return tuple(code for code in _GATE_CODES if bool(self._table.fails[code][index]))

    def degrees(self, index: int) -> dict[str, Any]:
        """The degrees of candidate ``index`` as keyword arguments of :func:`evaluate_composition`."""
        col = self._table.columns
        if self.workload.mode == "serving":
            return {"tp": int(col["tp"][index]), "pp": int(col["pp"][index]), "replicas": int(col["replicas"][index])}
        return {
            "tp": int(col["tp"][index]),
            "pp": int(col["pp"][index]),
            "dp": int(col["dp"][index]),
            "cp": int(col["cp"][index]),
            "ep": int(col["ep"][index]),
            "v": int(col["v"][index]),
            "zero": int(col["zero"][index]),
            "mb": int(col["mb"][index]),
            "ga": int(col["ga"][index]),
            "recompute": RECOMPUTE_MODES[int(col["rc"][index])],
        }

    def estimated_step_s(self, index: int) -> float | None:
        """The vectorised step-time estimate of candidate ``index`` (None if malformed)."""
        value = float(self._table.step_s[index])
        return None if math.isnan(value) else value

    def candidate(self, index: int) -> PlanCandidate:
        """Candidate ``index`` with reasons, ledgers and estimate."""
        index = check_int("index", index, ge=0, lt=self.space_size)
        if index not in self._materialised:
            self._materialised[index] = evaluate_composition(
                self.model, self.cluster, self.workload, **self.degrees(index)
            )
        return self._materialised[index]

    def __iter__(self) -> Iterator[PlanCandidate]:
        return (self.candidate(i) for i in range(self.space_size))

    def accepted_indices(self) -> list[int]:
        """Indices of accepted candidates, fastest estimated step first (ties: smaller memory, then space order)."""
        import numpy as np

        idx = np.flatnonzero(self._table.accepted)
        # Ties in the estimate (e.g. ZeRO-1 vs ZeRO-2 move the same bytes) go to the smaller memory total.
        order = np.lexsort((self._table.memory_gib[idx], self._table.step_s[idx]))
        return [int(i) for i in idx[order]]

    def accepted(self, top: int | None = None) -> list[PlanCandidate]:
        """Accepted candidates, fastest estimated step first; the first ``top`` if given."""
        indices = self.accepted_indices()
        if top is not None:
            indices = indices[: check_int("top", top, ge=0)]
        return [self.candidate(i) for i in indices]

    def rejected_indices(self, code: str | None = None) -> list[int]:
        """Indices of rejected candidates (failing ``code``, if given)."""
        import numpy as np

        if code is None:
            mask = ~self._table.accepted
        else:
            mask = self._table.fails[check_choice("code", code, _GATE_CODES)]
        return [int(i) for i in np.flatnonzero(mask)]

    def rejected(self, code: str | None = None, limit: int = 10) -> list[PlanCandidate]:
        """Up to ``limit`` rejected candidates (failing ``code``, if given), in space order."""
        return [self.candidate(i) for i in self.rejected_indices(code)[: check_int("limit", limit, ge=0)]]

    def find(self, **degrees: Any) -> list[int]:
        """Indices of the candidates whose degrees equal the given ones (keys of :data:`DEGREE_KEYS`)."""
        import numpy as np

        mask = np.ones(self.space_size, dtype=bool)
        for key, value in parse_degrees(degrees).items():
            column = "rc" if key == "recompute" else key
            wanted = RECOMPUTE_MODES.index(value) if key == "recompute" else value
            mask &= self._table.columns[column] == wanted
        return [int(i) for i in np.flatnonzero(mask)]

    def explain(self, degrees: str | Mapping[str, Any]) -> PlanCandidate:
        """Evaluate one composition (text like ``"tp=8,pp=4,dp=4,zero=1,mb=1"`` or a mapping).

        Unspecified degrees default to cp = ep = v = 1, zero = 0, mb = 1, dp = the ranks left over,
        ga from the global batch and the workload's first recompute mode.
        """
        return evaluate_composition(self.model, self.cluster, self.workload, **parse_degrees(degrees))

    def report(self, top: int = 5) -> str:
        """The funnel, the assumptions and the ``top`` accepted candidates as text (current language)."""
        w, c, m = self.workload, self.cluster, self.model
        s = w.tokens_per_sequence(m)
        mode_text = tr(f"planner.mode_{w.mode}", global_batch=w.global_batch, seq_len=s)
        lines = [
            tr(
                "planner.header",
                model=m.name,
                cluster=c.name,
                nodes=c.nodes,
                gpn=c.gpus_per_node,
                world=c.world_size,
                mode=mode_text,
            ),
            tr(
                "planner.assumptions",
                peak_tflops=c.peak_flops / 1e12,
                mfu=w.achievable_flops_fraction,
                overlap=w.overlap_fraction,
                recipe=w.recipe,
                reserve_gib=w.runtime_reserve_gib,
                intra_gb_s=c.intra_node_bandwidth_bytes_per_s / 1e9,
                inter_gb_s=c.inter_node_bandwidth_bytes_per_s / 1e9,
            ),
            tr(
                "planner.space",
                size=self.space_size,
                elapsed_ms=self.elapsed_s * 1e3,
                dims=", ".join(f"{key} {'/'.join(map(str, values))}" for key, values in self.space_dimensions.items()),
            ),
            tr("planner.funnel_header"),
        ]
        lines.extend(
            tr("planner.funnel_row", code=step.code, removed=step.removed, remaining=step.remaining)
            + f"  — {step.description}"
            for step in self.funnel
        )
        best = self.accepted(top)
        if not self.accepted_count:
            lines.append(tr("planner.none_accepted"))
        else:
            lines.append(tr("planner.accepted_header", count=self.accepted_count, top=len(best)))
            for rank, cand in enumerate(best, 1):
                lines.append(f"#{rank} " + cand.explain())
        return "\n".join(lines)

    def to_dict(self, top: int = 10, include_rejected: bool = False) -> dict[str, Any]:
        """JSON-ready: specs, assumptions, space, funnel, every accepted candidate (the first ``top`` in
        full, the rest as degrees + estimate), and with ``include_rejected`` every rejected one as
        degrees + codes."""
        from dataclasses import asdict

        accepted = self.accepted_indices()
        out: dict[str, Any] = {
            "model": asdict(self.model),
            "cluster": asdict(self.cluster),
            "workload": asdict(self.workload),
            "assumptions": {
                **{k: val for k, val in asdict(self.assumptions).items() if k != "notes"},
                "notes": [str(note) for note in self.assumptions.notes],
                "estimate": "estimated, not measured",
            },
            "space_size": self.space_size,
            "space_dimensions": {key: list(values) for key, values in self.space_dimensions.items()},
            "elapsed_s": self.elapsed_s,
            "funnel": [
                {"code": st.code, "description": str(st.description), "removed": st.removed, "remaining": st.remaining}
                for st in self.funnel
            ],
            "accepted_count": len(accepted),
            "top": [self.candidate(i).to_dict() for i in accepted[:top]],
            "accepted": [
                {
                    "degrees": self.degrees(i),
                    "step_s": self.estimated_step_s(i),
                    "memory_gib": float(self._table.memory_gib[i]),
                }
                for i in accepted
            ],
        }
        if include_rejected:
            out["rejected"] = [
                {"degrees": self.degrees(i), "codes": list(self.codes(i))} for i in self.rejected_indices()
            ]
        return out


# --------------------------------------------------------------------------- plan()


def plan(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> PlanResult:
    """Enumerate every composition of ``cluster`` for ``model`` and ``workload``, gate it, and estimate the rest.

    Parameters:
        model: a :class:`ModelSpec` (presets in :data:`coursekit.presets.MODELS`).
        cluster: a :class:`ClusterSpec` (presets in :data:`coursekit.presets.CLUSTERS`); every
            candidate uses all ``cluster.world_size`` ranks.
        workload: a :class:`WorkloadSpec`: mode, batch, sequence, recipe and the assumptions of the estimate.

    Returns a :class:`PlanResult`: the funnel of :data:`PLAN_GATES` (how many candidates each
    check removed first), every candidate with its reasons, and the accepted ones ordered by
    *estimated* step time (compute at ``achievable_flops_fraction`` of peak + exposed
    communication + pipeline bubble; see :data:`ESTIMATE_NOTES`). Search space and complexity
    are described in the module docstring.

    >>> from coursekit.presets import MODELS, CLUSTERS
    >>> r = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))
    >>> sum(step.removed for step in r.funnel) + r.accepted_count == r.space_size
    True
    >>> best = r.accepted(1)[0]
    >>> best.accepted, best.tp <= 8
    (True, True)

    Taught in: lesson 9 (decision workbench).
    """
    if not isinstance(model, ModelSpec):
        raise _type_error("model", model, "ModelSpec")
    if not isinstance(cluster, ClusterSpec):
        raise _type_error("cluster", cluster, "ClusterSpec")
    if not isinstance(workload, WorkloadSpec):
        raise _type_error("workload", workload, "WorkloadSpec")
    import numpy as np

    start = time.perf_counter()
    materialised: dict[int, PlanCandidate] = {}
    if workload.mode == "training":
        table = _evaluate_training_table(model, cluster, workload)
    else:
        table, serving = _serving_table(model, cluster, workload)
        materialised = dict(enumerate(serving))
    alive = np.ones(len(table), dtype=bool)
    funnel: list[FunnelStep] = []
    for gate in PLAN_GATES:
        removed = alive & table.fails[gate.code]
        alive &= ~removed
        funnel.append(FunnelStep(gate.code, gate.description, int(removed.sum()), int(alive.sum())))
    elapsed = time.perf_counter() - start
    dims: dict[str, tuple[Any, ...]] = {
        key: tuple(int(x) for x in np.unique(table.columns[key]))
        for key in ("tp", "pp", "dp", "cp", "ep", "v", "zero", "mb")
    }
    if workload.mode == "training":
        dims["recompute"] = workload.recompute_modes
    else:
        dims = {key: tuple(int(x) for x in np.unique(table.columns[key])) for key in ("replicas", "tp", "pp")}
    assumptions = Assumptions(
        peak_flops=cluster.peak_flops,
        achievable_flops_fraction=workload.achievable_flops_fraction,
        overlap_fraction=workload.overlap_fraction,
        recipe=workload.recipe,
        runtime_reserve_gib=workload.runtime_reserve_gib,
        sequence_parallel=workload.sequence_parallel,
        intra_node_bandwidth_bytes_per_s=cluster.intra_node_bandwidth_bytes_per_s,
        inter_node_bandwidth_bytes_per_s=cluster.inter_node_bandwidth_bytes_per_s,
        intra_node_latency_s=cluster.intra_node_latency_s,
        inter_node_latency_s=cluster.inter_node_latency_s,
        memory_bandwidth_bytes_per_s=cluster.memory_bandwidth_bytes_per_s,
        notes=ESTIMATE_NOTES,
    )
    return PlanResult(
        model=model,
        cluster=cluster,
        workload=workload,
        assumptions=assumptions,
        space_dimensions=dims,
        funnel=tuple(funnel),
        elapsed_s=elapsed,
        _table=table,
        _materialised=materialised,
    )
