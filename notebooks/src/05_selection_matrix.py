# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 5 课：S18 场景选择矩阵——DP、FSDP、TP、PP 各在什么场景下可行
#
# [English version](../en/05_selection_matrix.ipynb) · [术语表](glossary.ipynb) · [上一课](04_composition.ipynb) · [下一课：公式与实测](08_lab.ipynb)
#
# > **时间：** 讲解 30 分钟，练习 20 分钟（共 50 分钟）
# >
# > **问题：**
# > - 数据并行 (data parallelism, DP)、全分片数据并行 (fully sharded data parallel, FSDP)、张量并行 (tensor parallelism, TP) 和流水线并行 (pipeline parallelism, PP) 各解决什么瓶颈，代价是什么？
# > - 模型放不下、单层放不下、互连分快慢、global batch 有上限时，选择怎样变化？
# > - 流水线气泡 (pipeline bubble) 和扩展效率 (scaling efficiency) 怎么算？它们下降时说明了什么、没说明什么？
# >
# > **目标（种子 S18 的学习目标）：**
# > 1. 能为 DP/FSDP/TP/PP 建立“解决的瓶颈—主要通信—适用条件—代价”矩阵。
# > 2. 能根据模型容量、单卡内存、互连和 batch 特征做初步排除。
# > 3. 能理解混合并行 (hybrid parallelism) 的层次与拓扑亲和性。
# > 4. 能识别掉队者 (straggler)、流水线气泡和小 batch 效率问题。
# >
# > **前置：** 第 1 课（容量账本）、第 2 课（通信账本）、第 3 课（硬门槛）、第 4 课（组合检查）。

# %% [markdown] lang="en"
# # Lesson 5: The S18 selection matrix — when DP, FSDP, TP and PP are feasible
#
# [中文版](../zh/05_selection_matrix.ipynb) · [Glossary](glossary.ipynb) · [Previous lesson](04_composition.ipynb) · [Next: formula vs measurement](08_lab.ipynb)
#
# > **Time:** teaching 30 min, exercises 20 min (50 min in all)
# >
# > **Questions:**
# > - Which bottleneck do data parallelism (DP), fully sharded data parallel (FSDP), tensor parallelism (TP) and pipeline parallelism (PP) each solve, and at what cost?
# > - How does the choice move when the model does not fit, when one layer does not fit, when links are fast inside a node and slow between nodes, and when the global batch is capped?
# > - How are the pipeline bubble and the scaling efficiency computed? When they get worse, what do they tell us, and what do they not?
# >
# > **Objectives (the learning goals of seed S18):**
# > 1. Build the matrix "bottleneck solved — main communication — conditions — cost" for DP / FSDP / TP / PP.
# > 2. Make a first exclusion from model capacity, device memory, interconnect and batch characteristics.
# > 3. Understand the layers of hybrid parallelism and their affinity to the topology.
# > 4. Recognize stragglers, the pipeline bubble and small-batch efficiency problems.
# >
# > **Prerequisites:** lesson 1 (capacity ledger), lesson 2 (communication ledger), lesson 3 (hard gates), lesson 4 (composition checks).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Image, Markdown, display

from coursekit.capacity import PRECISION_RECIPES, activation_memory, build_resource_ledger, training_state_memory
from coursekit.communication import tp_traffic, traffic_time
from coursekit.exercises import check, verify
from coursekit.gates import check_global_batch, check_pp_degree, check_tp_degree, dp_degrees_for_batch, max_dp_degree
from coursekit.hardware import link_preset
from coursekit.i18n import Text, tr
from coursekit.matrix import (
    CASE_FITS_ONE_DEVICE,
    CASE_LAYER_EXCEEDS_DEVICE,
    CASE_STATE_EXCEEDS_DEVICE,
    MATRIX_HEADERS,
    PAPER_CASES,
    STRATEGIES,
    evaluate_paper_case,
    evaluate_paper_cases,
    matrix_table,
    topology_changes,
)
from coursekit.pipeline import bubble_fraction, bubble_overhead, gantt_rows, simulate_schedule
from coursekit.plotting import figure_to_png, label, new_figure
from coursekit.scaling import (
    diagnose_efficiency,
    load_imbalance_s,
    scaling_curve,
    scaling_efficiency,
    step_timeline,
)
from coursekit.units import GB_BYTES, MS_PER_S, bytes_to_gib, gib_to_bytes
from coursekit.widgets.pipeline import PipelineWidget
from coursekit.widgets.scaling import ScalingWidget


def show_table(header, rows):
    """Display rows of cells as a Markdown table (presentation only; the numbers come from coursekit)."""
    lines = ["| " + " | ".join(str(cell) for cell in header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    display(Markdown("\n".join(lines)))


# %% [markdown] lang="zh"
# ## 一句话定义
#
# > 并行策略选择是在**模型能否放下、计算强度、通信拓扑、batch/context、故障恢复和实现复杂度**之间寻找可接受的组合，
# > 而不是寻找普遍最优的算法。
#
# 这句话决定了本课的做法：先用硬约束排除（放不下、batch 不允许、互连不匹配），再在留下的候选之间比较代价；
# 最后列出只有测量才能确认的因素。没有哪一种策略“总是最好”。

# %% [markdown] lang="en"
# ## One-line definition
#
# > Choosing a parallel strategy means finding an acceptable combination among **whether the model fits, compute
# > intensity, communication topology, batch / context, failure recovery and implementation complexity** — not
# > finding a universally best algorithm.
#
# This sentence sets the method of the lesson: exclude with hard constraints first (does not fit, batch does not
# allow it, links do not match), then compare the cost of the candidates that remain, and finally list the factors
# that only measurement can confirm. No strategy is "always best".

# %% [markdown] lang="zh"
# ## 选择矩阵：解决的瓶颈—主要通信—适用条件—代价
#
# 下表由 `coursekit.matrix.SELECTION_MATRIX` 生成（`matrix_table()` 按当前语言给出文字）。
# 读的时候按列看：**先看“适用条件”能不能满足，再看“代价”能不能接受**。

# %% [markdown] lang="en"
# ## The selection matrix: bottleneck solved — main communication — conditions — cost
#
# The table is generated from `coursekit.matrix.SELECTION_MATRIX` (`matrix_table()` gives the text in the current
# language). Read it by column: **first whether the conditions can be met, then whether the cost is acceptable**.

# %%
table = matrix_table()
show_table(table[0], table[1:])
assert [row[0] for row in table[1:]] == list(STRATEGIES) == ["DP", "FSDP", "TP", "PP"]
assert len(table[0]) == len(MATRIX_HEADERS) == 5

# %% [markdown] lang="zh"
# ## 核心知识
#
# **四种策略各管一件事。** 如果模型与优化器状态 (optimizer state) 能放入单卡，DP 最简单：用更多 batch 提高吞吐，
# 但每张卡都完整复制一份状态。模型状态放不下时，FSDP / 零冗余优化器 (ZeRO) 把状态分片 (shard)，需要时再全收集 (all-gather)，
# 代价是更频繁的通信和更多实现细节。单层矩阵本身放不下，或者希望扩大层内计算时，可以用 TP，但它每层都有集合通信，
# 通常需要高速互连。PP 按层切分，只在阶段 (stage) 边界传激活和梯度，可以跨较慢的互连，但会出现气泡、阶段不平衡和调度复杂性。
#
# **选择还受 batch 和 context 限制。** DP degree 太大，会迫使全局批大小 (global batch size) 增大，或者每个 rank 的
# 微批次 (micro-batch) 过小，影响优化效果和 kernel 效率。长上下文 (long context) 让激活和注意力计算变大，这时需要的可能是
# 序列并行 (sequence parallelism) / 上下文并行 (context parallelism, CP) 或激活重计算 (activation recomputation)，
# 而不是一味增加 DP。混合专家模型 (mixture of experts, MoE) 还要考虑专家并行 (expert parallelism, EP) 和 token 路由的负载均衡。
#
# **混合并行的层次要贴合拓扑。** 常见做法是把节点内的高速互连留给 TP，把节点之间的维度给 DP / PP，但这不是固定规则。
# 拓扑映射错了，高频通信就会跑在慢链路上（第 4 课的 `topology_report` 就是检查这一点）。运维层面还要考虑
# checkpoint 格式、弹性伸缩 (elasticity)、作业启动时间和调试难度：这些不出现在吞吐公式里，却决定方案能不能长期运行。

# %% [markdown] lang="en"
# ## Core knowledge
#
# **Each of the four strategies handles one thing.** If the model and its optimizer state fit one device, DP is the
# simplest: more batch raises throughput, but every device replicates the whole state. When the model states do not
# fit, FSDP / the Zero Redundancy Optimizer (ZeRO) shards them and all-gathers them when needed, at the price of more
# frequent communication and more implementation detail. When a single layer's matrices do not fit, or the layer's
# compute should be spread, TP splits the layer, but it runs collectives in every layer and usually needs fast links.
# PP cuts the model by layers and passes only activations and gradients at stage boundaries, so it tolerates slower
# links, but it brings the bubble, stage imbalance and scheduling complexity.
#
# **The batch and the context also limit the choice.** Too large a DP degree forces a larger global batch size or a
# tiny micro-batch per rank, which hurts optimization and kernel efficiency. A long context makes activations and
# attention compute grow; what it needs may be sequence parallelism / context parallelism (CP) or activation
# recomputation, not more DP. A mixture-of-experts (MoE) model also brings expert parallelism (EP) and the load
# balance of token routing into the decision.
#
# **The layers of a hybrid must follow the topology.** A common layout keeps TP on the fast links inside a node and
# gives the across-node dimensions to DP / PP, but this is not a fixed rule. A wrong mapping puts frequent
# communication on slow links (lesson 4's `topology_report` checks exactly this). Operations matter too: checkpoint
# format, elasticity, job start-up time and how hard it is to debug do not appear in any throughput formula, yet they
# decide whether a plan can run for months.

# %% [markdown] lang="zh"
# ## 机制一：M_model > C_device 直接排除纯 DP
#
# 记 $M_\text{model}$ 为完整训练状态（参数、梯度、优化器状态），$C_\text{device}$ 为单卡可用显存。纯 DP 的每个 rank 都持有
# 完整的 $M_\text{model}$，再加激活和运行时预留 (runtime reserve)。所以只要
#
# $$M_\text{model} + \text{activations} + \text{reserve} > C_\text{device},$$
#
# 纯 DP 就被容量**直接排除**，不需要再比较通信。下面用本课的案例 2（训练状态 40 GiB，设备 24 GiB）算一遍。

# %% [markdown] lang="en"
# ## Mechanism 1: M_model > C_device excludes pure DP
#
# Let $M_\text{model}$ be the full training state (parameters, gradients, optimizer state) and $C_\text{device}$ the
# usable memory of one device. Under pure DP every rank holds the whole $M_\text{model}$, plus activations and the
# runtime reserve. So as soon as
#
# $$M_\text{model} + \text{activations} + \text{reserve} > C_\text{device},$$
#
# pure DP is **excluded by capacity alone**, before any communication is compared. The next cell works it out for
# this lesson's case 2 (40 GiB of training state on a 24 GiB device).

# %%
case2 = CASE_STATE_EXCEEDS_DEVICE
dp_ledger = build_resource_ledger(
    case2.training_state_gib, case2.activation_gib, case2.runtime_reserve_gib, case2.device_memory_gib
)
print(case2.title)
print("  DP:", dp_ledger.explain())
assert not dp_ledger.fits_one_device
assert evaluate_paper_case(case2).verdict_of("DP").codes == ("memory",)

# %% [markdown] lang="zh"
# ## 机制二：FSDP ≈ M_model / P，再加激活和 gather 峰值
#
# FSDP（ZeRO-3）把参数、梯度和优化器状态都切成 $P$ 份，理想情况下每个 rank 只持有 $M_\text{model}/P$。
# 但计算某一层之前，要先把这一层的参数全收集回来，所以还要加上**一整层参数的 gather 峰值**，以及激活和运行时预留：
#
# $$M_\text{rank} \approx \frac{M_\text{model}}{P} + \text{activations} + \text{reserve} + W_\text{largest layer}.$$
#
# 下面用 `training_state_memory(..., zero_stage=3)` 算分片后的状态（按混合精度 Adam 每参数 16 字节，把案例 2 的 40 GiB
# 换算成参数量），再把结果和 `evaluate_paper_case` 给 FSDP 的每 rank 显存对照——同一个数从两条路得到。

# %% [markdown] lang="en"
# ## Mechanism 2: FSDP ≈ M_model / P, plus activations and the gather peak
#
# FSDP (ZeRO-3) shards parameters, gradients and optimizer state into $P$ parts, so ideally each rank holds
# $M_\text{model}/P$. But before computing a layer it must all-gather that layer's parameters, so **the gather peak of
# one whole layer** comes on top, with the activations and the runtime reserve:
#
# $$M_\text{rank} \approx \frac{M_\text{model}}{P} + \text{activations} + \text{reserve} + W_\text{largest layer}.$$
#
# The next cell computes the sharded state with `training_state_memory(..., zero_stage=3)` (case 2's 40 GiB turned into
# a parameter count at 16 bytes per parameter for mixed-precision Adam), then checks the result against the per-rank
# memory `evaluate_paper_case` gives FSDP: the same number reached two ways.

# %%
recipe = PRECISION_RECIPES["zero-fp16-adam"]
case2_params = gib_to_bytes(case2.training_state_gib) / recipe.bytes_per_param
rows = []
per_rank = {}
for ranks in (1, 8, 32):
    shard_gib = training_state_memory(case2_params, dp=ranks, zero_stage=3).total_gib
    ledger = build_resource_ledger(
        shard_gib + case2.largest_layer_gib, case2.activation_gib, case2.runtime_reserve_gib, case2.device_memory_gib
    )
    per_rank[ranks] = ledger.required_gib
    rows.append([ranks, f"{shard_gib:.2f}", f"{ledger.required_gib:.2f}", ledger.explain()])
print(Text(zh=f"案例 2 的参数量：{case2_params:.3g}（{recipe.bytes_per_param:g} 字节/参数）",
           en=f"Case 2 as parameters: {case2_params:.3g} ({recipe.bytes_per_param:g} bytes per parameter)"))
show_table(
    [Text(zh="FSDP 分片数 P", en="FSDP ranks P"), Text(zh="M_model/P (GiB)", en="M_model/P (GiB)"),
     Text(zh="每 rank 合计 (GiB)", en="per rank, total (GiB)"), Text(zh="容量账本", en="capacity ledger")],
    rows,
)
# Two ways to the same number: the ledger above and the S18 evaluation.
assert abs(per_rank[32] - evaluate_paper_case(case2).verdict_of("FSDP").memory_per_rank_gib) < 0.01
assert abs(per_rank[8] - evaluate_paper_case(case2, "hierarchical").verdict_of("FSDP").memory_per_rank_gib) < 0.01

# %% [markdown] lang="zh"
# P = 1 时 FSDP 就是 DP，放不下；分到 8 个或 32 个 rank 后都放得下。注意 P 越大，$M_\text{model}/P$ 越小，
# 但激活、运行时预留和 gather 峰值**不随 P 缩小**——它们决定了 FSDP 的下限。
#
# TP 和 PP 的通信机制简述：TP 的通信量与层内张量大小 (b·s·h) 和每层集合通信的次数有关（每层前向、反向各 2 次 all-reduce）；
# PP 只在阶段边界传激活，流水线利用率主要受微批次数 m 和阶段数 p 影响——这就是后面的气泡公式。

# %% [markdown] lang="en"
# With P = 1 FSDP is DP and does not fit; sharded over 8 or 32 ranks it fits. Note that a larger P shrinks
# $M_\text{model}/P$, but the activations, the runtime reserve and the gather peak **do not shrink with P**: they set
# FSDP's floor.
#
# The communication of TP and PP in brief: TP's volume grows with the size of the in-layer tensor (b·s·h) and the
# number of collectives per layer (2 all-reduces in forward and 2 in backward); PP passes activations only at stage
# boundaries, and its utilization depends mainly on the micro-batch count m and the stage count p — the bubble
# formula further down.

# %% [markdown] lang="zh"
# ## 三个纸面案例（种子练习第 1–2 步）
#
# 种子让我们构造三个案例：**模型可单卡、状态超单卡、单层超单卡**，再为每个案例给 DP / FSDP / TP / PP 填
# **可行 / 不优先 / 需更多信息**。`coursekit.matrix.PAPER_CASES` 给出了带具体数字的三个案例
# （设备 24 GiB，4 个节点 × 8 卡，global batch 64，micro-batch 1）：

# %% [markdown] lang="en"
# ## Three paper cases (seed exercise, steps 1–2)
#
# The seed asks for three cases — **the model fits one device, the state exceeds one device, one layer exceeds one
# device** — and for each a verdict on DP / FSDP / TP / PP: **feasible / not preferred / needs more information**.
# `coursekit.matrix.PAPER_CASES` gives the three cases with numbers (24 GiB devices, 4 nodes × 8 GPUs, a global
# batch of 64, micro-batch 1):

# %%
show_table(
    [Text(zh="案例", en="Case"), Text(zh="训练状态 (GiB)", en="training state (GiB)"),
     Text(zh="激活 (GiB)", en="activations (GiB)"), Text(zh="预留 (GiB)", en="reserve (GiB)"),
     Text(zh="最大一层 (GiB)", en="largest layer (GiB)"), Text(zh="层数", en="layers"),
     Text(zh="设备 (GiB)", en="device (GiB)")],
    [[case.title, case.training_state_gib, case.activation_gib, case.runtime_reserve_gib, case.largest_layer_gib,
      case.num_layers, case.device_memory_gib] for case in PAPER_CASES],
)

# %% [markdown] lang="zh"
# 评判顺序与第 3 课相同：**先排除，后比较**。
# 1. 硬排除：容量门槛、一层是否拆得开、global batch 是否允许；知道拓扑时，TP 组是否离开节点。
# 2. 不需要：最小可行 degree 是 1 时，这个策略只增加通信和复杂度，没有容量收益，记“不优先”。
# 3. 缺信息：TP 需要高速链路，而案例没说明拓扑，记“需更多信息”。
# 4. 其余记“可行”，并写出 degree、每 rank 显存等。
#
# ### 练习 5.1
#
# 先不看结果：案例 2（训练状态超过单卡）中，纯 DP 的结论是什么？
# 答 `"feasible"`、`"not_preferred"` 或 `"needs_info"`（也可以写“可行 / 不优先 / 需更多信息”）。

# %% [markdown] lang="en"
# The order of judgement is lesson 3's: **exclude first, compare later**.
# 1. Hard exclusions: the fit gate, whether a layer can be split, whether the global batch allows the degree; with a
#    known topology, whether a TP group leaves its node.
# 2. Not needed: when the smallest degree that fits is 1, the strategy only adds communication and complexity for no
#    capacity gain: "not preferred".
# 3. Missing information: TP needs fast links, and the case does not say what the links are: "needs more information".
# 4. Everything else is "feasible", with the degree, the memory per rank and so on.
#
# ### Exercise 5.1
#
# Before looking at the results: in case 2 (the training state exceeds one device), what is the verdict on pure DP?
# Answer `"feasible"`, `"not_preferred"` or `"needs_info"`.

# %% tags=["learner"]
answer = ...
check("s18.case2_dp_verdict", answer)

# %% tags=["solution"]
answer = evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("DP").verdict
verify("s18.case2_dp_verdict", answer)

# %% [markdown] lang="zh"
# 三个案例的完整结论（没有拓扑信息时）：

# %% [markdown] lang="en"
# The full verdicts of the three cases (no topology given):

# %%
evaluations = evaluate_paper_cases()
show_table(
    [Text(zh="案例", en="Case"), *STRATEGIES],
    [[case.title, *[verdict.label for verdict in evaluation.verdicts]]
     for case, evaluation in zip(PAPER_CASES, evaluations)],
)
for case, evaluation in zip(PAPER_CASES, evaluations):
    lines = [f"**{case.title}**"]
    for verdict in evaluation.verdicts:
        for reason in verdict.reasons:
            lines.append(f"- {verdict.strategy} · {verdict.label}: {reason.message}")
    display(Markdown("\n".join(lines)))

assert [e.summary() for e in evaluations] == [
    {"DP": "feasible", "FSDP": "not_preferred", "TP": "not_preferred", "PP": "not_preferred"},
    {"DP": "not_preferred", "FSDP": "feasible", "TP": "not_preferred", "PP": "feasible"},
    {"DP": "not_preferred", "FSDP": "not_preferred", "TP": "needs_info", "PP": "not_preferred"},
]

# %% [markdown] lang="zh"
# 读表时注意两种“不优先”的区别：案例 2 的 DP 是**硬排除**（放不下，`hard_excluded=True`）；案例 1 的 FSDP / TP / PP 是
# **不需要**（放得下，再切只增加通信和复杂度）。案例 3 中一层就有 30 GiB，FSDP 和 PP 都要在某个 rank 上持有整层，
# 所以只有先用 TP 把这一层切开；而 TP 需要高速链路，案例没说拓扑，只能记“需更多信息”。

# %% [markdown] lang="en"
# Tell the two kinds of "not preferred" apart: DP in case 2 is **hard-excluded** (it does not fit,
# `hard_excluded=True`); FSDP / TP / PP in case 1 are **not needed** (it already fits; splitting only adds
# communication and complexity). In case 3 one layer alone is 30 GiB, and FSDP and PP must both hold a whole layer on
# some rank, so the layer has to be split by TP first; TP needs fast links, and the case does not say what the links
# are, so the verdict is "needs more information".

# %%
assert evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE).verdict_of("DP").hard_excluded
assert not evaluate_paper_case(CASE_FITS_ONE_DEVICE).verdict_of("FSDP").hard_excluded
assert evaluate_paper_case(CASE_FITS_ONE_DEVICE).verdict_of("FSDP").codes == ("unneeded",)

# %% [markdown] lang="zh"
# ## 加上拓扑：节点内快、节点间慢（种子练习第 3 步）
#
# 现在补充一条信息：每个节点 8 张卡，节点内是高速互连（如 NVLink），节点之间是慢得多的网络。
# `topology_changes(case)` 对比加拓扑前后每个策略的结论和理由。
#
# ### 练习 5.2
#
# 先猜：案例 3（单层超过单卡）加上这个拓扑后，DP、FSDP、TP、PP 中**哪一个**的结论会变？答策略名，如 `"PP"`。

# %% [markdown] lang="en"
# ## Adding the topology: fast inside a node, slow between nodes (seed exercise, step 3)
#
# Now one more fact: each node has 8 GPUs on fast links (e.g. NVLink), and nodes are joined by a much slower network.
# `topology_changes(case)` compares each strategy's verdict and reasons before and after the topology is given.
#
# ### Exercise 5.2
#
# Guess first: in case 3 (one layer exceeds one device), **which one** of DP, FSDP, TP and PP changes its verdict once
# this topology is known? Answer a strategy name such as `"PP"`.

# %% tags=["learner"]
answer = ...
check("s18.topology_changed", answer)

# %% tags=["solution"]
answer = next(change.strategy for change in topology_changes(CASE_LAYER_EXCEEDS_DEVICE) if change.changed)
verify("s18.topology_changed", answer)

# %%
rows = []
for case in PAPER_CASES:
    before = evaluate_paper_case(case)
    after = evaluate_paper_case(case, "hierarchical")
    cells = []
    for old, new in zip(before.verdicts, after.verdicts):
        arrow = "→" if old.verdict != new.verdict or old.degree != new.degree else "="
        degrees = ["-" if v.degree is None else v.degree for v in (old, new)]
        cells.append(f"{old.label} ({degrees[0]}) {arrow} {new.label} ({degrees[1]})")
    rows.append([case.title, *cells])
print(Text(zh="格式：加拓扑前 (degree) → 加拓扑后 (degree)", en="Format: before (degree) → after (degree)"))
show_table([Text(zh="案例", en="Case"), *STRATEGIES], rows)

for case in (CASE_STATE_EXCEEDS_DEVICE, CASE_LAYER_EXCEEDS_DEVICE):
    lines = [f"**{case.title}**"]
    for change in topology_changes(case):
        for reason in change.reasons_after:
            if reason.code in ("dp_across_nodes", "fsdp_hybrid", "tp_inside_node", "pp_across_nodes"):
                lines.append(f"- {change.strategy}: {reason.message}")
    display(Markdown("\n".join(lines)))

changed = {case.key: [c.strategy for c in topology_changes(case) if c.changed] for case in PAPER_CASES}
assert changed == {"fits_one_device": [], "state_exceeds_device": [], "layer_exceeds_device": ["TP"]}
assert evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE, "hierarchical").verdict_of("FSDP").degree == 8

# %% [markdown] lang="zh"
# **选择怎样移动，为什么：**
#
# - 案例 3 的 TP 从“需更多信息”变成“可行”：TP = 4 能放在一个 8 卡节点之内，每层的集合通信留在高速链路上。
#   如果 TP 组必须跨节点（`check_tp_degree` 会拒绝 tp > 每节点卡数），结论就会是硬排除。
# - 案例 2 的 FSDP 结论没变，但**做法**变了：只在节点内分片（degree 32 → 8），节点之间复制。这样每层的 all-gather
#   走机内高速链路，跨节点的只有每步一次梯度全归约——这就是 PyTorch 的 HYBRID_SHARD 思路。
# - DP 和 PP 适合放在跨节点的维度：DP 每步只同步一次，PP 只在阶段边界传点对点 (point-to-point) 激活。
#
# 这正是“节点内用 TP、节点间用 DP/PP”这条常见做法的来由：**按通信频率把维度映射到链路**。它不是固定规则，
# 例如单层不需要切时就根本不需要 TP。

# %% [markdown] lang="en"
# **How the choices move, and why:**
#
# - TP in case 3 moves from "needs more information" to "feasible": TP = 4 fits inside one 8-GPU node, so every
#   layer's collectives stay on the fast links. If the TP group had to cross nodes (`check_tp_degree` refuses
#   tp > GPUs per node), the verdict would be a hard exclusion.
# - FSDP in case 2 keeps its verdict, but the **way** changes: shard inside a node only (degree 32 → 8) and replicate
#   across nodes. Each layer's all-gather then runs on the fast intra-node links, and only one gradient all-reduce per
#   step crosses nodes — the idea behind PyTorch's HYBRID_SHARD.
# - DP and PP suit the across-node dimension: DP synchronizes once per step, PP passes point-to-point activations only
#   at stage boundaries.
#
# This is where the common layout "TP inside a node, DP/PP between nodes" comes from: **map each dimension to a link
# by how often it communicates**. It is not a fixed rule; for instance, when no layer needs splitting there is no TP
# at all.

# %% [markdown] lang="zh"
# ## global batch 反过来约束 DP degree
#
# 每个优化器步处理的样本数是
#
# $$\text{global batch} = \text{dp} \times \text{micro-batch} \times \text{梯度累积步数 (gradient accumulation)}.$$
#
# global batch 通常由优化（收敛、学习率）决定，不能随意变大。于是 DP degree 越大，每个 rank 分到的就越少：
# 梯度累积降到 1 之后，要么增大 global batch（改变优化），要么缩小每个 rank 的 micro-batch（kernel 效率变差，
# 到 1 就不能再小）。`check_global_batch` 检查这个等式，`dp_degrees_for_batch` 列出允许的 DP degree。

# %% [markdown] lang="en"
# ## The global batch caps the DP degree
#
# The samples one optimizer step processes are
#
# $$\text{global batch} = \text{dp} \times \text{micro-batch} \times \text{gradient accumulation steps}.$$
#
# The global batch is usually set by optimization (convergence, learning rate) and cannot simply grow. So the larger
# the DP degree, the less each rank gets: once gradient accumulation is down to 1, either the global batch grows
# (changing the optimization) or each rank's micro-batch shrinks (worse kernel efficiency, and it cannot go below 1).
# `check_global_batch` checks the equation and `dp_degrees_for_batch` lists the DP degrees it allows.

# %%
global_batch = CASE_FITS_ONE_DEVICE.global_batch
for micro_batch in (1, 4):
    degrees = dp_degrees_for_batch(global_batch, micro_batch)
    print(Text(zh=f"global batch {global_batch}，micro-batch {micro_batch}：允许的 DP degree {degrees}",
               en=f"global batch {global_batch}, micro-batch {micro_batch}: allowed DP degrees {degrees}"))
too_many = 2 * max_dp_degree(global_batch, 1)
reason = check_global_batch(too_many, 1, 1, global_batch)
print(Text(zh=f"{too_many} 个 rank 做纯 DP：", en=f"Pure DP on {too_many} ranks: ").render() + reason.message)
assert reason is not None and reason.code == "global_batch"
assert max(dp_degrees_for_batch(global_batch, 4)) == max_dp_degree(global_batch, 4) == global_batch // 4

# %% [markdown] lang="zh"
# 所以在 128 个 rank 上训练 global batch 64 的模型，纯 DP 行不通：多出来的 rank 必须交给 TP / PP 等模型并行维度，
# 或者改变优化设置。
#
# ### 练习 5.3
#
# global batch = 512 条序列，每个 rank 的 micro-batch = 4。不改 global batch、也不缩小 micro-batch，DP degree 最大是多少？

# %% [markdown] lang="en"
# So pure DP cannot train a global batch of 64 on 128 ranks: the extra ranks must go to model-parallel dimensions such
# as TP / PP, or the optimization settings must change.
#
# ### Exercise 5.3
#
# The global batch is 512 sequences and each rank's micro-batch is 4. Without changing the global batch or shrinking
# the micro-batch, what is the largest DP degree?

# %% tags=["learner"]
answer = ...
check("s18.max_dp", answer)

# %% tags=["solution"]
answer = max_dp_degree(512, 4)
verify("s18.max_dp", answer)

# %% [markdown] lang="zh"
# ## 流水线气泡（种子练习第 4 步）
#
# 朴素流水线（GPipe 或 1F1B）在一步开始时要“灌满”、结束时要“排空”，这段时间里部分设备空闲。
# 设每个设备处理一个微批次的前向加反向耗时为 $t$，理想时间是 $m\,t$，填充和排空多出 $(p-1)\,t$。
# 种子给出的**气泡比例**（空闲占整步的比例）是
#
# $$\text{bubble fraction} = \frac{p-1}{m+p-1}.$$
#
# Megatron-LM 论文报告的是另一个数：气泡时间相对**理想时间**的**开销** $\dfrac{p-1}{m}$（`bubble_overhead`）。
# 两者描述同一段空闲，只是分母不同：比例 = 开销 / (1 + 开销)。交错调度 (interleaved schedule) 让每个设备持有 $v$ 个
# 模型块 (model chunk)，开销缩小为 $\dfrac{p-1}{v\,m}$。
#
# ### 练习 5.4
#
# p = 4、m = 16 时，气泡比例是多少？答一个 0 到 1 之间的小数。

# %% [markdown] lang="en"
# ## The pipeline bubble (seed exercise, step 4)
#
# A simple pipeline (GPipe or 1F1B) must fill at the start of a step and drain at the end, and during that time some
# devices sit idle. Let $t$ be the forward plus backward time of one micro-batch on one device: the ideal time is
# $m\,t$, and filling and draining add $(p-1)\,t$. The seed's **bubble fraction** (the idle share of the whole step) is
#
# $$\text{bubble fraction} = \frac{p-1}{m+p-1}.$$
#
# The Megatron-LM paper reports another number: the bubble time as an **overhead** relative to the **ideal time**,
# $\dfrac{p-1}{m}$ (`bubble_overhead`). Both describe the same idle time over different denominators:
# fraction = overhead / (1 + overhead). The interleaved schedule gives each device $v$ model chunks and shrinks the
# overhead to $\dfrac{p-1}{v\,m}$.
#
# ### Exercise 5.4
#
# With p = 4 and m = 16, what is the bubble fraction? Answer a number between 0 and 1.

# %% tags=["learner"]
answer = ...
check("s18.bubble_p4_m16", answer)

# %% tags=["solution"]
answer = bubble_fraction(4, 16)
verify("s18.bubble_p4_m16", answer)

# %% [markdown] lang="zh"
# 下面对 p = 4 计算 m = 4 和 m = 16 两种情况：公式、开销，以及调度模拟器 `simulate_schedule` 实际“跑”出来的空闲比例。

# %% [markdown] lang="en"
# Now p = 4 with m = 4 and with m = 16: the formula, the overhead, and the idle share the schedule simulator
# `simulate_schedule` actually produces.

# %%
stages = 4
rows = []
schedules = {}
for microbatches in (4, 16):
    fraction = bubble_fraction(stages, microbatches)
    overhead = bubble_overhead(stages, microbatches)
    schedules[microbatches] = simulated = simulate_schedule(stages, microbatches, schedule="1f1b")
    rows.append([stages, microbatches, f"{fraction:.1%}", f"{overhead:.1%}", f"{simulated.idle_fraction:.1%}",
                 f"{simulated.makespan_s:g}"])
    assert abs(simulated.idle_fraction - fraction) < 1e-12  # balanced stages: simulation = formula
    assert abs(overhead / (1 + overhead) - fraction) < 1e-12  # fraction = overhead / (1 + overhead)
show_table(
    ["p", "m", Text(zh="比例 (p-1)/(m+p-1)", en="fraction (p-1)/(m+p-1)"),
     Text(zh="开销 (p-1)/m", en="overhead (p-1)/m"), Text(zh="模拟空闲比例", en="simulated idle share"),
     Text(zh="一步时长 (s)", en="makespan (s)")],
    rows,
)
assert bubble_fraction(4, 4) > bubble_fraction(4, 16)

# %% [markdown] lang="zh"
# m = 4 时，开销 75% 意味着气泡时间是有效计算的四分之三；换成占整步的比例就是 43%。把 m 提到 16，
# 比例降到 16%。下面的甘特图 (Gantt chart) 由模拟器的 `gantt_rows` 画出：每行一个设备，蓝色是前向 F，橙色是反向 B，
# 灰色是空闲。

# %% [markdown] lang="en"
# With m = 4 an overhead of 75% means the bubble lasts three quarters of the useful work; as a share of the whole step
# it is 43%. Raising m to 16 brings the fraction down to 16%. The Gantt chart below is drawn from the simulator's
# `gantt_rows`: one row per device, forward F in blue, backward B in orange, idle in grey.

# %%
fig = new_figure(7.0, 3.6)
axes = fig.subplots(2, 1, sharex=True)
colours = {"F": "#4c72b0", "B": "#dd8452"}
for ax, microbatches in zip(axes, (4, 16)):
    schedule = schedules[microbatches]
    for row in gantt_rows(schedule):
        ax.broken_barh([(0, schedule.makespan_s)], (row.stage - 0.4, 0.8), facecolors="#e6e6e6")
        for phase, colour in colours.items():
            spans = [(bar.start_s, bar.duration_s) for bar in row.bars if bar.phase == phase]
            ax.broken_barh(spans, (row.stage - 0.4, 0.8), facecolors=colour, edgecolors="white", linewidth=0.3)
    ax.set_yticks(range(stages), labels=[label(row.label) for row in gantt_rows(schedule)], fontsize=7)
    ax.set_ylim(stages - 0.5, -0.5)
    idle = label(Text(zh=f"空闲 {schedule.idle_fraction:.0%}", en=f"{schedule.idle_fraction:.0%} idle"))
    ax.set_title(f"1F1B: p = {stages}, m = {microbatches}: {idle}", fontsize=9)
axes[-1].set_xlabel(label(Text(zh="时间 (s)", en="time (s)")))
Image(figure_to_png(fig))

# %% [markdown] lang="zh"
# ### 动手：流水线调度小部件
#
# 拖动滑块，观察甘特图和右侧数字如何变化：
#
# 1. 先把**微批次数 m** 从 8 拉到 16，再拉到 2：气泡比例怎样变？模拟值和公式一直一致吗？
# 2. 把**调度**从 1F1B 换成 GPipe：一步时长和气泡不变，但“在途微批次峰值”（要同时保存的激活份数）从 p 变成 m。
#    这就是 1F1B 的价值——省显存，而不是省气泡。
# 3. 选**交错 1F1B**，把 v 设为 2（m 要是 p 的整数倍，否则小部件会提示原因）：气泡缩小，代价是更多点对点传输。
#    颜色越浅表示越靠后的模型块。
# 4. 选一个**慢阶段**，把倍数调到 1.5：模拟的空闲比例超过公式——公式假设各阶段均衡，实际上最慢的阶段决定节奏。

# %% [markdown] lang="en"
# ### Hands on: the pipeline schedule widget
#
# Move the sliders and watch the Gantt chart and the numbers:
#
# 1. Move **micro-batches m** from 8 to 16, then down to 2: how does the bubble fraction change? Does the simulation
#    always agree with the formula?
# 2. Switch the **schedule** from 1F1B to GPipe: the makespan and the bubble stay, but the "peak in-flight
#    micro-batches" (activations held at once) go from p to m. That is what 1F1B buys: memory, not a smaller bubble.
# 3. Pick **interleaved 1F1B** and set v to 2 (m must be a multiple of p, otherwise the widget says why): the bubble
#    shrinks, at the price of more point-to-point transfers. Lighter colours are later model chunks.
# 4. Pick a **slow stage** and set its factor to 1.5: the simulated idle share exceeds the formula. The formula assumes
#    balanced stages; in reality the slowest stage sets the pace.

# %%
pipeline_widget = PipelineWidget(stages=4, microbatches=8)
pipeline_widget

# %% [markdown] lang="zh"
# ## 扩展效率 E(P)
#
# $$E(P) = \frac{\text{throughput}(P)}{P \cdot \text{throughput}(1)}$$
#
# $E(P) = 1$ 是线性扩展。**$E(P)$ 下降并不自动说明策略错了**：原因可能是通信、负载不均、输入瓶颈或 batch 限制。
# 要找到原因，必须把一步的时间线 (step timeline) 拆成**计算、通信、等待**三类。
#
# ### 练习 5.5
#
# 单设备吞吐 250 samples/s，32 个设备吞吐 6800 samples/s。E(32) 是多少？

# %% [markdown] lang="en"
# ## Scaling efficiency E(P)
#
# $$E(P) = \frac{\text{throughput}(P)}{P \cdot \text{throughput}(1)}$$
#
# $E(P) = 1$ is linear scaling. **A falling $E(P)$ does not by itself mean the strategy is wrong**: the cause may be
# communication, load imbalance, an input bottleneck or a batch limit. To find it, take the step timeline apart into
# **compute, communication and waiting**.
#
# ### Exercise 5.5
#
# One device gives 250 samples/s and 32 devices give 6800 samples/s. What is E(32)?

# %% tags=["learner"]
answer = ...
check("s18.efficiency", answer)

# %% tags=["solution"]
answer = scaling_efficiency(6800.0, 32, 250.0)
verify("s18.efficiency", answer)

# %% [markdown] lang="zh"
# 下面三个 32 卡作业的 E(P) 几乎一样（约 0.82），原因却完全不同：A 是通信没有被计算掩盖，B 是数据加载跟不上，
# C 是一个掉队者 (straggler) 让其他设备在同步点等待。`diagnose_efficiency` 找出每一步里最大的开销项。
# 只看 E(P)，这三种情况无法区分；只有 B 和 C 的处理与并行策略无关。

# %% [markdown] lang="en"
# The three 32-device jobs below have almost the same E(P) (about 0.82) for entirely different reasons: in A the
# communication is not hidden under compute, in B the data loader cannot keep up, in C one straggler makes the other
# devices wait at the synchronization point. `diagnose_efficiency` names the largest overhead of each step. From E(P)
# alone the three cannot be told apart, and for B and C the fix has nothing to do with the parallel strategy.

# %%
devices = 32
samples_per_device = 8
compute_s = 0.40  # one device's compute per step; with one device there is nothing else
timelines = {
    "A": step_timeline(compute_s, 0.12, overlap_fraction=0.25),
    "B": step_timeline(compute_s, 0.12, overlap_fraction=1.0, input_wait_s=0.09),
    "C": step_timeline(compute_s, 0.12, overlap_fraction=1.0,
                       load_imbalance_s=load_imbalance_s([0.40, 0.40, 0.40, 0.52])),
}
single_throughput = samples_per_device / compute_s
rows = []
for name, timeline in timelines.items():
    throughput = devices * samples_per_device / timeline.step_s
    efficiency = scaling_efficiency(throughput, devices, single_throughput)
    diagnosis = diagnose_efficiency(timeline)
    assert abs(efficiency - diagnosis.compute_fraction) < 1e-12  # two ways to E(P)
    rows.append([name, f"{timeline.step_s * MS_PER_S:.0f}", f"{efficiency:.2f}",
                 tr(f"scaling.segment_{diagnosis.dominant}"), diagnosis.reason.message])
show_table(
    [Text(zh="作业", en="Job"), Text(zh="一步 (ms)", en="step (ms)"), "E(32)", Text(zh="主因", en="dominant"),
     Text(zh="诊断", en="diagnosis")],
    rows,
)
assert [diagnose_efficiency(t).dominant for t in timelines.values()] == ["communication", "input", "load_imbalance"]

segment_colours = {"compute": "#4c72b0", "hidden_communication": "#8fbc8f", "communication": "#c44e52",
                   "input": "#937860", "load_imbalance": "#8172b3", "bubble": "#cccccc"}
fig = new_figure(7.5, 2.4)
ax = fig.add_subplot()
seen = set()
for y, (name, timeline) in enumerate(timelines.items()):
    for segment in timeline.segments():
        lane = y + (0.22 if segment.kind == "hidden_communication" else -0.12)
        height = 0.2 if segment.kind == "hidden_communication" else 0.45
        ax.barh(lane, segment.duration_s * MS_PER_S, left=segment.start_s * MS_PER_S, height=height,
                color=segment_colours[segment.kind], label=None if segment.kind in seen else label(segment.label))
        seen.add(segment.kind)
ax.set_yticks(range(len(timelines)), labels=list(timelines))
ax.set_ylim(len(timelines) - 0.4, -0.6)
ax.set_xlabel(label(Text(zh="一步内的时间 (ms)", en="time within one step (ms)")))
ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
Image(figure_to_png(fig))

# %% [markdown] lang="zh"
# ### 动手：扩展效率小部件
#
# 这个小部件画的是数据并行的弱扩展 (weak scaling)：每个设备的 batch 不变，每步做一次环形全归约。
#
# 1. 把**重叠比例**从 0 拉到 0.8：E(512) 怎样变？诊断从哪一项变成哪一项？
# 2. 把**带宽**从 50 GB/s（约一个 400 Gb/s 网卡）拉到 450 GB/s（约 H100 NVLink 单向）：跨节点和节点内差多少？
# 3. 把**每步计算时间**调小（相当于 micro-batch 变小）：同样的通信，E(P) 为什么更差？

# %% [markdown] lang="en"
# ### Hands on: the scaling-efficiency widget
#
# The widget draws weak scaling of data parallelism: each device keeps its batch, and every step ends with a ring
# all-reduce.
#
# 1. Move the **overlap** from 0 to 0.8: how does E(512) change? Which term does the diagnosis name before and after?
# 2. Move the **bandwidth** from 50 GB/s (about one 400 Gb/s NIC) to 450 GB/s (about one direction of H100 NVLink): how
#    far apart are across-node and inside-node?
# 3. Lower the **compute per step** (as with a smaller micro-batch): with the same communication, why does E(P) get
#    worse?

# %%
scaling_widget = ScalingWidget()
scaling_widget

# %% [markdown] lang="zh"
# ## 只有测量才能确认的因素（种子练习第 5 步）
#
# 上面每个数字都来自模型。下面这些因素公式给不出，必须测：
#
# 1. **争用下实际达到的总线带宽 (bus bandwidth)**：厂商标称值、nccl-tests 测得值和训练中多个集合通信同时跑时的值，常常差很多。
# 2. **小 micro-batch、小矩阵下的 kernel 效率**：TP degree 越大、micro-batch 越小，每个 GEMM 越小，算力利用率越低。
# 3. **掉队者与负载不均**：慢节点、降频、不均匀的阶段或数据长度不一，会让所有设备在同步点等待。
# 4. **输入流水线**：数据加载、解码、分词跟不上时，加卡只会加等待。
# 5. **实际达到的计算—通信重叠**：框架能不能把梯度同步或 FSDP 的 gather 藏在计算之下，要看时间线。
# 6. **MoE 的路由均衡**：token 分到各专家是否均匀，决定专家并行的全对全 (all-to-all) 是否被最慢的专家拖住。
#
# 第 8 课（[公式与实测](08_lab.ipynb)）用 PyTorch 在 CPU 上实际测量集合通信和显存，把测得的数和本课的公式放在一起比。

# %% [markdown] lang="en"
# ## Factors only measurement settles (seed exercise, step 5)
#
# Every number above comes from a model. These factors are beyond any formula and must be measured:
#
# 1. **Achieved bus bandwidth under contention**: the vendor's figure, the nccl-tests result and the value while
#    several collectives run at once during training often differ a lot.
# 2. **Kernel efficiency at small micro-batches and small matrices**: the larger the TP degree and the smaller the
#    micro-batch, the smaller each GEMM and the lower the achieved FLOP rate.
# 3. **Stragglers and load imbalance**: a slow node, thermal throttling, uneven stages or uneven sequence lengths make
#    every device wait at the synchronization point.
# 4. **The input pipeline**: when loading, decoding or tokenizing cannot keep up, more devices only add waiting.
# 5. **The overlap actually achieved**: whether the framework hides the gradient sync or FSDP's gathers under compute
#    shows only in a timeline.
# 6. **MoE routing balance**: whether tokens spread evenly over the experts decides whether expert parallelism's
#    all-to-all waits for the busiest expert.
#
# Lesson 8 ([formula vs measurement](08_lab.ipynb)) measures collectives and memory with PyTorch on CPUs and puts the
# measured numbers next to this lesson's formulas.

# %% [markdown] lang="zh"
# ## 常见误区与反例
#
# ### 误区 1：按参数量直接指定并行策略，忽略优化器状态、激活与上下文
#
# 同一个 7.6 亿参数的模型（GPT-3 Large 的形状：24 层，隐藏维度 1536，16 个注意力头；Brown et al. 2020 表 2.1）：
# 只看 bf16 权重不到 1.5 GiB，好像随便放；加上优化器状态就是 11 GiB；再加上激活，2048 个 token 的上下文刚好放得下，
# 8192 个 token 时激活（注意力分数随序列长度平方增长）就远远超过 24 GiB。决定策略的是**训练状态 + 激活 + 上下文**，
# 不是参数量。

# %% [markdown] lang="en"
# ## Common misconceptions, with counter-examples
#
# ### Misconception 1: pick the strategy from the parameter count, ignoring optimizer state, activations and context
#
# Take one 760-million-parameter model (the shape of GPT-3 Large: 24 layers, hidden size 1536, 16 attention heads;
# Brown et al. 2020, Table 2.1). Its bf16 weights alone are under 1.5 GiB, as if it fit anywhere; with the optimizer
# state it is 11 GiB; with activations, a 2048-token context just fits, and at 8192 tokens the activations (attention
# scores grow with the square of the sequence) are far beyond 24 GiB. The **training state + activations + context**
# decide the strategy, not the parameter count.

# %%
# GPT-3 Large (Brown et al. 2020, Table 2.1): 760M parameters, 24 layers, d_model 1536, 16 heads.
gpt3_large = dict(params=760e6, layers=24, hidden=1536, heads=16)
device_gib, reserve_gib = 24.0, 2.0  # the seed's device and runtime reserve (seed 000, Q1)
state = training_state_memory(gpt3_large["params"])
rows = [[Text(zh="只看 bf16 权重", en="bf16 weights only"), f"{state.params_gib:.2f}", "-"],
        [Text(zh="完整训练状态（混合精度 Adam）", en="full training state (mixed-precision Adam)"),
         f"{state.total_gib:.2f}", "-"]]
fits = {}
for seq_len in (2048, 8192):
    act_gib = bytes_to_gib(activation_memory(seq_len=seq_len, micro_batch=1, hidden=gpt3_large["hidden"],
                                             heads=gpt3_large["heads"], layers=gpt3_large["layers"]))
    ledger = build_resource_ledger(state.total_gib, act_gib, reserve_gib, device_gib)
    fits[seq_len] = ledger.fits_one_device
    rows.append([Text(zh=f"+ 激活，上下文 {seq_len} token", en=f"+ activations, context {seq_len} tokens"),
                 f"{ledger.required_gib:.2f}", ledger.explain()])
show_table([Text(zh="算什么", en="What is counted"), "GiB", Text(zh="容量账本", en="capacity ledger")], rows)
assert state.params_gib < 1.5 and fits == {2048: True, 8192: False}
assert round(state.total_gib) == 11  # the prose above quotes "11 GiB"

# %% [markdown] lang="zh"
# ### 误区 2：TP degree 越大越好
#
# TP 每层前向、反向各有 2 次全归约，次数与 TP degree 无关，每次传的激活大小 (b·s·h) 也不变；而每个 rank 的计算量按 1/t 缩小。
# 于是 t 越大，通信在一步中的占比越高，矩阵也越小（kernel 效率下降）；t 超过每节点卡数时，TP 组还要跨节点，
# 通信时间成倍增加。下面是一个 32 层、隐藏维度 4096 的模型，上下文 2048，链路用 `coursekit.hardware` 的预设：
# 节点内按 H100 NVLink 单向 450 GB/s，跨节点按一块 400 Gb/s 网卡 (50 GB/s) 计。

# %% [markdown] lang="en"
# ### Misconception 2: the larger the TP degree, the better
#
# TP runs 2 all-reduces per layer in forward and 2 in backward; their number does not depend on the TP degree, and
# each carries the same activation (b·s·h). Each rank's compute, meanwhile, shrinks as 1/t. So a larger t raises
# communication's share of the step and makes the matrices smaller (less efficient kernels); once t exceeds the GPUs per
# node, the TP group also crosses nodes and the communication time multiplies. Below: a 32-layer model with hidden
# size 4096 and a 2048-token context, on the link presets of `coursekit.hardware`: H100 NVLink at 450 GB/s one way
# inside a node and one 400 Gb/s NIC (50 GB/s) across nodes.

# %%
intra_node, cross_node = link_preset("intra_node"), link_preset("cross_node")  # H100 NVLink, InfiniBand NDR
model = dict(seq_len=2048, micro_batch=1, hidden=4096, layers=32, heads=32, gpus_per_node=8)
rows = []
times = {}
for tp in (2, 4, 8, 16):
    placement = check_tp_degree(tp, model["heads"], model["gpus_per_node"])
    link = intra_node if placement is None else cross_node
    entries = tp_traffic(seq_len=model["seq_len"], micro_batch=model["micro_batch"], hidden=model["hidden"],
                         layers=model["layers"], tp=tp)
    cost = traffic_time(entries, bandwidth_bytes_per_s=link.bandwidth_bytes_per_s, latency_s=link.latency_s)
    times[tp] = cost.total_s
    rows.append([tp, sum(e.calls_per_step for e in entries), f"{cost.total_s * MS_PER_S:.1f}",
                 4 * model["hidden"] // tp, "-" if placement is None else placement.message])
show_table(
    ["TP", Text(zh="每步集合通信次数", en="collectives per step"), Text(zh="通信时间 (ms)", en="communication (ms)"),
     Text(zh="每 rank 的 MLP 列数", en="MLP columns per rank"), Text(zh="拓扑检查", en="topology check")],
    rows,
)
assert times[2] < times[4] < times[8] < times[16]

# %% [markdown] lang="zh"
# ### 误区 3：PP 只看容量，不看阶段平衡和微批次气泡
#
# 同样 p = 4、m = 8，只要一个阶段慢 1.5 倍（例如它分到的层更多），空闲比例就明显超过公式；
# 层数不能被阶段数整除时，`check_pp_degree` 会给出警告。微批次太少时，气泡本身就很大（见上面 m = 4 的 43%）。

# %% [markdown] lang="en"
# ### Misconception 3: judge PP by capacity only, ignoring stage balance and the micro-batch bubble
#
# With the same p = 4 and m = 8, one stage that is 1.5× slower (say it got more layers) pushes the idle share well
# above the formula; when the layers do not divide by the stage count, `check_pp_degree` warns. With too few
# micro-batches the bubble itself is large (43% at m = 4 above).

# %%
balanced = simulate_schedule(4, 8)
unbalanced = simulate_schedule(4, 8, stage_forward_s=[1.0, 1.0, 1.5, 1.0], stage_backward_s=[2.0, 2.0, 3.0, 2.0])
print(Text(zh=f"均衡：空闲 {balanced.idle_fraction:.1%}（公式 {bubble_fraction(4, 8):.1%}），一步 {balanced.makespan_s:g} s",
           en=f"balanced: {balanced.idle_fraction:.1%} idle (formula {bubble_fraction(4, 8):.1%}), "
              f"makespan {balanced.makespan_s:g} s"))
print(Text(zh=f"设备 2 慢 1.5 倍：空闲 {unbalanced.idle_fraction:.1%}，一步 {unbalanced.makespan_s:g} s",
           en=f"device 2 is 1.5× slower: {unbalanced.idle_fraction:.1%} idle, makespan {unbalanced.makespan_s:g} s"))
print(check_pp_degree(5, 24).message)
assert unbalanced.idle_fraction > balanced.idle_fraction == bubble_fraction(4, 8)

# %% [markdown] lang="zh"
# ### 误区 4：用理论线性扩展承诺生产吞吐
#
# 一个 70 亿参数模型的 bf16 梯度约 14 GB。每步计算 1 s，跨节点 50 GB/s，一半通信被计算掩盖：
# 即使在这个只有环形全归约的理想模型里，64 卡也远达不到 64 倍；真实系统还要再扣掉掉队者、输入和争用。

# %% [markdown] lang="en"
# ### Misconception 4: promise production throughput from linear scaling
#
# A 7-billion-parameter model has about 14 GB of bf16 gradients. With 1 s of compute per step, 50 GB/s across nodes and
# half of the communication hidden under compute, even this ideal model with nothing but a ring all-reduce is far from
# 64× on 64 devices; a real system loses more to stragglers, input and contention.

# %%
curve = scaling_curve([1, 8, 64], single_device_step_s=1.0, gradient_bytes=2 * 7e9,
                      bandwidth_bytes_per_s=cross_node.bandwidth_bytes_per_s, overlap_fraction=0.5)
show_table(
    ["P", Text(zh="承诺的加速比", en="promised speed-up"), Text(zh="模型给出的加速比", en="modelled speed-up"),
     "E(P)"],
    [[point.devices, point.devices, f"{point.speedup:.1f}", f"{point.efficiency:.2f}"] for point in curve.points],
)
assert curve.points[-1].efficiency < 0.9

# %% [markdown] lang="zh"
# ### 误区 5：混合并行堆叠越多越先进
#
# 复杂度本身就是成本。案例 1 的模型单卡放得下：FSDP、TP、PP 的结论都是“不需要”——它们会增加通信、气泡、
# checkpoint 格式和调试的负担，却换不来容量。

# %% [markdown] lang="en"
# ### Misconception 5: the more parallel dimensions stacked, the more advanced
#
# Complexity is itself a cost. Case 1's model fits one device: the verdict on FSDP, TP and PP is "not needed" — they
# would add communication, a bubble, checkpoint-format and debugging burden, and buy no capacity.

# %%
case1 = evaluate_paper_case(CASE_FITS_ONE_DEVICE, "hierarchical")
for verdict in case1.verdicts:
    print(f"{verdict.strategy} · {verdict.label}: {verdict.reasons[0].message}")
assert [v.codes[0] for v in case1.verdicts[1:]] == ["unneeded", "unneeded", "unneeded"]

# %% [markdown] lang="zh"
# ## 系统场景连接
#
# - **平台团队**要把训练需求翻译成调度约束：需要多少设备、是否要同机亲和 (affinity，TP 组必须在一个节点内)、
#   什么互连、checkpoint 存储多大、可接受的恢复时间是多少。选择矩阵里的“适用条件”一列，就是这些约束的来源。
# - **评估外部训练供应商的报价**：报价里的设备数、互连和承诺吞吐，是否对应这个模型的真实瓶颈？例如模型单卡放得下，
#   却按“TP + PP”报价；或者按线性扩展承诺吞吐。
# - **多数企业微调**：小模型加参数高效微调 (parameter-efficient fine-tuning, PEFT，如 LoRA) 往往比复杂的多维并行更合适。
#   下面的对比中，70 亿参数全量微调的训练状态要一百多 GiB，必须分片；冻结的 bf16 权重加 4000 万个可训练参数
#   （示意数字）只要十几 GiB，一张卡就够。理解复杂策略的价值，也包括知道何时不用它们。

# %% [markdown] lang="en"
# ## Connection to real systems
#
# - **Platform teams** translate a training request into scheduling constraints: how many devices, whether they must
#   share a machine (affinity: a TP group must sit in one node), which interconnect, how much checkpoint storage, what
#   recovery time is acceptable. The "conditions" column of the matrix is where these constraints come from.
# - **Checking an external training vendor's quote**: do the devices, links and promised throughput in the quote match
#   the model's real bottleneck? For instance, a model that fits one device quoted with "TP + PP", or throughput
#   promised from linear scaling.
# - **Most enterprise fine-tuning**: a small model with parameter-efficient fine-tuning (PEFT, e.g. LoRA) is often a
#   better fit than complex multi-dimensional parallelism. In the comparison below, full fine-tuning of a
#   7-billion-parameter model needs over a hundred GiB of training state and must be sharded; frozen bf16 weights plus
#   40 million trainable parameters (an illustrative number) need a dozen GiB and one device. Knowing the value of the
#   complex strategies includes knowing when not to use them.

# %%
full_finetune = training_state_memory(7e9)
frozen_base = training_state_memory(7e9, param_bytes=2, grad_bytes=0, optimizer_bytes=0)  # no grads, no optimizer
adapters = training_state_memory(40e6)  # illustrative LoRA size; trained with mixed-precision Adam
peft_gib = frozen_base.total_gib + adapters.total_gib
yes_no = {True: Text(zh="是", en="yes"), False: Text(zh="否", en="no")}
show_table(
    [Text(zh="做法", en="Approach"), Text(zh="训练状态 (GiB)", en="training state (GiB)"),
     Text(zh="单卡 24 GiB 放得下？", en="fits a 24 GiB device?")],
    [[Text(zh="全量微调 7B", en="full fine-tuning, 7B"), f"{full_finetune.total_gib:.1f}",
      yes_no[full_finetune.total_gib + reserve_gib <= device_gib]],
     [Text(zh="PEFT：冻结 7B + 40M 可训练", en="PEFT: frozen 7B + 40M trainable"), f"{peft_gib:.1f}",
      yes_no[peft_gib + reserve_gib <= device_gib]]],
)
assert full_finetune.total_gib > device_gib > peft_gib + reserve_gib

# %% [markdown] lang="zh"
# ## 自检问题
#
# 1. 哪个条件会直接排除纯 DP？
# 2. 为什么 TP 往往更依赖高速节点内互连？
# 3. global batch 限制如何反过来约束 DP degree？
# 4. PP 的气泡与哪些变量相关？

# %% [markdown] lang="en"
# ## Self-check questions
#
# 1. Which condition excludes pure DP outright?
# 2. Why does TP usually depend on fast intra-node links?
# 3. How does a cap on the global batch constrain the DP degree in return?
# 4. Which variables does the PP bubble depend on?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 完整训练状态加激活和运行时预留超过单卡可用显存（$M_\text{model} > C_\text{device}$ 的情形）：纯 DP 的每个 rank 都要放下
#    全部状态，容量门槛直接排除它，不必再比较通信。
# 2. TP 每层前向、反向都有集合通信（每层各 2 次全归约），频率高、位于计算的关键路径上，很难被掩盖；
#    跨节点的带宽低一个数量级，每层都付这笔账，时间会成倍增加。所以 TP 组通常限制在一个节点内。
# 3. global batch = dp × micro-batch × 梯度累积。global batch 固定时，dp 最大为 global batch / micro-batch
#    （梯度累积为 1）；再增大 dp，只能加大 global batch（改变优化）或缩小每个 rank 的 micro-batch（kernel 效率下降），
#    多出的设备应交给 TP / PP 等模型并行维度。
# 4. 阶段数 p、微批次数 m（比例 (p-1)/(m+p-1)），交错调度的模型块数 v（(p-1)/(v·m+p-1)）；
#    还有公式之外的阶段是否均衡（最慢的阶段决定节奏）和阶段间的传输时间。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. The full training state plus activations and the runtime reserve exceeds the usable memory of one device (the case
#    $M_\text{model} > C_\text{device}$): under pure DP every rank must hold the whole state, so the fit gate excludes
#    it before any communication is compared.
# 2. TP runs collectives in every layer, forward and backward (2 all-reduces each per layer): they are frequent, sit on
#    the critical path of the compute and are hard to hide. Across nodes the bandwidth is an order of magnitude lower,
#    and every layer pays it, so the time multiplies. That is why a TP group usually stays inside one node.
# 3. global batch = dp × micro-batch × gradient accumulation. With the global batch fixed, dp is at most
#    global batch / micro-batch (accumulation 1); a larger dp needs a larger global batch (changing the optimization)
#    or a smaller micro-batch per rank (less efficient kernels), so the extra devices should go to model-parallel
#    dimensions such as TP / PP.
# 4. The stage count p and the micro-batch count m (fraction (p-1)/(m+p-1)), the model chunks per device v of an
#    interleaved schedule ((p-1)/(v·m+p-1)); and, beyond the formula, whether the stages are balanced (the slowest
#    stage sets the pace) and the transfer time between stages.

# %% [markdown] lang="zh"
# ## 专业课程对齐与深入学习提示
#
# - **CMU Deep Learning Systems（10-414/714）** 的分布式训练与执行部分：把计算图的切分映射成 DP / TP / PP 的数据运动，
#   对照本课矩阵里的“主要通信”一列。
# - **PyTorch FSDP 官方文档**：读分片策略 (sharding strategy)、设备网格 (device mesh) 和限制，整理出“何时 gather、何时 shard”的时序，
#   对照本课机制二的 gather 峰值。
# - **MIT 6.5840（分布式系统）** 的故障与复制主线：把训练 worker、协调和恢复看成会出故障的系统，而不只看正常情况下的吞吐。
#
# 深入学习时：
#
# - **先用硬约束排除，再比较成本**：模型和状态放不放得下、batch 允不允许、互连匹不匹配，都通过之后才讨论效率。
# - **为每个策略画一条一步的时间线**，标出计算、通信和等待（本课的 `step_timeline`、甘特图就是这样的图）。
# - 遇到“X 比 Y 快”的材料，**主动追问**模型、硬件拓扑、batch、精度和规模；缺了这些条件的结论不能直接搬过来。

# %% [markdown] lang="en"
# ## Course alignment and deeper study
#
# - **CMU Deep Learning Systems (10-414/714)**, the distributed training and execution part: map the partitioning of a
#   computation graph to the data movement of DP / TP / PP, next to the "main communication" column of this lesson's
#   matrix.
# - **The official PyTorch FSDP documentation**: read the sharding strategies, the device mesh and the limitations, and
#   write down the timeline of "when to gather, when to shard" — next to this lesson's gather peak (mechanism 2).
# - **MIT 6.5840 (Distributed Systems)**, its thread on failures and replication: see training workers, coordination
#   and recovery as a system that fails, not only as throughput in the good case.
#
# To go deeper:
#
# - **Exclude with hard constraints first, then compare cost**: whether the model and its state fit, whether the batch
#   allows the degree, whether the links match; only then discuss efficiency.
# - **Draw the step timeline of each strategy**, marking compute, communication and waiting (this lesson's
#   `step_timeline` and Gantt charts are such drawings).
# - When a source claims "X is faster than Y", **ask** for the model, the hardware topology, the batch, the precision
#   and the scale; a conclusion without them does not transfer.

# %% [markdown] lang="zh"
# ## 要点
#
# - 并行策略选择是在容量、计算、拓扑、batch/context、恢复和复杂度之间找可接受的组合，不是找普遍最优。
# - 先排除后比较：$M_\text{model} > C_\text{device}$ 直接排除纯 DP；FSDP 约为 $M_\text{model}/P$，再加激活和一层的 gather 峰值。
# - 单层放不下才需要 TP；TP 每层都通信，留在节点内。DP / PP 通信频率低，放在跨节点的维度。
# - global batch = dp × micro-batch × 梯度累积：它给 DP degree 设了上限。
# - 气泡比例 (p-1)/(m+p-1) 是占整步的份额，Megatron 的 (p-1)/m 是相对理想时间的开销；阶段不均衡时实际更差。
# - E(P) 下降是症状不是诊断：拆开时间线，看是通信、气泡、输入还是掉队者；其中好几项只能靠测量确认（第 8 课）。

# %% [markdown] lang="en"
# ## Key points
#
# - Choosing a parallel strategy means finding an acceptable combination of capacity, compute, topology, batch/context, recovery and complexity, not a universal optimum.
# - Exclude first, compare later: $M_\text{model} > C_\text{device}$ excludes pure DP; FSDP is about $M_\text{model}/P$ plus activations and one layer's gather peak.
# - TP is needed only when a layer does not fit; it communicates in every layer and stays inside a node. DP / PP communicate rarely and take the across-node dimension.
# - global batch = dp × micro-batch × gradient accumulation: it caps the DP degree.
# - The bubble fraction (p-1)/(m+p-1) is a share of the whole step; Megatron's (p-1)/m is the overhead relative to the ideal time; unbalanced stages make it worse.
# - A falling E(P) is a symptom, not a diagnosis: take the timeline apart into communication, bubble, input and stragglers; several of them only measurement can confirm (lesson 8).

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 三个案例的选择矩阵：
# - 拓扑变化后的选择：
# - 一个 bubble 计算：
# - 最重要的未测因素：
# - 我认为当前不必深入的策略：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - The selection matrix of the three cases:
# - The choice after the topology change:
# - One bubble calculation:
# - The most important factor not yet measured:
# - A strategy I think I need not study in depth yet:
