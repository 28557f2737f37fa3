"""Exercises of lesson 9 (decision workbench): read the funnel, explain a rejection, run what-ifs.

Every expected answer is computed with :func:`coursekit.planner.plan` from the inputs named
below (module constants, so the notebook quotes the same set-up).

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("plan.cp_cost").expected_value(), 2) > 1
True

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from .._validate import learner_functions
from ..i18n import Text
from ..planner import FunnelStep, PlanResult, WorkloadSpec, plan
from ..presets import CLUSTERS, MODELS
from . import COUNT_VS_BILLIONS, ROUNDED_COUNT, SIGN_FLIPPED, Exercise, mistake, register

#: plan.memory_removed: Llama-3 8B on the course's box of 8 × 24 GiB cards, global batch 64 × 4096 tokens.
BOX_MODEL: str = "llama3-8b"
BOX_CLUSTER: str = "pcie-24g-8"
BOX_WORKLOAD: WorkloadSpec = WorkloadSpec(global_batch=64, seq_len=4096)

#: plan.cp_cost and plan.slow_link: Llama-3 70B on 16 H100 nodes, global batch 1024 (the CLI example).
EXAMPLE_MODEL: str = "llama3-70b"
EXAMPLE_CLUSTER: str = "h100-8"
EXAMPLE_NODES: int = 16
EXAMPLE_WORKLOAD: WorkloadSpec = WorkloadSpec(global_batch=1024)
#: The composition of plan.cp_cost: context parallelism at 8K tokens on the same example, and its twin with CP
#: folded back into data parallelism.
CP_DEGREES: str = "tp=8,pp=2,dp=4,cp=2,zero=1,mb=1,recompute=selective"
CP_TWIN_DEGREES: str = "tp=8,pp=2,dp=8,cp=1,zero=1,mb=1,recompute=selective"
#: plan.slow_link: the inter-node bandwidth is divided by this (the lesson's table shows ÷ 8, not this).
SLOWDOWN: int = 5
#: plan.moe_active: a variant of the lesson's MoE what-if (which shows 8 experts, top-2) — every MLP of
#: Llama-3 70B becomes this many experts, this many routed per token.
MOE_EXPERTS: int = 16
MOE_TOP_K: int = 4


#: plan.cp_cost and plan.slow_link: a factor answered as its growth (factor - 1), or as that growth in percent.
_GROWTH_NOT_FACTOR = Text(
    zh="这是增长的部分（倍数减 1）；题目问的是新步时是原来的多少倍。",
    en="That is the growth (the factor minus 1); the question asks for the new step as a multiple of the old one.",
)
_PERCENT_GROWTH = Text(
    zh="这是以百分数写的增长（(倍数 - 1) × 100）；题目问的是倍数：新步时除以原来的步时，略大于 1。",
    en="That is the growth in percent ((factor - 1) × 100); the question asks for the factor itself: the new step "
    "divided by the old one, a little above 1.",
)


def _lower(text: str) -> str:
    return text.strip().lower()


@lru_cache(maxsize=4)
def _example(slowdown: int = 1) -> PlanResult:
    cluster = CLUSTERS[EXAMPLE_CLUSTER].with_nodes(EXAMPLE_NODES)
    cluster = replace(cluster, inter_node_bandwidth_bytes_per_s=cluster.inter_node_bandwidth_bytes_per_s / slowdown)
    return plan(MODELS[EXAMPLE_MODEL], cluster, EXAMPLE_WORKLOAD)


def _memory_step() -> FunnelStep:
    result = plan(MODELS[BOX_MODEL], CLUSTERS[BOX_CLUSTER], BOX_WORKLOAD)
    return next(step for step in result.funnel if step.code == "memory")


def memory_removed() -> int:
    """plan.memory_removed: candidates the fit gate removes first on the 24 GiB box."""
    return _memory_step().removed


def cp_cost() -> float:
    """plan.cp_cost: estimated step of :data:`CP_DEGREES` over that of its twin :data:`CP_TWIN_DEGREES`."""
    with_cp, twin = _example().explain(CP_DEGREES), _example().explain(CP_TWIN_DEGREES)
    assert with_cp.step_s is not None and twin.step_s is not None
    return with_cp.step_s / twin.step_s


def moe_active_billion() -> float:
    """plan.moe_active: active parameters (billions) of Llama-3 70B made MoE with 16 experts, top-4."""
    return MODELS[EXAMPLE_MODEL].as_moe(MOE_EXPERTS, MOE_TOP_K).active_params / 1e9


def moe_total_billion() -> float:
    """All parameters (billions) of the same MoE model: every expert, not only the routed ones."""
    return MODELS[EXAMPLE_MODEL].as_moe(MOE_EXPERTS, MOE_TOP_K).num_params / 1e9


def dense_active_billion() -> float:
    """Active parameters (billions) of the dense Llama-3 70B, before it is made MoE."""
    return MODELS[EXAMPLE_MODEL].active_params / 1e9


def slow_link_winners() -> tuple[str, str, float]:
    """plan.slow_link's story: the fastest composition with the normal link, the fastest with the slow link, and the
    first's estimated step on the slow link over the second's (how much the old winner would lose)."""
    fast, slow = _example().accepted(1)[0], _example(SLOWDOWN).accepted(1)[0]
    old_on_slow = _example(SLOWDOWN).explain(fast.label())
    assert old_on_slow.step_s is not None and slow.step_s is not None
    return fast.label(), slow.label(), old_on_slow.step_s / slow.step_s


def _slow_link_why(ratio: float) -> Text:
    old, new, loss = slow_link_winners()
    return Text(
        zh=f"约 {ratio:.3g} 倍：最快的组合换了一个。原来最快的 {old} 用 ZeRO-3 跨节点切分，每个微批次都要跨节点"
        f"收集参数、归约梯度，放到慢 {SLOWDOWN} 倍的链路上，估算步时是新的最快组合的 {loss:.1f} 倍；新的最快组合 "
        f"{new} 把 TP 留在节点内，跨节点只剩 PP 的点对点和每步一次、能藏在反向计算下的 DP 梯度同步，"
        "所以步时只多了一点。",
        en=f"About {ratio:.3g}×: the fastest composition changes. The old fastest, {old}, shards with ZeRO-3 across "
        f"nodes and gathers weights and reduces gradients across nodes every micro-batch; on the {SLOWDOWN}x slower "
        f"link its estimated step is {loss:.1f}x the new fastest's. The new fastest, {new}, keeps TP inside a node, "
        "and only PP's point-to-point traffic and the once-per-step DP gradient sync, which hides under backward, "
        "cross nodes, so the step grows only a little.",
    )


def slow_link_ratio() -> float:
    """plan.slow_link: best estimated step with the inter-node link ÷ :data:`SLOWDOWN`, over the best with the
    normal link."""
    fast = _example().accepted(1)[0].step_s
    slow = _example(SLOWDOWN).accepted(1)[0].step_s
    assert fast is not None and slow is not None
    return slow / fast


MEMORY_REMOVED = register(
    Exercise(
        id="plan.memory_removed",
        lesson=9,
        prompt=Text(
            zh="在课程的 8 × 24 GiB 机器上规划 Llama-3 8B，全局批大小 64 条 × 4096 token。"
            "在漏斗里，容量门槛 (memory) 那一行排除了多少个候选？用整数作答。",
            en="Plan Llama-3 8B on the course's box of 8 × 24 GiB cards, global batch 64 × 4096 tokens. How many "
            "candidates does the fit gate (memory) remove in the funnel? Answer with an integer.",
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
        slips=(
            mistake(
                "remaining",
                lambda: _memory_step().remaining,
                Text(
                    zh="这是通过容量门槛后剩下的候选数 (remaining)；题目问的是被它排除的 (removed)。",
                    en="That is how many candidates remain after the fit gate (remaining); the question asks how many "
                    "it removes (removed).",
                ),
            ),
            ROUNDED_COUNT,
            SIGN_FLIPPED,
        ),
    ),
    replace=True,
)

CP_COST = register(
    Exercise(
        id="plan.cp_cost",
        lesson=9,
        prompt=Text(
            zh="Llama-3 70B，16 个 H100 节点，全局批大小 1024 条 × 8192 个 token。组合 "
            f"{CP_DEGREES} 的估算步时是它把 CP 折回数据并行的孪生布局 {CP_TWIN_DEGREES} 的多少倍？"
            "（保留 3 位有效数字。）",
            en=f"Llama-3 70B on 16 H100 nodes, global batch 1024 × 8192 tokens. By what factor is the estimated step "
            f"of {CP_DEGREES} that of its twin with CP folded back into data parallelism, {CP_TWIN_DEGREES}? "
            "(3 significant digits.)",
        ),
        expected=cp_cost,
        kind="number",
        rel_tol=5e-3,
        min_digits=3,  # "3 significant digits": 1 is read as 1.00, not a match for a factor just above 1
        hint=Text(
            zh="两个都用 result.explain('...')，比较 step_s；再看两者的账本：CP 省掉了什么？",
            en="Use result.explain('...') for both and compare step_s; then read both ledgers: what does CP remove?",
        ),
        why=lambda ratio: Text(
            zh=f"约 {ratio:.3g} 倍：两者用同样的重计算，CP 没有省掉什么，只留下代价——每个 GPU 的矩阵乘 token 减半、"
            "K/V 环和反向后传回的 dK、dV。CP 被接受，但由估算把它排在后面。",
            en=f"About {ratio:.3g}×: both use the same recomputation, so CP removes nothing and leaves only its "
            "costs — half the tokens per matmul, the K/V ring and the dK, dV trip home after backward. CP is accepted, "
            "and the estimate ranks it behind.",
        ),
        slips=(
            mistake(
                "inverted",
                lambda: 1 / cp_cost(),
                Text(
                    zh="这是孪生布局除以 CP 布局：题目问的是 CP 布局的步时是孪生布局的多少倍。",
                    en="That is the twin over the CP layout: the question asks for the CP layout's step over the "
                    "twin's.",
                ),
            ),
            mistake("growth_not_factor", lambda: cp_cost() - 1, _GROWTH_NOT_FACTOR),
            mistake("percent_growth", lambda: (cp_cost() - 1) * 100, _PERCENT_GROWTH),
        ),
    ),
    replace=True,
)

MOE_ACTIVE = register(
    Exercise(
        id="plan.moe_active",
        lesson=9,
        prompt=Text(
            zh=f"把 Llama-3 70B 的每层 MLP 换成 {MOE_EXPERTS} 个专家、每个 token 路由 {MOE_TOP_K} 个"
            f"（ModelSpec.as_moe({MOE_EXPERTS}, {MOE_TOP_K})）。"
            "每个 token 经过的激活参数 (active parameters) 是多少十亿？",
            en=f"Make every MLP of Llama-3 70B {MOE_EXPERTS} experts with {MOE_TOP_K} routed per token "
            f"(ModelSpec.as_moe({MOE_EXPERTS}, {MOE_TOP_K})). How many billion active parameters does each token "
            "pass through?",
        ),
        expected=moe_active_billion,
        kind="number",
        rel_tol=5e-3,
        hint=Text(
            zh="每层多出的是 top_k - 1 个完整的 MLP（3·h·f）和一个 h × 专家数 的路由器；"
            "或者读 as_moe(...).active_params。",
            en="Each layer gains top_k - 1 whole MLPs (3·h·f) and an h × experts router; or read "
            "as_moe(...).active_params.",
        ),
        why=lambda billions: Text(
            zh=f"约 {billions:.1f}B：top-{MOE_TOP_K} 让每个 token 过 {MOE_TOP_K} 个 MLP，"
            "每 token 的计算随 top_k 增长，而不是随专家总数。",
            en=f"About {billions:.1f}B: top-{MOE_TOP_K} sends each token through {MOE_TOP_K} MLPs; the compute per "
            "token grows with top_k, not with the number of experts.",
        ),
        slips=(
            COUNT_VS_BILLIONS,  # 2.397e11 parameters for 239.7 (billion)
            mistake(
                "total_not_active",
                moe_total_billion,
                Text(
                    zh=f"这是全部 {MOE_EXPERTS} 个专家的总参数量 (num_params)；每个 token 只经过路由选中的 "
                    f"{MOE_TOP_K} 个专家。",
                    en=f"That is the total of all {MOE_EXPERTS} experts (num_params); each token passes only through "
                    f"the {MOE_TOP_K} experts its router picks.",
                ),
            ),
            mistake(
                "dense",
                dense_active_billion,
                Text(
                    zh="这是原来的稠密模型：每个 token 经过的不是一个 MLP，而是 top_k 个专家 MLP。",
                    en="That is the dense model you started from: each token passes through top_k expert MLPs, not "
                    "one MLP.",
                ),
            ),
        ),
    ),
    replace=True,
)

SLOW_LINK = register(
    Exercise(
        id="plan.slow_link",
        lesson=9,
        prompt=Text(
            zh=f"同一个 Llama-3 70B 例子。假如跨节点带宽降到 1/{SLOWDOWN}，估算最快的候选的步时变为原来的多少倍？"
            "（两次各取估算最快的通过候选；保留 3 位有效数字。）",
            en=f"Same Llama-3 70B example. If the inter-node bandwidth drops to 1/{SLOWDOWN}, by what factor does "
            "the fastest accepted candidate's estimated step time grow? (Take the fastest accepted candidate each "
            "time; 3 significant digits.)",
        ),
        expected=slow_link_ratio,
        kind="number",
        rel_tol=5e-3,
        min_digits=3,  # "3 significant digits": 1 is read as 1.00, not a match for a factor just above 1
        hint=Text(
            zh=f"用 coursekit.planner.what_if(..., link_slowdown={SLOWDOWN})，比较两次 accepted(1)[0].step_s。",
            en=f"Use coursekit.planner.what_if(..., link_slowdown={SLOWDOWN}) and compare accepted(1)[0].step_s of "
            "both runs.",
        ),
        why=_slow_link_why,
        slips=(
            mistake(
                "inverted",
                lambda: 1 / slow_link_ratio(),
                Text(
                    zh="比值倒过来了：用慢链路的步时除以正常链路的步时，步时变长时这个倍数大于 1。",
                    en="The ratio is upside down: divide the step with the slow link by the step with the normal link; "
                    "a longer step gives a factor above 1.",
                ),
            ),
            mistake("growth_not_factor", lambda: slow_link_ratio() - 1, _GROWTH_NOT_FACTOR),
            mistake("percent_growth", lambda: (slow_link_ratio() - 1) * 100, _PERCENT_GROWTH),
            mistake(
                "link_factor",
                lambda: float(SLOWDOWN),
                Text(
                    zh="这是链路变慢的倍数；步时不会同比例变长，因为大部分时间花在计算和节点内通信上。"
                    "用规划器估算两次的步时再相除。",
                    en="That is how much the link slowed; the step does not grow in proportion, since most of it is "
                    "compute and traffic inside nodes. Estimate both steps with the planner and divide.",
                ),
            ),
        ),
    ),
    replace=True,
)

learner_functions(globals())
