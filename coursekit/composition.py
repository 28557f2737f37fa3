"""Q4 composition checks: do the chosen degrees fit the ranks, the model and each other?

Two counting rules live here, and lesson 4 shows why they differ:

* The naive rule (:func:`validate_parallel_composition`): every
  dimension multiplies, so ``{'TP': 4, 'PP': 2, 'EP': 2}`` needs 16 ranks.
* The engine's rule (Megatron-Core, :func:`megatron_world_size`): expert
  parallelism (EP) *reuses* data-parallel ranks. The dense layers lay the world
  out as TP·CP·DP·PP; the expert layers re-fold the same ranks as
  ETP·EP·EDP·PP, where ETP (expert tensor parallel) defaults to TP and EDP
  (expert data parallel) is whatever is left. So the world is TP·CP·DP·PP and
  ETP·EP·PP must divide it (with ETP = TP: EP divides DP·CP).

Source for the engine's rule and for :func:`rank_groups`: NVIDIA/Megatron-LM,
``megatron/core/parallel_state.py`` (read at commit 00caa53a):
``initialize_model_parallel`` sets ``data_parallel_size = world_size //
(tp · pp · cp)``, builds a decoder ``RankGenerator(tp, ep=1, dp, pp, cp)`` and an
expert ``RankGenerator(tp=expert_tensor_parallel_size, ep, dp=world //
(etp · ep · pp), pp, cp=1)``, default order ``"tp-cp-ep-dp-pp"``, and asserts
that both generators give the same pipeline groups.

>>> validate_parallel_composition({'TP': 4, 'PP': 2, 'DP': 2}, 16, 'dense').valid
True
>>> compare_ep_rules({'TP': 4, 'PP': 2, 'DP': 2, 'EP': 2}).naive_required_ranks
32
>>> compare_ep_rules({'TP': 4, 'PP': 2, 'DP': 2, 'EP': 2}).engine_world_size
16

Taught in: lesson 4 (Q4 composition).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._validate import check_choice, check_int, learner_functions
from .gates import MODEL_KINDS
from .i18n import Reason, Text, register, tr

#: Dimensions the naive composition check (:func:`validate_parallel_composition`) accepts.
DIMENSIONS: tuple[str, ...] = ("DP", "TP", "PP", "CP", "EP", "Replica")

#: Dimensions that get rank groups in a training engine (Megatron-Core's
#: tp, cp, ep, dp, pp). ``Replica`` is a serving role, not a rank group.
ENGINE_DIMENSIONS: tuple[str, ...] = ("TP", "CP", "EP", "DP", "PP")

#: Megatron-Core's default rank order (``initialize_model_parallel(order="tp-cp-ep-dp-pp")``):
#: the first dimension varies fastest across consecutive ranks.
DEFAULT_ORDER: str = "TP-CP-EP-DP-PP"

#: Dimensions whose per-layer collectives need the fast intra-node links; a
#: group of these that crosses a node is flagged by :func:`topology_report`.
FAST_DOMAIN_DIMENSIONS: tuple[str, ...] = ("TP",)

register(
    {
        "composition.ranks": {
            "zh": "需要 {required} 个 rank，但只有 {available} 个可用",
            "en": "requires {required:@rank} but only {available} are available",
        },
        "composition.ranks_idle": {
            "zh": "只用到 {required} 个 rank，而集群有 {available} 个：TP × CP × PP × DP 必须等于 rank 总数"
            "（Megatron-Core 由 rank 总数 / (TP × CP × PP) 得出 DP），否则 {idle} 个 rank 闲置，"
            "估算的吞吐量也只是 {required} 个 GPU 的；例如 dp = {dp} 用满集群",
            "en": "uses {required} of the {available:@rank}: TP × CP × PP × DP must equal the world size "
            "(Megatron-Core derives DP = world size / (TP × CP × PP)); otherwise {idle:@rank} sit idle and the "
            "estimated throughput is that of {required:@GPU}; e.g. dp = {dp} fills the cluster",
        },
        "composition.ranks_idle_no_dp": {
            "zh": "只用到 {required} 个 rank，而集群有 {available} 个：TP × CP × PP × DP 必须等于 rank 总数"
            "（Megatron-Core 由 rank 总数 / (TP × CP × PP) 得出 DP），否则 {idle} 个 rank 闲置；"
            "{available} 不能被 TP × CP × PP = {model_ranks} 整除，没有哪个 DP 能用满集群",
            "en": "uses {required} of the {available:@rank}: TP × CP × PP × DP must equal the world size "
            "(Megatron-Core derives DP = world size / (TP × CP × PP)); otherwise {idle:@rank} sit idle; "
            "{available} is not divisible by TP × CP × PP = {model_ranks}, so no DP fills the cluster",
        },
        "composition.replicas_idle": {
            "zh": "只用到 {required} 个 rank，而集群有 {available} 个：副本数 × TP × PP 必须等于 rank 总数，"
            "否则 {idle} 个 rank 闲置，估算的吞吐量也只是 {required} 个 GPU 的",
            "en": "uses {required} of the {available:@rank}: replicas × TP × PP must equal the world size; "
            "otherwise {idle:@rank} sit idle and the estimated throughput is that of {required:@GPU}",
        },
        "composition.structure": {
            "zh": "EP = {ep} > 1 需要混合专家 (MoE) 模型，而当前模型是稠密模型（model_kind = {kind!r}）",
            "en": "EP = {ep} > 1 requires an MoE model, but the model is {kind!r}",
        },
        "composition.roles": {
            "zh": "Replica = {replica} 与 DP = {dp} 同时出现：服务副本和训练数据并行 (DP) 都复制模型，"
            "但 DP 每步同步梯度、副本从不同步，二者是不同的执行角色",
            "en": "Replica = {replica} together with DP = {dp}: serving replicas and training data parallelism "
            "(DP) both copy the model, but DP synchronizes gradients every step and replicas never do; "
            "they are distinct execution roles",
        },
        "composition.ep_fold": {
            "zh": "在 Megatron-Core 中专家并行 (EP) 复用数据并行的 rank：专家层把同样的 {world} 个 rank 重新排成 "
            "ETP·EP·EDP·PP，而 ETP·EP·PP = {etp}·{ep}·{pp} = {product} 不能整除 {world}：减小 EP，或增大 DP、CP"
            "（ETP = TP 时，EP 要整除 DP·CP）",
            "en": "in Megatron-Core expert parallelism (EP) reuses data-parallel ranks: the expert layers re-fold "
            "the same {world:@rank} as ETP·EP·EDP·PP, and ETP·EP·PP = {etp}·{ep}·{pp} = {product} "
            "does not divide {world}: lower EP, or raise DP or CP (with ETP = TP, EP must divide DP·CP)",
        },
        "composition.unknown_dims": {
            "zh": "未知的并行维度 {dims}：可用的维度是 {supported}。",
            "en": "unknown parallel dimension(s) {dims}: the supported ones are {supported}.",
        },
        "composition.duplicate_dim": {
            "zh": "degrees = {value!r}：维度 {dim} 出现了不止一次（不区分大小写）；每个维度只能给一个并行度。",
            "en": "degrees = {value!r}: dimension {dim} is given more than once (case does not matter); give each "
            "dimension one degree.",
        },
        "composition.type_degrees": {
            "zh": "degrees = {value!r}：必须是维度到并行度的字典，如 {{'TP': 4, 'DP': 2}}，而不是 {type}。",
            "en": "degrees = {value!r}: must be a mapping of dimension to degree such as {{'TP': 4, 'DP': 2}}, "
            "not {type}.",
        },
        "composition.replica_not_engine": {
            "zh": "Replica = {replica}：服务副本是服务层的角色，不是训练引擎的 rank 组维度；"
            "请分别规划每个副本内的并行。",
            "en": "Replica = {replica}: a serving replica is a serving-side role, not a rank-group dimension of "
            "a training engine; plan the parallelism inside one replica instead.",
        },
        "composition.order_type": {
            "zh": "order = {value!r}：必须是用 '-' 连接的维度名字符串，如 'TP-CP-EP-DP-PP'，而不是 {type}。",
            "en": "order = {value!r}: must be a string of dimension names joined by '-', such as "
            "'TP-CP-EP-DP-PP', not {type}.",
        },
        "composition.order_unknown": {
            "zh": "order = {value!r}：{token!r} 不是维度名；可用的是 {known}。",
            "en": "order = {value!r}: {token!r} is not a dimension; the dimensions are {known}.",
        },
        "composition.order_repeat": {
            "zh": "order = {value!r}：维度 {token} 出现了不止一次。",
            "en": "order = {value!r}: dimension {token} appears more than once.",
        },
        "composition.order_missing": {
            "zh": "order = {value!r}：{dim} = {degree} > 1，但顺序字符串中没有 {dim}。",
            "en": "order = {value!r}: {dim} = {degree} > 1 but {dim} is not in the order.",
        },
        "composition.order_pp_last": {
            "zh": "order = {value!r}：PP > 1 且不在最后时，Megatron-Core 要求专家层的数据并行度 "
            "EDP = {edp} 等于稠密层的数据并行度 DP = {dp}。",
            "en": "order = {value!r}: with PP > 1 and PP not last, Megatron-Core requires the expert layers' "
            "data-parallel size EDP = {edp} to equal the dense layers' DP = {dp}.",
        },
        "composition.order_pp_groups": {
            "zh": "order = {value!r}：专家层与稠密层的流水线并行 (PP) 组不一致，Megatron-Core 不接受；"
            "请把 PP 放在最后。",
            "en": "order = {value!r}: the expert layers' pipeline (PP) groups differ from the dense layers', "
            "which Megatron-Core refuses; put PP last.",
        },
        "composition.rank_in_groups": {"zh": "`groups[{dim!r}]` 中的 rank", "en": "rank in groups[{dim!r}]"},
        "composition.type_groups": {
            "zh": "groups = {value!r}：必须是维度到 rank 列表的列表的字典，如 rank_groups() 的结果。",
            "en": "groups = {value!r}: must map each dimension to a list of rank lists, as rank_groups() returns.",
        },
        "composition.group_crosses_nodes": {
            "zh": "{dim} 的 {total} 个组中有 {count} 个跨节点（例如 {example} 位于节点 {nodes}）："
            "{dim} 每层的集合通信会走慢速的跨节点链路",
            "en": "{count} of {total} {dim} groups span more than one node (e.g. {example} on nodes {nodes}): "
            "{dim}'s per-layer collectives would cross the slow inter-node link",
        },
    }
)


#: Most ranks :func:`rank_groups`, :func:`expert_rank_groups` and :func:`topology_report`
#: list one by one (TP·CP·DP·PP): enough for every layout the course draws, small enough
#: that each call answers well under a second.
MAX_RANKS: int = 4096

register(
    {
        "composition.too_many_ranks": {
            "zh": "degrees = {value!r}：共 {world} 个 rank（TP·CP·DP·PP），逐个列出 rank 时最多 {limit} 个。",
            "en": "degrees = {value!r}: {world:@rank} (TP·CP·DP·PP); listing ranks one by one allows at most {limit}.",
        },
    }
)

# --------------------------------------------------------------------------- helpers


def _check_degrees(degrees: Any, supported: tuple[str, ...]) -> dict[str, int]:
    """Validate a ``{dimension: degree}`` mapping; return a plain dict of ints."""
    if not isinstance(degrees, Mapping):
        raise TypeError(tr("composition.type_degrees", value=degrees, type=type(degrees).__name__))
    canonical = {name.lower(): name for name in supported}  # 'tp' or 'TP' (the planner's spelling) is TP
    unknown = sorted(str(dim) for dim in degrees if not isinstance(dim, str) or dim.lower() not in canonical)
    if unknown:
        raise ValueError(
            tr("composition.unknown_dims", dims=unknown, supported=", ".join(supported)),
        )
    checked: dict[str, int] = {}
    for dim, degree in degrees.items():
        name = canonical[dim.lower()]
        if name in checked:
            raise ValueError(tr("composition.duplicate_dim", value=dict(degrees), dim=name))
        checked[name] = check_int(f"degrees[{dim!r}]", degree, ge=1)
    return checked


# --------------------------------------------------------------------------- the naive rule


@dataclass(frozen=True)
class CompositionReport:
    """Naive-rule result (Q4): ranks needed, whether the plan is valid, and each issue as a coded reason.

    Codes: ``ranks`` (more ranks needed than available), ``structure`` (EP > 1
    on a dense model), ``roles`` (Replica > 1 together with DP > 1).
    """

    required_ranks: int
    valid: bool
    issues: tuple[Reason, ...]

    @property
    def codes(self) -> tuple[str, ...]:
        """The stable codes of the issues, in check order."""
        return tuple(issue.code for issue in self.issues)


def validate_parallel_composition(
    degrees: Mapping[str, int], available_ranks: int, model_kind: str
) -> CompositionReport:
    """Check a plan the naive way: ranks = product of all degrees (EP included), plus structure and roles.

    Parameters:
        degrees: ``{dimension: degree}`` over :data:`DIMENSIONS`; missing dimensions are 1.
        available_ranks: ranks (devices) on hand, >= 1.
        model_kind: ``"dense"`` or ``"moe"``.

    Dimension names are read case-insensitively (``tp`` is TP); unknown ones raise ``ValueError`` naming them; a
    degree that is not an ``int`` (``bool`` and ``4.0`` included) raises ``TypeError``, one below 1
    ``ValueError``. Spare ranks are not an issue (they stay idle).

    >>> validate_parallel_composition({'TP': 4, 'PP': 2, 'EP': 2}, 8, 'dense').codes
    ('ranks', 'structure')
    >>> validate_parallel_composition({'XP': 2}, 8, 'dense')
    Traceback (most recent call last):
    ...
    ValueError: unknown parallel dimension(s) ['XP']: the supported ones are DP, TP, PP, CP, EP, Replica.

    Taught in: lesson 4 (Q4 composition).
    """
    checked = _check_degrees(degrees, DIMENSIONS)
    available_ranks = check_int("available_ranks", available_ranks, ge=1)
    model_kind = check_choice("model_kind", model_kind, MODEL_KINDS)
    required = math.prod(checked.values())
    issues: list[Reason] = []
    if required > available_ranks:
        issues.append(Reason("ranks", "composition.ranks", {"required": required, "available": available_ranks}))
    ep = checked.get("EP", 1)
    if ep > 1 and model_kind != "moe":
        issues.append(Reason("structure", "composition.structure", {"ep": ep, "kind": model_kind}))
    replica, dp = checked.get("Replica", 1), checked.get("DP", 1)
    if replica > 1 and dp > 1:
        issues.append(Reason("roles", "composition.roles", {"replica": replica, "dp": dp}))
    return CompositionReport(required, not issues, tuple(issues))


# --------------------------------------------------------------------------- the engine's rule


@dataclass(frozen=True)
class MegatronLayout:
    """Megatron-Core's view of a plan: one world, folded two ways.

    Dense layers: ``world_size = tp · cp · dp · pp``. Expert layers: the same
    ranks as ``expert_tensor_parallel · ep · expert_data_parallel · pp``.
    ``expert_data_parallel`` is ``None`` when EP does not fold (then ``valid``
    is ``False`` and ``issues`` has an ``ep_fold`` reason).
    """

    world_size: int
    tp: int
    cp: int
    dp: int
    pp: int
    ep: int
    expert_tensor_parallel: int
    expert_data_parallel: int | None
    valid: bool
    issues: tuple[Reason, ...]

    @property
    def codes(self) -> tuple[str, ...]:
        """The stable codes of the issues."""
        return tuple(issue.code for issue in self.issues)


def validate_megatron_composition(
    tp: int,
    pp: int,
    dp: int,
    cp: int = 1,
    ep: int = 1,
    etp: int | None = None,
    *,
    model_kind: str = "moe",
    available_ranks: int | None = None,
) -> MegatronLayout:
    """Check a plan Megatron-Core's way: EP is carved out of the data-parallel ranks.

    Parameters:
        tp, pp, dp, cp: the dense layers' degrees; the world is their product.
        ep: expert-parallel degree; with ``etp`` (expert tensor parallel, default ``tp``)
            ``etp · ep · pp`` must divide the world (``ep_fold``).
        model_kind: ``"moe"`` or ``"dense"`` (EP > 1 on dense: ``structure``).
        available_ranks: if given, a world larger than this is a ``ranks`` issue.

    Source: NVIDIA/Megatron-LM ``megatron/core/parallel_state.py``,
    ``initialize_model_parallel`` (expert ``RankGenerator`` and its divisibility check).

    >>> layout = validate_megatron_composition(tp=4, pp=2, dp=2, ep=2)
    >>> layout.world_size, layout.expert_data_parallel, layout.valid
    (16, 1, True)
    >>> validate_megatron_composition(tp=4, pp=2, dp=1, ep=2).codes
    ('ep_fold',)

    Taught in: lesson 4 (Q4 composition, the engine's rule).
    """
    tp = check_int("tp", tp, ge=1)
    pp = check_int("pp", pp, ge=1)
    dp = check_int("dp", dp, ge=1)
    cp = check_int("cp", cp, ge=1)
    ep = check_int("ep", ep, ge=1)
    etp = tp if etp is None else check_int("etp", etp, ge=1)
    model_kind = check_choice("model_kind", model_kind, MODEL_KINDS)
    world = tp * cp * dp * pp
    issues: list[Reason] = []
    if available_ranks is not None:
        available = check_int("available_ranks", available_ranks, ge=1)
        if world > available:
            issues.append(Reason("ranks", "composition.ranks", {"required": world, "available": available}))
    expert_block = etp * ep * pp
    expert_dp: int | None = world // expert_block
    if world % expert_block:
        expert_dp = None
        issues.append(
            Reason(
                "ep_fold",
                "composition.ep_fold",
                {"world": world, "etp": etp, "ep": ep, "pp": pp, "product": expert_block},
            )
        )
    if ep > 1 and model_kind != "moe":
        issues.append(Reason("structure", "composition.structure", {"ep": ep, "kind": model_kind}))
    return MegatronLayout(world, tp, cp, dp, pp, ep, etp, expert_dp, not issues, tuple(issues))


def megatron_world_size(tp: int, pp: int, dp: int, cp: int = 1, ep: int = 1, etp: int | None = None) -> int:
    """Ranks a Megatron-Core plan occupies: ``tp · cp · dp · pp`` (EP reuses DP ranks, adds none).

    Raises ``ValueError`` (the ``ep_fold`` message) when ``etp · ep · pp`` does not
    divide that world, i.e. (with ``etp = tp``) when EP does not divide ``dp · cp``.

    >>> megatron_world_size(tp=4, pp=2, dp=2, ep=2)
    16
    >>> megatron_world_size(tp=2, pp=1, dp=3, ep=2)
    Traceback (most recent call last):
    ...
    ValueError: in Megatron-Core expert parallelism (EP) reuses data-parallel ranks: the expert layers re-fold
    the same 6 ranks as ETP·EP·EDP·PP, and ETP·EP·PP = 2·2·1 = 4 does not divide 6: lower EP, or raise DP or CP
    (with ETP = TP, EP must divide DP·CP)

    Taught in: lesson 4 (Q4 composition, the engine's rule).
    """
    layout = validate_megatron_composition(tp, pp, dp, cp, ep, etp)
    for issue in layout.issues:
        if issue.code == "ep_fold":
            raise ValueError(issue.message)
    return layout.world_size


@dataclass(frozen=True)
class EpRuleComparison:
    """The same degrees counted two ways (naive rule vs engine), for lesson 4.

    ``naive_required_ranks`` multiplies every degree (EP included);
    ``engine_world_size`` is TP·CP·DP·PP (EP folded into DP·CP).
    ``engine_valid`` is ``False`` when EP does not fold (see ``engine_issues``).
    """

    naive_required_ranks: int
    engine_world_size: int
    expert_tensor_parallel: int
    expert_data_parallel: int | None
    engine_valid: bool
    engine_issues: tuple[Reason, ...]

    @property
    def difference_ranks(self) -> int:
        """How many more ranks the naive rule asks for than the engine uses."""
        return self.naive_required_ranks - self.engine_world_size

    @property
    def seed_required_ranks(self) -> int:
        """Former name of :attr:`naive_required_ranks`, kept importable."""
        return self.naive_required_ranks


def compare_ep_rules(degrees: Mapping[str, int], etp: int | None = None) -> EpRuleComparison:
    """Count the ranks of a plan by the naive rule and by Megatron-Core's, side by side.

    ``degrees`` uses :data:`ENGINE_DIMENSIONS` (missing ones are 1); ``Replica``
    is refused (not an engine dimension). ``etp`` defaults to TP.

    >>> c = compare_ep_rules({'TP': 4, 'PP': 2, 'EP': 2})
    >>> c.naive_required_ranks, c.engine_world_size, c.engine_valid
    (16, 8, False)

    Taught in: lesson 4 (Q4 composition, the engine's rule).
    """
    checked = _engine_degrees(degrees)
    layout = validate_megatron_composition(
        tp=checked["TP"], pp=checked["PP"], dp=checked["DP"], cp=checked["CP"], ep=checked["EP"], etp=etp
    )
    return EpRuleComparison(
        naive_required_ranks=math.prod(checked.values()),
        engine_world_size=layout.world_size,
        expert_tensor_parallel=layout.expert_tensor_parallel,
        expert_data_parallel=layout.expert_data_parallel,
        engine_valid=layout.valid,
        engine_issues=layout.issues,
    )


# --------------------------------------------------------------------------- rank groups


def _engine_degrees(degrees: Any) -> dict[str, int]:
    if isinstance(degrees, Mapping) and "Replica" in degrees:
        replica = check_int("degrees['Replica']", degrees["Replica"], ge=1)
        if replica > 1:
            raise ValueError(tr("composition.replica_not_engine", replica=replica))
        degrees = {dim: degree for dim, degree in degrees.items() if dim != "Replica"}
    checked = _check_degrees(degrees, ENGINE_DIMENSIONS)
    return {dim: checked.get(dim, 1) for dim in ENGINE_DIMENSIONS}


def _parse_order(order: Any, degrees: Mapping[str, int]) -> list[str]:
    """Parse ``"TP-CP-EP-DP-PP"`` (any case); append missing size-1 dimensions, as Megatron-Core does.

    The dimensions given come first, in the given order; size-1 dimensions left
    out are appended (they change no group).
    """
    if not isinstance(order, str):
        raise TypeError(tr("composition.order_type", value=order, type=type(order).__name__))
    tokens = [token.strip().upper() for token in order.split("-")]
    seen: list[str] = []
    for token in tokens:
        if token not in ENGINE_DIMENSIONS:
            raise ValueError(
                tr("composition.order_unknown", value=order, token=token, known=", ".join(ENGINE_DIMENSIONS))
            )
        if token in seen:
            raise ValueError(tr("composition.order_repeat", value=order, token=token))
        seen.append(token)
    for dim in ENGINE_DIMENSIONS:
        if dim not in seen:
            if degrees[dim] != 1:
                raise ValueError(tr("composition.order_missing", value=order, dim=dim, degree=degrees[dim]))
            seen.append(dim)
    return seen


def _groups_along(order: Sequence[str], sizes: Mapping[str, int], dim: str) -> list[list[int]]:
    """Groups of ranks that differ only in ``dim``; the first dimension of ``order`` is the fastest.

    A rank's coordinates ``(i_0, i_1, ...)`` along ``order`` give
    ``rank = i_0 + i_1·s_0 + i_2·s_0·s_1 + ...``. A group fixes every coordinate
    but ``dim``'s. Groups are listed by their first rank, ascending.
    """
    strides: dict[str, int] = {}
    stride = 1
    for name in order:
        strides[name] = stride
        stride *= sizes[name]
    others = [name for name in order if name != dim]
    groups: list[list[int]] = []
    for index in range(stride // sizes[dim]):
        base, rest = 0, index
        for name in others:
            base += (rest % sizes[name]) * strides[name]
            rest //= sizes[name]
        groups.append([base + k * strides[dim] for k in range(sizes[dim])])
    return groups


def _expert_sizes(checked: Mapping[str, int]) -> tuple[dict[str, int], int]:
    """Expert-layer sizes (ETP in the TP slot, EDP in the DP slot, CP = 1) and the world size."""
    layout = validate_megatron_composition(
        tp=checked["TP"], pp=checked["PP"], dp=checked["DP"], cp=checked["CP"], ep=checked["EP"], etp=checked["ETP"]
    )
    fold_issues = [issue for issue in layout.issues if issue.code == "ep_fold"]
    if fold_issues or layout.expert_data_parallel is None:
        raise ValueError(fold_issues[0].message)
    sizes = {
        "TP": layout.expert_tensor_parallel,
        "CP": 1,
        "EP": layout.ep,
        "DP": layout.expert_data_parallel,
        "PP": layout.pp,
    }
    return sizes, layout.world_size


def _prepare(degrees: Any, order: Any) -> tuple[dict[str, int], list[str]]:
    etp_raw = degrees.get("ETP") if isinstance(degrees, Mapping) else None
    if isinstance(degrees, Mapping) and "ETP" in degrees:
        degrees = {dim: degree for dim, degree in degrees.items() if dim != "ETP"}
    checked = _engine_degrees(degrees)
    world = checked["TP"] * checked["CP"] * checked["DP"] * checked["PP"]
    if world > MAX_RANKS:
        raise ValueError(tr("composition.too_many_ranks", value=dict(degrees), world=world, limit=MAX_RANKS))
    checked["ETP"] = checked["TP"] if etp_raw is None else check_int("degrees['ETP']", etp_raw, ge=1)
    parsed = _parse_order(order, checked)
    return checked, parsed


def _expert_groups(checked: Mapping[str, int], parsed: Sequence[str], order: str) -> dict[str, list[list[int]]]:
    dense_sizes = {dim: (1 if dim == "EP" else checked[dim]) for dim in ENGINE_DIMENSIONS}
    expert_sizes, _ = _expert_sizes(checked)
    given = [token.strip().upper() for token in order.split("-")]
    pp_last = given[-1] == "PP" or checked["PP"] == 1  # Megatron-Core tests the order as given
    if not pp_last and expert_sizes["DP"] != checked["DP"]:
        raise ValueError(tr("composition.order_pp_last", value=order, edp=expert_sizes["DP"], dp=checked["DP"]))
    expert_pp = _groups_along(parsed, expert_sizes, "PP")
    if expert_pp != _groups_along(parsed, dense_sizes, "PP"):
        raise ValueError(tr("composition.order_pp_groups", value=order))
    return {
        "ETP": _groups_along(parsed, expert_sizes, "TP"),
        "EP": _groups_along(parsed, expert_sizes, "EP"),
        "EDP": _groups_along(parsed, expert_sizes, "DP"),
        "PP": expert_pp,
    }


def rank_groups(degrees: Mapping[str, int], order: str = DEFAULT_ORDER) -> dict[str, list[list[int]]]:
    """The rank groups of every dimension, laid out the way Megatron-Core's ``RankGenerator`` does.

    Parameters:
        degrees: ``{dimension: degree}`` over ``TP, CP, EP, DP, PP`` (missing ones are 1) and
            optionally ``ETP`` (expert tensor parallel, default TP). ``Replica`` > 1 is refused.
        order: dimensions joined by ``-``, fastest-varying first (default ``"TP-CP-EP-DP-PP"``);
            case-insensitive; each dimension at most once; dimensions left out must have degree 1.

    Returns ``{"TP": [...], "CP": [...], "EP": [...], "DP": [...], "PP": [...]}``; every
    value partitions the ranks ``0 .. world-1`` into groups of that dimension's degree.
    Every rank is listed, so the world (TP·CP·DP·PP) is at most :data:`MAX_RANKS`.

    EP follows the engine (decided here, as in Megatron-Core): it does not multiply
    the world. TP, CP, DP and PP groups come from the dense layers' layout
    (world = TP·CP·DP·PP); EP groups come from the expert layers' re-folding of
    the same ranks as ETP·EP·EDP·PP (see :func:`expert_rank_groups`).

    Reference (Megatron-Core ``initialize_model_parallel`` docstring): 16 GPUs,
    TP = 2, PP = 4, hence DP = 2:

    >>> groups = rank_groups({"TP": 2, "PP": 4, "DP": 2})
    >>> groups["TP"][:3], groups["DP"][:3]
    ([[0, 1], [2, 3], [4, 5]], [[0, 2], [1, 3], [4, 6]])
    >>> groups["PP"]
    [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]]

    Taught in: lesson 4 (Q4 composition, mapping to ranks).
    """
    checked, parsed = _prepare(degrees, order)
    dense_sizes = {dim: (1 if dim == "EP" else checked[dim]) for dim in ENGINE_DIMENSIONS}
    expert = _expert_groups(checked, parsed, order)
    return {
        "TP": _groups_along(parsed, dense_sizes, "TP"),
        "CP": _groups_along(parsed, dense_sizes, "CP"),
        "EP": expert["EP"],
        "DP": _groups_along(parsed, dense_sizes, "DP"),
        "PP": _groups_along(parsed, dense_sizes, "PP"),
    }


def expert_rank_groups(degrees: Mapping[str, int], order: str = DEFAULT_ORDER) -> dict[str, list[list[int]]]:
    """The expert layers' groups: ``ETP``, ``EP``, ``EDP`` (expert data parallel) and ``PP``.

    Megatron-Core lays the expert layers over the same ranks with CP = 1, ETP in
    TP's place and EDP = world / (ETP·EP·PP) in DP's place.

    >>> g = expert_rank_groups({"TP": 2, "DP": 4, "EP": 2})
    >>> g["EP"][:2], g["EDP"][:2]
    ([[0, 2], [1, 3]], [[0, 4], [1, 5]])

    Taught in: lesson 4 (Q4 composition, the engine's rule).
    """
    checked, parsed = _prepare(degrees, order)
    return _expert_groups(checked, parsed, order)


# --------------------------------------------------------------------------- groups -> nodes


@dataclass(frozen=True)
class NodeMapping:
    """Which node each rank sits on, and which groups span more than one node.

    Ranks are placed contiguously: rank ``r`` is on node ``r // gpus_per_node``
    (Megatron-Core's docstring asks callers to keep adjacent ranks in one box).
    ``node_of_rank[r]`` is rank ``r``'s node; ``crossing[dim]`` lists ``dim``'s
    groups that span several nodes; ``crosses[dim]`` says whether any does.
    """

    gpus_per_node: int
    num_nodes: int
    node_of_rank: tuple[int, ...]
    crossing: dict[str, list[list[int]]]
    crosses: dict[str, bool]


def map_groups_to_nodes(groups: Mapping[str, Sequence[Sequence[int]]], gpus_per_node: int) -> NodeMapping:
    """Place ranks on nodes of ``gpus_per_node`` devices and flag the groups that cross a node boundary.

    Ranks run from 0 to :data:`MAX_RANKS` - 1 (every rank up to the largest is placed).

    >>> m = map_groups_to_nodes(rank_groups({"TP": 2, "PP": 4, "DP": 2}), gpus_per_node=8)
    >>> m.crosses["TP"], m.crosses["DP"], m.crosses["PP"]
    (False, False, True)
    >>> m.crossing["PP"][0]
    [0, 4, 8, 12]

    Taught in: lesson 4 (Q4 composition, topology mapping).
    """
    gpus_per_node = check_int("gpus_per_node", gpus_per_node, ge=1)
    if not isinstance(groups, Mapping):
        raise TypeError(tr("composition.type_groups", value=groups))
    cleaned: dict[str, list[list[int]]] = {}
    raw: Mapping[str, Any] = groups  # checked item by item: learners pass lists built in notebooks
    for dim, dim_groups in raw.items():
        if isinstance(dim_groups, (str, bytes)) or not isinstance(dim_groups, Sequence):
            raise TypeError(tr("composition.type_groups", value=groups))
        rows: list[list[int]] = []
        for group in dim_groups:
            if isinstance(group, (str, bytes)) or not isinstance(group, Sequence):
                raise TypeError(tr("composition.type_groups", value=groups))
            name = tr("composition.rank_in_groups", dim=dim)
            rows.append([check_int(name, rank, ge=0, le=MAX_RANKS - 1) for rank in group])
        cleaned[str(dim)] = rows
    world = 1 + max((rank for rows in cleaned.values() for group in rows for rank in group), default=-1)
    node_of_rank = tuple(rank // gpus_per_node for rank in range(world))
    crossing = {
        dim: [group for group in rows if len({node_of_rank[rank] for rank in group}) > 1]
        for dim, rows in cleaned.items()
    }
    return NodeMapping(
        gpus_per_node=gpus_per_node,
        num_nodes=-(-world // gpus_per_node),
        node_of_rank=node_of_rank,
        crossing=crossing,
        crosses={dim: bool(rows) for dim, rows in crossing.items()},
    )


@dataclass(frozen=True)
class TopologyReport:
    """Rank groups, their node mapping, and a coded reason for each fast-domain dimension that crosses nodes."""

    groups: dict[str, list[list[int]]]
    mapping: NodeMapping
    reasons: tuple[Reason, ...]

    @property
    def ok(self) -> bool:
        """``True`` when no fast-domain group (TP) crosses a node."""
        return not self.reasons


def topology_report(degrees: Mapping[str, int], gpus_per_node: int, order: str = DEFAULT_ORDER) -> TopologyReport:
    """:func:`rank_groups` plus :func:`map_groups_to_nodes`, flagging TP groups that leave a node.

    Each dimension of :data:`FAST_DOMAIN_DIMENSIONS` whose groups cross a node
    gets one ``interconnect`` reason naming how many groups cross and an example.

    >>> topology_report({"TP": 8, "DP": 2}, gpus_per_node=8).ok
    True
    >>> bad = topology_report({"TP": 8, "DP": 2}, gpus_per_node=8, order="DP-TP-PP")
    >>> print(bad.reasons[0].message)
    2 of 2 TP groups span more than one node (e.g. [0, 2, 4, 6, 8, 10, 12, 14] on nodes 0, 1):
    TP's per-layer collectives would cross the slow inter-node link

    Taught in: lesson 4 (Q4 composition, topology mapping).
    """
    groups = rank_groups(degrees, order)
    mapping = map_groups_to_nodes(groups, gpus_per_node)
    reasons: list[Reason] = []
    for dim in FAST_DOMAIN_DIMENSIONS:
        crossing = mapping.crossing[dim]
        if crossing:
            example = crossing[0]
            nodes = sorted({mapping.node_of_rank[rank] for rank in example})
            reasons.append(
                Reason(
                    "interconnect",
                    "composition.group_crosses_nodes",
                    {
                        "dim": dim,
                        "count": len(crossing),
                        "total": len(groups[dim]),
                        "example": example,
                        # a Chinese list of numbers takes the enumeration comma: 节点 0、1
                        "nodes": Text(zh="、".join(map(str, nodes)), en=", ".join(map(str, nodes))),
                    },
                )
            )
    return TopologyReport(groups, mapping, tuple(reasons))


learner_functions(globals())
