"""Q3 hard gates: exclude parallel-strategy candidates by declared, measurable constraints.

A candidate publishes what it needs (memory per rank, workload modes, model
structures, link scope, whether it splits the context, its execution role); an
environment publishes what it offers. Each gate compares one requirement with
one offer and returns a :class:`~coursekit.i18n.Reason` or ``None``. A
candidate is accepted only when every gate passes. There is no blended score:
a rejection always says which rule failed and by how much.

The gates run in the order lesson 3 teaches: fit, interconnect, structure,
context, serving. The serving gate is two checks: the workload *mode* first
(``mode``), then the execution role (``serving``). :data:`GATES` lists all six
in order.

This module also holds the degree rules of the selection matrix (lesson 5),
which reject a *degree* rather than a candidate: the global batch (:func:`check_global_batch`), the TP degree
(:func:`check_tp_degree`) and the PP degree (:func:`check_pp_degree`).

>>> report = evaluate_candidate(EXAMPLE_CANDIDATES[0], EXAMPLE_ENVIRONMENT)
>>> report.accepted, report.codes
(False, ('memory',))
>>> print(report.reasons[0].message)
per-rank memory 29.0 GiB exceeds device memory 24.0 GiB

Taught in: lesson 3 (Q3 gates); the degree rules in lesson 5 (selection matrix).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, TypeAlias

from ._validate import (
    check_bool,
    check_choice,
    check_divides,
    check_int,
    check_items,
    check_number,
    learner_arguments,
    learner_functions,
)
from .i18n import Reason, Text, register, tr
from .specs import MAX_GLOBAL_BATCH
from .units import telling_digits

# --------------------------------------------------------------------------- vocabulary

#: Workload modes a candidate may declare: ``'training'`` / ``'serving'``.
MODES: tuple[str, ...] = ("training", "serving")

#: Model structures: ``'dense'`` / ``'moe'``.
MODEL_KINDS: tuple[str, ...] = ("dense", "moe")

#: Link scopes from weakest to strongest (ranked by :data:`LINK_SCOPE_ORDER`).
#: ``none``: no link between the ranks is promised; ``cross_node``: the ranks
#: talk over the inter-node network; ``intra_node``: the ranks share a node's
#: fast links (e.g. NVLink). A stronger scope satisfies a weaker requirement.
LINK_SCOPES: tuple[str, ...] = ("none", "cross_node", "intra_node")

#: The ranking of link scopes: a higher number is a stronger link.
LINK_SCOPE_ORDER: Mapping[str, int] = MappingProxyType({"none": 0, "cross_node": 1, "intra_node": 2})

#: Execution roles for the serving gate. ``training-sync``: the copies
#: synchronize training state (gradients) every step, like DP / ZeRO.
#: ``serving-replica``: independent copies that each answer their own requests
#: and never synchronize. Candidates that split the model (TP, PP, CP, EP)
#: declare no role.
ROLES: tuple[str, ...] = ("training-sync", "serving-replica")

#: One fixed English phrase per rejection code, for scripts that match English
#: reasons without numbers. The messages of :class:`~coursekit.i18n.Reason`
#: carry the numbers; the codes map 1:1 to these phrases.
REASON_TEXTS_EN: Mapping[str, str] = MappingProxyType(
    {
        "memory": "per-rank memory exceeds device memory",
        "mode": "workload mode is unsupported",
        "structure": "model structure is unsupported",
        "interconnect": "interconnect scope is insufficient",
    }
)

#: Reason codes that warn rather than exclude (an uneven pipeline split still runs).
WARNING_CODES: frozenset[str] = frozenset({"pp_balance"})


register(
    {
        "gates.memory": {
            "zh": "每个 rank 需要 {need_gib:.{digits}f~} GiB，超过设备显存 {have_gib:.{digits}f~} GiB",
            "en": "per-rank memory {need_gib:.{digits}f~} GiB exceeds device memory {have_gib:.{digits}f~} GiB",
        },
        "gates.mode": {
            "zh": "工作负载模式 {mode!r} 不在 {name} 声明的模式 `{modes}` 之中"
            "（模式代码：'training' 训练，'serving' 服务）",
            "en": "workload mode {mode!r} is not among the modes {name} declares ({modes})",
        },
        "gates.structure": {
            "zh": "模型结构 {kind!r} 不受支持：{name} 只适用于 {kinds}"
            "（结构代码：'dense' 稠密模型，'moe' 混合专家 (MoE) 模型）",
            "en": "model structure {kind!r} is unsupported: {name} applies to {kinds} only "
            "(structure codes: 'dense' a dense model, 'moe' a mixture-of-experts (MoE) model)",
        },
        "gates.interconnect": {
            "zh": "链路域 {have!r} 弱于 {name} 要求的 {need!r}"
            "（由弱到强：'none' 无保证 < 'cross_node' 跨节点 < 'intra_node' 节点内）",
            "en": "link scope {have!r} is weaker than the {need!r} that {name} requires "
            "(weakest to strongest: none < cross_node < intra_node)",
        },
        "gates.context_unknown": {
            "zh": "{name} 切分上下文，但环境没有声明上下文长度和单卡可容纳的注意力状态"
            "（context_len、max_context_per_device）：无法证明需要上下文并行 (context parallelism, CP)",
            "en": "{name} splits the context, but the environment declares no context length and no per-device "
            "attention capacity (context_len, max_context_per_device): nothing shows that context "
            "parallelism (CP) is needed",
        },
        "gates.context_short": {
            "zh": "上下文 {context_len:,} token 不超过单卡注意力状态上限 {max_tokens:,} token："
            "{name} 只会增加每层的注意力状态交换，却没有要解决的容量缺口",
            "en": "a context of {context_len:,@token} fits one device's attention state ({max_tokens:,@token}): "
            "{name} would add per-layer attention-state exchange with no capacity gap to close",
        },
        "gates.serving_replica_in_training": {
            "zh": "{name} 是服务副本 (serving replica)，不是训练数据并行 (data parallelism, DP)："
            "副本之间不同步梯度，不能承担训练负载",
            "en": "{name} is a serving replica, not training data parallelism (DP): replicas never synchronize "
            "gradients, so they cannot carry a training workload",
        },
        "gates.training_sync_in_serving": {
            "zh": "{name} 每步同步训练状态；服务负载分发的是相互独立的请求，应先评估副本 (Replica) 路由",
            "en": "{name} synchronizes training state every step; a serving workload distributes independent "
            "requests, so evaluate Replica routing instead",
        },
        "gates.global_batch": {
            "zh": "dp {dp} × 微批次 {micro_batch} × 梯度累积 (gradient accumulation) {grad_accum} "
            "= {product} 条序列，但全局批大小是 {global_batch}",
            "en": "dp {dp} × micro-batch {micro_batch} × gradient accumulation {grad_accum} = "
            "{product:@sequence}, but the global batch is {global_batch}",
        },
        "gates.tp_heads": {
            "zh": "tp = {tp} 不能整除 {heads} 个注意力头 (attention heads)：每个张量并行 (TP) rank 必须持有整数个头",
            "en": "tp = {tp} does not divide the {heads:@attention head}: every TP rank must hold whole heads",
        },
        "gates.tp_leaves_node": {
            "zh": "tp = {tp} 超过每节点 {gpus_per_node} 张 GPU：张量并行 (TP) 组会离开节点内高速互连，"
            "每层的集合通信都要走跨节点链路",
            "en": "tp = {tp} exceeds the {gpus_per_node:@GPU} per node: the TP group would leave the fast "
            "intra-node domain and run every layer's collectives over the inter-node link",
        },
        "gates.tp_straddles_node": {
            "zh": "tp = {tp} 不能整除每节点 {gpus_per_node} 张 GPU："
            "按连续 rank 放置时，部分张量并行 (TP) 组会横跨两个节点",
            "en": "tp = {tp} does not divide the {gpus_per_node:@GPU} per node: with contiguous ranks some TP "
            "groups straddle two nodes",
        },
        "gates.pp_layers": {
            "zh": "pp = {pp} 超过 {layers} 层：每个流水线阶段 (stage) 至少需要一层",
            "en": "pp = {pp} exceeds the {layers:@layer}: every pipeline stage needs at least one layer",
        },
        "gates.pp_balance": {
            "zh": "{layers} 层无法平均分到 pp = {pp} 个阶段（每阶段 {low} 到 {high} 层）：最慢的阶段决定节奏",
            "en": "{layers:@layer} do not split evenly over pp = {pp:@stage} ({low} to {high:@layer} per "
            "stage): the slowest stage sets the pace",
        },
        "gates.type_set": {
            "zh": "{name} = {value!r}：必须是字符串集合（如 {{'training'}}），而不是 {type}。",
            "en": "{name} = {value!r}: must be a set of strings such as {{'training'}}, not {type}.",
        },
        "gates.empty_set": {
            "zh": "{name} = {value!r}：至少要包含 {choices} 之一。",
            "en": "{name} = {value!r}: must contain at least one of {choices}.",
        },
        "gates.type_name": {
            "zh": "{name} = {value!r}：必须是非空字符串。",
            "en": "{name} = {value!r}: must be a non-empty string.",
        },
        "gates.type_text": {
            "zh": "{name} = {value!r}：必须是 coursekit.Text 或 None，而不是 {type}。",
            "en": "{name} = {value!r}: must be a coursekit.Text or None, not {type}.",
        },
        "gates.type_mapping": {
            "zh": "{name} = {value!r}：必须是 {expected} 或字典 (Mapping)，而不是 {type}。",
            "en": "{name} = {value!r}: must be a {expected} or a Mapping, not {type}.",
        },
        "gates.missing_keys": {
            "zh": "{name} 缺少键 {keys}。",
            "en": "{name} is missing the key(s) {keys}.",
        },
        "gates.unknown_keys": {
            "zh": "{name} 含有未知键 {keys}；可用的键是 {allowed}。",
            "en": "{name} has unknown key(s) {keys}; the keys are {allowed}.",
        },
    }
)


# --------------------------------------------------------------------------- helpers


def _type_name(value: Any) -> str:
    return type(value).__name__


def _check_name(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise (TypeError if not isinstance(value, str) else ValueError)(tr("gates.type_name", name=name, value=value))
    return value


def _check_string_set(name: str, value: Any, choices: tuple[str, ...]) -> frozenset[str]:
    if isinstance(value, str) or not isinstance(value, (set, frozenset, list, tuple)):
        raise TypeError(tr("gates.type_set", name=name, value=value, type=_type_name(value)))
    items = frozenset(check_choice(tr("validate.item_of", name=name), item, choices) for item in value)
    if not items:
        raise ValueError(tr("gates.empty_set", name=name, value=value, choices=", ".join(map(repr, choices))))
    return items


def _check_text(name: str, value: Any) -> Text | None:
    if value is not None and not isinstance(value, Text):
        raise TypeError(tr("gates.type_text", name=name, value=value, type=_type_name(value)))
    return value


def _check_keys(name: str, data: Mapping[str, Any], required: tuple[str, ...], optional: tuple[str, ...]) -> None:
    missing = [key for key in required if key not in data]
    if missing:
        raise ValueError(tr("gates.missing_keys", name=name, keys=", ".join(map(repr, missing))))
    allowed = (*required, *optional)
    unknown = sorted(str(key) for key in data if key not in allowed)
    if unknown:
        raise ValueError(
            tr(
                "gates.unknown_keys",
                name=name,
                keys=", ".join(map(repr, unknown)),
                allowed=", ".join(map(repr, allowed)),
            )
        )


def _join(items: frozenset[str], order: tuple[str, ...], *, quoted: bool = False) -> str:
    """Join a set in the vocabulary's order, so messages are reproducible (``quoted``: each as a code, 'moe')."""
    return ", ".join(repr(item) if quoted else item for item in order if item in items)


# --------------------------------------------------------------------------- candidate, environment


@learner_arguments()
@dataclass(frozen=True)
class Candidate:
    """A parallel-strategy candidate and the hard requirements it declares.

    Parameters:
        name: the strategy's name, e.g. ``"TP"``.
        memory_per_rank_gib: memory one rank needs under this strategy, GiB (>= 0).
        modes: workload modes it supports, a set drawn from :data:`MODES`.
        model_kinds: model structures it applies to, drawn from :data:`MODEL_KINDS`.
        required_link_scope: the weakest link scope its group can live with (:data:`LINK_SCOPES`).
        splits_context: ``True`` for context parallelism (CP), which the context gate admits only
            when the context exceeds one device's attention state.
        role: ``"training-sync"`` (copies that synchronize state, DP / ZeRO), ``"serving-replica"``
            (independent serving copies) or ``None`` for strategies that split the model.
        description: an optional bilingual one-liner for tables.

    Sets may be given as ``set``, ``frozenset``, ``list`` or ``tuple``; they are stored as ``frozenset``.

    >>> Candidate("TP", 16, {"training", "serving"}, {"dense", "moe"}, "intra_node").modes == {"training", "serving"}
    True
    >>> Candidate("TP", -1, {"training"}, {"dense"}, "intra_node")
    Traceback (most recent call last):
    ...
    ValueError: memory_per_rank_gib = -1: must be >= 0.

    Taught in: lesson 3 (Q3 gates).
    """

    name: str
    memory_per_rank_gib: float
    modes: frozenset[str]
    model_kinds: frozenset[str]
    required_link_scope: str
    splits_context: bool = False
    role: str | None = None
    description: Text | None = None

    def __post_init__(self) -> None:
        raw: Any = self
        _check_name("name", raw.name)
        object.__setattr__(
            self, "memory_per_rank_gib", check_number("memory_per_rank_gib", raw.memory_per_rank_gib, ge=0)
        )
        object.__setattr__(self, "modes", _check_string_set("modes", raw.modes, MODES))
        object.__setattr__(self, "model_kinds", _check_string_set("model_kinds", raw.model_kinds, MODEL_KINDS))
        check_choice("required_link_scope", raw.required_link_scope, LINK_SCOPES)
        check_bool("splits_context", raw.splits_context)
        if raw.role is not None:
            check_choice("role", raw.role, ROLES)
        _check_text("description", raw.description)

    _REQUIRED: ClassVar[tuple[str, ...]] = (
        "name",
        "memory_per_rank_gib",
        "modes",
        "model_kinds",
        "required_link_scope",
    )
    _OPTIONAL: ClassVar[tuple[str, ...]] = ("splits_context", "role", "description")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Candidate:
        """Build a candidate from a plain dict.

        The five keys without a default are required; ``splits_context``, ``role`` and
        ``description`` may be added; any other key is refused by name.

        >>> Candidate.from_dict({'name': 'EP', 'memory_per_rank_gib': 14, 'modes': {'training', 'serving'},
        ...                      'model_kinds': {'moe'}, 'required_link_scope': 'intra_node'}).model_kinds
        frozenset({'moe'})
        """
        if not isinstance(data, Mapping):
            raise TypeError(
                tr("gates.type_mapping", name="candidate", value=data, expected="Candidate", type=_type_name(data))
            )
        _check_keys("candidate", data, cls._REQUIRED, cls._OPTIONAL)
        return cls(**{key: data[key] for key in (*cls._REQUIRED, *cls._OPTIONAL) if key in data})


@learner_arguments()
@dataclass(frozen=True)
class Environment:
    """What the current cluster and workload offer to the gates.

    Parameters:
        memory_per_device_gib: memory of one device, GiB (> 0).
        mode: the workload, ``"training"`` or ``"serving"``.
        model_kind: ``"dense"`` or ``"moe"``.
        link_scope: the strongest link scope the candidate's group can be placed on (:data:`LINK_SCOPES`).
        context_len: tokens per sequence, or ``None`` if not declared.
        max_context_per_device: tokens whose attention state (activations, KV) fits one device,
            or ``None`` if not measured.

    >>> Environment(24, "training", "dense", "intra_node").link_scope
    'intra_node'
    >>> Environment(24, "inference", "dense", "intra_node")
    Traceback (most recent call last):
    ...
    ValueError: mode = 'inference': must be one of 'training', 'serving'.

    Taught in: lesson 3 (Q3 gates).
    """

    memory_per_device_gib: float
    mode: str
    model_kind: str
    link_scope: str
    context_len: int | None = None
    max_context_per_device: int | None = None

    def __post_init__(self) -> None:
        raw: Any = self
        object.__setattr__(
            self, "memory_per_device_gib", check_number("memory_per_device_gib", raw.memory_per_device_gib, gt=0)
        )
        check_choice("mode", raw.mode, MODES)
        check_choice("model_kind", raw.model_kind, MODEL_KINDS)
        check_choice("link_scope", raw.link_scope, LINK_SCOPES)
        if raw.context_len is not None:
            check_int("context_len", raw.context_len, ge=1)
        if raw.max_context_per_device is not None:
            check_int("max_context_per_device", raw.max_context_per_device, ge=1)

    _REQUIRED: ClassVar[tuple[str, ...]] = ("memory_per_device_gib", "mode", "model_kind", "link_scope")
    _OPTIONAL: ClassVar[tuple[str, ...]] = ("context_len", "max_context_per_device")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Environment:
        """Build an environment from a plain dict (the four keys without a default are required).

        >>> Environment.from_dict({'memory_per_device_gib': 24, 'mode': 'training', 'model_kind': 'dense',
        ...                        'link_scope': 'intra_node'}).memory_per_device_gib
        24.0
        """
        if not isinstance(data, Mapping):
            raise TypeError(
                tr("gates.type_mapping", name="environment", value=data, expected="Environment", type=_type_name(data))
            )
        _check_keys("environment", data, cls._REQUIRED, cls._OPTIONAL)
        return cls(**{key: data[key] for key in (*cls._REQUIRED, *cls._OPTIONAL) if key in data})


#: A :class:`Candidate` or its plain dict (:meth:`Candidate.from_dict`).
CandidateLike: TypeAlias = "Candidate | Mapping[str, Any]"
#: An :class:`Environment` or its plain dict (:meth:`Environment.from_dict`).
EnvironmentLike: TypeAlias = "Environment | Mapping[str, Any]"


def _as_candidate(value: Any, name: str = "candidate") -> Candidate:
    if isinstance(value, Candidate):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(tr("gates.type_mapping", name=name, value=value, expected="Candidate", type=_type_name(value)))
    return Candidate.from_dict(value)


def _as_environment(value: Any) -> Environment:
    return value if isinstance(value, Environment) else Environment.from_dict(value)


# --------------------------------------------------------------------------- the gates


def gate_memory(candidate: CandidateLike, environment: EnvironmentLike) -> Reason | None:
    """Fit gate: the candidate's memory per rank must not exceed the device's memory (GiB).

    Equality passes (only ``>`` rejects).

    >>> env = Environment(24, "training", "dense", "intra_node")
    >>> print(gate_memory(Candidate("DP", 29, {"training"}, {"dense"}, "cross_node"), env))
    [memory] per-rank memory 29.0 GiB exceeds device memory 24.0 GiB
    >>> gate_memory(Candidate("ZeRO-3", 24, {"training"}, {"dense"}, "cross_node"), env) is None
    True

    Taught in: lesson 3 (Q3 gates, fit gate).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    if cand.memory_per_rank_gib > env.memory_per_device_gib:
        return memory_reason(cand.memory_per_rank_gib, env.memory_per_device_gib)
    return None


def memory_reason(need_gib: float, have_gib: float) -> Reason:
    """The fit gate's reason: ``need_gib`` per rank exceeds ``have_gib``, both shown with one decimal, or as many
    more as it takes for the two to read differently (:func:`coursekit.units.telling_digits`).

    >>> memory_reason(29.0, 24.0).message
    'per-rank memory 29.0 GiB exceeds device memory 24.0 GiB'
    >>> memory_reason(80.04, 80.0).message
    'per-rank memory 80.04 GiB exceeds device memory 80.00 GiB'
    """
    need_gib, have_gib = check_number("need_gib", need_gib, ge=0), check_number("have_gib", have_gib, ge=0)
    digits = telling_digits(need_gib, have_gib)
    return Reason("memory", "gates.memory", {"need_gib": need_gib, "have_gib": have_gib, "digits": digits})


def gate_interconnect(candidate: CandidateLike, environment: EnvironmentLike) -> Reason | None:
    """Interconnect gate: the environment's link scope must be at least the candidate's requirement.

    Scopes rank ``none < cross_node < intra_node`` (:data:`LINK_SCOPE_ORDER`).

    >>> tp = Candidate("TP", 16, {"training"}, {"dense"}, "intra_node")
    >>> print(gate_interconnect(tp, Environment(24, "training", "dense", "cross_node")).code)
    interconnect

    Taught in: lesson 3 (Q3 gates, interconnect gate).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    if LINK_SCOPE_ORDER[env.link_scope] < LINK_SCOPE_ORDER[cand.required_link_scope]:
        return Reason(
            "interconnect",
            "gates.interconnect",
            {"name": cand.name, "have": env.link_scope, "need": cand.required_link_scope},
        )
    return None


def gate_structure(candidate: CandidateLike, environment: EnvironmentLike) -> Reason | None:
    """Structure gate: the model's structure (dense or MoE) must be one the candidate applies to.

    >>> ep = Candidate("EP", 14, {"training"}, {"moe"}, "intra_node")
    >>> print(gate_structure(ep, Environment(24, "training", "dense", "intra_node")).message)
    model structure 'dense' is unsupported: EP applies to 'moe' only (structure codes: 'dense' a dense model, 'moe' a
    mixture-of-experts (MoE) model)

    Taught in: lesson 3 (Q3 gates, structure gate).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    if env.model_kind not in cand.model_kinds:
        return Reason(
            "structure",
            "gates.structure",
            {"name": cand.name, "kind": env.model_kind, "kinds": _join(cand.model_kinds, MODEL_KINDS, quoted=True)},
        )
    return None


def gate_context(candidate: CandidateLike, environment: EnvironmentLike) -> Reason | None:
    """Context gate: a context-splitting candidate (CP) enters only when the context exceeds one device.

    The rule lesson 3 teaches is "CP enters the candidates only when one device
    cannot hold the attention state". We make it a hard gate in both directions
    of evidence: a CP candidate is rejected when the context fits one device
    (``context_len <= max_context_per_device``: CP would pay a per-layer
    attention-state exchange and close no capacity gap), and when the
    environment does not declare the two numbers (nothing shows CP is needed).
    Candidates that do not split the context pass; their memory, including
    activations, is the fit gate's business.

    >>> cp = Candidate("CP", 12, {"training"}, {"dense"}, "intra_node", splits_context=True)
    >>> long = Environment(24, "training", "dense", "intra_node", context_len=131072, max_context_per_device=32768)
    >>> gate_context(cp, long) is None
    True
    >>> short = Environment(24, "training", "dense", "intra_node", context_len=4096, max_context_per_device=32768)
    >>> print(gate_context(cp, short).message)
    a context of 4,096 tokens fits one device's attention state (32,768 tokens):
    CP would add per-layer attention-state exchange with no capacity gap to close

    Taught in: lesson 3 (Q3 gates, context gate).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    if not cand.splits_context:
        return None
    if env.context_len is None or env.max_context_per_device is None:
        return Reason("context", "gates.context_unknown", {"name": cand.name})
    if env.context_len <= env.max_context_per_device:
        return Reason(
            "context",
            "gates.context_short",
            {"name": cand.name, "context_len": env.context_len, "max_tokens": env.max_context_per_device},
        )
    return None


def gate_mode(candidate: CandidateLike, environment: EnvironmentLike) -> Reason | None:
    """Mode gate (first half of the serving gate): the workload mode must be one the candidate declares.

    Its fixed English phrase is ``'workload mode is unsupported'`` (:data:`REASON_TEXTS_EN`).

    >>> dp = Candidate("DP", 10, {"training"}, {"dense"}, "cross_node")
    >>> print(gate_mode(dp, Environment(24, "serving", "dense", "intra_node")).message)
    workload mode 'serving' is not among the modes DP declares (training)

    Taught in: lesson 3 (Q3 gates, serving gate).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    if env.mode not in cand.modes:
        return Reason("mode", "gates.mode", {"name": cand.name, "mode": env.mode, "modes": _join(cand.modes, MODES)})
    return None


def gate_serving(candidate: CandidateLike, environment: EnvironmentLike) -> Reason | None:
    """Serving gate: the candidate's execution role must match the workload.

    Serving replicas and training DP both copy the model, but DP synchronizes
    gradients every step and replicas never do. A ``serving-replica`` candidate
    is rejected for training even if it (mistakenly) declares the training
    mode; a ``training-sync`` candidate is rejected for serving, where Replica
    routing is evaluated first. Candidates with no
    role (they split the model: TP, PP, EP, CP) pass.

    >>> replica = Candidate("Replica", 20, {"training", "serving"}, {"dense"}, "none", role="serving-replica")
    >>> print(gate_serving(replica, Environment(24, "training", "dense", "intra_node")).message)
    Replica is a serving replica, not training data parallelism (DP):
    replicas never synchronize gradients, so they cannot carry a training workload

    Taught in: lesson 3 (Q3 gates, serving gate).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    if cand.role == "serving-replica" and env.mode == "training":
        return Reason("serving", "gates.serving_replica_in_training", {"name": cand.name})
    if cand.role == "training-sync" and env.mode == "serving":
        return Reason("serving", "gates.training_sync_in_serving", {"name": cand.name})
    return None


#: The signature every gate shares: ``(candidate, environment) -> Reason | None``.
GateCheck: TypeAlias = Callable[[CandidateLike, EnvironmentLike], "Reason | None"]


class Gate(NamedTuple):
    """One hard gate: its stable ``code``, the ``check`` function and a bilingual ``description``."""

    code: str
    check: GateCheck
    description: Text


#: The gates in the order lesson 3 teaches. The fifth gate ("serving") is two
#: checks: the declared mode, then the execution role.
GATES: tuple[Gate, ...] = (
    Gate(
        "memory",
        gate_memory,
        Text(
            zh="容量门槛 (fit gate)：每个 rank 的显存需求不超过单设备显存",
            en="Fit gate: the memory one rank needs does not exceed one device's memory",
        ),
    ),
    Gate(
        "interconnect",
        gate_interconnect,
        Text(
            zh="互连门槛 (interconnect gate)：环境的链路域不弱于候选要求的链路域",
            en="Interconnect gate: the environment's link scope is at least the scope the candidate requires",
        ),
    ),
    Gate(
        "structure",
        gate_structure,
        Text(
            zh="结构门槛 (structure gate)：模型是稠密 (dense) 还是混合专家 (MoE)，候选必须适用",
            en="Structure gate: the candidate applies to the model's structure (dense or MoE)",
        ),
    ),
    Gate(
        "context",
        gate_context,
        Text(
            zh="上下文门槛 (context gate)：只有单卡放不下注意力状态时，上下文并行 (CP) 才进入候选",
            en="Context gate: context parallelism (CP) enters only when one device cannot hold the attention state",
        ),
    ),
    Gate(
        "mode",
        gate_mode,
        Text(
            zh="服务门槛第 1 部分：工作负载模式（训练或服务）在候选声明的模式之中",
            en="Serving gate, part 1: the workload mode (training or serving) is one the candidate declares",
        ),
    ),
    Gate(
        "serving",
        gate_serving,
        Text(
            zh="服务门槛第 2 部分：服务副本 (Replica) 不是训练数据并行 (DP)，同步训练状态的候选不用于服务",
            en="Serving gate, part 2: a serving Replica is not training DP, and state-synchronizing "
            "candidates do not serve",
        ),
    ),
)


@dataclass(frozen=True)
class CandidateReport:
    """The outcome of all gates for one candidate: accepted only if ``reasons`` is empty.

    ``reasons`` holds one :class:`~coursekit.i18n.Reason` per failed gate, in gate order.
    """

    name: str
    accepted: bool
    reasons: tuple[Reason, ...]

    @property
    def codes(self) -> tuple[str, ...]:
        """The stable codes of the failed gates, in gate order."""
        return tuple(reason.code for reason in self.reasons)


def evaluate_candidate(candidate: CandidateLike, environment: EnvironmentLike) -> CandidateReport:
    """Run every gate of :data:`GATES` in order and report each failure; no blended score.

    Accepts :class:`Candidate` / :class:`Environment` or their plain dicts.

    >>> [evaluate_candidate(c, EXAMPLE_ENVIRONMENT).accepted for c in EXAMPLE_CANDIDATES]
    [False, True, True, False]
    >>> evaluate_candidate(EXAMPLE_CANDIDATES[3], EXAMPLE_ENVIRONMENT).codes
    ('structure',)

    Taught in: lesson 3 (Q3 gates).
    """
    cand, env = _as_candidate(candidate), _as_environment(environment)
    reasons = tuple(reason for gate in GATES if (reason := gate.check(cand, env)) is not None)
    return CandidateReport(cand.name, not reasons, reasons)


def evaluate_candidates(
    candidates: Iterable[CandidateLike], environment: EnvironmentLike
) -> tuple[CandidateReport, ...]:
    """:func:`evaluate_candidate` for each candidate, in the given order.

    >>> [r.name for r in evaluate_candidates(EXAMPLE_CANDIDATES, EXAMPLE_ENVIRONMENT) if r.accepted]
    ['ZeRO-3', 'TP']

    Taught in: lesson 3 (Q3 gates).
    """
    env = _as_environment(environment)
    return tuple(
        evaluate_candidate(_as_candidate(candidate, f"candidates[{index}]"), env)
        for index, candidate in enumerate(check_items("candidates", candidates))
    )


# --------------------------------------------------------------------------- the course's example

#: The environment of lesson 3's example: 24 GiB devices, dense training, intra-node links.
EXAMPLE_ENVIRONMENT: Environment = Environment(
    memory_per_device_gib=24, mode="training", model_kind="dense", link_scope="intra_node"
)

#: The four candidates of lesson 3's example (illustrative memory figures per rank).
EXAMPLE_CANDIDATES: tuple[Candidate, ...] = (
    Candidate(
        "DP",
        29,
        frozenset({"training"}),
        frozenset({"dense", "moe"}),
        "cross_node",
        description=Text(
            zh="数据并行 (data parallelism, DP)：每卡完整复制训练状态",
            en="Data parallelism: every rank holds the full training state",
        ),
    ),
    Candidate(
        "ZeRO-3",
        18,
        frozenset({"training"}),
        frozenset({"dense", "moe"}),
        "cross_node",
        description=Text(
            zh="ZeRO-3：参数、梯度和优化器状态都分片",
            en="ZeRO-3: parameters, gradients and optimizer state are all sharded",
        ),
    ),
    Candidate(
        "TP",
        16,
        frozenset({"training", "serving"}),
        frozenset({"dense", "moe"}),
        "intra_node",
        description=Text(
            zh="张量并行 (tensor parallelism, TP)：层内张量切分",
            en="Tensor parallelism: tensors are split inside each layer",
        ),
    ),
    Candidate(
        "EP",
        14,
        frozenset({"training", "serving"}),
        frozenset({"moe"}),
        "intra_node",
        description=Text(
            zh="专家并行 (expert parallelism, EP)：专家分布到不同 rank",
            en="Expert parallelism: experts are spread over ranks",
        ),
    ),
)

#: The course's further candidates (illustrative numbers for lesson 3): PP,
#: a context-splitting CP candidate and a serving Replica, so that every gate
#: has a candidate it can reject.
COURSE_CANDIDATES: tuple[Candidate, ...] = (
    Candidate(
        "PP",
        15,
        frozenset({"training", "serving"}),
        frozenset({"dense", "moe"}),
        "cross_node",
        description=Text(
            zh="流水线并行 (pipeline parallelism, PP)：按层分段",
            en="Pipeline parallelism: layers are split into stages",
        ),
    ),
    Candidate(
        "CP",
        12,
        frozenset({"training", "serving"}),
        frozenset({"dense", "moe"}),
        "intra_node",
        splits_context=True,
        description=Text(
            zh="上下文并行 (context parallelism, CP)：按序列切分", en="Context parallelism: the sequence is split"
        ),
    ),
    Candidate(
        "Replica",
        20,
        frozenset({"serving"}),
        frozenset({"dense", "moe"}),
        "none",
        role="serving-replica",
        description=Text(
            zh="服务副本 (Replica)：独立副本分发请求", en="Serving replicas: independent copies take requests"
        ),
    ),
)


# --------------------------------------------------------------------------- former names, kept importable

#: Former name of :data:`EXAMPLE_ENVIRONMENT`.
SEED_ENVIRONMENT: Environment = EXAMPLE_ENVIRONMENT
#: Former name of :data:`EXAMPLE_CANDIDATES`.
SEED_CANDIDATES: tuple[Candidate, ...] = EXAMPLE_CANDIDATES
#: Former name of :data:`REASON_TEXTS_EN`.
SEED_REASON_TEXTS: Mapping[str, str] = REASON_TEXTS_EN


# --------------------------------------------------------------------------- degree rules (selection matrix)


def check_global_batch(dp: int, micro_batch: int, grad_accum: int, global_batch: int) -> Reason | None:
    """Batch rule: ``dp · micro_batch · grad_accum`` must equal the global batch (sequences).

    A large DP degree forces either a larger global batch or a smaller micro-batch
    per rank. Megatron-Core enforces the same rule: its
    micro-batch calculator asserts that the global batch is divisible by
    micro-batch × data-parallel size (NVIDIA/Megatron-LM
    ``megatron/core/num_microbatches_calculator.py``).

    >>> check_global_batch(8, 4, 2, 64) is None
    True
    >>> print(check_global_batch(16, 4, 2, 64).message)
    dp 16 × micro-batch 4 × gradient accumulation 2 = 128 sequences, but the global batch is 64

    Taught in: lesson 5 (selection matrix).
    """
    dp = check_int("dp", dp, ge=1)
    micro_batch = check_int("micro_batch", micro_batch, ge=1)
    grad_accum = check_int("grad_accum", grad_accum, ge=1)
    global_batch = check_int("global_batch", global_batch, ge=1)
    product = dp * micro_batch * grad_accum
    if product != global_batch:
        return Reason(
            "global_batch",
            "gates.global_batch",
            {
                "dp": dp,
                "micro_batch": micro_batch,
                "grad_accum": grad_accum,
                "product": product,
                "global_batch": global_batch,
            },
        )
    return None


