"""The course's strategy table: what each parallel strategy splits, what it strains, what it needs.

Lesson 1 (Q1) lists, for DP / ZeRO, TP, PP, CP, EP and serving replicas,
which question each one answers ("DP 解决‘数据怎么铺开’") with its
precondition, then a table of the main object it splits, the main pressure it
puts on the system and its key precondition; lesson 2 (Q2) adds where each strategy's
communication is fragile. :data:`STRATEGY_TABLE` keeps those sentences as
bilingual data and :func:`strategy_table` renders them as a Markdown table in
the current language, so a lesson shows the table without retyping it.

>>> [row.name for row in STRATEGY_TABLE]
['DP / ZeRO', 'TP', 'PP', 'CP', 'EP', 'Replica']
>>> STRATEGY_TABLE[1].key_precondition.render("en")
'strong intra-node interconnect'

Taught in: lesson 1 (Q1 capacity: the strategy table); lesson 2 (Q2: where each strategy's communication is fragile).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from ._validate import check_choice, learner_functions
from .i18n import Text, register, tr

__all__ = ["STRATEGY_COLUMNS", "STRATEGY_TABLE", "StrategyRow", "strategy_row", "strategy_table"]

register(
    {
        "strategies.type_columns": {
            "zh": "columns = {value!r}：必须是列名组成的列表或元组，而不是 {type}。",
            "en": "columns = {value!r}: must be a list or tuple of column names, not {type}.",
        },
        "strategies.no_columns": {
            "zh": "columns 为空：至少选择一列（可选：{choices}）。",
            "en": "columns is empty: choose at least one column (from {choices}).",
        },
    }
)

#: The traffic functions of :mod:`coursekit.communication` that model each row.
_TRAFFIC_KEYS: tuple[str, ...] = ("dp", "zero", "tp", "pp", "cp", "ep", "replica")


@dataclass(frozen=True)
class StrategyRow:
    """One strategy of the Q1 table (lesson 1), with the matching Q1 and Q2 bullets.

    Fields (all bilingual :class:`~coursekit.i18n.Text` except the first and last):
        name: the strategy's label (``"DP / ZeRO"``, ``"TP"`` ...).
        solves: the question it answers (Q1 bullet, "X 解决 ...").
        assumes: the precondition of that bullet ("前提是 ...").
        splits: the main object it splits (table column 主要切分对象).
        pressure: the main pressure it brings (table column 主要压力).
        key_precondition: the most important precondition (table column 最关键前提).
        communication: where its communication is fragile (Q2 bullet).
        traffic: names in :data:`coursekit.communication.STRATEGIES` whose
            ``*_traffic`` function models its communication.

    >>> strategy_row("PP").splits.render("en")
    'layers / stages'

    Taught in: lesson 1 (Q1 capacity).
    """

    name: str
    solves: Text
    assumes: Text
    splits: Text
    pressure: Text
    key_precondition: Text
    communication: Text
    traffic: tuple[str, ...]

    def __post_init__(self) -> None:
        for key in self.traffic:
            check_choice("traffic", key, _TRAFFIC_KEYS)


#: The course's strategy table (Q1), in the lesson's order, with the Q1 and Q2 bullets of each strategy.
STRATEGY_TABLE: tuple[StrategyRow, ...] = (
    StrategyRow(
        name="DP / ZeRO",
        solves=Text(zh="数据怎么铺开", en="how the data is spread over the devices"),
        assumes=Text(zh="模型至少接近能放下", en="the model (nearly) fits on one device"),
        splits=Text(
            zh="批次 (batch)、参数、梯度或优化器状态",
            en="the batch; parameters, gradients or optimizer state",
        ),
        pressure=Text(zh="梯度同步与状态聚合", en="gradient synchronization and state gathering"),
        key_precondition=Text(
            zh="模型与训练状态有明确分片方案",
            en="a clear sharding plan for the model and training state",
        ),
        communication=Text(
            zh="梯度同步偏全局，频率低，但每次同步面更完整",
            en="gradient sync spans the whole group: infrequent, but each sync covers the full state",
        ),
        traffic=("dp", "zero"),
    ),
    StrategyRow(
        name="TP",
        solves=Text(zh="单层怎么拆算", en="how one layer is split for computation"),
        assumes=Text(zh="节点内互连足够强", en="the intra-node links are strong enough"),
        splits=Text(zh="层内张量与激活", en="tensors and activations inside a layer"),
        pressure=Text(zh="高频集合通信 (collective)", en="frequent collectives"),
        key_precondition=Text(zh="节点内互连强", en="strong intra-node interconnect"),
        communication=Text(
            zh="层内通信频率高，单次量通常不大，但每层都要碰一次",
            en="intra-layer communication is frequent and each call is usually small, but every layer needs it",
        ),
        traffic=("tp",),
    ),
    StrategyRow(
        name="PP",
        solves=Text(zh="层怎么分段", en="how the layers are cut into stages"),
        assumes=Text(zh="模型足够深或单卡显存偏紧", en="the model is deep enough, or one device's memory is tight"),
        splits=Text(zh="层 / 流水线阶段 (stage)", en="layers / stages"),
        pressure=Text(zh="流水线气泡与阶段间传输", en="pipeline bubble and transfers between stages"),
        key_precondition=Text(
            zh="模型足够深且各阶段可平衡",
            en="the model is deep enough and its stages can be balanced",
        ),
        communication=Text(
            zh="通信发生在阶段边界，频率低一些，但切不好就会放大气泡和等待",
            en="communication happens at stage boundaries, less often, but a poor split amplifies the "
            "bubble and waiting",
        ),
        traffic=("pp",),
    ),
    StrategyRow(
        name="CP",
        solves=Text(zh="长序列怎么切分", en="how a long sequence is split"),
        assumes=Text(zh="注意力状态交换可承受", en="exchanging attention state is affordable"),
        splits=Text(zh="序列 / 上下文", en="sequence / context"),
        pressure=Text(zh="注意力状态交换", en="attention-state exchange"),
        key_precondition=Text(
            zh="长上下文收益覆盖通信代价",
            en="the long-context benefit outweighs the communication cost",
        ),
        communication=Text(
            zh="随上下文长度交换注意力状态，需要同时记录序列长度和通信轮数",
            en="exchanges attention state that grows with the context; record the sequence length and the "
            "number of communication rounds together",
        ),
        traffic=("cp",),
    ),
    StrategyRow(
        name="EP",
        solves=Text(zh="专家怎么分发", en="how the experts are distributed"),
        assumes=Text(zh="路由和 token 交换能承受", en="routing and token exchange are affordable"),
        splits=Text(zh="专家 / token", en="experts / tokens"),
        pressure=Text(zh="分发 (dispatch)、汇合 (combine) 与负载不均", en="dispatch, combine and load imbalance"),
        key_precondition=Text(zh="MoE 路由与容量可控", en="MoE routing and capacity are under control"),
        communication=Text(
            zh="不只看通信量，还要看 token 路由和负载均衡是否稳定",
            en="volume is not enough: token routing and load balance must also be stable",
        ),
        traffic=("ep",),
    ),
    StrategyRow(
        name="Replica",
        solves=Text(zh="请求怎么分发", en="how the requests are distributed"),
        assumes=Text(
            zh="多副本容量、队列和缓存局部性可观测",
            en="the capacity, queues and cache locality of the replicas are observable",
        ),
        splits=Text(zh="服务请求", en="serving requests"),
        pressure=Text(zh="队列、缓存局部性与尾延迟", en="queues, cache locality and tail latency"),
        key_precondition=Text(zh="多副本状态可观测", en="the state of every replica is observable"),
        communication=Text(
            zh="不交换模型内部张量，但路由失衡会放大排队和尾延迟",
            en="exchanges no model tensors, but unbalanced routing inflates queueing and tail latency",
        ),
        traffic=("replica",),
    ),
)

#: Column name -> bilingual header, in the table's order (:data:`KEY_COLUMNS` are the short table).
STRATEGY_COLUMNS: Mapping[str, Text] = MappingProxyType(
    {
        "name": Text(zh="策略", en="Strategy"),
        "solves": Text(zh="解决的问题", en="Question it answers"),
        "assumes": Text(zh="前提", en="Precondition"),
        "splits": Text(zh="主要切分对象", en="Main object split"),
        "pressure": Text(zh="主要压力", en="Main pressure"),
        "key_precondition": Text(zh="最关键前提", en="Key precondition"),
        "communication": Text(zh="通信的脆弱点", en="Where its communication is fragile"),
    }
)

#: The short table lesson 1 shows: strategy, main object split, main pressure, key precondition.
KEY_COLUMNS: tuple[str, ...] = ("name", "splits", "pressure", "key_precondition")
#: Former name of :data:`KEY_COLUMNS`, kept importable.
SEED_COLUMNS: tuple[str, ...] = KEY_COLUMNS


def strategy_row(name: str) -> StrategyRow:
    """The row of :data:`STRATEGY_TABLE` for ``name`` (``"DP / ZeRO"``, ``"TP"``, ...).

    >>> strategy_row("EP").pressure.render("zh")
    '分发 (dispatch)、汇合 (combine) 与负载不均'

    Taught in: lesson 1 (Q1 capacity).
    """
    rows = {row.name: row for row in STRATEGY_TABLE}
    return rows[check_choice("name", name, rows)]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def strategy_table(columns: Sequence[str] = KEY_COLUMNS, *, lang: str | None = None) -> str:
    """The strategy table as Markdown in ``lang`` (default: the current language).

    Parameters:
        columns: names from :data:`STRATEGY_COLUMNS`, in the order to show
            them; the default is the short table (:data:`KEY_COLUMNS`).
        lang: ``"zh"`` or ``"en"``; None uses the current language.

    >>> print(strategy_table(["name", "key_precondition"], lang="en").splitlines()[2])
    | DP / ZeRO | a clear sharding plan for the model and training state |

    Taught in: lesson 1 (Q1 capacity).
    """
    if isinstance(columns, str) or not isinstance(columns, (list, tuple)):
        raise TypeError(tr("strategies.type_columns", value=columns, type=type(columns).__name__))
    if not columns:
        raise ValueError(tr("strategies.no_columns", choices=", ".join(STRATEGY_COLUMNS)))
    chosen = [check_choice("columns", column, STRATEGY_COLUMNS) for column in columns]
    if lang is not None:
        check_choice("lang", lang, ("zh", "en"))
    lines = [
        "| " + " | ".join(_cell(STRATEGY_COLUMNS[c].render(lang)) for c in chosen) + " |",
        "| " + " | ".join("---" for _ in chosen) + " |",
    ]
    for row in STRATEGY_TABLE:
        cells = [row.name if c == "name" else getattr(row, c).render(lang) for c in chosen]
        lines.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    return "\n".join(lines)


learner_functions(globals())
