"""Exercises of lesson 4 (composition and risk, question Q4 of the course): rank counts two ways, rank
groups, groups on nodes.

Every expected answer is computed with :mod:`coursekit.composition` from the
inputs named below.

>>> from coursekit.exercises import get_exercise
>>> get_exercise("q4.naive_ranks").expected_value(), get_exercise("q4.engine_ranks").expected_value()
(64, 16)
>>> get_exercise("q4.dp_group").expected_value()
[5, 7]

Taught in: lesson 4 (Q4 composition and risk).
"""

from __future__ import annotations

from collections.abc import Callable

from .._validate import learner_functions
from ..composition import compare_ep_rules, rank_groups, topology_report
from ..i18n import Text
from . import Exercise, Slip, any_mistake, mistake, register

#: q4.naive_ranks / q4.engine_ranks: a MoE plan with context parallelism; EP = 4 folds into DP·CP = 4.
EP_PLAN: dict[str, int] = {"TP": 2, "CP": 2, "PP": 2, "DP": 2, "EP": 4}

#: q4.dp_group: Megatron-Core's reference layout (16 GPUs, TP = 2, PP = 4, so DP = 2), default order.
REFERENCE_DEGREES: dict[str, int] = {"TP": 2, "PP": 4, "DP": 2}
DP_GROUP_RANK: int = 5

#: q4.tp_crosses: TP = 4, DP = 4 on nodes of 8 GPUs, laid out with DP varying fastest.
CROSS_DEGREES: dict[str, int] = {"TP": 4, "DP": 4}
CROSS_GPUS_PER_NODE: int = 8
CROSS_ORDER: str = "DP-TP-PP"


def naive_ranks() -> int:
    """q4.naive_ranks: ranks of :data:`EP_PLAN` by the naive rule (every degree multiplies)."""
    return compare_ep_rules(EP_PLAN).naive_required_ranks


#: Former name, kept importable.
seed_ranks = naive_ranks


def engine_ranks() -> int:
    """q4.engine_ranks: ranks of :data:`EP_PLAN` by Megatron-Core's rule (EP folded into DP·CP)."""
    return compare_ep_rules(EP_PLAN).engine_world_size


def dp_group() -> list[int]:
    """q4.dp_group: the DP group of rank 5 in the reference layout."""
    return next(group for group in rank_groups(REFERENCE_DEGREES)["DP"] if DP_GROUP_RANK in group)


def tp_crosses() -> bool:
    """q4.tp_crosses: whether a TP group spans more than one node for :data:`CROSS_DEGREES` in :data:`CROSS_ORDER`."""
    return topology_report(CROSS_DEGREES, CROSS_GPUS_PER_NODE, CROSS_ORDER).mapping.crosses["TP"]


def _a_factor_of_two(count: Callable[[], int]) -> Slip:
    """The slip of leaving out (or counting twice) one of the plan's degrees of 2 (TP, CP, PP and DP are all 2)."""
    return any_mistake(
        "degree_of_two",
        lambda: (count() / 2, count() * 2),
        Text(
            zh="你的答案与正确值正好差 2 倍：是不是漏掉了（或多算了）一个并行度为 2 的维度？"
            "这个方案里 TP、CP、PP、DP 都是 2，逐个数一遍。",
            en="Your answer is off by exactly 2: did you leave out (or count twice) one dimension of degree 2? "
            "TP, CP, PP and DP are all 2 in this plan; count them one by one.",
        ),
    )


def _engine_why(n: int) -> Text:
    c = compare_ep_rules(EP_PLAN)
    d = {dim: EP_PLAN.get(dim, 1) for dim in ("TP", "CP", "DP", "PP", "EP")}
    product = f"{d['TP']} × {d['CP']} × {d['DP']} × {d['PP']}"
    layout = f"ETP {c.expert_tensor_parallel} × EP {d['EP']} × EDP {c.expert_data_parallel} × PP {d['PP']}"
    return Text(
        zh=f"TP·CP·DP·PP = {product} = {n}；EP = {d['EP']} 取自 DP·CP = {d['DP'] * d['CP']}，专家层排成 {layout}。",
        en=f"TP·CP·DP·PP = {product} = {n}; EP = {d['EP']} is carved out of DP·CP = {d['DP'] * d['CP']}, and the "
        f"expert layers are laid out as {layout}.",
    )


def _crosses_why(crosses: bool) -> Text:
    report = topology_report(CROSS_DEGREES, CROSS_GPUS_PER_NODE, CROSS_ORDER)
    group = next(g for g in report.groups["TP"] if 0 in g)
    nodes = [str(node) for node in sorted({report.mapping.node_of_rank[rank] for rank in group})]
    return Text(
        zh=f"{crosses}：rank 0 的 TP 组是 {group}，位于节点 {'、'.join(nodes)}；每层的集合通信都会走慢速链路。",
        en=f"{crosses}: rank 0's TP group is {group}, on nodes {', '.join(nodes)}; every layer's collectives would"
        " take the slow link.",
    )


NAIVE_RANKS = register(
    Exercise(
        id="q4.naive_ranks",
        lesson=4,
        prompt=Text(
            zh="MoE 方案 {'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}。按朴素的规则（所有并行度相乘），"
            "它需要多少个 rank？",
            en="MoE plan {'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}. By the naive rule (every degree multiplies), "
            "how many ranks does it need?",
        ),
        expected=naive_ranks,
        kind="exact",
        hint=Text(
            zh="朴素的检查（validate_parallel_composition）把各维度的并行度（degrees 字典里的每个值）都乘起来。",
            en="The naive check (validate_parallel_composition) multiplies every value in degrees.",
        ),
        why=lambda n: Text(
            zh=f"{' × '.join(map(str, EP_PLAN.values()))} = {n}。",
            en=f"{' × '.join(map(str, EP_PLAN.values()))} = {n}.",
        ),
        slips=(
            mistake(
                "engine_rule",
                engine_ranks,
                Text(
                    zh="这是引擎 (Megatron-Core) 的计数，EP 不另外占 rank；这里问的是把每个并行度都乘起来的朴素规则。",
                    en="That is the engine's count (Megatron-Core), where EP adds no ranks; the question asks for "
                    "the naive rule that multiplies every degree.",
                ),
            ),
            _a_factor_of_two(naive_ranks),
        ),
    ),
    replace=True,
)

ENGINE_RANKS = register(
    Exercise(
        id="q4.engine_ranks",
        lesson=4,
        prompt=Text(
            zh="同一个方案 {'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4} 在 Megatron-Core 里占用多少个 rank？",
            en="How many ranks does the same plan {'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4} occupy in "
            "Megatron-Core?",
        ),
        expected=engine_ranks,
        kind="exact",
        hint=Text(
            zh="引擎的世界大小是 TP·CP·DP·PP；专家层在同一批 rank 上重新分组，EP 不另外占 rank。",
            en="The engine's world size is TP·CP·DP·PP; the expert layers regroup the same ranks, so EP adds none.",
        ),
        why=_engine_why,
        slips=(
            mistake(
                "ep_multiplied",
                naive_ranks,
                Text(
                    zh="你把 EP 也乘了进去：在引擎里，专家层在同一批 rank 上重新分组，EP 取自 DP·CP，不另外占 rank。",
                    en="You multiplied EP in as well: in the engine the expert layers regroup the same ranks, and EP "
                    "is carved out of DP·CP, adding no ranks.",
                ),
            ),
            _a_factor_of_two(engine_ranks),
        ),
    ),
    replace=True,
)

DP_GROUP = register(
    Exercise(
        id="q4.dp_group",
        lesson=4,
        prompt=Text(
            zh="Megatron-Core 的参考例子：16 张 GPU，TP = 2，PP = 4（所以 DP = 2），默认顺序 TP-CP-EP-DP-PP。"
            "rank 5 所在的数据并行 (DP) 组有哪些 rank？用从小到大的列表作答，如 [0, 1]。",
            en="Megatron-Core's reference example: 16 GPUs, TP = 2, PP = 4 (so DP = 2), default order TP-CP-EP-DP-PP. "
            "Which ranks form the data-parallel (DP) group of rank 5? Answer with an ascending list, e.g. [0, 1].",
        ),
        expected=dp_group,
        kind="exact",
        hint=Text(
            zh="TP 变化最快（步长 1），DP 其次（步长 = TP）：同一 DP 组的 rank 相差 TP，且属于同一个流水线阶段。",
            en="TP varies fastest (stride 1), DP next (stride = TP): ranks of one DP group differ by TP and sit in "
            "the same pipeline stage.",
        ),
        why=lambda group: Text(
            zh=f"{group}：两者的 TP 位置相同、流水线阶段相同，只有 DP 坐标不同。",
            en=f"{group}: same TP position, same pipeline stage; only the DP coordinate differs.",
        ),
        slips=(
            mistake(
                "tp_group",
                lambda: next(group for group in rank_groups(REFERENCE_DEGREES)["TP"] if DP_GROUP_RANK in group),
                Text(
                    zh="这是 rank 5 的张量并行 (TP) 组：TP 变化最快，相邻的 rank 属于同一个 TP 组，"
                    "而不是同一个 DP 组。",
                    en="That is rank 5's tensor-parallel (TP) group: TP varies fastest, so neighbouring ranks share "
                    "a TP group, not a DP group.",
                ),
            ),
            mistake(
                "pp_group",
                lambda: next(group for group in rank_groups(REFERENCE_DEGREES)["PP"] if DP_GROUP_RANK in group),
                Text(
                    zh="这是 rank 5 的流水线并行 (PP) 组：PP 变化最慢，同一 PP 组的 rank 相差 TP · DP，"
                    "各在一个流水线阶段；DP 组的 rank 都在同一个流水线阶段里。",
                    en="That is rank 5's pipeline-parallel (PP) group: PP varies slowest, so its ranks differ by "
                    "TP · DP, one in each pipeline stage; a DP group's ranks all sit in the same stage.",
                ),
            ),
        ),
    ),
    replace=True,
)

TP_CROSSES = register(
    Exercise(
        id="q4.tp_crosses",
        lesson=4,
        prompt=Text(
            zh="TP = 4、DP = 4，每节点 8 张 GPU，rank 顺序为 'DP-TP-PP'（DP 变化最快）。"
            "有没有 TP 组横跨节点？用 True 或 False 作答。",
            en="TP = 4 and DP = 4 on nodes of 8 GPUs, rank order 'DP-TP-PP' (DP varies fastest). Does any TP group "
            "span more than one node? Answer True or False.",
        ),
        expected=tp_crosses,
        kind="exact",
        hint=Text(
            zh="DP 变化最快时，同一 TP 组相邻成员的 rank 相差 DP；写出 rank 0 所在的 TP 组，再看 rank // 8。",
            en="With DP fastest, neighbours in one TP group are DP ranks apart; write down rank 0's TP group and "
            "look at rank // 8.",
        ),
        why=_crosses_why,
    ),
    replace=True,
)

learner_functions(globals())