def dp_degrees_for_batch(global_batch: int, micro_batch: int) -> tuple[int, ...]:
    """Every DP degree the global batch admits at this micro-batch (ascending).

    ``dp`` is admissible when ``dp · micro_batch`` divides ``global_batch``; the
    gradient accumulation is then ``global_batch / (dp · micro_batch)``.

    A ``micro_batch`` that does not divide ``global_batch`` admits no DP degree at all
    (not even ``dp = 1``: no whole number of micro-batches makes the batch), so it is
    refused with the same ``ValueError`` as :func:`max_dp_degree` gives: the message
    names the rule to fix rather than an empty tuple that hides it, as Megatron-Core
    refuses it (``num_microbatches_calculator.py`` asserts the divisibility). Every
    answer is then a non-empty tuple, and ``max(dp_degrees_for_batch(g, m)) ==
    max_dp_degree(g, m)``.

    ``global_batch`` is at most :data:`MAX_GLOBAL_BATCH` sequences (the divisors
    are listed one by one).

    >>> dp_degrees_for_batch(64, 4)
    (1, 2, 4, 8, 16)
    >>> dp_degrees_for_batch(64, 3)
    Traceback (most recent call last):
    ...
    ValueError: micro_batch = 3: must divide global_batch = 64.

    Taught in: lesson 5 (selection matrix).
    """
    global_batch = check_int("global_batch", global_batch, ge=1, le=MAX_GLOBAL_BATCH)
    micro_batch = check_int("micro_batch", micro_batch, ge=1)
    check_divides("micro_batch", micro_batch, "global_batch", global_batch)
    per_micro = global_batch // micro_batch
    small = [dp for dp in range(1, math.isqrt(per_micro) + 1) if per_micro % dp == 0]
    return tuple(sorted({*small, *(per_micro // dp for dp in small)}))


def max_dp_degree(global_batch: int, micro_batch: int = 1) -> int:
    """The largest DP degree a global batch allows: ``global_batch / micro_batch`` (no accumulation).

    A ``micro_batch`` that does not divide ``global_batch`` admits no DP degree (see
    :func:`dp_degrees_for_batch`, which refuses it with the same message): there is no
    largest one to return, so it is a ``ValueError`` naming the rule.

    >>> max_dp_degree(1024, 4)
    256
    >>> max_dp_degree(64, 3)
    Traceback (most recent call last):
    ...
    ValueError: micro_batch = 3: must divide global_batch = 64.

    Taught in: lesson 5 (selection matrix).
    """
    global_batch = check_int("global_batch", global_batch, ge=1)
    micro_batch = check_int("micro_batch", micro_batch, ge=1)
    check_divides("micro_batch", micro_batch, "global_batch", global_batch)
    return global_batch // micro_batch


def check_tp_degree(tp: int, heads: int, gpus_per_node: int) -> Reason | None:
    """TP rule: TP must divide the attention heads and stay inside one node's fast links.

    Checked in this order, first failure returned: ``tp_heads`` when ``tp`` does not
    divide ``heads``; ``interconnect`` when ``tp > gpus_per_node`` (the group leaves
    the node) or when ``tp`` does not divide ``gpus_per_node`` (with contiguous
    ranks some groups straddle two nodes). The heads rule is Megatron-Core's:
    ``num_attention_heads_per_partition = divide(num_attention_heads, tp)``, which
    refuses a remainder (NVIDIA/Megatron-LM ``megatron/core/transformer/attention.py``).

    >>> check_tp_degree(8, 32, 8) is None
    True
    >>> print(check_tp_degree(3, 32, 8))
    [tp_heads] tp = 3 does not divide the 32 attention heads: every TP rank must hold whole heads
    >>> check_tp_degree(16, 32, 8).code
    'interconnect'

    Taught in: lesson 5 (selection matrix).
    """
    tp = check_int("tp", tp, ge=1)
    heads = check_int("heads", heads, ge=1)
    gpus_per_node = check_int("gpus_per_node", gpus_per_node, ge=1)
    if heads % tp:
        return Reason("tp_heads", "gates.tp_heads", {"tp": tp, "heads": heads})
    if tp > gpus_per_node:
        return Reason("interconnect", "gates.tp_leaves_node", {"tp": tp, "gpus_per_node": gpus_per_node})
    if gpus_per_node % tp:
        return Reason("interconnect", "gates.tp_straddles_node", {"tp": tp, "gpus_per_node": gpus_per_node})
    return None


def check_pp_degree(pp: int, layers: int) -> Reason | None:
    """PP rule: at most one stage per layer (``pp_layers``); warn on an uneven split (``pp_balance``).

    ``pp_balance`` is in :data:`WARNING_CODES`: an uneven split runs, but the
    stage with the most layers sets the pipeline's pace.

    >>> check_pp_degree(4, 32) is None
    True
    >>> check_pp_degree(40, 32).code
    'pp_layers'
    >>> print(check_pp_degree(3, 32).message)
    32 layers do not split evenly over pp = 3 stages (10 to 11 layers per stage):
    the slowest stage sets the pace

    Taught in: lesson 5 (selection matrix).
    """
    return _pp_rule(check_int("pp", pp, ge=1), check_int("layers", layers, ge=1))


def _pp_rule(pp: int, layers: int) -> Reason | None:
    """:func:`check_pp_degree` on checked arguments."""
    if pp > layers:
        return Reason("pp_layers", "gates.pp_layers", {"pp": pp, "layers": layers})
    if layers % pp:
        low = layers // pp
        return Reason("pp_balance", "gates.pp_balance", {"pp": pp, "layers": layers, "low": low, "high": low + 1})
    return None


learner_functions(globals())
