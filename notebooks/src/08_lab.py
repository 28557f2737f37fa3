# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 8 课：公式与实测
#
# [English version](../en/08_lab.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 7 课 计算效率](07_compute_efficiency.ipynb) · 下一课：[第 9 课 决策工作台](09_workbench.ipynb)
#
# > **时间：** 约 100 分钟（讲解与阅读 60 分钟，练习 40 分钟；重新实测约需 2 分钟）
# >
# > **选学：** 本课可以跳过，第 9、10 课不依赖它。默认读随课程发布的录制结果，不需要 PyTorch；想在自己的机器上重新实测
# > （`LIVE = True`）需要安装 PyTorch（在课程文件夹中运行 `pip install -e ".[lab]"`）。
# >
# > **问题：**
# > - 第 2 课的环形 α-β 模型 (alpha-beta model) 和真实的集合通信 (collective) 差多少？差在哪里？
# > - 第 1 课的显存账本 (ledger) 和 DDP、FSDP2、张量并行实际持有的字节差多少？每个字节都能解释吗？
# > - 一个真实的训练步 (step) 里，时间花在了计算、通信还是等待上？扩展效率 E(P) 下降时，怎样用测量找到原因？
# >
# > **目标：**
# > - 用 PyTorch 实测六种集合通信，读懂 nccl-tests 的 algbw 与 busbw，用最小二乘 (least squares) 拟合 α 与 B。
# > - 在对数坐标图上区分时延主导 (latency-bound) 与带宽主导 (bandwidth-bound) 两个区间，并算出分界载荷 S*。
# > - 逐项解释实测的每 rank 字节数与 `training_state_memory` 的差：填充 (padding)、复制的参数、分片副本、Adam 的 step 计数器。
# > - 说出模型没有计入的因素：启动开销、拷贝、争用、回环 (loopback) 与 NVLink / InfiniBand 的差别。
# > - 用 PyTorch 性能分析器 (profiler) 记录每个 rank 的一步，拆成计算、暴露与被掩盖的通信、等慢 rank、等输入，并与第 6 课的步时间线 (step timeline) 模型对照。
# > - 只凭数字诊断三种注入的故障（慢 rank、输入延迟、关闭重叠），并说出本机上 E(P) 下降的原因。
# >
# > **前置：** 第 1、2、6 课（显存账本、α-β 通信模型、步时间线）。

# %% [markdown] lang="en"
# # Lesson 8: Formula vs measurement
#
# [中文版](../zh/08_lab.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 7, compute efficiency](07_compute_efficiency.ipynb) · Next: [lesson 9, decision workbench](09_workbench.ipynb)
#
# > **Time:** about 100 min (teaching and reading 60 min, exercises 40 min; measuring again takes about 2 min)
# >
# > **Optional:** you may skip this lesson; lessons 9 and 10 do not build on it. By default it reads the course's
# > recorded run and needs no PyTorch; measuring again on your machine (`LIVE = True`) needs PyTorch
# > (`pip install -e ".[lab]"` in the course's folder).
# >
# > **Questions:**
# > - How far is lesson 2's ring alpha-beta model from real collectives, and where does it differ?
# > - How far is lesson 1's memory ledger from the bytes DDP, FSDP2 and tensor parallelism really hold? Can every byte be explained?
# > - Where does the time of a real training step go: compute, communication or waiting? When the scaling efficiency E(P) falls, how do we find the cause by measuring?
# >
# > **Objectives:**
# > - Measure six collectives with PyTorch, read nccl-tests' algbw and busbw, and fit α and B by least squares.
# > - Tell the latency-bound regime from the bandwidth-bound one on a log-log plot, and compute the crossover payload S*.
# > - Explain, item by item, how the measured bytes per rank differ from `training_state_memory`: padding, replicated parameters, the sharded copy, Adam's step counters.
# > - Name what the model leaves out: launch overhead, copies, contention, loopback versus NVLink / InfiniBand.
# > - Record one step on every rank with the PyTorch profiler, split it into compute, exposed and hidden communication, waiting for a slower rank and waiting for input, and set it next to lesson 6's step-timeline model.
# > - Diagnose three injected faults (a slow rank, an input delay, overlap turned off) from the numbers alone, and name why E(P) falls on this machine.
# >
# > **Prerequisites:** lessons 1, 2 and 6 (memory ledger, alpha-beta model, step timeline).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

import importlib.util

from IPython.display import Markdown, display

from coursekit.communication import (
    COLLECTIVE_NAMES,
    COLLECTIVES,
    bus_bandwidth_factor,
    collective_time_s,
)
from coursekit.exercises import check, reveal, show_solution, verify
from coursekit.exercises.lesson8 import MYSTERY_RUNS, use_run
from coursekit.i18n import Text, tr
from coursekit.lab import (
    TinyTransformerConfig,
    expected_adjustments,
    ledger_for,
    model_coefficients,
    parameter_layout,
    plot_measured_vs_predicted,
)
from coursekit.lab.plot import plot_step_lanes
from coursekit.lab.recorded import load_recorded, record_lesson
from coursekit.lab.timeline import efficiency_table_view
from coursekit.plotting import figure_image
from coursekit.units import GB_BYTES, GIB_BYTES, MIB_BYTES, MS_PER_S, US_PER_S

# zh: LIVE = False：读取随课程发布的录制结果（几秒）。
# zh: LIVE = True：在本机重新测量全部实验：
# zh: 先启动一次 PyTorch 进程，再用 1、2、4 个 rank 各启动一次
# zh: （在 2 个 CPU 核上约 2 分钟；
# zh: 需要 PyTorch：在课程文件夹中运行 pip install -e ".[lab]"）。
# zh: 等同于在终端运行：python -m coursekit.lab record --json my-run.json
# en: LIVE = False: read the run recorded with the course (seconds). LIVE = True:
# en: measure everything again on this machine, in one start of the PyTorch
# en: processes, then one each for 1, 2 and 4 ranks (about 2 minutes on 2 CPU cores;
# en: needs PyTorch: pip install -e ".[lab]" in the course's folder).
# en: The same as running in a terminal: python -m coursekit.lab record --json
# en: my-run.json
LIVE = False
RANKS = 2
MEASURE_NOW = LIVE and importlib.util.find_spec("torch") is not None
if LIVE and not MEASURE_NOW:
    print(
        Text(
            zh="没有安装 PyTorch（在课程文件夹中运行 "
            'pip install -e ".[lab]"），下面仍使用录制结果。',
            en='PyTorch is not installed (pip install -e ".[lab]" in the '
            'course\'s folder); the recorded run is used below.',
        )
    )
run = record_lesson(ranks=RANKS) if MEASURE_NOW else load_recorded()
# zh: 练习按这里显示的数据判分：
# zh: LIVE = True 时是你自己的测量，否则是录制结果。
# en: The exercises are judged against the run shown here: yours when LIVE = True,
# en: else the recording.
use_run(run)
print(
    Text(
        zh="实测数据："
        + ("刚刚在本机测得" if MEASURE_NOW else "随课程发布的录制结果"),
        en="Measurements: "
        + (
            "just taken on this machine"
            if MEASURE_NOW
            else "the run recorded with the course"
        ),
    )
)
print(run.where())

# %% [markdown] lang="zh"
# ## 1. 为什么要实测
#
# 前几课的每个数字都来自公式：第 1 课的容量账本 `training_state_memory`，第 2 课的环形模型 `collective_time_s`。
# 公式是**模型**：它们有意省略了一些东西，换来可以手算、可以比较的结论。这一课把公式和 PyTorch 的真实运行放在一起：
#
# 1. **集合通信实验**：在本机启动 2 个进程 (rank)，用 gloo 后端（PyTorch 在 CPU 上做集合通信的库；GPU 上对应的是 NVIDIA 的 NCCL，两者都在[术语表](glossary.ipynb)里）经回环地址 127.0.0.1 做六种集合通信，测量时间，拟合 α 与 B，再与 `collective_time_s` 的预测逐点比较。
# 2. **显存实验**：一个小型 Transformer 在 DDP、FSDP2 和张量并行 (TP) 下训练一步 Adam，数出每个 rank 实际持有的字节，和账本逐项对账。
# 3. **时间线实验**：用 PyTorch 性能分析器记录每个 rank 的几步训练，把一步拆成计算、通信和等待，再注入三种故障，看它们各自怎样出现在数字里。
#
# 默认情况下，下面的数字来自随课程发布的一次录制（2 核 CPU、gloo 后端），所以笔记本几秒就能跑完、每次结果相同；把第一个代码单元格里的 `LIVE` 改成 `True`，或在终端运行 `python -m coursekit.lab record --json my-run.json`，就会在你的机器上重新测量全部实验。
#
# 同一套代码也能在 GPU 集群上用 `torchrun` 运行（第 7 节）。本机上的数字只代表本机：我们要学的是**方法**——怎样让公式和实测互相检验。

# %% [markdown] lang="en"
# ## 1. Why measure
#
# Every number in the earlier lessons came from a formula: lesson 1's capacity ledger `training_state_memory`, lesson 2's ring model `collective_time_s`.
# Formulas are **models**: they leave things out on purpose, in exchange for conclusions we can compute by hand and compare. This lesson sets them next to real PyTorch runs:
#
# 1. **Collectives experiment**: start 2 processes (ranks) on this machine, run six collectives with the gloo backend (PyTorch's library for collectives on CPUs; on GPUs its counterpart is NVIDIA's NCCL, both in the [glossary](glossary.ipynb)) over the loopback address 127.0.0.1, time them, fit α and B, and compare every point with the prediction of `collective_time_s`.
# 2. **Memory experiment**: train a small Transformer for one Adam step under DDP, FSDP2 and tensor parallelism (TP), count the bytes each rank really holds, and reconcile them with the ledger item by item.
# 3. **Timeline experiment**: record a few training steps on every rank with the PyTorch profiler, split a step into compute, communication and waiting, then inject three faults and see how each shows up in the numbers.
#
# By default the numbers below come from a run recorded with the course (2 CPU cores, the gloo backend), so the notebook finishes in seconds and gives the same result every time. Set `LIVE` to `True` in the first code cell, or run `python -m coursekit.lab record --json my-run.json` in a terminal, to measure every experiment again on your machine.
#
# The same code runs on a GPU cluster under `torchrun` (section 7). The numbers on this machine describe only this machine: what we learn is the **method** — making formula and measurement check each other.

# %% [markdown] lang="zh"
# ## 2. 模型和它的两个参数
#
# 对 n 个 rank 上的一次集合通信，第 2 课的环形模型是
#
# $$t(S) = \text{steps}(n)\cdot\alpha + \text{factor}(n)\cdot\frac{S}{B}$$
#
# - $S$ 是 nccl-tests 的载荷定义：**完整缓冲区**的字节数（全归约 (all-reduce) 的张量、全收集 (all-gather) 的输出、归约散射 (reduce-scatter) 的输入、全对全 (all-to-all) 每个 rank 发出的全部数据、广播 (broadcast) 的张量、点对点收发 (send/recv) 的消息）。下面的表格和代码用 coursekit 的名字称呼它们：`all_reduce`、`all_gather`、`reduce_scatter`、`all_to_all`、`broadcast`、`send_recv`。
# - $\alpha$ 是环上每一步的固定开销（秒），$B$ 是**每个 rank 每个方向的带宽（单向）**（字节/秒），与第 0、2 课的约定相同：在 GPU 上就是每块 GPU 每个方向、它所有链路加在一起的带宽（H100 的 NVLink 标称 900 GB/s 是 18 条链路、两个方向之和，每个方向 450 GB/s）。
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
# - $S$ is nccl-tests' payload: the bytes of the **full buffer** (the all-reduced tensor, the gathered output of an all-gather, the input of a reduce-scatter, everything one rank sends in an all-to-all, the broadcast tensor, the message of a send/recv). The tables and the code below call them by coursekit's names: `all_reduce`, `all_gather`, `reduce_scatter`, `all_to_all`, `broadcast`, `send_recv`.
# - $\alpha$ is the fixed cost of one ring step (seconds) and $B$ the **bandwidth per rank, per direction (unidirectional)** (bytes per second), the convention of lessons 0 and 2: on GPUs it is per GPU and direction, all of its links together (the H100's quoted 900 GB/s of NVLink sums 18 links and both directions; 450 GB/s per direction).
# - steps and factor are in the table below (computed by `model_coefficients`, which reads lesson 2's `collective_cost`).
#
# nccl-tests reports two bandwidths: the **algorithm bandwidth** algbw = S / t and the **bus bandwidth** busbw = algbw × factor. busbw removes the difference in how much data each algorithm moves, so it can be compared with the link bandwidth B directly: at large payloads the busbw of different collectives should be close to one number.
#
# $t$ is **linear** in $\alpha$ and $1/B$, so the fit is a linear least-squares problem in two unknowns (`numpy.linalg.lstsq`). Each row is divided by its measured time, so we minimise the **relative** error — otherwise the millisecond points of large payloads would swamp the microsecond points of small ones and leave α to chance — and we require $\alpha \ge 0$ and $1/B \ge 0$.

# %%
rows = [
    str(
        Text(
            zh="| 集合通信 | steps(n) | factor(n) = busbw / algbw |",
            en="| collective | steps(n) | factor(n) = busbw / algbw |",
        )
    ),
    "| --- | --- | --- |",
]
for kind in COLLECTIVES:
    steps, factor = model_coefficients(kind, RANKS)
    rows.append(f"| {COLLECTIVE_NAMES[kind]} `{kind}` | {steps} | {factor:g} |")
display(Markdown(f"n = {RANKS}\n\n" + "\n".join(rows)))

# %% [markdown] lang="zh"
# ## 3. 实验 A：六种集合通信
#
# 测量时启动 2 个进程（Python 的 `multiprocessing` 以 spawn 方式启动，通信走一个空闲的回环端口，`MASTER_ADDR=127.0.0.1`），每个进程代表一个“设备”。对每种集合通信：
#
# 1. 先在已知张量上运行一次，检查每个 rank 的结果是否正确；
# 2. 对每个载荷先运行 `warmup` 次不计时，再运行 `repeats` 次，每次都在 barrier 之后立刻计时；
# 3. 每个 rank 取自己的中位数 (median)，报告**各 rank 中位数的最大值**——集合通信要等最慢的 rank 完成才算结束。
#
# 载荷从 1 KiB 翻倍到 4 MiB，在这台机器上同时覆盖两个区间。

# %% [markdown] lang="en"
# ## 3. Experiment A: six collectives
#
# The measurement starts 2 processes (Python's `multiprocessing`, spawn start method, talking over a free loopback port, `MASTER_ADDR=127.0.0.1`); each stands for one "device". For each collective it:
#
# 1. runs it once on known tensors and checks every rank's result;
# 2. for each payload, runs it `warmup` times untimed, then `repeats` times, each timed right after a barrier;
# 3. takes each rank's median and reports **the maximum over ranks of the medians** — a collective is finished only when its slowest rank is.
#
# Payloads double from 1 KiB to 4 MiB, which on this machine covers both regimes.

# %%
report = run.collectives
display(report.summary_view())

# %% [markdown] lang="zh"
# 逐点看一个集合通信：实测时间、algbw、busbw、用拟合出的 α 和 B 代入 `collective_time_s` 得到的预测，以及预测与实测之比。

# %% [markdown] lang="en"
# One collective point by point: the measured time, algbw, busbw, the prediction of `collective_time_s` with the fitted α and B, and the ratio of prediction to measurement.

# %%
display(report.detail_view("all_reduce"))

# %% [markdown] lang="zh"
# 下图是对数-对数坐标：点是实测，线是拟合后的公式。虚线是分界载荷 $S^* = \text{steps}\cdot\alpha\cdot B / \text{factor}$：左侧（着色）由时延主导，曲线几乎是平的；右侧由带宽主导，斜率趋近 1（载荷翻倍，时间翻倍）。

# %% [markdown] lang="en"
# The figure is log-log: dots are measurements, the line is the fitted formula. The dotted line is the crossover payload $S^* = \text{steps}\cdot\alpha\cdot B / \text{factor}$: to its left (shaded) latency dominates and the curve is nearly flat; to its right bandwidth dominates and the slope tends to 1 (twice the payload, twice the time).

# %%
display(figure_image(plot_measured_vs_predicted(report)))

# %% [markdown] lang="zh"
# ### 用实测检验模型的结构
#
# 拟合只是第一步。模型还做了可以直接检验的**结构性**预测：在环形算法里全归约 = 归约散射 + 全收集，所以大载荷下全归约的时间应约等于二者之和，约为全收集的 2 倍；不同集合通信的 busbw 应接近同一个链路带宽。下面用实测数字核对，并把拟合出的 B 与第 0 课 H100 NVLink 的单向 450 GB/s 相比。
#
# 如果比值离 2 很远（在这台机器的 gloo 上通常如此），说明后端并没有按模型里的环形算法执行全收集 / 归约散射：这时每种集合通信各自拟合出的 α 和 B 描述的是**实现**，而不是链路。这正是实测的价值——它检验的不只是参数，还有模型的结构。

# %% [markdown] lang="en"
# ### Testing the model's structure
#
# The fit is only a first step. The model also makes **structural** predictions we can test: in the ring algorithm all_reduce = reduce_scatter + all_gather, so at large payloads all_reduce should take about as long as the two together, about twice an all_gather; and the busbw of different collectives should be close to one link bandwidth. The cell checks this on the measured numbers, and sets the fitted B next to lesson 0's H100 NVLink figure of 450 GB/s one way.
#
# If the ratio is far from 2 (with gloo on this machine it usually is), the backend does not run all_gather / reduce_scatter as the model's ring: each collective's fitted α and B then describe the **implementation**, not the link. That is what measuring is for — it tests the model's structure, not only its parameters.

# %%
# zh: NVIDIA H100 SXM 数据手册：每块 GPU 的 NVLink 合计 900 GB/s（双向）
# zh: -> 单向 450 GB/s（第 0 课）。
# en: NVIDIA H100 SXM datasheet: 900 GB/s NVLink in total (both directions) per
# en: GPU -> 450 GB/s one way (lesson 0).
NVLINK_H100_BYTES_PER_S = 900 * GB_BYTES / 2
largest = {r.kind: r.points[-1] for r in report.results if r.points}
ar, ag, rs = (
    largest["all_reduce"],
    largest["all_gather"],
    largest["reduce_scatter"],
)
print(
    Text(
        zh=f"S = {ar.payload_bytes / MIB_BYTES:g} MiB：全归约 "
        f"{ar.time_s * US_PER_S:.0f} µs，"
        f"归约散射 + 全收集 {(rs.time_s + ag.time_s) * US_PER_S:.0f} µs，"
        f"全归约 / 全收集 = {ar.time_s / ag.time_s:.2f}（环形模型：2）",
        en=f"S = {ar.payload_bytes / MIB_BYTES:g} MiB: all_reduce "
        f"{ar.time_s * US_PER_S:.0f} µs, reduce_scatter + all_gather "
        f"{(rs.time_s + ag.time_s) * US_PER_S:.0f} µs, all_reduce / all_gather "
        f"= {ar.time_s / ag.time_s:.2f} (ring model: 2)",
    )
)
for kind, point in largest.items():
    # zh: dist.* 是 torch.distributed 的调用名
    # en: dist.* names the torch.distributed calls
    busbw_gib_s = point.busbw_bytes_per_s / GIB_BYTES
    print(
        Text(
            zh=f"  {COLLECTIVE_NAMES[kind]}（dist.{kind}）"
            f"的总线带宽 busbw：{busbw_gib_s:.2f} GiB/s",
            en=f"  busbw of {COLLECTIVE_NAMES[kind]} (dist.{kind}): "
            f"{busbw_gib_s:.2f} GiB/s",
        )
    )
fitted = report.result("all_reduce").fit
if fitted is not None and fitted.bandwidth_bytes_per_s is not None:
    ratio = NVLINK_H100_BYTES_PER_S / fitted.bandwidth_bytes_per_s
    print(
        Text(
            zh="拟合出的 B（全归约）= "
            f"{fitted.bandwidth_bytes_per_s / GIB_BYTES:.2f} GiB/s；"
            f"H100 NVLink 单向带宽是它的 {ratio:.0f} 倍",
            en="fitted B (all_reduce) = "
            f"{fitted.bandwidth_bytes_per_s / GIB_BYTES:.2f} GiB/s; "
            f"H100 NVLink one way is {ratio:.0f}x that",
        )
    )

# %% [markdown] lang="zh"
# ### 练习 8.1
#
# nccl-tests 在 8 个 rank 上做 S = 256 MiB 的全收集，耗时 4 ms。它报告的 busbw 是多少 GiB/s？

# %% [markdown] lang="en"
# ### Exercise 8.1
#
# nccl-tests runs an all_gather of S = 256 MiB over 8 ranks in 4 ms. What busbw does it report, in GiB/s?

# %% tags=["learner"]
answer = ...
check("lab.busbw_gib_s", answer)

# %% tags=["solution"]
# zh: 算法带宽 algbw = 256 MiB / 4 ms = 0.25 GiB / 0.004 s = 62.5 GiB/s；
# zh: 8 个 rank 上全收集的总线系数是 7/8。
# en: algbw = 256 MiB / 4 ms = 0.25 GiB / 0.004 s = 62.5 GiB/s; all_gather's bus
# en: factor over 8 ranks is 7/8.
answer = 62.5 * 7 / 8  # 54.6875 GiB/s
verify("lab.busbw_gib_s", answer)

# %% [markdown] lang="zh"
# ### 练习 8.2
#
# 在 2 个 rank 上拟合全归约得到 α = 50 µs（每步）、B = 1 GiB/s。载荷超过多少字节后带宽项大于时延项（分界载荷 S*）？

# %% [markdown] lang="en"
# ### Exercise 8.2
#
# A fit of all_reduce over 2 ranks gives α = 50 µs per step and B = 1 GiB/s. Above which payload, in bytes, is the bandwidth term larger than the latency term (the crossover S*)?

# %% tags=["learner"]
answer = ...
check("lab.crossover_bytes", answer)

# %% tags=["solution"]
# zh: n = 2 的全归约：步数 = 2(n-1) = 2，系数 = 2(n-1)/n = 1。
# zh: 令 2 · α = 1 · S / B：
# zh: S* = 2 · 50 µs · 2**30 字节/秒 = 107,374 字节（约 105 KiB）
# en: all_reduce over n = 2: steps = 2(n-1) = 2, factor = 2(n-1)/n = 1. Set
# en: 2 · α = 1 · S / B:
# en: S* = 2 · 50 µs · 2**30 B/s = 107,374 bytes (about 105 KiB)
answer = 2 * 50e-6 * 2**30
verify("lab.crossover_bytes", answer)

# %% [markdown] lang="zh"
# ## 4. 模型没有计入什么
#
# 预测/实测之比偏离 1 的地方，就是模型省略的东西在起作用：
#
# - **启动开销 (launch overhead)**：每次调用都要经过 Python、c10d 的调度、gloo 的工作线程交接；在 GPU 上还有 kernel 启动。这些都被拟合进了 α，所以本机的 α 远大于“线缆上的时延”。
# - **拷贝 (copies)**：gloo 在 CPU 上把数据拷进拷出发送缓冲区；全收集还要把各块拼成输出。回环上的“链路”本身就是经过内核 TCP 栈的内存拷贝，与计算争用同一份内存带宽。
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
tensors = len(parameter_layout(config))
print(
    Text(
        zh=f"{num_params:,} 个参数，分布在 {tensors} 个张量中",
        en=f"{num_params:,} parameters in {tensors} tensors",
    )
)
memory = run.memory
display(*memory.views())

# %% [markdown] lang="zh"
# 每张表的“未解释”一列都应当是 0：实测 = 账本 + 有名字的差额。逐项看这些差额：
#
# - **step 计数器**：PyTorch 的 Adam 为每个参数张量保留一个 float32 的 `step`，账本没有它——张量越多越明显，但和参数量相比很小。
# - **填充 (padding)**：FSDP2 沿第 0 维切分；分类头只有 5 行，2 个 rank 时每个 rank 都存 ceil(5/2) = 3 行。而 Adam 状态按**未填充**的本地分片分配，所以各 rank 的优化器字节略有不同（“分片不均”）。
# - **分片副本**：`reshard_after_forward=False` 时，全收集得到的完整参数从前向保留到反向，而 FSDP2 同时保留自己的分片参数（Adam 更新的那一份）。在前向与反向之间，每个 rank 约持有 1 + 1/n 份参数——2 个 rank 时比 DDP 还多。账本的 ZeRO-2 只算完整的一份。
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
header = Text(
    zh="| 策略 | rank | 实测合计（字节） | 账本合计（字节） | 实测 / 账本 |",
    en="| strategy | rank | measured total (B) | ledger total (B) | measured / "
    "ledger |",
)
rows = [str(header), "| --- | --- | --- | --- | --- |"]
for strategy in ("ddp", "fsdp2-zero3", "fsdp2-zero2", "tp"):
    if strategy in memory.skipped:
        continue
    worst = memory.largest_rank(strategy)
    total = worst.row("total")
    rows.append(
        f"| {strategy} | {worst.rank} | {total.measured_bytes:,} | "
        f"{total.ledger_bytes:,.0f} | "
        f"{total.measured_bytes / total.ledger_bytes:.3f} |"
    )
display(Markdown("\n".join(rows)))
losses = str(Text(zh="，", en=", ")).join(
    f"{k} {v:.6f}" for k, v in memory.losses.items()
)
print(
    Text(zh=f"第一步的损失：{losses}", en=f"losses of the first step: {losses}")
)

# %% [markdown] lang="zh"
# 四种策略的第一步损失相同：它们计算的是同一个模型（同样的权重、同样的批次），区别只在字节放在哪里。
#
# ### 练习 8.3
#
# 同一个模型在 **4 个** rank 上用 FSDP2（`reshard_after_forward=True`）。每个 rank 存的参数比账本的 4·N/4 字节多多少字节？先手算，再用 `expected_adjustments` 核对。

# %% [markdown] lang="en"
# The four strategies have the same first-step loss: they compute the same model (same weights, same batch); they differ only in where the bytes live.
#
# ### Exercise 8.3
#
# The same model on **4** ranks under FSDP2 (`reshard_after_forward=True`). How many bytes of parameters does each rank store beyond the ledger's 4·N/4? Work it out by hand first, then confirm with `expected_adjustments`.

# %% tags=["learner"]
answer = ...
check("lab.fsdp_padding_bytes", answer)

# %% tags=["solution"]
# zh: 只有分类头的第 0 维（5 行）不能被 4 整除：
# zh: 每个 rank 存 5 x 64 权重中的 ceil(5/4) = 2 行和 5 个偏置中的 2 个，
# zh: 共 2 · 64 + 2 = 130 个元素，而平均分摊是 (5 · 64 + 5) / 4 = 81.25。
# zh: 195 字节的 fp32 填充
# en: Only the head's dim 0 (5 rows) does not divide by 4: each rank stores
# en: ceil(5/4) = 2 rows of the 5 x 64 weight and 2 of the 5 biases,
# en: 2 · 64 + 2 = 130 elements, against an even share of (5 · 64 + 5) / 4 = 81.25.
# en: 195 bytes of fp32 padding
answer = (130 - 81.25) * 4
verify("lab.fsdp_padding_bytes", answer)

# %% [markdown] lang="zh"
# ### 练习 8.4
#
# 同一个模型在 4 个 rank 上做张量并行。每个 rank 的参数比账本的 4·N/4 字节多多少字节？

# %% [markdown] lang="en"
# ### Exercise 8.4
#
# The same model with tensor parallelism over 4 ranks. How many bytes of parameters beyond the ledger's 4·N/4 does each rank hold?

# %% tags=["learner"]
answer = ...
check("lab.tp_replicated_bytes", answer)

# %% tags=["solution"]
# zh: 每个块中复制的：ln1 和 ln2（各 2 · 64）以及 o 和 fc2 的偏置（各 64）
# zh: = 384；2 个块 = 768。
# zh: 分类头：它的 LayerNorm (128) 和分类器 (5 · 64 + 5 = 325) = 453。
# zh: 共 1,221 个参数。
# zh: 每个 rank 存全量，账本只算 1/4：多 3,663 字节
# en: Replicated per block: ln1 and ln2 (2 · 64 each) and the biases of o and fc2
# en: (64 each) = 384; 2 blocks = 768.
# en: The head: its LayerNorm (128) and the classifier (5 · 64 + 5 = 325) = 453. In
# en: all 1,221 parameters.
# en: each rank holds them whole where the ledger counts 1/4: 3,663 bytes more
answer = 1221 * (1 - 1 / 4) * 4
verify("lab.tp_replicated_bytes", answer)

# %% [markdown] lang="zh"
# ### 练习 8.5
#
# 2 个 rank、前向刚结束时，哪种策略在每个 rank 上持有最多的参数字节？从 `"ddp"`、`"fsdp2-zero3"`、`"fsdp2-zero2"`、`"tp"` 中选一个。

# %% [markdown] lang="en"
# ### Exercise 8.5
#
# With 2 ranks, right after the forward pass, which strategy holds the most parameter bytes per rank? Pick one of `"ddp"`, `"fsdp2-zero3"`, `"fsdp2-zero2"`, `"tp"`.

# %% tags=["learner"]
answer = ...
check("lab.most_param_bytes", answer)

# %% tags=["solution"]
# zh: n = 2 时前向之后每个 rank 上的参数份数：
# zh: DDP 1；ZeRO-3 1/2（重新分片）；TP 约 1/2；
# zh: ZeRO-2 保留聚合出的完整副本 (1) 和 FSDP2 自己的分片 (1/2)：
# zh: 1.5 份，最多。
# en: Copies of the parameters per rank after forward, with n = 2: DDP 1; ZeRO-3 1/2
# en: (resharded); TP about 1/2;
# en: ZeRO-2 keeps the gathered full copy (1) and FSDP2's own shard (1/2): 1.5
# en: copies, the most.
answer = "fsdp2-zero2"
verify("lab.most_param_bytes", answer)

# %% [markdown] lang="zh"
# ## 6. 实验 C：一个真实的训练步花在哪里
#
# 第 6 课把一步画成了**步时间线** (step timeline)：计算、暴露的通信、被计算掩盖的通信，以及等待（流水线气泡、输入、掉队者）。那是模型；这一节用 PyTorch 自带的性能分析器 `torch.profiler` 在每个 rank 上记录真实的几步，把同样的几项**量出来**。
#
# 录制用的命令是：
#
# ```bash
# python -m coursekit.lab timeline --ranks 2 --strategy ddp,fsdp,tp --steps 5 --slow-rank R --slow-factor 3 \
#     --input-delay-ms 20 --no-overlap --trace traces/
# ```
#
# 其中被放慢的 rank `R` 是练习 8.6 要你从数字里找出来的，它的参考解答里有完整的命令。它用比实验 B 稍大的同一种 Transformer（d_model = 128，d_ff = 512，序列 32，batch 8），每个 rank 只用 1 个线程（一个 rank 代表一个设备）。每种策略先跑两步热身（DDP 在第二步重建梯度桶，要多做一次集合通信），再在分析器下跑 5 步；每一步和其中的取数据部分都包在 `record_function` 区间里。每个 rank 导出一个 Chrome / Perfetto 追踪文件（`traces/ddp-baseline-rank0.json` 等），可以直接拖进 `chrome://tracing` 或 https://ui.perfetto.dev 查看。
#
# ### 6.1 怎样从追踪里读出一步
#
# 追踪是一串带时间戳的事件。我们只读其中几类：
#
# - **计算**：主线程上不是集合通信的 PyTorch 算子（`aten::mm`、`autograd::engine::...` 等）所占的时间；
# - **通信**：后端真正执行集合通信的区间（gloo 工作线程上的 `gloo:all_reduce`，或 GPU 上的 NCCL kernel），以及主线程上的 `c10d::` 集合通信算子；与计算重叠的部分是**被掩盖的通信**，其余是**暴露的通信**；
# - **等慢 rank**：第 k 次集合通信在每个 rank 上各有一个时长。最后到达的 rank 不用等任何人，所以各 rank 中**最短**的时长就是真正的传输，每个 rank 多出的部分就是它在等更慢的 rank。这个规则不需要各 rank 的时钟对齐，跨节点也成立；
# - **等输入**：步里取数据的区间；
# - **其他**：剩下的时间，即主线程在算子之间（Python、调度、分析器本身）。它被单独列出，而不是悄悄并入别的项。
#
# 这五项把一步完整地切开，所以加起来正好等于步时；我们还用一个独立的墙钟读数核对追踪里的步时。
#
# 下图是每种策略基线运行的第一步，每个 rank 一条：

# %% [markdown] lang="en"
# ## 6. Experiment C: where a real training step goes
#
# Lesson 6 drew a step as a **step timeline**: compute, exposed communication, communication hidden under compute, and waiting (the pipeline bubble, input, stragglers). That was a model; this section records a few real steps on every rank with PyTorch's own profiler, `torch.profiler`, and **measures** the same parts.
#
# The recording's command was:
#
# ```bash
# python -m coursekit.lab timeline --ranks 2 --strategy ddp,fsdp,tp --steps 5 --slow-rank R --slow-factor 3 \
#     --input-delay-ms 20 --no-overlap --trace traces/
# ```
#
# The slowed rank `R` is what exercise 8.6 asks you to find from the numbers; its worked solution has the full command. It uses a slightly larger version of experiment B's Transformer (d_model = 128, d_ff = 512, sequence 32, batch 8), with one thread per rank (one rank stands for one device). Each strategy runs two warm-up steps (DDP rebuilds its gradient buckets in its second step, with one more collective), then 5 steps under the profiler; every step and the input part of it sit inside `record_function` regions. Every rank exports one Chrome / Perfetto trace (`traces/ddp-baseline-rank0.json` and so on), which you can drop into `chrome://tracing` or https://ui.perfetto.dev.
#
# ### 6.1 Reading a step from the trace
#
# A trace is a list of timestamped events. We read only a few kinds:
#
# - **compute**: time of PyTorch operators on the main thread that are not collectives (`aten::mm`, `autograd::engine::...` and so on);
# - **communication**: the spans in which the backend really runs a collective (`gloo:all_reduce` on gloo's worker thread, or NCCL kernels on a GPU), and the `c10d::` collective operators on the main thread; the part overlapping compute is **hidden communication**, the rest **exposed communication**;
# - **waiting for a slower rank**: the k-th collective has one duration on every rank. The rank that arrives last waits for nobody, so the **shortest** duration over ranks is the real transfer, and each rank's excess is time spent waiting for a slower rank. The rule needs no agreement between the ranks' clocks, so it holds across nodes too;
# - **waiting for input**: the step's data-loading region;
# - **other**: the rest, the main thread between operators (Python, dispatch, the profiler itself). It is listed on its own, not folded quietly into another part.
#
# The five parts cut the step completely, so they add up to the step time exactly; the trace's step is also checked against an independent wall-clock reading.
#
# The figure shows the first step of each strategy's baseline run, one lane per rank:

# %%
timeline = run.timeline
baselines = [
    timeline.result(strategy, "baseline") for strategy in ("ddp", "fsdp", "tp")
]
display(figure_image(plot_step_lanes(baselines)))
for result in baselines:
    display(result.table_view(model=False, notes=result is baselines[0]))

# %% [markdown] lang="zh"
# 读图时注意三点：
#
# - **DDP** 的通信集中在反向的后半段：梯度按桶 (bucket) 在反向中就开始全归约，可以和剩下的反向计算重叠。这个模型只有约 1.6 MB 的梯度，DDP 默认的桶（25 MiB，第一个桶 1 MiB）只能装成两桶，都要到反向快结束时才凑满，什么也掩盖不了；所以实验里把桶设为 0.25 MiB（`bucket_cap_mb=0.25`），每步分 7 次全归约，前几次在反向还在计算时就已开始，这就是“被掩盖的通信”一列的来源。但对比“暴露的通信”和“被掩盖的通信”两列：在 CPU 上，gloo 的工作线程要和计算抢同一批核，能掩盖的有限。重叠需要空闲的硬件（GPU 上是独立的 NCCL 流和 NVLink），不是调度出来的。
# - **FSDP** 在每个 block 前都要全收集参数、在反向里对梯度做归约散射，通信次数多得多，且大多挡在计算前面。
# - **TP** 在每个 block 的前向和反向里都有同步的全归约，计算必须等它完成，所以几乎全部暴露。这正是第 3 课把 TP 留在节点内的原因。
#
# 即使没有注入任何故障，两个 rank 也会互相等待：它们和操作系统、其他进程共用 2 个核，偶尔被调度出去的 rank 就是一个临时的掉队者。

# %% [markdown] lang="en"
# Three things to notice:
#
# - **DDP** communicates in the second half of backward: gradients are all-reduced bucket by bucket while backward is still running, which can overlap the remaining backward compute. This model has only about 1.6 MB of gradients; DDP's default buckets (25 MiB, the first one 1 MiB) hold them in two, both full only near the end of backward, so nothing could hide. The experiment therefore sets 0.25 MiB buckets (`bucket_cap_mb=0.25`): 7 all-reduces per step, the first ones starting while backward still computes, which is where the "hidden comm" column comes from. But compare the "exposed comm" and "hidden comm" columns: on CPUs, gloo's worker threads compete with compute for the same cores, and only so much can hide. Overlap needs spare hardware (on a GPU, a separate NCCL stream and NVLink); it cannot be scheduled into existence.
# - **FSDP** all-gathers the parameters before every block and reduce-scatters gradients in backward: many more collectives, most of them in front of the compute that needs them.
# - **TP** has a synchronous all-reduce in the forward and the backward of every block; compute waits for it, so nearly all of it is exposed. This is why lesson 3 keeps TP inside a node.
#
# Even with nothing injected, the two ranks wait for each other: they share 2 cores with the operating system and other processes, and a rank that is scheduled out for a moment is a temporary straggler.

# %%
# zh: 核对上面的数字：时间线实验的模型约有 1.6 MB 的 fp32 梯度，
# zh: DDP 默认的桶（第一个 1 MiB，其余 25 MiB）
# zh: 把它装成两桶；
# zh: 录制的 DDP 基线按 0.25 MiB 的桶每步做 7 次全归约。
# en: Check the numbers above: the timeline model has about 1.6 MB of fp32
# en: gradients, which DDP's default buckets (the first 1 MiB, the rest 25 MiB) hold
# en: in two; the recorded DDP baseline makes 7 all-reduces per step with 0.25 MiB
# en: buckets.
timeline_config = TinyTransformerConfig(**timeline.config)
timeline_gradient_bytes = 4 * sum(
    spec.numel for spec in parameter_layout(timeline_config)
)
assert round(timeline_gradient_bytes / 1e6, 1) == 1.6
# zh: 超过第一个桶：装成两桶
# en: more than the first bucket: two buckets
assert MIB_BYTES < timeline_gradient_bytes <= MIB_BYTES + 25 * MIB_BYTES
if not MEASURE_NOW:
    assert len(timeline.result("ddp", "baseline").sample[0].collectives) == 7

# %% [markdown] lang="zh"
# ### 6.2 三种注入的故障：只看数字诊断
#
# 接着对同一个 DDP 任务各注入一种故障，每次只改一处：
#
# 1. **慢 rank**：被放慢的 rank R 每步前先额外做一段矩阵乘法，时长是它基线计算时间的 3 - 1 = 2 倍，所以它每步的计算时间变为基线的 3 倍；
# 2. **输入延迟**：每步取数据时多睡 20 ms（一个跟不上的数据加载器）；
# 3. **关闭重叠**：DDP 在前向和反向中都不再按桶通信（`no_sync`），反向结束后对全部梯度一次性做全归约。
#
# 下面先打印 6.1 节的 DDP 基线作对照，再打印这三次运行。它们叫 X、Y、Z（顺序与上面的列表无关），标题里不写注入的是哪一种，表中也没有模型预测。最后是 TP 的慢 rank 运行，同样不说明哪个 rank 被拖慢。先想一想：每种故障应当让哪一列、哪个 rank 的数字变大？然后做练习 8.6–8.9。6.3 节揭晓答案，并把实测与模型对照。

# %% [markdown] lang="en"
# ### 6.2 Three injected faults: diagnosis from the numbers alone
#
# Next, the same DDP job gets one fault at a time:
#
# 1. **a slow rank**: before every step, the slowed rank R does extra matrix multiplications lasting 3 - 1 = 2 times its baseline compute, so its compute per step becomes 3 times the baseline;
# 2. **an input delay**: every step sleeps 20 ms while loading its batch (a data loader that cannot keep up);
# 3. **overlap off**: DDP no longer communicates bucket by bucket (`no_sync` around forward and backward); it all-reduces every gradient in one call after backward.
#
# The cell first prints section 6.1's DDP baseline for comparison, then the three runs. They are called X, Y and Z (in no relation to the order of the list above); the titles do not say which fault each had, and the model's row is left out. Last comes the TP run with a slow rank, again without saying which rank was slowed. Think first: which column, and which rank's numbers, should each fault make larger? Then do exercises 8.6–8.9. Section 6.3 reveals the answers and sets the measurements against the model.

# %%
display(timeline.result("ddp", "baseline").table_view(model=False, notes=False))
# zh: 每次运行注入的是哪种故障，是练习 8.8 和 8.9 的问题
# en: which fault each run had is the question of exercises 8.8 and 8.9
for name, scenario in MYSTERY_RUNS.items():
    display(
        timeline.result("ddp", scenario).table_view(
            str(Text(zh=f"运行 {name}", en=f"run {name}")),
            model=False,
            notes=False,
        )
    )
display(
    timeline.result("tp", "slow_rank").table_view(
        str(Text(zh="注入了一个慢 rank", en="one rank slowed")),
        model=False,
        notes=False,
    )
)
injected = {
    scenario: timeline.result("ddp", scenario).scenario
    for scenario in MYSTERY_RUNS.values()
}
assert (
    injected["slow_rank"].slow_factor == 3
    and round(injected["input_delay"].input_delay_s * MS_PER_S) == 20
)

# %% [markdown] lang="zh"
# ### 练习 8.6
#
# 在 TP 的那次运行里，哪个 rank 是慢 rank？答 rank 的编号（整数）。

# %% [markdown] lang="en"
# ### Exercise 8.6
#
# In the TP run, which rank is the slow one? Answer its number (an integer).

# %% tags=["learner"]
answer = ...
check("lab.slow_rank", answer)

# %% tags=["solution"]
tp_slow = timeline.result("tp", "slow_rank").per_rank
# zh: 其他 rank 都在等的那个 rank
# en: the rank the others wait for
answer = min(tp_slow, key=lambda b: b.wait_slower_rank_s).rank
# zh: rank 编号在这里就定下来（默认参数）：
# zh: 后面的练习会给 answer 赋新值。
# en: The rank is fixed here (a default argument): later exercises assign answer
# en: again.
verify(
    "lab.slow_rank",
    answer,
    reveal=lambda slow=answer: print(
        Text(
            zh=f"录制用的完整命令（R 就是慢 rank {slow}）：",
            en=f"The full recording command (R is the slow rank, {slow}):",
        ),
        f"\npython -m coursekit.lab timeline --ranks {timeline.ranks}"
        " --strategy ddp,fsdp,tp --steps 5"
        f" --slow-rank {slow} --slow-factor 3 --input-delay-ms 20"
        " --no-overlap --trace traces/",
    ),
)

# %% [markdown] lang="zh"
# ### 练习 8.7
#
# 在 DDP 基线（上面第一张表，“实测（各 rank 平均）”一行）中，通信有多大比例是暴露的？答 0 到 1 之间的小数。

# %% [markdown] lang="en"
# ### Exercise 8.7
#
# In the DDP baseline (the first table above, the "measured (mean of ranks)" row), what share of the communication is exposed? Answer a fraction between 0 and 1.

# %% tags=["learner"]
answer = ...
check("lab.exposed_share", answer)

# %% tags=["solution"]
mean = timeline.result("ddp", "baseline").mean
answer = mean.exposed_communication_s / (
    mean.exposed_communication_s + mean.hidden_communication_s
)
verify("lab.exposed_share", answer)

# %% [markdown] lang="zh"
# ### 练习 8.8
#
# 运行 X、Y、Z 中，哪一个注入的是输入延迟？答 `"X"`、`"Y"` 或 `"Z"`。

# %% [markdown] lang="en"
# ### Exercise 8.8
#
# Which of runs X, Y and Z had the input delay? Answer `"X"`, `"Y"` or `"Z"`.

# %% tags=["learner"]
answer = ...
check("lab.input_delay_run", answer)

# %% tags=["solution"]
base = timeline.result("ddp", "baseline").mean.input_wait_s
answer = max(
    MYSTERY_RUNS,
    key=lambda name: (
        timeline.result("ddp", MYSTERY_RUNS[name]).mean.input_wait_s - base
    ),
)
verify("lab.input_delay_run", answer)

# %% [markdown] lang="zh"
# ### 练习 8.9
#
# 哪一个注入的是慢 rank？答 `"X"`、`"Y"` 或 `"Z"`。

# %% [markdown] lang="en"
# ### Exercise 8.9
#
# Which one had the slow rank? Answer `"X"`, `"Y"` or `"Z"`.

# %% tags=["learner"]
answer = ...
check("lab.straggler_run", answer)

# %% tags=["solution"]
base = timeline.result("ddp", "baseline").mean.wait_slower_rank_s
answer = max(
    MYSTERY_RUNS,
    key=lambda name: (
        timeline.result("ddp", MYSTERY_RUNS[name]).mean.wait_slower_rank_s
        - base
    ),
)
verify(
    "lab.straggler_run",
    answer,
    reveal=lambda: print(
        "\n".join(
            str(
                Text(
                    zh=f"运行 {name}（{label}）",
                    en=f"run {name}: {label}",
                )
            )
            for name, label in (
                (name, timeline.result("ddp", scenario).scenario.label())
                for name, scenario in MYSTERY_RUNS.items()
            )
        )
    ),
)

# %% [markdown] lang="zh"
# ### 6.3 揭晓：实测与模型
#
# 做完练习 8.6–8.9 再按下面单元格里的按钮：它打印三次运行带标题的表（也就揭晓了 X、Y、Z 各是哪种故障，以及慢 rank 的编号），并在每张表里加上“模型预测”一行。
#
# “模型预测”一行来自第 6 课的 `step_timeline`，输入取自**同一次运行的基线**：各 rank 的基线计算（计算 + 其他）、基线的通信量和被掩盖的比例，再加上注入的量（慢 rank 的计算乘以 3，输入等待 20 ms，关闭重叠时掩盖比例为 0）。模型的“等慢 rank”是 `load_imbalance_s`：各 rank 计算时间的最大值减平均值。

# %% [markdown] lang="en"
# ### 6.3 The answers: measured against the model
#
# Press the button in the cell below after exercises 8.6–8.9: it prints the three runs' tables under their titles (which reveals the fault each of X, Y and Z had, and the slow rank's number) and adds the model's row to each table.
#
# The "model" row comes from lesson 6's `step_timeline`, fed with the **baseline of the same run**: each rank's baseline compute (compute + other), the baseline's communication and the share of it hidden, plus the injected amounts (the slow rank's compute times 3, 20 ms of input wait, no hidden share without overlap). The model's "wait: slower rank" is `load_imbalance_s`: the maximum of the ranks' compute times minus their mean.


# %%
def show_injected_runs():
    for scenario in ("slow_rank", "input_delay", "no_overlap"):
        display(timeline.result("ddp", scenario).table_view(notes=False))
    for scenario in ("slow_rank", "input_delay", "no_overlap"):
        result = timeline.result("ddp", scenario)
        ratio = result.mean.step_s / result.predicted.step_s
        print(
            Text(
                zh=f"{result.scenario.label()}：实测步时 / 模型步时 = "
                f"{ratio:.2f}",
                en=f"{result.scenario.label()}: measured step / model step = "
                f"{ratio:.2f}",
            )
        )
    for scenario in ("baseline", "no_overlap"):
        result = timeline.result("ddp", scenario)
        mean, calls = result.mean, len(result.sample[0].collectives)
        print(
            Text(
                zh=f"{result.scenario.label()}：每步 {calls} 次全归约，"
                f"暴露的通信 {mean.exposed_communication_s * MS_PER_S:.2f} ms，"
                "被掩盖的通信 "
                f"{mean.hidden_communication_s * MS_PER_S:.2f} ms，"
                f"步时 {mean.step_s * MS_PER_S:.2f} ms",
                en=f"{result.scenario.label()}: all-reduce calls per step "
                f"{calls}, exposed comm "
                f"{mean.exposed_communication_s * MS_PER_S:.2f} ms, hidden "
                f"comm {mean.hidden_communication_s * MS_PER_S:.2f} ms, step "
                f"{mean.step_s * MS_PER_S:.2f} ms",
            )
        )
    display(
        figure_image(plot_step_lanes([timeline.result("ddp", "slow_rank")]))
    )


# zh: 这些表给出练习 8.6、8.8 和 8.9 的答案：
# zh: 按下按钮才显示。
# en: These tables give the answers of exercises 8.6, 8.8 and 8.9: they are shown
# en: when you press the button.
reveal(show_injected_runs)

# %% [markdown] lang="zh"
# 三点观察：
#
# - 慢 rank 和输入延迟都**以自己的样子**出现：前者让另一个 rank 的“等慢 rank”变长，而慢 rank 自己几乎不等；后者让“等输入”每步多出约 20 ms。
# - 关闭重叠本该表现为“暴露的通信变多”，但**在本机（2 个 CPU 核、gloo）上看不出来**：录制里恰恰相反，关闭重叠后暴露的通信和步时都变少了（见按下按钮后打印的“基线”与“关闭重叠”两行）。原因有二。其一，gloo 在 CPU 上通信本身就要占用 CPU，而 2 个核已被两个 rank 的计算占满，“被掩盖”的通信只是和计算轮流使用同一个核，计算随之变慢，步时省不下来。其二，按桶通信每步要做 7 次全归约，每次都付一次固定开销（第 3 节拟合的 α），还要等另一个 rank 到齐；一次性全归约只付一次。模型一行假设关闭重叠后通信时间不变、只是不再被掩盖，所以高估了这次运行的步时。在 GPU 上，NCCL 的通信由计算之外的硬件（NVLink、网卡、拷贝引擎）完成，按桶重叠才真正省时间；DDP 的桶大小 (`bucket_cap_mb`) 就是在“每次调用的固定开销”和“能重叠多少”之间取舍。
# - 实测步时与模型之比偏离 1 的地方，是模型不知道的东西：没有注入时“等慢 rank”也不为零，“其他”占一成左右，而别的进程占用 CPU 时计算本身也会变慢。模型把“其他”算作计算，把操作系统的调度噪声当作不存在。

# %% [markdown] lang="en"
# Three observations:
#
# - The slow rank and the input delay each show up **as themselves**: the first lengthens the other rank's "wait: slower rank" while the slow rank itself hardly waits; the second adds about 20 ms of "wait: input" per step.
# - Turning overlap off should show as more exposed communication, but **on this machine (2 CPU cores, gloo) it does not**: the recording shows the opposite, less exposed communication and a shorter step with overlap off (see the two lines the button prints for the baseline and for overlap off). There are two reasons. First, gloo's communication on CPUs needs the CPU itself, and the 2 cores are already busy with the two ranks' compute: "hidden" communication only takes turns with compute on the same core, compute slows down by as much, and the step saves nothing. Second, bucketed communication makes 7 all-reduces per step, each paying a fixed cost (the α fitted in section 3) and waiting for the other rank to arrive; one all-reduce after backward pays once. The model's row assumes the communication takes as long without overlap, only no longer hidden, so it overestimates this run's step. On a GPU, NCCL's communication runs on hardware other than the compute (NVLink, the NIC, copy engines), and bucketed overlap really saves time; DDP's bucket size (`bucket_cap_mb`) trades the fixed cost per call against how much can overlap.
# - Where the ratio of measured to model step strays from 1, something the model does not know is at work: "wait: slower rank" is not zero even with nothing injected, "other" is around a tenth of the step, and compute itself slows when other processes take the CPUs. The model counts "other" as compute and treats the operating system's scheduling noise as absent.

# %% [markdown] lang="zh"
# ### 6.4 本机上的扩展效率 E(P)
#
# 最后把 DDP 基线在 1、2、4 个 rank 上各跑一次（每个 rank 的 batch 固定，即弱扩展）。按第 6 课的定义，E(P) = 吞吐(P) / (P · 吞吐(1))；每个 rank 处理同样的 batch，所以 E(P) = 步时(1) / 步时(P)。表的最后一列把多出的步时拆到各项上，并指出涨得最多的那一项。

# %% [markdown] lang="en"
# ### 6.4 Scaling efficiency E(P) on this machine
#
# Last, the DDP baseline runs at 1, 2 and 4 ranks (a fixed batch per rank: weak scaling). By lesson 6's definition E(P) = throughput(P) / (P · throughput(1)); every rank processes the same batch, so E(P) = step(1) / step(P). The last column splits the extra step time into the parts and names the one that grew most.

# %%
points = run.efficiency()
# zh: E(P) 本身留给练习 8.10
# en: E(P) itself is exercise 8.10
display(efficiency_table_view(points, "ddp", with_efficiency=False))
for point in points[1:]:
    grown = str(Text(zh="，", en=", ")).join(
        f"{tr(f'lab.tl_part_{part}')} {value * MS_PER_S:+.1f} ms"
        for part, value in point.extra_s.items()
    )
    print(
        Text(zh=f"P = {point.ranks}：{grown}", en=f"P = {point.ranks}: {grown}")
    )

# %% [markdown] lang="zh"
# 怎样读最后一列的原因：
#
# - **暴露的通信**、**等慢 rank**：单个 rank 没有的开销，是并行本身的代价，第 2 课的通信账本和第 6 课的掉队者分析针对的就是它们。
# - **计算**：每个 rank 做的计算没有变（batch 固定），它变长只能是因为每个 rank 分到的硬件变少了——4 个 rank 挤在 2 个核上时每个 rank 只有半个核，本机上其他进程占用 CPU 时也一样。这不是并行策略的问题，而是弱扩展的前提（每个设备的算力不变）被打破了；在真实集群上对应的是同一节点上的进程争用 CPU、PCIe 或网卡。
# - **其他**：主机侧的开销（Python、调度）随 rank 数增加。
#
# 这就是第 6 课说的“E(P) 下降是症状，不是诊断”：同样的下降，原因可能是通信、等待或资源争用，只有拆开时间线才能分清。
#
# 还要记住：这份录制来自一台与其他程序共用 2 个核的机器，三个点是先后测的。如果中途机器上的其他负载变了，E(P) 甚至可能大于 1，或者每次重测都不一样——这时“计算”一列会告诉你：每个 rank 做的事没变，变的是它分到的 CPU。把 `LIVE` 改成 `True` 在你的机器上重测，对比两次的表。

# %% [markdown] lang="en"
# How to read the causes in the last column:
#
# - **exposed communication**, **wait: slower rank**: costs one rank does not have, the price of parallelism itself; lesson 2's communication ledger and lesson 6's straggler analysis are about them.
# - **compute**: each rank's work did not change (fixed batch), so it can only grow because each rank got less hardware — with 4 ranks on 2 cores each has half a core, and the same happens when other processes on this machine take the CPUs. That is not a fault of the parallel strategy but a broken premise of weak scaling (the same compute per device); on a real cluster the counterpart is processes of one node competing for CPUs, PCIe or NICs.
# - **other**: host-side overhead (Python, dispatch) growing with the number of ranks.
#
# This is what lesson 6 meant by "a falling E(P) is a symptom, not a diagnosis": the same drop may come from communication, waiting or contention, and only the timeline, taken apart, tells them apart.
#
# Remember too: this recording comes from a machine that shares its 2 cores with other programs, and the three points were measured one after another. If the other load changed in between, E(P) can even exceed 1, or differ every time you measure — the "compute" column then tells you so: each rank's work did not change, the CPU it got did. Set `LIVE` to `True` to measure again on your machine and compare the two tables.

# %% [markdown] lang="zh"
# ### 练习 8.10
#
# 用上表中 P = 1 和 P = 4 的步时，算出 E(4)。答 0 到 1 之间的小数（1 是理想扩展），不是百分数。

# %% [markdown] lang="en"
# ### Exercise 8.10
#
# From the steps at P = 1 and P = 4 in the table above, compute E(4). Answer with a fraction between 0 and 1 (1 is ideal
# scaling), not a percentage.

# %% tags=["learner"]
answer = ...
check("lab.efficiency_4", answer)

# %% tags=["solution"]
steps_s = {point.ranks: point.step_s for point in points}
# zh: 弱扩展下 E(P) = step(1) / step(P)
# en: E(P) = step(1) / step(P) under weak scaling
answer = steps_s[1] / steps_s[4]
verify(
    "lab.efficiency_4",
    answer,
    reveal=lambda: display(efficiency_table_view(points, "ddp")),
)

# %% [markdown] lang="zh"
# ## 7. 在真实集群上运行
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
# # 时间线：每个 rank 记录 CPU 与 CUDA 活动，计算取 GPU kernel，通信取 NCCL kernel
# torchrun --standalone --nproc-per-node 8 -m coursekit.lab timeline --strategy ddp,fsdp,tp --trace traces/
# ```
#
# 本机上则由命令自己启动进程：`python -m coursekit.lab collectives --ranks 4`、`python -m coursekit.lab memory --ranks 4`。rank 数默认不超过每个 CPU 核 2 个，确需更多要加 `--force`（上限 64）；`collectives` 的 `--max-bytes` 不能超过可用内存能容纳的大小。
#
# 在 GPU 上，时间线的“计算”取 GPU kernel 的区间，“通信”取 NCCL kernel；这条路径按 PyTorch 的追踪格式写好，但本课程只在 CPU（gloo）上实际运行过，请在有 GPU 的机器上先用小规模验证。
# `--json` 写出的文件里，每种集合通信都有 `alpha_s` 和 `bandwidth_bytes_per_s`，可以直接作为第 2 课 `collective_time_s` 的 `latency_s` 与 `bandwidth_bytes_per_s`，下面用本机的拟合结果演示。

# %% [markdown] lang="en"
# ## 7. Running on a real cluster
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
# # the timeline: every rank records CPU and CUDA activity; compute comes from GPU kernels, communication from NCCL kernels
# torchrun --standalone --nproc-per-node 8 -m coursekit.lab timeline --strategy ddp,fsdp,tp --trace traces/
# ```
#
# On one machine the command starts its own processes: `python -m coursekit.lab collectives --ranks 4`, `python -m coursekit.lab memory --ranks 4`. By default there are at most 2 ranks per CPU core; `--force` allows more (at most 64). `--max-bytes` of `collectives` may not exceed what the available memory holds.
#
# On a GPU, the timeline's compute comes from the GPU kernels' spans and its communication from the NCCL kernels; that path is written for PyTorch's trace format, but the course has run it only on CPUs (gloo): check it at a small scale on a GPU machine first.
# In the file `--json` writes, every collective has `alpha_s` and `bandwidth_bytes_per_s`, ready to be lesson 2's `latency_s` and `bandwidth_bytes_per_s` of `collective_time_s`; the cell shows it with this machine's fit.

# %%
# zh: --json 写出的内容，每种集合通信一项
# en: what --json writes, per collective
fits = report.to_json_dict()["collectives"]
entry = fits["all_reduce"]
if entry["bandwidth_bytes_per_s"] is not None:
    # zh: 本课模型的 fp32 梯度，DDP 每步全归约一次
    # en: fp32 gradients of the lab model, all-reduced once per step by DDP
    gradient_bytes = 4 * num_params
    seconds = collective_time_s(
        "all_reduce",
        payload_bytes=gradient_bytes,
        ranks=RANKS,
        bandwidth_bytes_per_s=entry["bandwidth_bytes_per_s"],
        latency_s=entry["alpha_s"],
    )
    print(
        Text(
            zh=f"本机上 {RANKS} 个 rank 对 {gradient_bytes:,} 字节的 DDP "
            f"梯度做全归约：预测 {seconds * US_PER_S:.0f} µs",
            en=f"DDP gradient all-reduce of {gradient_bytes:,} bytes over "
            f"{RANKS} ranks on this machine: {seconds * US_PER_S:.0f} µs "
            "predicted",
        )
    )

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 为什么拟合要最小化**相对**误差，而不是秒数的平方和？
# 2. 某次测量中，全归约的 busbw 在大载荷下只有全收集的一半。环形模型会怎样解释？你会先检查什么？
# 3. FSDP2 的 `reshard_after_forward=False` 比 `True` 快在哪里？它在显存上付出的代价出现在什么时刻？
# 4. 账本说 TP 把所有参数都切成 1/n。在本课的模型里，哪些参数没有被切？在真实的大模型里，这部分占比会变大还是变小？
# 5. 为什么“等慢 rank”要用同一次集合通信在各 rank 上的**最短**时长作为传输时间，而不是直接比较各 rank 的时间戳？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. Why does the fit minimise the **relative** error rather than the sum of squared seconds?
# 2. In one measurement, all_reduce's busbw at large payloads is only half of all_gather's. How would the ring model explain it, and what would you check first?
# 3. Where does FSDP2's `reshard_after_forward=False` save time compared with `True`? When does it pay for that in memory?
# 4. The ledger assumes TP splits every parameter 1/n. Which parameters of this lesson's model are not split? In a real large model, does their share grow or shrink?
# 5. Why does "waiting for a slower rank" take the **shortest** duration of one collective over the ranks as the transfer, rather than comparing the ranks' timestamps directly?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 小载荷只有几十到几百微秒，大载荷有几毫秒；按秒数拟合时，大载荷的一点点误差就会压过全部小载荷，α 几乎由噪声决定。除以实测时间后，每个点的权重相同，两个区间都能被拟合好。
# 2. 按 busbw 的定义，同一条链路上不同集合通信的 busbw 应当接近。全归约偏低说明它没有按“归约散射 + 全收集”的环形方式高效执行：可能是后端选了别的算法（例如树形或先归约再广播）、有额外的拷贝或归约计算成了瓶颈。先看载荷区间和后端实际用的算法与协议，再看 CPU / GPU 上的归约开销。
# 3. 它省掉了反向开始前对每一层参数的第二次全收集（前向收集到的完整参数一直保留到反向）。代价出现在前向结束到反向结束之间：每个 rank 同时持有完整参数和自己的分片，约 1 + 1/n 份参数。
# 4. LayerNorm 的权重与偏置、行切分层 (o、fc2) 的偏置，以及本例中未并行化的分类头。这些都是 O(d) 大小的向量（分类头是例外），而被切分的投影矩阵是 O(d²)；d 越大，复制部分的占比越小——但像词表嵌入 (embedding) 这样的大矩阵如果不切，就会成为大头。
# 5. 不同 rank（尤其不同节点）的时钟并不严格一致，直接比较时间戳会把时钟偏差当成等待。而最后到达的 rank 不需要等任何人，它测到的时长就是传输本身；其他 rank 多出的时长只能是在等它。代价是假设各 rank 的传输时间相同。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. Small payloads take tens to hundreds of microseconds, large ones several milliseconds; fitted in seconds, a small error on a large payload outweighs all the small payloads and α is decided by noise. Dividing by the measured time gives every point the same weight, so both regimes are fitted.
# 2. By its definition, busbw of different collectives over the same links should be close. A low all_reduce busbw says it did not run as an efficient ring "reduce_scatter + all_gather": the backend may have chosen another algorithm (a tree, or reduce then broadcast), or extra copies or the reduction arithmetic became the bottleneck. Check the payload range and the algorithm and protocol the backend really used first, then the reduction cost on the CPU / GPU.
# 3. It skips the second all-gather of every layer's parameters before backward (the full parameters gathered in forward stay until backward). The cost is between the end of forward and the end of backward: each rank holds the full parameters and its own shard, about 1 + 1/n copies.
# 4. The LayerNorm weights and biases, the biases of the row-wise layers (o, fc2) and, here, the classifier head, which is not parallelised. Apart from the head these are O(d) vectors while the sharded projections are O(d²); the larger d, the smaller the replicated share — but a large matrix left unsharded, such as a vocabulary embedding, would dominate.
# 5. The ranks' clocks (on different nodes especially) do not agree exactly, and comparing timestamps would count clock skew as waiting. The last rank to arrive waits for nobody, so its duration is the transfer itself; any extra duration on another rank can only be waiting for it. The price is assuming that the transfer takes the same time on every rank.

# %% [markdown] lang="zh"
# ### 动手试一试（可选）
#
# 把下一个单元格中的 `RANKS_TRY` 改成 4，在本机重新运行前两个实验（需要 PyTorch）：4 个 rank 挤在 2 个 CPU 核上，α 会怎样变化？`memory` 的表里哪些差额变了？再想一想：要把 DDP 的 `gradient_as_bucket_view` 改成 `False`，实测梯度字节会不会变？（提示：我们只数通过 `param.grad` 能到达的存储。）

# %% [markdown] lang="en"
# ### Try it (optional)
#
# Change `RANKS_TRY` in the next cell to 4 and run the first two experiments again on this machine (needs PyTorch): with 4 ranks squeezed onto 2 CPU cores, what happens to α? Which extras change in the `memory` tables? Then think: if DDP's `gradient_as_bucket_view` were `False`, would the measured gradient bytes change? (Hint: we count only storages reachable through `param.grad`.)

# %% tags=["learner"]
RANKS_TRY = 2
if RANKS_TRY != RANKS:
    from coursekit.lab import run_collectives, run_memory

    display(
        run_collectives(
            ranks=RANKS_TRY, max_bytes=4 * MIB_BYTES, repeats=10, warmup=3
        ).summary_view()
    )
    display(*run_memory(ranks=RANKS_TRY).views())

# %% [markdown] lang="zh"
# ## 要点
#
# - 环形模型 $t = \text{steps}\cdot\alpha + \text{factor}\cdot S/B$ 对 α 和 1/B 是线性的：用相对误差的非负最小二乘就能从实测中拟合出来。
# - algbw = S / t；busbw = algbw × factor，可以直接和链路带宽比较。
# - 小载荷由时延主导、大载荷由带宽主导，分界在 $S^* = \text{steps}\cdot\alpha\cdot B/\text{factor}$。
# - 拟合出的 α 包含了启动开销、拷贝和同步偏差；本机的数字不能搬到 NVLink / InfiniBand 上，要在目标硬件上按载荷区间重测。
# - 实测显存 = 账本 + 有名字的差额：FSDP2 的填充与不均匀分片、ZeRO-2 模式下前向到反向之间的分片副本、TP 中被复制的参数、Adam 的 step 计数器。
# - 性能分析器的追踪能把一步拆成计算、暴露 / 被掩盖的通信、等慢 rank、等输入和其他，各部分之和等于步时；等慢 rank 由同一次集合通信在各 rank 上的时长之差得到，不需要对齐时钟。
# - 注入的故障各自以自己的样子出现：慢 rank → 其他 rank 等它；输入延迟 → 等输入。关闭重叠在 GPU 上会让暴露的通信变多，在本机 2 个 CPU 核上却看不出来：gloo 的通信要和计算抢同一批核，按桶的多次调用又各付一次固定开销。
# - E(P) 下降要拆开时间线看原因：本机上暴露的通信、等慢 rank 和计算本身都在变长，计算变长是因为通信线程和其他进程与它争用同一批核。

# %% [markdown] lang="en"
# ## Key points
#
# - The ring model $t = \text{steps}\cdot\alpha + \text{factor}\cdot S/B$ is linear in α and 1/B: non-negative least squares on the relative error fits it from measurements.
# - algbw = S / t; busbw = algbw × factor, comparable with a link's bandwidth.
# - Small payloads are latency-bound, large ones bandwidth-bound; the crossover is $S^* = \text{steps}\cdot\alpha\cdot B/\text{factor}$.
# - A fitted α includes launch overhead, copies and synchronisation skew; this machine's numbers do not carry over to NVLink / InfiniBand — measure again on the target hardware, per payload range.
# - Measured memory = ledger + named extras: FSDP2's padding and uneven shards, the sharded copy between forward and backward in ZeRO-2 mode, TP's replicated parameters, Adam's step counters.
# - A profiler trace splits a step into compute, exposed / hidden communication, waiting for a slower rank, waiting for input and other, and the parts sum to the step; waiting for a slower rank comes from the differences between one collective's durations on the ranks, with no clock alignment.
# - Injected faults each show up as themselves: a slow rank → the others wait for it; an input delay → input wait. Overlap off adds exposed communication on GPUs but cannot be seen on this machine's 2 CPU cores: gloo's communication competes with compute for the same cores, and the bucketed calls each pay a fixed cost.
# - A falling E(P) needs the timeline taken apart: on this machine exposed communication, waiting for a slower rank and compute itself all grow; compute grows because communication threads and other processes compete with it for the same cores.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - **PyTorch 分布式文档**：[torch.distributed](https://pytorch.org/docs/stable/distributed.html)（进程组、gloo 与 NCCL 后端、
#   本课计时的各种集合通信）；多机启动用 [torchrun](https://pytorch.org/docs/stable/elastic/run.html)。
# - **FSDP2**：[torch.distributed.fsdp.fully_shard](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html)：
#   每个参数沿第 0 维分片，前向和反向之前全收集 (all-gather)，之后释放；本课的显存测量用的就是它。
# - **性能分析器**：[torch.profiler](https://pytorch.org/docs/stable/profiler.html)：本课把一步拆成计算、通信和等待所用的追踪。
# - **数据并行的重叠**：[DDP 设计说明](https://pytorch.org/docs/stable/notes/ddp.html)；S. Li et al.,
#   *PyTorch Distributed: Experiences on Accelerating Data Parallel Training*, VLDB 2020
#   （[arXiv:2006.15704](https://arxiv.org/abs/2006.15704)）：梯度分桶，以及反向计算与全归约的重叠。
# - **nccl-tests 的性能说明**（[PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)）：
#   算法带宽 algbw 与总线带宽 busbw 的定义，以及每种集合通信的总线带宽系数。

# %% [markdown] lang="en"
# ## Related reading
#
# - **PyTorch distributed documentation**: [torch.distributed](https://pytorch.org/docs/stable/distributed.html)
#   (process groups, the gloo and NCCL backends, the collectives this lesson times); launching on many machines with
#   [torchrun](https://pytorch.org/docs/stable/elastic/run.html).
# - **FSDP2**: [torch.distributed.fsdp.fully_shard](https://pytorch.org/docs/stable/distributed.fsdp.fully_shard.html):
#   each parameter is sharded along dim 0, all-gathered before forward and backward and freed after; this lesson's
#   memory measurement uses it.
# - **The profiler**: [torch.profiler](https://pytorch.org/docs/stable/profiler.html): the traces this lesson takes a
#   step apart with (compute, communication, waiting).
# - **Overlap in data parallelism**: the [DDP design note](https://pytorch.org/docs/stable/notes/ddp.html); S. Li et al.,
#   *PyTorch Distributed: Experiences on Accelerating Data Parallel Training*, VLDB 2020
#   ([arXiv:2006.15704](https://arxiv.org/abs/2006.15704)): gradient buckets, and overlapping the backward pass with the
#   all-reduce.
# - **nccl-tests' performance notes** ([PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)):
#   the definitions of algorithm bandwidth algbw and bus bandwidth busbw, and each collective's bus-bandwidth factor.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 本机拟合出的 α 与 B（全归约）：
# - 我的目标集群上需要重新测量的载荷区间：
# - 我的模型里 TP 不会切分的参数，以及它们的占比：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - α and B fitted on this machine (all_reduce):
# - The payload ranges I must measure again on my target cluster:
# - The parameters TP would not split in my model, and their share:

# %% [markdown] lang="zh"
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 7 课 计算效率](07_compute_efficiency.ipynb) · 下一课：[第 9 课 决策工作台](09_workbench.ipynb)

# %% [markdown] lang="en"
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 7, compute efficiency](07_compute_efficiency.ipynb) · next: [lesson 9, decision workbench](09_workbench.ipynb)
