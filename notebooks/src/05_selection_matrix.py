# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 5 课：场景选择矩阵——DP、FSDP、TP、PP 各在什么场景下可行
#
# [English version](../en/05_selection_matrix.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 4 课 组合与风险](04_composition.ipynb) · 下一课：[第 6 课 流水线气泡与扩展效率](06_pipeline_scaling.ipynb)
#
# > **时间：** 约 80 分钟（讲解与阅读 50 分钟，练习 30 分钟）
# >
# > **问题：**
# > - 数据并行 (data parallelism, DP)、全分片数据并行 (fully sharded data parallel, FSDP)、张量并行 (tensor parallelism, TP) 和流水线并行 (pipeline parallelism, PP) 各解决什么瓶颈，代价是什么？
# > - 模型放不下、单层放不下、互连分快慢、全局批大小 (global batch size) 有上限时，选择怎样变化？
# >
# > **目标：**
# > 1. 能为 DP/FSDP/TP/PP 建立“解决的瓶颈—主要通信—适用条件—代价”矩阵。
# > 2. 能根据模型容量、单卡显存、互连和批次 (batch) 特征做初步排除，亲手填出三个案例的 4 × 3 矩阵。
# > 3. 能理解混合并行 (hybrid parallelism) 的层次与拓扑亲和性：为什么单层放不下时答案是 TP × FSDP 这样的组合。
# >
# > **前置：** 第 1 课（容量账本）、第 2 课（通信账本）、第 3 课（硬门槛）、第 4 课（组合检查）。

# %% [markdown] lang="en"
# # Lesson 5: The selection matrix — when DP, FSDP, TP and PP are feasible
#
# [中文版](../zh/05_selection_matrix.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 4, composition and risk](04_composition.ipynb) · Next: [lesson 6, pipeline bubble and scaling efficiency](06_pipeline_scaling.ipynb)
#
# > **Time:** about 80 min (teaching and reading 50 min, exercises 30 min)
# >
# > **Questions:**
# > - Which bottleneck do data parallelism (DP), fully sharded data parallel (FSDP), tensor parallelism (TP) and pipeline parallelism (PP) each solve, and at what cost?
# > - How does the choice move when the model does not fit, when one layer does not fit, when links are fast inside a node and slow between nodes, and when the global batch is capped?
# >
# > **Objectives:**
# > 1. Build the matrix "bottleneck solved — main communication — conditions — cost" for DP / FSDP / TP / PP.
# > 2. Make a first exclusion from model capacity, device memory, interconnect and batch characteristics, and fill in the 4 × 3 matrix of three cases yourself.
# > 3. Understand the layers of hybrid parallelism and their affinity to the topology: why, when one layer does not fit, the answer is a combination such as TP × FSDP.
# >
# > **Prerequisites:** lesson 1 (capacity ledger), lesson 2 (communication ledger), lesson 3 (hard gates), lesson 4 (composition checks).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from dataclasses import replace

from IPython.display import Markdown, display

from coursekit.capacity import (
    PRECISION_RECIPES,
    build_resource_ledger,
    training_state_memory,
)
from coursekit.exercises import (
    check,
    check_entries,
    reveal,
    show_solution,
    verify,
)
from coursekit.exercises.lesson5 import CASE_PARAMS
from coursekit.gates import (
    check_global_batch,
    dp_degrees_for_batch,
    max_dp_degree,
)
from coursekit.i18n import Text
from coursekit.matrix import (
    CASE_FITS_ONE_DEVICE,
    CASE_KINDS,
    CASE_LAYER_EXCEEDS_DEVICE,
    CASE_STATE_EXCEEDS_DEVICE,
    MATRIX_HEADERS,
    PAPER_CASES,
    STRATEGIES,
    case_kind,
    combination_memory_gib,
    constraint_case,
    evaluate_paper_case,
    evaluate_paper_cases,
    fsdp_gather_peak_gib,
    matrix_table,
    topology_changes,
)
from coursekit.plotting import figure_image, new_figure
from coursekit.shapes import MODEL_SHAPES
from coursekit.units import gib_to_bytes
from coursekit.widgets.matrix import (
    MatrixWidget,
    matrix_view,
    short_model_name,
    verdict_grid_chart,
)


def show_table(header, rows):
    # zh: 把若干行单元格显示成 Markdown 表格
    # zh: （只负责排版；数字都来自 coursekit）。
    # en: Display rows of cells as a Markdown table (presentation only; the numbers
    # en: come from coursekit).
    lines = [
        "| " + " | ".join(str(cell) for cell in header) + " |",
        "|" + " --- |" * len(header),
    ]
    lines += [
        "| " + " | ".join(str(cell) for cell in row) + " |" for row in rows
    ]
    display(Markdown("\n".join(lines)))


# %% [markdown] lang="zh"
# ## 一句话定义
#
# > 并行策略选择是在**模型能否放下、计算强度、通信拓扑、批大小与上下文、故障恢复和实现复杂度**之间寻找可接受的组合，
# > 而不是寻找普遍最优的算法。
#
# 这句话决定了本课的做法：先用硬约束排除（放不下、批大小不允许、互连不匹配），再在留下的候选之间比较代价；
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
assert (
    [row[0] for row in table[1:]]
    == list(STRATEGIES)
    == ["DP", "FSDP", "TP", "PP"]
)
assert len(table[0]) == len(MATRIX_HEADERS) == 5

# %% [markdown] lang="zh"
# ## 核心知识
#
# **四种策略各管一件事。** 如果模型与优化器状态 (optimizer state) 能放入单卡，DP 最简单：用更大的批次提高吞吐，
# 但每张卡都完整复制一份状态。模型状态放不下时，FSDP / 零冗余优化器 (ZeRO) 把状态分片 (shard)，需要时再全收集 (all-gather)，
# 代价是更频繁的通信和更多实现细节。单层矩阵本身放不下，或者希望分摊层内计算时，可以用 TP，但它每层都有集合通信，
# 通常需要高速互连；TP 配合 Megatron 的序列并行 (sequence parallelism, SP) 还把层内的激活按 1/t 切开，而 ZeRO / FSDP
# 只切训练状态、不切激活。PP 按层切分，只在阶段 (stage) 边界传激活和梯度，可以跨较慢的互连，但会出现气泡、阶段不平衡和调度复杂性。
#
# **选择还受批大小和上下文限制。** DP 并行度 (parallel degree) 太大，会迫使全局批大小增大，或者每个 rank 的
# 微批次 (micro-batch) 过小，影响优化效果和内核效率。长上下文 (long context) 让激活和注意力计算变大，其中注意力分数
# 随序列长度平方增长。能把这个平方项分到多个 rank 上的是上下文并行 (context parallelism, CP，如环形注意力 ring attention)
# 或 Ulysses 式的序列切分（按注意力头做全对全 (all-to-all) 通信）；Megatron 的序列并行只切 TP 区域之外的逐元素激活（LayerNorm、dropout），
# 不碰平方项。选择性激活重计算 (activation recomputation) 则干脆不保存平方项。需要的是这些，而不是一味增加 DP。混合专家模型 (mixture of experts, MoE) 还要考虑专家并行 (expert parallelism, EP) 和 token 路由的负载均衡。
#
# **混合并行的层次要贴合拓扑。** 常见做法是把节点内的高速互连留给 TP，把节点之间的维度给 DP / PP，但这不是固定规则。
# 拓扑映射错了，高频通信就会跑在慢链路上（第 4 课的 `topology_report` 就是检查这一点）。运维层面还要考虑
# 检查点 (checkpoint) 格式、弹性伸缩 (elasticity)、作业启动时间和调试难度：这些不出现在吞吐公式里，却决定方案能不能长期运行。

# %% [markdown] lang="en"
# ## Core knowledge
#
# **Each of the four strategies handles one thing.** If the model and its optimizer state fit one device, DP is the
# simplest: more batch raises throughput, but every device replicates the whole state. When the model states do not
# fit, FSDP / the Zero Redundancy Optimizer (ZeRO) shards them and all-gathers them when needed, at the price of more
# frequent communication and more implementation detail. When a single layer's matrices do not fit, or the layer's
# compute should be spread, TP splits the layer, but it runs collectives in every layer and usually needs fast links;
# with Megatron's sequence parallelism (SP) TP also divides the layer's activations by t, while ZeRO / FSDP shards
# only the training state, never the activations.
# PP cuts the model by layers and passes only activations and gradients at stage boundaries, so it tolerates slower
# links, but it brings the bubble, stage imbalance and scheduling complexity.
#
# **The batch and the context also limit the choice.** Too large a DP degree forces a larger global batch size or a
# tiny micro-batch per rank, which hurts optimization and kernel efficiency. A long context makes activations and
# attention compute grow, and the attention scores grow with the square of the sequence. What spreads that quadratic
# term over ranks is context parallelism (CP, e.g. ring attention) or Ulysses-style sequence splitting (an all-to-all
# over attention heads); Megatron's sequence parallelism only splits the element-wise activations outside the TP
# region (LayerNorm, dropout) and leaves the quadratic term alone. Selective activation recomputation does not store
# the quadratic term at all. These are what a long context needs, not more DP. A mixture-of-experts (MoE) model also brings expert parallelism (EP) and the load
# balance of token routing into the decision.
#
# **The layers of a hybrid must follow the topology.** A common layout keeps TP on the fast links inside a node and
# gives the across-node dimensions to DP / PP, but this is not a fixed rule. A wrong mapping puts frequent
# communication on slow links (lesson 4's `topology_report` checks exactly this). Operations matter too: checkpoint
# format, elasticity, job start-up time and how hard it is to debug do not appear in any throughput formula, yet they
# decide whether a plan can run for months.

# %% [markdown] lang="zh"
# ## 机制一：训练状态超过单卡显存，直接排除纯 DP
#
# 记 $M_\text{model}$ 为完整训练状态 (training state)（参数、梯度、优化器状态，即第 1 课的“模型状态”），$C_\text{device}$ 为单卡可用显存。纯 DP 的每个 rank 都持有
# 完整的 $M_\text{model}$，再加激活和运行时预留 (runtime reserve)。所以只要
#
# $$M_\text{model} + \text{激活} + \text{预留} > C_\text{device},$$
#
# 纯 DP 就被容量**直接排除**，不需要再比较通信。下面用一个示例模型（训练状态 64 GiB，设备 24 GiB；不是后面练习里的三个案例）算一遍。

# %% [markdown] lang="en"
# ## Mechanism 1: a training state larger than one device excludes pure DP
#
# Let $M_\text{model}$ be the full training state (parameters, gradients, optimizer state: lesson 1's "model states")
# and $C_\text{device}$ the usable memory of one device. Under pure DP every rank holds the whole $M_\text{model}$, plus activations and the
# runtime reserve. So as soon as
#
# $$M_\text{model} + \text{activations} + \text{reserve} > C_\text{device},$$
#
# pure DP is **excluded by capacity alone**, before any communication is compared. The next cell works it out for an
# example model (64 GiB of training state on a 24 GiB device; not one of the three cases of the exercises below).

# %%
example = replace(
    # zh: 集群和批大小与论文案例相同，只换了模型
    # en: the same cluster and batch as the paper cases, another model
    CASE_STATE_EXCEEDS_DEVICE,
    key="example",
    title=Text(
        zh="示例模型：训练状态 64 GiB",
        en="Example model: 64 GiB of training state",
    ),
    training_state_gib=64.0,
    activation_gib=6.0,
    largest_layer_gib=0.5,
)
dp_ledger = build_resource_ledger(
    example.training_state_gib,
    example.activation_gib,
    example.runtime_reserve_gib,
    example.device_memory_gib,
)
print(example.title)
print("  DP:", dp_ledger.explain())
assert not dp_ledger.fits_one_device
assert evaluate_paper_case(example).verdict_of("DP").codes == ("memory",)


# %% [markdown] lang="zh"
# ## 机制二：FSDP ≈ M_model / P，再加激活和全收集峰值 (gather peak)
#
# FSDP（ZeRO-3）把参数、梯度和优化器状态都切成 $P$ 份，理想情况下每个 rank 只持有 $M_\text{model}/P$。
# 但计算某一层之前，要先把这一层的参数全收集回来；为了让通信和计算重叠，FSDP 还会**预取 (prefetch)** 下一层。
# 反向时，当前层未分片的梯度在归约散射 (reduce-scatter) 之前也要整份放着。所以峰值大约是**两层参数加一层未分片梯度**
# （PyTorch FSDP 文档对 `BackwardPrefetch.BACKWARD_PRE` 的说明：峰值同时持有当前层参数、下一层参数和当前层梯度）：
#
# $$M_\text{rank} \approx \frac{M_\text{model}}{P} + \text{激活} + \text{预留} + \underbrace{2\,W_\text{layer} + W_\text{layer}}_{\text{全收集峰值}}.$$
#
# 下面用 `training_state_memory(..., zero_stage=3)` 算分片后的状态（按混合精度 Adam 每参数 16 字节，把示例模型的 64 GiB
# 换算成参数量），加上 `fsdp_gather_peak_gib` 给出的峰值，再把结果和 `evaluate_paper_case` 给 FSDP 的每 rank 显存对照——同一个数从两条路得到。

# %% [markdown] lang="en"
# ## Mechanism 2: FSDP ≈ M_model / P, plus activations and the gather peak
#
# FSDP (ZeRO-3) shards parameters, gradients and optimizer state into $P$ parts, so ideally each rank holds
# $M_\text{model}/P$. But before computing a layer it must all-gather that layer's parameters, and to overlap the
# communication with compute it **prefetches** the next layer too. In backward, the current layer's unsharded gradients
# are held whole until their reduce-scatter. So the peak is about **two layers of parameters plus one layer of unsharded
# gradients** (the PyTorch FSDP documentation of `BackwardPrefetch.BACKWARD_PRE`: at the peak it holds the current
# layer's parameters, the next layer's parameters and the current layer's gradients):
#
# $$M_\text{rank} \approx \frac{M_\text{model}}{P} + \text{activations} + \text{reserve} + \underbrace{2\,W_\text{layer} + W_\text{layer}}_{\text{gather peak}}.$$
#
# The next cell computes the sharded state with `training_state_memory(..., zero_stage=3)` (the example's 64 GiB turned into
# a parameter count at 16 bytes per parameter for mixed-precision Adam), adds the peak from `fsdp_gather_peak_gib`, and
# checks the result against the per-rank memory `evaluate_paper_case` gives FSDP: the same number reached two ways.

# %%
recipe = PRECISION_RECIPES["zero-fp16-adam"]
example_params = (
    gib_to_bytes(example.training_state_gib) / recipe.bytes_per_param
)
peak_gib = fsdp_gather_peak_gib(example.largest_layer_gib)
rows = []
per_rank = {}
for ranks in (1, 8, 32):
    shard_gib = training_state_memory(
        example_params, dp=ranks, zero_stage=3
    ).total_gib
    # zh: 只有一个 rank 时它本来就持有全部参数：没有什么要全收集
    # en: one rank holds everything already: nothing to gather
    gathered_gib = peak_gib if ranks > 1 else 0.0
    ledger = build_resource_ledger(
        shard_gib + gathered_gib,
        example.activation_gib,
        example.runtime_reserve_gib,
        example.device_memory_gib,
    )
    per_rank[ranks] = ledger.required_gib
    rows.append(
        [
            ranks,
            f"{shard_gib:.2f}",
            f"{gathered_gib:.2f}",
            f"{ledger.required_gib:.2f}",
            ledger.explain(),
        ]
    )
print(
    Text(
        zh="示例模型的参数量："
        f"{example_params / 1e9:.2f}B（{recipe.bytes_per_param:g} 字节/参数）；"
        f"最大一层 {example.largest_layer_gib:g} GiB，全收集峰值 "
        f"{peak_gib:.2f} GiB",
        en=f"The example as parameters: {example_params / 1e9:.2f}B "
        f"({recipe.bytes_per_param:g} bytes per parameter); largest layer "
        f"{example.largest_layer_gib:g} GiB, gather peak {peak_gib:.2f} GiB",
    )
)
show_table(
    [
        Text(zh="FSDP 分片数 P", en="FSDP ranks P"),
        Text(zh="M_model/P (GiB)", en="M_model/P (GiB)"),
        Text(zh="全收集峰值 (GiB)", en="gather peak (GiB)"),
        Text(zh="每 rank 合计 (GiB)", en="per rank, total (GiB)"),
        Text(zh="容量账本", en="capacity ledger"),
    ],
    rows,
)
# zh: 全收集峰值：两层参数 + 一层梯度
# en: the gather peak: two layers of parameters + one of gradients
assert abs(peak_gib - 3 * example.largest_layer_gib) < 1e-12
# zh: 两条路得到同一个数：上面的账本与案例评估。
# en: Two ways to the same number: the ledger above and the case evaluation.
assert (
    abs(
        per_rank[32]
        - evaluate_paper_case(example).verdict_of("FSDP").memory_per_rank_gib
    )
    < 0.01
)
assert (
    abs(
        per_rank[8]
        - evaluate_paper_case(example, "hierarchical")
        .verdict_of("FSDP")
        .memory_per_rank_gib
    )
    < 0.01
)

# %% [markdown] lang="zh"
# P = 1 时 FSDP 就是 DP，放不下；分到 8 个或 32 个 rank 后都放得下。注意 P 越大，$M_\text{model}/P$ 越小，
# 但激活、运行时预留和全收集峰值**不随 P 缩小**——它们决定了 FSDP 的下限。
#
# TP 和 PP 的通信机制简述：TP 的通信量与层内张量大小 (b·s·h) 和每层集合通信的次数有关（每层前向、反向各 2 次全归约 (all-reduce)）；
# PP 只在阶段边界传激活，流水线利用率主要受微批次数 m 和阶段数 p 影响——第 6 课的气泡公式。

# %% [markdown] lang="en"
# With P = 1 FSDP is DP and does not fit; sharded over 8 or 32 ranks it fits. Note that a larger P shrinks
# $M_\text{model}/P$, but the activations, the runtime reserve and the gather peak **do not shrink with P**: they set
# FSDP's floor.
#
# The communication of TP and PP in brief: TP's volume grows with the size of the in-layer tensor (b·s·h) and the
# number of collectives per layer (2 all-reduces in forward and 2 in backward); PP passes activations only at stage
# boundaries, and its utilization depends mainly on the micro-batch count m and the stage count p — lesson 6's bubble
# formula.

# %% [markdown] lang="zh"
# ## 三个纸面案例：先由你来构造
#
# 选择矩阵要落到具体案例上才有用。下面三个模型都在同一个集群上训练：每张设备 24 GiB，4 个节点 × 8 卡，
# 全局批大小 64，每个 rank 的微批次为 1。表里给的是每个模型的**参数量**和其它几项；训练状态要你自己算。

# %% [markdown] lang="en"
# ## Three paper cases: you build them first
#
# The selection matrix is only useful on concrete cases. The three models below train on the same cluster: 24 GiB per
# device, 4 nodes × 8 GPUs, a global batch of 64 and a micro-batch of 1 per rank. The table gives each model's
# **parameter count** and the other figures; the training state is yours to compute.

# %%
show_table(
    [
        Text(zh="案例", en="Case"),
        Text(zh="参数量", en="parameters"),
        Text(zh="激活 (GiB)", en="activations (GiB)"),
        Text(zh="预留 (GiB)", en="reserve (GiB)"),
        Text(
            zh="最大一层的 bf16 权重 (GiB)",
            en="largest layer, bf16 weights (GiB)",
        ),
        Text(zh="层数", en="layers"),
        Text(zh="注意力头数", en="attention heads"),
        Text(zh="设备 (GiB)", en="device (GiB)"),
    ],
    [
        [
            n,
            f"{CASE_PARAMS[case.key]:,}",
            case.activation_gib,
            case.runtime_reserve_gib,
            case.largest_layer_gib,
            case.num_layers,
            case.num_heads,
            case.device_memory_gib,
        ]
        for n, case in enumerate(PAPER_CASES, start=1)
    ],
)

# %% [markdown] lang="zh"
# ### 练习 5.1：构造三个案例
#
# 对每个案例：
#
# 1. 算出完整训练状态（GiB）：混合精度 Adam 每参数 16 字节（第 1 课），再除以 2^30。
# 2. 判断它属于哪一种：`"fits_one_device"`（模型可单卡容纳）、`"state_exceeds_device"`（训练状态超过单卡）或
#    `"layer_exceeds_device"`（单层超过单卡）。先看最大一层加激活和预留放不放得下，再看完整训练状态加激活和预留。
#
# 每一格单独检查。

# %% [markdown] lang="en"
# ### Exercise 5.1: build the three cases
#
# For each case:
#
# 1. Compute the full training state (GiB): mixed-precision Adam holds 16 bytes per parameter (lesson 1); divide by 2^30.
# 2. Decide which kind it is: `"fits_one_device"`, `"state_exceeds_device"` or `"layer_exceeds_device"`. Look first at
#    whether the largest layer with activations and reserve fits, then at the full training state with activations and
#    reserve.
#
# Each entry is checked on its own.

# %% tags=["learner"]
my_state_gib = {1: ..., 2: ..., 3: ...}
my_kind = {1: ..., 2: ..., 3: ...}
cases = (1, 2, 3)
check_entries(
    my_state_gib,
    {n: f"matrix.case{n}_state_gib" for n in cases},
    name="my_state_gib",
    labels={
        n: Text(zh=f"案例 {n}，训练状态", en=f"Case {n}, state") for n in cases
    },
    entries={n: f"{n}: " for n in cases},
)
check_entries(
    my_kind,
    {n: f"matrix.case{n}_kind" for n in cases},
    name="my_kind",
    labels={
        n: Text(zh=f"案例 {n}，类型", en=f"Case {n}, kind") for n in cases
    },
    entries={n: f"{n}: " for n in cases},
)

# %% tags=["solution"]
my_state_gib, my_kind = {}, {}
for n, case in enumerate(PAPER_CASES, start=1):
    # zh: 字节 -> GiB
    # en: bytes -> GiB
    my_state_gib[n] = CASE_PARAMS[case.key] * 16 / 2**30
    layer_need_gib = (
        case.largest_layer_gib + case.activation_gib + case.runtime_reserve_gib
    )
    state_need_gib = (
        my_state_gib[n] + case.activation_gib + case.runtime_reserve_gib
    )
    if layer_need_gib > case.device_memory_gib:
        my_kind[n] = "layer_exceeds_device"
    elif state_need_gib > case.device_memory_gib:
        my_kind[n] = "state_exceeds_device"
    else:
        my_kind[n] = "fits_one_device"
    verify(
        f"matrix.case{n}_state_gib",
        my_state_gib[n],
        label=Text(zh=f"案例 {n}，训练状态", en=f"Case {n}, state"),
    )
    verify(
        f"matrix.case{n}_kind",
        my_kind[n],
        label=Text(zh=f"案例 {n}，类型", en=f"Case {n}, kind"),
    )

# %% [markdown] lang="zh"
# ## 先排除，后比较：亲手填 4 × 3 矩阵
#
# 评判顺序与第 3 课相同：**先排除，后比较**。
# 1. 硬排除 (hard exclusion)：容量门槛、一层是否拆得开、全局批大小是否允许；知道拓扑时，TP 组是否离开节点。
# 2. 不需要：最小可行并行度是 1 时，这个策略只增加通信和复杂度，没有容量收益，记“不优先”。
# 3. 缺信息：TP 需要高速链路，而案例没说明拓扑，记“需更多信息”。
# 4. 其余记“可行”，并写出并行度、每 rank 显存等。
#
# 每 rank 显存用本课的粗模型（单位 GiB；S 训练状态，A 激活，R 预留，W 最大一层，G = 3W 是 FSDP 的全收集峰值，N = 32 张卡）：
# DP：S + A + R；FSDP 分到 d 个 rank：S/d + A + R + G；只用 TP = t：S/t + A/t + R；PP = p 个阶段：S/p + A + R，
# 且一个阶段要放下整层 (W + A + R)。**单层放不下时，没有哪个策略能单独解决**：TP 先切开这一层，训练状态再跨 TP 组分片，
# 即 TP × FSDP：S/N + (G + A)/t + R。这时 FSDP 是 TP 的第二个维度，也算“可行”。

# %% [markdown] lang="en"
# ## Exclude first, compare later: fill in the 4 × 3 matrix yourself
#
# The order of judgement is lesson 3's: **exclude first, compare later**.
# 1. Hard exclusions: the fit gate, whether a layer can be split, whether the global batch allows the degree; with a
#    known topology, whether a TP group leaves its node.
# 2. Not needed: when the smallest degree that fits is 1, the strategy only adds communication and complexity for no
#    capacity gain: "not preferred".
# 3. Missing information: TP needs fast links, and the case does not say what the links are: "needs more information".
# 4. Everything else is "feasible", with the degree, the memory per rank and so on.
#
# Per-rank memory follows this lesson's coarse model (GiB; S training state, A activations, R reserve, W largest layer,
# G = 3W FSDP's gather peak, N = 32 devices): DP: S + A + R; FSDP over d ranks: S/d + A + R + G; TP = t alone:
# S/t + A/t + R; PP = p stages: S/p + A + R, and a stage must hold a whole layer (W + A + R). **When one layer does not
# fit, no strategy solves it alone**: TP splits the layer first and the training state is then sharded across the TP
# groups, TP × FSDP: S/N + (G + A)/t + R. FSDP is then TP's second dimension, and it counts as "feasible".

# %% [markdown] lang="zh"
# ### 练习 5.2：填矩阵（不知道拓扑）
#
# 三个案例 × 四个策略，共 12 格。每格答 `"feasible"`、`"not_preferred"` 或 `"needs_info"`
# （也可以写“可行 / 不优先 / 需更多信息”），每格单独检查，答错的格子会得到针对这个策略的提示。被硬性排除的格子
# （例如放不下）也答 `"not_preferred"`：矩阵里“不优先”既包括排除，也包括不需要。

# %% [markdown] lang="en"
# ### Exercise 5.2: fill in the matrix (no topology given)
#
# Three cases × four strategies, 12 cells. Answer each with `"feasible"`, `"not_preferred"` or `"needs_info"`; each
# cell is checked on its own, and a wrong cell gets a hint about that strategy. A cell that a hard exclusion rules out
# (it does not fit, say) is answered `"not_preferred"` too: in the matrix, "not preferred" covers both excluded and
# not needed.

# %% tags=["learner"]
my_matrix = {
    1: {"DP": ..., "FSDP": ..., "TP": ..., "PP": ...},
    2: {"DP": ..., "FSDP": ..., "TP": ..., "PP": ...},
    3: {"DP": ..., "FSDP": ..., "TP": ..., "PP": ...},
}
strategies = ("DP", "FSDP", "TP", "PP")
check_entries(
    my_matrix,
    {
        n: {s: f"matrix.case{n}_{s.lower()}" for s in strategies}
        for n in (1, 2, 3)
    },
    name="my_matrix",
    labels={
        n: {
            s: Text(zh=f"案例 {n}，{s}", en=f"Case {n}, {s}")
            for s in strategies
        }
        for n in (1, 2, 3)
    },
    entries={n: {s: f'"{s}": ' for s in strategies} for n in (1, 2, 3)},
)

# %% tags=["solution"]
my_matrix = {
    # zh: 案例 1：S + A + R = 13 + 4 + 2 = 19 <= 24，DP 放得下；
    # zh: 各种切分的并行度都是 1 -> 不需要。
    # en: Case 1: S + A + R = 13 + 4 + 2 = 19 <= 24, so DP fits; every split has
    # en: degree 1 -> not needed.
    1: {
        "DP": "feasible",
        "FSDP": "not_preferred",
        "TP": "not_preferred",
        "PP": "not_preferred",
    },
    # zh: 案例 2：DP 需要 40 + 5 + 2 = 47 > 24（硬约束）；
    # zh: 32 路 FSDP：1.25 + 5 + 2 + 0.9 = 9.15，放得下；
    # zh: 没有哪一层超过设备显存 -> 不需要 TP；
    # zh: PP = 4：10 + 5 + 2 = 17，放得下。
    # en: Case 2: DP needs 40 + 5 + 2 = 47 > 24 (hard); FSDP over 32:
    # en: 1.25 + 5 + 2 + 0.9 = 9.15 fits;
    # en: no layer exceeds the device -> TP not needed; PP = 4: 10 + 5 + 2 = 17
    # en: fits.
    2: {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "not_preferred",
        "PP": "feasible",
    },
    # zh: 案例 3：单层 26 GiB；TP = 8 x FSDP = 4：10 + (78 + 8)/8 + 2 = 22.75，
    # zh: 放得下，但 TP 的链路未知；
    # zh: FSDP 是 TP 的第二个维度；PP 单独切不开这一层，
    # zh: 而 TP x FSDP 已经放得下且没有气泡。
    # en: Case 3: a 26 GiB layer; TP = 8 x FSDP = 4: 10 + (78 + 8)/8 + 2 = 22.75
    # en: fits, but TP's links are unknown;
    # en: FSDP is TP's second dimension; PP alone cannot split the layer and
    # en: TP x FSDP already fits with no bubble.
    3: {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "needs_info",
        "PP": "not_preferred",
    },
}
for n, row in my_matrix.items():
    for strategy, answer in row.items():
        label = Text(zh=f"案例 {n}，{strategy}", en=f"Case {n}, {strategy}")
        verify(f"matrix.case{n}_{strategy.lower()}", answer, label=label)

# %% [markdown] lang="zh"
# 填完之后，再和 coursekit 的评估对照。下表和每一格的理由都由 `evaluate_paper_cases()` 算出：

# %% [markdown] lang="en"
# Once you have filled it in, compare with coursekit's evaluation. The table and each cell's reasons below come from
# `evaluate_paper_cases()`:

# %%
evaluations = evaluate_paper_cases()


def show_evaluations() -> None:
    show_table(
        [Text(zh="案例", en="Case"), *STRATEGIES],
        [
            [case.title, *[verdict.label for verdict in evaluation.verdicts]]
            for case, evaluation in zip(PAPER_CASES, evaluations)
        ],
    )
    for case, evaluation in zip(PAPER_CASES, evaluations):
        lines = [f"**{case.title}**"]
        for verdict in evaluation.verdicts:
            for reason in verdict.reasons:
                lines.append(
                    str(
                        Text(
                            zh=f"- {verdict.strategy} · {verdict.label}："
                            f"{reason.message}",
                            en=f"- {verdict.strategy} · {verdict.label}: "
                            f"{reason.message}",
                        )
                    )
                )
        display(Markdown("\n".join(lines)))


# zh: 这张表含练习 5.1 和 5.2 的答案：
# zh: 按下按钮才显示
# en: the table holds the answers of exercises 5.1 and 5.2: shown when you press the
# en: button
reveal(show_evaluations)
assert [case_kind(case) for case in PAPER_CASES] == list(CASE_KINDS)
assert [e.summary() for e in evaluations] == [
    {
        "DP": "feasible",
        "FSDP": "not_preferred",
        "TP": "not_preferred",
        "PP": "not_preferred",
    },
    {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "not_preferred",
        "PP": "feasible",
    },
    {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "needs_info",
        "PP": "not_preferred",
    },
]

# %% [markdown] lang="zh"
# 读表时注意两种“不优先”的区别：案例 2 的 DP 是**硬排除**（放不下：它的理由是容量，每个 rank 需要的显存超过设备显存）；案例 1 的 FSDP / TP / PP 是
# **不需要**（放得下，再切只增加通信和复杂度）。
#
# 案例 2 的 TP 是“不需要”，但理由不是“TP 换不来任何东西”：容量问题由分片或分段就能解决，TP 每层的集合通信不是必需的；
# 可 TP 配合序列并行会把激活按 1/t 切开，而 ZeRO / FSDP 不切激活——激活成为瓶颈（长上下文、大微批次）时，TP 又有了理由。

# %% [markdown] lang="en"
# Tell the two kinds of "not preferred" apart: DP in case 2 is **hard-excluded** (it does not fit: its reason is
# capacity, each rank needs more memory than the device has); FSDP / TP / PP in case 1 are **not needed** (it already fits; splitting only adds
# communication and complexity).
#
# TP in case 2 is "not needed", but not because "TP buys nothing": sharding or stages already solve the capacity, so
# TP's collectives in every layer are not required. Yet TP with sequence parallelism divides the activations by t,
# which ZeRO / FSDP does not: when activations become the bottleneck (a long context, a large micro-batch), TP has a
# reason again.

# %% [markdown] lang="zh"
# ### 案例 3：为什么答案是 TP × FSDP
#
# 案例 3 中一层就有 26 GiB，FSDP 和 PP 都要在某个 rank 上持有整层，所以必须先用 TP 切开这一层。
# 但**只用 TP 也不够**：TP = 8 时每个 rank 仍持有训练状态的 1/8，即 40 GiB。下表由 `combination_memory_gib` 逐行算出：

# %% [markdown] lang="en"
# ### Case 3: why the answer is TP × FSDP
#
# In case 3 one layer alone is 26 GiB, and FSDP and PP must both hold a whole layer on some rank, so TP has to split
# the layer first. But **TP alone is not enough either**: at TP = 8 each rank still holds 1/8 of the training state,
# 40 GiB. The table below computes each row with `combination_memory_gib`:

# %%
case3 = CASE_LAYER_EXCEEDS_DEVICE
tp_verdict = evaluate_paper_case(case3).verdict_of("TP")
tp = tp_verdict.degree
fsdp = case3.num_devices // tp
plans = [
    (Text(zh="纯 DP", en="pure DP"), 1, 1),
    (
        Text(
            zh=f"只用 FSDP（{case3.num_devices} 路）",
            en=f"FSDP alone ({case3.num_devices} ranks)",
        ),
        1,
        case3.num_devices,
    ),
    (Text(zh=f"只用 TP = {tp}", en=f"TP = {tp} alone"), tp, 1),
    (Text(zh=f"TP {tp} × FSDP {fsdp}", en=f"TP {tp} × FSDP {fsdp}"), tp, fsdp),
]
rows = []
memory = {}
for name, t, d in plans:
    memory[(t, d)] = combination_memory_gib(case3, tp=t, fsdp=d)
    fits = memory[(t, d)] <= case3.device_memory_gib
    rows.append(
        [
            name,
            f"{memory[(t, d)]:.2f}",
            Text(zh="放得下", en="fits")
            if fits
            else Text(zh="放不下", en="does not fit"),
        ]
    )
show_table(
    [
        Text(zh="方案", en="Plan"),
        Text(zh="每 rank (GiB)", en="per rank (GiB)"),
        Text(zh="24 GiB 设备", en="24 GiB device"),
    ],
    rows,
)
assert memory[(tp, 1)] > case3.device_memory_gib >= memory[(tp, fsdp)]
assert (
    abs(
        memory[(tp, 1)]
        - (
            case3.training_state_gib / tp
            + case3.activation_gib / tp
            + case3.runtime_reserve_gib
        )
    )
    < 1e-9
)
assert abs(memory[(tp, fsdp)] - tp_verdict.memory_per_rank_gib) < 1e-9
assert evaluate_paper_case(case3).verdict_of("FSDP").degree == fsdp

# %% [markdown] lang="zh"
# 所以案例 3 的计划是 TP × FSDP：TP 切开这一层，FSDP 把训练状态分到 TP 组之间。FSDP 在这里不是“不优先”，而是必需的第二个维度；
# PP 在 TP 切开这一层后也能用，但 TP × FSDP 已经放得下、没有流水线气泡，而持有这一大层的阶段会严重不均衡，所以 PP 不优先。
# TP 自己仍是“需更多信息”：每层的集合通信需要高速链路，案例还没说拓扑。

# %% [markdown] lang="en"
# So case 3's plan is TP × FSDP: TP splits the layer and FSDP shards the training state across the TP groups. FSDP
# here is not "not preferred" but the necessary second dimension; PP becomes possible once TP has split the layer, but
# TP × FSDP already fits with no pipeline bubble, and the stage holding the big layer would be badly unbalanced, so PP
# is not preferred. TP itself still "needs more information": its per-layer collectives need fast links, and the case
# has not said what the topology is.

# %% [markdown] lang="zh"
# ## 加上拓扑：节点内快、跨节点慢
#
# 现在补充一条信息：每个节点 8 张卡，节点内是高速互连（如 NVLink），节点之间是慢得多的网络。
# `topology_changes(case)` 对比加拓扑前后每个策略的结论和理由。

# %% [markdown] lang="en"
# ## Adding the topology: fast inside a node, slow between nodes
#
# Now one more fact: each node has 8 GPUs on fast links (e.g. NVLink), and nodes are joined by a much slower network.
# `topology_changes(case)` compares each strategy's verdict and reasons before and after the topology is given.

# %% [markdown] lang="zh"
# ### 练习 5.3
#
# 先猜：案例 3（单层超过单卡）加上这个拓扑后，DP、FSDP、TP、PP 中**哪一个**的结论会变？答策略名，如 `"PP"`。

# %% [markdown] lang="en"
# ### Exercise 5.3
#
# Guess first: in case 3 (one layer exceeds one device), **which one** of DP, FSDP, TP and PP changes its verdict once
# this topology is known? Answer a strategy name such as `"PP"`.

# %% tags=["learner"]
answer = ...
check("matrix.topology_changed", answer)

# %% tags=["solution"]
# zh: 只有 TP 的结论取决于缺失的链路信息；
# zh: 每节点 8 张高速互连的 GPU 时，TP = 8 留在一个节点内。
# en: Only TP's verdict rested on the missing link information; with 8 fast GPUs per
# en: node TP = 8 stays inside one node.
answer = "TP"
verify("matrix.topology_changed", answer)

# %%
rows = []
for case in PAPER_CASES:
    before = evaluate_paper_case(case)
    after = evaluate_paper_case(case, "hierarchical")
    cells = []
    for old, new in zip(before.verdicts, after.verdicts):
        arrow = (
            "→"
            if old.verdict != new.verdict or old.degree != new.degree
            else "="
        )
        degrees = ["-" if v.degree is None else v.degree for v in (old, new)]
        cells.append(
            f"{old.label} ({degrees[0]}) {arrow} {new.label} ({degrees[1]})"
        )
    rows.append([case.title, *cells])


def show_topology_changes() -> None:
    print(
        Text(
            zh="格式：加拓扑前（并行度）→ 加拓扑后（并行度）",
            en="Format: before (degree) → after (degree)",
        )
    )
    show_table([Text(zh="案例", en="Case"), *STRATEGIES], rows)
    for case in (CASE_STATE_EXCEEDS_DEVICE, CASE_LAYER_EXCEEDS_DEVICE):
        lines = [f"**{case.title}**"]
        for change in topology_changes(case):
            for reason in change.reasons_after:
                if reason.code in (
                    "dp_across_nodes",
                    "fsdp_hybrid",
                    "fsdp_with_tp_cross_node",
                    "tp_inside_node",
                    "pp_across_nodes",
                ):
                    lines.append(f"- {change.strategy}: {reason.message}")
        display(Markdown("\n".join(lines)))


# zh: 这张表含练习 5.3 的答案：按下按钮才显示
# en: the table holds the answer of exercise 5.3: shown when you press the button
reveal(show_topology_changes)

changed = {
    case.key: [c.strategy for c in topology_changes(case) if c.changed]
    for case in PAPER_CASES
}
assert changed == {
    "fits_one_device": [],
    "state_exceeds_device": [],
    "layer_exceeds_device": ["TP"],
}
assert (
    evaluate_paper_case(CASE_STATE_EXCEEDS_DEVICE, "hierarchical")
    .verdict_of("FSDP")
    .degree
    == 8
)

# %% [markdown] lang="zh"
# **选择怎样移动，为什么：**
#
# - 案例 3 的 TP 从“需更多信息”变成“可行”：TP = 8 正好放在一个 8 卡节点之内，每层的集合通信留在高速链路上。
#   它的第二个维度 FSDP（4 路）于是跨节点：每层的全收集走慢链路，要实测它能否与计算重叠。
#   如果 TP 组必须跨节点（`check_tp_degree` 会拒绝 tp > 每节点卡数），结论就会是硬排除。
# - 案例 2 的 FSDP 结论没变，但**做法**变了：只在节点内分片（并行度 32 → 8），节点之间复制。这样每层的全收集
#   走节点内高速链路，跨节点的只有每步一次梯度全归约——这就是 PyTorch 的 HYBRID_SHARD 思路。
# - DP 和 PP 适合放在跨节点的维度：DP 每步只同步一次，PP 只在阶段边界传点对点 (point-to-point) 激活。
#
# 这正是“节点内用 TP、跨节点用 DP/PP”这条常见做法的来由：**按通信频率把维度映射到链路**。它不是固定规则，
# 例如单层不需要切时就根本不需要 TP。

# %% [markdown] lang="en"
# **How the choices move, and why:**
#
# - TP in case 3 moves from "needs more information" to "feasible": TP = 8 fills one 8-GPU node exactly, so every
#   layer's collectives stay on the fast links. Its second dimension, the 4-way FSDP, then crosses nodes: every layer's
#   all-gather runs on the slow link, and only measurement tells whether it overlaps compute. If the TP group had to cross nodes (`check_tp_degree` refuses
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
# ## 全局批大小反过来约束 DP 并行度
#
# 每个优化器步处理的样本数是
#
# $$\text{全局批大小} = \text{dp} \times \text{微批次} \times \text{梯度累积步数 (gradient accumulation)}.$$
#
# 全局批大小通常由优化（收敛、学习率）决定，不能随意变大。于是 DP 并行度越大，每个 rank 分到的就越少：
# 梯度累积降到 1 之后，要么增大全局批大小（改变优化），要么缩小每个 rank 的微批次（内核效率变差，
# 到 1 就不能再小）。`check_global_batch` 检查这个等式，`dp_degrees_for_batch` 列出允许的 DP 并行度。

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
    print(
        Text(
            zh=f"全局批大小 {global_batch}，微批次 {micro_batch}：允许的 DP "
            f"并行度 {degrees}",
            en=f"global batch {global_batch}, micro-batch {micro_batch}: "
            f"allowed DP degrees {degrees}",
        )
    )
# zh: rank 数比这批的序列条数多 32
# en: 32 ranks more than the batch has sequences
too_many = max_dp_degree(global_batch, 1) + 32
reason = check_global_batch(too_many, 1, 1, global_batch)
print(
    Text(
        zh=f"{too_many} 个 rank 做纯 DP：", en=f"Pure DP on {too_many} ranks: "
    ).render()
    + reason.message
)
assert reason is not None and reason.code == "global_batch"
assert (
    max(dp_degrees_for_batch(global_batch, 4))
    == max_dp_degree(global_batch, 4)
    == global_batch // 4
)

# %% [markdown] lang="zh"
# 所以在 96 个 rank 上训练全局批大小 64 的模型，纯 DP 行不通：多出来的 rank 必须交给 TP / PP 等模型并行维度，
# 或者改变优化设置。

# %% [markdown] lang="en"
# So pure DP cannot train a global batch of 64 on 96 ranks: the extra ranks must go to model-parallel dimensions such
# as TP / PP, or the optimization settings must change.

# %% [markdown] lang="zh"
# ### 练习 5.4
#
# 全局批大小 = 512 条序列，每个 rank 的微批次 = 4。不改全局批大小、也不缩小微批次，DP 并行度最大是多少？

# %% [markdown] lang="en"
# ### Exercise 5.4
#
# The global batch is 512 sequences and each rank's micro-batch is 4. Without changing the global batch or shrinking
# the micro-batch, what is the largest DP degree?

# %% tags=["learner"]
answer = ...
check("matrix.max_dp", answer)

# %% tags=["solution"]
# zh: 梯度累积步数为 1：dp x 微批次 = 全局批大小
# en: gradient accumulation 1: dp x micro-batch = global batch
answer = 512 // 4
verify("matrix.max_dp", answer)

# %% [markdown] lang="zh"
# ## 动手：改变约束，看矩阵的格子怎么变
#
# 下面的小部件把前面的方法用在你设定的约束上：选模型（它的训练状态按每参数 16 字节算，和单卡显存比）、单卡显存、
# 互连（未知，或节点内快、跨节点慢）、全局批大小和序列长度，集群固定为 4 个节点 × 8 卡、每个 rank 的微批次为 1。
# `constraint_case` 用第 1 课的函数算出训练状态、激活（选择性重计算）和最大一层的权重，`evaluate_paper_case` 给出
# 每一格的结论。图里每个策略一条横条：长度是它在所选并行度下的每 rank 显存，颜色是结论（绿色可行、灰色不优先、
# 黄色需更多信息），红色虚线是单卡显存；消息框列出每一格的第一条理由。主控件（模型）可以用方向键逐档切换。
#
# 试一试：
#
# 1. 从 7.5B 开始，把单卡显存从 24 GiB 降到 16 GiB：哪几格变了？再升到 80 GiB：为什么 DP 仍然不行？
# 2. 选 18.4B，把互连从“未知”换成“节点内快、跨节点慢”：TP 的结论为什么变了？
# 3. 回到 7.5B、互连换回“未知”，再把序列长度加到 32768：激活变大，哪一格不再可行、哪一格开始需要 TP？
#    换回 2048、把全局批大小降到 16：32 张卡分不完 16 条序列，哪些格子因此被排除，哪一格留下？

# %% [markdown] lang="en"
# ## Hands on: change the constraints and watch the matrix's cells
#
# The widget applies the method above to constraints you set: the model (its training state at 16 bytes per
# parameter, against the device memory), the device memory, the interconnect (unknown, or fast inside a node and slow
# between nodes), the global batch and the sequence length, on a fixed cluster of 4 nodes × 8 devices with a
# micro-batch of 1 per rank. `constraint_case` computes the training state, the activations (selective
# recomputation) and the largest layer's weights with lesson 1's functions, and `evaluate_paper_case` gives each
# cell's verdict. The figure draws one bar per strategy: its length is the memory per rank at the degree the
# evaluation settled on, its colour the verdict (green feasible, grey not preferred, yellow needs more information),
# and the red dashed line the device memory; the message box lists each cell's first reason. The main control (the
# model) steps with the arrow keys.
#
# Try this:
#
# 1. Start at 7.5B and lower the device memory from 24 GiB to 16 GiB: which cells change? Raise it to 80 GiB: why is
#    DP still out?
# 2. Pick 18.4B and change the interconnect from "unknown" to "fast inside a node, slow between nodes": why does TP's
#    verdict change?
# 3. Go back to 7.5B with the interconnect "unknown", then raise the sequence length to 32768: the activations grow;
#    which cell is no longer feasible, and which starts to need TP? Back at 2048, lower the global batch to 16:
#    32 devices cannot share 16 sequences; which cells does that exclude, and which one is left?

# %%
matrix_widget = MatrixWidget()
matrix_widget

# %%
# zh: 小部件的每一格：
# zh: evaluate_paper_case 对 constraint_case 所建案例给出的结论。
# en: The widget's cells are evaluate_paper_case's on the case constraint_case
# en: builds.
view = matrix_widget.result
assert view.evaluation == evaluate_paper_case(
    constraint_case(
        "megatron-7.5b", device_memory_gib=24, global_batch=64, seq_len=2048
    ),
    "unspecified",
)
# zh: 核对“试一试”第 3 步（7.5B，互连未知）：
# zh: 32768 个 token 时 PP 不再可行、FSDP 要靠 TP 先切开一层；
# zh: 全局批大小 16 时 FSDP 因批大小被排除，只剩 PP。
# en: Check step 3 of "Try this" (7.5B, interconnect unknown): at 32768 tokens PP is
# en: no longer feasible and FSDP needs TP to split a layer first; with a global
# en: batch of 16, FSDP is excluded by the batch and only PP is left.
long_context = evaluate_paper_case(
    constraint_case(
        "megatron-7.5b", device_memory_gib=24, global_batch=64, seq_len=32768
    ),
    "unspecified",
)
assert long_context.verdict_of("PP").verdict == "not_preferred"
assert long_context.verdict_of("FSDP").codes == ("fsdp_with_tp",)
small_batch = evaluate_paper_case(
    constraint_case(
        "megatron-7.5b", device_memory_gib=24, global_batch=16, seq_len=2048
    ),
    "unspecified",
)
assert small_batch.verdict_of("FSDP").codes == ("global_batch",)
assert [s for s, v in small_batch.summary().items() if v == "feasible"] == [
    "PP"
]

# %% [markdown] lang="zh"
# 下图把同样的规则用在全部八个模型上（单卡 24 GiB、拓扑已知、全局批大小 64、序列 2048、32 张卡）：
# 每行一个模型（行标签带着它的训练状态），每列一个策略；图下按列列出每个策略在哪些模型上可行。从小到大读：
#
# - **DP 一格也不可行**：连最小的模型，训练状态本身就超过了单卡显存。
# - **最小的几个模型**：FSDP 和 PP 可行；TP 不优先，因为没有哪一层需要切开。
# - **再大两档**：FSDP 单独分片、PP 分段都放不下了（PP 是硬排除）。TP 可行，它的做法里带着跨 TP 组的 FSDP 分片，
#   所以 FSDP 这一格也是可行，但做法变了：它作为 TP 的第二个维度（TP × FSDP），两格说的是同一个布局。
#   同一个“可行”在不同的行上可以是不同的做法。
# - **最大的几个模型全部不优先**：32 张这样的卡装不下，要更多设备或更大的显存。

# %% [markdown] lang="en"
# The figure applies the same rules to all eight models (24 GiB devices, topology known, global batch 64, sequence
# 2048, 32 devices): one row per model (its label carries the training state), one column per strategy; below the
# figure, each strategy's column is listed as the models on which it is feasible. Read it from small to large:
#
# - **DP is feasible nowhere**: even the smallest model's training state alone exceeds the device memory.
# - **The smallest models**: FSDP and PP are feasible; TP is not preferred, as no layer needs splitting.
# - **The next two sizes**: FSDP sharding alone and PP stages no longer fit (PP is a hard exclusion). TP is feasible,
#   and its layout shards the state with FSDP across the TP groups, so the FSDP cell is feasible too, in another way:
#   as TP's second dimension (TP × FSDP); the two cells describe one layout. The same "feasible" can be a different
#   layout on different rows.
# - **The largest models: nothing is feasible**: 32 such devices cannot hold them; they need more devices or more
#   memory.

# %%
grid_views = [
    matrix_view(name, 24, "hierarchical", 64, 2048) for name in MODEL_SHAPES
]
fig = new_figure(6.0, 3.2)
verdict_grid_chart(fig.add_subplot(), grid_views)
display(figure_image(fig))

# zh: 把图的每一列写成列表：
# zh: 该策略可行的那些模型。
# en: Each column of the figure as a list: the models on which the strategy is
# en: feasible.
names = [short_model_name(view.model) for view in grid_views]
verdicts = [view.evaluation.summary() for view in grid_views]
for strategy in STRATEGIES:
    zh_items, en_items = [], []
    for name, view in zip(names, grid_views):
        verdict = view.evaluation.verdict_of(strategy)
        if verdict.verdict == "feasible":
            # zh: FSDP 是 TP 的第二个维度
            # en: FSDP as TP's second dimension
            with_tp = verdict.codes[0] == "fsdp_with_tp"
            zh_items.append(name + ("（TP × FSDP）" if with_tp else ""))
            en_items.append(name + (" (TP × FSDP)" if with_tp else ""))
    print(
        Text(
            zh=f"{strategy} 可行：{'、'.join(zh_items) or '没有'}",
            en=f"{strategy} feasible: {', '.join(en_items) or 'none'}",
        )
    )
nothing = [
    name
    for name, summary in zip(names, verdicts)
    if "feasible" not in summary.values()
]
print(
    Text(
        zh="全部不优先：" + "、".join(nothing),
        en="nothing feasible: " + ", ".join(nothing),
    )
)
smallest = grid_views[0].case
print(
    Text(
        zh=f"最小的模型 {names[0]}："
        f"训练状态 {smallest.training_state_gib:.1f} GiB，"
        f"单卡 {smallest.device_memory_gib:g} GiB",
        en=f"smallest model, {names[0]}: training state "
        f"{smallest.training_state_gib:.1f} GiB, "
        f"device {smallest.device_memory_gib:g} GiB",
    )
)

# zh: 用同一份数据核对上文对这张图的解读。
# en: Check the reading of the figure given above, on the same data.
assert all(summary["DP"] == "not_preferred" for summary in verdicts)
assert smallest.training_state_gib > smallest.device_memory_gib
# zh: 最小的几个模型：FSDP 和 PP 可行，不需要 TP
# en: the smallest models: FSDP and PP feasible, TP not needed
small = 0
while verdicts[small]["FSDP"] == verdicts[small]["PP"] == "feasible":
    assert verdicts[small]["TP"] == "not_preferred"
    small += 1
assert small >= 2
# zh: 再大两档：TP 可行，
# zh: 它的布局同时也用 FSDP 切分，FSDP 这一格说的正是这个布局
# en: the next two sizes: TP feasible, its layout shards with FSDP too, and the FSDP
# en: cell names that very layout
for view, summary in zip(
    grid_views[small : small + 2], verdicts[small : small + 2]
):
    assert summary == {
        "DP": "not_preferred",
        "FSDP": "feasible",
        "TP": "feasible",
        "PP": "not_preferred",
    }
    tp_plan, fsdp_cell = (
        view.evaluation.verdict_of("TP"),
        view.evaluation.verdict_of("FSDP"),
    )
    assert tp_plan.reasons[0].params["fsdp"] == fsdp_cell.degree > 1
    assert (
        fsdp_cell.codes[0] == "fsdp_with_tp"
        and view.evaluation.verdict_of("PP").hard_excluded
    )
assert nothing == names[small + 2 :] and len(nothing) >= 2

# %% [markdown] lang="zh"
# ## 系统场景连接
#
# - **平台团队**要把训练需求翻译成调度约束：需要多少设备、是否要同机亲和 (affinity，TP 组必须在一个节点内)、
#   什么互连、检查点存储多大、可接受的恢复时间是多少。选择矩阵里的“适用条件”一列，就是这些约束的来源。
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
# zh: 论文案例的设备显存和运行时预留
# en: the paper cases' device and runtime reserve
device_gib, reserve_gib = 24.0, 2.0
full_finetune = training_state_memory(7e9)
# zh: 没有梯度，也没有优化器状态
# en: no grads, no optimizer
frozen_base = training_state_memory(
    7e9, param_bytes=2, grad_bytes=0, optimizer_bytes=0
)
# zh: 示意的 LoRA 规模；用混合精度 Adam 训练
# en: illustrative LoRA size; trained with mixed-precision Adam
adapters = training_state_memory(40e6)
peft_gib = frozen_base.total_gib + adapters.total_gib
yes_no = {True: Text(zh="是", en="yes"), False: Text(zh="否", en="no")}
show_table(
    [
        Text(zh="做法", en="Approach"),
        Text(zh="训练状态 (GiB)", en="training state (GiB)"),
        Text(zh="单卡 24 GiB 放得下？", en="fits a 24 GiB device?"),
    ],
    [
        [
            Text(zh="全量微调 7B", en="full fine-tuning, 7B"),
            f"{full_finetune.total_gib:.1f}",
            yes_no[full_finetune.total_gib + reserve_gib <= device_gib],
        ],
        [
            Text(
                zh="PEFT：冻结 7B + 40M 可训练",
                en="PEFT: frozen 7B + 40M trainable",
            ),
            f"{peft_gib:.1f}",
            yes_no[peft_gib + reserve_gib <= device_gib],
        ],
    ],
)
assert full_finetune.total_gib > device_gib > peft_gib + reserve_gib


# %% [markdown] lang="zh"
# ## 自检问题
#
# 1. 按选择矩阵“解决的瓶颈”一列，DP、FSDP、TP、PP 各解决什么？案例 2（训练状态 40 GiB，单卡 24 GiB）里 FSDP 和 PP
#    都可行，TP 为什么只是“不优先”，而不是被硬排除？
# 2. 按“主要通信”一列，四种策略各在什么时候通信（每步一次、每层都有、只在阶段边界）？据此说明知道拓扑
#    （节点内快、跨节点慢）以后，哪些维度放在节点内，哪些可以跨节点。
# 3. PP 的适用条件和代价各是什么？案例 3 里 PP 也能解决容量问题，为什么仍然不优先？
# 4. 单层放不下单卡时，为什么只用 TP 常常还不够？用案例 3 的数字说明。

# %% [markdown] lang="en"
# ## Self-check questions
#
# 1. Using the selection matrix's "bottleneck solved" column: what does each of DP, FSDP, TP and PP solve? In case 2
#    (a 40 GiB training state, 24 GiB devices) FSDP and PP are feasible; why is TP only "not preferred" rather than
#    hard-excluded?
# 2. Using the "main communication" column: when does each of the four strategies communicate (once per step, in
#    every layer, only at stage boundaries)? From that, once the topology is known (fast inside a node, slow between
#    nodes), which dimensions belong inside a node and which can cross nodes?
# 3. What are PP's conditions and its cost? In case 3 PP also solves the capacity problem; why is it still not
#    preferred?
# 4. When one layer does not fit a device, why is TP alone often still not enough? Use case 3's numbers.

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. DP 解决吞吐：训练状态放得下单卡时，用更多设备铺开更大的批次。FSDP 解决容量：把参数、梯度和优化器状态分片，
#    理想约 $M_\text{model}/P$。PP 也解决容量：按层切成阶段，每卡只放一段层。TP 解决单层矩阵放不下单卡，或分摊层内计算
#    （配合序列并行还把激活按 1/t 切开）。案例 2 没有哪一层超过单卡，分片或分段已经解决了容量，TP 每层的集合通信不是必需的：
#    它是“不需要”，不是哪道门槛没过（硬排除）；激活成为瓶颈时（长上下文、大微批次），TP 又有了理由。
# 2. DP 每步一次梯度全归约（次数少，每次覆盖全部梯度）；FSDP 每层计算前全收集参数、反向后归约散射梯度（每层都有，
#    预取能让它与计算重叠）；TP 每层前向和反向都有集合通信，位于计算的关键路径上，最频繁也最难掩盖；PP 只在阶段边界
#    点对点传激活和梯度。按通信频率把维度映射到链路：TP 放在节点内（练习 5.3 里案例 3 的 TP = 8 正好占满一个 8 卡节点，
#    才从“需更多信息”变为“可行”）；DP 和 PP 放在跨节点的维度；FSDP 可以只在节点内分片、节点之间复制
#    （案例 2 的并行度 32 → 8）。
# 3. 条件：层数足够、各阶段能平衡、微批次足够多；它可以跨较慢的互连。代价：流水线气泡（朴素调度约 (p-1)/(m+p-1)）、
#    阶段不平衡、调度复杂。案例 3 一层就有 26 GiB：不先用 TP 切开这一层，总有一个阶段要持有整层，放不下；TP 切开之后，
#    TP × FSDP 已经放得下、没有气泡，而持有这一大层的阶段会严重不均衡，所以 PP 不优先。
# 4. TP = t 只把训练状态分成 t 份：案例 3 的 320 GiB 在 TP = 8 时每个 rank 仍有 40 GiB，加上激活和预留共 43 GiB，
#    超过 24 GiB。训练状态还要跨 TP 组分片（TP 8 × FSDP 4）：320/32 + (3 × 26 + 8)/8 + 2 = 22.75 GiB，才放得下。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. DP solves throughput: when the training state fits one device, more devices spread a larger batch. FSDP solves
#    capacity: it shards parameters, gradients and optimizer state, ideally about $M_\text{model}/P$. PP solves
#    capacity too: the layers are cut into stages and each device holds one stage. TP solves a single layer whose
#    matrices do not fit one device, or spreads a layer's compute (with sequence parallelism it also cuts the
#    activations to 1/t). In case 2 no layer exceeds a device and sharding or staging already solves capacity, so TP's
#    collectives in every layer are not needed: it is "not needed", not a failed gate (a hard exclusion); when
#    activations become the bottleneck (long context, large micro-batches), TP has a reason again.
# 2. DP: one gradient all-reduce per step (rare, each covering every gradient). FSDP: an all-gather of parameters
#    before each layer and a reduce-scatter of gradients after its backward (in every layer; prefetching lets it
#    overlap compute). TP: collectives in the forward and backward of every layer, on the critical path of the compute:
#    the most frequent and the hardest to hide. PP: point-to-point activations and gradients at stage boundaries only.
#    Map the dimensions to links by that frequency: TP inside a node (in exercise 5.3, case 3's TP = 8 fills one
#    8-GPU node, which is what turns "needs more information" into "feasible"); DP and PP across nodes; FSDP can shard
#    inside a node and replicate between nodes (case 2's degree 32 → 8).
# 3. Conditions: enough layers, stages that can be balanced, enough micro-batches; it tolerates slower links. Cost:
#    the pipeline bubble (about (p-1)/(m+p-1) for a naive schedule), stage imbalance, scheduling complexity. In case 3
#    one layer alone is 26 GiB: unless TP splits that layer first, some stage must hold the whole layer, which does not
#    fit; once TP has split it, TP × FSDP already fits with no bubble, and the stage holding the big layer would be
#    badly unbalanced, so PP is not preferred.
# 4. TP = t divides the training state only by t: case 3's 320 GiB leaves 40 GiB per rank at TP = 8, 43 GiB with
#    activations and reserve, above 24 GiB. The state must also be sharded across the TP groups (TP 8 × FSDP 4):
#    320/32 + (3 × 26 + 8)/8 + 2 = 22.75 GiB, which fits.

# %% [markdown] lang="zh"
# ## 延伸阅读与深入学习提示
#
# - **PyTorch FSDP 文档**（[FSDP](https://pytorch.org/docs/stable/fsdp.html)，[FSDP2 `fully_shard`](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)）：
#   读分片策略 (sharding strategy)、预取 (`BackwardPrefetch`) 和设备网格 (device mesh)，整理出“何时全收集、何时分片”的时序，对照本课机制二的全收集峰值。
# - **ZeRO 论文**：Rajbhandari et al., *ZeRO: Memory Optimizations Toward Training Trillion Parameter Models*, SC 2020
#   （[arXiv:1910.02054](https://arxiv.org/abs/1910.02054)）：每参数 16 字节与三个分片阶段的来源。
# - **Megatron-LM 论文**：Shoeybi et al. 2019（[arXiv:1909.08053](https://arxiv.org/abs/1909.08053)）讲 TP；
#   Korthikanti et al. 2022（[arXiv:2205.05198](https://arxiv.org/abs/2205.05198)）讲序列并行与选择性重计算如何切激活。
# - **长上下文**：Liu et al., Ring Attention（[arXiv:2310.01889](https://arxiv.org/abs/2310.01889)）；Jacobs et al., DeepSpeed-Ulysses
#   （[arXiv:2309.14509](https://arxiv.org/abs/2309.14509)）：把注意力的平方项分到多个 rank 上的两种做法。
# - **CMU Deep Learning Systems（10-414/714）** 的分布式训练部分：把计算图的切分映射成 DP / TP / PP 的数据运动，对照矩阵里的“主要通信”一列。
#
# 深入学习时：**先用硬约束排除，再比较成本**；遇到“X 比 Y 快”的材料，**主动追问**模型、硬件拓扑、批次、精度和规模。

# %% [markdown] lang="en"
# ## Related reading and deeper study
#
# - **PyTorch FSDP documentation** ([FSDP](https://pytorch.org/docs/stable/fsdp.html), [FSDP2 `fully_shard`](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)):
#   read the sharding strategies, prefetching (`BackwardPrefetch`) and the device mesh, and write down the timeline of "when to gather, when to shard", next to this lesson's gather peak (mechanism 2).
# - **The ZeRO paper**: Rajbhandari et al., *ZeRO: Memory Optimizations Toward Training Trillion Parameter Models*,
#   SC 2020 ([arXiv:1910.02054](https://arxiv.org/abs/1910.02054)): where the 16 bytes per parameter and the three
#   sharding stages come from.
# - **The Megatron-LM papers**: Shoeybi et al. 2019 ([arXiv:1909.08053](https://arxiv.org/abs/1909.08053)) on TP;
#   Korthikanti et al. 2022 ([arXiv:2205.05198](https://arxiv.org/abs/2205.05198)) on how sequence parallelism and
#   selective recomputation cut activations.
# - **Long context**: Liu et al., Ring Attention ([arXiv:2310.01889](https://arxiv.org/abs/2310.01889)); Jacobs et al.,
#   DeepSpeed-Ulysses ([arXiv:2309.14509](https://arxiv.org/abs/2309.14509)): two ways to spread attention's quadratic
#   term over ranks.
# - **CMU Deep Learning Systems (10-414/714)**, the distributed training part: map the partitioning of a computation
#   graph to the data movement of DP / TP / PP, next to the "main communication" column of the matrix.
#
# To go deeper: **exclude with hard constraints first, then compare cost**; when a source claims "X is faster than Y",
# **ask** for the model, the hardware topology, the batch, the precision and the scale.

# %% [markdown] lang="zh"
# ## 要点
#
# - 并行策略选择是在容量、计算、拓扑、批大小与上下文、恢复和复杂度之间找可接受的组合，不是找普遍最优。
# - 先排除后比较：$M_\text{model} > C_\text{device}$ 直接排除纯 DP；FSDP 约为 $M_\text{model}/P$，再加激活和全收集峰值（预取时约两层参数加一层未分片梯度）。
# - 单层放不下，或需要分摊层内计算、切分激活（配合序列并行）时用 TP；TP 每层都通信，留在节点内。DP / PP 通信频率低，放在跨节点的维度。
# - 单层放不下时没有哪个策略能单独解决：TP 切开这一层，FSDP 再把训练状态分到 TP 组之间（TP × FSDP）。
# - 长上下文的注意力平方项由上下文并行（环形注意力）或 Ulysses 分摊，Megatron 的序列并行不切它。
# - 全局批大小 = dp × 微批次 × 梯度累积：它给 DP 并行度设了上限。

# %% [markdown] lang="en"
# ## Key points
#
# - Choosing a parallel strategy means finding an acceptable combination of capacity, compute, topology, batch/context, recovery and complexity, not a universal optimum.
# - Exclude first, compare later: $M_\text{model} > C_\text{device}$ excludes pure DP; FSDP is about $M_\text{model}/P$ plus activations and the gather peak (with prefetch about two layers of parameters and one of unsharded gradients).
# - Use TP when a layer does not fit, or to spread a layer's compute and (with sequence parallelism) its activations; it communicates in every layer and stays inside a node. DP / PP communicate rarely and take the across-node dimension.
# - When one layer does not fit, no strategy solves it alone: TP splits the layer and FSDP shards the training state across the TP groups (TP × FSDP).
# - Attention's quadratic term under a long context is spread by context parallelism (ring attention) or Ulysses; Megatron's sequence parallelism does not split it.
# - global batch = dp × micro-batch × gradient accumulation: it caps the DP degree.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 三个案例的选择矩阵：
# - 拓扑变化后的选择：
# - 我认为当前不必深入的策略：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - The selection matrix of the three cases:
# - The choice after the topology change:
# - A strategy I think I need not study in depth yet:

# %% [markdown] lang="zh"
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 4 课 组合与风险](04_composition.ipynb) · 下一课：[第 6 课 流水线气泡与扩展效率](06_pipeline_scaling.ipynb)

# %% [markdown] lang="en"
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 4, composition and risk](04_composition.ipynb) · next: [lesson 6, pipeline bubble and scaling efficiency](06_pipeline_scaling.ipynb)
