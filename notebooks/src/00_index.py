# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 0 课：课程导引与前置知识
#
# [English version](../en/00_index.ipynb) · [术语表](glossary.ipynb) · 下一课：[第 1 课 容量约束](01_capacity.ipynb)
#
# > **时间：** 约 30 分钟（讲解与阅读 25 分钟，练习 5 分钟）
# >
# > **问题：**
# > - 这门课教什么？适合谁？
# > - 开始之前需要哪些关于通信拓扑和显存的直觉？
# > - 练习和自检怎样进行？
# >
# > **目标：**
# > - 说出单向带宽 (unidirectional bandwidth) 与双向带宽 (bidirectional bandwidth) 的区别，并估算一次环形全归约的传输下界。
# > - 说出混合精度 Adam 每个参数的模型状态由哪几部分组成，以及零冗余优化器 (Zero Redundancy Optimizer, ZeRO) 三个阶段分别切分了什么。
# > - 会使用填空单元格、`check(...)`、折叠的参考解答、`show_solution(...)` 和学后填写区。

# %% [markdown] lang="en"
# # Lesson 0: Course index and prerequisites
#
# [中文版](../zh/00_index.ipynb) · [Glossary](glossary.ipynb) · Next: [lesson 1, capacity](01_capacity.ipynb)
#
# > **Time:** about 30 min (teaching and reading 25 min, exercises 5 min)
# >
# > **Questions:**
# > - What does this course teach, and for whom?
# > - What intuition about communication topology and device memory do I need first?
# > - How do the exercises and self-checks work?
# >
# > **Objectives:**
# > - Tell unidirectional from bidirectional bandwidth, and estimate the transfer lower bound of a ring all-reduce.
# > - Name the parts of the model states that mixed-precision Adam keeps per parameter, and what each stage of the Zero Redundancy Optimizer (ZeRO) shards.
# > - Use a fill-in cell, `check(...)`, the folded worked solution, `show_solution(...)` and the notes area.

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.exercises import check, show_solution, verify
from coursekit.glossary import lookup
from coursekit.i18n import Text
from coursekit.plotting import figure_image, label, new_figure
from coursekit.units import (
    GB_BYTES,
    MS_PER_S,
    bytes_to_gb,
    bytes_to_gib,
    gib_to_bytes,
)

# %% [markdown] lang="zh"
# ## 这门课教什么，适合谁
#
# 当一块设备放不下模型、或者算得不够快时，可以切分训练状态、网络层、张量、序列、专家或服务请求。
# 不同的切分对象解决不同的问题，也带来不同的通信和负载风险。这门课教你按固定顺序做选择：
#
# **容量约束 → 切分对象 → 互连条件 → 风险门槛**
#
# 先登记能测量的约束，再用硬门槛 (gate) 排除不满足条件的候选，最后为留下的方案列出必须实测的证据。
# 我们不给策略打综合分。
#
# 本课程面向**刚接触通信机制的工程师**：你会写 Python，训练或部署过模型，但还没有系统地比较过
# 数据并行 (data parallelism, DP)、ZeRO / 全分片数据并行 (fully sharded data parallel, FSDP)、
# 张量并行 (tensor parallelism, TP)、流水线并行 (pipeline parallelism, PP)、上下文并行 (context parallelism, CP)、
# 专家并行 (expert parallelism, EP) 和服务副本 (serving replica)。
#
# 课程里出现的每个数字都由 `coursekit` 库计算；笔记本只调用它，从不重新定义公式。

# %% [markdown] lang="en"
# ## What this course teaches, and for whom
#
# When one device cannot hold a model, or cannot compute fast enough, we can split the training state,
# the layers, the tensors, the sequence, the experts or the serving requests. Each choice solves a different
# problem and brings its own communication and load risks. This course teaches one order of decisions:
#
# **capacity constraint → what to split → interconnect conditions → risk gates**
#
# Record the measurable constraints first, reject the candidates that fail a hard gate, and list the
# evidence that the remaining plans still need from measurement. We never give a strategy a combined score.
#
# The course is for **engineers new to communication mechanisms**: you write Python and have trained or served
# models, but have not yet compared data parallelism (DP), ZeRO / fully sharded data parallel (FSDP),
# tensor parallelism (TP), pipeline parallelism (PP), context parallelism (CP), expert parallelism (EP) and
# serving replicas side by side.
#
# Every number in the course is computed by the `coursekit` library; the notebooks call it and never redefine a
# formula.

# %% [markdown] lang="zh"
# ## 前置知识 A：通信拓扑
#
# - **节点 (node)** 是一台服务器。节点内的 GPU 之间用 NVLink / NVSwitch 相连（节点内互连，intra-node interconnect）；
#   节点之间经 InfiniBand 或 RoCE 以太网相连（跨节点网络，inter-node network），每块 GPU 分到的带宽低得多。
# - **单向带宽**是一个方向上每秒传送的字节数；厂商标注 NVLink 时常用**双向带宽**（两个方向之和），而且是一块 GPU
#   所有链路的总和：H100 的 900 GB/s 是 18 条 NVLink、两个方向加起来。本课程中的带宽一律指**每块 GPU 每个方向的带宽**
#   （单向，H100 为 450 GB/s）：把双向数字直接代入传输时间，会把时间低估一半。
# - **rank** 是分布式作业里的一个进程，通常独占一块 GPU，按编号 0、1、2…… 称呼（本课程不另译）。
# - **环形全归约 (ring all-reduce)**：n 个 rank 排成环，先做归约散射 (reduce-scatter) 再做全收集 (all-gather)，
#   每个 rank 发送缓冲区大小的 2(n-1)/n。在忽略时延和计算重叠时，传输时间下界是
#   $t \approx \dfrac{2(n-1)}{n}\cdot\dfrac{S}{B}$，其中 $S$ 是缓冲区字节数，$B$ 是每块 GPU 的单向带宽。
#   这是**环形算法**的下界；NCCL 还会按消息大小和拓扑选用树形 (tree) 算法，或在 NVSwitch 上用交换机内归约的 NVLS，
#   它们的时延项和传输项不同，课程的公式只描述环形算法。
#
# 下面的单元格用公开的硬件数字算一遍：同一份梯度，在节点内和跨节点做环形全归约各要多久。

# %% [markdown] lang="en"
# ## Prerequisite A: communication topology
#
# - A **node** is one server. Its GPUs are joined by NVLink / NVSwitch (the intra-node interconnect); nodes are joined
#   by InfiniBand or RoCE Ethernet (the inter-node network), which gives each GPU far less bandwidth.
# - **Unidirectional bandwidth** is the bytes per second carried in one direction; vendors often quote NVLink as
#   **bidirectional bandwidth** (both directions added), summed over all of a GPU's links: the H100's 900 GB/s is 18
#   NVLinks, both directions. In this course bandwidth always means **per GPU, per direction** (unidirectional, 450
#   GB/s on an H100): putting a bidirectional figure into a transfer time underestimates the time by half.
# - A **rank** is one process of a distributed job, usually with one GPU to itself, named by its number 0, 1, 2, ...
# - **Ring all-reduce**: n ranks form a ring and run a reduce-scatter followed by an all-gather; each rank sends
#   2(n-1)/n of the buffer. Ignoring latency and overlap with compute, the transfer time is at least
#   $t \approx \dfrac{2(n-1)}{n}\cdot\dfrac{S}{B}$, with $S$ the buffer size in bytes and $B$ the unidirectional bandwidth
#   per GPU. That is the bound of the **ring algorithm**; depending on message size and topology NCCL also uses a tree
#   algorithm, or NVLS (in-switch reduction on NVSwitch), whose latency and transfer terms differ; the course's formula
#   describes the ring only.
#
# The next cell works this out with published hardware figures: the same gradients, all-reduced around a ring
# inside one node and across nodes.

# %%
from coursekit.hardware import LINK_PRESETS

ranks = 8
# zh: ZeRO 论文的示例模型
# en: the ZeRO paper's example model
params = 7.5e9
# zh: 每个参数 2 字节的梯度
# en: 2 bytes of gradient per parameter
gradient_bytes = coursekit.training_state_memory(
    params, recipe="zero-fp16-adam"
).grads_bytes
intra, cross = LINK_PRESETS["intra_node"], LINK_PRESETS["cross_node"]
for link in (intra, cross):
    seconds = coursekit.collective_time_s(
        "all_reduce",
        payload_bytes=gradient_bytes,
        ranks=ranks,
        bandwidth_bytes_per_s=link.bandwidth_bytes_per_s,
        latency_s=0.0,
    )
    gb_s, gb, ms = (
        link.bandwidth_bytes_per_s / GB_BYTES,
        bytes_to_gb(gradient_bytes),
        seconds * MS_PER_S,
    )
    print(
        Text(
            zh=f"{link.label.render()}：单向 {gb_s:.0f} GB/s，{ranks} 个 rank "
            f"环形全归约 {gb:.0f} GB 梯度至少需要 {ms:.1f} ms",
            en=f"{link.label.render()}: {gb_s:.0f} GB/s one way; a ring "
            f"all-reduce of {gb:.0f} GB of gradients over {ranks} ranks takes "
            f"at least {ms:.1f} ms",
        )
    )
ratio = intra.bandwidth_bytes_per_s / cross.bandwidth_bytes_per_s
print(
    Text(
        zh=f"两种链路的带宽之比：{ratio:.0f} 倍",
        en=f"bandwidth ratio of the two links: {ratio:.0f}x",
    )
)

# %% [markdown] lang="zh"
# 同样的数据，跨节点要慢得多。这就是为什么通信频率高的策略（例如张量并行每层都要做集合通信）通常放在节点内，
# 而同步频率低的策略（例如数据并行每步同步一次梯度）可以跨节点。第 2 课会把时延项和调用次数也记进通信账本 (ledger)。

# %% [markdown] lang="en"
# The same data takes far longer across nodes. That is why strategies that communicate often (tensor parallelism
# runs collectives in every layer) usually stay inside a node, while strategies that synchronize rarely (data
# parallelism syncs gradients once per step) can span nodes. Lesson 2 adds the latency term and the call count to
# the communication ledger.

# %% [markdown] lang="zh"
# ## 前置知识 B：显存与 ZeRO
#
# 训练时每个参数都带着几份**模型状态 (model states)**：参数本身、梯度和**优化器状态 (optimizer state)**。
# 按 ZeRO 论文 (Rajbhandari et al., 2020) 的记法，混合精度训练 (mixed-precision training) 配合 Adam 时：
#
# - fp16 参数 2 字节，fp16 梯度 2 字节；
# - 优化器状态 K = 12 字节：fp32 参数副本、一阶矩 (momentum) 和二阶矩 (variance) 各 4 字节。
#
# 合计每个参数 2 + 2 + 12 = 16 字节。ZeRO 把这些状态在 $N_d$ 个数据并行 rank 之间切分：
# 阶段 1 (ZeRO-1) 切分优化器状态，阶段 2 (ZeRO-2) 再切分梯度，阶段 3 (ZeRO-3，相当于 FSDP) 再切分参数。
# 这里只算模型状态；**激活 (activations)** 和运行时预留 (runtime reserve) 还要另外加上，第 1 课会把它们都记进容量账本。

# %% [markdown] lang="en"
# ## Prerequisite B: device memory and ZeRO
#
# In training each parameter carries several **model states**: the parameter itself, its gradient and the
# **optimizer state**. In the notation of the ZeRO paper (Rajbhandari et al., 2020), mixed-precision training with
# Adam keeps:
#
# - an fp16 parameter (2 bytes) and an fp16 gradient (2 bytes);
# - optimizer state K = 12 bytes: an fp32 copy of the parameter, the momentum and the variance, 4 bytes each.
#
# That is 2 + 2 + 12 = 16 bytes per parameter. ZeRO shards these states across $N_d$ data-parallel ranks:
# stage 1 (ZeRO-1) shards the optimizer state, stage 2 (ZeRO-2) also the gradients, stage 3 (ZeRO-3, which FSDP
# implements) also the parameters. Only model states are counted here; **activations** and the runtime reserve
# come on top, and lesson 1 puts all of them into the capacity ledger.

# %%
# zh: ZeRO 论文图 1 的 N_d
# en: N_d of the ZeRO paper's Figure 1
dp_ranks = 64
# zh: ZeRO 论文第 3.1 节：每个参数 2 + 2 + K = 16 字节（K = 12）
# en: ZeRO paper, section 3.1: 2 + 2 + K = 16 bytes per parameter (K = 12)
recipe = coursekit.PRECISION_RECIPES["zero-fp16-adam"]
per_device_bytes = {
    ("DP" if stage == 0 else f"ZeRO-{stage}"): coursekit.training_state_memory(
        params, recipe=recipe.name, dp=dp_ranks, zero_stage=stage
    ).total_bytes
    for stage in range(4)
}
bytes_per_param = (
    recipe.param_bytes + recipe.grad_bytes + recipe.optimizer_bytes
)
print(
    Text(
        zh=f"每个参数 {bytes_per_param:g} 字节；模型 {params / 1e9:g}B 参数；"
        f"N_d = {dp_ranks}",
        en=f"bytes per parameter: {bytes_per_param:g}; model: "
        f"{params / 1e9:g}B parameters; N_d = {dp_ranks}",
    )
)
for stage, num_bytes in per_device_bytes.items():
    gb, gib = bytes_to_gb(num_bytes), bytes_to_gib(num_bytes)
    print(
        Text(
            zh=f"{stage:7s} 每设备 {gb:7.2f} GB = {gib:7.2f} GiB",
            en=f"{stage:7s} {gb:7.2f} GB = {gib:7.2f} GiB per device",
        )
    )

# zh: ZeRO 论文图 1（GB，一位小数）：同样的四个数。
# en: ZeRO paper, Figure 1 (GB, one decimal): the same four numbers.
ZERO_FIGURE_1_GB = [120.0, 31.4, 16.6, 1.9]
assert [
    round(bytes_to_gb(b), 1) for b in per_device_bytes.values()
] == ZERO_FIGURE_1_GB

# %% [markdown] lang="zh"
# 以 GB (10^9 字节) 计，这四个数字与 ZeRO 论文图 1 的 120 GB、31.4 GB、16.6 GB、1.9 GB 一致；
# 以 GiB (2^30 字节) 计则小一些。下图把它们和第 1 课第一本账里 24 GiB 的设备放在一起。

# %% [markdown] lang="en"
# In GB (10^9 bytes) these four numbers match the 120 GB, 31.4 GB, 16.6 GB and 1.9 GB of Figure 1 of the ZeRO paper;
# in GiB (2^30 bytes) they are smaller. The figure puts them next to the 24 GiB device of lesson 1's first ledger.

# %%
# zh: 第 1 课第一本账里的设备
# en: the device of lesson 1's first ledger
device_gib = 24.0

fig = new_figure(5.5, 2.8)
ax = fig.add_subplot()
stages = list(per_device_bytes)
ax.bar(
    stages,
    [bytes_to_gib(b) for b in per_device_bytes.values()],
    color="#4c72b0",
)
ax.axhline(device_gib, color="#c44e52", linestyle="--")
ax.text(
    3.4,
    device_gib,
    label(Text(zh="24 GiB 设备", en="24 GiB device")),
    ha="right",
    va="bottom",
    color="#c44e52",
)
ax.set_ylabel(
    label(Text(zh="每设备模型状态 (GiB)", en="model states per device (GiB)"))
)
ax.set_title(
    label(Text(zh="7.5B 参数，N_d = 64", en="7.5B parameters, N_d = 64"))
)
figure_image(fig)

# %% [markdown] lang="zh"
# ## 课程的四个问题
#
# 第 1 到第 4 课各回答一个问题，课程里用 Q1–Q4 简称它们（练习编号的前缀 `q1` 到 `q4` 也来自这里）：
#
# - **Q1 容量**：当前首先受显存、通信还是模型结构约束？
# - **Q2 通信**：不同并行策略会引入什么通信成本？
# - **Q3 筛选**：如何按约束（门槛）筛选并行策略？
# - **Q4 组合**：选定策略后，如何检查组合方案的风险？

# %% [markdown] lang="en"
# ## The four questions of the course
#
# Lessons 1 to 4 each answer one question; the course calls them Q1–Q4 for short (the exercise id prefixes `q1` to
# `q4` come from here):
#
# - **Q1 capacity**: is the first constraint memory, communication or model structure?
# - **Q2 communication**: what communication cost does each parallel strategy bring?
# - **Q3 screening**: how do we screen strategies by hard constraints (gates)?
# - **Q4 composition**: once strategies are chosen, how do we check the combined plan's risks?

# %% [markdown] lang="zh"
# ## 课程地图
#
# | 课 | 主题 | 要回答的问题 | 时间 |
# | --- | --- | --- | --- |
# | 0 | 课程导引（本页） | 学什么、怎么学 | 30 分钟 |
# | [1](01_capacity.ipynb) | Q1 容量约束 (capacity) | 当前首先受显存、通信还是模型结构约束？ | 50 分钟 |
# | [2](02_communication.ipynb) | Q2 通信成本 (communication) | 不同并行策略会引入什么通信成本？ | 55 分钟 |
# | [3](03_gates.ipynb) | Q3 约束筛选 (gates) | 如何按约束筛选并行策略？ | 50 分钟 |
# | [4](04_composition.ipynb) | Q4 组合与风险 (composition and risk) | 选定策略后，如何检查组合方案的风险？ | 50 分钟 |
# | [5](05_selection_matrix.ipynb) | 场景选择矩阵 (selection matrix) | DP、FSDP、TP、PP 各在什么场景下可行？单层放不下时怎样组合？ | 80 分钟 |
# | [6](06_pipeline_scaling.ipynb) | 流水线气泡与扩展效率 (pipeline bubble and scaling efficiency) | 一步的时间花在哪里？E(P) 下降说明什么、没说明什么？ | 65 分钟 |
# | [7](07_compute_efficiency.ipynb) | 计算效率 (compute efficiency) | 一步的计算离硬件峰值有多远？ | 70 分钟 |
# | [8](08_lab.ipynb) | 公式与实测 (formula vs measurement，可选；重新实测需要 PyTorch) | 账本在真实引擎上成立吗？哪里不成立？ | 100 分钟 |
# | [9](09_workbench.ipynb) | 决策工作台 (decision workbench) | 对真实模型和集群，所有组合里哪些被哪道门槛排除？ | 175 分钟 |
# | [10](10_serving.ipynb) | 推理服务 (serving) | 服务一个模型时，副本和并行怎样取舍？ | 65 分钟 |
#
# 按顺序学：每一课都用到前面几课的账本或门槛（第 10 课不需要第 8、9 课）。第 8 课默认读取课程附带的一次实测记录，不需要 PyTorch；只有在自己的机器上重新实测（`LIVE = True`）才需要可选的 PyTorch 扩展（`pip install -e ".[lab]"`），没有它时会给出说明而不报错。
# 另有[术语表](glossary.ipynb)，随时可查。

# %% [markdown] lang="en"
# ## Lesson map
#
# | Lesson | Topic | Question it answers | Time |
# | --- | --- | --- | --- |
# | 0 | Course index (this page) | What and how | 30 min |
# | [1](01_capacity.ipynb) | Q1 capacity | Is the first constraint memory, communication or model structure? | 50 min |
# | [2](02_communication.ipynb) | Q2 communication | What communication cost does each strategy bring? | 55 min |
# | [3](03_gates.ipynb) | Q3 gates | How do we screen strategies by hard constraints? | 50 min |
# | [4](04_composition.ipynb) | Q4 composition and risk | Once strategies are chosen, how do we check the combined plan? | 50 min |
# | [5](05_selection_matrix.ipynb) | Selection matrix | When are DP, FSDP, TP and PP feasible? How do they combine when one layer does not fit? | 80 min |
# | [6](06_pipeline_scaling.ipynb) | Pipeline bubble and scaling efficiency | Where does the time of a step go? What does a falling E(P) say, and what not? | 65 min |
# | [7](07_compute_efficiency.ipynb) | Compute efficiency | How far is a step's compute from the hardware's peak? | 70 min |
# | [8](08_lab.ipynb) | Formula vs measurement (optional; measuring again needs PyTorch) | Do the ledgers hold on the real engine? Where do they not? | 100 min |
# | [9](09_workbench.ipynb) | Decision workbench | For a real model and cluster, which gate excludes which composition? | 175 min |
# | [10](10_serving.ipynb) | Serving | When serving a model, how do replicas and parallelism trade off? | 65 min |
#
# Take them in order: each lesson uses ledgers or gates of earlier ones (lesson 10 needs neither 8 nor 9). Lesson 8 reads a run recorded with
# the course by default and needs no PyTorch; only measuring again on your machine (`LIVE = True`) needs the optional
# PyTorch extra (`pip install -e ".[lab]"`), and without it the lesson explains what is missing instead of failing.
# The [glossary](glossary.ipynb) is there whenever you need a term.

# %% [markdown] lang="zh"
# ## 练习和自检怎样进行
#
# - **填空单元格**：把 `answer = ...` 里的 `...` 换成你的答案，然后运行 `check("练习编号", answer)`。
#   它会告诉你：尚未作答、正确（附一句解释），或者还不对（附提示，但不会直接给出答案）。答案类型不对时也只给提示，不会报错。
#   数字里不要写逗号：小数用点（1.47，不是 1,47），也不要写千位分隔符（1677，不是 1,677）。Python 把逗号读成两个数的分隔；
#   像 1,047 这样逗号后以 0 开头的写法，Python 在检查开始之前就会报语法错误 (SyntaxError)。数字后面也不要带百分号：
#   `answer = 5.4%` 同样是语法错误；题目要比例时写 0.054，要百分数时写 5.4（报错下面的一行说明会给出这两种写法）。
# - **参考解答**：紧跟在填空单元格后面的单元格是折叠起来的参考解答，它只显示一行“参考解答”和一个按钮；
#   运行全部单元格时它什么结果也不打印，在 JupyterLab、VS Code、Colab 里都一样。先自己做，再点击左侧的竖条展开看做法，
#   点“显示参考解答与结果”按钮看结果；也可以运行 `show_solution("练习编号")`，它会写出题目、做法和结果。
#   练习后面个别会透露答案的表格也收在“显示结果”按钮后面。
# - **提示**：答错时，`check` 会检查常见的失误（GB 与 GiB、百分数与分数、比特与字节、单向与双向带宽、漏掉某个并行度、
#   秒与毫秒），碰上了就直接指出是哪一种，但不给出答案。数字按你写出的精度判断（至少两位有效数字）：正确值是 0.158 时，
#   0.16 算对，0.2 不算；写成 0.2（位数不够）或 0.15（把多出的位数直接舍掉，而不是四舍五入）时，提示会指出这一点。
#   另外，与正确值相差不到 0.1% 的答案也算对，即使最后一位没有四舍五入对（例如用取到四位的换算常数 1.074 算出的结果）：
#   正确值是 2.3456 时，2.346、2.35 和 2.3 按四舍五入算对，2.345 差 0.03%，也算对；2.34 差 0.24%，是截断，不算对。
# - **自检问题**：问题下方的“参考答案（点击展开）”收着答案，想好了再点开。
# - **学后填写区**：每课最后有一个留给你自己的单元格，记录你的选择和还没测量的因素。
# - **代码单元格只写一遍**：中英文两版课程共用同一份代码，所以代码里要显示的文字写成 `Text(zh="…", en="…")`；
#   注释和输出只用当前课程的语言。读 `Text(…)` 时只看你的语言那一半即可。
# - **代码用半角（英文）输入**：中文逗号 `，`、句号 `。`、中文括号 `（）`、全角数字 `１６`，还有从网页或 PDF 复制来的
#   减号 `−`，会让 Python 在检查开始之前就报语法错误 (SyntaxError)；报错下面会多一行说明，指出是哪个字符，并给出改好的
#   一行。写代码时请把输入法切到英文（半角）。全角字母的答案（如 `'Ｂ'`）按对应的半角字母判断，选项末尾多打的 `。` 不算。
# - **选项要加引号**：`answer = B` 会让 Python 报 NameError（找不到名字 B），要写成 `answer = 'B'`；真假值写作
#   `True` / `False`。
# - **重启内核 (kernel) 之后**：所有变量都清空了，要从本课开头依次重新运行：选中要做的练习单元格，用 JupyterLab 菜单
#   “运行 → 运行选中单元格上方的所有单元格”（英文界面是 Run → Run All Above Selected Cell）。直接运行练习单元格会看到
#   `NameError: name 'check' is not defined`：先运行前面的单元格就好。
#   重启前画出的交互图也不再响应（JupyterLab 在它的控件旁画一个断开的链接图标，消息框停在旧的结果上）：
#   重新运行它所在的单元格。
#
# 如果你改过笔记本后课程又更新了，重新生成笔记本时你的版本会保存为 `NN_xxx.mine.ipynb`，不会被覆盖。

# %% [markdown] lang="en"
# ## How exercises and self-checks work
#
# - **Fill-in cells**: replace the `...` in `answer = ...` with your answer and run `check("exercise id", answer)`.
#   It tells you: not answered yet, correct (with a one-line reason), or not yet (with a hint, never the answer).
#   An answer of the wrong type gets a hint too, never a traceback.
#   Write numbers without commas: a decimal point (1.47, not 1,47) and no thousands separators (1677, not 1,677).
#   Python reads a comma as a separator between two numbers, and refuses a form like 1,047 (a 0 after the comma)
#   with a SyntaxError of its own, before any check runs. Leave out the percent sign too: `answer = 5.4%` is also a
#   SyntaxError; write 0.054 when the question asks for a fraction, 5.4 when it asks for a percentage (a line under
#   the error shows both).
# - **Worked solution**: the cell right after a fill-in cell is a folded worked solution. It shows one "Worked
#   solution" line and a button; Run All prints no result from it, in JupyterLab, VS Code and Colab alike. Try first,
#   then click the bar on its left to unfold the method, and press "Show the worked solution and result" for the
#   result; or run `show_solution("exercise id")`, which writes out the question, the method and the result. The few
#   tables after an exercise that would give it away wait behind a "Show the result" button too.
# - **Hints**: for a wrong answer `check` tests the usual slips (GB vs GiB, percent vs fraction, bits vs bytes, one
#   direction vs both, a parallel degree left out, seconds vs milliseconds) and names the one you made, never the
#   answer. A number is judged at the precision you wrote it (at least two significant digits): when the answer is
#   0.158, 0.16 is right and 0.2 is not; 0.2 (too few digits) and 0.15 (the extra digits cut off rather than
#   rounded) each get a hint that says so. An answer within 0.1% of the right value is also right, even when its last
#   digit is not rounded right (a result worked with a conversion constant rounded to four digits, such as 1.074):
#   when the answer is 2.3456, 2.346, 2.35 and 2.3 are right as rounded, 2.345 is 0.03% off and right too, while 2.34
#   is 0.24% off, cut off, and not right.
# - **Self-check questions**: the answer waits under "Answer (click to open)" below the questions; think first, then
#   open it.
# - **Notes area**: each lesson ends with a cell of your own, for your choices and the factors not yet measured.
# - **Code is written once**: the Chinese and English lessons share one code, so the labels it shows read
#   `Text(zh="…", en="…")`; comments and outputs are in the lesson's language only. In a `Text(…)`, read the half in
#   your language and skip the other.
# - **Type code in plain ASCII**: a full-width comma `，`, full stop `。`, brackets `（）` or digits `１６` from an input
#   method, or a minus sign `−` copied from a web page or PDF, make Python refuse the cell with a SyntaxError before any
#   check runs; a line under the error names the character and shows the line retyped. Full-width letters in an answer
#   (`'Ｂ'`) are read as the plain ones, and a `。` typed after an option does not count.
# - **Options go in quotes**: `answer = B` makes Python stop with a NameError (it cannot find a name B); write
#   `answer = 'B'`. Truth values are `True` / `False`.
# - **After a kernel restart** every variable is gone: run the lesson again from the top (select the exercise cell:
#   Run → Run All Above Selected Cell). An exercise cell run first shows `NameError: name 'check' is not defined`:
#   run the cells above, and it works. An interactive figure drawn before the restart no longer answers (JupyterLab puts a broken
#   link icon next to its controls, and its message stays on the old result): run its cell again.
#
# If you edited a notebook and the course is later updated, regenerating keeps your version as `NN_xxx.mine.ipynb`;
# it is never overwritten.

# %% [markdown] lang="zh"
# ### 练习 0.1
#
# 第 1 课第一本账里的设备有 24 GiB 显存。按 GB (10^9 字节) 计，它是多少 GB？写到两位小数即可
# （检查按你写出的精度判断：少写几位也算对，只要四舍五入后一致）。

# %% [markdown] lang="en"
# ### Exercise 0.1
#
# The device of lesson 1's first ledger has 24 GiB of memory. How many GB (10^9 bytes) is that? Two decimals are enough
# (the check judges the precision you write: fewer digits pass too, as long as they round the same way).

# %% tags=["learner"]
answer = ...
check("intro.device_gb", answer)

# %% tags=["solution"]
answer = bytes_to_gb(gib_to_bytes(24))
verify("intro.device_gb", answer)

# %% [markdown] lang="zh"
# 想看参考解答又不想展开代码时，去掉下一行开头的 `#` 再运行：

# %% [markdown] lang="en"
# To read the worked solution without unfolding the code, remove the `#` at the start of the next line and run it:

# %% tags=["learner"]
# show_solution("intro.device_gb")

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 厂商说某链路带宽“900 GB/s”。在代入传输时间之前，你要先问什么？
# 2. 数据并行 8 路、不用 ZeRO 时，每块设备保存多少份完整的优化器状态？ZeRO-1 呢？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. A vendor says a link has "900 GB/s". What do you ask before putting it into a transfer time?
# 2. With 8-way data parallelism and no ZeRO, how many full copies of the optimizer state does each device keep? With ZeRO-1?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 这是单向还是双向带宽？是每条链路还是每块 GPU 的总和？GB 是 10^9 字节还是 GiB？H100 的 NVLink 900 GB/s 是 18 条链路、两个方向之和，每块 GPU 每个方向 450 GB/s。
# 2. 不用 ZeRO 时每块设备都保存一整份（8 块设备共 8 份，7 份是冗余）；ZeRO-1 时每块设备只保存 1/8，全组合起来正好一份。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. Is it unidirectional or bidirectional? Per link or summed over a GPU? GB as 10^9 bytes, or GiB? The H100 NVLink figure of 900 GB/s sums 18 links and both directions; each GPU gets 450 GB/s per direction.
# 2. Without ZeRO every device keeps a whole copy (8 copies on 8 devices, 7 of them redundant); with ZeRO-1 each device keeps 1/8, and together they hold exactly one copy.

# %% [markdown] lang="zh"
# ## 术语
#
# 中文术语在前，英文原文在后；完整列表见[术语表](glossary.ipynb)。下面的单元格按当前语言查几个术语。

# %% [markdown] lang="en"
# ## Terms
#
# The full list is in the [glossary](glossary.ipynb). The next cell looks up a few terms in the current language.

# %%
header = [
    Text(zh="缩写", en="Abbr."),
    Text(zh="术语", en="Term"),
    Text(zh="释义", en="Definition"),
]
rows = ["| " + " | ".join(str(h) for h in header) + " |", "| --- | --- | --- |"]
for term in ["DP", "ZeRO", "FSDP", "TP", "PP", "CP", "EP", "Replica"]:
    entry = lookup(term)
    name = Text(zh=f"{entry.zh} ({entry.en})", en=f"{entry.en} ({entry.zh})")
    rows.append(f"| {entry.abbr} | {name} | {entry.definition} |")
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# ## 在哪里运行
#
# - **本机**：在仓库根目录运行 `pip install -e ".[course]"`，再运行 `jupyter lab`，打开 `notebooks/zh/00_index.ipynb`。
#   想让图中显示中文，请安装一种中文字体（例如 Debian / Ubuntu 上的 `fonts-noto-cjk`）；没有中文字体时，图会自动改用英文标签。
# - **Binder**：点击 README 中的 Binder 徽章；`binder/` 目录中的文件会安装课程环境和中文字体。
# - **魔搭社区 (ModelScope) 免费实例**：新建 Notebook 实例，在终端中 `git clone` 本仓库，运行 `pip install -e .`
#   和 `python -m coursekit setup`，然后打开 `notebooks/zh/` 下的笔记本；步骤详见 README 的魔搭一节。
#   第二条命令让平台自带的内核在每次启动（包括重启内核）时都能导入 `coursekit`，并在练习的错误下方显示课程的提示行。
#
# 所有练习只用 CPU；不需要 GPU。

# %% [markdown] lang="en"
# ## Where to run it
#
# - **Your machine**: in the repository root run `pip install -e ".[course]"`, then `jupyter lab`, and open
#   `notebooks/en/00_index.ipynb`. Figures show Chinese labels in the Chinese notebooks only when a CJK font is
#   installed (e.g. `fonts-noto-cjk` on Debian / Ubuntu); otherwise they fall back to English labels.
# - **Binder**: click the Binder badge in the README; the files in `binder/` install the course environment and a CJK font.
# - **ModelScope free instances**: start a notebook instance, `git clone` this repository in its terminal, run
#   `pip install -e .` and `python -m coursekit setup`, and open the notebooks under `notebooks/en/`; the README's
#   ModelScope section has the steps. The second command lets the platform's own kernel import `coursekit` each time
#   it starts (a kernel restart too) and show the course's line of help under an exercise's error.
#
# Every exercise runs on a CPU; no GPU is needed.

# %% [markdown] lang="zh"
# ## 要点
#
# - 先登记约束（容量、互连、工作负载），再用硬门槛排除候选；不打综合分。
# - 带宽一律按每块 GPU 每个方向（单向）计；厂商的双向数字要先除以 2。
# - 环形全归约（环形算法）每个 rank 发送缓冲区的 2(n-1)/n；同样的数据跨节点要慢得多。
# - 混合精度 Adam 每个参数 16 字节模型状态；ZeRO 的三个阶段依次切分优化器状态、梯度和参数。
# - GB 和 GiB 不同，账本里只用一种。

# %% [markdown] lang="en"
# ## Key points
#
# - Record the constraints first (capacity, interconnect, workload), then reject candidates with hard gates; no combined score.
# - Bandwidth is always per GPU and per direction (unidirectional); divide a vendor's bidirectional figure by 2 first.
# - A ring all-reduce (the ring algorithm) sends 2(n-1)/n of the buffer per rank; the same data takes far longer across nodes.
# - Mixed-precision Adam keeps 16 bytes of model states per parameter; ZeRO's three stages shard the optimizer state, the gradients and the parameters in turn.
# - GB and GiB differ; a ledger uses one of them.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - PyTorch 分布式训练概览：[PyTorch Distributed Overview](https://pytorch.org/tutorials/beginner/dist_overview.html)；
#   通信原语见 [torch.distributed 文档](https://pytorch.org/docs/stable/distributed.html)。
# - NCCL 的集合通信说明：[NCCL User Guide: Collective Operations](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/collectives.html)。
# - 环形全归约的带宽下界：P. Patarasuk, X. Yuan, [Bandwidth optimal all-reduce algorithms for clusters of workstations](https://doi.org/10.1016/j.jpdc.2008.09.002)，JPDC 2009。
# - ZeRO：S. Rajbhandari et al., [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](https://arxiv.org/abs/1910.02054)，SC 2020（本课的 16 字节/参数和图 1 的数字）。
#
# 导航：[术语表](glossary.ipynb) · 下一课：[第 1 课 容量约束](01_capacity.ipynb)

# %% [markdown] lang="en"
# ## Related reading
#
# - PyTorch's distributed training overview: [PyTorch Distributed Overview](https://pytorch.org/tutorials/beginner/dist_overview.html);
#   the communication primitives are in the [torch.distributed documentation](https://pytorch.org/docs/stable/distributed.html).
# - NCCL's collectives: [NCCL User Guide: Collective Operations](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/collectives.html).
# - The ring all-reduce's bandwidth bound: P. Patarasuk, X. Yuan, [Bandwidth optimal all-reduce algorithms for clusters of workstations](https://doi.org/10.1016/j.jpdc.2008.09.002), JPDC 2009.
# - ZeRO: S. Rajbhandari et al., [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](https://arxiv.org/abs/1910.02054), SC 2020 (this lesson's 16 bytes per parameter and Figure 1's numbers).
#
# Navigation: [glossary](glossary.ipynb) · next: [lesson 1, capacity](01_capacity.ipynb)

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的工作环境（设备显存、节点内 / 跨节点互连）：
# - 我最想在这门课里弄清楚的一个问题：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - My environment (device memory, intra-node / inter-node links):
# - The one question I most want this course to answer:
