"""Exercises of lesson 5 (selection matrix): build the three cases, fill the 4 x 3 matrix, topology, batch.

Every expected answer is computed with coursekit: the training state with
:func:`coursekit.capacity.training_state_memory`, the kind of case with
:func:`coursekit.matrix.case_kind`, each of the twelve cells with
:func:`coursekit.matrix.evaluate_paper_case`, the topology change with
:func:`coursekit.matrix.topology_changes` and the DP limit with
:func:`coursekit.gates.max_dp_degree`.

Ids (prefix ``matrix``):

* ``matrix.case1_state_gib`` ... ``matrix.case3_state_gib``: the training state of each case from its
  parameter count (16 bytes per parameter, GiB);
* ``matrix.case1_kind`` ... ``matrix.case3_kind``: which of the three kinds the case is;
* ``matrix.case1_dp`` ... ``matrix.case3_pp``: the twelve cells of the matrix (no topology given);
* ``matrix.topology_changed`` and ``matrix.max_dp``.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("matrix.case2_state_gib").expected_value(), 6)
40.0
>>> get_exercise("matrix.case2_dp").expected_value()
'not_preferred'

Taught in: lesson 5 (selection matrix).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from .._validate import learner_functions
from ..capacity import PRECISION_RECIPES, training_state_memory
from ..gates import max_dp_degree
from ..i18n import Text, tr
from ..i18n import register as _register_messages
from ..matrix import (
    CASE_KIND_LABELS,
    CASE_KINDS,
    CASE_LAYER_EXCEEDS_DEVICE,
    PAPER_CASES,
    STRATEGIES,
    VERDICT_LABELS,
    VERDICTS,
    PaperCase,
    case_kind,
    evaluate_paper_case,
    topology_changes,
)
from ..units import GIB_BYTES
from . import GIB_VS_GB, MIB_VS_GIB, Exercise, mistake, register, strategy_choice

#: Bytes per parameter of the cases' training state: mixed-precision Adam (ZeRO paper, section 3.1).
BYTES_PER_PARAM: float = PRECISION_RECIPES["zero-fp16-adam"].bytes_per_param
#: Bytes of the 16-bit weights alone, the slip of counting only them (ZeRO paper, section 3.1: 2 of the 16)
WEIGHT_BYTES_PER_PARAM: float = PRECISION_RECIPES["zero-fp16-adam"].param_bytes

#: Parameter count of each case, the number the learner starts from (derived from the case's state).
CASE_PARAMS: dict[str, int] = {
    case.key: round(case.training_state_gib * GIB_BYTES / BYTES_PER_PARAM) for case in PAPER_CASES
}

#: Exercise matrix.max_dp: a global batch of 512 sequences, 4 sequences per rank per micro-step (illustrative).
MAX_DP_GLOBAL_BATCH: int = 512
MAX_DP_MICRO_BATCH: int = 4


#: Other ways a learner writes a verdict, in pairs: "需要更多信息" for the label 需更多信息, "不推荐" for 不优先.
#: "不优先（硬排除）" is the label lesson 5's matrix widget shows for a hard exclusion (review 22: copied from the
#: widget, it was refused).
_VERDICT_ALIASES: dict[str, tuple[Text, ...]] = {
    "needs_info": (
        Text(zh="需要更多信息", en="needs more info"),
        Text(zh="需要更多的信息", en="more info"),
        Text(zh="信息不足", en="not enough information"),
    ),
    "not_preferred": (
        Text(zh="不推荐", en="not recommended"),
        Text(zh="不优先（硬排除）", en="not preferred (hard exclusion)"),
        Text(zh="不优先（不需要）", en="not preferred (not needed)"),
    ),
}
#: Words for "ruled out" that the matrix does not use, in pairs: its "not preferred" covers hard exclusions too.
_EXCLUDED: tuple[Text, ...] = (
    Text(zh="不可行", en="infeasible"),
    Text(zh="排除", en="excluded"),
    Text(zh="硬排除", en="ruled out"),
    Text(zh="被排除", en="not feasible"),
    Text(zh="不行", en="no"),
)
_EXCLUDED_WORDS: frozenset[str] = frozenset(w for t in _EXCLUDED for w in (t.zh, t.en))


def _verdict_code(answer: str) -> str:
    """Accept a verdict code or its label in either language ("不优先", "Not preferred", "not preferred"), with a
    closing full stop or not ("可行。"); anything else is refused naming both the codes and the labels."""
    text = unicodedata.normalize("NFKC", answer).strip().strip("\"'“”‘’「」『』").strip().rstrip("。.").strip()
    text = text.replace("-", "_") if text.isascii() else text  # 'not-preferred', 'needs-info'
    for code in VERDICTS:
        names = {code, code.replace("_", " "), VERDICT_LABELS[code].zh, VERDICT_LABELS[code].en.lower()}
        names |= {unicodedata.normalize("NFKC", w) for t in _VERDICT_ALIASES.get(code, ()) for w in (t.zh, t.en)}
        if text.lower() in names or text in names:
            return code
    if text.lower() in _EXCLUDED_WORDS:  # the matrix has no "infeasible": a hard exclusion is answered not_preferred
        raise ValueError(tr("exercises.matrix_excluded", value=answer))
    raise ValueError(
        tr(
            "exercises.matrix_verdict",
            value=answer,
            codes=Text(zh="、", en=", ").render().join(repr(code) for code in VERDICTS),
            labels=" / ".join(VERDICT_LABELS[code].render() for code in VERDICTS),
        )
    )


def _weights_only_gib(params: int) -> Callable[[], float]:
    """The slip of matrix.caseN_state_gib: the 16-bit weights alone, ``params`` x 2 bytes, in GiB."""
    return lambda: params * WEIGHT_BYTES_PER_PARAM / GIB_BYTES


_register_messages(
    {
        "exercises.matrix_excluded": {
            "zh": "answer = {value!r}：矩阵里没有“不可行”或“排除”这一种结论。被硬性排除的格子（例如放不下）"
            "答 'not_preferred'（不优先）：矩阵里“不优先”既包括排除，也包括不需要。",
            "en": 'answer = {value!r}: the matrix has no verdict "infeasible" or "excluded". A cell a hard '
            "exclusion rules out (it does not fit, say) is answered 'not_preferred': in the matrix, \"not preferred\" "
            "covers both excluded and not needed.",
        },
        "exercises.matrix_verdict": {
            "zh": "answer = {value!r}：请答 {codes} 之一（也可以写 {labels}）。",
            "en": "answer = {value!r}: answer one of {codes} (or {labels}).",
        },
    }
)


def _kind_code(answer: str) -> str:
    """Accept a case kind's code or its name in either language, with a closing full stop or not; anything else is
    refused naming both the codes and the names (review 25: '放得下' was told only the three English codes, though
    the Chinese names are taken too)."""
    text = unicodedata.normalize("NFKC", answer).strip().strip("\"'“”‘’「」『』").strip().rstrip("。.").strip()
    for code in CASE_KINDS:
        names = {code, code.replace("_", " "), CASE_KIND_LABELS[code].zh, CASE_KIND_LABELS[code].en}
        if text.lower() in {name.lower() for name in names}:
            return code
    raise ValueError(
        tr(
            "exercises.matrix_verdict",
            value=answer,
            codes=Text(zh="、", en=", ").render().join(repr(code) for code in CASE_KINDS),
            labels=" / ".join(CASE_KIND_LABELS[code].render() for code in CASE_KINDS),
        )
    )


def _strategy(answer: str) -> str:
    """A strategy of the matrix from its name in any case, its Chinese or English term or with a gloss
    (:func:`coursekit.exercises.strategy_choice`): ``'张量并行'``, ``'tp'``, ``'TP（张量并行）'`` -> ``'TP'``."""
    return strategy_choice(answer, STRATEGIES)


def _kind_why(case: PaperCase, kind: str) -> Text:
    layer_gib = case.largest_layer_gib + case.activation_gib + case.runtime_reserve_gib
    state_gib = case.training_state_gib + case.activation_gib + case.runtime_reserve_gib
    return Text(
        zh=f"最大一层 + 激活 + 预留 = {layer_gib:g} GiB，训练状态 + 激活 + 预留 = {state_gib:g} GiB，设备 "
        f"{case.device_memory_gib:g} GiB：{CASE_KIND_LABELS[kind].zh}。",
        en=f"largest layer + activations + reserve = {layer_gib:g} GiB, state + activations + reserve = "
        f"{state_gib:g} GiB, device {case.device_memory_gib:g} GiB: {CASE_KIND_LABELS[kind].en}.",
    )


def _case_number(case: PaperCase) -> int:
    return PAPER_CASES.index(case) + 1


def _state_gib(case: PaperCase) -> Callable[[], float]:
    return lambda: training_state_memory(CASE_PARAMS[case.key]).total_gib


def _register_case(case: PaperCase) -> None:
    n = _case_number(case)
    params = CASE_PARAMS[case.key]
    register(
        Exercise(
            id=f"matrix.case{n}_state_gib",
            lesson=5,
            prompt=Text(
                zh=f"案例 {n} 的模型有 {params:,} 个参数，混合精度 Adam 每参数 {BYTES_PER_PARAM:g} 字节。"
                "完整训练状态是多少 GiB？",
                en=f"Case {n}'s model has {params:,} parameters; mixed-precision Adam holds {BYTES_PER_PARAM:g} "
                "bytes per parameter. How many GiB is the full training state?",
            ),
            expected=_state_gib(case),
            slips=(
                GIB_VS_GB,
                MIB_VS_GIB,
                mistake(
                    "weights_only",
                    _weights_only_gib(params),
                    Text(
                        zh=f"你按每参数 {WEIGHT_BYTES_PER_PARAM:g} 字节算了，那只是 16 位的权重："
                        f"混合精度 Adam 的训练状态每参数 {BYTES_PER_PARAM:g} 字节"
                        "（权重、梯度、fp32 主副本、动量和方差）。",
                        en=f"You counted {WEIGHT_BYTES_PER_PARAM:g} bytes per parameter, the 16-bit weights alone: "
                        f"mixed-precision Adam's training state is {BYTES_PER_PARAM:g} bytes per parameter (weights, "
                        "gradients, the fp32 master copy, momentum and variance).",
                    ),
                ),
            ),
            hint=Text(
                zh="参数数 × 每参数字节数，再除以 2^30（GiB），不是 10^9（GB）。",
                en="Parameters × bytes per parameter, divided by 2^30 (GiB), not 10^9 (GB).",
            ),
            why=lambda value: Text(
                zh=f"{params:,} × {BYTES_PER_PARAM:g} B / 2^30 = {value:.1f} GiB。",
                en=f"{params:,} × {BYTES_PER_PARAM:g} B / 2^30 = {value:.1f} GiB.",
            ),
        ),
        replace=True,
    )
    register(
        Exercise(
            id=f"matrix.case{n}_kind",
            lesson=5,
            prompt=Text(
                zh=f"案例 {n} 属于哪一种？答 'fits_one_device'、'state_exceeds_device' 或 'layer_exceeds_device'"
                "（也可以写 模型可单卡容纳 / 训练状态超过单卡 / 单层超过单卡）。",
                en=f"Which kind is case {n}? Answer 'fits_one_device', 'state_exceeds_device' or "
                "'layer_exceeds_device'.",
            ),
            expected=lambda: case_kind(case),
            kind="choice",
            choices=CASE_KINDS,
            normalize=_kind_code,
            hint=Text(
                zh="先看最大一层：它加激活和预留放得下 24 GiB 吗？再看完整训练状态加激活和预留。",
                en="Look at the largest layer first: with activations and reserve, does it fit 24 GiB? Then the "
                "full training state with activations and reserve.",
            ),
            why=lambda kind: _kind_why(case, kind),
        ),
        replace=True,
    )


#: One hint per strategy for the twelve cells: the question to ask, never the verdict.
_CELL_HINTS: dict[str, Text] = {
    "DP": Text(
        zh="纯 DP 的每个 rank 要放下 训练状态 + 激活 + 预留：和设备显存比一比（容量门槛）。",
        en="Under pure DP every rank holds state + activations + reserve: compare it with the device (the fit gate).",
    ),
    "FSDP": Text(
        zh="先问需不需要：DP 已经放得下吗？再问做不做得到：FSDP 计算每层前要全收集 (all-gather) 整层，一层放得下吗？"
        "放不下时，它还能作为 TP 的第二个维度吗？",
        en="First ask whether it is needed: does DP already fit? Then whether it can work: FSDP gathers a whole "
        "layer before computing it; does one layer fit? If not, can it still be TP's second dimension?",
    ),
    "TP": Text(
        zh="有没有哪一层超过单卡？没有就不需要 TP。有的话 TP 必须切开它——而 TP 每层的集合通信需要什么样的链路，"
        "这个案例说明了吗？",
        en="Does any single layer exceed the device? If not, TP is not needed. If so, TP must split it, and what "
        "links do its per-layer collectives need? Does the case say?",
    ),
    "PP": Text(
        zh="一个阶段持有整层：一层放得下吗？DP 已经放得下时，分段换来了什么？"
        "一层放不下时，有没有不带气泡就放得下的组合？",
        en="A stage holds whole layers: does one layer fit? When DP already fits, what would stages buy? When a "
        "layer does not fit, is there a combination that fits without a bubble?",
    ),
}


def _register_cell(case: PaperCase, strategy: str) -> None:
    n = _case_number(case)

    def why(verdict: str) -> Text:
        reasons = evaluate_paper_case(case).verdict_of(strategy).reasons
        return Text(
            zh=f"{VERDICT_LABELS[verdict].zh}：" + "；".join(r.render("zh") for r in reasons) + "。",
            en=f"{VERDICT_LABELS[verdict].en}: " + "; ".join(r.render("en") for r in reasons) + ".",
        )

    register(
        Exercise(
            id=f"matrix.case{n}_{strategy.lower()}",
            lesson=5,
            prompt=Text(
                zh=f"案例 {n}、不知道拓扑时，{strategy} 的结论是什么？答 'feasible'、'not_preferred' 或 'needs_info'"
                "（也可以写 可行 / 不优先 / 需更多信息）。",
                en=f"Case {n}, no topology given: what is the verdict on {strategy}? Answer 'feasible', "
                "'not_preferred' or 'needs_info'.",
            ),
            expected=lambda: evaluate_paper_case(case).verdict_of(strategy).verdict,
            kind="choice",
            choices=VERDICTS,
            normalize=_verdict_code,
            hint=_CELL_HINTS[strategy],
            why=why,
        ),
        replace=True,
    )


for _case in PAPER_CASES:
    _register_case(_case)
    for _strategy_name in STRATEGIES:
        _register_cell(_case, _strategy_name)


def _gpus_per_node() -> int:
    return CASE_LAYER_EXCEEDS_DEVICE.gpus_per_node


def _case3_tp_degree() -> int | None:
    return evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE, "hierarchical").verdict_of("TP").degree


def _topology_changed() -> str:
    changed = [change.strategy for change in topology_changes(CASE_LAYER_EXCEEDS_DEVICE) if change.changed]
    if len(changed) != 1:  # the exercise asks for the one strategy whose verdict moves
        raise ValueError(f"expected exactly one changed verdict in case 3, got {changed}")
    return changed[0]


def _max_dp() -> int:
    return max_dp_degree(MAX_DP_GLOBAL_BATCH, MAX_DP_MICRO_BATCH)


TOPOLOGY_CHANGED = register(
    Exercise(
        id="matrix.topology_changed",
        lesson=5,
        prompt=Text(
            zh="案例 3（单层超过单卡）加上“节点内快、跨节点慢”的拓扑后，DP、FSDP、TP、PP 中哪一个策略的结论变了？",
            en="In case 3 (one layer exceeds one device), once the topology 'fast inside a node, slow between "
            "nodes' is given, which of DP, FSDP, TP and PP changes its verdict?",
        ),
        expected=_topology_changed,
        kind="choice",
        choices=STRATEGIES,
        normalize=_strategy,
        hint=Text(
            zh="哪个策略在没有拓扑信息时是“需更多信息”？它缺的正是链路信息。",
            en="Which strategy was 'needs more information' without a topology? What it lacked was the links.",
        ),
        why=lambda strategy: Text(
            zh=f"{strategy} 每层都有集合通信，需要高速链路；知道每个节点内有 {_gpus_per_node()} 张卡的快速互连后，"
            f"{strategy} = {_case3_tp_degree()} 可以放在节点内，从“需更多信息”变成“可行”。",
            en=f"{strategy} runs collectives in every layer and needs fast links; once we know each node has "
            f"{_gpus_per_node()} GPUs on fast links, {strategy} = {_case3_tp_degree()} fits inside a node and moves "
            "from 'needs more information' to 'feasible'.",
        ),
    ),
    replace=True,
)

MAX_DP = register(
    Exercise(
        id="matrix.max_dp",
        lesson=5,
        prompt=Text(
            zh=f"全局批大小 = {MAX_DP_GLOBAL_BATCH} 条序列，每个 rank 的微批次 = {MAX_DP_MICRO_BATCH}。"
            "不改全局批大小、也不缩小微批次，DP 并行度最大是多少？答一个整数。",
            en=f"The global batch is {MAX_DP_GLOBAL_BATCH} sequences and each rank's micro-batch is "
            f"{MAX_DP_MICRO_BATCH}. Without changing the global batch or shrinking the micro-batch, what is the "
            "largest DP degree? Answer an integer.",
        ),
        expected=_max_dp,
        kind="exact",
        slips=(
            mistake(
                "micro_batch_left_out",
                lambda: MAX_DP_GLOBAL_BATCH,
                Text(
                    zh="这是把每个 rank 的微批次当成一条序列：每个 DP rank 一步至少处理一个微批次。",
                    en="That treats each rank's micro-batch as one sequence: every DP rank processes at least one "
                    "micro-batch per step.",
                ),
            ),
        ),
        hint=Text(
            zh="dp × 微批次 × 梯度累积 = 全局批大小，梯度累积至少是 1。",
            en="dp × micro-batch × gradient accumulation = global batch, and the accumulation is at least 1.",
        ),
        why=lambda value: Text(
            zh=f"梯度累积为 1 时 dp = {MAX_DP_GLOBAL_BATCH} / {MAX_DP_MICRO_BATCH} = {value}；"
            "再大就要么加大全局批大小，要么把每个 rank 的微批次缩小。",
            en=f"With a gradient accumulation of 1 dp = {MAX_DP_GLOBAL_BATCH} / {MAX_DP_MICRO_BATCH} = {value}; "
            "beyond that you must grow the global batch or shrink each rank's micro-batch.",
        ),
    ),
    replace=True,
)

learner_functions(globals())
