"""Exercises of lesson 5 (S18 selection matrix): bubble, verdicts, topology, global batch, E(P).

Every expected answer is computed with coursekit: the bubble with
:func:`coursekit.pipeline.bubble_fraction`, the verdicts with
:func:`coursekit.matrix.evaluate_paper_case` and
:func:`coursekit.matrix.topology_changes`, the DP limit with
:func:`coursekit.gates.max_dp_degree` and the efficiency with
:func:`coursekit.scaling.scaling_efficiency`. The inputs are the seed's
(p = 4, m = 16) or illustrative numbers named below.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("s18.bubble_p4_m16").expected_value(), 4)
0.1579
>>> get_exercise("s18.case2_dp_verdict").expected_value()
'not_preferred'

Taught in: lesson 5 (S18 selection matrix).
"""

from __future__ import annotations

from ..gates import max_dp_degree
from ..i18n import Text
from ..matrix import (
    CASE_LAYER_EXCEEDS_DEVICE,
    CASE_STATE_EXCEEDS_DEVICE,
    STRATEGIES,
    VERDICT_LABELS,
    VERDICTS,
    evaluate_paper_case,
    topology_changes,
)
from ..pipeline import bubble_fraction
from ..scaling import scaling_efficiency
from . import Exercise, register

#: Seed 001, 最小练习 step 4: p = 4 stages; the two micro-batch counts the lesson compares are 4 and 16.
BUBBLE_STAGES: int = 4
BUBBLE_MICROBATCHES: int = 16

#: Exercise s18.max_dp: a global batch of 512 sequences, 4 sequences per rank per micro-step (illustrative).
MAX_DP_GLOBAL_BATCH: int = 512
MAX_DP_MICRO_BATCH: int = 4

#: Exercise s18.efficiency (illustrative measurements): one device 250 samples/s, 32 devices 6800 samples/s.
EFFICIENCY_SINGLE_DEVICE: float = 250.0
EFFICIENCY_DEVICES: int = 32
EFFICIENCY_THROUGHPUT: float = 6800.0


_BUBBLE_SUM: str = (
    f"({BUBBLE_STAGES}-1)/({BUBBLE_MICROBATCHES}+{BUBBLE_STAGES}-1) = "
    f"{BUBBLE_STAGES - 1}/{BUBBLE_MICROBATCHES + BUBBLE_STAGES - 1}"
)


def _verdict_code(answer: str) -> str:
    """Accept a verdict code or its label in either language ("不优先", "Not preferred", "not preferred")."""
    text = answer.strip()
    for code in VERDICTS:
        names = {code, code.replace("_", " "), VERDICT_LABELS[code].zh, VERDICT_LABELS[code].en.lower()}
        if text.lower() in names or text in names:
            return code
    return text


def _strategy(answer: str) -> str:
    return answer.strip().upper()


def _bubble() -> float:
    return bubble_fraction(BUBBLE_STAGES, BUBBLE_MICROBATCHES)


def _case2_dp_verdict() -> str:
    return evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("DP").verdict


def _topology_changed() -> str:
    changed = [change.strategy for change in topology_changes(CASE_LAYER_EXCEEDS_DEVICE) if change.changed]
    if len(changed) != 1:  # the exercise asks for the one strategy whose verdict moves
        raise ValueError(f"expected exactly one changed verdict in case 3, got {changed}")
    return changed[0]


def _gpus_per_node() -> int:
    return CASE_LAYER_EXCEEDS_DEVICE.gpus_per_node


def _case3_tp_degree() -> int | None:
    return evaluate_paper_case(CASE_LAYER_EXCEEDS_DEVICE, "hierarchical").verdict_of("TP").degree


def _max_dp() -> int:
    return max_dp_degree(MAX_DP_GLOBAL_BATCH, MAX_DP_MICRO_BATCH)


def _efficiency() -> float:
    return scaling_efficiency(EFFICIENCY_THROUGHPUT, EFFICIENCY_DEVICES, EFFICIENCY_SINGLE_DEVICE)


BUBBLE_P4_M16 = register(
    Exercise(
        id="s18.bubble_p4_m16",
        lesson=5,
        prompt=Text(
            zh=f"p = {BUBBLE_STAGES} 个流水线阶段、m = {BUBBLE_MICROBATCHES} 个微批次，朴素调度的气泡比例 "
            "(p-1)/(m+p-1) 是多少？答一个 0 到 1 之间的小数。",
            en=f"With p = {BUBBLE_STAGES} pipeline stages and m = {BUBBLE_MICROBATCHES} micro-batches, what is the "
            "bubble fraction (p-1)/(m+p-1) of the simple schedule? Answer with a number between 0 and 1.",
        ),
        expected=_bubble,
        hint=Text(
            zh="分子是 p-1，分母是 m+p-1（只除以 m 得到的是 Megatron 的开销，不是比例）；答的是比例（如 0.25），"
            "不是百分数。coursekit.pipeline.bubble_fraction 可以验证。",
            en="The numerator is p-1 and the denominator m+p-1 (dividing by m alone gives Megatron's overhead, not "
            "the fraction); answer a fraction (like 0.25), not a percentage. coursekit.pipeline.bubble_fraction can "
            "check it.",
        ),
        why=lambda value: Text(
            zh=f"{_BUBBLE_SUM} ≈ {value:.3f}：微批次从 {BUBBLE_STAGES} 增加到 {BUBBLE_MICROBATCHES}，气泡从 "
            f"{bubble_fraction(BUBBLE_STAGES, BUBBLE_STAGES):.0%} 降到 {value:.0%}。",
            en=f"{_BUBBLE_SUM} ≈ {value:.3f}: going from {BUBBLE_STAGES} to {BUBBLE_MICROBATCHES} micro-batches "
            f"shrinks the bubble from {bubble_fraction(BUBBLE_STAGES, BUBBLE_STAGES):.0%} to {value:.0%}.",
        ),
    ),
    replace=True,
)

CASE2_DP_VERDICT = register(
    Exercise(
        id="s18.case2_dp_verdict",
        lesson=5,
        prompt=Text(
            zh="案例 2（训练状态超过单卡）中，纯 DP 的结论是什么？答 'feasible'、'not_preferred' 或 'needs_info'"
            "（也可以写 可行 / 不优先 / 需更多信息）。",
            en="In case 2 (the training state exceeds one device), what is the verdict on pure DP? Answer "
            "'feasible', 'not_preferred' or 'needs_info'.",
        ),
        expected=_case2_dp_verdict,
        kind="choice",
        choices=VERDICTS,
        normalize=_verdict_code,
        hint=Text(
            zh="纯 DP 的每个 rank 要放下什么？把它和 24 GiB 的设备比一比（容量门槛）。",
            en="What must every rank hold under pure DP? Compare it with the 24 GiB device (the fit gate).",
        ),
        why=Text(
            zh="纯 DP 每个 rank 都要放下完整训练状态加激活和余量，超过单卡显存：被容量硬排除，所以不优先。",
            en="Under pure DP every rank holds the full training state plus activations and reserve, which exceeds "
            "the device: the fit gate excludes it, so it is not preferred.",
        ),
    ),
    replace=True,
)

TOPOLOGY_CHANGED = register(
    Exercise(
        id="s18.topology_changed",
        lesson=5,
        prompt=Text(
            zh="案例 3（单层超过单卡）加上“节点内快、节点间慢”的拓扑后，DP、FSDP、TP、PP 中哪一个策略的结论变了？",
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
        id="s18.max_dp",
        lesson=5,
        prompt=Text(
            zh=f"global batch = {MAX_DP_GLOBAL_BATCH} 条序列，每个 rank 的 micro-batch = {MAX_DP_MICRO_BATCH}。"
            "不改 global batch、也不缩小 micro-batch，DP degree 最大是多少？答一个整数。",
            en=f"The global batch is {MAX_DP_GLOBAL_BATCH} sequences and each rank's micro-batch is "
            f"{MAX_DP_MICRO_BATCH}. Without changing the global batch or shrinking the micro-batch, what is the "
            "largest DP degree? Answer an integer.",
        ),
        expected=_max_dp,
        kind="exact",
        hint=Text(
            zh="dp × micro-batch × 梯度累积 = global batch，梯度累积至少是 1。",
            en="dp × micro-batch × gradient accumulation = global batch, and the accumulation is at least 1.",
        ),
        why=lambda value: Text(
            zh=f"梯度累积为 1 时 dp = {MAX_DP_GLOBAL_BATCH} / {MAX_DP_MICRO_BATCH} = {value}；再大就要么加大 global "
            "batch，要么把每个 rank 的 micro-batch 缩小。",
            en=f"With no accumulation dp = {MAX_DP_GLOBAL_BATCH} / {MAX_DP_MICRO_BATCH} = {value}; beyond that you "
            "must grow the global batch or shrink each rank's micro-batch.",
        ),
    ),
    replace=True,
)

EFFICIENCY = register(
    Exercise(
        id="s18.efficiency",
        lesson=5,
        prompt=Text(
            zh=f"单设备吞吐 {EFFICIENCY_SINGLE_DEVICE:g} samples/s，{EFFICIENCY_DEVICES} 个设备吞吐 "
            f"{EFFICIENCY_THROUGHPUT:g} samples/s。扩展效率 E({EFFICIENCY_DEVICES}) 是多少？",
            en=f"One device gives {EFFICIENCY_SINGLE_DEVICE:g} samples/s and {EFFICIENCY_DEVICES} devices give "
            f"{EFFICIENCY_THROUGHPUT:g} samples/s. What is the scaling efficiency E({EFFICIENCY_DEVICES})?",
        ),
        expected=_efficiency,
        hint=Text(
            zh="E(P) = throughput(P) / (P · throughput(1))；答一个小数，不是百分数。",
            en="E(P) = throughput(P) / (P · throughput(1)); answer a fraction, not a percentage.",
        ),
        why=lambda value: Text(
            zh=f"{EFFICIENCY_THROUGHPUT:g} / ({EFFICIENCY_DEVICES} × {EFFICIENCY_SINGLE_DEVICE:g}) = {value:.3f}。"
            "它低于 1 本身不说明策略错了：要拆开一步的时间线，看是通信、等待还是输入。",
            en=f"{EFFICIENCY_THROUGHPUT:g} / ({EFFICIENCY_DEVICES} × {EFFICIENCY_SINGLE_DEVICE:g}) = {value:.3f}. "
            "Being below 1 does not by itself mean the strategy is wrong: take the step timeline apart to see "
            "whether it is communication, waiting or input.",
        ),
    ),
    replace=True,
)
