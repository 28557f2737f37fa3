"""Exercises of lesson 3 (gates, question Q3 of the course): which gate rejects, who is accepted, which
degrees a batch admits.

Every expected answer is computed with :mod:`coursekit.gates` from the inputs
named below (module constants, so the notebook and the instructor guide quote
the same numbers).

>>> from coursekit.exercises import get_exercise
>>> get_exercise("q3.first_gate").expected_value()
'interconnect'
>>> get_exercise("q3.dp_degrees").expected_value()
(1, 2, 4, 8, 16)

Taught in: lesson 3 (Q3 gates).
"""

from __future__ import annotations

from dataclasses import replace

from .._validate import learner_functions
from ..gates import (
    COURSE_CANDIDATES,
    EXAMPLE_CANDIDATES,
    EXAMPLE_ENVIRONMENT,
    GATES,
    Candidate,
    Environment,
    check_tp_degree,
    dp_degrees_for_batch,
    evaluate_candidate,
    evaluate_candidates,
)
from ..i18n import Text
from . import Exercise, Slip, member_left_out, mistake, register, strategy_choice

#: Every candidate of lesson 3: the first example's four and the course's PP, CP and Replica.
LESSON_CANDIDATES: tuple[Candidate, ...] = (*EXAMPLE_CANDIDATES, *COURSE_CANDIDATES)

#: q3.first_gate: the course's example environment, but TP's group can only be placed across nodes.
FIRST_GATE_CANDIDATE: str = "TP"
FIRST_GATE_ENVIRONMENT: Environment = replace(EXAMPLE_ENVIRONMENT, link_scope="cross_node")

#: q3.accepted: serving a MoE model on the example's 24 GiB devices with intra-node links, context not declared.
SERVING_ENVIRONMENT: Environment = replace(EXAMPLE_ENVIRONMENT, mode="serving", model_kind="moe")

#: q3.dp_degrees: a global batch of 64 sequences and a micro-batch of 4 per rank.
BATCH_GLOBAL: int = 64
BATCH_MICRO: int = 4

#: q3.tp_rule: TP = 16 for a model with 32 attention heads on nodes of 8 GPUs.
TP_RULE_TP: int = 16
TP_RULE_HEADS: int = 32
TP_RULE_GPUS_PER_NODE: int = 8

#: Answer of q3.tp_rule when no rule rejects the degree.
NO_REJECTION: str = "none"

_GATE_CODES: tuple[str, ...] = tuple(gate.code for gate in GATES)
_NAMES: tuple[str, ...] = tuple(candidate.name for candidate in LESSON_CANDIDATES)


def _candidate(name: str) -> Candidate:
    return next(candidate for candidate in LESSON_CANDIDATES if candidate.name == name)


#: The word a learner may write after a gate's name.
_GATE_WORD = Text(zh="门槛", en="gate")
#: Other spellings of a gate's name in the grid: "互联" is as common in Chinese as the grid's "互连".
_GATE_SPELLINGS: dict[str, Text] = {"interconnect": Text(zh="互联", en="interconnection")}


def _gate_code(text: str) -> str:
    """A gate's code, from the code or from the gate's name in the lesson's grid (Chinese with or without 门槛, or
    English: ``'互连'``, ``'互连门槛'`` -> ``'interconnect'``, ``'fit'`` -> ``'memory'``); anything else as typed, in
    lower case.

    >>> _gate_code("互连门槛"), _gate_code(" Interconnect "), _gate_code("服务角色"), _gate_code("Fit")
    ('interconnect', 'interconnect', 'serving', 'memory')
    >>> _gate_code("链路"), _gate_code("互联")
    ('链路', 'interconnect')
    """
    from ..widgets.gates import GATE_SHORT_LABELS  # the grid's labels: one source for the names the learner reads

    return _code_from_name(text, [*GATE_SHORT_LABELS.items(), *_GATE_SPELLINGS.items()])


def _code_from_name(text: str, names: list[tuple[str, Text]]) -> str:
    """The code whose name (Chinese, or English in any case, with or without the word 门槛 / gate after it) the
    learner typed; anything else as typed, in lower case. One rule for every choice of lesson 3 answered by name.

    >>> _code_from_name(" 容量门槛 ", [("memory", Text(zh="容量", en="fit"))])
    'memory'
    """
    value = text.strip().lower()
    by_name = {name: code for code, label in names for name in (label.zh, label.en.lower())}
    bare = value.removesuffix(_GATE_WORD.zh).removesuffix(_GATE_WORD.en).strip()  # '互连门槛', 'interconnect gate'
    return by_name.get(bare, value)


#: q3.tp_rule's answers by name, as the rules' messages name them: the attention-head rule, and no rejection. The
#: interconnect rule is the interconnect gate's own rule, named as exercise 3.1 names it.
_TP_RULE_NAMES: dict[str, Text] = {
    "tp_heads": Text(zh="注意力头", en="attention heads"),
    NO_REJECTION: Text(zh="不被拒绝", en="not rejected"),
}
#: Other spellings of those names: "头数" (number of heads), "无" (none), the English "heads".
_TP_RULE_SPELLINGS: tuple[tuple[str, Text], ...] = (
    ("tp_heads", Text(zh="头数", en="heads")),
    (NO_REJECTION, Text(zh="无", en="no rejection")),
)


def _tp_rule_code(text: str) -> str:
    """q3.tp_rule's code, from the code or from the rule's name, in the forms exercise 3.1 takes: ``'互连'``,
    ``'互连门槛'``, ``'interconnect gate'`` -> ``'interconnect'``; ``'注意力头'``, ``'heads'`` -> ``'tp_heads'``;
    ``'不被拒绝'``, ``'无'`` -> ``'none'``; anything else as typed, in lower case.

    >>> _tp_rule_code("互连门槛"), _tp_rule_code("注意力头"), _tp_rule_code(" Attention heads "), _tp_rule_code("无")
    ('interconnect', 'tp_heads', 'tp_heads', 'none')
    >>> _tp_rule_code("容量")
    '容量'
    """
    code = _gate_code(text)
    if code == "interconnect":
        return code
    return _code_from_name(text, [*_TP_RULE_NAMES.items(), *_TP_RULE_SPELLINGS])


def _candidate_name(text: str) -> str:
    """Accept ``"tp"``, ``"张量并行"``, ``"副本"`` or ``"TP（张量并行）"`` for ``"TP"`` / ``"Replica"``
    (:func:`coursekit.exercises.strategy_choice`)."""
    return strategy_choice(text, _NAMES)


def _set_literal(names: frozenset[str]) -> str:
    """The set as the learner writes it, in sorted order: ``{'EP', 'TP'}`` (not the list ``sorted`` gives).

    >>> _set_literal(frozenset({"TP", "EP"}))
    "{'EP', 'TP'}"
    """
    return "{" + ", ".join(repr(name) for name in sorted(names)) + "}"


def first_gate() -> str:
    """q3.first_gate: the code of the first gate that rejects TP in :data:`FIRST_GATE_ENVIRONMENT`."""
    return evaluate_candidate(_candidate(FIRST_GATE_CANDIDATE), FIRST_GATE_ENVIRONMENT).codes[0]


def accepted_when_serving() -> frozenset[str]:
    """q3.accepted: the candidates that pass every gate in :data:`SERVING_ENVIRONMENT`."""
    return frozenset(r.name for r in evaluate_candidates(LESSON_CANDIDATES, SERVING_ENVIRONMENT) if r.accepted)


def dp_degrees() -> tuple[int, ...]:
    """q3.dp_degrees: the DP degrees a global batch of 64 admits at a micro-batch of 4."""
    return dp_degrees_for_batch(BATCH_GLOBAL, BATCH_MICRO)


def tp_rule() -> str:
    """q3.tp_rule: the code of the rule that rejects TP = 16 (32 heads, 8 GPUs per node), or ``"none"``."""
    reason = check_tp_degree(TP_RULE_TP, TP_RULE_HEADS, TP_RULE_GPUS_PER_NODE)
    return NO_REJECTION if reason is None else reason.code


FIRST_GATE = register(
    Exercise(
        id="q3.first_gate",
        lesson=3,
        prompt=Text(
            zh="本课的示例环境（24 GiB、训练、稠密模型），但 TP 组只能放在跨节点的链路上（link_scope = 'cross_node'）。"
            "第一个拒绝 TP 的门槛是哪个？用门槛代码作答，如 'memory'（也可以写小部件网格里的中文名，如 '容量'）。",
            en="The lesson's example environment (24 GiB, training, dense model), but the TP group can only be placed "
            "on cross-node links (link_scope = 'cross_node'). Which gate rejects TP first? Answer with the gate's "
            "code, e.g. 'memory' (the gate's name in the widget's grid, e.g. 'fit', is taken too).",
        ),
        expected=first_gate,
        kind="choice",
        choices=_GATE_CODES,
        normalize=_gate_code,
        hint=Text(
            zh="TP 的候选页声明了它需要的链路域；对照 GATES 的顺序，看哪一项声明与新环境不符。",
            en="TP's candidate page declares the link scope it needs; go through GATES in order and find the "
            "declaration the new environment no longer meets.",
        ),
        why=lambda code: Text(
            zh=f"'{code}'：TP 每层都有集合通信，声明需要 intra_node；cross_node 更弱。其余门槛都通过。",
            en=f"'{code}': TP runs collectives in every layer and declares intra_node; cross_node is weaker. "
            "Every other gate passes.",
        ),
    ),
    replace=True,
)

ACCEPTED = register(
    Exercise(
        id="q3.accepted",
        lesson=3,
        prompt=Text(
            zh="环境改为：服务 (serving) 一个混合专家 (MoE) 模型，24 GiB 设备，节点内链路，上下文未声明。"
            "七个候选（DP、ZeRO-3、TP、EP、PP、CP、Replica）中哪些通过全部门槛？用集合作答，如 {'TP'}。",
            en="New environment: serving a mixture-of-experts (MoE) model on 24 GiB devices with intra-node links, "
            "context not declared. Which of the seven candidates (DP, ZeRO-3, TP, EP, PP, CP, Replica) pass every "
            "gate? Answer with a set, e.g. {'TP'}.",
        ),
        expected=accepted_when_serving,
        kind="choice",
        choices=_NAMES,
        normalize=_candidate_name,
        hint=Text(
            zh="逐个候选过一遍六道门槛：它声明的模式 (modes) 是否包含服务，结构 (model_kinds) 是否包含 MoE，"
            "需要的链路域是否满足，是否切分上下文。",
            en="Take each candidate through the six gates: do its declared modes include serving, its model kinds "
            "MoE, is its link scope met, does it split the context?",
        ),
        why=lambda names: Text(
            zh=f"{_set_literal(names)}：DP 和 ZeRO-3 只声明了训练；CP 没有证据表明需要切分上下文；EP 在 MoE 上可用。",
            en=f"{_set_literal(names)}: DP and ZeRO-3 declare training only; nothing shows CP is needed; "
            "EP applies to MoE.",
        ),
        slips=(
            member_left_out(
                "PP",
                Text(
                    zh="再看 PP 的候选页：它声明的模式 (modes) 包括哪些？流水线也能把服务的模型按层分到多张卡上。",
                    en="Look at PP's candidate page again: which modes does it declare? A pipeline can also split a "
                    "served model's layers over several cards.",
                ),
            ),
            member_left_out(
                "EP",
                Text(
                    zh="再看 EP：它要求的结构 (model_kinds) 是什么？这次的模型是 MoE。",
                    en="Look at EP again: which model kinds does it require? This time the model is a MoE.",
                ),
            ),
            member_left_out(
                "Replica",
                Text(
                    zh="再看服务副本 (Replica)：它正是为服务模式准备的候选。",
                    en="Look at the serving replica again: it is the candidate made for serving.",
                ),
            ),
            Slip(
                "context_gate",
                Text(
                    zh="CP 被上下文门槛拒绝：环境没有声明上下文长度时，没有证据表明需要切分上下文。",
                    en="CP is rejected by the context gate: with no context length declared, nothing shows the "
                    "context must be split.",
                ),
                matches=lambda answer, expected: isinstance(answer, frozenset) and answer == expected | {"CP"},
            ),
        ),
    ),
    replace=True,
)

DP_DEGREES = register(
    Exercise(
        id="q3.dp_degrees",
        lesson=3,
        prompt=Text(
            zh="全局批大小是 64 条序列，每个 rank 的微批次是 4。哪些数据并行度 (DP degree) 能让 "
            "dp × 微批次 × 梯度累积正好等于全局批大小？用从小到大的元组作答，如 (1, 2)。",
            en="The global batch is 64 sequences and the micro-batch per rank is 4. Which DP degrees make "
            "dp × micro-batch × gradient accumulation equal the global batch exactly? Answer with an ascending "
            "tuple, e.g. (1, 2).",
        ),
        expected=dp_degrees,
        kind="exact",
        hint=Text(
            zh="梯度累积步数必须是正整数：dp × 微批次要整除全局批大小。",
            en="The gradient accumulation must be a whole number of steps: dp × micro-batch must divide the "
            "global batch.",
        ),
        why=lambda degrees: Text(
            zh=f"{degrees}：最大的 DP 是 {degrees[-1]}（不做梯度累积）；再大就只能增大全局批大小或缩小微批次。",
            en=f"{degrees}: the largest DP is {degrees[-1]} (no accumulation); beyond it the global batch must grow "
            "or the micro-batch shrink.",
        ),
        slips=(
            mistake(
                "micro_batch_1",
                lambda: dp_degrees_for_batch(BATCH_GLOBAL, 1),
                Text(
                    zh="这是微批次为 1 时的列表（第 8.1 节打印的那一行）：这道题每个 rank 的微批次是 4。",
                    en="That is the list for a micro-batch of 1 (the line section 8.1 prints): in this question each "
                    "rank's micro-batch is 4.",
                ),
            ),
        ),
    ),
    replace=True,
)

TP_RULE = register(
    Exercise(
        id="q3.tp_rule",
        lesson=3,
        prompt=Text(
            zh="模型有 32 个注意力头，每节点 8 张 GPU。TP = 16 被哪条规则拒绝？"
            "用 check_tp_degree 的代码作答：'tp_heads'、'interconnect'，或 'none'（不被拒绝）"
            "（也可以写中文名：'注意力头'、'互连'、'不被拒绝'）。",
            en="The model has 32 attention heads and each node has 8 GPUs. Which rule rejects TP = 16? Answer with "
            "check_tp_degree's code: 'tp_heads', 'interconnect', or 'none' (not rejected) (the rule's name is "
            "taken too: 'attention heads', 'interconnect', 'not rejected').",
        ),
        expected=tp_rule,
        kind="choice",
        choices=("tp_heads", "interconnect", NO_REJECTION),
        normalize=_tp_rule_code,
        hint=Text(
            zh="先看 16 能否整除 32，再看一个 TP 组能否放进一个节点。",
            en="First see whether 16 divides 32, then whether one TP group fits in one node.",
        ),
        why=lambda code: Text(
            zh=f"'{code}'：16 整除 32，但 16 > 8，TP 组会离开节点内的高速链路。",
            en=f"'{code}': 16 divides 32, but 16 > 8, so the TP group would leave the node's fast links.",
        ),
    ),
    replace=True,
)

learner_functions(globals())
