# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 6 课：流水线气泡与扩展效率——时间花在了哪里
#
# [English version](../en/06_pipeline_scaling.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 5 课 场景选择矩阵](05_selection_matrix.ipynb) · 下一课：[第 7 课 计算效率](07_compute_efficiency.ipynb)
#
# > **时间：** 约 65 分钟（讲解与阅读 45 分钟，练习 20 分钟）
# >
# > **问题：**
# > - 流水线气泡 (pipeline bubble) 怎么算？1F1B 和交错调度各省了什么？
# > - 一步的时间线怎么画？扩展效率 (scaling efficiency) E(P) 下降时，说明了什么、没说明什么？
# > - 哪些因素只有测量才能确认？选择并行策略时有哪些常见误区？
# >
# > **目标：**
# > 1. 能用 (p-1)/(m+p-1) 计算朴素流水线的气泡，并区分它和 Megatron 的开销 (p-1)/m。
# > 2. 能为一个策略画出一步的时间线（计算、暴露的通信、等待），并从中读出 E(P)。
# > 3. 能识别掉队者 (straggler)、流水线气泡和小批次 (batch) 效率问题，说出至少三个必须靠测量确认的因素。
# >
# > **前置：** 第 2 课（通信账本）、第 5 课（选择矩阵）。

# %% [markdown] lang="en"
# # Lesson 6: Pipeline bubble and scaling efficiency — where the time goes
#
# [中文版](../zh/06_pipeline_scaling.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 5, selection matrix](05_selection_matrix.ipynb) · Next: [lesson 7, compute efficiency](07_compute_efficiency.ipynb)
#
# > **Time:** about 65 min (teaching and reading 45 min, exercises 20 min)
# >
# > **Questions:**
# > - How is the pipeline bubble computed? What do 1F1B and the interleaved schedule each save?
# > - How do you draw the timeline of one step? When the scaling efficiency E(P) falls, what does it tell us, and what not?
# > - Which factors only measurement settles? Which misconceptions are common when choosing a parallel strategy?
# >
# > **Objectives:**
# > 1. Compute the bubble of a simple pipeline with (p-1)/(m+p-1), and tell it from Megatron's overhead (p-1)/m.
# > 2. Draw the timeline of one step of a strategy (compute, exposed communication, waits) and read E(P) off it.
# > 3. Recognize stragglers, the pipeline bubble and small-batch efficiency problems, and name at least three factors only measurement settles.
# >
# > **Prerequisites:** lesson 2 (communication ledger), lesson 5 (selection matrix).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.capacity import (
    activation_memory,
    build_resource_ledger,
    training_state_memory,
)
from coursekit.communication import tp_traffic, traffic_time
from coursekit.exercises import check, check_entries, show_solution, verify
from coursekit.gates import check_pp_degree, check_tp_degree
from coursekit.hardware import link_preset
from coursekit.i18n import Text, tr
from coursekit.matrix import CASE_FITS_ONE_DEVICE, evaluate_paper_case
from coursekit.pipeline import (
    bubble_fraction,
    bubble_overhead,
    gantt_rows,
    simulate_schedule,
)
from coursekit.plotting import figure_image, label, new_figure
from coursekit.scaling import (
    diagnose_efficiency,
    load_imbalance_s,
    scaling_curve,
    scaling_efficiency,
    step_timeline,
)
from coursekit.units import MS_PER_S, bytes_to_gib
from coursekit.widgets.pipeline import PipelineWidget
from coursekit.widgets.scaling import ScalingWidget


def show_table(header, rows):
    """Display rows of cells as a Markdown table (presentation only; the numbers
    come from coursekit)."""
    lines = [
        "| " + " | ".join(str(cell) for cell in header) + " |",
        "|" + " --- |" * len(header),
    ]
    lines += [
        "| " + " | ".join(str(cell) for cell in row) + " |" for row in rows
    ]
    display(Markdown("\n".join(lines)))


# %% [markdown] lang="zh"
# ## 流水线气泡
#
# 朴素流水线在一步开始时要“灌满”、结束时要“排空”，这段时间里部分设备空闲。两种朴素调度：GPipe（Huang et al., 2019）
# 先做完全部 m 个微批次的前向，再做全部反向；1F1B（一前一后，PipeDream-Flush / Megatron-LM）灌满后每个阶段交替做一个前向、
# 一个反向。两者的气泡一样大，区别在要同时保存的激活份数（下面的小部件里可以切换）。
# 设每个设备处理一个微批次的前向加反向耗时为 $t$，理想时间是 $m\,t$，填充和排空多出 $(p-1)\,t$。
# 朴素调度的**气泡比例**（空闲占整步的比例）是
#
# $$\text{气泡比例} = \frac{p-1}{m+p-1}.$$
#
# Megatron-LM 论文报告的是另一个数：气泡时间相对**理想时间**的**开销** $\dfrac{p-1}{m}$（`bubble_overhead`）。
# 两者描述同一段空闲，只是分母不同：比例 = 开销 / (1 + 开销)。交错调度 (interleaved schedule) 让每个设备持有 $v$ 个
# 模型块 (model chunk)，开销缩小为 $\dfrac{p-1}{v\,m}$。
#
# ### 练习 6.1
#
# p = 4、m = 16 时，气泡比例是多少？答一个 0 到 1 之间的小数。

# %% [markdown] lang="en"
# ## The pipeline bubble
#
# A simple pipeline must fill at the start of a step and drain at the end, and during that time some devices sit
# idle. Two simple schedules: GPipe (Huang et al., 2019) runs the forward of all m micro-batches, then all backwards;
# 1F1B (one forward, one backward; PipeDream-Flush, Megatron-LM) alternates one forward with one backward on each
# stage once the pipeline is full. Their bubbles are equal; they differ in how many micro-batches' activations are
# kept at once (switch between them in the widget below). Let $t$ be the forward plus backward time of one micro-batch on one device: the ideal time is
# $m\,t$, and filling and draining add $(p-1)\,t$. The simple schedule's **bubble fraction** (the idle share of the whole step) is
#
# $$\text{bubble fraction} = \frac{p-1}{m+p-1}.$$
#
# The Megatron-LM paper reports another number: the bubble time as an **overhead** relative to the **ideal time**,
# $\dfrac{p-1}{m}$ (`bubble_overhead`). Both describe the same idle time over different denominators:
# fraction = overhead / (1 + overhead). The interleaved schedule gives each device $v$ model chunks and shrinks the
# overhead to $\dfrac{p-1}{v\,m}$.
#
# ### Exercise 6.1
#
# With p = 4 and m = 16, what is the bubble fraction? Answer a number between 0 and 1.

# %% tags=["learner"]
answer = ...
check("pipeline.bubble_p4_m16", answer)

# %% tags=["solution"]
answer = (4 - 1) / (16 + 4 - 1)  # (p-1)/(m+p-1) = 3/19
verify("pipeline.bubble_p4_m16", answer)

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
    schedules[microbatches] = simulated = simulate_schedule(
        stages, microbatches, schedule="1f1b"
    )
    rows.append(
        [
            stages,
            microbatches,
            f"{fraction:.1%}",
            f"{overhead:.1%}",
            f"{simulated.idle_fraction:.1%}",
            f"{simulated.makespan_s:g}",
        ]
    )
    # zh: 各阶段均衡：模拟 = 公式
    # en: balanced stages: simulation = formula
    assert abs(simulated.idle_fraction - fraction) < 1e-12
    # zh: 比例 = 开销 / (1 + 开销)
    # en: fraction = overhead / (1 + overhead)
    assert abs(overhead / (1 + overhead) - fraction) < 1e-12
show_table(
    [
        "p",
        "m",
        Text(zh="比例 (p-1)/(m+p-1)", en="fraction (p-1)/(m+p-1)"),
        Text(zh="开销 (p-1)/m", en="overhead (p-1)/m"),
        Text(zh="模拟空闲比例", en="simulated idle share"),
        Text(zh="一步时长 (s)", en="makespan (s)"),
    ],
    rows,
)
assert bubble_fraction(4, 4) > bubble_fraction(4, 16)

# %% [markdown] lang="zh"
# m = 4 时，开销 75% 意味着气泡时间是有效计算的四分之三；换成占整步的比例就是 42.9%。把 m 提到 16，
# 比例降到 15.8%。下面的甘特图 (Gantt chart) 由模拟器的 `gantt_rows` 画出：每行一个设备，蓝色是前向 F，橙色是反向 B，
# 灰色是空闲。

# %% [markdown] lang="en"
# With m = 4 an overhead of 75% means the bubble lasts three quarters of the useful work; as a share of the whole step
# it is 42.9%. Raising m to 16 brings the fraction down to 15.8%. The Gantt chart below is drawn from the simulator's
# `gantt_rows`: one row per device, forward F in blue, backward B in orange, idle in grey.

# %%
fig = new_figure(7.0, 3.6)
axes = fig.subplots(2, 1, sharex=True)
colours = {"F": "#4c72b0", "B": "#dd8452"}
for ax, microbatches in zip(axes, (4, 16)):
    schedule = schedules[microbatches]
    for row in gantt_rows(schedule):
        ax.broken_barh(
            [(0, schedule.makespan_s)],
            (row.stage - 0.4, 0.8),
            facecolors="#e6e6e6",
        )
        for phase, colour in colours.items():
            spans = [
                (bar.start_s, bar.duration_s)
                for bar in row.bars
                if bar.phase == phase
            ]
            ax.broken_barh(
                spans,
                (row.stage - 0.4, 0.8),
                facecolors=colour,
                edgecolors="white",
                linewidth=0.3,
            )
    ax.set_yticks(
        range(stages),
        labels=[label(row.label) for row in gantt_rows(schedule)],
        fontsize=7,
    )
    ax.set_ylim(stages - 0.5, -0.5)
    idle = label(
        Text(
            zh=f"空闲 {schedule.idle_fraction:.0%}",
            en=f"{schedule.idle_fraction:.0%} idle",
        )
    )
    ax.set_title(f"1F1B: p = {stages}, m = {microbatches}: {idle}", fontsize=9)
axes[-1].set_xlabel(label(Text(zh="时间 (s)", en="time (s)")))
figure_image(fig)

# %% [markdown] lang="zh"
# ### 动手：流水线调度小部件
#
# 拖动滑块、切换菜单，观察甘特图、它上方的结论行和它下方消息框里的数字如何变化：
#
# 1. 先把**微批次数 m** 从 8 拉到 16，再拉到 2：气泡比例怎样变？模拟值和公式一直一致吗？
# 2. 把**调度**从 1F1B 换成 GPipe：一步时长和气泡不变，但“在途微批次峰值”（要同时保存的激活份数）从 p 变成 m。
#    这就是 1F1B 的价值——省显存，而不是省气泡。
# 3. 选**交错 1F1B**：小部件自动把“每设备模型块数 v”设为 2（m 要是 p 的整数倍，否则小部件会说明要调哪个滑块）。
#    气泡缩小，代价是更多点对点传输；颜色越浅表示越靠后的模型块。切回 1F1B 或 GPipe 时 v 回到 1，滑块变灰。
# 4. 选一个**慢阶段**，把倍数调到 1.5：模拟的空闲比例超过公式——公式假设各阶段均衡，实际上最慢的阶段决定节奏。

# %% [markdown] lang="en"
# ### Hands on: the pipeline schedule widget
#
# Move the sliders and switch the menus; watch the Gantt chart, the result line above it and the numbers in the
# message box below it:
#
# 1. Move **micro-batches m** from 8 to 16, then down to 2: how does the bubble fraction change? Does the simulation
#    always agree with the formula?
# 2. Switch the **schedule** from 1F1B to GPipe: the makespan and the bubble stay, but the "peak in-flight
#    micro-batches" (activations held at once) go from p to m. That is what 1F1B buys: memory, not a smaller bubble.
# 3. Pick **interleaved 1F1B**: the widget sets "model chunks per device v" to 2 (m must be a multiple of p, otherwise
#    the widget says which slider to move). The bubble shrinks, at the price of more point-to-point transfers; lighter
#    colours are later model chunks. Switching back to 1F1B or GPipe returns v to 1 and greys its slider out.
# 4. Pick a **slow stage** and set its factor to 1.5: the simulated idle share exceeds the formula. The formula assumes
#    balanced stages; in reality the slowest stage sets the pace.

# %%
pipeline_widget = PipelineWidget(stages=4, microbatches=8)
pipeline_widget

# %% [markdown] lang="zh"
# ## 画一步的时间线
#
# 气泡只是一步里的一段等待。要判断一个策略慢在哪里，就把它的一步画成时间线：**计算、暴露的通信、等待**（气泡、输入、掉队者）
# 首尾相接，被计算掩盖的通信画在下面一条线上，不占时间。`coursekit.scaling.step_timeline` 就是这样把一步拆开的：
#
# $$\text{一步} = \text{计算} + \text{暴露的通信} + \text{气泡} + \text{输入等待} + \text{负载不均}.$$
#
# ### 练习 6.2：为一个 PP × DP 策略画时间线
#
# 流水线 p = 4 个阶段、m = 8 个微批次，每个阶段每个微批次前向加反向 30 ms（各阶段均衡）；
# 之后各 DP 副本做一次 60 ms 的梯度全归约，其中一半被计算掩盖。填出一个设备在这一步里的四个数（单位 ms）：
# 计算 `compute_ms`、气泡 `bubble_ms`、暴露的通信 `exposed_ms`、整步 `step_ms`。四个数都填好后，单元格会把你的时间线画出来。

# %% [markdown] lang="en"
# ## Draw the timeline of one step
#
# The bubble is only one wait inside a step. To judge where a strategy loses time, draw its step as a timeline:
# **compute, exposed communication and waits** (bubble, input, stragglers) end to end, with the communication hidden
# under compute on a lane below, costing no time. `coursekit.scaling.step_timeline` takes a step apart this way:
#
# $$\text{step} = \text{compute} + \text{exposed communication} + \text{bubble} + \text{input wait} + \text{load imbalance}.$$
#
# ### Exercise 6.2: draw the timeline of a PP × DP strategy
#
# A pipeline of p = 4 stages and m = 8 micro-batches, 30 ms of forward plus backward per micro-batch on each stage
# (balanced stages); then a 60 ms gradient all-reduce across the DP replicas, half of it hidden under compute. Fill in
# the four numbers of one device's step (ms): compute `compute_ms`, bubble `bubble_ms`, exposed communication
# `exposed_ms` and the whole step `step_ms`. Once all four are filled in, the cell draws your timeline.

# %%
timeline_colours = {
    "compute_ms": "#4c72b0",
    "exposed_ms": "#c44e52",
    "bubble_ms": "#cccccc",
}
timeline_labels = {
    "compute_ms": Text(zh="计算", en="compute"),
    "exposed_ms": Text(zh="暴露的通信", en="exposed communication"),
    "bubble_ms": Text(zh="等待：流水线气泡", en="wait: pipeline bubble"),
}


def draw_my_timeline(parts_ms):
    """Draw one step from the learner's numbers (compute, exposed communication,
    bubble), end to end."""
    fig = new_figure(7.0, 1.3)
    ax = fig.add_subplot()
    start = 0.0
    for key in ("compute_ms", "exposed_ms", "bubble_ms"):
        ax.barh(
            0,
            parts_ms[key],
            left=start,
            height=0.5,
            color=timeline_colours[key],
            label=label(timeline_labels[key]),
        )
        start += parts_ms[key]
    ax.axvline(
        parts_ms["step_ms"], color="black", linewidth=1.0, linestyle="--"
    )
    ax.set_yticks([])
    ax.set_xlabel(
        label(
            Text(
                zh="一步内的时间 (ms)；虚线是你填的整步时长",
                en="time within the step (ms); dashed: your step_ms",
            )
        )
    )
    ax.legend(
        fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False
    )
    return figure_image(fig)


# %% tags=["learner"]
my_timeline_ms = {
    "compute_ms": ...,
    "bubble_ms": ...,
    "exposed_ms": ...,
    "step_ms": ...,
}
parts = ("compute_ms", "bubble_ms", "exposed_ms", "step_ms")
check_entries(
    my_timeline_ms,
    {part: f"pipeline.timeline_{part}" for part in parts},
    name="my_timeline_ms",
    labels={part: part for part in parts},
)
# zh: 只画得出非负的时长：
# zh: 一段负的时间会和前一段重叠，图就误导人了
# en: only non-negative durations can be drawn: a negative one would overlap the
# en: part before it and mislead
values = [
    my_timeline_ms.get(part) if isinstance(my_timeline_ms, dict) else None
    for part in parts
]
if all(
    isinstance(value, (int, float)) and not isinstance(value, bool)
    for value in values
):
    if min(values) < 0:
        print(
            Text(
                zh="不画时间线：时长不能是负数。",
                en="No timeline drawn: a duration cannot be negative.",
            )
        )
    else:
        display(draw_my_timeline(my_timeline_ms))

# %% tags=["solution"]
t_ms = 30.0
my_timeline_ms = {
    # zh: 每个设备都要跑完全部 m = 8 个微批次
    # en: every device runs all m = 8 micro-batches
    "compute_ms": 8 * t_ms,
    # zh: 灌满和排空：(p-1) 个微批次的时间，是计算时间的 (p-1)/m = 3/8
    # en: fill and drain: (p-1) micro-batch times; (p-1)/m = 3/8 of the compute
    "bubble_ms": (4 - 1) * t_ms,
    # zh: 全归约中没有被计算掩盖的那一半
    # en: the half of the all-reduce not hidden under compute
    "exposed_ms": (1 - 0.5) * 60.0,
}
my_timeline_ms["step_ms"] = sum(my_timeline_ms.values())
for part, value in my_timeline_ms.items():
    verify(f"pipeline.timeline_{part}", value, label=part)

# %% [markdown] lang="zh"
# 气泡在这一步里占了多少？把 (p-1)/(m+p-1) 和你的时间线对照：流水线部分是计算加气泡，气泡占它的 3/11；
# 算上暴露的通信，占整步的比例更小。E(P) 也可以从时间线直接读出：只有计算那一段是“有用的”。

# %% [markdown] lang="en"
# How much of the step is bubble? Compare (p-1)/(m+p-1) with your timeline: the pipeline part is compute plus bubble,
# and the bubble is 3/11 of it; with the exposed communication added, its share of the whole step is smaller still.
# E(P) can be read off the timeline too: only the compute segment is "useful".

# %% [markdown] lang="zh"
# ## 扩展效率 E(P)
#
# $$E(P) = \frac{\text{吞吐}(P)}{P \cdot \text{吞吐}(1)}$$
#
# $E(P) = 1$ 是线性扩展。**$E(P)$ 下降并不自动说明策略错了**：原因可能是通信、负载不均、输入瓶颈或批大小限制。
# 要找到原因，必须把一步的时间线 (step timeline) 拆成**计算、通信、等待**三类。
#
# ### 练习 6.3
#
# 单设备吞吐为每秒 250 个样本，32 个设备吞吐为每秒 6800 个样本。E(32) 是多少？用小数作答（理想扩展为 1），不要写成百分数。

# %% [markdown] lang="en"
# ## Scaling efficiency E(P)
#
# $$E(P) = \frac{\text{throughput}(P)}{P \cdot \text{throughput}(1)}$$
#
# $E(P) = 1$ is linear scaling. **A falling $E(P)$ does not by itself mean the strategy is wrong**: the cause may be
# communication, load imbalance, an input bottleneck or a batch limit. To find it, take the step timeline apart into
# **compute, communication and waiting**.
#
# ### Exercise 6.3
#
# One device gives 250 samples/s and 32 devices give 6800 samples/s. What is E(32)? Answer with a fraction (1 is ideal
# scaling), not a percentage.

# %% tags=["learner"]
answer = ...
check("pipeline.efficiency", answer)

# %% tags=["solution"]
# zh: 吞吐(P) / (P * 吞吐(1))
# en: throughput(P) / (P * throughput(1))
answer = 6800.0 / (32 * 250.0)
verify("pipeline.efficiency", answer)

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
# zh: 一个设备每步的计算时间；只有一个设备时没有别的开销
# en: one device's compute per step; with one device there is nothing else
compute_s = 0.40
timelines = {
    "A": step_timeline(compute_s, 0.12, overlap_fraction=0.25),
    "B": step_timeline(
        compute_s, 0.12, overlap_fraction=1.0, input_wait_s=0.09
    ),
    "C": step_timeline(
        compute_s,
        0.12,
        overlap_fraction=1.0,
        load_imbalance_s=load_imbalance_s([0.40, 0.40, 0.40, 0.52]),
    ),
}
single_throughput = samples_per_device / compute_s
rows = []
for name, timeline in timelines.items():
    throughput = devices * samples_per_device / timeline.step_s
    efficiency = scaling_efficiency(throughput, devices, single_throughput)
    diagnosis = diagnose_efficiency(timeline)
    # zh: 两条路得到同一个 E(P)
    # en: two ways to E(P)
    assert abs(efficiency - diagnosis.compute_fraction) < 1e-12
    rows.append(
        [
            name,
            f"{timeline.step_s * MS_PER_S:.0f}",
            f"{efficiency:.2f}",
            tr(f"scaling.segment_{diagnosis.dominant}"),
            diagnosis.reason.message,
        ]
    )
show_table(
    [
        Text(zh="作业", en="Job"),
        Text(zh="一步 (ms)", en="step (ms)"),
        "E(32)",
        Text(zh="主因", en="dominant"),
        Text(zh="诊断", en="diagnosis"),
    ],
    rows,
)
assert [diagnose_efficiency(t).dominant for t in timelines.values()] == [
    "communication",
    "input",
    "load_imbalance",
]

segment_colours = {
    "compute": "#4c72b0",
    "hidden_communication": "#8fbc8f",
    "communication": "#c44e52",
    "input": "#937860",
    "load_imbalance": "#8172b3",
    "bubble": "#cccccc",
}
fig = new_figure(7.5, 2.4)
ax = fig.add_subplot()
seen = set()
for y, (name, timeline) in enumerate(timelines.items()):
    for segment in timeline.segments():
        lane = y + (0.22 if segment.kind == "hidden_communication" else -0.12)
        height = 0.2 if segment.kind == "hidden_communication" else 0.45
        ax.barh(
            lane,
            segment.duration_s * MS_PER_S,
            left=segment.start_s * MS_PER_S,
            height=height,
            color=segment_colours[segment.kind],
            label=None if segment.kind in seen else label(segment.label),
        )
        seen.add(segment.kind)
ax.set_yticks(range(len(timelines)), labels=list(timelines))
ax.set_ylim(len(timelines) - 0.4, -0.6)
ax.set_xlabel(
    label(Text(zh="一步内的时间 (ms)", en="time within one step (ms)"))
)
ax.legend(
    fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False
)
figure_image(fig)

# %% [markdown] lang="zh"
# ### 动手：扩展效率小部件
#
# 这个小部件画的是数据并行的弱扩展 (weak scaling)：每个设备的批次不变，每步做一次环形全归约。
#
# 1. 把**重叠比例**从 0 拉到 0.8：E(512) 怎样变？诊断里暴露的通信占一步时间的比例从多少降到多少？
#    （这个小部件只有计算和通信两项，诊断点名的总是暴露的通信，变的是它的占比。）
# 2. 把**带宽**从 50 GB/s（约一个 400 Gb/s 网卡）拉到 450 GB/s（约 H100 NVLink 单向）：跨节点和节点内差多少？
# 3. 把**每步计算时间**调小（相当于微批次变小）：同样的通信，E(P) 为什么更差？

# %% [markdown] lang="en"
# ### Hands on: the scaling-efficiency widget
#
# The widget draws weak scaling of data parallelism: each device keeps its batch, and every step ends with a ring
# all-reduce.
#
# 1. Move the **overlap** from 0 to 0.8: how does E(512) change? How much of the step does the diagnosis say the
#    exposed communication takes before and after? (The widget holds only compute and communication, so the diagnosis
#    always names exposed communication; what changes is its share.)
# 2. Move the **bandwidth** from 50 GB/s (about one 400 Gb/s NIC) to 450 GB/s (about one direction of H100 NVLink): how
#    far apart are across-node and inside-node?
# 3. Lower the **compute per step** (as with a smaller micro-batch): with the same communication, why does E(P) get
#    worse?

# %%
scaling_widget = ScalingWidget()
scaling_widget

# %% [markdown] lang="zh"
# ## 只有测量才能确认的因素
#
# 上面每个数字都来自模型。下面这些因素公式给不出，必须测：
#
# 1. **争用下实际达到的总线带宽 (bus bandwidth)**：厂商标称值、nccl-tests 测得值和训练中多个集合通信同时跑时的值，常常差很多。
# 2. **小微批次、小矩阵下的内核 (kernel) 效率**：TP 并行度 (parallel degree) 越大、微批次越小，
#    每个通用矩阵乘 (general matrix multiply, GEMM) 越小，算力利用率越低。
# 3. **掉队者与负载不均**：慢节点、降频、不均匀的阶段或数据长度不一，会让所有设备在同步点等待。
# 4. **输入流水线**：数据加载、解码、分词跟不上时，加卡只会加等待。
# 5. **实际达到的计算—通信重叠**：框架能不能把梯度同步或 FSDP 的全收集 (all-gather) 藏在计算之下，要看时间线。
# 6. **MoE 的路由均衡**：token 分到各专家是否均匀，决定专家并行的全对全 (all-to-all) 是否被最慢的专家拖住。
#
# 第 8 课（[公式与实测](08_lab.ipynb)）用 PyTorch 在 CPU 上实际测量集合通信和显存，把测得的数和本课的公式放在一起比。

# %% [markdown] lang="en"
# ## Factors only measurement settles
#
# Every number above comes from a model. These factors are beyond any formula and must be measured:
#
# 1. **Achieved bus bandwidth under contention**: the vendor's figure, the nccl-tests result and the value while
#    several collectives run at once during training often differ a lot.
# 2. **Kernel efficiency at small micro-batches and small matrices**: the larger the TP degree and the smaller the
#    micro-batch, the smaller each general matrix multiply (GEMM) and the lower the achieved FLOP rate.
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
# 只看 bf16 权重不到 1.5 GiB，好像随便放；加上优化器状态就是 11.3 GiB；再加上激活，2048 个 token 的上下文刚好放得下，
# 8192 个 token 时激活（注意力分数随序列长度平方增长）就远远超过 24 GiB。决定策略的是**训练状态 + 激活 + 上下文**，
# 不是参数量。

# %% [markdown] lang="en"
# ## Common misconceptions, with counter-examples
#
# ### Misconception 1: pick the strategy from the parameter count, ignoring optimizer state, activations and context
#
# Take one 760-million-parameter model (the shape of GPT-3 Large: 24 layers, hidden size 1536, 16 attention heads;
# Brown et al. 2020, Table 2.1). Its bf16 weights alone are under 1.5 GiB, as if it fit anywhere; with the optimizer
# state it is 11.3 GiB; with activations, a 2048-token context just fits, and at 8192 tokens the activations (attention
# scores grow with the square of the sequence) are far beyond 24 GiB. The **training state + activations + context**
# decide the strategy, not the parameter count.

# %%
# zh: GPT-3 Large（Brown 等 2020，表 2.1）：760M 参数，24 层，
# zh: d_model 1536，16 个头。
# en: GPT-3 Large (Brown et al. 2020, Table 2.1): 760M parameters, 24 layers,
# en: d_model 1536, 16 heads.
gpt3_large = dict(params=760e6, layers=24, hidden=1536, heads=16)
# zh: 第 1 课的设备显存和运行时预留
# en: lesson 1's device and runtime reserve
device_gib, reserve_gib = 24.0, 2.0
state = training_state_memory(gpt3_large["params"])
rows = [
    [
        Text(zh="只看 bf16 权重", en="bf16 weights only"),
        f"{state.params_gib:.2f}",
        "-",
    ],
    [
        Text(
            zh="完整训练状态（混合精度 Adam）",
            en="full training state (mixed-precision Adam)",
        ),
        f"{state.total_gib:.2f}",
        "-",
    ],
]
fits = {}
for seq_len in (2048, 8192):
    act_gib = bytes_to_gib(
        activation_memory(
            seq_len=seq_len,
            micro_batch=1,
            hidden=gpt3_large["hidden"],
            heads=gpt3_large["heads"],
            layers=gpt3_large["layers"],
        )
    )
    ledger = build_resource_ledger(
        state.total_gib, act_gib, reserve_gib, device_gib
    )
    fits[seq_len] = ledger.fits_one_device
    rows.append(
        [
            Text(
                zh=f"+ 激活，上下文 {seq_len} token",
                en=f"+ activations, context {seq_len} tokens",
            ),
            f"{ledger.required_gib:.2f}",
            ledger.explain(),
        ]
    )
show_table(
    [
        Text(zh="算什么", en="What is counted"),
        "GiB",
        Text(zh="容量账本", en="capacity ledger"),
    ],
    rows,
)
assert state.params_gib < 1.5 and fits == {2048: True, 8192: False}
# zh: 核对上文说的“11.3 GiB”
# en: check the "11.3 GiB" stated above
assert round(state.total_gib, 1) == 11.3  # 760e6 x 16 B / 2**30 = 11.32 GiB

# %% [markdown] lang="zh"
# ### 误区 2：TP 并行度越大越好
#
# TP 每层前向、反向各有 2 次全归约，次数与 TP 并行度无关，每次传的激活大小 (b·s·h) 也不变；而每个 rank 的计算量按 1/t 缩小。
# 于是 t 越大，通信在一步中的占比越高，矩阵也越小（内核效率下降）；t 超过每节点卡数时，TP 组还要跨节点，
# 通信时间成倍增加。下面是一个 32 层、隐藏维度 4096 的模型，上下文 2048，链路用 `coursekit.hardware` 的预设：
# 节点内按 H100 NVLink 单向 450 GB/s，跨节点按一块 400 Gb/s 网卡（单向 50 GB/s）计。

# %% [markdown] lang="en"
# ### Misconception 2: the larger the TP degree, the better
#
# TP runs 2 all-reduces per layer in forward and 2 in backward; their number does not depend on the TP degree, and
# each carries the same activation (b·s·h). Each rank's compute, meanwhile, shrinks as 1/t. So a larger t raises
# communication's share of the step and makes the matrices smaller (less efficient kernels); once t exceeds the GPUs per
# node, the TP group also crosses nodes and the communication time multiplies. Below: a 32-layer model with hidden
# size 4096 and a 2048-token context, on the link presets of `coursekit.hardware`: H100 NVLink at 450 GB/s one way
# inside a node and one 400 Gb/s NIC (50 GB/s each way) across nodes.

# %%
# zh: 节点内按 H100 NVLink，跨节点按 InfiniBand NDR
# en: H100 NVLink, InfiniBand NDR
intra_node, cross_node = link_preset("intra_node"), link_preset("cross_node")
model = dict(
    seq_len=2048,
    micro_batch=1,
    hidden=4096,
    layers=32,
    heads=32,
    gpus_per_node=8,
)
rows = []
times = {}
for tp in (2, 4, 8, 16):
    placement = check_tp_degree(tp, model["heads"], model["gpus_per_node"])
    link = intra_node if placement is None else cross_node
    entries = tp_traffic(
        seq_len=model["seq_len"],
        micro_batch=model["micro_batch"],
        hidden=model["hidden"],
        layers=model["layers"],
        tp=tp,
    )
    cost = traffic_time(
        entries,
        bandwidth_bytes_per_s=link.bandwidth_bytes_per_s,
        latency_s=link.latency_s,
    )
    times[tp] = cost.total_s
    rows.append(
        [
            tp,
            sum(e.calls_per_step for e in entries),
            f"{cost.total_s * MS_PER_S:.1f}",
            4 * model["hidden"] // tp,
            "-" if placement is None else placement.message,
        ]
    )
show_table(
    [
        "TP",
        Text(zh="每步集合通信次数", en="collectives per step"),
        Text(zh="通信时间 (ms)", en="communication (ms)"),
        Text(zh="每 rank 的 MLP 列数", en="MLP columns per rank"),
        Text(zh="拓扑检查", en="topology check"),
    ],
    rows,
)
assert times[2] < times[4] < times[8] < times[16]

# %% [markdown] lang="zh"
# ### 误区 3：PP 只看容量，不看阶段平衡和微批次气泡
#
# 同样 p = 4、m = 8，只要一个阶段的耗时是其他阶段的 1.5 倍（例如它分到的层更多），空闲比例就明显超过公式；
# 层数不能被阶段数整除时，`check_pp_degree` 会给出警告。微批次太少时，气泡本身就很大（见上面 m = 4 的 42.9%）。

# %% [markdown] lang="en"
# ### Misconception 3: judge PP by capacity only, ignoring stage balance and the micro-batch bubble
#
# With the same p = 4 and m = 8, one stage that takes 1.5× as long as the others (say it got more layers) pushes the idle share well
# above the formula; when the layers do not divide by the stage count, `check_pp_degree` warns. With too few
# micro-batches the bubble itself is large (42.9% at m = 4 above).

# %%
balanced = simulate_schedule(4, 8)
unbalanced = simulate_schedule(
    4,
    8,
    stage_forward_s=[1.0, 1.0, 1.5, 1.0],
    stage_backward_s=[2.0, 2.0, 3.0, 2.0],
)
print(
    Text(
        zh=f"均衡：空闲 {balanced.idle_fraction:.1%}（公式 "
        f"{bubble_fraction(4, 8):.1%}），一步 {balanced.makespan_s:g} s",
        en=f"balanced: {balanced.idle_fraction:.1%} idle (formula "
        f"{bubble_fraction(4, 8):.1%}), "
        f"makespan {balanced.makespan_s:g} s",
    )
)
print(
    Text(
        zh="设备 2 的耗时是其他设备的 1.5 倍：空闲 "
        f"{unbalanced.idle_fraction:.1%}，一步 {unbalanced.makespan_s:g} s",
        en="device 2 takes 1.5× as long as the others: "
        f"{unbalanced.idle_fraction:.1%} idle, makespan "
        f"{unbalanced.makespan_s:g} s",
    )
)
print(check_pp_degree(5, 24).message)
assert (
    unbalanced.idle_fraction > balanced.idle_fraction == bubble_fraction(4, 8)
)

# %% [markdown] lang="zh"
# ### 误区 4：用理论线性扩展承诺生产吞吐
#
# 一个 70 亿参数模型的 bf16 梯度约 14 GB。每步计算 1 s，跨节点单向 50 GB/s，一半通信被计算掩盖：
# 即使在这个只有环形全归约的理想模型里，64 卡也远达不到 64 倍；真实系统还要再扣掉掉队者、输入和争用。

# %% [markdown] lang="en"
# ### Misconception 4: promise production throughput from linear scaling
#
# A 7-billion-parameter model has about 14 GB of bf16 gradients. With 1 s of compute per step, 50 GB/s one way across
# nodes and half of the communication hidden under compute, even this ideal model with nothing but a ring all-reduce
# is far from
# 64× on 64 devices; a real system loses more to stragglers, input and contention.

# %%
curve = scaling_curve(
    [1, 8, 64],
    single_device_step_s=1.0,
    gradient_bytes=2 * 7e9,
    bandwidth_bytes_per_s=cross_node.bandwidth_bytes_per_s,
    overlap_fraction=0.5,
)
show_table(
    [
        "P",
        Text(zh="承诺的加速比", en="promised speed-up"),
        Text(zh="模型给出的加速比", en="modelled speed-up"),
        "E(P)",
    ],
    [
        [
            point.devices,
            point.devices,
            f"{point.speedup:.1f}",
            f"{point.efficiency:.2f}",
        ]
        for point in curve.points
    ],
)
assert curve.points[-1].efficiency < 0.9

# %% [markdown] lang="zh"
# ### 误区 5：混合并行堆叠越多越先进
#
# 复杂度本身就是成本。第 5 课案例 1 的模型单卡放得下：FSDP、TP、PP 的结论都是“不优先”，原因都是不需要：单卡已经放得下
# （下面的代码核对的原因码就是 `unneeded`）。它们会增加通信、气泡、检查点 (checkpoint) 格式和调试的负担，却换不来容量。

# %% [markdown] lang="en"
# ### Misconception 5: the more parallel dimensions stacked, the more advanced
#
# Complexity is itself a cost. The model of lesson 5's case 1 fits one device: the verdict on FSDP, TP and PP is "Not
# preferred", each because it is not needed: the model already fits one device (the reason code the cell below
# checks is `unneeded`). They would add communication, a bubble, checkpoint-format and debugging burden, and buy no
# capacity.

# %%
case1 = evaluate_paper_case(CASE_FITS_ONE_DEVICE, "hierarchical")
for verdict in case1.verdicts:
    print(
        Text(
            zh=f"{verdict.strategy} · {verdict.label}："
            f"{verdict.reasons[0].message}",
            en=f"{verdict.strategy} · {verdict.label}: "
            f"{verdict.reasons[0].message}",
        )
    )
assert [v.codes[0] for v in case1.verdicts[1:]] == [
    "unneeded",
    "unneeded",
    "unneeded",
]


# %% [markdown] lang="zh"
# ## 自检问题
#
# 1. PP 的气泡与哪些变量相关？
# 2. 1F1B 相比 GPipe 省的是什么？交错调度呢？
# 3. 三个作业的 E(32) 都约为 0.82，为什么不能据此说它们的并行策略一样好（或一样差）？

# %% [markdown] lang="en"
# ## Self-check questions
#
# 1. Which variables does the PP bubble depend on?
# 2. What does 1F1B save compared with GPipe? And the interleaved schedule?
# 3. Three jobs all have E(32) ≈ 0.82: why can't you conclude their parallel strategies are equally good (or bad)?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 阶段数 p、微批次数 m（比例 (p-1)/(m+p-1)），交错调度的模型块数 v（(p-1)/(v·m+p-1)）；
#    还有公式之外的阶段是否均衡（最慢的阶段决定节奏）和阶段间的传输时间。
# 2. 1F1B 的一步时长和气泡与 GPipe 相同，省的是显存：在途微批次峰值从 m 降到 p。交错调度让每个设备持有 v 个模型块，
#    把气泡的开销缩小到 (p-1)/(v·m)，代价是 v 倍的点对点传输，并要求 m 是 p 的整数倍。
# 3. E(P) 只是症状：A 是通信没被掩盖，B 是数据加载跟不上，C 是掉队者。要拆开一步的时间线才能找到原因；B 和 C 的处理与并行策略无关。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. The stage count p and the micro-batch count m (fraction (p-1)/(m+p-1)), the model chunks per device v of an
#    interleaved schedule ((p-1)/(v·m+p-1)); and, beyond the formula, whether the stages are balanced (the slowest
#    stage sets the pace) and the transfer time between stages.
# 2. 1F1B has GPipe's makespan and bubble; it saves memory: the peak in-flight micro-batches drop from m to p. The
#    interleaved schedule gives each device v model chunks and shrinks the bubble overhead to (p-1)/(v·m), at the price
#    of v times the point-to-point transfers, and m must be a multiple of p.
# 3. E(P) is a symptom: in A the communication is not hidden, in B the data loader cannot keep up, in C a straggler
#    holds everyone back. Only the step timeline tells them apart, and for B and C the fix has nothing to do with the
#    parallel strategy.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - **GPipe**：Huang et al., *GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism*, NeurIPS 2019
#   （[arXiv:1811.06965](https://arxiv.org/abs/1811.06965)）：微批次流水线与气泡。
# - **PipeDream / 1F1B**：Narayanan et al., *PipeDream: Generalized Pipeline Parallelism for DNN Training*, SOSP 2019
#   （[arXiv:1806.03377](https://arxiv.org/abs/1806.03377)）。
# - **Megatron-LM 的交错调度**：Narayanan et al., *Efficient Large-Scale Language Model Training on GPU Clusters Using
#   Megatron-LM*, SC 2021（[arXiv:2104.04473](https://arxiv.org/abs/2104.04473)）：开销 (p-1)/m 与 (p-1)/(v·m) 的出处。
# - **PyTorch 文档**：[torch.distributed.pipelining](https://pytorch.org/docs/stable/distributed.pipelining.html)（调度
#   `ScheduleGPipe`、`Schedule1F1B`、`ScheduleInterleaved1F1B`）；[分布式概览](https://pytorch.org/tutorials/beginner/dist_overview.html)。
# - **nccl-tests 的性能说明**（[PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)）：
#   algbw 与 busbw，测“争用下实际达到的带宽”时用得上。
# - **MIT 6.5840（分布式系统）** 的故障与复制主线：把训练工作进程 (worker)、协调和恢复看成会出故障的系统，而不只看正常情况下的吞吐。

# %% [markdown] lang="en"
# ## Related reading
#
# - **GPipe**: Huang et al., *GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism*,
#   NeurIPS 2019 ([arXiv:1811.06965](https://arxiv.org/abs/1811.06965)): micro-batch pipelining and the bubble.
# - **PipeDream / 1F1B**: Narayanan et al., *PipeDream: Generalized Pipeline Parallelism for DNN Training*, SOSP 2019
#   ([arXiv:1806.03377](https://arxiv.org/abs/1806.03377)).
# - **Megatron-LM's interleaved schedule**: Narayanan et al., *Efficient Large-Scale Language Model Training on GPU
#   Clusters Using Megatron-LM*, SC 2021 ([arXiv:2104.04473](https://arxiv.org/abs/2104.04473)): where the overheads
#   (p-1)/m and (p-1)/(v·m) come from.
# - **PyTorch documentation**: [torch.distributed.pipelining](https://pytorch.org/docs/stable/distributed.pipelining.html)
#   (the schedules `ScheduleGPipe`, `Schedule1F1B`, `ScheduleInterleaved1F1B`); the
#   [distributed overview](https://pytorch.org/tutorials/beginner/dist_overview.html).
# - **nccl-tests' performance notes** ([PERFORMANCE.md](https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md)):
#   algbw and busbw, for measuring the bandwidth actually reached under contention.
# - **MIT 6.5840 (Distributed Systems)**, its thread on failures and replication: see training workers, coordination
#   and recovery as a system that fails, not only as throughput in the good case.

# %% [markdown] lang="zh"
# ## 要点
#
# - 气泡比例 (p-1)/(m+p-1) 是占整步的份额，Megatron 的 (p-1)/m 是相对理想时间的开销；阶段不均衡时实际更差。
# - 1F1B 省的是显存（在途微批次从 m 降到 p），不是气泡；交错调度用 v 倍的点对点传输换更小的气泡。
# - 一步 = 计算 + 暴露的通信 + 等待（气泡、输入、掉队者）；被掩盖的通信不占时间。
# - E(P) 下降是症状不是诊断：拆开时间线，看是通信、气泡、输入还是掉队者；其中好几项只能靠测量确认（第 8 课）。
# - 决定策略的是训练状态 + 激活 + 上下文，不是参数量；理论线性扩展不能拿来承诺生产吞吐；复杂度本身是成本。

# %% [markdown] lang="en"
# ## Key points
#
# - The bubble fraction (p-1)/(m+p-1) is a share of the whole step; Megatron's (p-1)/m is the overhead relative to the ideal time; unbalanced stages make it worse.
# - 1F1B saves memory (in-flight micro-batches drop from m to p), not bubble; the interleaved schedule trades v times the point-to-point transfers for a smaller bubble.
# - step = compute + exposed communication + waits (bubble, input, stragglers); hidden communication costs no time.
# - A falling E(P) is a symptom, not a diagnosis: take the timeline apart into communication, bubble, input and stragglers; several of them only measurement can confirm (lesson 8).
# - The training state + activations + context decide the strategy, not the parameter count; linear scaling is no basis for promising production throughput; complexity is itself a cost.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 一次气泡计算：
# - 我画的一步时间线，最大的开销是：
# - 最重要的未测因素：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - One bubble calculation:
# - The timeline I drew; its largest overhead:
# - The most important factor not yet measured:

# %% [markdown] lang="zh"
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 5 课 场景选择矩阵](05_selection_matrix.ipynb) · 下一课：[第 7 课 计算效率](07_compute_efficiency.ipynb)

# %% [markdown] lang="en"
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 5, selection matrix](05_selection_matrix.ipynb) · next: [lesson 7, compute efficiency](07_compute_efficiency.ipynb)
