# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 4 课：Q4 组合方案与风险检查
#
# [English version](../en/04_composition.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 3 课 约束筛选](03_gates.ipynb) · 下一课：[第 5 课 场景选择矩阵](05_selection_matrix.ipynb)
#
# > **时间：** 约 50 分钟（讲解与阅读 35 分钟，练习 15 分钟）
# >
# > **问题：**
# > - 每个候选都通过了门槛，组合起来为什么还可能不可行？
# > - 一个混合并行 (hybrid parallelism) 方案需要多少个 rank？专家并行 (EP) 算不算一维？
# > - rank 怎样分组、怎样放到节点上？放错了会怎样？
# >
# > **目标：**
# > - 用 `validate_parallel_composition` 做 Q4 的第一个小验证：TP=4、PP=2、DP=2 需要 16 个 rank；EP 只能用于 MoE；服务副本 (Replica) 与训练 DP 是不同的执行角色 (execution role)。
# > - 说明朴素的计数规则 (naive rule，所有并行度相乘) 与 Megatron-Core 的不同：引擎让 EP 复用 DP·CP 的 rank，用 `compare_ep_rules` 对同一方案按两种规则计数。
# > - 用 `rank_groups` 写出 Megatron 参考例子（16 张 GPU，TP=2，PP=4）的各个组，用 `topology_report` 找出跨节点的 TP 组。
# >
# > **前置：** 第 2 课的通信账本（TP 每层都有集合通信），第 3 课的门槛。

# %% [markdown] lang="en"
# # Lesson 4: Q4 checking a combined plan and its risks
#
# [中文版](../zh/04_composition.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 3, gates](03_gates.ipynb) · Next: [lesson 5, selection matrix](05_selection_matrix.ipynb)
#
# > **Time:** about 50 min (teaching and reading 35 min, exercises 15 min)
# >
# > **Questions:**
# > - Every candidate passed its gates; why can the combination still be infeasible?
# > - How many ranks does a hybrid-parallel plan need? Does expert parallelism (EP) count as a dimension?
# > - How are ranks grouped and placed on nodes, and what goes wrong when they are placed badly?
# >
# > **Objectives:**
# > - Work Q4's first check with `validate_parallel_composition`: TP=4, PP=2, DP=2 needs 16 ranks; EP applies only to MoE; a serving Replica and training DP are different execution roles.
# > - Explain how the naive counting rule (every degree multiplies) differs from Megatron-Core's, where EP reuses the DP·CP ranks, and count one plan both ways with `compare_ep_rules`.
# > - Write out the groups of Megatron's reference example (16 GPUs, TP=2, PP=4) with `rank_groups`, and find TP groups that cross nodes with `topology_report`.
# >
# > **Prerequisites:** lesson 2's communication ledger (TP runs collectives in every layer), lesson 3's gates.

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.communication import dp_traffic, tp_traffic, traffic_time
from coursekit.composition import (
    DEFAULT_ORDER,
    compare_ep_rules,
    expert_rank_groups,
    map_groups_to_nodes,
    rank_groups,
    topology_report,
    validate_megatron_composition,
    validate_parallel_composition,
)
from coursekit.exercises import check, show_solution, verify
from coursekit.glossary import lookup
from coursekit.hardware import link_preset
from coursekit.i18n import Text
from coursekit.shapes import model_shape
from coursekit.widgets.composition import CompositionWidget


def show_issues(report):
    # zh: 逐条打印组合检查报告里的问题：
    # zh: 问题代码和当前语言的说明。
    # en: Print each issue of a composition report: its code and its message in the
    # en: current language.
    for issue in report.issues:
        print(f"  [{issue.code}] {issue.message}")


def show_plan(report):
    # zh: 用一句话说明组合检查报告：
    # zh: 需要多少 rank、是否可行、有哪些问题代码。
    # en: One sentence about a composition report: ranks needed, valid or not, and
    # en: the issue codes.
    verdict = (
        Text(zh="可行", en="valid")
        if report.valid
        else Text(zh="不可行", en="not valid")
    )
    codes = ", ".join(report.codes) or Text(zh="无", en="none")
    print(
        Text(
            zh=f"需要 {report.required_ranks} 个 rank，{verdict}；问题代码："
            f"{codes}",
            en=f"needs {report.required_ranks} ranks, {verdict}; issue codes: "
            f"{codes}",
        )
    )


def show_counts(comparison):
    # zh: 对带 EP 的方案，
    # zh: 用一句话比较朴素计数和引擎的世界大小。
    # en: One sentence comparing the naive count with the engine's world size for a
    # en: plan with EP.
    verdict = (
        Text(zh="能", en="can")
        if comparison.engine_valid
        else Text(zh="不能", en="cannot")
    )
    print(
        Text(
            zh=f"朴素规则：{comparison.naive_required_ranks} 个 rank；"
            f"引擎的世界大小：{comparison.engine_world_size}；"
            f"引擎{verdict}排出这个方案",
            en=f"naive rule: {comparison.naive_required_ranks} ranks; "
            f"engine world size: {comparison.engine_world_size}; "
            f"the engine {verdict} lay the plan out",
        )
    )


# %% [markdown] lang="zh"
# ## 1. 单个候选通过，组合未必可行
#
# 第 3 课的门槛逐个检查候选。可是一个真实方案同时用好几种并行：例如 TP 切层内张量、PP 切层、DP 复制剩下的部分。
# 要记住：**单个候选通过硬门槛，不代表组合后仍然可行**。组合检查至少包括：
#
# - **设备数**：各维度的并行度 (parallel degree) 相乘，要有这么多 rank；
# - **每个维度的并行度**：TP 整除注意力头、PP 不超过层数、DP 受全局批大小限制（第 3 课的并行度规则）；
# - **模型结构**：EP 只能用于混合专家模型 (MoE)；
# - **部署域**：高频通信的组（TP）要落在节点内的高速链路上。
#
# 性能风险（通信是否真被重叠、负载是否均衡）不是这些检查能回答的，要交给实测证据（第 6、8 课）。

# %% [markdown] lang="en"
# ## 1. Candidates pass one by one; the combination may not
#
# Lesson 3's gates check one candidate at a time. A real plan uses several kinds of parallelism at once: TP splits the
# tensors inside a layer, PP splits the layers, DP replicates what is left. Remember: **a candidate that passes
# its hard gates does not make the combination feasible.** A composition check covers at least:
#
# - **device count**: the parallel degrees multiply, and that many ranks must exist;
# - **each dimension's degree**: TP divides the attention heads, PP does not exceed the layers, DP is limited by the
#   global batch (lesson 3's rules for degrees);
# - **model structure**: EP applies only to mixture-of-experts (MoE) models;
# - **deployment domain**: groups that communicate often (TP) must sit on a node's fast links.
#
# Performance risks (is communication really overlapped, is the load balanced?) are beyond these checks; they need
# measured evidence (lessons 6 and 8).

# %% [markdown] lang="zh"
# ## 2. rank 数：朴素的规则
#
# 朴素的规则：所需 rank 数 = 所有并行度的乘积。TP=4、PP=2、DP=2 至少需要 4 × 2 × 2 = 16 个 rank。
# `validate_parallel_composition` 返回所需 rank 数、是否可行，以及每个问题的代码和说明：

# %% [markdown] lang="en"
# ## 2. Rank count: the naive rule
#
# The naive rule: ranks needed = the product of all degrees. TP=4, PP=2, DP=2 needs at least 4 × 2 × 2 = 16 ranks.
# `validate_parallel_composition` returns the ranks needed, whether the plan is valid, and each issue with its code and
# message:

# %%
valid_plan = validate_parallel_composition(
    {'TP': 4, 'PP': 2, 'DP': 2}, 16, 'dense'
)
invalid_plan = validate_parallel_composition(
    {'TP': 4, 'PP': 2, 'EP': 2}, 8, 'dense'
)
assert valid_plan.valid
assert not invalid_plan.valid
show_plan(valid_plan)
show_plan(invalid_plan)
show_issues(invalid_plan)

# %%
# zh: 手算：TP=4、PP=2、DP=2 需要 4 x 2 x 2 = 16 个 rank；
# zh: 第二个方案在 rank 数和结构两项上都不通过。
# en: Worked by hand: TP=4, PP=2, DP=2 needs 4 x 2 x 2 = 16 ranks; the second plan
# en: fails on ranks and on structure.
assert valid_plan.required_ranks == 16
assert invalid_plan.codes == ('ranks', 'structure')

# %% [markdown] lang="zh"
# 第二个方案有两个问题，各自独立：它需要 16 个 rank 而只有 8 个；它在稠密模型上用了 EP = 2。
# 和第 3 课一样，每个问题都带代码，不合成一个分数。

# %% [markdown] lang="en"
# The second plan has two independent issues: it needs 16 ranks and only 8 exist, and it uses EP = 2 on a dense model.
# As in lesson 3, each issue has its own code; nothing is merged into a score.

# %% [markdown] lang="zh"
# ## 3. EP 只能用于 MoE
#
# 专家并行把不同的专家 (experts) 放到不同的 rank 上；稠密模型没有专家可分。同一个方案换成 MoE 模型、给够 rank，问题就消失了：

# %% [markdown] lang="en"
# ## 3. EP applies only to MoE
#
# Expert parallelism places different experts on different ranks; a dense model has no experts to spread. The same
# plan on an MoE model with enough ranks has no issue left:

# %%
moe_plan = validate_parallel_composition({'TP': 4, 'PP': 2, 'EP': 2}, 16, 'moe')
show_plan(moe_plan)
assert moe_plan.valid

# %% [markdown] lang="zh"
# ## 4. 服务副本与训练 DP：都复制模型，同步语义不同
#
# 服务副本和训练数据并行都让每个 rank（或每组 rank）持有整个模型，看起来像同一件事。但：

# %% [markdown] lang="en"
# ## 4. Serving replicas and training DP: both copy the model, with different synchronization
#
# Serving replicas and training data parallelism both give each rank (or group of ranks) the whole model, so they look
# alike. But:

# %%
for term in ("DP", "Replica"):
    entry = lookup(term)
    name = Text(
        zh=f"{entry.zh} ({entry.en}, {entry.abbr})",
        en=f"{entry.en} ({entry.zh}, {entry.abbr})",
    )
    display(Markdown(f"**{name}**{Text(zh='：', en=': ')}{entry.definition}"))

# %% [markdown] lang="zh"
# DP 的各个副本每步都通过全归约 (all-reduce) 同步梯度，是一个训练作业；服务副本之间从不同步，各自处理独立的请求，
# 风险在队列、缓存局部性和尾延迟 (tail latency)。所以组合检查不允许同一个方案里同时出现 Replica > 1 和 DP > 1，
# 要求把它们写成不同的执行角色；训练引擎的 rank 组也不接受 Replica 这一维：

# %% [markdown] lang="en"
# DP's copies synchronize gradients with an all-reduce every step: together they are one training job. Serving
# replicas never synchronize; each answers its own requests, and their risks are queues, cache locality and tail
# latency. So the composition check refuses Replica > 1 together with DP > 1 in one plan and asks for distinct execution
# roles; and a training engine's rank groups do not accept a Replica dimension at all:

# %%
mixed = validate_parallel_composition(
    {'TP': 2, 'DP': 2, 'Replica': 2}, 8, 'dense'
)
show_plan(mixed)
show_issues(mixed)
assert mixed.codes == ('roles',)
try:
    rank_groups({'TP': 2, 'Replica': 2})
except ValueError as error:
    print(error)

# %% [markdown] lang="zh"
# 正确的写法是分两层规划：先规划**一个副本内部**的并行（例如 TP = 2），再决定部署几个副本、请求怎样路由。

# %% [markdown] lang="en"
# The right way is to plan in two layers: first the parallelism **inside one replica** (e.g. TP = 2), then how many
# replicas to deploy and how to route requests.

# %% [markdown] lang="zh"
# ## 5. 真实引擎怎样计数 EP
#
# 朴素的规则把 EP 当作独立的一维，与其他维度相乘。Megatron-Core（NVIDIA/Megatron-LM 的 `megatron/core/parallel_state.py`）不是这样：
#
# - 稠密层 (dense layers) 把所有 rank 排成 TP · CP · DP · PP，世界大小 (world size) = TP · CP · DP · PP；
# - 专家层 (expert layers) 把**同一批 rank** 重新排成 ETP · EP · EDP · PP，其中专家张量并行 (expert tensor parallelism, ETP)
#   默认等于 TP；专家数据并行 (expert data parallelism, EDP) 是剩下的部分：持有同一组专家副本、在专家层之间做梯度归约的 rank 数。
#
# 所以 EP 不增加 rank，它**复用** DP · CP 的 rank：同一张 GPU 在稠密层属于某个 DP 组，在专家层属于某个 EP 组。
# 条件是 ETP · EP · PP 整除世界大小（ETP = TP 时，就是 EP 整除 DP · CP）。第 2 节的第二个方案 `{'TP': 4, 'PP': 2, 'EP': 2}` 按两种规则计数：

# %% [markdown] lang="en"
# ## 5. How a real engine counts EP
#
# The naive rule treats EP as a dimension of its own that multiplies with the others. Megatron-Core (NVIDIA/Megatron-LM,
# `megatron/core/parallel_state.py`) does not:
#
# - the dense layers lay all ranks out as TP · CP · DP · PP; the world size is TP · CP · DP · PP;
# - the expert layers re-fold **the same ranks** as ETP · EP · EDP · PP, where expert tensor parallelism ETP defaults to
#   TP and expert data parallelism EDP is whatever is left: the number of ranks holding copies of the same experts,
#   which reduce those experts' gradients among themselves.
#
# So EP adds no ranks; it **reuses** the DP · CP ranks: one GPU is in some DP group for the dense layers and in some EP
# group for the expert layers. The condition is that ETP · EP · PP divides the world size (with ETP = TP: EP divides
# DP · CP). Section 2's second plan `{'TP': 4, 'PP': 2, 'EP': 2}` counted both ways:

# %%
two_rules = compare_ep_rules({'TP': 4, 'PP': 2, 'EP': 2})
show_counts(two_rules)
for issue in two_rules.engine_issues:
    print(f"  [{issue.code}] {issue.message}")
assert (two_rules.naive_required_ranks, two_rules.engine_world_size) == (16, 8)
assert not two_rules.engine_valid

# %% [markdown] lang="zh"
# 朴素的规则说这个方案要 16 个 rank；引擎说它只占 8 个 rank（TP · PP = 4 × 2），而且根本排不出来：DP · CP = 1，
# 没有可供 EP 复用的 rank。两种说法都不是“算错了”，而是对 EP 的含义不同：朴素的规则把 EP 当成一个新的维度，
# 引擎把它当成 DP 维度在专家层的另一种切法。给方案加上 DP = 2，引擎就能排出来了：

# %% [markdown] lang="en"
# The naive rule says this plan needs 16 ranks; the engine says it occupies only 8 (TP · PP = 4 × 2) and cannot be laid out
# at all: DP · CP = 1 leaves no ranks for EP to reuse. Neither is a miscount; they mean different things by EP: the naive
# rule treats it as a new dimension, the engine as another way of cutting the DP dimension in the expert layers. Add DP = 2
# and the engine can lay the plan out:

# %%
with_dp = compare_ep_rules({'TP': 4, 'PP': 2, 'DP': 2, 'EP': 2})
show_counts(with_dp)
print(
    Text(zh="相差的 rank 数：", en="difference in ranks:"),
    with_dp.difference_ranks,
)
print(
    Text(
        zh="专家张量并行 ETP、专家数据并行 EDP：",
        en="expert tensor parallel ETP, expert data parallel EDP:",
    ),
    with_dp.expert_tensor_parallel,
    with_dp.expert_data_parallel,
)
assert (
    with_dp.engine_valid
    and with_dp.difference_ranks
    == with_dp.naive_required_ranks - with_dp.engine_world_size
)
layout = validate_megatron_composition(
    tp=4, pp=2, dp=2, ep=2, model_kind='dense'
)
print(
    Text(
        zh="稠密模型上的引擎检查，问题代码：",
        en="engine check on a dense model, issue codes:",
    ),
    ", ".join(layout.codes),
)
show_issues(layout)
expert = expert_rank_groups({'TP': 4, 'PP': 2, 'DP': 2, 'EP': 2})
dense = rank_groups({'TP': 4, 'PP': 2, 'DP': 2, 'EP': 2})
# zh: 这里不列出各组：练习 4.1 要你先预测一个 DP 组。
# en: No group lists here: exercise 4.1 asks you to predict a DP group first.
same_groups = dense["DP"] == expert["EP"]
print(
    Text(
        zh="专家层的 EP 组与稠密层的 DP 组相同吗："
        f"{'是' if same_groups else '否'}",
        en="do the expert layers' EP groups equal the dense layers' DP groups: "
        f"{'yes' if same_groups else 'no'}",
    )
)
# zh: EDP = 1：专家层的 EP 组就是稠密层的 DP 组
# en: EDP = 1: the expert layers' EP groups are the dense layers' DP groups
assert dense["DP"] == expert["EP"]

# %% [markdown] lang="zh"
# 这里 EDP = 1：专家层的 EP 组正好就是稠密层的 DP 组。引擎同样检查结构：在稠密模型上设 EP = 2 也得到 `structure` 问题。
# 读别人的配置时先问一句：“这里的 EP 是独立一维，还是复用 DP 的 rank？”否则 GPU 数会差一倍甚至更多。

# %% [markdown] lang="en"
# Here EDP = 1: the expert layers' EP groups are exactly the dense layers' DP groups. The engine checks the structure
# too: EP = 2 on a dense model is a `structure` issue. When reading someone's configuration, first ask: "Is this EP a
# dimension of its own, or does it reuse the DP ranks?" Otherwise the GPU count can be off by a factor of two or more.

# %% [markdown] lang="zh"
# ## 6. 拓扑映射：rank 组落在哪些节点上
#
# 引擎按一个 **rank 顺序 (rank order)** 给 rank 编号：默认 `TP-CP-EP-DP-PP`，排在前面的维度变化最快。
# Megatron-Core 的 `initialize_model_parallel` 文档给了一个参考例子：16 张 GPU，TP = 2，PP = 4（所以 DP = 2）。
# 到这里为止，本课还没有打印过任何一个组：先做下面的练习 4.1；答完后再按它下面单元格里的“显示参考解答与结果”按钮，看 `rank_groups` 给出的各个组（单元格里的断言核对了它们与文档中列出的组逐一相同）。

# %% [markdown] lang="en"
# ## 6. Topology mapping: which nodes a rank group lands on
#
# The engine numbers ranks in an **order**: by default `TP-CP-EP-DP-PP`, the first dimension varying fastest.
# Megatron-Core's `initialize_model_parallel` docstring gives a reference example: 16 GPUs, TP = 2, PP = 4 (so
# DP = 2). So far this lesson has printed no group at all: do exercise 4.1 below first; once you have answered, press
# the "Show the worked solution and result" button in the cell under it to see the groups `rank_groups` returns (an
# assertion in that cell checks they are exactly the groups the docstring lists).

# %% [markdown] lang="zh"
# ### 练习 4.1（先预测，再看结果）
#
# 参考例子（16 张 GPU，TP = 2，PP = 4，所以 DP = 2，默认顺序）中，rank 5 所在的 DP 组有哪些 rank？用从小到大的列表作答，如 `[0, 1]`。
# 先用“TP 变化最快、DP 其次”的规则自己推，作答后再按下面单元格里的“显示参考解答与结果”按钮：它显示参考解答和全部的组。

# %% [markdown] lang="en"
# ### Exercise 4.1 (predict first, then look)
#
# In the reference example (16 GPUs, TP = 2, PP = 4, so DP = 2, default order), which ranks form the DP group of rank 5?
# Answer with an ascending list, e.g. `[0, 1]`. Work it out from "TP varies fastest, DP next" first; after answering,
# press the "Show the worked solution and result" button in the cell below: it shows the worked solution and every group.

# %% tags=["learner"]
answer = ...
check("q4.dp_group", answer)

# %% tags=["solution"]
reference = {'TP': 2, 'PP': 4, 'DP': 2}
groups = rank_groups(reference)
answer = next(group for group in groups["DP"] if 5 in group)


def show_groups() -> None:
    for dim in ("TP", "DP", "PP"):
        print(Text(zh=f"{dim} 组：", en=f"{dim} groups:"), groups[dim])


verify("q4.dp_group", answer, reveal=show_groups)
# zh: 出处：NVIDIA/Megatron-LM 仓库 megatron/core/parallel_state.py，
# zh: initialize_model_parallel 的文档字符串
# zh: （16 张 GPU g0 ... g15，张量并行度 2，流水线并行度 4）。
# en: Reference: NVIDIA/Megatron-LM megatron/core/parallel_state.py,
# en: initialize_model_parallel docstring (16 GPUs g0 ... g15, tensor-parallel size
# en: 2, pipeline-parallel size 4).
MEGATRON_DOCSTRING_GROUPS = {
    "DP": [
        [0, 2],
        [1, 3],
        [4, 6],
        [5, 7],
        [8, 10],
        [9, 11],
        [12, 14],
        [13, 15],
    ],
    "TP": [
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
        [8, 9],
        [10, 11],
        [12, 13],
        [14, 15],
    ],
    "PP": [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
}
assert all(
    groups[dim] == MEGATRON_DOCSTRING_GROUPS[dim]
    for dim in MEGATRON_DOCSTRING_GROUPS
)

# %% [markdown] lang="zh"
# 同一 TP 组的 rank 是连续的，DP 组的 rank 相隔 TP，PP 组相隔 TP · DP。
# 同一段文档还提醒：为了效率，调用者要保证相邻的 rank 在同一台机器上（例如两台 8 卡机器，rank 0-7 在第一台，8-15 在第二台）。
# `map_groups_to_nodes` 就按这个约定放置 rank（rank r 在节点 r // 每节点 GPU 数），并标出跨节点的组：

# %% [markdown] lang="en"
# The ranks of one TP group are consecutive, DP groups are TP apart and PP groups TP · DP apart.
# The same docstring adds: for efficiency, the caller should make sure adjacent ranks sit in the same box (e.g. two
# 8-GPU boxes, ranks 0-7 in the first and 8-15 in the second). `map_groups_to_nodes` places ranks by that convention
# (rank r on node r // GPUs per node) and flags the groups that cross nodes:

# %%
# zh: 参考例子的各组
# zh: （练习 4.1 的参考解答也算了一遍；这一格不依赖它）
# en: The reference example's groups (exercise 4.1's worked solution works them out
# en: too; this cell does not need it)
reference = {'TP': 2, 'PP': 4, 'DP': 2}
groups = rank_groups(reference)
mapping = map_groups_to_nodes(groups, gpus_per_node=8)
print(Text(zh="节点数：", en="nodes:"), mapping.num_nodes)
print(
    Text(zh="每个 rank 所在的节点：", en="node of each rank:"),
    mapping.node_of_rank,
)
crosses_label = {
    True: Text(zh="跨节点", en="crosses nodes"),
    False: Text(zh="不跨节点", en="within a node"),
}
print(
    Text(zh="各维度的组：", en="groups of each dimension:"),
    str(Text(zh="；", en="; ")).join(
        f"{dim} {crosses_label[mapping.crosses[dim]]}"
        for dim in ("TP", "DP", "PP")
    ),
)
print(
    Text(zh="跨节点的 PP 组：", en="PP groups that cross nodes:"),
    mapping.crossing["PP"],
)
report = topology_report(reference, gpus_per_node=8)
assert report.ok and not mapping.crosses["TP"] and mapping.crosses["PP"]

# %% [markdown] lang="zh"
# PP 组跨节点是正常的：流水线只在阶段边界点对点传激活，频率低（第 2 课）。TP 组都在节点内，这正是默认顺序把 TP 放在最前面的原因。
# 换一个把 TP 放到后面的顺序，TP 组就被拉到了两台机器上：

# %% [markdown] lang="en"
# PP groups crossing nodes is normal: a pipeline only sends activations point-to-point at stage boundaries, rarely
# (lesson 2). Every TP group stays inside a node, which is exactly why the default order puts TP first. Use an order
# that moves TP back, and the TP groups are stretched over two machines:

# %%
bad = topology_report({'TP': 8, 'DP': 2}, gpus_per_node=8, order="DP-TP-PP")
good = topology_report({'TP': 8, 'DP': 2}, gpus_per_node=8, order=DEFAULT_ORDER)
print(
    Text(
        zh=f"TP 组都在节点内吗？默认顺序：{'是' if good.ok else '否'}；"
        f"DP-TP-PP 顺序：{'是' if bad.ok else '否'}",
        en="TP groups inside nodes? default order: "
        f"{'yes' if good.ok else 'no'}; order DP-TP-PP: "
        f"{'yes' if bad.ok else 'no'}",
    )
)
for reason in bad.reasons:
    print(f"  [{reason.code}] {reason.message}")
assert good.ok and not bad.ok

# %% [markdown] lang="zh"
# 这会付出多少代价？回到第 2 课的通信账本。取 Megatron 表 1 的 7.5B 模型，一个微批次、TP = 8：
# TP 每层前向两次、反向两次全归约；DP 每步只同步一次梯度。同一份 TP 流量放在节点内链路和跨节点链路上各算一次：

# %% [markdown] lang="en"
# What does that cost? Back to lesson 2's communication ledger. Take the 7.5B model of Megatron's Table 1, one
# micro-batch, TP = 8: TP runs two all-reduces per layer in forward and two in backward, while DP synchronizes gradients
# once per step. Time the same TP traffic on the intra-node link and on the cross-node link:

# %%
shape = model_shape("megatron-7.5b")
tp_entries = tp_traffic(
    seq_len=shape.seq_len,
    micro_batch=1,
    hidden=shape.hidden,
    layers=shape.layers,
    tp=8,
)
dp_entries = dp_traffic(num_params=shape.num_params / 8, dp=2)
print(
    Text(zh="每步调用次数 TP / DP：", en="calls per step, TP / DP:"),
    sum(e.calls_per_step for e in tp_entries),
    "/",
    sum(e.calls_per_step for e in dp_entries),
)
tp_time_ms = {}
for link in ("intra_node", "cross_node"):
    preset = link_preset(link)
    timing = traffic_time(
        tp_entries,
        bandwidth_bytes_per_s=preset.bandwidth_bytes_per_s,
        latency_s=preset.latency_s,
    )
    tp_time_ms[link] = timing.total_s * 1e3
    print(preset.label, f"{tp_time_ms[link]:.1f} ms")
print(
    Text(zh="跨节点 / 节点内：", en="cross-node / intra-node:"),
    f"{tp_time_ms['cross_node'] / tp_time_ms['intra_node']:.1f}x",
)
assert tp_time_ms["cross_node"] > tp_time_ms["intra_node"]

# %% [markdown] lang="zh"
# 每一次 TP 全归约都要付时延和传输两项；上百次乘起来，慢链路的代价就被放大了（这里还没算重叠和拥塞，只是下界）。
# “拓扑映射错误会让高频通信跨慢链路”就是这个意思。混合并行常把节点内的高速链路留给 TP、节点之间放 DP / PP，
# 但这不是固定规则：要用 `topology_report` 检查实际的组，而不是凭印象。

# %% [markdown] lang="en"
# Each TP all-reduce pays a latency term and a transfer term; multiplied by over a hundred calls, the slow link's cost
# is amplified (no overlap or congestion counted here: this is a lower bound). A wrong topology mapping puts
# high-frequency communication on the slow link: that is what it means. Hybrid parallelism usually keeps a node's fast
# links for TP and puts DP / PP between nodes, but that is not a fixed rule: check the actual groups with
# `topology_report` instead of trusting an impression.

# %% [markdown] lang="zh"
# ## 7. 动手：组合方案的小部件
#
# 下面的小部件把每个 rank 画成一个方块，一行一个节点，按所选维度的组着色；跨节点的组用红色斜线框标出。
# 说明区同时给出朴素规则和 Megatron-Core 规则的 rank 数，消息框的颜色和开头的文字给出结论（通过、警告或不通过），以及两种检查发现的问题。rank 超过 64 个时不画方块，只给计数和检查。
#
# 试一试：
# 1. 从参考例子出发（TP=2、PP=4、DP=2，每节点 8 卡），把着色维度换成 DP、PP，对照上面的组。
# 2. 把顺序换成 `PP-DP-CP-EP-TP`：哪些组变红了？说明区的拓扑检查说了什么？
# 3. 设 EP = 2：稠密模型和 MoE 模型下，两种计数和问题各是什么？再把 DP 改成 1，会发生什么？
# 4. 把 TP 改成 8、每节点 GPU 数改成 4：TP 组还在节点内吗？

# %% [markdown] lang="en"
# ## 7. Hands on: the composition widget
#
# The widget below draws each rank as a square, one row per node, coloured by its group in the chosen dimension; groups
# that cross nodes get a red hatched outline. The message gives the rank counts by the naive rule and by
# Megatron-Core's, and the issues both checks find; its colour and first word give the verdict (pass, warning or fail). Above 64 ranks it draws no squares and gives only the counts and
# checks.
#
# Try:
# 1. Start from the reference example (TP=2, PP=4, DP=2, 8 GPUs per node) and colour by DP, then PP; compare with the
#    groups above.
# 2. Switch the order to `PP-DP-CP-EP-TP`: which groups turn red? What does the topology check say?
# 3. Set EP = 2: what are the two counts and the issues for a dense model, and for an MoE model? Then set DP to 1: what
#    happens?
# 4. Set TP to 8 and GPUs per node to 4: do the TP groups stay inside a node?

# %%
composition_widget = CompositionWidget()
composition_widget

# %%
# zh: 用直接调用核对小部件（小部件只调用 coursekit）。
# en: Check the widget against direct calls (the widget only calls coursekit).
assert composition_widget.status == "ok"
assert composition_widget.result.topology.groups == rank_groups(reference)
assert (
    composition_widget.result.naive.required_ranks
    == validate_parallel_composition(reference, 16, "dense").required_ranks
)

# %% [markdown] lang="zh"
# ## 8. 练习
#
# ### 练习 4.2
#
# MoE 方案 `{'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}`。按朴素的规则（所有并行度相乘），它需要多少个 rank？

# %% [markdown] lang="en"
# ## 8. Exercises
#
# ### Exercise 4.2
#
# MoE plan `{'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}`. By the naive rule (every degree multiplies), how many
# ranks does it need?

# %% tags=["learner"]
answer = ...
check("q4.naive_ranks", answer)

# %% tags=["solution"]
answer = validate_parallel_composition(
    {'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}, 1024, 'moe'
).required_ranks
verify("q4.naive_ranks", answer)

# %% [markdown] lang="zh"
# ### 练习 4.3
#
# 同一个方案 `{'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}` 在 Megatron-Core 里占用多少个 rank？
# 提示：先看 EP 能不能折进 DP · CP。

# %% [markdown] lang="en"
# ### Exercise 4.3
#
# How many ranks does the same plan `{'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}` occupy in Megatron-Core? First
# check whether EP folds into DP · CP.

# %% tags=["learner"]
answer = ...
check("q4.engine_ranks", answer)

# %% tags=["solution"]
layout = validate_megatron_composition(tp=2, cp=2, pp=2, dp=2, ep=4)
assert layout.valid
answer = layout.world_size
verify("q4.engine_ranks", answer)

# %% [markdown] lang="zh"
# ### 练习 4.4
#
# TP = 4、DP = 4，每节点 8 张 GPU，rank 顺序为 `'DP-TP-PP'`（DP 变化最快）。有没有 TP 组横跨节点？用 `True` 或 `False` 作答。

# %% [markdown] lang="en"
# ### Exercise 4.4
#
# TP = 4 and DP = 4 on nodes of 8 GPUs, rank order `'DP-TP-PP'` (DP varies fastest). Does any TP group span more than
# one node? Answer `True` or `False`.

# %% tags=["learner"]
answer = ...
check("q4.tp_crosses", answer)

# %% tags=["solution"]
answer = topology_report(
    {'TP': 4, 'DP': 4}, gpus_per_node=8, order="DP-TP-PP"
).mapping.crosses["TP"]
verify("q4.tp_crosses", answer)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 为什么不能把“Replica = 2、DP = 2”直接合并写成“DP = 4”？
# 2. 对 `{'TP': 4, 'PP': 2, 'EP': 2}`，朴素的规则算出 16 个 rank，Megatron-Core 只占 8 个而且拒绝它。两种结论各自基于什么假设？
# 3. 参考例子里 PP 组全部跨节点，而 `topology_report` 仍然说没有问题。为什么？
# 4. 一个常见误区是“混合并行堆叠越多越先进”。每多加一维并行，至少要多检查哪些事？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. Why can't "Replica = 2, DP = 2" simply be merged into "DP = 4"?
# 2. For `{'TP': 4, 'PP': 2, 'EP': 2}` the naive rule counts 16 ranks while Megatron-Core occupies 8 and refuses the plan.
#    What assumption is each conclusion based on?
# 3. In the reference example every PP group crosses nodes, yet `topology_report` reports no problem. Why?
# 4. A common misconception is "the more kinds of parallelism stacked, the more advanced". What must you check, at
#    least, for every dimension you add?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. DP 的副本每步全归约同步梯度，组成一个训练作业；服务副本互不同步，各自处理请求。合并后既说不清同步语义，
#    也会把训练的同步开销或服务的路由风险算错。应当分两层：一个副本内部的并行，加上副本数和路由策略。
# 2. 朴素的规则把 EP 当成独立的一维，与其他维度相乘（4 × 2 × 2 = 16）。Megatron-Core 让专家层复用稠密层的 DP · CP 的 rank，
#    世界大小只算 TP · CP · DP · PP = 8；而 DP · CP = 1，EP = 2 没有 rank 可复用，所以排不出来。
# 3. 检查只标记需要节点内高速链路的维度（TP）。PP 只在阶段边界点对点传激活，频率低，跨节点是常见且可接受的安排；
#    `mapping.crossing["PP"]` 仍然列出了这些组，供你判断。
# 4. 至少：rank 数是否够、这一维的并行度是否合法（整除注意力头、层数、批大小）、模型结构是否适用、组落在哪条链路上、
#    以及新增的通信和实现复杂度。复杂度本身就是成本，能用更少的维度达到目标时就不要加。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. DP's copies all-reduce gradients every step and form one training job; serving replicas never synchronize and each
#    answers its own requests. Merged, the synchronization semantics become unclear and either the training sync cost or
#    the serving routing risk is misjudged. Plan in two layers: the parallelism inside one replica, plus the replica
#    count and the routing policy.
# 2. The naive rule treats EP as a dimension of its own that multiplies (4 × 2 × 2 = 16). Megatron-Core lets the expert layers
#    reuse the dense layers' DP · CP ranks, so the world is only TP · CP · DP · PP = 8; and with DP · CP = 1 there are no
#    ranks for EP = 2 to reuse, so the plan cannot be laid out.
# 3. The check only flags the dimensions that need a node's fast links (TP). PP sends activations point-to-point at stage
#    boundaries, rarely, so placing it across nodes is common and acceptable; `mapping.crossing["PP"]` still lists those
#    groups for you to judge.
# 4. At least: enough ranks; a legal degree for that dimension (dividing the heads, the layers, the batch); a model
#    structure it applies to; which link its groups land on; and the added communication and implementation complexity.
#    Complexity is a cost in itself: if fewer dimensions reach the goal, do not add one.

# %% [markdown] lang="zh"
# ## 要点
#
# - 组合检查：rank 数（各并行度相乘）、每一维的并行度、模型结构（EP 只用于 MoE）、部署域（TP 留在节点内）。每个问题带代码，不合成分数。
# - 服务副本和训练 DP 都复制模型，但 DP 每步同步梯度、副本从不同步：它们是不同的执行角色，要分层规划。
# - 朴素的规则把 EP 当作独立一维相乘；Megatron-Core 让 EP 复用 DP · CP 的 rank（世界大小 = TP · CP · DP · PP，且 ETP · EP · PP 要整除它）。读配置时先确认是哪种。
# - rank 顺序决定组的形状：默认 `TP-CP-EP-DP-PP` 让 TP 组是连续的 rank；相邻 rank 放在同一台机器上，TP 组就留在节点内。
# - 拓扑映射错误会把高频通信放到慢链路上；用 `topology_report` 检查实际的组，再用第 2 课的账本估算代价。

# %% [markdown] lang="en"
# ## Key points
#
# - A composition check covers: rank count (the degrees multiply), each dimension's degree, model structure (EP only for MoE), deployment domain (TP inside a node). Each issue has a code; nothing becomes a score.
# - Serving replicas and training DP both copy the model, but DP synchronizes gradients every step and replicas never do: different execution roles, planned in separate layers.
# - The naive rule multiplies EP as a dimension of its own; Megatron-Core lets EP reuse the DP · CP ranks (world size = TP · CP · DP · PP, which ETP · EP · PP must divide). Check which one a configuration means.
# - The rank order shapes the groups: the default `TP-CP-EP-DP-PP` makes each TP group consecutive ranks; with adjacent ranks in the same machine, TP groups stay inside a node.
# - A wrong topology mapping puts high-frequency communication on the slow link; check the actual groups with `topology_report`, then estimate the cost with lesson 2's ledger.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - Megatron-Core 的 rank 编排：NVIDIA/Megatron-LM 中 `megatron/core/parallel_state.py` 的 `initialize_model_parallel` 文档（本课的参考例子）；[Megatron-Core 用户指南](https://docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/index.html)。
# - PyTorch 的多维并行网格：[Getting Started with DeviceMesh](https://pytorch.org/tutorials/recipes/distributed_device_mesh.html)（`init_device_mesh` 的维度顺序就是 rank 顺序）。
# - 组合三种并行的经验：D. Narayanan et al., [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473)，SC 2021。
# - MoE 的专家并行：W. Fedus et al., [Switch Transformers](https://arxiv.org/abs/2101.03961)，JMLR 2022。
#
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 3 课 约束筛选](03_gates.ipynb) · 下一课：[第 5 课 场景选择矩阵](05_selection_matrix.ipynb)

# %% [markdown] lang="en"
# ## Related reading
#
# - How Megatron-Core numbers ranks: the `initialize_model_parallel` docstring in `megatron/core/parallel_state.py` of NVIDIA/Megatron-LM (this lesson's reference example); the [Megatron-Core user guide](https://docs.nvidia.com/megatron-core/developer-guide/latest/user-guide/index.html).
# - PyTorch's multi-dimensional device mesh: [Getting Started with DeviceMesh](https://pytorch.org/tutorials/recipes/distributed_device_mesh.html) (the dimension order of `init_device_mesh` is a rank order).
# - Lessons from combining three kinds of parallelism: D. Narayanan et al., [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473), SC 2021.
# - Expert parallelism in MoE models: W. Fedus et al., [Switch Transformers](https://arxiv.org/abs/2101.03961), JMLR 2022.
#
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 3, gates](03_gates.ipynb) · next: [lesson 5, selection matrix](05_selection_matrix.ipynb)

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的方案（各维度的并行度、每节点 GPU 数、rank 顺序）：
# - 朴素规则和引擎规则下的 rank 数：
# - 拓扑变化后的选择（哪些组跨节点，可以接受吗）：
# - 最重要的未测因素：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - My plan (degree of each dimension, GPUs per node, rank order):
# - Rank count by the naive rule and by the engine's:
# - My choice after the topology change (which groups cross nodes, is that acceptable?):
# - The most important factor not yet measured:
