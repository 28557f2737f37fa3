"""The three specs of the decision workbench — model, cluster, workload — and the course's constants.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from .._validate import check_bool, check_choice, check_divides, check_int, check_number
from ..capacity import PRECISION_RECIPES, RECOMPUTE_MODES
from ..i18n import register, tr

# --------------------------------------------------------------------------- constants

#: Workload modes (Q3, lesson 3: training or serving).
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

#: A flat achievable fraction of peak FLOP/s, for learners who want to override the compute-efficiency model
#: (``WorkloadSpec(achievable_flops_fraction=0.5)``). By default (``None``) efficiency comes from each GPU's
#: matmul shapes on the roofline (:mod:`coursekit.planner.estimate`).
DEFAULT_ACHIEVABLE_FLOPS_FRACTION: float = 0.5
#: The uniform overlap override's old default; by default each dimension has its own overlap (:data:`OVERLAP_DEFAULTS`).
DEFAULT_OVERLAP_FRACTION: float = 0.0

#: Share of each dimension's communication the engines hide under compute, by default, with the reason.
#: The learner can change each (``WorkloadSpec(overlap_tp=..., ...)``); hiding is capped by the compute it
#: can hide under (see :data:`coursekit.planner.result.ESTIMATE_NOTES`).
OVERLAP_DEFAULTS: dict[str, float] = {"dp": 1.0, "pp": 1.0, "cp": 1.0, "tp": 0.0, "ep": 0.0}
OVERLAP_SOURCES: dict[str, str] = {
    "dp": "PyTorch DDP overlaps bucketed gradient all-reduce with backward (Li et al., PyTorch Distributed, "
    "VLDB 2020, §3.2.3); ZeRO-3/FSDP prefetch the next unit's all-gather (Zhao et al., PyTorch FSDP, VLDB 2023, "
    "§3.3); only the last micro-batch's backward can hide a once-per-step synchronisation",
    "pp": "Megatron-LM posts send/recv asynchronously and overlaps them with the next micro-batch's compute "
    "(Narayanan et al. 2021, §4.1 and the --overlap-p2p-communication option of Megatron-Core)",
    "cp": "ring attention passes the next K/V block while the current block is computed (Liu et al., Ring "
    "Attention, arXiv:2310.01889, §3; Megatron-Core context parallelism)",
    "tp": "TP's all-reduces / all-gathers sit between dependent matmuls: on the critical path unless a "
    "communication-overlap kernel is switched on (Megatron-Core --tp-comm-overlap, off by default)",
    "ep": "MoE dispatch and combine sit between the router and the experts: on the critical path by default "
    "(Megatron-Core's overlap of all-to-all with compute is an option, DeepSeek-V3 §3.2.1 DualPipe builds it in)",
}

#: Upper bounds on sizes, so every bounded call answers quickly: the largest GPU count, global batch and
#: sequence the planner accepts (larger ones are refused with a message, not searched).
MAX_WORLD_SIZE: int = 1 << 17
MAX_NODES: int = 1 << 17
MAX_GLOBAL_BATCH: int = 1 << 24
MAX_SEQ_LEN: int = 1 << 24
#: Default runtime reserve per device (CUDA context, allocator fragmentation, buffers): 2 GiB, as in
#: lesson 1's first ledger (``build_resource_ledger(13.0, 4.0, 2.0, 24.0)``).
DEFAULT_RUNTIME_RESERVE_GIB: float = 2.0
#: Default largest micro-batch (sequences) the search tries.
DEFAULT_MAX_MICRO_BATCH: int = 8
#: Default largest number of model chunks per pipeline device (interleaved schedule) the search tries.
DEFAULT_MAX_VIRTUAL_STAGES: int = 4
#: Serving: tokens each request generates when a :class:`WorkloadSpec` in serving mode does not say (lesson 9's
#: workbench widget and lesson 10's examples use 256).
DEFAULT_OUTPUT_TOKENS: int = 256
#: Serving: most concurrent requests a workload may hold (``coursekit.serving``'s bound).
MAX_CONCURRENCY: int = 10**7

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

#: The parts of :meth:`ModelSpec.param_ledger`, with their names in each course language.
PARAM_PARTS: dict[str, dict[str, str]] = {
    "embedding": {"zh": "输入嵌入", "en": "embedding"},
    "attention": {"zh": "注意力", "en": "attention"},
    "norms": {"zh": "归一化层", "en": "norms"},
    "output": {"zh": "输出层", "en": "output layer"},
    "mlp": {"zh": "前馈层 (MLP)", "en": "MLP"},
    "router": {"zh": "路由器", "en": "router"},
    "experts": {"zh": "专家", "en": "experts"},
}
register({f"planner.part.{part}": names for part, names in PARAM_PARTS.items()})


def param_part_name(part: str) -> str:
    """The name of a :meth:`ModelSpec.param_ledger` part in the current language.

    >>> from coursekit.i18n import set_language
    >>> set_language("zh"); param_part_name("mlp"), param_part_name("embedding")
    ('前馈层 (MLP)', '输入嵌入')
    >>> set_language("en"); param_part_name("output")
    'output layer'

    Taught in: lesson 9 (the parameter ledger).
    """
    check_choice("part", part, tuple(PARAM_PARTS))
    return tr(f"planner.part.{part}")


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
            "zh": "{name} = {value!r}：{item!r} 不是 key=value 形式（例如 'tp=8,pp=4,dp=4'）。",
            "en": "{name} = {value!r}: {item!r} is not of the form key=value (e.g. 'tp=8,pp=4,dp=4').",
        },
        "planner.degrees_key": {
            "zh": "{name} = {value!r}：未知的键 {key!r}；可用的键是 {keys}。",
            "en": "{name} = {value!r}: unknown key {key!r}; the keys are {keys}.",
        },
        "planner.degrees_int": {
            "zh": "{name} = {value!r}：{key} = {item!r} 必须是 {low} 到 {high} 之间的整数。",
            "en": "{name} = {value!r}: {key} = {item!r} must be an integer from {low} to {high}.",
        },
        "planner.degrees_mixed": {
            "zh": "{name} = {value!r}：replicas 描述服务副本，不能与训练的 dp、zero、ga 同时给出。",
            "en": "{name} = {value!r}: replicas describe serving copies and cannot be given together with the "
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
            "zh": "服务，{global_batch} 个并发请求，每个提示 {seq_len} token、输出 {output_tokens} token",
            "en": "serving, {global_batch} concurrent requests, prompts of {seq_len} tokens, {output_tokens} output "
            "tokens",
        },
        "planner.assumptions": {
            "zh": "假设：峰值 {peak_tflops:.0f} TFLOP/s（bf16 稠密），计算效率 {mfu}，通信重叠（按维度）{overlap}，"
            "精度方案 {recipe}，运行余量 {reserve_gib:.1f} GiB/设备；带宽为每 GPU 单向：节点内 {intra_gb_s:.0f} GB/s，"
            "跨节点 {inter_gb_s:.1f} GB/s；估算的不确定度约 ±{uncertainty:.0%}",
            "en": "Assumptions: peak {peak_tflops:.0f} TFLOP/s (bf16 dense), compute efficiency {mfu}, overlap per "
            "dimension {overlap}, recipe {recipe}, runtime reserve {reserve_gib:.1f} GiB per device; bandwidth "
            "unidirectional per GPU: intra-node {intra_gb_s:.0f} GB/s, inter-node {inter_gb_s:.1f} GB/s; the "
            "estimate's uncertainty is about ±{uncertainty:.0%}",
        },
        "planner.efficiency_model": {
            "zh": "按每 GPU 矩阵乘形状在屋顶线上估算（在 Megatron-LM 表 1 上标定一次）",
            "en": "from each GPU's matmul shapes on the roofline (calibrated once on Megatron-LM Table 1)",
        },
        "planner.not_accepted": {
            "zh": "index = {index}：这个候选没有通过全部门槛，没有名次。",
            "en": "index = {index}: this candidate does not pass every gate and has no rank.",
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
        "planner.accepted_header_serving": {
            "zh": "通过的布局：{count} 个；按每 GPU 吞吐的下界估计排序（与 plan_serving 相同；估算，不是测量），"
            "前 {top} 个：",
            "en": "Accepted: {count}; ordered by the lower-bound throughput per GPU (as plan_serving ranks them; an "
            "estimate, not a measurement), top {top}:",
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
        "planner.link_intra_node": {"zh": "节点内链路", "en": "intra-node link"},
        "planner.link_inter_node": {"zh": "跨节点链路", "en": "inter-node link"},
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
    n = check_int("n", n, ge=1, le=1 << 40)
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
            check_int(attr, getattr(raw, attr), ge=1, le=MAX_SEQ_LEN if attr in ("vocab", "seq_len") else 1 << 20)
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
        experts = check_int("num_experts", raw.num_experts, ge=0, le=1 << 16)
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
        check_int("nodes", raw.nodes, ge=1, le=MAX_NODES)
        check_int("gpus_per_node", raw.gpus_per_node, ge=1, le=1024)
        check_int("world size (nodes × gpus_per_node)", raw.nodes * raw.gpus_per_node, le=MAX_WORLD_SIZE)
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
        return replace(self, nodes=check_int("nodes", nodes, ge=1, le=MAX_NODES))

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
        global_batch: sequences per optimizer step (training) or concurrent requests (serving, at most
            :data:`MAX_CONCURRENCY`).
        seq_len: tokens per sequence (training) or per prompt (serving); ``None`` = the model's ``seq_len``.
        output_tokens: serving only: tokens each request generates (default :data:`DEFAULT_OUTPUT_TOKENS`).
            Serving mode is :func:`coursekit.serving.plan_serving` on :meth:`serving_workload`.
        recipe: a precision recipe name of :data:`coursekit.capacity.PRECISION_RECIPES`.
        achievable_flops_fraction: ``None`` (default): the compute-efficiency model (each GPU's matmul
            shapes on the roofline, calibrated once); a number in (0, 1]: a flat share of peak instead.
        overlap_fraction: ``None`` (default): per-dimension overlap ``overlap_dp`` ... ``overlap_ep``;
            a number in [0, 1] overrides all of them.
        overlap_dp, overlap_pp, overlap_cp, overlap_tp, overlap_ep: share of that dimension's communication
            hidden under compute, [0, 1]; defaults and sources in :data:`OVERLAP_DEFAULTS` / :data:`OVERLAP_SOURCES`.
        pipeline_edge_layers: layers taken off the first and the last pipeline stage to make room for the
            embedding and the output layer + loss (Llama 3 405B: 1; Llama Team 2024, §3.3.2).
        ep_node_limit: node-limited routing, each token reaches at most this many other nodes (DeepSeek-V3
            §2.1.2: 4); ``None`` = unlimited.
        efficiency_ceiling: the compute-efficiency model's ceiling (share of peak the largest matmuls reach);
            ``None`` = the calibrated :data:`coursekit.planner.estimate.EFFICIENCY_CEILING`. Set it from your
            own measurement (lesson 8).
        ep_dedup_per_node: send a token once per node even when several of its experts live there, and fan
            out inside the node over NVLink (DeepSeek-V3 §3.2.1).
        runtime_reserve_gib: memory kept free per device, GiB.
        sequence_parallel: Megatron sequence parallelism inside TP groups.
        zero_stages, recompute_modes: the ZeRO stages and recompute modes the search tries.
        max_micro_batch: largest micro-batch (sequences) the search tries.
        max_virtual_stages: largest number of model chunks per pipeline device it tries.

    >>> WorkloadSpec(global_batch=1024).overlap("tp"), WorkloadSpec(global_batch=1024).overlap("dp")
    (0.0, 1.0)
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
    achievable_flops_fraction: float | None = None
    overlap_fraction: float | None = None
    runtime_reserve_gib: float = DEFAULT_RUNTIME_RESERVE_GIB
    sequence_parallel: bool = True
    zero_stages: tuple[int, ...] = (0, 1, 2, 3)
    recompute_modes: tuple[str, ...] = RECOMPUTE_MODES
    max_micro_batch: int = DEFAULT_MAX_MICRO_BATCH
    max_virtual_stages: int = DEFAULT_MAX_VIRTUAL_STAGES
    overlap_dp: float = OVERLAP_DEFAULTS["dp"]
    overlap_pp: float = OVERLAP_DEFAULTS["pp"]
    overlap_cp: float = OVERLAP_DEFAULTS["cp"]
    overlap_tp: float = OVERLAP_DEFAULTS["tp"]
    overlap_ep: float = OVERLAP_DEFAULTS["ep"]
    pipeline_edge_layers: int = 0
    ep_node_limit: int | None = None
    ep_dedup_per_node: bool = False
    efficiency_ceiling: float | None = None
    output_tokens: int = DEFAULT_OUTPUT_TOKENS

    def __post_init__(self) -> None:
        raw: Any = self
        check_int("global_batch", raw.global_batch, ge=1, le=MAX_GLOBAL_BATCH)
        check_int("output_tokens", raw.output_tokens, ge=1, le=MAX_SEQ_LEN)
        if raw.seq_len is not None:
            check_int("seq_len", raw.seq_len, ge=1, le=MAX_SEQ_LEN)
        if check_choice("mode", raw.mode, WORKLOAD_MODES) == "serving":
            check_int("global_batch", raw.global_batch, ge=1, le=MAX_CONCURRENCY)
        check_choice("recipe", raw.recipe, PRECISION_RECIPES)
        if raw.achievable_flops_fraction is not None:
            object.__setattr__(
                self,
                "achievable_flops_fraction",
                check_number("achievable_flops_fraction", raw.achievable_flops_fraction, gt=0, le=1),
            )
        if raw.overlap_fraction is not None:
            object.__setattr__(
                self, "overlap_fraction", check_number("overlap_fraction", raw.overlap_fraction, ge=0, le=1)
            )
        for dim in OVERLAP_DEFAULTS:
            name = f"overlap_{dim}"
            object.__setattr__(self, name, check_number(name, getattr(raw, name), ge=0, le=1))
        check_int("pipeline_edge_layers", raw.pipeline_edge_layers, ge=0, le=1 << 16)
        if raw.ep_node_limit is not None:
            check_int("ep_node_limit", raw.ep_node_limit, ge=1, le=MAX_NODES)
        check_bool("ep_dedup_per_node", raw.ep_dedup_per_node)
        if raw.efficiency_ceiling is not None:
            object.__setattr__(
                self, "efficiency_ceiling", check_number("efficiency_ceiling", raw.efficiency_ceiling, gt=0, le=1)
            )
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

    def overlap(self, dimension: str) -> float:
        """Share of ``dimension``'s communication (dp, pp, cp, tp, ep) hidden under compute."""
        dim = check_choice("dimension", dimension, tuple(OVERLAP_DEFAULTS))
        if self.overlap_fraction is not None:
            return self.overlap_fraction
        value: float = getattr(self, f"overlap_{dim}")
        return value

    def tokens_per_sequence(self, model: ModelSpec) -> int:
        """The sequence length in force: this workload's, else the model's."""
        return self.seq_len if self.seq_len is not None else model.seq_len

    def serving_workload(self, model: ModelSpec) -> Any:
        """This workload as a :class:`coursekit.serving.ServingWorkload`: ``global_batch`` concurrent requests of
        ``tokens_per_sequence(model)`` prompt tokens and ``output_tokens`` output tokens, weights in the recipe's
        parameter bytes, the KV cache in bf16, the same runtime reserve. The planner's serving mode searches it with
        :func:`coursekit.serving.plan_serving` — there is one serving estimate.

        >>> from coursekit.presets import MODELS
        >>> w = WorkloadSpec(global_batch=64, seq_len=2048, mode="serving").serving_workload(MODELS["llama3-70b"])
        >>> w.concurrency, w.prompt_tokens, w.output_tokens, w.weight_bytes, w.kv_bytes
        (64, 2048, 256, 2.0, 2)

        Taught in: lesson 10 (serving).
        """
        from ..serving import ServingWorkload  # serving imports the planner's specs

        return ServingWorkload(
            prompt_tokens=self.tokens_per_sequence(model),
            output_tokens=self.output_tokens,
            concurrency=self.global_batch,
            weight_bytes=float(PRECISION_RECIPES[self.recipe].param_bytes),
            kv_bytes=ACTIVATION_BYTES,
            runtime_reserve_gib=self.runtime_reserve_gib,
        )


# --------------------------------------------------------------------------- Megatron-LM's own formulas


def megatron_paper_param_count(layers: int, hidden: int, vocab: int = 51200, seq_len: int = 2048) -> float:
    """Parameters of a GPT model by Megatron-LM's formula: P = 12·l·h²·(1 + 13/(12h) + (V + s)/(12·l·h)).

    Narayanan et al. 2021 (arXiv:2104.04473), §5.1; Table 1 uses V = 51200 and s = 2048.

    >>> round(megatron_paper_param_count(128, 25600) / 1e9, 1)  # the 1T model of Table 1
    1008.0

    Taught in: lesson 9 (decision workbench).
    """
    l_ = check_int("layers", layers, ge=1, le=1 << 20)
    h = check_int("hidden", hidden, ge=1, le=1 << 20)
    v = check_int("vocab", vocab, ge=1, le=MAX_SEQ_LEN)
    s = check_int("seq_len", seq_len, ge=1, le=MAX_SEQ_LEN)
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
    l_ = check_int("layers", layers, ge=1, le=1 << 20)
    h = check_int("hidden", hidden, ge=1, le=1 << 20)
    b = check_int("global_batch", global_batch, ge=1, le=MAX_GLOBAL_BATCH)
    v = check_int("vocab", vocab, ge=1, le=MAX_SEQ_LEN)
    s = check_int("seq_len", seq_len, ge=1, le=MAX_SEQ_LEN)
    return 96 * b * s * l_ * h * h * (1 + s / (6 * h) + v / (16 * l_ * h))
