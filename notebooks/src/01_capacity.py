# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 1 课：Q1 容量约束
#
# [English version](../en/01_capacity.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 0 课 课程导引](00_index.ipynb) · 下一课：[第 2 课 通信成本](02_communication.ipynb)
#
# > **时间：** 约 50 分钟（讲解与阅读 40 分钟，练习 10 分钟）
# >
# > **问题：**
# > - 当前首先受显存、通信还是模型结构约束？
# > - 每种并行策略切分的是什么？它最依赖什么前提？
# > - 一块设备上的显存究竟被哪些东西占用？
# >
# > **目标：**
# > - 在说出策略名字之前，先登记容量、互连和工作负载三类约束。
# > - 读懂课程的策略表：DP / ZeRO、TP、PP、CP、EP、服务副本各切分什么、承受什么压力、需要什么前提。
# > - 用资源账本 (resource ledger) 检查单设备容量缺口，并说清账本里每一项从哪里来：
# >   精度方案决定的模型状态、ZeRO 阶段、激活与重计算、上下文并行。
# > - 复现 ZeRO 论文图 1 的四个数字，用交互图找出能放下的最小 ZeRO 阶段。
# >
# > **前置：** [第 0 课](00_index.ipynb)（GB 与 GiB、混合精度 Adam 每参数 16 字节、ZeRO 三个阶段）。

# %% [markdown] lang="en"
# # Lesson 1: Q1 capacity constraints
#
# [中文版](../zh/01_capacity.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 0, course index](00_index.ipynb) · Next: [lesson 2, communication](02_communication.ipynb)
#
# > **Time:** about 50 min (teaching and reading 40 min, exercises 10 min)
# >
# > **Questions:**
# > - Is the first constraint device memory, communication or model structure?
# > - What does each parallel strategy split, and which precondition does it depend on most?
# > - What exactly occupies the memory of one device?
# >
# > **Objectives:**
# > - Record the capacity, interconnect and workload constraints before naming any strategy.
# > - Read the course's strategy table: what DP / ZeRO, TP, PP, CP, EP and serving replicas split, which pressure they
# >   bring and which precondition they need.
# > - Check a single device's capacity gap with the resource ledger, and say where each of its items comes from:
# >   model states set by the precision recipe, ZeRO stages, activations and recomputation, context parallelism.
# > - Reproduce the four numbers of Figure 1 of the ZeRO paper, and use the interactive figure to find the smallest
# >   ZeRO stage that fits.
# >
# > **Prerequisites:** [lesson 0](00_index.ipynb) (GB vs GiB, 16 bytes per parameter for mixed-precision Adam, the
# > three ZeRO stages).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.capacity import (
    PRECISION_RECIPES,
    RECOMPUTE_MODES,
    activation_memory_breakdown,
    build_resource_ledger,
    fsdp_zero_stage,
    training_state_memory,
)
from coursekit.exercises import check, show_solution, verify
from coursekit.i18n import Text
from coursekit.shapes import MODEL_SHAPES, model_shape
from coursekit.strategies import strategy_table
from coursekit.units import bytes_to_gib
from coursekit.widgets.capacity import CapacityWidget

# %% [markdown] lang="zh"
# ## 1. 先登记约束，再说策略名字
#
# 当单设备无法满足容量或吞吐目标时，可以切分训练状态、网络层、张量、序列、专家或服务请求。
# 不同切分对象解决的问题不同，也会引入不同的通信与负载风险。所以并行策略不要先背名字，先登记约束：
#
# 1. **容量约束**：每个设备需要保留多少模型状态 (model states)、激活 (activations) 和运行时预留 (runtime reserve)；
# 2. **互连约束**：并行组位于节点内还是跨节点，链路带宽和时延是多少（第 2 课）；
# 3. **工作负载约束**：当前是训练还是服务，模型是稠密模型 (dense model) 还是混合专家模型 (mixture of experts, MoE)，
#    上下文是否需要切分。
#
# 从这个角度看，不同策略处理的对象并不一样。下表第一列是策略，后两列是每个策略“X 解决……，前提是……”的一句话：

# %% [markdown] lang="en"
# ## 1. Record the constraints before naming strategies
#
# When one device cannot meet a capacity or throughput target, we can split the training state, the layers, the
# tensors, the sequence, the experts or the serving requests. Each object split solves a different problem and brings
# its own communication and load risks. So do not start from strategy names; record the constraints first:
#
# 1. **Capacity**: how much model state, activations and runtime reserve each device must keep;
# 2. **Interconnect**: whether a parallel group sits inside a node or spans nodes, and the bandwidth and latency of
#    its links (lesson 2);
# 3. **Workload**: training or serving, a dense model or a mixture of experts (MoE), and whether the context must be
#    split.
#
# Seen this way, each strategy works on a different object. In the table below, the first column is the strategy and
# the other two give each one's "X answers …, provided …" sentence:

# %%
display(Markdown(strategy_table(["name", "solves", "assumes"])))

# %% [markdown] lang="zh"
# 课程把它们整理成一张表：主要切分对象、主要压力和最关键前提。按行读：每种策略切分一个对象，带来一种压力，
# 依赖一个前提。

# %% [markdown] lang="en"
# The course gathers them in one table: the main object split, the main pressure and the key precondition. Read it
# row by row: each strategy splits one object, adds one pressure, needs one precondition.

# %%
display(Markdown(strategy_table()))

# %% [markdown] lang="zh"
# 注意三点：
#
# - 两张表给 DP / ZeRO 的前提不一样，并不矛盾：“模型至少接近能放下”是纯数据并行的前提（每个 rank 放一整份状态）；
#   ZeRO 把状态在 DP 的 rank 之间切开，正是为了放宽这一条，所以第二张表写的是“有明确的分片方案”。ZeRO-3 切得最彻底，
#   只剩每层计算时临时收集的那一层参数要放得下（第 5 课的全收集峰值）。
# - 服务副本 (Replica) 和训练中的数据并行 (DP) 都复制模型，但语义不同：副本之间不同步模型状态，压力在队列和尾延迟。
# - 这张表不是打分表。**策略选择不是给候选打一个综合分，而是先记录可测量的约束，再排除不满足硬条件的候选。**
#   本课处理第一类约束：容量。

# %% [markdown] lang="en"
# Three remarks:
#
# - The two tables give DP / ZeRO different preconditions, and they do not contradict each other: "the model (nearly)
#   fits on one device" is plain data parallelism's (every rank holds a whole copy of the state); ZeRO shards that
#   state over the DP ranks precisely to relax it, hence the second table's "a clear sharding plan". ZeRO-3 shards the
#   most: only the layer being computed, gathered for the moment, must fit (lesson 5's gather peak).
# - Serving replicas and training data parallelism both copy the model, but mean different things: replicas do not
#   synchronize model state, and their pressure is queueing and tail latency.
# - The table is not a scorecard. **Choosing a strategy is not giving candidates a combined score; it is recording
#   measurable constraints first and rejecting the candidates that fail a hard condition.** This lesson handles the
#   first kind of constraint: capacity.

# %% [markdown] lang="zh"
# ## 2. 资源账本：单设备容量缺口
#
# Q1 的第一个小验证建立一本带单位的资源账本：模型状态 + 激活 + 运行时预留，和设备显存比较，全部以 GiB 计。
# `coursekit.build_resource_ledger` 是它的带输入校验的版本（拒绝 NaN、布尔值、负数，设备显存必须大于 0），
# 返回一个冻结的数据类；`explain()` 用当前语言说出结论。

# %% [markdown] lang="en"
# ## 2. The resource ledger: one device's capacity gap
#
# Q1's first check builds a ledger with units: model states + activations + runtime reserve, against device memory,
# all in GiB. `coursekit.build_resource_ledger` is its validated version (it rejects NaN, booleans and negative values,
# and device memory must be above 0) and returns a frozen dataclass; `explain()` states the verdict in the current
# language.

# %%
fits = build_resource_ledger(13.0, 4.0, 2.0, 24.0)
does_not_fit = build_resource_ledger(22.0, 5.0, 2.0, 24.0)
assert fits.fits_one_device
assert not does_not_fit.fits_one_device
print(fits.explain())
print(does_not_fit.explain())
print(
    Text(
        zh=f"第一本账的字段：合计 required_gib = {fits.required_gib:g}，余量 "
        f"headroom_gib = {fits.headroom_gib:g}，缺口 shortfall_gib = "
        f"{fits.shortfall_gib:g}，放得下 fits_one_device = "
        f"{fits.fits_one_device}",
        en=f"fields of the first ledger: required_gib = {fits.required_gib:g}, "
        f"headroom_gib = {fits.headroom_gib:g}, "
        f"shortfall_gib = {fits.shortfall_gib:g}, fits_one_device = "
        f"{fits.fits_one_device}",
    )
)

# %% [markdown] lang="zh"
# 账本的结论只和三个输入的和有关。可是 13 GiB 的模型状态、4 GiB 的激活是怎么来的？
# 按参数量直接指定并行策略、忽略优化器状态、激活和上下文，是选择并行策略时最常见的误区（第 6 课的“误区 1”还会回到它）。下面逐项拆开。

# %% [markdown] lang="en"
# The verdict only depends on the sum of three inputs. But where do 13 GiB of model states and 4 GiB of activations
# come from? Picking a strategy from the parameter count alone, ignoring optimizer state, activations and context, is
# the most common mistake in choosing a parallel strategy (lesson 6's Misconception 1 returns to it). Let us take
# the items apart.

# %% [markdown] lang="zh"
# ## 3. 模型状态从哪里来：精度方案与 ZeRO
#
# ### 3.1 精度方案：每个参数几个字节
#
# 训练时每个参数带着权重、梯度和优化器状态。它们各用什么数据类型，就是**精度方案 (precision recipe)**。
# `PRECISION_RECIPES` 收录了课程用到的几种，每种都注明出处：

# %% [markdown] lang="en"
# ## 3. Where model states come from: precision recipes and ZeRO
#
# ### 3.1 Precision recipes: bytes per parameter
#
# In training each parameter carries its weight, its gradient and optimizer state. Which data types they use is the
# **precision recipe**. `PRECISION_RECIPES` holds the ones the course uses, each with its source:

# %%
header = [
    Text(zh="方案", en="Recipe"),
    Text(zh="参数", en="Weights"),
    Text(zh="梯度", en="Gradients"),
    Text(zh="优化器状态 K", en="Optimizer state K"),
    Text(zh="合计（字节/参数）", en="Total (bytes per param)"),
    Text(zh="说明", en="Description"),
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for name, recipe in PRECISION_RECIPES.items():
    cells = [
        f"`{name}`",
        f"{recipe.param_bytes:g}",
        f"{recipe.grad_bytes:g}",
        f"{recipe.optimizer_bytes:g}",
        f"{recipe.bytes_per_param:g}",
        str(recipe.description),
    ]
    rows.append("| " + " | ".join(cells) + " |")
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# ### 3.2 ZeRO 的四个阶段：复现论文图 1
#
# 设模型有 Ψ 个参数，每参数权重 p、梯度 g、优化器状态 k 字节，数据并行度为 $N_d$。ZeRO 依次切分优化器状态、梯度和参数：

# %% [markdown] lang="en"
# ### 3.2 The four ZeRO stages: reproducing the paper's Figure 1
#
# Let the model have Ψ parameters with p bytes of weights, g of gradients and k of optimizer state each, and a
# data-parallel degree $N_d$. ZeRO shards the optimizer state, then the gradients, then the parameters:

# %% [markdown]
# $$
# \begin{aligned}
# \text{ZeRO-0 (DP)}:&\ (p+g+k)\,\Psi \\
# \text{ZeRO-1}:&\ (p+g)\,\Psi + k\,\Psi/N_d \\
# \text{ZeRO-2}:&\ p\,\Psi + (g+k)\,\Psi/N_d \\
# \text{ZeRO-3}:&\ (p+g+k)\,\Psi/N_d
# \end{aligned}
# $$

# %% [markdown] lang="zh"
# ZeRO 论文图 1 用 Ψ = 7.5B、$N_d$ = 64、混合精度 Adam（2 + 2 + 12）给出每个设备 120 GB、31.4 GB、16.6 GB、1.9 GB。
# 下面用 `training_state_memory` 算出这四个数，并把论文的数字写成断言（论文以 GB = 10^9 字节计；最后一项论文四舍五入到 1.9）：

# %% [markdown] lang="en"
# Figure 1 of the ZeRO paper takes Ψ = 7.5B, $N_d$ = 64 and mixed-precision Adam (2 + 2 + 12) and shows 120 GB,
# 31.4 GB, 16.6 GB and 1.9 GB per device. `training_state_memory` computes the four numbers, and the paper's figures
# become assertions (the paper counts GB = 10^9 bytes; it rounds the last one to 1.9):

# %%
# zh: ZeRO 论文 (arXiv:1910.02054) 图 1 的模型与数据并行度
# en: the ZeRO paper (arXiv:1910.02054), Figure 1
ZERO_FIGURE_1_PARAMS, ZERO_FIGURE_1_DP = 7.5e9, 64
per_stage = [
    training_state_memory(
        ZERO_FIGURE_1_PARAMS, dp=ZERO_FIGURE_1_DP, zero_stage=s
    )
    for s in range(4)
]
for memory in per_stage:
    print(
        Text(
            zh=f"ZeRO-{memory.zero_stage}：每个 rank {memory.total_gb:8.3f} GB "
            f"= {memory.total_gib:8.3f} GiB",
            en=f"ZeRO-{memory.zero_stage}: {memory.total_gb:8.3f} GB = "
            f"{memory.total_gib:8.3f} GiB per rank",
        )
    )
assert round(per_stage[0].total_gb, 1) == 120.0
assert round(per_stage[1].total_gb, 1) == 31.4
assert round(per_stage[2].total_gb, 1) == 16.6
assert round(per_stage[3].total_gb, 2) == 1.88

# %% [markdown] lang="zh"
# PyTorch 全分片数据并行 (FSDP) 的切分策略对应同样的显存账：

# %% [markdown] lang="en"
# PyTorch FSDP's sharding strategies give the same memory accounting:

# %%
for strategy in ("NO_SHARD", "SHARD_GRAD_OP", "FULL_SHARD"):
    print(f"FSDP {strategy:13s} -> ZeRO-{fsdp_zero_stage(strategy)}")

# %% [markdown] lang="zh"
# ### 练习 1.1
#
# ZeRO 论文的 7.5B 参数模型，混合精度 Adam（2 + 2 + 12 字节/参数），8 路数据并行，ZeRO-2。每个 rank 的模型状态是多少 GiB？

# %% [markdown] lang="en"
# ### Exercise 1.1
#
# The ZeRO paper's 7.5B-parameter model, mixed-precision Adam (2 + 2 + 12 bytes per parameter), 8-way data
# parallelism, ZeRO-2. How many GiB of model states does each rank hold?

# %% tags=["learner"]
answer = ...
check("q1.zero2_gib", answer)

# %% tags=["solution"]
answer = training_state_memory(7.5e9, dp=8, zero_stage=2).total_gib
verify("q1.zero2_gib", answer)

# %% [markdown] lang="zh"
# ### 3.3 参数量从哪里来：模型形状
#
# 参数量来自模型形状。GPT 类模型每层有 12h² + 13h 个参数（注意力 4h²、MLP 8h²，加上偏置和层归一化），
# 再加上词表和位置嵌入 (V + s)·h（Narayanan et al. 2021, §5.1）。`MODEL_SHAPES` 收录了 Megatron 论文表 1 的形状和 GPT-3 175B；
# 按公式算出的参数量与论文标注的规模一致。后面的计算都用其中 7.5B 的形状（36 层，h = 4096，32 个头）。

# %% [markdown] lang="en"
# ### 3.3 Where the parameter count comes from: the model shape
#
# The parameter count comes from the shape. A GPT-style layer has 12h² + 13h parameters (attention 4h², MLP 8h², plus
# biases and layer norms), and the token and position embeddings add (V + s)·h (Narayanan et al. 2021, §5.1).
# `MODEL_SHAPES` holds the shapes of Table 1 of the Megatron paper and GPT-3 175B; the formula gives the sizes the
# papers state. The rest of the lesson uses the 7.5B shape (36 layers, h = 4096, 32 heads).

# %%
header = [
    Text(zh="形状", en="Shape"),
    Text(zh="层数 l", en="Layers l"),
    "h",
    Text(zh="头数 a", en="Heads a"),
    Text(zh="参数量（十亿）", en="Parameters (billions)"),
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for name, shape in MODEL_SHAPES.items():
    rows.append(
        f"| `{name}` | {shape.layers} | {shape.hidden} | {shape.heads} | "
        f"{shape.num_params / 1e9:.2f} |"
    )
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# ## 4. 激活与重计算，上下文并行
#
# 激活是前向计算的中间结果，要留到反向使用。Korthikanti et al. 2022（表 2）给出每层激活字节数（16 位激活，s 为序列长度、
# b 为微批次 (micro-batch) 大小、h 为隐藏维度 (hidden size)、a 为注意力头数、t 为张量并行度）：

# %% [markdown] lang="en"
# ## 4. Activations, recomputation and context parallelism
#
# Activations are the intermediate results of the forward pass, kept for the backward pass. Korthikanti et al. 2022
# (Table 2) give the activation bytes per layer (16-bit activations; s sequence length, b micro-batch, h hidden size,
# a attention heads, t tensor-parallel degree):

# %% [markdown]
# $$
# \text{none: } sbh\left(10 + \frac{24}{t} + \frac{5as}{ht}\right) \qquad
# \text{selective: } sbh\left(10 + \frac{24}{t}\right) \qquad
# \text{full: } 2\,sbh
# $$

# %% [markdown] lang="zh"
# - **不重计算 (none)**：全部保存，其中 5as²b 的注意力分数随序列长度平方增长；
# - **选择性重计算 (selective)**：只重算注意力核心，平方项消失，额外计算很少；
# - **完全重计算 (full)**：每层只保存输入，反向时把整层前向重算一遍。
#
# 配合序列并行 (sequence parallelism, SP) 时，剩下的 10·sbh 也除以 t。下面是 7.5B 形状在 s = 2048、b = 1 时的整模型激活：

# %% [markdown] lang="en"
# - **none**: keep everything; the 5as²b attention scores grow with the square of the sequence length;
# - **selective**: recompute only the attention core; the quadratic term disappears at little extra compute;
# - **full**: keep only each layer's input and rerun the whole layer's forward in backward.
#
# With sequence parallelism (SP) the remaining 10·sbh is divided by t as well. Here are the whole model's activations
# for the 7.5B shape at s = 2048, b = 1:

# %%
shape = model_shape("megatron-7.5b")
header = [
    Text(zh="重计算", en="Recompute"),
    "TP = 1 (GiB)",
    "TP = 8 (GiB)",
    "TP = 8 + SP (GiB)",
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
recompute_names = {
    "none": Text(zh="不重计算 (none)", en="none"),
    "selective": Text(zh="选择性重计算 (selective)", en="selective"),
    "full": Text(zh="完全重计算 (full)", en="full"),
}
for mode in RECOMPUTE_MODES:
    cells = [str(recompute_names[mode])]
    for tp, sp in ((1, False), (8, False), (8, True)):
        act = activation_memory_breakdown(
            seq_len=2048,
            micro_batch=1,
            hidden=shape.hidden,
            heads=shape.heads,
            layers=shape.layers,
            tp=tp,
            sequence_parallel=sp,
            recompute=mode,
        )
        cells.append(f"{act.total_gib:.2f}")
    rows.append("| " + " | ".join(cells) + " |")
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# 完全重计算的 2sbh/层只是**下限**：反向时重算某一层，那一层的完整激活（不重计算时的那一份）要在那一刻临时存在。
# 所以峰值约为“所有层保存的输入 + 一层的完整激活”。这一层的完整激活取决于注意力怎么实现：这里先按**不用融合注意力 (flash attention)**
# 计，重算时 s×s 的注意力分数会被物化，工作集是 sbh·(34 + 5as/h)；用融合内核 (kernel) 时的工作集在下一段算：

# %% [markdown] lang="en"
# Full recomputation's 2sbh per layer is only a **floor**: while one layer is recomputed in backward, that layer's full
# activations (the no-recomputation amount) exist for that moment. So the peak is about "the saved inputs of all layers
# plus one layer's full activations". How big that layer is depends on the attention kernel: here we first assume **no
# flash attention**, so recomputation materialises the s×s attention scores and the working set is sbh·(34 + 5as/h);
# the fused kernel's working set follows below:

# %%
saved = activation_memory_breakdown(
    seq_len=2048,
    micro_batch=1,
    hidden=shape.hidden,
    heads=shape.heads,
    layers=shape.layers,
    recompute="full",
)
working_set = activation_memory_breakdown(
    seq_len=2048,
    micro_batch=1,
    hidden=shape.hidden,
    heads=shape.heads,
    layers=1,
    recompute="none",
)
peak_gib = saved.total_gib + working_set.total_gib
print(
    Text(
        zh=f"完全重计算：保存的输入 {saved.total_gib:.2f} GiB + "
        f"重算一层的工作集 {working_set.total_gib:.2f} GiB ≈ 峰值 "
        f"{peak_gib:.2f} GiB",
        en=f"full recomputation: saved inputs {saved.total_gib:.2f} GiB + the "
        f"working set of one recomputed layer {working_set.total_gib:.2f} GiB "
        f"≈ peak {peak_gib:.2f} GiB",
    )
)
# zh: 手算（s = 2048, b = 1, h = 4096, a = 32, 36 层）：
# zh: 2sbh x 36 = 603,979,776 字节 = 0.5625 GiB；
# zh: 不重计算时一层：
# zh: sbh(34 + 5as/h) = 2048 x 4096 x 114 = 956,301,312 字节 = 0.890625 GiB。
# en: By hand (s = 2048, b = 1, h = 4096, a = 32, 36 layers):
# en: 2sbh x 36 = 603,979,776 bytes = 0.5625 GiB;
# en: one layer without recomputation
# en: sbh(34 + 5as/h) = 2048 x 4096 x 114 = 956,301,312 bytes = 0.890625 GiB.
assert (
    saved.total_bytes == 2 * 2048 * 4096 * 36
    and working_set.total_bytes == 2048 * 4096 * 114
)

# %% [markdown] lang="zh"
# 这个工作集按 Korthikanti 等人的设定算：注意力分数显式保存。今天的 Megatron-Core、NeMo 默认用融合注意力 (flash attention) 内核，
# 它不保存 s×s 分数，只为每个头、每个查询保存一个 fp32 的 logsumexp（FlashAttention-2），于是一层的工作集只剩线性项。
# 第 9 课的工作台按融合注意力记账（`WorkloadSpec(flash_attention=True)` 是默认值），完全重计算的工作集也这样算；
# “不重计算”因此成了一个真正可选的设置。它也按模型的真实宽度逐个张量计数：分组查询注意力 (grouped-query attention, GQA)
# 让几个查询头共用一组键值头，K、V 因而更窄；SwiGLU（一种门控 MLP：多一个门控投影，与上投影逐元素相乘）要存三份 MLP
# 宽度的张量；没有 dropout 就没有掩码。对应的调用是
# `activation_memory_breakdown(..., widths=model.layer_widths(), flash_attention=True)`。

# %% [markdown] lang="en"
# This working set follows Korthikanti et al.'s setting: the attention scores are materialised. Today's Megatron-Core
# and NeMo use a fused flash-attention kernel by default, which keeps no s×s scores, only one fp32 logsumexp per head
# and query (FlashAttention-2), so one layer's working set is its linear terms. Lesson 9's workbench counts with flash
# attention (`WorkloadSpec(flash_attention=True)` is the default), full recomputation's working set included; "no
# recomputation" thereby becomes a real option. It also counts tensor by tensor at the model's real widths:
# grouped-query attention (GQA) lets several query heads share one key/value head, so K and V are narrower; SwiGLU (a
# gated MLP: one more gate projection, multiplied element-wise with the up projection) stores three MLP-wide tensors;
# without dropout there are no masks. The call is
# `activation_memory_breakdown(..., widths=model.layer_widths(), flash_attention=True)`.

# %%
flash_set = activation_memory_breakdown(
    seq_len=2048,
    micro_batch=1,
    hidden=shape.hidden,
    heads=shape.heads,
    layers=1,
    recompute="none",
    flash_attention=True,
)
print(
    Text(
        zh=f"融合注意力下一层的工作集：{flash_set.total_gib:.3f} GiB（原来 "
        f"{working_set.total_gib:.3f} GiB）",
        en="one layer's working set with flash attention: "
        f"{flash_set.total_gib:.3f} GiB (was {working_set.total_gib:.3f} GiB)",
    )
)
# zh: 手算：34·sbh 加上 4 字节 x a 个头 x s 个查询
# zh: = 2048 x 4096 x 34 + 4 x 32 x 2048 字节。
# en: By hand: 34·sbh plus 4 bytes x a heads x s
# en: queries = 2048 x 4096 x 34 + 4 x 32 x 2048 bytes.
assert flash_set.total_bytes == 2048 * 4096 * 34 + 4 * 32 * 2048

# %% [markdown] lang="zh"
# 长上下文时平方项占主导。上下文并行 (context parallelism, CP) 让每个 rank 只处理 s/cp 个查询 token：线性项除以 cp；
# 注意力分数是“s/cp 个查询 × 全部 s 个键”，所以也只除以 cp（不是 cp²）。s = 32768 时：

# %% [markdown] lang="en"
# With long contexts the quadratic term dominates. Context parallelism (CP) gives each rank s/cp query tokens: the
# linear terms are divided by cp; the attention scores are "s/cp queries × all s keys", so they are divided by cp too
# (not cp²). At s = 32768:

# %%
header = [
    "CP",
    Text(zh="线性项 (GiB)", en="Linear terms (GiB)"),
    Text(zh="注意力分数 (GiB)", en="Attention scores (GiB)"),
    Text(zh="合计：不重计算 (GiB)", en="Total, none (GiB)"),
    Text(zh="合计：选择性重计算 (GiB)", en="Total, selective (GiB)"),
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for cp in (1, 2, 4, 8):
    none = activation_memory_breakdown(
        seq_len=32768,
        micro_batch=1,
        hidden=shape.hidden,
        heads=shape.heads,
        layers=shape.layers,
        recompute="none",
        cp=cp,
    )
    selective = activation_memory_breakdown(
        seq_len=32768,
        micro_batch=1,
        hidden=shape.hidden,
        heads=shape.heads,
        layers=shape.layers,
        recompute="selective",
        cp=cp,
    )
    linear_gib = bytes_to_gib(none.linear_bytes_per_layer * none.layers)
    scores_gib = bytes_to_gib(none.attention_bytes_per_layer * none.layers)
    rows.append(
        f"| {cp} | {linear_gib:.1f} | {scores_gib:.1f} | {none.total_gib:.1f} "
        f"| {selective.total_gib:.1f} |"
    )
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# 这就是 CP 的前提：单卡放不下长序列的注意力状态时，CP 才进入候选；代价是各 rank 之间要交换键和值（第 2 课算它的通信）。
# （FlashAttention 这类实现不保存分数矩阵，显存上与选择性重计算几乎一致，只多每个头、每个查询 4 字节；线性项仍然随 s
# 增长，CP 仍然有用。）

# %% [markdown] lang="en"
# That is CP's precondition: it becomes a candidate only when one device cannot hold the attention state of a long
# sequence; the price is that ranks exchange keys and values (lesson 2 counts that traffic).
# (Kernels such as FlashAttention never store the score matrix, so their memory nearly matches selective
# recomputation, plus 4 bytes per head and query; the linear terms still grow with s, and CP still helps.)

# %% [markdown] lang="zh"
# ## 5. 把账本拼起来：交互图
#
# 下面的图把一个 rank 的显存按参数、梯度、优化器状态、激活、运行时预留叠成一条横条，四行分别是 ZeRO-0 到 ZeRO-3
# （当前选中的阶段颜色最深），红色虚线是设备显存。它调用的正是上面几个函数，最后由 `build_resource_ledger` 给出结论。
# 使用流水线并行时，第一个阶段在 1F1B 调度（一前一后 (one forward, one backward)：灌满流水线后，每个阶段交替做一个微批次的
# 前向和一个微批次的反向，第 6 课详讲）下同时保留 pp 个微批次的激活，图中已经计入。
# 控件下方、图上方的结论行和图下方的消息框用颜色和开头的文字给出结论：绿色“通过”（放得下）、琥珀色“警告”、红色“不通过”（放不下）；
# 消息框还列出每一项的数。
#
# 试一试：
#
# 1. 从 ZeRO-0 开始逐级提高 ZeRO 阶段，看优化器状态、梯度、参数依次缩小；
# 2. 选择性重计算改成不重计算，再把序列长度加到 8192，看激活怎样超过模型状态；
# 3. 把重计算改回选择性、序列长度改回 2048，再把 PP 设成 8：36 层不能均分成 8 个阶段（有的 4 层、有的 5 层）。消息框变成“警告”：流水线仍然能跑，
#    但层数最多的阶段决定节奏，账本按最重的阶段（5 层）记。第 3 课把这条规则当作门槛；
# 4. 换成 18.4B 的形状，找出 80 GiB 设备上能放下的组合。

# %% [markdown] lang="en"
# ## 5. Putting the ledger together: the interactive figure
#
# The figure stacks one rank's memory into a bar of parameters, gradients, optimizer state, activations and runtime
# reserve; the four rows are ZeRO-0 to ZeRO-3 (the chosen stage is drawn darkest), and the red dashed line is device
# memory. It calls exactly the functions above and lets `build_resource_ledger` give the verdict. With pipeline
# parallelism the first stage keeps the activations of pp micro-batches under 1F1B (one forward, one backward: once
# the pipeline is full, each stage alternates one micro-batch's forward with one micro-batch's backward; lesson 6 has
# the details); the figure counts them. The
# result line under the controls, above the figure, and the message box under the figure give the verdict in colour
# and in their first word: green "Pass" (fits), amber "Warning", red "Fail" (does not fit); the message box also
# lists each part's number.
#
# Try this:
#
# 1. Raise the ZeRO stage from 0 step by step and watch the optimizer state, the gradients and the parameters shrink;
# 2. Change selective recomputation to none, then raise the sequence length to 8192: see the activations outgrow the
#    model states;
# 3. Set recomputation back to selective and the sequence length back to 2048, then PP to 8: 36 layers do not split
#    evenly into 8 stages (some get 4 layers, some 5). The message turns into a "Warning": the pipeline still runs, but the stage with the most layers sets the pace, and the ledger is that
#    heaviest stage's (5 layers). Lesson 3 uses this rule as a gate;
# 4. Switch to the 18.4B shape and find a combination that fits an 80 GiB device.

# %%
capacity = CapacityWidget()
capacity

# %% [markdown] lang="zh"
# ### 练习 1.2
#
# Megatron 表 1 的 7.5B 形状（参数量按 `shape.num_params` 算，约 7.47B，不是取整的 7.5e9），混合精度 Adam，DP = 8，s = 2048，b = 1，选择性重计算，运行时预留 2 GiB，设备 40 GiB。
# 能放下的最小 ZeRO 阶段是几（0-3 的整数）？可以先用上面的交互图找，再用代码核对。

# %% [markdown] lang="en"
# ### Exercise 1.2
#
# The 7.5B shape of Megatron's Table 1 (count its parameters as `shape.num_params`, about 7.47B, not the rounded
# 7.5e9), mixed-precision Adam, DP = 8, s = 2048, b = 1, selective recomputation,
# 2 GiB runtime reserve, a 40 GiB device. What is the smallest ZeRO stage that fits (an integer 0-3)? Find it with
# the interactive figure first, then check it in code.

# %% tags=["learner"]
answer = ...
check("q1.min_zero_stage", answer)

# %% tags=["solution"]
activation_gib = activation_memory_breakdown(
    seq_len=2048,
    micro_batch=1,
    hidden=shape.hidden,
    heads=shape.heads,
    layers=shape.layers,
    recompute="selective",
).total_gib
ledgers = [
    build_resource_ledger(
        training_state_memory(shape.num_params, dp=8, zero_stage=s).total_gib,
        activation_gib,
        2.0,
        40.0,
    )
    for s in range(4)
]
answer = next(s for s, ledger in enumerate(ledgers) if ledger.fits_one_device)
verify("q1.min_zero_stage", answer)

# %% [markdown] lang="zh"
# ### 练习 1.3
#
# 同一配置改用 ZeRO-3，放到第 2 节第一本账的 24 GiB 设备上。`build_resource_ledger` 给出的余量 `headroom_gib` 是多少（负数表示缺口）？

# %% [markdown] lang="en"
# ### Exercise 1.3
#
# The same configuration with ZeRO-3, on the 24 GiB device of section 2's first ledger. What `headroom_gib` does `build_resource_ledger`
# report (negative means a shortfall)?

# %% tags=["learner"]
answer = ...
check("q1.headroom_gib", answer)

# %% tags=["solution"]
activation_gib = activation_memory_breakdown(
    seq_len=2048,
    micro_batch=1,
    hidden=shape.hidden,
    heads=shape.heads,
    layers=shape.layers,
    recompute="selective",
).total_gib
state_gib = training_state_memory(
    shape.num_params, dp=8, zero_stage=3
).total_gib
answer = build_resource_ledger(
    state_gib, activation_gib, 2.0, 24.0
).headroom_gib
verify("q1.headroom_gib", answer)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 一个 7.5B 的模型，有人说“7.5B × 2 字节 = 15 GB，24 GiB 的卡放得下，用 DP 就行”。这句话漏掉了哪几项？
# 2. ZeRO-3 把模型状态降到 1/N_d，为什么练习 1.3 里 24 GiB 仍然放不下？下一步该调什么？
# 3. 策略表中，哪个策略的最关键前提是“节点内互连强”？它为什么不在本课的容量账本里出现？
# 4. CP 把注意力分数除以 cp 而不是 cp²，为什么？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. For a 7.5B model someone says "7.5B × 2 bytes = 15 GB, a 24 GiB card holds it, plain DP will do". Which items
#    did they leave out?
# 2. ZeRO-3 cuts model states to 1/N_d; why does exercise 1.3 still not fit in 24 GiB? What should change next?
# 3. In the strategy table, which strategy's key precondition is "strong intra-node interconnect"? Why does it not show
#    up in this lesson's capacity ledger?
# 4. Why does CP divide the attention scores by cp and not by cp²?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 漏掉了梯度和优化器状态（混合精度 Adam 共 16 字节/参数，纯 DP 每个 rank 一整份）、激活（随 s、b 增长）和运行时预留；
#    另外 15 GB 与 GiB 混用了单位。见 3.1 的表和 2 节的账本。
# 2. ZeRO-3 之后模型状态只剩约 13.9 GiB，但选择性重计算下的激活仍约 9.6 GiB，再加 2 GiB 预留就超过了 24 GiB。
#    激活不受 ZeRO 影响：下一步看完全重计算、更小的微批次、TP + SP 或 CP，而不是更多的 DP。
# 3. TP。它的前提是互连约束（第 2 课的通信），不是容量；容量账本只说明 TP 能把参数和激活除以 t，
#    能不能承受每层的集合通信要看链路。
# 4. 每个 rank 只保留自己 s/cp 个查询 token 对全部 s 个键的分数：s/cp × s，相比 s × s 只少了一个 cp 倍。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. The gradients and optimizer state (16 bytes per parameter with mixed-precision Adam, a full copy per rank under
#    plain DP), the activations (which grow with s and b) and the runtime reserve; "15 GB" also mixes GB with GiB.
#    See the table in 3.1 and the ledger of section 2.
# 2. After ZeRO-3 the model states are only about 13.9 GiB, but the activations under selective recomputation are
#    still about 9.6 GiB, and the 2 GiB reserve pushes the total past 24 GiB. ZeRO does not touch activations: look
#    at full recomputation, a smaller micro-batch, TP + SP or CP next, not at more DP.
# 3. TP. Its precondition is an interconnect constraint (lesson 2's communication), not capacity; the capacity ledger
#    only shows that TP divides parameters and activations by t. Whether the per-layer collectives are affordable
#    depends on the links.
# 4. Each rank keeps the scores of its own s/cp query tokens against all s keys: s/cp × s, only a factor cp smaller
#    than s × s.

# %% [markdown] lang="zh"
# ## 要点
#
# - 先登记容量、互连、工作负载三类约束，再看策略名字；策略表说明每种策略切分什么、承受什么压力、需要什么前提。
# - 选择不是打综合分：先排除不满足硬条件的候选。
# - 资源账本 = 模型状态 + 激活 + 运行时预留，与设备显存比较；只用一种单位（GiB）。
# - 模型状态由精度方案决定（混合精度 Adam 16 字节/参数），ZeRO-1/2/3 依次切分优化器状态、梯度、参数；
#   ZeRO 图 1：120 / 31.4 / 16.6 / 1.9 GB。
# - 激活随 s、b 增长，不受 ZeRO 影响；选择性重计算去掉平方项，完全重计算只留每层输入；CP 把每个 rank 的激活除以 cp。

# %% [markdown] lang="en"
# ## Key points
#
# - Record the capacity, interconnect and workload constraints before naming strategies; the strategy table says what
#   each one splits, which pressure it brings and which precondition it needs.
# - Choosing is not scoring: reject the candidates that fail a hard condition first.
# - Resource ledger = model states + activations + runtime reserve, against device memory, in one unit (GiB).
# - Model states follow from the precision recipe (16 bytes per parameter for mixed-precision Adam); ZeRO-1/2/3 shard
#   the optimizer state, the gradients and the parameters in turn; ZeRO Figure 1: 120 / 31.4 / 16.6 / 1.9 GB.
# - Activations grow with s and b and are untouched by ZeRO; selective recomputation removes the quadratic term, full
#   recomputation keeps only each layer's input; CP divides each rank's activations by cp.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - ZeRO：S. Rajbhandari et al., [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](https://arxiv.org/abs/1910.02054)，SC 2020（模型状态的 2 + 2 + K 字节与图 1）。
# - 激活与选择性重计算：V. Korthikanti et al., [Reducing Activation Recomputation in Large Transformer Models](https://arxiv.org/abs/2205.05198)，MLSys 2023（34sbh + 5as²b 字节/层）。
# - 完全重计算的由来：T. Chen et al., [Training Deep Nets with Sublinear Memory Cost](https://arxiv.org/abs/1604.06174)，2016。
# - 模型形状（表 1）：D. Narayanan et al., [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473)，SC 2021。
# - PyTorch 的全分片数据并行：[FSDP 文档](https://pytorch.org/docs/stable/fsdp.html)（`ShardingStrategy` 与 ZeRO 阶段的对应）。
#
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 0 课 课程导引](00_index.ipynb) · 下一课：[第 2 课 通信成本](02_communication.ipynb)

# %% [markdown] lang="en"
# ## Related reading
#
# - ZeRO: S. Rajbhandari et al., [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](https://arxiv.org/abs/1910.02054), SC 2020 (the 2 + 2 + K bytes of model states and Figure 1).
# - Activations and selective recomputation: V. Korthikanti et al., [Reducing Activation Recomputation in Large Transformer Models](https://arxiv.org/abs/2205.05198), MLSys 2023 (34sbh + 5as²b bytes per layer).
# - Where full recomputation comes from: T. Chen et al., [Training Deep Nets with Sublinear Memory Cost](https://arxiv.org/abs/1604.06174), 2016.
# - The model shapes (Table 1): D. Narayanan et al., [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473), SC 2021.
# - PyTorch's fully sharded data parallel: the [FSDP documentation](https://pytorch.org/docs/stable/fsdp.html) (how `ShardingStrategy` maps to the ZeRO stages).
#
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 0, course index](00_index.ipynb) · next: [lesson 2, communication](02_communication.ipynb)

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的模型与设备的资源账本（模型状态 / 激活 / 预留 / 设备显存）：
# - 能放下的最小 ZeRO 阶段，或者需要 TP / PP / CP 的原因：
# - 我还没有测量、只是估计的一项：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - The resource ledger of my model and device (model states / activations / reserve / device memory):
# - The smallest ZeRO stage that fits, or why TP / PP / CP is needed:
# - One item I estimated but have not measured yet:
