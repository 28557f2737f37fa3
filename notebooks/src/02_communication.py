# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 2 课：Q2 通信成本
#
# [English version](../en/02_communication.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 1 课 容量约束](01_capacity.ipynb) · 下一课：[第 3 课 约束筛选](03_gates.ipynb)
#
# > **时间：** 约 55 分钟（讲解与阅读 40 分钟，练习 15 分钟）
# >
# > **问题：**
# > - 不同并行策略会引入什么通信成本？
# > - 一次通信的时间由什么决定：数据量、次数，还是时延？
# > - 同一份数据为什么在节点内和跨节点差这么多？
# >
# > **目标：**
# > - 用“时延 × 次数 + 数据量 / 带宽”建立通信账本 (communication ledger)，区分带宽项和频率项。
# > - 算出一条链路的分界载荷 (crossover payload) payload* = 时延 × 带宽，判断一次调用是时延主导 (latency-bound) 还是带宽主导 (bandwidth-bound)。
# > - 读懂各种集合通信 (collective communication) 的环形代价和 nccl-tests（NVIDIA 测 NCCL 集合通信速度的基准程序）的总线带宽系数；带宽一律按每块 GPU 每个方向（单向）计。
# > - 为 DP、ZeRO-3、TP、PP、CP、EP 和服务副本列出每步的通信，并回答三个问题：是否高频？能否被节点内互连吃掉？会不会卡在同步点上？
# >
# > **前置：** [第 0 课](00_index.ipynb)（单向与双向带宽、环形全归约）和[第 1 课](01_capacity.ipynb)（策略表、模型形状）。

# %% [markdown] lang="en"
# # Lesson 2: Q2 communication cost
#
# [中文版](../zh/02_communication.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 1, capacity](01_capacity.ipynb) · Next: [lesson 3, gates](03_gates.ipynb)
#
# > **Time:** about 55 min (teaching and reading 40 min, exercises 15 min)
# >
# > **Questions:**
# > - What communication cost does each parallel strategy bring?
# > - What decides the time of a communication: the volume, the number of calls, or the latency?
# > - Why does the same data take so much longer across nodes than inside one?
# >
# > **Objectives:**
# > - Build a communication ledger as "latency × calls + volume / bandwidth", telling the bandwidth term from the
# >   frequency term.
# > - Compute a link's crossover payload payload* = latency × bandwidth and decide whether a call is latency-bound or
# >   bandwidth-bound.
# > - Read the ring cost of each collective and the bus-bandwidth factors of nccl-tests (NVIDIA's benchmark of NCCL's
# >   collectives); bandwidth is always per GPU and per direction (unidirectional).
# > - List the per-step communication of DP, ZeRO-3, TP, PP, CP, EP and serving replicas, and answer three
# >   questions: is it frequent? can intra-node links absorb it? does it block at a synchronization point?
# >
# > **Prerequisites:** [lesson 0](00_index.ipynb) (unidirectional vs bidirectional bandwidth, ring all-reduce) and
# > [lesson 1](01_capacity.ipynb) (the strategy table, model shapes).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.communication import (
    COLLECTIVE_NAMES,
    COLLECTIVES,
    bus_bandwidth_factor,
    collective_cost,
    collective_time_s,
    communication_ledger,
    crossover_payload_mib,
    strategy_traffic,
    traffic_time,
)
from coursekit.exercises import check, show_solution, verify
from coursekit.hardware import LINK_PRESETS
from coursekit.i18n import Text
from coursekit.shapes import model_shape
from coursekit.strategies import strategy_table
from coursekit.units import (
    GIB_BYTES,
    MS_PER_S,
    US_PER_S,
    bytes_to_gib,
    bytes_to_mib,
    mib_to_bytes,
)
from coursekit.widgets.communication import CommunicationWidget, payload_label

# %% [markdown] lang="zh"
# ## 1. 带宽项与频率项
#
# 通信成本不要只看“总量”，要同时看两个维度：
#
# - **带宽项**：单次搬运的数据有多大；
# - **频率项**：这个搬运动作在整个训练路径里重复多少次。
#
# 可以把它粗略写成（不计拥塞，也不计与计算的重叠 (compute-communication overlap)，所以是一个下界）：

# %% [markdown] lang="en"
# ## 1. The bandwidth term and the frequency term
#
# Do not look only at the "total volume" of communication; look at two dimensions together:
#
# - **the bandwidth term**: how much data one transfer moves;
# - **the frequency term**: how many times that transfer repeats along the training step.
#
# Roughly (no congestion and no compute-communication overlap, so it is a lower bound):

# %% [markdown] lang="zh"
# $$\text{通信时间}\approx \text{时延}\times \text{调用次数}+\frac{\text{数据量}}{\text{带宽}}
# = \text{调用次数}\times\left(\alpha + \frac{\text{单次载荷}}{B}\right)$$

# %% [markdown] lang="en"
# $$\text{cost}\approx \text{latency}\times \text{calls}+\frac{\text{data volume}}{\text{bandwidth}}
# = \text{calls}\times\left(\alpha + \frac{\text{payload}}{B}\right)$$

# %% [markdown] lang="zh"
# 其中 α 是每次调用的固定时延 (latency)，B 是**每块 GPU 每个方向的带宽（单向）**。这也是为什么同样叫“通信”，不同策略的脆弱点完全不同
# （第 1 课那张策略表的另一列，第 1 课没有显示它）：

# %% [markdown] lang="en"
# Here α is the fixed latency of each call and B the **bandwidth per GPU and per direction (unidirectional)**. That is why strategies
# that all "communicate" are fragile in entirely different places (another column of lesson 1's strategy table, one
# lesson 1 did not show):

# %%
display(Markdown(strategy_table(["name", "communication"])))

# %% [markdown] lang="zh"
# ## 2. 通信账本：Q2 的第一个小验证
#
# 账本用同一组单位记录单次载荷 (MiB)、调用次数、链路带宽 (GiB/s) 和固定时延 (µs)。
# `communication_ledger` 是它的带校验版本；`explain()` 说出两项各占多少、谁占主导。

# %% [markdown] lang="en"
# ## 2. The communication ledger: Q2's first check
#
# The ledger records the payload per call (MiB), the calls per step, the link bandwidth (GiB/s) and the fixed latency
# (µs) in one set of units. `communication_ledger` is its validated version; `explain()` says how large each term is
# and which one dominates.

# %%
low_frequency = communication_ledger(256, 1, 100, 5)
high_frequency = communication_ledger(32, 24, 100, 5)
assert high_frequency.calls_per_step > low_frequency.calls_per_step
print(low_frequency.explain())
print(high_frequency.explain())
print(
    Text(
        zh="低频账本的字段：单次载荷 payload_per_call_mib = "
        f"{low_frequency.payload_per_call_mib:g}，"
        f"传输 transfer_ms = {low_frequency.transfer_ms:g}，时延 latency_ms = "
        f"{low_frequency.latency_ms:g}，"
        f"主导项 dominant_term = '{low_frequency.dominant_term}'",
        en="fields of the low-frequency ledger: payload_per_call_mib = "
        f"{low_frequency.payload_per_call_mib:g}, "
        f"transfer_ms = {low_frequency.transfer_ms:g}, latency_ms = "
        f"{low_frequency.latency_ms:g}, "
        f"dominant_term = '{low_frequency.dominant_term}'",
    )
)

# %% [markdown] lang="zh"
# 高频的那本账每次只搬 32 MiB，每步却要搬 24 次：总载荷是低频账本的几倍，时间也一样。
# 两本账都由带宽主导，因为 32 MiB 和 256 MiB 都远大于这条链路的**分界载荷 (crossover payload)**：

# %% [markdown] lang="en"
# The high-frequency ledger moves only 32 MiB per call, but 24 times per step: its total payload is a multiple of
# the low-frequency one, and so is its time. Both ledgers are bandwidth-bound, because 32 MiB and 256 MiB are far
# above this link's **crossover payload**:

# %% [markdown]
# $$\alpha = \frac{\text{payload}^*}{B} \quad\Longrightarrow\quad \text{payload}^* = \alpha \times B$$

# %%
payload_ratio = (
    high_frequency.total_payload_mib / low_frequency.total_payload_mib
)
time_ratio = high_frequency.lower_bound_ms / low_frequency.lower_bound_ms
print(
    Text(
        zh=f"高频账本：总载荷是低频账本的 {payload_ratio:g} 倍，时间是 "
        f"{time_ratio:.2f} 倍",
        en=f"High-frequency ledger: {payload_ratio:g} x the payload and "
        f"{time_ratio:.2f} x the time of the low-frequency one",
    )
)
print(f"payload* = 5 µs × 100 GiB/s = {crossover_payload_mib(100, 5):.3f} MiB")
# zh: 每次调用 128 KiB，每步 96 次调用
# en: 128 KiB per call, 96 calls per step
small_calls = communication_ledger(0.125, 96, 100, 5)
print(small_calls.explain())

# %% [markdown] lang="zh"
# 单次载荷小于 payload* 时，时延项占主导：这时加带宽几乎没用，要减少调用次数（合并小消息、分桶 (bucketing)）。
# 第 8 课会用实测数据拟合 α 和 B，那里把分界载荷记作 S*。
#
# 下面是课程用到的链路预设（`coursekit.hardware`）。出处：节点内的数字取自 NVIDIA H100 数据手册（NVLink 双向 900 GB/s，
# 取一半作单向），跨节点的取自 NVIDIA ConnectX-7 / InfiniBand NDR（每端口 400 Gb/s，每块 GPU 一个端口）；
# 两者的每步时延取自 NCCL 源码 `src/graph/tuning.cc` 的 `hwLat` 表（环形算法、Simple 协议）。
# 课程示例链路只是一个示意，不对应具体产品。每个预设的完整出处在 `LINK_PRESETS[名字].source` 里。

# %% [markdown] lang="en"
# When the payload per call is below payload*, latency dominates: more bandwidth barely helps, fewer calls do
# (merge small messages, bucket them). Lesson 8 fits α and B to measurements and calls the crossover S*.
#
# These are the course's link presets (`coursekit.hardware`). Sources: the intra-node figures come from the NVIDIA
# H100 datasheet (NVLink 900 GB/s bidirectional, halved for one direction), the cross-node ones from NVIDIA
# ConnectX-7 / InfiniBand NDR (400 Gb/s per port, one port per GPU); both per-step latencies come from the `hwLat`
# table of NCCL's `src/graph/tuning.cc` (ring algorithm, Simple protocol). The course example link is an
# illustration, not a product. Each preset's full source is in `LINK_PRESETS[name].source`.

# %%
header = [
    Text(zh="链路", en="Link"),
    Text(zh="单向带宽 (GiB/s)", en="Bandwidth, one way (GiB/s)"),
    Text(zh="时延 α (µs)", en="Latency α (µs)"),
    "payload* (MiB)",
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for preset in LINK_PRESETS.values():
    crossover = crossover_payload_mib(preset.bandwidth_gib_s, preset.latency_us)
    rows.append(
        f"| {preset.label} | {preset.bandwidth_gib_s:.1f} | "
        f"{preset.latency_us:g} | {crossover:.3f} |"
    )
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# ## 3. 交互图：时延主导还是带宽主导
#
# 横轴是每次调用的载荷，纵轴是一次调用的时间，两轴都是对数刻度。橙色虚线是时延项（水平），蓝色虚线是传输项
# （斜率为 1），黑线是两者之和；灰色点线标出分界载荷 payload*，黑点是当前载荷。淡绿和淡红两条线是节点内和跨节点预设的合计，
# 用来对比。“链路预设”会把带宽和时延两个滑块设成该预设的值，之后也可以单独调；单独调过之后，菜单里仍显示原来的预设，
# 消息框会注明现在算的已不是它。
#
# 试一试：
#
# 1. 把载荷从 32 MiB 往小拖，看黑点什么时候从斜线段走到平台段，说明文字什么时候变成“时延主导”；
# 2. 载荷停在 16 KiB，把带宽加倍：总时间几乎不变。再把时延减半：总时间几乎减半；
# 3. 切换到跨节点预设：同样的 32 MiB 要慢多少倍？分界载荷移到了哪里？

# %% [markdown] lang="en"
# ## 3. Interactive figure: latency-bound or bandwidth-bound?
#
# The x axis is the payload per call and the y axis the time of one call, both logarithmic. The orange dashed line
# is the latency term (flat), the blue dashed line the transfer term (slope 1), the black line their sum; the grey
# dotted line marks the crossover payload payload*, and the black dot is the current payload. The faint green and
# red lines are the totals of the intra-node and cross-node presets, for comparison. "Link preset" loads its
# bandwidth and latency into the two sliders; you can move them on your own afterwards (the menu still shows the
# preset then, and the message box notes that the lines are no longer computed for it).
#
# Try this:
#
# 1. Drag the payload down from 32 MiB: when does the dot leave the slope for the plateau, and when does the text
#    switch to "latency-bound"?
# 2. Stop at 16 KiB and double the bandwidth: the total hardly changes. Halve the latency instead: it nearly halves.
# 3. Switch to the cross-node preset: how many times slower are the same 32 MiB? Where did the crossover move?

# %%
communication = CommunicationWidget()
communication

# %% [markdown] lang="zh"
# ### 练习 2.1
#
# 一条链路每次调用固定时延 10 µs，单向带宽 25 GiB/s。载荷多大时，时延项正好等于传输项？用 MiB 作答。

# %% [markdown] lang="en"
# ### Exercise 2.1
#
# A link costs 10 µs per call and carries 25 GiB/s one way. At what payload does the latency term equal the transfer
# term? Answer in MiB.

# %% tags=["learner"]
answer = ...
check("q2.crossover_mib", answer)

# %% tags=["solution"]
answer = crossover_payload_mib(25, 10)
verify("q2.crossover_mib", answer)

# %% [markdown] lang="zh"
# ### 练习 2.2
#
# 同一条链路（100 GiB/s，每次 5 µs）上有两本账：A 每步 1 次、每次 256 MiB；B 每步 512 次、每次 64 KiB。
# 哪一本由时延主导？回答 `"A"` 或 `"B"`。

# %% [markdown] lang="en"
# ### Exercise 2.2
#
# Two ledgers on the same link (100 GiB/s, 5 µs per call): A makes 1 call of 256 MiB per step; B makes 512 calls of
# 64 KiB. Which one is latency-bound? Answer `"A"` or `"B"`.

# %% tags=["learner"]
answer = ...
check("q2.latency_bound", answer)

# %% tags=["solution"]
ledger_a = communication_ledger(256, 1, 100, 5)
ledger_b = communication_ledger(64 / 1024, 512, 100, 5)
answer = "A" if ledger_a.dominant_term == "latency" else "B"
verify(
    "q2.latency_bound",
    answer,
    reveal=lambda: print(ledger_a.explain(), ledger_b.explain(), sep="\n"),
)

# %% [markdown] lang="zh"
# ## 4. 集合通信的环形代价
#
# 第 2 节账本里的一次调用只经过一条链路。并行策略用的是集合通信：n 个 rank 排成环，每一步只和邻居交换一块数据。
# 设 S 为每个 rank 参与集合通信的整块缓冲区字节数（即 nccl-tests 报告的 size）、B 为每块 GPU 的单向带宽、α 为每个环步的时延。下面是**环形算法**的代价；
# NCCL 还会按消息大小和拓扑改用树形 (tree) 算法，或在 NVSwitch 上用交换机内归约的 NVLS，它们的时延项和传输项不同。
#
# 本课用到的集合通信（后面的表在中文名旁边写出它们在 coursekit 里的名字）：
#
# - 全归约 (all-reduce)：每个 rank 都得到所有 rank 缓冲区之和；
# - 全收集 (all-gather)：每个 rank 都得到所有 rank 的分片；
# - 归约散射 (reduce-scatter)：求和之后每个 rank 只留结果的一片；
# - 全对全 (all-to-all)：每个 rank 给其他每个 rank 各发一块不同的数据；
# - 广播 (broadcast)：一个 rank 的缓冲区复制到所有 rank；点对点收发 (send/recv)：一个 rank 发、一个 rank 收。

# %% [markdown] lang="en"
# ## 4. The ring cost of collectives
#
# A call of section 2's ledger crosses one link. Parallel strategies use collectives: n ranks form a ring and each step
# exchanges one block with a neighbour. With S the whole buffer each rank takes part with, in bytes (the size
# nccl-tests reports), B the
# unidirectional bandwidth per GPU and α the latency of one ring step, these are the costs of the **ring algorithm**;
# depending on message size and topology NCCL also switches to a tree algorithm, or NVLS (in-switch reduction on
# NVSwitch), whose latency and transfer terms differ.
#
# The collectives of this lesson (the tables below give their names in coursekit next to them):
#
# - all-reduce: every rank gets the sum of all ranks' buffers;
# - all-gather: every rank gets every rank's shard;
# - reduce-scatter: summed, then each rank keeps one shard of the result;
# - all-to-all: each rank sends a different block to every other rank;
# - broadcast: one rank's buffer is copied to every rank; send/recv: one rank sends, one receives.

# %% [markdown] lang="zh"
# $$
# \begin{aligned}
# t &= \text{steps}(n)\cdot\alpha + \text{factor}(n)\cdot\frac{S}{B} \\
# \text{全归约：}\ t &= 2(n-1)\,\alpha + \frac{2(n-1)}{n}\frac{S}{B} \\
# \text{全收集 / 归约散射 / 全对全：}\ t &= (n-1)\,\alpha + \frac{n-1}{n}\frac{S}{B}
# \end{aligned}
# $$

# %% [markdown] lang="en"
# $$
# \begin{aligned}
# t &= \text{steps}(n)\cdot\alpha + \text{factor}(n)\cdot\frac{S}{B} \\
# \text{all-reduce: }\ t &= 2(n-1)\,\alpha + \frac{2(n-1)}{n}\frac{S}{B} \\
# \text{all-gather / reduce-scatter / all-to-all: }\ t &= (n-1)\,\alpha + \frac{n-1}{n}\frac{S}{B}
# \end{aligned}
# $$

# %% [markdown] lang="zh"
# factor(n) 就是 nccl-tests 把算法带宽 (algbw) 换算成总线带宽 (busbw) 的系数：busbw = algbw × factor，
# 它也是每个 rank 需要经自己的链路发送的数据占 S 的比例。注意 n 变大时系数趋于常数（带宽项几乎不变），环步数却线性增长（时延项变大）：

# %% [markdown] lang="en"
# factor(n) is the factor nccl-tests uses to turn algorithm bandwidth (algbw) into bus bandwidth (busbw):
# busbw = algbw × factor; it is also the fraction of S each rank must push through its own link. As n grows the
# factor levels off (the bandwidth term barely changes), while the number of ring steps grows linearly (the latency
# term grows):

# %%
sizes = (2, 8, 64)
# zh: 表头在括号前留空格：投影的窄屏上折行，
# zh: 而不是横向滚动
# en: a space before each bracket: a projected narrow screen wraps the header
# en: instead of scrolling sideways
header = (
    [Text(zh="集合通信", en="Collective")]
    + [f"factor (n={n})" for n in sizes]
    + [f"steps (n={n})" for n in sizes]
)
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for kind in COLLECTIVES:
    costs = [
        collective_cost(
            kind,
            payload_bytes=1.0,
            ranks=n,
            bandwidth_bytes_per_s=1.0,
            latency_s=0.0,
        )
        for n in sizes
    ]
    rows.append(
        f"| {COLLECTIVE_NAMES[kind]} `{kind}` | "
        + " | ".join(f"{bus_bandwidth_factor(kind, n):.4g}" for n in sizes)
        + " | "
        + " | ".join(str(c.steps) for c in costs)
        + " |"
    )
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# 同一个 256 MiB 的全归约，放在节点内和跨节点的预设链路上（单向带宽，α 取自 NCCL 的代价模型）。
# 节点内那几行的 n = 64 只用来和跨节点对比公式：一台 H100 服务器只有 8 张卡，64 张卡的 NVLink 域要 GB200 NVL72 这样的机柜。

# %% [markdown] lang="en"
# The same 256 MiB all-reduce on the intra-node and cross-node preset links (unidirectional bandwidth, α from NCCL's
# cost model). The intra-node row at n = 64 is there to compare the formula with the cross-node one: an H100 server
# has 8 GPUs, and an NVLink domain of 64 takes a rack such as GB200 NVL72.

# %%
TERM = {
    "latency": Text(zh="时延主导", en="latency-bound"),
    "bandwidth": Text(zh="带宽主导", en="bandwidth-bound"),
    "none": Text(zh="无通信", en="no communication"),
}
header = [
    Text(zh="链路", en="Link"),
    "n",
    Text(zh="时延项 (ms)", en="Latency term (ms)"),
    Text(zh="传输项 (ms)", en="Transfer term (ms)"),
    Text(zh="合计 (ms)", en="Total (ms)"),
    Text(zh="主导项", en="Dominant term"),
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for name in ("intra_node", "cross_node"):
    preset = LINK_PRESETS[name]
    for n in sizes:
        cost = collective_cost(
            "all_reduce",
            payload_bytes=mib_to_bytes(256),
            ranks=n,
            bandwidth_bytes_per_s=preset.bandwidth_bytes_per_s,
            latency_s=preset.latency_s,
        )
        rows.append(
            f"| {preset.label} | {n} | {cost.latency_s * MS_PER_S:.3f} | "
            f"{cost.transfer_s * MS_PER_S:.3f} | "
            f"{cost.total_s * MS_PER_S:.3f} | {TERM[cost.dominant_term]} |"
        )
display(Markdown("\n".join(rows)))

# %% [markdown] lang="zh"
# ### 练习 2.3
#
# 环形全归约：S = 256 MiB，n = 8 个 rank，单向带宽 100 GiB/s，每个环步时延 5 µs。一次全归约要多少毫秒？
# （保留 3 位有效数字。）

# %% [markdown] lang="en"
# ### Exercise 2.3
#
# A ring all-reduce of S = 256 MiB over n = 8 ranks, 100 GiB/s one way, 5 µs per ring step. How many milliseconds
# does one all-reduce take? (3 significant digits.)

# %% tags=["learner"]
answer = ...
check("q2.allreduce_ms", answer)

# %% tags=["solution"]
answer = (
    collective_time_s(
        "all_reduce",
        payload_bytes=mib_to_bytes(256),
        ranks=8,
        bandwidth_bytes_per_s=100 * GIB_BYTES,
        latency_s=5 / US_PER_S,
    )
    * MS_PER_S
)
verify("q2.allreduce_ms", answer)

# %% [markdown] lang="zh"
# ## 5. 每种策略每步的通信
#
# 用第 1 课的 7.5B 形状（36 层，h = 4096，32 个头），s = 4096，b = 1，每步 8 个微批次，每种策略单独使用、并行度都取 8。
# EP 只适用于混合专家模型：这里假设每层的 MLP 换成 top-2 路由的 MoE 层，token 数不变。
# `strategy_traffic` 给出每个 rank 每步发起的集合通信（每一项都注明出处），`traffic_time` 在一种链路上计时：

# %% [markdown] lang="en"
# ## 5. Each strategy's communication per step
#
# Take lesson 1's 7.5B shape (36 layers, h = 4096, 32 heads), s = 4096, b = 1, 8 micro-batches per step, each strategy
# alone at degree 8. EP only applies to mixture-of-experts models: here we assume every layer's MLP becomes a top-2
# routed MoE layer with the same tokens. `strategy_traffic` lists the collectives one rank issues per step (each entry
# cites its source) and `traffic_time` times them on one kind of link:

# %%
# zh: 每种策略单独使用、并行度 8 时每个 rank 每步的通信，在两种链路上计时
# zh: （这里不打印：练习 2.4 之后的表格显示它）
# en: Each strategy alone at degree 8: one rank's communication per step, timed on
# en: both links (not printed here: the table after exercise 2.4 shows it)
shape = model_shape("megatron-7.5b")
SEQ, MICRO_BATCH, MICRO_BATCHES, DEGREE = 4096, 1, 8, 8
activation = dict(
    seq_len=SEQ, micro_batch=MICRO_BATCH, micro_batches=MICRO_BATCHES
)
plans = {
    "DP": ("dp", dict(num_params=shape.num_params, dp=DEGREE)),
    "ZeRO-2": (
        "zero",
        dict(
            num_params=shape.num_params,
            dp=DEGREE,
            stage=2,
            micro_batches=MICRO_BATCHES,
        ),
    ),
    "ZeRO-3": (
        "zero",
        dict(
            num_params=shape.num_params,
            dp=DEGREE,
            stage=3,
            units=shape.layers,
            micro_batches=MICRO_BATCHES,
        ),
    ),
    "TP": (
        "tp",
        dict(**activation, hidden=shape.hidden, layers=shape.layers, tp=DEGREE),
    ),
    "PP": ("pp", dict(**activation, hidden=shape.hidden, pp=DEGREE)),
    "CP": (
        "cp",
        dict(
            **activation, kv_hidden=shape.hidden, layers=shape.layers, cp=DEGREE
        ),
    ),
    "EP": (
        "ep",
        dict(
            **activation,
            hidden=shape.hidden,
            moe_layers=shape.layers,
            ep=DEGREE,
            top_k=2,
        ),
    ),
    "Replica": ("replica", dict(replicas=DEGREE)),
}
intra, cross = LINK_PRESETS["intra_node"], LINK_PRESETS["cross_node"]
traffic = {}
for label_, (key, params) in plans.items():
    entries = strategy_traffic(key, **params)
    on_intra = traffic_time(
        entries,
        bandwidth_bytes_per_s=intra.bandwidth_bytes_per_s,
        latency_s=intra.latency_s,
    )
    on_cross = traffic_time(
        entries,
        bandwidth_bytes_per_s=cross.bandwidth_bytes_per_s,
        latency_s=cross.latency_s,
    )
    traffic[label_] = (entries, on_intra, on_cross)

# %% [markdown] lang="zh"
# ### 练习 2.4
#
# 先预测：Megatron 张量并行 TP = 8，模型 36 层，每步 8 个微批次，不开序列并行、不重计算。Megatron 的张量并行在每层的
# 注意力块和 MLP 块末尾各做一次全归约（前向），反向时每块也各做一次（Shoeybi 等，2019）。
# 每个 rank 每步发起多少次全归约？作答后按下面单元格里的“显示参考解答与结果”按钮：它显示参考解答，以及每种策略每步通信的表
# （表里也有本题的答案）。本节后面几段都要对照这张表。

# %% [markdown] lang="en"
# ### Exercise 2.4
#
# Predict first: Megatron tensor parallelism with TP = 8, a 36-layer model, 8 micro-batches per step, no sequence
# parallelism and no recomputation. Megatron's tensor parallelism ends each layer's attention block and MLP block with
# one all-reduce in forward, and each block needs one more in backward (Shoeybi et al., 2019). How many all-reduces
# does each rank issue per step? After answering, press the
# "Show the worked solution and result" button in the cell below: it shows the worked solution, then the table of every
# strategy's communication per step (it holds this exercise's answer too). The rest of this section reads that table.

# %% tags=["learner"]
answer = ...
check("q2.tp_calls", answer)

# %% tags=["solution"]
tp_entries = strategy_traffic(
    "tp",
    seq_len=4096,
    micro_batch=1,
    micro_batches=8,
    hidden=4096,
    layers=36,
    tp=8,
)
answer = sum(entry.calls_per_step for entry in tp_entries)

# zh: 每种策略的通信（下表的 TP 行就是练习 2.4 的答案，
# zh: 所以这张表随参考解答一起出现）
# en: The traffic of every strategy (the table below shows answer 2.4 in its TP row:
# en: it appears with the solution)
header = [
    Text(zh="策略", en="Strategy"),
    Text(zh="集合通信", en="Collectives"),
    Text(zh="每步调用", en="Calls/step"),
    Text(zh="单次载荷 (MiB)", en="Payload/call (MiB)"),
    Text(zh="每步上链路 (GiB)", en="On the wire/step (GiB)"),
    Text(zh="节点内 (ms)", en="Intra-node (ms)"),
    Text(zh="跨节点 (ms)", en="Cross-node (ms)"),
    Text(zh="主导项", en="Dominant term"),
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for label_, (entries, on_intra, on_cross) in traffic.items():
    kinds = ", ".join(sorted({e.collective for e in entries})) or "-"
    payloads = (
        ", ".join(
            sorted({f"{bytes_to_mib(e.payload_bytes):.0f}" for e in entries})
        )
        or "-"
    )
    rows.append(
        f"| {label_} | {kinds} | {sum(e.calls_per_step for e in entries)} "
        f"| {payloads} | {bytes_to_gib(on_intra.bus_bytes):.1f} "
        f"| {on_intra.total_s * MS_PER_S:.1f} | "
        f"{on_cross.total_s * MS_PER_S:.1f} | {TERM[on_intra.dominant_term]} |"
    )
# zh: 表格在这里就定下来（默认参数）：后面的单元格会重新使用 rows 这个名字。
# en: The table is fixed here (a default argument): later cells reuse the name rows.
verify(
    "q2.tp_calls",
    answer,
    reveal=lambda table="\n".join(rows): display(Markdown(table)),
)

# %% [markdown] lang="zh"
# ZeRO 的几行要看微批次：每步 8 个微批次时，ZeRO-2 每个 rank 只保留自己那一片梯度，所以**每个微批次**的反向都要
# 归约散射一次梯度；ZeRO-3 连参数也只保留一片，**每个微批次**的前向和反向都要全收集一次参数。
# 只有 DP（ZeRO-0）和 ZeRO-1 保留完整梯度、在本地累加，每步同步一次。按 ZeRO 论文 §7 的环形通信量
# （n 个 rank 各收发 (n-1)/n 份）手算一遍，和上表（练习 2.4 的按钮显示的那张表）核对：

# %% [markdown] lang="en"
# The ZeRO rows depend on the micro-batches: with 8 micro-batches per step, ZeRO-2 keeps only its slice of the
# gradients, so it reduce-scatters them in **every micro-batch's** backward; ZeRO-3 also keeps only a slice of the
# weights, so it all-gathers them for **every micro-batch's** forward and backward. Only DP (ZeRO-0) and ZeRO-1 keep
# full gradients, accumulate them locally and synchronise once per step. Worked by hand with the ring volumes of the
# ZeRO paper, §7 (each of n ranks moves (n-1)/n of the buffer), and checked against the table (the one exercise 2.4's
# button shows):

# %%
# zh: bf16 权重和梯度，各占 2 字节
# en: bf16 weights and gradients, 2 bytes each
psi_bytes = 2 * shape.num_params
ring = (DEGREE - 1) / DEGREE
by_hand = {
    # zh: 一次全归约 = 归约散射 + 全收集，每步一次
    # en: one all-reduce = reduce-scatter + all-gather, once per step
    "DP": ring * 2 * psi_bytes,
    # zh: m 次梯度归约散射 + 一次权重全收集
    # en: m gradient reduce-scatters + one weight all-gather
    "ZeRO-2": ring * psi_bytes * (MICRO_BATCHES + 1),
    # zh: m 次归约散射 + 2m 次全收集
    # en: m reduce-scatters + 2m all-gathers
    "ZeRO-3": ring * psi_bytes * (MICRO_BATCHES + 2 * MICRO_BATCHES),
}
for label_, expected in by_hand.items():
    assert abs(traffic[label_][1].bus_bytes - expected) <= 1e-9 * expected
    print(f"{label_:7s} {bytes_to_gib(expected):7.1f} GiB")
# zh: 8 个微批次时是 DP 的 12 倍，不是 1.5 倍
# en: 12x DP at 8 micro-batches, not 1.5x
assert by_hand["ZeRO-3"] / by_hand["DP"] == 3 * MICRO_BATCHES / 2

# %% [markdown] lang="zh"
# 所以 ZeRO 论文里“ZeRO-3 是 DP 的 1.5 倍”只在每步一个微批次时成立；梯度累积越多，ZeRO-3 越贵，
# 这也是大模型训练把 ZeRO-3 和较少的微批次、或者把 ZeRO-1 和流水线并行搭配使用的原因之一。

# %% [markdown] lang="en"
# So the ZeRO paper's "ZeRO-3 costs 1.5x DP" holds only with one micro-batch per step; the more gradient accumulation,
# the more ZeRO-3 costs — one reason large runs pair ZeRO-3 with few micro-batches, or ZeRO-1 with pipeline
# parallelism.

# %% [markdown] lang="zh"
# 读表时注意：PP 一行只计一个流水线阶段 (pipeline stage) 边界（p - 1 个边界在不同链路上并行）；服务副本之间不交换模型张量，所以是空的。
# 每一项的说明和出处：

# %% [markdown] lang="en"
# Reading notes: the PP row counts one stage boundary (the p - 1 boundaries run on different links in parallel);
# serving replicas exchange no model tensors, so their row is empty. What each entry is, and its source:

# %%
# zh: 每一项两行：
# zh: 策略、集合通信和每步次数，下一行缩进写说明
# zh: （写在一行里比投影屏幕还宽）
# en: Two lines per entry: strategy, collective and calls
# en: per step, then the description indented below (on
# en: one line they were wider than a projected screen)
for label_, (entries, _, _) in traffic.items():
    for entry in entries:
        name = COLLECTIVE_NAMES[entry.collective]
        calls = entry.calls_per_step
        print(
            Text(
                zh=f"{label_:8s} {name}（{entry.collective}），每步 {calls} 次",
                en=f"{label_:8s} {name} ({entry.collective}): {calls} per step",
            )
        )
        print(f"{'':9s}{entry.description}")

# %% [markdown] lang="zh"
# 上表在 s = 4096 时全部是带宽主导。可是服务 (serving) 的解码 (decode) 阶段每次只处理一个新 token（整段提示词一次性
# 进入模型的阶段叫预填充 (prefill)）：TP 的全归约载荷只有 b·h·2 字节，同样的 TP 一下子变成时延主导：

# %% [markdown] lang="en"
# At s = 4096 every row above is bandwidth-bound. But serving's decode phase handles one new token at a time (the
# phase in which the whole prompt enters the model at once is prefill): TP's all-reduce payload shrinks to b·h·2
# bytes, and the same TP becomes latency-bound:

# %%
header = [
    Text(
        zh="阶段（TP = 8，b = 8，节点内）",
        en="Phase (TP = 8, b = 8, intra-node)",
    ),
    Text(zh="前向全归约次数", en="Forward all-reduces"),
    Text(zh="单次载荷", en="Payload per call"),
    Text(zh="时延项 (ms)", en="Latency term (ms)"),
    Text(zh="传输项 (ms)", en="Transfer term (ms)"),
    Text(zh="主导项", en="Dominant term"),
]
rows = [
    "| " + " | ".join(str(h) for h in header) + " |",
    "|" + " --- |" * len(header),
]
for phase, seq_len in (
    (Text(zh="预填充 s = 4096", en="prefill, s = 4096"), 4096),
    (Text(zh="解码 s = 1", en="decode, s = 1"), 1),
):
    entries = strategy_traffic(
        "tp",
        seq_len=seq_len,
        micro_batch=8,
        hidden=shape.hidden,
        layers=shape.layers,
        tp=DEGREE,
    )
    # zh: 服务只跑前向
    # en: serving runs the forward pass only
    forward = entries[:1]
    on_intra = traffic_time(
        forward,
        bandwidth_bytes_per_s=intra.bandwidth_bytes_per_s,
        latency_s=intra.latency_s,
    )
    rows.append(
        f"| {phase} | {forward[0].calls_per_step} | "
        f"{payload_label(bytes_to_mib(forward[0].payload_bytes))} | "
        f"{on_intra.latency_s * MS_PER_S:.3f} | "
        f"{on_intra.transfer_s * MS_PER_S:.3f} | "
        f"{TERM[on_intra.dominant_term]} |"
    )
display(Markdown("\n".join(rows)))
# zh: 核对下一段用到的数字：
# zh: n = 8 时环有 2(n-1) 步，预设的每步时延 3.4 us。
# en: Check the numbers used in the next paragraph: 2(n-1) ring steps at n = 8, and
# en: the preset's 3.4 us per step.
assert 2 * (DEGREE - 1) == 14 and round(intra.latency_us, 6) == 3.4

# %% [markdown] lang="zh"
# 解码一行的时延项按环形算法估算：每次全归约 2(n-1) = 14 个环步，每步 3.4 µs。对这么小的消息，NCCL 实际上会改用
# 低时延的协议和算法，一次调用的时延可能明显低于这个估计。协议 (protocol) 决定数据和“已到达”标志怎样一起写：
# 低时延协议 (low latency, LL) 每 8 字节里 4 字节数据、4 字节标志，LL128 每 128 字节里 120 字节数据、8 字节标志，Simple 整块写完再同步；
# 算法除环形外还有树形，以及 NVSwitch 上在交换机内做归约的 NVLS。
# 结论“解码阶段的 TP 由时延主导”不变，但具体的毫秒数要实测（第 8 课）。

# %% [markdown] lang="en"
# The decode row's latency term is a ring estimate: 2(n-1) = 14 ring steps per all-reduce at 3.4 µs each. For messages
# this small NCCL actually switches to low-latency protocols and algorithms, so one call may take noticeably less than
# this estimate. A protocol decides how data and its "arrived" flag are written together: the low-latency protocol
# (LL) puts 4 bytes of data and a 4-byte flag in every 8 bytes, LL128 120 bytes of data and an 8-byte flag in every
# 128 bytes, and Simple writes whole blocks and then synchronises; besides the ring the algorithms include tree and, on NVSwitch, NVLS,
# which reduces inside the switch. The conclusion "TP while decoding is latency-bound" holds,
# but the milliseconds need measuring (lesson 8).

# %% [markdown] lang="zh"
# ## 6. 三个问题
#
# 判断并行策略时，真正要问的是：
#
# 1. **这个通信是不是高频出现？** 看上表的“每步调用”：DP 每步 1 次，TP、EP 每层都有，CP 每层还要走 cp-1 个环步。
# 2. **它能不能被节点内互连吃掉？** 比较“节点内”和“跨节点”两列：同样的字节，跨节点慢一个数量级左右。
#    高频又量大的 TP 放在节点内；每步一次的 DP 梯度同步可以跨节点。EP 的全对全每层都有，小规模时也常放在节点内；
#    但大规模 MoE 训练让 EP 跨节点是常见做法（例如 EP = 64 走 InfiniBand），代价要靠通信与计算重叠、路由均衡来控制。
# 3. **它是不是会卡在同步点上，压掉计算重叠？** TP 的全归约夹在每层的两次矩阵乘之间，下一步计算要等它；
#    EP 的分发 (dispatch) 也必须先到，专家才能开算，负载不均时所有 rank 等最慢的那个；PP 在阶段边界等待，切不均就放大气泡；
#    DP 的梯度全归约可以分桶、与反向计算重叠，ZeRO-3 的全收集可以预取；CP 的环形传递可以和分块注意力计算重叠。
#
# 如果频率高、带宽弱，策略再“高级”，最后也会被通信拖回去。常见误区“TP 并行度越大越好”（第 6 课的“误区 2”还会谈）正是忽略了第 1、3 个问题：
# TP 越大，每个 rank 的矩阵越小、算得越快，但每层的集合通信次数不变、环步数还在增加。

# %% [markdown] lang="en"
# ## 6. Three questions
#
# What we really need to ask about a strategy:
#
# 1. **Is this communication frequent?** Read "calls/step" above: DP once per step, TP and EP in every layer, CP with
#    cp-1 ring steps in every layer.
# 2. **Can intra-node links absorb it?** Compare the intra-node and cross-node columns: the same bytes take roughly an
#    order of magnitude longer across nodes. Keep frequent, heavy TP inside a node; DP's once-per-step gradient sync
#    can span nodes. EP's all-to-all runs in every layer and often stays inside a node at small scale, but large MoE
#    training commonly runs EP across nodes (e.g. EP = 64 over InfiniBand) and controls the cost with overlap and
#    balanced routing.
# 3. **Does it block at a synchronization point and kill the overlap with compute?** TP's all-reduce sits between the
#    two matrix multiplies of every layer, and the next computation waits for it; EP's dispatch must arrive before
#    the experts can start, and with uneven load every rank waits for the slowest; PP waits at stage boundaries, and
#    an uneven split enlarges the bubble. DP's gradient all-reduce can be bucketed and overlapped with backward,
#    ZeRO-3's all-gathers can be prefetched, and CP's ring steps can overlap with the blockwise attention compute.
#
# If communication is frequent and bandwidth is weak, even the most "advanced" strategy is dragged back by it. The
# common mistake "the larger the TP degree the better" (lesson 6's Misconception 2 returns to it) ignores questions 1 and 3: a larger TP makes each rank's matrices
# smaller and faster, but the number of collectives per layer stays the same and the ring grows longer.

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 一条链路带宽翻倍，哪种通信几乎不会变快？为什么？
# 2. 为什么 n 从 8 增加到 64 时，全归约的传输项几乎不变，时延项却增加了很多？
# 3. 厂商给出“NVLink 900 GB/s”。代入本课的公式前要做什么？
# 4. 两个方案的每步通信总字节相同，一个每步 1 次，另一个每步 1000 次。它们的通信时间一定相同吗？还要知道什么？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. A link's bandwidth doubles. Which communication barely gets faster, and why?
# 2. Why does the transfer term of an all-reduce hardly change when n grows from 8 to 64, while the latency term grows
#    a lot?
# 3. A vendor quotes "NVLink 900 GB/s". What do you do before putting it into this lesson's formulas?
# 4. Two plans move the same total bytes per step, one in 1 call, the other in 1000 calls. Do they take the same
#    communication time? What else do you need to know?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 单次载荷小于分界载荷 payload* = α × B 的通信（时延主导），例如解码阶段的 TP 全归约、很多小桶的梯度同步。
#    它的时间主要是次数 × α，带宽只影响很小的传输项。（注意带宽翻倍也会让 payload* 翻倍，更多调用落进时延主导区。）
# 2. 环形全归约每个 rank 发送 2(n-1)/n 的缓冲区，n = 8 时是 1.75，n = 64 时约 1.97，几乎不变；
#    但环步数是 2(n-1)，从 14 步变成 126 步，每步都要付一次 α。
# 3. 这是两个方向之和，单向只有 450 GB/s；再注意 GB 是 10^9 字节，换成 GiB/s 约 419。
# 4. 不一定。传输项相同，时延项差 1000 倍：还要知道每次的载荷和链路的 α，算出是否低于 payload*；
#    以及这些调用能否和计算重叠、是否卡在同步点上。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. Communication whose payload per call is below the crossover payload* = α × B (latency-bound), e.g. TP
#    all-reduces while decoding, or gradient sync in many small buckets. Its time is mostly calls × α; bandwidth only
#    affects the small transfer term. (Doubling the bandwidth also doubles payload*, so more calls fall into the
#    latency-bound regime.)
# 2. A ring all-reduce sends 2(n-1)/n of the buffer per rank: 1.75 at n = 8 and about 1.97 at n = 64, almost the
#    same; but it takes 2(n-1) ring steps, 14 becoming 126, and each step pays α.
# 3. It is the sum of both directions: one direction gets 450 GB/s; and GB means 10^9 bytes, about 419 GiB/s.
# 4. Not necessarily. The transfer terms are equal but the latency terms differ by 1000 times: you need the payload
#    per call and the link's α to see whether it is below payload*, and whether the calls overlap with compute or
#    block at a synchronization point.

# %% [markdown] lang="zh"
# ## 要点
#
# - 通信时间 ≈ 次数 × (α + 载荷 / B)：带宽项看单次数据量，频率项看次数；账本给的是不计重叠的下界。
# - 分界载荷 payload* = α × B：小于它时延主导（减少次数），大于它带宽主导（减少载荷或加带宽）。
# - 带宽一律按每块 GPU 每个方向（单向）计；环形集合通信的传输系数（nccl-tests 的 busbw 系数）趋于常数，环步数随 n 线性增长。
# - DP 每步一次、量大；TP、EP 每层都有；PP 在阶段边界；CP 每层走环；服务副本不交换张量。
# - 三个问题：是否高频？能否被节点内互连吃掉？会不会卡在同步点上？高频、量大、阻塞的通信放在节点内。

# %% [markdown] lang="en"
# ## Key points
#
# - Communication time ≈ calls × (α + payload / B): the bandwidth term is about the data per call, the frequency term
#   about the number of calls; the ledger gives a lower bound without overlap.
# - The crossover payload* = α × B: below it a call is latency-bound (make fewer calls), above it bandwidth-bound (send
#   less or get more bandwidth).
# - Bandwidth is always per GPU and per direction (unidirectional); the transfer factor of ring collectives (nccl-tests' busbw factor)
#   levels off while the number of ring steps grows linearly with n.
# - DP communicates once per step, a lot; TP and EP in every layer; PP at stage boundaries; CP around a ring in every
#   layer; serving replicas exchange no tensors.
# - Three questions: is it frequent? can intra-node links absorb it? does it block at a synchronization point? Keep
#   frequent, heavy, blocking communication inside a node.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - PyTorch 的通信原语：[torch.distributed 文档](https://pytorch.org/docs/stable/distributed.html)（`all_reduce`、`all_gather_into_tensor`、`reduce_scatter_tensor`、`all_to_all`）。
# - NCCL 的集合通信语义：[NCCL User Guide: Collective Operations](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/collectives.html)；
#   算法带宽与总线带宽：[nccl-tests 的 PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)。
# - 张量并行每层两次全归约：M. Shoeybi et al., [Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism](https://arxiv.org/abs/1909.08053)，2019。
# - ZeRO-3 的通信量：S. Rajbhandari et al., [ZeRO](https://arxiv.org/abs/1910.02054)，SC 2020，第 7 节。
# - 环形上下文并行：H. Liu et al., [Ring Attention with Blockwise Transformers for Near-Infinite Context](https://arxiv.org/abs/2310.01889)，ICLR 2024。
#
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 1 课 容量约束](01_capacity.ipynb) · 下一课：[第 3 课 约束筛选](03_gates.ipynb)

# %% [markdown] lang="en"
# ## Related reading
#
# - PyTorch's communication primitives: the [torch.distributed documentation](https://pytorch.org/docs/stable/distributed.html) (`all_reduce`, `all_gather_into_tensor`, `reduce_scatter_tensor`, `all_to_all`).
# - NCCL's collective semantics: [NCCL User Guide: Collective Operations](https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/usage/collectives.html);
#   algorithm vs bus bandwidth: [nccl-tests' PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md).
# - Tensor parallelism's two all-reduces per layer: M. Shoeybi et al., [Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism](https://arxiv.org/abs/1909.08053), 2019.
# - ZeRO-3's communication volume: S. Rajbhandari et al., [ZeRO](https://arxiv.org/abs/1910.02054), SC 2020, section 7.
# - Ring context parallelism: H. Liu et al., [Ring Attention with Blockwise Transformers for Near-Infinite Context](https://arxiv.org/abs/2310.01889), ICLR 2024.
#
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 1, capacity](01_capacity.ipynb) · next: [lesson 3, gates](03_gates.ipynb)

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的链路（节点内 / 跨节点）的单向带宽和 α，以及它们的分界载荷：
# - 我的方案里最高频的一种通信，它是时延主导还是带宽主导：
# - 哪一种通信卡在同步点上、无法和计算重叠：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - The unidirectional bandwidth and α of my links (intra-node / cross-node), and their crossover payloads:
# - The most frequent communication in my plan, and whether it is latency- or bandwidth-bound:
# - Which communication blocks at a synchronization point and cannot overlap with compute:
