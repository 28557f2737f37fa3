# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 8 课：公式与实测
#
# [English version](../en/08_lab.ipynb) · [术语表](glossary.ipynb)
#
# > **时间：** 约 50 分钟（讲解与阅读 30 分钟，练习 20 分钟；两个实验在 2 个 CPU 核上共需约半分钟）
# >
# > **问题：**
# > - 第 2 课的环形 α-β 模型 (alpha-beta model) 和真实的集合通信 (collective) 差多少？差在哪里？
# > - 第 1 课的显存账本 (ledger) 和 DDP、FSDP2、张量并行实际持有的字节差多少？每个字节都能解释吗？
# >
# > **目标：**
# > - 用 PyTorch 实测六种集合通信，读懂 nccl-tests 的 algbw 与 busbw，用最小二乘 (least squares) 拟合 α 与 B。
# > - 在对数坐标图上区分时延主导 (latency-bound) 与带宽主导 (bandwidth-bound) 两个区间，并算出分界载荷 S*。
# > - 逐项解释实测的每 rank 字节数与 `training_state_memory` 的差：填充 (padding)、复制的参数、分片副本、Adam 的 step 计数器。
# > - 说出模型没有计入的因素：启动开销、拷贝、争用、回环 (loopback) 与 NVLink / InfiniBand 的差别。

# %% [markdown] lang="en"
# # Lesson 8: Formula vs measurement
#
# [中文版](../zh/08_lab.ipynb) · [Glossary](glossary.ipynb)
#
# > **Time:** about 50 min (teaching and reading 30 min, exercises 20 min; the two experiments take about half a minute on 2 CPU cores)
# >
# > **Questions:**
# > - How far is lesson 2's ring alpha-beta model from real collectives, and where does it differ?
# > - How far is lesson 1's memory ledger from the bytes DDP, FSDP2 and tensor parallelism really hold? Can every byte be explained?
# >
# > **Objectives:**
# > - Measure six collectives with PyTorch, read nccl-tests' algbw and busbw, and fit α and B by least squares.
# > - Tell the latency-bound regime from the bandwidth-bound one on a log-log plot, and compute the crossover payload S*.
# > - Explain, item by item, how the measured bytes per rank differ from `training_state_memory`: padding, replicated parameters, the sharded copy, Adam's step counters.
# > - Name what the model leaves out: launch overhead, copies, contention, loopback versus NVLink / InfiniBand.

# %%
import coursekit

coursekit.set_language("{{LANG}}")

import importlib.util

from IPython.display import Image, Markdown, display

from coursekit.communication import COLLECTIVES, bus_bandwidth_factor, collective_time_s
from coursekit.exercises import check, verify
from coursekit.i18n import Text
from coursekit.lab import (
    TinyTransformerConfig,
    expected_adjustments,
    ledger_for,
    model_coefficients,
    parameter_layout,
    plot_measured_vs_predicted,
    run_collectives,
    run_memory,
)
from coursekit.plotting import figure_to_png
from coursekit.units import GB_BYTES, GIB_BYTES, KIB_BYTES, MIB_BYTES, US_PER_S

#: Every measurement below needs PyTorch (pip install "coursekit[lab]"); without it the lesson still reads.
LAB_READY = importlib.util.find_spec("torch") is not None
SKIPPED = Text(
    zh="（跳过：没有安装 PyTorch。运行 pip install \"coursekit[lab]\" 后重新执行本笔记本即可看到实测结果。）",
    en="(Skipped: PyTorch is not installed. Run pip install \"coursekit[lab]\" and re-run this notebook to see the measurements.)",
)
if not LAB_READY:
    print(SKIPPED)

# %% [markdown] lang="zh"
# ## 1. 为什么要实测
#
# 前几课的每个数字都来自公式：第 1 课的容量账本 `training_state_memory`，第 2 课的环形模型 `collective_time_s`。
# 公式是**模型**：它们有意省略了一些东西，换来可以手算、可以比较的结论。这一课把公式和 PyTorch 的真实运行放在一起：
#
# 1. **集合通信实验**：在本机启动 2 个进程 (rank)，用 gloo 后端经回环地址 127.0.0.1 做六种集合通信，测量时间，拟合 α 与 B，再与 `collective_time_s` 的预测逐点比较。
# 2. **显存实验**：一个小型 Transformer 在 DDP、FSDP2 和张量并行 (TP) 下训练一步 Adam，数出每个 rank 实际持有的字节，和账本逐项对账。
#
# 同一套代码也能在 GPU 集群上用 `torchrun` 运行（第 6 节）。本机上的数字只代表本机：我们要学的是**方法**——怎样让公式和实测互相检验。

# %% [markdown] lang="en"
# ## 1. Why measure
#
# Every number in the earlier lessons came from a formula: lesson 1's capacity ledger `training_state_memory`, lesson 2's ring model `collective_time_s`.
# Formulas are **models**: they leave things out on purpose, in exchange for conclusions we can compute by hand and compare. This lesson sets them next to real PyTorch runs:
#
# 1. **Collectives experiment**: start 2 processes (ranks) on this machine, run six collectives with the gloo backend over the loopback address 127.0.0.1, time them, fit α and B, and compare every point with the prediction of `collective_time_s`.
# 2. **Memory experiment**: train a small Transformer for one Adam step under DDP, FSDP2 and tensor parallelism (TP), count the bytes each rank really holds, and reconcile them with the ledger item by item.
#
# The same code runs on a GPU cluster under `torchrun` (section 6). The numbers on this machine describe only this machine: what we learn is the **method** — making formula and measurement check each other.

# %% [markdown] lang="zh"
# ## 2. 模型和它的两个参数
#
# 对 n 个 rank 上的一次集合通信，第 2 课的环形模型是
#
# $$t(S) = \text{steps}(n)\cdot\alpha + \text{factor}(n)\cdot\frac{S}{B}$$
#
# - $S$ 是 nccl-tests 的载荷定义：**完整缓冲区**的字节数（all_reduce 的张量、all_gather 的输出、reduce_scatter 的输入、all_to_all 每个 rank 发出的全部数据、broadcast 的张量、send_recv 的消息）。
# - $\alpha$ 是环上每一步的固定开销（秒），$B$ 是每条链路的**单向**带宽（字节/秒）。
# - steps 与 factor 见下表（由 `model_coefficients` 计算，它直接读取第 2 课的 `collective_cost`）。
#
# nccl-tests 报告两个带宽：**算法带宽** algbw = S / t，和**总线带宽** busbw = algbw × factor。busbw 已经扣除了算法本身的数据量差异，所以可以直接和链路带宽 B 比较：不同集合通信的 busbw 在大载荷下应该接近同一个数。
#
# $t$ 对 $\alpha$ 和 $1/B$ 是**线性**的，所以拟合就是一个两个未知数的线性最小二乘问题（`numpy.linalg.lstsq`）。我们让每一行除以实测时间，最小化**相对**误差——否则毫秒级的大载荷会淹没微秒级的小载荷，α 就定不准；并要求 $\alpha \ge 0$、$1/B \ge 0$。

# %% [markdown] lang="en"
# ## 2. The model and its two parameters
#
# For one collective over n ranks, lesson 2's ring model is
#
# $$t(S) = \text{steps}(n)\cdot\alpha + \text{factor}(n)\cdot\frac{S}{B}$$
#
# - $S$ is nccl-tests' payload: the bytes of the **full buffer** (the all-reduced tensor, the gathered output of all_gather, the input of reduce_scatter, everything one rank sends in all_to_all, the broadcast tensor, the message of send_recv).
# - $\alpha$ is the fixed cost of one ring step (seconds) and $B$ the **unidirectional** bandwidth per link (bytes per second).
# - steps and factor are in the table below (computed by `model_coefficients`, which reads lesson 2's `collective_cost`).
#
# nccl-tests reports two bandwidths: the **algorithm bandwidth** algbw = S / t and the **bus bandwidth** busbw = algbw × factor. busbw removes the difference in how much data each algorithm moves, so it can be compared with the link bandwidth B directly: at large payloads the busbw of different collectives should be close to one number.
#
# $t$ is **linear** in $\alpha$ and $1/B$, so the fit is a linear least-squares problem in two unknowns (`numpy.linalg.lstsq`). Each row is divided by its measured time, so we minimise the **relative** error — otherwise the millisecond points of large payloads would swamp the microsecond points of small ones and leave α to chance — and we require $\alpha \ge 0$ and $1/B \ge 0$.

# %%
RANKS = 2
rows = ["| collective | steps(n) | factor(n) = busbw / algbw |", "| --- | --- | --- |"]
for kind in COLLECTIVES:
    steps, factor = model_coefficients(kind, RANKS)
    rows.append(f"| {kind} | {steps} | {factor:g} |")
display(Markdown(f"n = {RANKS}\n\n" + "\n".join(rows)))

# %% [markdown] lang="zh"
# ## 3. 实验 A：六种集合通信
#
# 下一个单元格启动 2 个进程（`torch.multiprocessing` 在一个空闲的回环端口上启动，`MASTER_ADDR=127.0.0.1`），每个进程代表一个“设备”。对每种集合通信：
#
# 1. 先在已知张量上运行一次，检查每个 rank 的结果是否正确；
# 2. 对每个载荷先运行 `warmup` 次不计时，再运行 `repeats` 次，每次都在 barrier 之后立刻计时；
# 3. 每个 rank 取自己的中位数 (median)，报告**各 rank 中位数的最大值**——集合通信要等最慢的 rank 完成才算结束。
#
# 载荷从 1 KiB 翻倍到 4 MiB，在这台机器上同时覆盖两个区间。

# %% [markdown] lang="en"
# ## 3. Experiment A: six collectives
#
# The next cell starts 2 processes (`torch.multiprocessing` on a free loopback port, `MASTER_ADDR=127.0.0.1`); each stands for one "device". For each collective it:
#
# 1. runs it once on known tensors and checks every rank's result;
# 2. for each payload, runs it `warmup` times untimed, then `repeats` times, each timed right after a barrier;
# 3. takes each rank's median and reports **the maximum over ranks of the medians** — a collective is finished only when its slowest rank is.
#
# Payloads double from 1 KiB to 4 MiB, which on this machine covers both regimes.

# %%
report = None
if LAB_READY:
    report = run_collectives(ranks=RANKS, min_bytes=KIB_BYTES, max_bytes=4 * MIB_BYTES, repeats=10, warmup=3)
    print(report.summary_table())
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# 逐点看一个集合通信：实测时间、algbw、busbw、用拟合出的 α 和 B 代入 `collective_time_s` 得到的预测，以及预测与实测之比。

# %% [markdown] lang="en"
# One collective point by point: the measured time, algbw, busbw, the prediction of `collective_time_s` with the fitted α and B, and the ratio of prediction to measurement.

# %%
if report is not None:
    print(report.detail_table("all_reduce"))
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# 下图是对数-对数坐标：点是实测，线是拟合后的公式。虚线是分界载荷 $S^* = \text{steps}\cdot\alpha\cdot B / \text{factor}$：左侧（着色）由时延主导，曲线几乎是平的；右侧由带宽主导，斜率趋近 1（载荷翻倍，时间翻倍）。

# %% [markdown] lang="en"
# The figure is log-log: dots are measurements, the line is the fitted formula. The dotted line is the crossover payload $S^* = \text{steps}\cdot\alpha\cdot B / \text{factor}$: to its left (shaded) latency dominates and the curve is nearly flat; to its right bandwidth dominates and the slope tends to 1 (twice the payload, twice the time).

# %%
if report is not None:
    display(Image(figure_to_png(plot_measured_vs_predicted(report))))
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# ### 用实测检验模型的结构
#
# 拟合只是第一步。模型还做了可以直接检验的**结构性**预测：在环形算法里 all_reduce = reduce_scatter + all_gather，所以大载荷下 all_reduce 的时间应约等于二者之和，约为 all_gather 的 2 倍；不同集合通信的 busbw 应接近同一个链路带宽。下面用实测数字核对，并把拟合出的 B 与第 0 课 H100 NVLink 的单向 450 GB/s 相比。
#
# 如果比值离 2 很远（在这台机器的 gloo 上通常如此），说明后端并没有按模型里的环形算法执行 all_gather / reduce_scatter：这时每种集合通信各自拟合出的 α 和 B 描述的是**实现**，而不是链路。这正是实测的价值——它检验的不只是参数，还有模型的结构。

# %% [markdown] lang="en"
# ### Testing the model's structure
#
# The fit is only a first step. The model also makes **structural** predictions we can test: in the ring algorithm all_reduce = reduce_scatter + all_gather, so at large payloads all_reduce should take about as long as the two together, about twice an all_gather; and the busbw of different collectives should be close to one link bandwidth. The cell checks this on the measured numbers, and sets the fitted B next to lesson 0's H100 NVLink figure of 450 GB/s one way.
#
# If the ratio is far from 2 (with gloo on this machine it usually is), the backend does not run all_gather / reduce_scatter as the model's ring: each collective's fitted α and B then describe the **implementation**, not the link. That is what measuring is for — it tests the model's structure, not only its parameters.

# %%
# NVIDIA H100 SXM datasheet: 900 GB/s NVLink in total (both directions) per GPU -> 450 GB/s one way (lesson 0).
NVLINK_H100_BYTES_PER_S = 900 * GB_BYTES / 2
if report is not None:
    largest = {r.kind: r.points[-1] for r in report.results if r.points}
    ar, ag, rs = largest["all_reduce"], largest["all_gather"], largest["reduce_scatter"]
    print(f"S = {ar.payload_bytes / MIB_BYTES:g} MiB: all_reduce {ar.time_s * US_PER_S:.0f} µs, "
          f"reduce_scatter + all_gather {(rs.time_s + ag.time_s) * US_PER_S:.0f} µs, "
          f"all_reduce / all_gather = {ar.time_s / ag.time_s:.2f} (ring model: 2)")
    for kind, point in largest.items():
        print(f"  busbw {kind:15s} {point.busbw_bytes_per_s / GIB_BYTES:6.2f} GiB/s")
    fitted = report.result("all_reduce").fit
    if fitted is not None and fitted.bandwidth_bytes_per_s is not None:
        print(f"fitted B (all_reduce) = {fitted.bandwidth_bytes_per_s / GIB_BYTES:.2f} GiB/s; "
              f"H100 NVLink one way is {NVLINK_H100_BYTES_PER_S / fitted.bandwidth_bytes_per_s:.0f}x that")
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# ### 练习 6.1
#
# nccl-tests 在 8 个 rank 上做 S = 256 MiB 的 all_gather，耗时 4 ms。它报告的 busbw 是多少 GiB/s？

# %% [markdown] lang="en"
# ### Exercise 6.1
#
# nccl-tests runs an all_gather of S = 256 MiB over 8 ranks in 4 ms. What busbw does it report, in GiB/s?

# %% tags=["learner"]
answer = ...
check("lab.busbw_gib_s", answer)

# %% tags=["solution"]
algbw_gib_s = 256 * MIB_BYTES / 4e-3 / GIB_BYTES
answer = algbw_gib_s * bus_bandwidth_factor("all_gather", 8)
verify("lab.busbw_gib_s", answer)

# %% [markdown] lang="zh"
# ### 练习 6.2
#
# 在 2 个 rank 上拟合 all_reduce 得到 α = 50 µs（每步）、B = 1 GiB/s。载荷超过多少字节后带宽项大于时延项（分界载荷 S*）？

# %% [markdown] lang="en"
# ### Exercise 6.2
#
# A fit of all_reduce over 2 ranks gives α = 50 µs per step and B = 1 GiB/s. Above which payload, in bytes, is the bandwidth term larger than the latency term (the crossover S*)?

# %% tags=["learner"]
answer = ...
check("lab.crossover_bytes", answer)

# %% tags=["solution"]
steps, factor = model_coefficients("all_reduce", 2)
answer = steps * 50e-6 * GIB_BYTES / factor
verify("lab.crossover_bytes", answer)

# %% [markdown] lang="zh"
# ## 4. 模型没有计入什么
#
# 预测/实测之比偏离 1 的地方，就是模型省略的东西在起作用：
#
# - **启动开销 (launch overhead)**：每次调用都要经过 Python、c10d 的调度、gloo 的工作线程交接；在 GPU 上还有 kernel 启动。这些都被拟合进了 α，所以本机的 α 远大于“线缆上的时延”。
# - **拷贝 (copies)**：gloo 在 CPU 上把数据拷进拷出发送缓冲区；all_gather 还要把各块拼成输出。回环上的“链路”本身就是经过内核 TCP 栈的内存拷贝，与计算争用同一份内存带宽。
# - **争用 (contention)**：2 个 rank 共用 2 个 CPU 核，还要和操作系统、其他进程分享；偶尔的调度延迟会产生毫秒级的离群点（所以我们取中位数）。在 GPU 节点上，同时进行的 DP 与 TP 通信会争用 NVLink、PCIe 和网卡。
# - **回环 vs NVLink / InfiniBand**：真实集群的 α 和 B 与本机相差数个数量级，而且 NCCL 会按载荷大小在环 (ring)、树 (tree) 等算法和 LL / LL128 / Simple 等协议之间切换——曲线会出现拐点，一对 (α, B) 只能近似一段区间。
# - **同步偏差**：barrier 之后各 rank 离开的时刻并不完全一致；我们报告最慢 rank 的中位数，这份偏差也算进了测量。
#
# 所以：把别人的 (α, B) 直接搬到自己的集群上是不可靠的；在目标硬件上**按载荷区间**重新测量和拟合，才是第 2 课通信账本可信的输入。

# %% [markdown] lang="en"
# ## 4. What the model leaves out
#
# Wherever the ratio of prediction to measurement strays from 1, something the model left out is at work:
#
# - **Launch overhead**: every call goes through Python, c10d's dispatch and a hand-off to gloo's worker threads; on a GPU a kernel launch comes on top. All of it is fitted into α, which is why α on this machine is far larger than any "wire latency".
# - **Copies**: on a CPU, gloo copies data into and out of send buffers, and all_gather assembles the chunks into its output. The loopback "link" is itself a memory copy through the kernel's TCP stack, competing with compute for the same memory bandwidth.
# - **Contention**: 2 ranks share 2 CPU cores with the operating system and other processes; an occasional scheduling delay makes millisecond outliers (hence the median). On a GPU node, DP and TP traffic running at the same time compete for NVLink, PCIe and the NICs.
# - **Loopback vs NVLink / InfiniBand**: a real cluster's α and B differ from this machine's by orders of magnitude, and NCCL switches between algorithms (ring, tree, …) and protocols (LL, LL128, Simple) by payload size — the curve bends, and one (α, B) pair fits only a range of payloads.
# - **Synchronisation skew**: ranks do not leave a barrier at exactly the same moment; we report the slowest rank's median, so that skew is part of the measurement.
#
# So: someone else's (α, B) does not carry over to your cluster. Measuring and fitting again on the target hardware, **per payload range**, is what makes lesson 2's communication ledger trustworthy.

# %% [markdown] lang="zh"
# ## 5. 实验 B：每个 rank 实际持有多少字节
#
# 模型是一个小型 Transformer：2 个 pre-LayerNorm block（多头因果自注意力，q、k、v、o 四个投影；GELU MLP），最后是 LayerNorm + 5 类分类头。全部参数、梯度和 Adam 状态都是 fp32，所以账本用精度方案 `"fp32-adam"`：每个参数 4 + 4 + 8 字节。
#
# 四种策略，每种都训练一步：
#
# | 策略 | PyTorch | 对应的账本调用 |
# | --- | --- | --- |
# | DDP | `DistributedDataParallel(gradient_as_bucket_view=True)` | `dp=n, zero_stage=0` |
# | FSDP2，ZeRO-3 行为 | `fully_shard(..., reshard_after_forward=True)` | `dp=n, zero_stage=3` |
# | FSDP2，ZeRO-2 行为 | `fully_shard(..., reshard_after_forward=False)` | `dp=n, zero_stage=2` |
# | TP | `parallelize_module`：q、k、v、fc1 用 `ColwiseParallel`，o、fc2 用 `RowwiseParallel` | `tp=n` |
#
# 参数在前向刚结束时计数（这是 ZeRO-2 与 ZeRO-3 不同的时刻），梯度在反向之后，Adam 状态在 step 之后；多个张量共享的存储 (storage) 只算一次。激活和通信缓冲区不计入。

# %% [markdown] lang="en"
# ## 5. Experiment B: how many bytes each rank really holds
#
# The model is a small Transformer: 2 pre-LayerNorm blocks (multi-head causal self-attention with q, k, v, o projections; a GELU MLP), then a LayerNorm and a 5-class classifier head. Parameters, gradients and Adam state are all fp32, so the ledger uses the recipe `"fp32-adam"`: 4 + 4 + 8 bytes per parameter.
#
# Four strategies, one training step each:
#
# | Strategy | PyTorch | Ledger call |
# | --- | --- | --- |
# | DDP | `DistributedDataParallel(gradient_as_bucket_view=True)` | `dp=n, zero_stage=0` |
# | FSDP2, ZeRO-3 behaviour | `fully_shard(..., reshard_after_forward=True)` | `dp=n, zero_stage=3` |
# | FSDP2, ZeRO-2 behaviour | `fully_shard(..., reshard_after_forward=False)` | `dp=n, zero_stage=2` |
# | TP | `parallelize_module`: `ColwiseParallel` on q, k, v, fc1, `RowwiseParallel` on o, fc2 | `tp=n` |
#
# Parameters are counted right after the forward pass (the moment where ZeRO-2 and ZeRO-3 differ), gradients after backward, Adam state after the step; a storage shared by several tensors counts once. Activations and communication buffers are not counted.

# %%
config = TinyTransformerConfig()
num_params = sum(spec.numel for spec in parameter_layout(config))
print(f"{num_params:,} parameters in {len(parameter_layout(config))} tensors")
memory = None
if LAB_READY:
    memory = run_memory(ranks=RANKS, config=config)
    print(memory.format())
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# 每张表的“未解释”一列都应当是 0：实测 = 账本 + 有名字的差额。逐项看这些差额：
#
# - **step 计数器**：PyTorch 的 Adam 为每个参数张量保留一个 float32 的 `step`，账本没有它——张量越多越明显，但和参数量相比很小。
# - **填充 (padding)**：FSDP2 沿第 0 维切分；分类头只有 5 行，2 个 rank 时每个 rank 都存 ceil(5/2) = 3 行。而 Adam 状态按**未填充**的本地分片分配，所以各 rank 的优化器字节略有不同（“分片不均”）。
# - **分片副本**：`reshard_after_forward=False` 时，all-gather 得到的完整参数从前向保留到反向，而 FSDP2 同时保留自己的分片参数（Adam 更新的那一份）。在前向与反向之间，每个 rank 约持有 1 + 1/n 份参数——2 个 rank 时比 DDP 还多。账本的 ZeRO-2 只算完整的一份。
# - **复制的参数**：TP 只切注意力和 MLP 的投影；LayerNorm、行切分层的偏置和分类头在每个 rank 上都是完整的，而账本假设所有参数都均分成 1/n。
#
# DDP 的梯度用 `gradient_as_bucket_view=True`，梯度就是通信桶 (bucket) 的视图；用默认的 `False` 时，DDP 会在桶里再存一份梯度——账本同样看不到，请在练习中自己试一试。

# %% [markdown] lang="en"
# In every table the "unexplained" column should be 0: measured = ledger + named extras. The extras, one by one:
#
# - **Step counters**: PyTorch's Adam keeps a float32 `step` per parameter tensor, which the ledger does not count — it grows with the number of tensors, but is tiny next to the parameters.
# - **Padding**: FSDP2 shards dim 0; the classifier head has only 5 rows, so with 2 ranks every rank stores ceil(5/2) = 3 rows. Adam state, however, is allocated for the **unpadded** local shard, so the ranks' optimizer bytes differ slightly ("uneven shard").
# - **Sharded copy**: with `reshard_after_forward=False` the all-gathered full parameters stay alive from forward to backward, while FSDP2 keeps its own sharded parameters (the ones Adam updates). Between forward and backward each rank holds about 1 + 1/n copies of the parameters — with 2 ranks, more than DDP. The ledger's ZeRO-2 counts only the full copy.
# - **Replicated parameters**: TP shards only the attention and MLP projections; the LayerNorms, the biases of row-wise layers and the classifier head stay whole on every rank, while the ledger assumes every parameter is split 1/n.
#
# DDP's gradients use `gradient_as_bucket_view=True`, so they are views into its communication buckets; with the default `False`, DDP keeps a second copy of the gradients in its buckets — also invisible to the ledger; try it in the exercise at the end.

# %%
if memory is not None:
    rows = ["| strategy | rank | measured total (B) | ledger total (B) | measured / ledger |", "| --- | --- | --- | --- | --- |"]
    for strategy in ("ddp", "fsdp2-zero3", "fsdp2-zero2", "tp"):
        if strategy in memory.skipped:
            continue
        worst = memory.largest_rank(strategy)
        total = worst.row("total")
        rows.append(f"| {strategy} | {worst.rank} | {total.measured_bytes:,} | {total.ledger_bytes:,.0f} | "
                    f"{total.measured_bytes / total.ledger_bytes:.3f} |")
    display(Markdown("\n".join(rows)))
    print("losses of the first step:", {k: round(v, 6) for k, v in memory.losses.items()})
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# 四种策略的第一步损失相同：它们计算的是同一个模型（同样的权重、同样的批次），区别只在字节放在哪里。
#
# ### 练习 6.3
#
# 同一个模型在 **4 个** rank 上用 FSDP2（`reshard_after_forward=True`）。每个 rank 存的参数比账本的 4·N/4 字节多多少字节？先手算，再用 `expected_adjustments` 核对。

# %% [markdown] lang="en"
# The four strategies have the same first-step loss: they compute the same model (same weights, same batch); they differ only in where the bytes live.
#
# ### Exercise 6.3
#
# The same model on **4** ranks under FSDP2 (`reshard_after_forward=True`). How many bytes of parameters does each rank store beyond the ledger's 4·N/4? Work it out by hand first, then confirm with `expected_adjustments`.

# %% tags=["learner"]
answer = ...
check("lab.fsdp_padding_bytes", answer)

# %% tags=["solution"]
rows_per_rank = -(-5 // 4)  # ceil(5 / 4): the head's weight (5 x 64) and bias (5)
stored = rows_per_rank * 64 + rows_per_rank
even_share = (5 * 64 + 5) / 4
answer = (stored - even_share) * 4
print(answer, [a.delta_bytes for a in expected_adjustments("fsdp2-zero3", config, 4, 0)["params"]])
verify("lab.fsdp_padding_bytes", answer)

# %% [markdown] lang="zh"
# ### 练习 6.4
#
# 同一个模型在 4 个 rank 上做张量并行。每个 rank 的参数比账本的 4·N/4 字节多多少字节？

# %% [markdown] lang="en"
# ### Exercise 6.4
#
# The same model with tensor parallelism over 4 ranks. How many bytes of parameters beyond the ledger's 4·N/4 does each rank hold?

# %% tags=["learner"]
answer = ...
check("lab.tp_replicated_bytes", answer)

# %% tags=["solution"]
replicated = sum(spec.numel for spec in parameter_layout(config) if spec.tp_placement == "replicate")
answer = replicated * (1 - 1 / 4) * 4
verify("lab.tp_replicated_bytes", answer)

# %% [markdown] lang="zh"
# ### 练习 6.5
#
# 2 个 rank、前向刚结束时，哪种策略在每个 rank 上持有最多的参数字节？从 `"ddp"`、`"fsdp2-zero3"`、`"fsdp2-zero2"`、`"tp"` 中选一个。

# %% [markdown] lang="en"
# ### Exercise 6.5
#
# With 2 ranks, right after the forward pass, which strategy holds the most parameter bytes per rank? Pick one of `"ddp"`, `"fsdp2-zero3"`, `"fsdp2-zero2"`, `"tp"`.

# %% tags=["learner"]
answer = ...
check("lab.most_param_bytes", answer)

# %% tags=["solution"]
def params_after_forward(strategy: str) -> float:
    ledger = ledger_for(strategy, num_params, 2).params_bytes
    return ledger + sum(a.delta_bytes for a in expected_adjustments(strategy, config, 2, 0)["params"])


answer = max(["ddp", "fsdp2-zero3", "fsdp2-zero2", "tp"], key=params_after_forward)
verify("lab.most_param_bytes", answer)

# %% [markdown] lang="zh"
# ## 6. 在真实集群上运行
#
# 同样的代码在 GPU 集群上用 `torchrun` 启动即可：它从环境变量 `RANK`、`WORLD_SIZE`、`LOCAL_RANK` 认出自己由 torchrun 启动，每个进程用一块 GPU 和 NCCL（没有 GPU 时退回 CPU 与 gloo）。只有 rank 0 打印结果和写 JSON：
#
# ```bash
# # 单节点 8 卡
# torchrun --standalone --nproc-per-node 8 -m coursekit.lab collectives --max-bytes 1G --json fits.json
# # 两个节点，每个 8 卡（在每个节点上运行，--rdzv-endpoint 指向第一个节点）
# torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 \
#     -m coursekit.lab collectives --json fits.json
# torchrun --standalone --nproc-per-node 8 -m coursekit.lab memory
# ```
#
# 本机上则由命令自己启动进程：`python -m coursekit.lab collectives --ranks 4`、`python -m coursekit.lab memory --ranks 4`。
# `--json` 写出的文件里，每种集合通信都有 `alpha_s` 和 `bandwidth_bytes_per_s`，可以直接作为第 2 课 `collective_time_s` 的 `latency_s` 与 `bandwidth_bytes_per_s`，下面用本机的拟合结果演示。

# %% [markdown] lang="en"
# ## 6. Running on a real cluster
#
# On a GPU cluster, start the same code with `torchrun`: it recognises torchrun from the environment variables `RANK`, `WORLD_SIZE` and `LOCAL_RANK`, and gives each process one GPU with NCCL (CPU and gloo when there is no GPU). Only rank 0 prints and writes JSON:
#
# ```bash
# # one node, 8 GPUs
# torchrun --standalone --nproc-per-node 8 -m coursekit.lab collectives --max-bytes 1G --json fits.json
# # two nodes of 8 GPUs (run on each node; --rdzv-endpoint points at the first one)
# torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint HOST:29500 \
#     -m coursekit.lab collectives --json fits.json
# torchrun --standalone --nproc-per-node 8 -m coursekit.lab memory
# ```
#
# On one machine the command starts its own processes: `python -m coursekit.lab collectives --ranks 4`, `python -m coursekit.lab memory --ranks 4`.
# In the file `--json` writes, every collective has `alpha_s` and `bandwidth_bytes_per_s`, ready to be lesson 2's `latency_s` and `bandwidth_bytes_per_s` of `collective_time_s`; the cell shows it with this machine's fit.

# %%
if report is not None:
    fits = report.to_json_dict()["collectives"]  # what --json writes, per collective
    entry = fits["all_reduce"]
    if entry["bandwidth_bytes_per_s"] is not None:
        gradient_bytes = 4 * num_params  # fp32 gradients of the lab model, all-reduced once per step by DDP
        seconds = collective_time_s("all_reduce", payload_bytes=gradient_bytes, ranks=RANKS,
                                    bandwidth_bytes_per_s=entry["bandwidth_bytes_per_s"], latency_s=entry["alpha_s"])
        print(f"DDP gradient all-reduce of {gradient_bytes:,} bytes over {RANKS} ranks on this machine: "
              f"{seconds * US_PER_S:.0f} µs predicted")
else:
    print(SKIPPED)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 为什么拟合要最小化**相对**误差，而不是秒数的平方和？
# 2. 某次测量中，all_reduce 的 busbw 在大载荷下只有 all_gather 的一半。环形模型会怎样解释？你会先检查什么？
# 3. FSDP2 的 `reshard_after_forward=False` 比 `True` 快在哪里？它在显存上付出的代价出现在什么时刻？
# 4. 账本说 TP 把所有参数都切成 1/n。在本课的模型里，哪些参数没有被切？在真实的大模型里，这部分占比会变大还是变小？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. Why does the fit minimise the **relative** error rather than the sum of squared seconds?
# 2. In one measurement, all_reduce's busbw at large payloads is only half of all_gather's. How would the ring model explain it, and what would you check first?
# 3. Where does FSDP2's `reshard_after_forward=False` save time compared with `True`? When does it pay for that in memory?
# 4. The ledger assumes TP splits every parameter 1/n. Which parameters of this lesson's model are not split? In a real large model, does their share grow or shrink?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 小载荷只有几十到几百微秒，大载荷有几毫秒；按秒数拟合时，大载荷的一点点误差就会压过全部小载荷，α 几乎由噪声决定。除以实测时间后，每个点的权重相同，两个区间都能被拟合好。
# 2. 按 busbw 的定义，同一条链路上不同集合通信的 busbw 应当接近。all_reduce 偏低说明它没有按“reduce_scatter + all_gather”的环形方式高效执行：可能是后端选了别的算法（例如树形或先归约再广播）、有额外的拷贝或归约计算成了瓶颈。先看载荷区间和后端实际用的算法与协议，再看 CPU / GPU 上的归约开销。
# 3. 它省掉了反向开始前对每一层参数的第二次 all-gather（前向收集到的完整参数一直保留到反向）。代价出现在前向结束到反向结束之间：每个 rank 同时持有完整参数和自己的分片，约 1 + 1/n 份参数。
# 4. LayerNorm 的权重与偏置、行切分层 (o、fc2) 的偏置，以及本例中未并行化的分类头。这些都是 O(d) 大小的向量（分类头是例外），而被切分的投影矩阵是 O(d²)；d 越大，复制部分的占比越小——但像词表嵌入 (embedding) 这样的大矩阵如果不切，就会成为大头。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. Small payloads take tens to hundreds of microseconds, large ones several milliseconds; fitted in seconds, a small error on a large payload outweighs all the small payloads and α is decided by noise. Dividing by the measured time gives every point the same weight, so both regimes are fitted.
# 2. By its definition, busbw of different collectives over the same links should be close. A low all_reduce busbw says it did not run as an efficient ring "reduce_scatter + all_gather": the backend may have chosen another algorithm (a tree, or reduce then broadcast), or extra copies or the reduction arithmetic became the bottleneck. Check the payload range and the algorithm and protocol the backend really used first, then the reduction cost on the CPU / GPU.
# 3. It skips the second all-gather of every layer's parameters before backward (the full parameters gathered in forward stay until backward). The cost is between the end of forward and the end of backward: each rank holds the full parameters and its own shard, about 1 + 1/n copies.
# 4. The LayerNorm weights and biases, the biases of the row-wise layers (o, fc2) and, here, the classifier head, which is not parallelised. Apart from the head these are O(d) vectors while the sharded projections are O(d²); the larger d, the smaller the replicated share — but a large matrix left unsharded, such as a vocabulary embedding, would dominate.

# %% [markdown] lang="zh"
# ### 动手试一试（可选）
#
# 把下一个单元格中的 `RANKS_TRY` 改成 4，重新运行两个实验：4 个 rank 挤在 2 个 CPU 核上，α 会怎样变化？`memory` 的表里哪些差额变了？再想一想：要把 DDP 的 `gradient_as_bucket_view` 改成 `False`，实测梯度字节会不会变？（提示：我们只数通过 `param.grad` 能到达的存储。）

# %% [markdown] lang="en"
# ### Try it (optional)
#
# Change `RANKS_TRY` in the next cell to 4 and run both experiments again: with 4 ranks squeezed onto 2 CPU cores, what happens to α? Which extras change in the `memory` tables? Then think: if DDP's `gradient_as_bucket_view` were `False`, would the measured gradient bytes change? (Hint: we count only storages reachable through `param.grad`.)

# %% tags=["learner"]
RANKS_TRY = 2
if LAB_READY and RANKS_TRY != RANKS:
    print(run_collectives(ranks=RANKS_TRY, max_bytes=4 * MIB_BYTES, repeats=10, warmup=3).summary_table())
    print(run_memory(ranks=RANKS_TRY).format())

# %% [markdown] lang="zh"
# ## 要点
#
# - 环形模型 $t = \text{steps}\cdot\alpha + \text{factor}\cdot S/B$ 对 α 和 1/B 是线性的：用相对误差的非负最小二乘就能从实测中拟合出来。
# - algbw = S / t；busbw = algbw × factor，可以直接和链路带宽比较。
# - 小载荷由时延主导、大载荷由带宽主导，分界在 $S^* = \text{steps}\cdot\alpha\cdot B/\text{factor}$。
# - 拟合出的 α 包含了启动开销、拷贝和同步偏差；本机的数字不能搬到 NVLink / InfiniBand 上，要在目标硬件上按载荷区间重测。
# - 实测显存 = 账本 + 有名字的差额：FSDP2 的填充与不均匀分片、ZeRO-2 模式下前向到反向之间的分片副本、TP 中被复制的参数、Adam 的 step 计数器。

# %% [markdown] lang="en"
# ## Key points
#
# - The ring model $t = \text{steps}\cdot\alpha + \text{factor}\cdot S/B$ is linear in α and 1/B: non-negative least squares on the relative error fits it from measurements.
# - algbw = S / t; busbw = algbw × factor, comparable with a link's bandwidth.
# - Small payloads are latency-bound, large ones bandwidth-bound; the crossover is $S^* = \text{steps}\cdot\alpha\cdot B/\text{factor}$.
# - A fitted α includes launch overhead, copies and synchronisation skew; this machine's numbers do not carry over to NVLink / InfiniBand — measure again on the target hardware, per payload range.
# - Measured memory = ledger + named extras: FSDP2's padding and uneven shards, the sharded copy between forward and backward in ZeRO-2 mode, TP's replicated parameters, Adam's step counters.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 本机拟合出的 α 与 B（all_reduce）：
# - 我的目标集群上需要重新测量的载荷区间：
# - 我的模型里 TP 不会切分的参数，以及它们的占比：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - α and B fitted on this machine (all_reduce):
# - The payload ranges I must measure again on my target cluster:
# - The parameters TP would not split in my model, and their share:
