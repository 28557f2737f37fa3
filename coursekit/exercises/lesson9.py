"""Exercises of lesson 9 (decision workbench): read the funnel, explain a rejection, run a what-if.

Every expected answer is computed with :func:`coursekit.planner.plan` from the inputs named
below (module constants, so the notebook quotes the same set-up).

>>> from coursekit.exercises import get_exercise
>>> get_exercise("plan.tp16_gate").expected_value()
'interconnect'

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from ..i18n import Text
from ..planner import PLAN_GATES, PlanResult, WorkloadSpec, plan
from ..presets import CLUSTERS, MODELS
from . import Exercise, register

#: plan.memory_removed: Llama-3 8B on the seed's box of 8 × 24 GiB cards, global batch 64 × 4096 tokens.
BOX_MODEL: str = "llama3-8b"
BOX_CLUSTER: str = "pcie-24g-8"
BOX_WORKLOAD: WorkloadSpec = WorkloadSpec(global_batch=64, seq_len=4096)

#: plan.tp16_gate and plan.slow_link: Llama-3 70B on 16 H100 nodes, global batch 1024 (the CLI example).
EXAMPLE_MODEL: str = "llama3-70b"
EXAMPLE_CLUSTER: str = "h100-8"
EXAMPLE_NODES: int = 16
EXAMPLE_WORKLOAD: WorkloadSpec = WorkloadSpec(global_batch=1024)
#: The composition of plan.tp16_gate.
TP16_DEGREES: str = "tp=16,pp=4,dp=2,zero=1,mb=1,recompute=full"
#: plan.slow_link: the inter-node bandwidth is divided by this.
SLOWDOWN: int = 8

_GATE_CODES: tuple[str, ...] = tuple(gate.code for gate in PLAN_GATES)


def _lower(text: str) -> str:
    return text.strip().lower()


@lru_cache(maxsize=4)
def _example(slowdown: int = 1) -> PlanResult:
    cluster = CLUSTERS[EXAMPLE_CLUSTER].with_nodes(EXAMPLE_NODES)
    cluster = replace(cluster, inter_node_bandwidth_bytes_per_s=cluster.inter_node_bandwidth_bytes_per_s / slowdown)
    return plan(MODELS[EXAMPLE_MODEL], cluster, EXAMPLE_WORKLOAD)


def memory_removed() -> int:
    """plan.memory_removed: candidates the fit gate removes first on the 24 GiB box."""
    result = plan(MODELS[BOX_MODEL], CLUSTERS[BOX_CLUSTER], BOX_WORKLOAD)
    return next(step.removed for step in result.funnel if step.code == "memory")


def tp16_gate() -> str:
    """plan.tp16_gate: the code of the first check that rejects :data:`TP16_DEGREES`."""
    return _example().explain(TP16_DEGREES).codes[0]


def slow_link_ratio() -> float:
    """plan.slow_link: best estimated step with the inter-node link ÷ 8, over the best with the normal link."""
    fast = _example().accepted(1)[0].step_s
    slow = _example(SLOWDOWN).accepted(1)[0].step_s
    assert fast is not None and slow is not None
    return slow / fast


MEMORY_REMOVED = register(
    Exercise(
        id="plan.memory_removed",
        lesson=9,
        prompt=Text(
            zh="在种子的 8 × 24 GiB 机器上规划 Llama-3 8B，global batch 64 条 × 4096 tokens。"
            "容量门槛 (memory) 第一个排除了多少个候选？用整数作答。",
            en="Plan Llama-3 8B on the seed's box of 8 × 24 GiB cards, global batch 64 × 4096 tokens. How many "
            "candidates does the fit gate (memory) remove first? Answer with an integer.",
        ),
        expected=memory_removed,
        kind="exact",
        hint=Text(
            zh="运行 plan(...)，在 result.funnel 里找 code 为 'memory' 的那一步，读它的 removed。",
            en="Run plan(...) and read `removed` of the step of result.funnel whose code is 'memory'.",
        ),
        why=lambda n: Text(
            zh=f"{n} 个：它们组合本身成立，但每 rank 的账本超过 24 GiB。漏斗把每个候选记在它第一个没通过的门槛上。",
            en=f"{n}: these compositions are well formed, but one rank's ledger exceeds 24 GiB. The funnel counts "
            "each candidate at the first gate it fails.",
        ),
    ),
    replace=True,
)

TP16_GATE = register(
    Exercise(
        id="plan.tp16_gate",
        lesson=9,
        prompt=Text(
            zh="Llama-3 70B，16 个 H100 节点（每节点 8 卡），global batch 1024。组合 "
            f"{TP16_DEGREES} 第一个被哪道门槛拒绝？用门槛代码作答，如 'memory'。",
            en=f"Llama-3 70B on 16 H100 nodes (8 GPUs each), global batch 1024. Which check rejects {TP16_DEGREES} "
            "first? Answer with the gate's code, e.g. 'memory'.",
        ),
        expected=tp16_gate,
        kind="choice",
        choices=_GATE_CODES,
        normalize=_lower,
        hint=Text(
            zh="用 result.explain('...') 看它的 reasons；想一想 16 个 rank 的 TP 组放在哪里。",
            en="Use result.explain('...') and read its reasons; where would a TP group of 16 ranks sit?",
        ),
        why=lambda code: Text(
            zh=f"'{code}'：TP 组有 16 个 rank，超出一个节点的 8 卡，每层的 collective 都要走机间链路。",
            en=f"'{code}': a TP group of 16 ranks leaves the 8-GPU node, so every layer's collectives cross the "
            "inter-node link.",
        ),
    ),
    replace=True,
)

SLOW_LINK = register(
    Exercise(
        id="plan.slow_link",
        lesson=9,
        prompt=Text(
            zh="同一个 Llama-3 70B 例子。假如机间带宽降到 1/8，估算最快的候选的步时变为原来的多少倍？"
            "（两次各取估算最快的通过候选；保留 3 位有效数字。）",
            en="Same Llama-3 70B example. If the inter-node bandwidth drops to 1/8, by what factor does the fastest "
            "accepted candidate's estimated step time grow? (Take the fastest accepted candidate each time; 3 "
            "significant digits.)",
        ),
        expected=slow_link_ratio,
        kind="number",
        rel_tol=5e-3,
        hint=Text(
            zh="用 coursekit.widgets.workbench.what_if(..., link_slowdown=8) 或 dataclasses.replace 改 ClusterSpec，"
            "比较两次 accepted(1)[0].step_s。",
            en="Use coursekit.widgets.workbench.what_if(..., link_slowdown=8) or dataclasses.replace on the "
            "ClusterSpec, and compare accepted(1)[0].step_s of both runs.",
        ),
        why=lambda ratio: Text(
            zh=f"约 {ratio:.3g} 倍：最快的组合本来就把高频通信留在节点内，只有低频的 PP/DP 走机间链路，"
            "所以慢 8 倍的链路只让步时变长一点——组合也可能随之改变。",
            en=f"About {ratio:.3g}×: the fastest composition already keeps frequent traffic inside nodes and only "
            "the infrequent PP/DP traffic crosses them, so an 8× slower link costs little — and the winner may "
            "change.",
        ),
    ),
    replace=True,
)
