# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 9 课：决策工作台
#
# [English version](../en/09_workbench.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 8 课 公式与实测](08_lab.ipynb) · 下一课：[第 10 课 推理服务](10_serving.ipynb)
#
# > **时间：** 约 175 分钟（讲解与阅读 160 分钟，练习 15 分钟）
# >
# > **问题：**
# > - 前几课的方法——登记约束、用硬门槛排除并写明原因、检查组合、最后才估算——能不能用在一整个搜索空间上？
# > - 一个集群上到底有多少种并行组合？它们分别因为什么被排除？
# > - “最快的组合”这句话依赖哪些假设？假设一变，结论怎么变？
# >
# > **目标：**
# > - 用 `ModelSpec`、`ClusterSpec`、`WorkloadSpec` 登记约束，用 `coursekit.plan` 搜索全部组合。
# > - 读懂漏斗 (funnel)：每道门槛按顺序排除了多少候选；用 `explain` 说出任意一个组合被拒绝的原因。
# > - 读懂通过候选的账本：每 rank 显存、每个维度的通信（在哪条链路上）、气泡和估算步时的分解。
# > - 做三个假设分析 (what-if)：跨节点链路变慢、上下文变长、模型变成 MoE，并说明结论依赖哪些假设。
# > - 用已发表的大规模训练对照估算：哪些层布局被接受、排第几、估算与实测差多少，差在哪里。
# > - 说明为什么节点内 TP = 8 是常见选择，估算漏掉了什么，以及怎样读“并列组”。
# >
# > **前置：** 第 1 课的显存账本、第 2 课的通信账本（每个维度走哪条链路）、第 3 课的硬门槛、第 4 课的组合检查、
# > 第 6 课的流水线气泡与扩展效率 E(P)、第 7 课的计算效率（屋顶线与 MFU）；第 5 课的选择矩阵是本课搜索的
# > 手工版本。第 8 课不是必需的（本课提到它时，只是说估算要靠测量来核对）。

# %% [markdown] lang="en"
# # Lesson 9: The decision workbench
#
# [中文版](../zh/09_workbench.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 8, formula vs measurement](08_lab.ipynb) · Next: [lesson 10, serving](10_serving.ipynb)
#
# > **Time:** about 175 min (teaching and reading 160 min, exercises 15 min)
# >
# > **Questions:**
# > - Can the course's method — register constraints, exclude by hard gates with reasons, check the composition,
# >   estimate only at the end — be applied to a whole search space?
# > - How many parallel compositions does one cluster admit, and why is each one excluded?
# > - Which assumptions does "the fastest composition" rest on, and how does the answer move when they do?
# >
# > **Objectives:**
# > - Register constraints with `ModelSpec`, `ClusterSpec` and `WorkloadSpec`, and search every composition with
# >   `coursekit.plan`.
# > - Read the funnel (how many candidates each gate removed, in order), and use `explain` to say why any one
# >   composition was rejected.
# > - Read an accepted candidate's ledgers: memory per rank, communication per dimension (and on which link), bubble and
# >   the breakdown of the estimated step time.
# > - Run three what-ifs — a slower link between nodes, a longer context, an MoE model — and name the assumptions the
# >   answer depends on.
# > - Check the estimate against published large-scale runs: which layouts it accepts, where it ranks them, how far
# >   the estimate is from the measurement, and why.
# > - Explain why TP = 8 inside a node is the usual choice, what the estimate leaves out, and how to read tie groups.
# >
# > **Prerequisites:** lesson 1's memory ledger, lesson 2's communication ledger (which link each dimension uses),
# > lesson 3's hard gates, lesson 4's composition checks, lesson 6's pipeline bubble and scaling efficiency E(P),
# > lesson 7's compute efficiency (the roofline and MFU); lesson 5's selection matrix is this lesson's search done by
# > hand. Lesson 8 is not needed (where this lesson mentions it, it only says an estimate is checked by measuring).

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from dataclasses import replace

from IPython.display import Markdown, display

from coursekit.exercises import check, show_solution, verify
from coursekit.i18n import Text
from coursekit.planner import (
    EFFICIENCY_CEILING,
    MODEL_UNCERTAINTY,
    OVERLAP_DEFAULTS,
    PLAN_GATES,
    WorkloadSpec,
    compare_published,
    cp_speedups,
    fp8_speedups,
    layout_pairs,
    megatron_core_flops_per_step,
    megatron_core_model_flops_per_step,
    megatron_paper_flops_per_step,
    param_part_name,
    plan,
    published_degrees,
    ring_nics,
    what_if,
)
from coursekit.planner.calibration import (
    ATTENTION_RELATIVE_RATE,
    CAUSAL_EXECUTED_SHARE,
    EFFICIENCY_CEILING,
    EFFICIENCY_RELATIVE_CEILING,
    FLASH_ATTENTION_H100_TFLOPS,
    FP8_FIT_RUNS,
    FP8_MATMUL_SHARE,
    MEASUREMENT_REPEATABILITY,
    MOE_HOST_FIT_RUNS,
    MOE_LAYER_HOST_S,
    REMEASURED_RUNS,
    attention_rate_at,
    ceiling_for,
    matmul_fraction,
)
from coursekit.planner.estimate import (
    fp8_quantisation_bytes_per_token,
    moe_block_recompute_flops_per_token,
)
from coursekit.plotting import figure_image, new_figure
from coursekit.presets import CLUSTERS, MEGATRON_TABLE1, MODELS
from coursekit.specs import FP8_RECIPES, PRECISION_RECIPES, RECOMPUTE_MODES
from coursekit.published_runs import (
    MEGATRON_BRIDGE_2511_SOURCE,
    NEMO_2407_LORA_RUNS,
    MOE_ZOO_QWEN3_LONG_RUNS,
    NEMO_2407_SOURCE,
    NEMO_LONG_CONTEXT_RUNS,
    MOE_ZOO_QWEN3_RUNS,
    PUBLISHED_RUNS_2024,
    RUN_ROLES,
    all_published_runs,
    citation_lines,
)
from coursekit.units import estimate_seconds_text
from coursekit.widgets import breakable_code
from coursekit.widgets.workbench import (
    LORA_OPTIONS,
    WorkbenchWidget,
    breakdown_chart,
    funnel_chart,
)


def md_table(header, rows):
    """Show rows as a Markdown table, its cells in the current language."""
    lines = [
        "| " + " | ".join(str(h) for h in header) + " |",
        "|" + " --- |" * len(header),
    ]
    lines += [
        "| " + " | ".join(str(cell) for cell in row) + " |" for row in rows
    ]
    display(Markdown("\n".join(lines)))


# %% [markdown] lang="zh"
# ## 1. 登记约束：模型、集群、工作负载
#
# 计算器类工具（如 Calculon、llm-analysis）会估算或搜索，然后交给你一个“最佳配置”，却不说其他配置为什么输了。
# 本课把前几课的方法用在整个搜索空间上：**先登记约束**，再按门槛排除并写明原因，检查组合，最后只对留下的候选估算。
#
# 第一步是把约束写成三个不可变的数据对象。`ModelSpec` 记录模型的形状，参数量由形状算出（不是抄来的数字）；
# 下面的账本按部件列出 Llama-3 70B 的参数，并与 Llama 3 论文（arXiv 2407.21783）给出的“70B”对照。

# %% [markdown] lang="en"
# ## 1. Register the constraints: model, cluster, workload
#
# Calculator tools (Calculon, llm-analysis, ...) estimate or search and hand you "the best configuration" without saying
# why the others lost. This lesson applies the method of lessons 1-6 to a whole search space: **register the
# constraints first**, exclude by gates with reasons, check the composition, and estimate only what is left.
#
# Step one writes the constraints as three immutable data objects. `ModelSpec` records the model's shape, and the
# parameter count is computed from it (not copied). The ledger below lists Llama-3 70B's parameters by part and sets the
# total next to the "70B" of the Llama 3 paper (arXiv 2407.21783).

# %%
model = MODELS["llama3-70b"]
ledger = model.param_ledger()
md_table(
    [
        Text(zh="部件", en="part"),
        Text(zh="参数（十亿）", en="parameters (billion)"),
    ],
    [
        (param_part_name(part), f"{count / 1e9:.3f}")
        for part, count in ledger.items()
    ]
    + [(Text(zh="合计", en="total"), f"{model.num_params / 1e9:.2f}")],
)
# zh: 与论文的 70B 相差不到 1%
# en: the paper's 70B, within 1 %
assert abs(model.num_params / 70e9 - 1) < 0.01

# %% [markdown] lang="zh"
# `ClusterSpec` 记录设备与两种链路。带宽一律是**每 GPU 的单向带宽**：NVLink 4 的 900 GB/s 是双向之和，单向是 450 GB/s；
# 每节点 8 个 400 Gb/s NDR 网卡，即每 GPU 50 GB/s。`WorkloadSpec` 记录要做的事（训练还是服务、全局批大小 (global batch)、序列长度、
# 精度方案）和估算所依赖的假设：计算效率默认由每个 GPU 的矩阵乘形状在屋顶线上估出（第 7 课），
# 也可以改成一个固定的可达峰值比例；通信重叠按维度给默认值（下表），每一项都可以改。精度方案默认是 bf16 参数与梯度、
# fp32 主参数与 Adam 状态（每参数 2 + 2 + 12 字节；下表把它叫作 `zero-fp16-adam`，名字里的 fp16 泛指 16 位，bf16 也算，
# 见第 1 课），这是 NVIDIA 性能脚本（它公开的性能表背后的配置）的设置；
# Megatron-LM 自己的训练脚本开 bf16 时把梯度留在 fp32 累加和归约（`recipe="megatron-bf16"`，2 + 4 + 12 字节），
# 复现这样的配置时要写明。

# %% [markdown] lang="en"
# `ClusterSpec` records the devices and the two kinds of links. Bandwidth is always **unidirectional per GPU**: NVLink
# 4's 900 GB/s is both directions summed, 450 GB/s each way; eight 400 Gb/s NDR adapters per node give 50 GB/s per GPU.
# `WorkloadSpec` records the job (training or serving, global batch, sequence length, precision recipe) and the
# assumptions the estimate rests on: compute efficiency comes by default from each GPU's matmul shapes on the roofline
# (lesson 7), or from a flat achievable fraction of peak if you state one; communication overlap has a default per
# dimension (table below), each of which you can change. The precision recipe defaults to bf16 weights and gradients
# with fp32 master weights and Adam states (2 + 2 + 12 bytes per parameter; the table below calls it `zero-fp16-adam`,
# whose "fp16" means any 16-bit format, bf16 included: see lesson 1), what NVIDIA's performance scripts (the
# configurations behind its published performance tables) set; Megatron-LM's own trainer keeps gradients in fp32 when
# bf16 is on (`recipe="megatron-bf16"`, 2 + 4 + 12 bytes), so state that recipe when you reproduce such a config.

# %%
cluster = CLUSTERS["h100-8"].with_nodes(16)
workload = WorkloadSpec(global_batch=1024)
ceiling = ceiling_for(cluster.peak_flops)
best_matmul = matmul_fraction(cluster.peak_flops)
recipe = PRECISION_RECIPES[workload.recipe]
md_table(
    [Text(zh="量", en="quantity"), Text(zh="值", en="value")],
    [
        (Text(zh="rank 数", en="ranks"), cluster.world_size),
        (
            Text(zh="单设备显存 (GiB)", en="memory per device (GiB)"),
            cluster.memory_per_device_gib,
        ),
        (
            Text(zh="峰值 bf16 (TFLOP/s)", en="peak bf16 (TFLOP/s)"),
            cluster.peak_flops / 1e12,
        ),
        (
            Text(
                zh="节点内带宽 (GB/s，单向/GPU)",
                en="intra-node (GB/s, one way per GPU)",
            ),
            cluster.intra_node_bandwidth_bytes_per_s / 1e9,
        ),
        (
            Text(
                zh="跨节点带宽 (GB/s，单向/GPU)",
                en="inter-node (GB/s, one way per GPU)",
            ),
            cluster.inter_node_bandwidth_bytes_per_s / 1e9,
        ),
        (
            Text(zh="全局批大小 × 序列长度", en="global batch × sequence"),
            f"{workload.global_batch} × {workload.tokens_per_sequence(model)}",
        ),
        (
            Text(zh="计算效率", en="compute efficiency"),
            Text(
                zh=f"屋顶线模型，天花板 {ceiling:.1%}（A100 上标定的整步份额："
                f"最佳矩阵乘的 {EFFICIENCY_RELATIVE_CEILING:.1%}，"
                f"× 这种 GPU 实测最佳矩阵乘占峰值之比 {best_matmul:.1%}）",
                en=f"roofline model, ceiling {ceiling:.1%} (the step share "
                f"fitted on A100, {EFFICIENCY_RELATIVE_CEILING:.1%} of the "
                "best matmul, × this GPU's measured best-matmul share of peak, "
                f"{best_matmul:.1%})",
            ),
        ),
        (
            Text(zh="通信重叠（按维度）", en="overlap (per dimension)"),
            ", ".join(
                f"{dim} {workload.overlap(dim):.0%}" for dim in OVERLAP_DEFAULTS
            ),
        ),
        (
            Text(
                zh="精度方案（每参数字节：参数 + 梯度 + 优化器）",
                en="precision recipe (bytes per parameter: weights + gradients "
                "+ optimizer)",
            ),
            f"{workload.recipe} ({recipe.param_bytes:g} + "
            f"{recipe.grad_bytes:g} + {recipe.optimizer_bytes:g})",
        ),
    ],
)

# %% [markdown] lang="zh"
# 重叠不是假设全藏住，而是算出**藏不住的部分**：梯度按桶 (bucket) 边反向边归约（Megatron-Core `--overlap-grad-reduce`，
# 默认桶 max(4000 万, 100 万 × dp·cp) 个参数；PyTorch DDP 25 MiB），但最后一个桶要等反向结束才开始，总是暴露；参数的
# 全收集 (all-gather) 与前向重叠（`--overlap-param-gather`、FSDP 预取），第一次全收集之前没有计算可藏；ZeRO-3 暴露第一层的
# 全收集和最后一层的归约散射 (reduce-scatter)。每步一次的同步只能藏在最后一个微批次的反向下；交错调度下每个模型分块在自己最后一次反向后
# 就开始归约（Megatron-Core 的调度），能藏在最后 min(pp, m) 个微批次反向的 (v-1)/v 下，只有最后一个分块暴露。CP 的环形传递每一步只能藏在这一步的
# 注意力计算下，反向结束后 dK、dV 还要传回原 rank；PP 的点对点收发 (send/recv) 只有交错调度才能重叠（Megatron-Core 的规定）；
# TP 和 EP 的集合通信夹在相互依赖的矩阵乘之间，本身在关键路径 (critical path) 上。EP 默认就这样算；TP 默认按藏住 15/16 算，
# 因为 NVIDIA 如今为稠密模型写的性能配方在 TP > 1 时大多打开通信-矩阵乘重叠（见第 6 节；Megatron-LM 自己的开关默认关，
# 没开它的配置设 `overlap_tp=0`）。这种重叠切分的是序列并行 (sequence parallelism) 的全收集和归约散射，Megatron-LM 不开
# 序列并行就拒绝它，所以关掉序列并行时 TP 的重叠按 0 计。DP 和 CP 都跨节点时共用同一块网卡，
# 一个占用的时间另一个就不能用。每个维度的重叠份额仍然可以自己设（`WorkloadSpec(overlap_dp=...)`）。

# %% [markdown] lang="en"
# Overlap is not assumed perfect; the estimate computes **what cannot hide**. Gradients are reduced bucket by bucket
# during backward (Megatron-Core `--overlap-grad-reduce`, default bucket max(40M, 1M × dp·cp) parameters; PyTorch DDP
# 25 MiB), but the last bucket starts only when backward ends, so it is always exposed; parameter all-gathers overlap
# with forward (`--overlap-param-gather`, FSDP prefetch), but the first has no compute before it; ZeRO-3 exposes the
# first layer's gather and the last layer's reduce-scatter. A once-per-step synchronisation hides only under the last
# micro-batch's backward; in the interleaved schedule each model chunk starts its reduction after its own last backward
# (Megatron-Core's schedule), so it hides under (v-1)/v of the last min(pp, m) micro-batches' backward and only the
# last chunk is exposed. CP's ring hides each step only under that step's attention, and after backward dK, dV travel
# home; PP send/recv overlaps only in the interleaved schedule (Megatron-Core's rule); TP's and EP's collectives sit
# between dependent matmuls and are on the critical path by themselves. EP's are counted so by default; TP's count as
# 15/16 hidden by default, because NVIDIA's current performance recipes for dense models mostly switch on the
# communication-GEMM overlap when TP > 1 (see section 6; Megatron-LM's own switch is off by default: for a config
# without it set `overlap_tp=0`). That overlap splits sequence parallelism's all-gathers and reduce-scatters, and Megatron-LM refuses
# it without sequence parallelism, so with sequence parallelism off TP's overlap counts as 0. When DP and CP
# both cross nodes they share one
# NIC: time one uses, the other cannot. You can still set each dimension's share (`WorkloadSpec(overlap_dp=...)`).

# %% [markdown] lang="zh"
# ## 2. 搜索整个空间，读漏斗
#
# `plan(model, cluster, workload)` 枚举所有用满全部 rank 的组合：TP、CP、PP、DP 的并行度乘积等于 rank 数，
# 再乘上虚拟阶段数、ZeRO 阶段、微批次（梯度累积由全局批大小决定）和重计算方式；MoE 模型还有 EP。
# 每个组合都经过同一组检查，顺序如下：先看组合本身是否成立（第 3 课第 8 节的并行度规则、第 4 课的组合规则），
# 再走第 3 课的硬门槛（容量、互连、结构、上下文、服务），容量之后多一道卸载门槛（第 8 节末的“估算漏掉了什么”）。
# 其中上下文门槛换了规则：第 3 课的门槛问“需不需要 CP”，
# 工作台只查 CP 的形状（序列能否切成 2·cp 段等长的块），CP 划不划算交给估算（第 8 节的“CP 在 8K 时什么时候划算”详谈）。
#
# 每个组合写成一串标签，例如 `tp=8,pp=4,dp=4,cp=1,ep=1,v=1,zero=1,mb=1,ga=256,recompute=selective`：
# 前五个是各维度的并行度；`v` 是每个流水线阶段持有的模型块数（交错调度的虚拟阶段数，第 6 课，`v=1` 即不交错）；
# `zero` 是 ZeRO 阶段；`mb` 是微批次大小（每个微批次几条序列）；`ga` 是梯度累积步数，由全局批大小 ÷ (dp × mb) 决定；
# `recompute` 是激活重计算方式：`none`、`selective`、`full`，或 `offload`（不重计算，部分层的激活卸载到主机内存）。

# %% [markdown] lang="en"
# ## 2. Search the whole space and read the funnel
#
# `plan(model, cluster, workload)` enumerates every composition that uses all ranks: TP, CP, PP and DP degrees whose
# product is the rank count, times virtual stages, ZeRO stages, micro-batches (the gradient accumulation follows from
# the global batch) and recompute modes; MoE models add EP. Every composition goes through the same checks, in this
# order: first whether the composition is well formed (the degree rules of lesson 3, section 8, and lesson 4's
# composition rules), then lesson 3's hard gates (fit, interconnect, structure, context, serving), with an offload gate
# after fit (section 8's "What the estimate leaves out"). The context gate has a different rule here: lesson 3's asked
# whether CP is needed; the workbench checks only CP's shape (can the sequence be cut into 2·cp equal chunks) and
# leaves whether CP pays to the estimate (section 8, "When CP pays at 8K", says more).
#
# Each composition is written as a label such as `tp=8,pp=4,dp=4,cp=1,ep=1,v=1,zero=1,mb=1,ga=256,recompute=selective`:
# the first five are the parallel degrees; `v` is the number of model chunks each pipeline stage holds (the interleaved
# schedule's virtual stages, lesson 6; `v=1` means not interleaved); `zero` is the ZeRO stage; `mb` is the micro-batch
# size (sequences per micro-batch); `ga` is the number of gradient-accumulation steps, set by global batch ÷ (dp × mb);
# `recompute` is the activation-recomputation mode: `none`, `selective`, `full`, or `offload` (no recomputation, some
# layers' activations offloaded to host memory).

# %%
md_table(
    [
        Text(zh="顺序", en="#"),
        Text(zh="代码", en="code"),
        Text(zh="检查什么", en="what it checks"),
    ],
    [
        (i + 1, f"`{gate.code}`", gate.description)
        for i, gate in enumerate(PLAN_GATES)
    ],
)

# %%
result = plan(model, cluster, workload)
print(result.report(top=0))

# %% [markdown] lang="zh"
# 漏斗把每个候选记在它**第一个**没通过的门槛上，所以各行的“排除”加上最后剩下的，正好等于搜索空间的大小。
# 一个候选可能同时违反好几条规则，`explain` 会把它们全部列出。

# %% [markdown] lang="en"
# The funnel counts each candidate at the **first** gate it fails, so the rows' "removed" plus what remains add up to
# the size of the space. A candidate may break several rules at once; `explain` lists all of them.

# %%
assert (
    sum(step.removed for step in result.funnel) + result.accepted_count
    == result.space_size
)
fig = new_figure(7.5, 3.6)
ax_funnel, ax_breakdown = fig.subplots(1, 2)
funnel_chart(ax_funnel, result)
breakdown_chart(ax_breakdown, result.accepted(5))
display(figure_image(fig))

# %% [markdown] lang="zh"
# ## 3. 通过的候选：账本与估算
#
# 通过全部门槛的候选按**估算**步时排序。没有综合分：排序只用一个物理量（步时），它由明确的假设算出——
#
# - **计算**：模型 FLOPs 按 PaLM 附录 B 计 6·N + 12·L·h·s 每 token（含注意力的两个矩阵乘），重计算另加它重复的部分；
#   最慢的流水线阶段决定节奏（首段放嵌入、末段放输出层与损失，可以少放几层）。
# - **计算效率**：每个 GPU 的矩阵乘是 mb·s/cp 个 token 乘以 隐藏维度/tp (hidden/tp) 宽的权重分片；它的计算强度放到平滑屋顶线上，
#   得到峰值的占比。TP 越大、微批次越小、CP 越大，矩阵越“瘦”，效率越低。这条曲线的天花板只在一个数据集
#   （Megatron-LM 表 1）上标定过一次。混合专家 (mixture of experts, MoE) 的每个路由专家按自己的形状上同一条曲线：
#   它只乘路由给它的约 token 数 · top_k / 专家数 行（EP 越大，一个专家收到的行越多），专家多而窄时效率明显低于稠密层；
#   token 重排 (token permutation) 只搬数据，按显存带宽计时。
# - **通信**：每个维度按它所在的链路（组留在节点内走节点内带宽，否则走跨节点带宽）用 alpha-beta 模型计时；ZeRO-2/3 每个
#   微批次都要通信（第 2 课）；EP 的全对全 (all-to-all) 按组跨越的节点拆成节点内与跨节点两部分。
# - **重叠与气泡**：按维度的重叠（上表）；气泡按第 6 课的 (p-1)/(v·m+p-1)。

# %% [markdown] lang="en"
# ## 3. The accepted candidates: ledgers and estimate
#
# Candidates that pass every gate are ordered by **estimated** step time. There is no blended score: the order uses one
# physical quantity (step time), computed from stated assumptions —
#
# - **Compute**: model FLOPs follow PaLM appendix B, 6·N + 12·L·h·s per token (attention's two matmuls included), plus
#   what recomputation repeats; the slowest pipeline stage sets the pace (the first stage holds the embedding, the last
#   the output layer and loss, and they may hold fewer layers).
# - **Compute efficiency**: each GPU multiplies mb·s/cp tokens by weight shards hidden/tp wide; the intensity of those
#   matmuls on a smooth roofline gives the share of peak. Larger TP, smaller micro-batches and larger CP make the
#   matmuls "thinner" and less efficient. The curve's ceiling was calibrated once, on one data set (Megatron-LM
#   Table 1). Each routed expert of a mixture of experts (MoE) goes on the same curve at its own shape: it multiplies
#   only the rows routed to it, about tokens · top_k / experts (a larger EP sends each expert more rows), so many
#   narrow experts run well below the dense layers' efficiency; token permutation only moves data and is timed at
#   memory bandwidth.
# - **Communication**: each dimension timed with the alpha-beta model on its group's link (intra-node if the group
#   stays in a node, else inter-node); ZeRO-2/3 communicate every micro-batch (lesson 2); EP's all-to-all is split into
#   intra- and inter-node shares by the group's span.
# - **Overlap and bubble**: per-dimension overlap (table above); the bubble from lesson 6's (p-1)/(v·m+p-1).

# %%
best = result.accepted(3)
for rank, cand in enumerate(best, 1):
    print(f"#{rank} " + cand.explain())
    print()
for note in result.assumptions.notes:
    print("-", note)

# %% [markdown] lang="zh"
# ### 怎样读并列组 (tie group)
#
# 估算有不确定度：在标定集上，它和实测最多差约 ±20%（`MODEL_UNCERTAINTY`）。估算相差不到 20% 的候选，估算就分不出先后，
# 它们是一个并列组：从最快的候选起，凡估算在它 1.2 倍以内的都归入第 1 组，其余的再从最快的起分第 2 组，依此类推。
# 这不只是谨慎：后文“估算能排对两个实测布局的先后吗？”拿公开的实测布局对检验过——估算相差超过 20% 的对，实测分得出先后的，
# 估算全都排对了（有一对实测一样快，估算却差 21%）；相差不到 20% 的，多数排反了。
#
# 并列组里谁可能更快，要看哪个假设出了错。`result.explain_ties()` 为组里每个值得实测的成员说明：哪个假设在其自身不确定度内
# 变动就能让它追上组首——矩阵乘效率随形状下降得更缓或更陡、重叠份额少四分之一或多四分之一、节点内或跨节点带宽低 25%、
# 流水线气泡只有公式的一半、主机发射每个 MoE 层的时间少一半或多一半（只影响 MoE 模型，见第 8 节）——以及用什么测量来判断；
# 在所有这些假设下估算都相差不到 1% 的，估算根本分不开它们，只能都跑。其余成员没有哪个已知假设能让它追上组首：
# 若与组首相差不到 4.5%，那是实测可重复性 (measurement repeatability, `MEASUREMENT_REPEATABILITY`)——NVIDIA 把
# NeMo 24.07 的性能表发表过两次，12 行每行都重测了一遍，同一配置的两次实测相差的均方根 (root-mean-square) 是 2.23%，
# 两倍是 4.5%，差得比这还小，各跑一次也分不出先后，只能各跑多次比平均；差得更多的，估算的不确定度仍盖得住，要实测才知道。
# 这些成员太多，不逐个列出（`every_member=True` 列出全组）。这就是“只有测量能定”的因素：哪一个假设，测什么。

# %% [markdown] lang="en"
# ### How to read tie groups
#
# The estimate has an uncertainty: on its calibration set it is off from the measurement by up to about
# ±20 % (`MODEL_UNCERTAINTY`). Candidates whose estimates differ by less than 20 % are not ordered by the estimate: they
# form a tie group. From the fastest candidate, every candidate estimated within 1.2 times its step is in group 1; the
# rest form group 2 from their fastest, and so on. This is not mere caution: "Can the estimate order two measured
# layouts?" below checks it on published pairs of measured layouts — where the estimates differ by more than 20 %, the
# estimate ordered every pair the measurements tell apart as measured (one pair measured equally fast, estimated 21 %
# apart); where they differ by less, it reversed most.
#
# Which member of a group may be faster depends on which assumption is wrong. `result.explain_ties()` says, for each
# member of the group worth measuring, which assumption, moved within its own uncertainty, lets it catch up with the
# group's fastest — matmul efficiency falling more gently or more steeply with shape, overlap a quarter lower or higher,
# intra- or inter-node bandwidth 25 % lower, the pipeline bubble half the formula's, the host's time to launch each MoE
# layer half as long or half as long again (MoE models only; see section 8) — and the measurement that decides; members
# whose estimates stay within 1 % under all of these are not separated by the estimate at all, and only running both
# can. For the other members, no known assumption lets them catch up: within 4.5 % of the fastest, that is the
# measurement repeatability (`MEASUREMENT_REPEATABILITY`) — NVIDIA published its NeMo 24.07 performance table twice,
# each of its 12 rows measured anew, and two measurements of one configuration differ by 2.23 % root-mean-square, twice
# that being 4.5 %; closer than that, one run of each cannot order them, only several runs each, compared by their
# means; farther apart, the estimate's uncertainty still covers them, and only a measurement tells. Those members are
# too many to list one by one (`every_member=True` lists the whole group). These are the factors only measurement
# settles, made concrete: which assumption, and what to measure.

# %%
groups = result.tie_groups()
within = sum(
    1
    for i in result.accepted_indices()
    if result.estimated_step_s(i)
    <= result.estimated_step_s(groups[0][0]) * (1 + MODEL_UNCERTAINTY)
)
why = result.explain_ties(1)
print(
    Text(
        zh=f"{result.accepted_count} 个通过的候选中，并列组 1 有 "
        f"{len(groups[0])} 个（估算与最快的相差不到 {MODEL_UNCERTAINTY:.0%}）；"
        f"值得先测的有 {len(why) - 1} 个（某个假设能让它成为组里最快的，"
        f"或估算分不开它与组首），"
        f"下面列出组首和其中前 {min(len(why), 6) - 1} 个：",
        en=f"Of {result.accepted_count} accepted candidates, tie group 1 holds "
        f"{len(groups[0])} (estimated within {MODEL_UNCERTAINTY:.0%} of the "
        f"fastest); {len(why) - 1} are worth measuring first (one assumption "
        "makes them the group's fastest, or the estimate cannot separate them "
        f"from it); the group's first and {min(len(why), 6) - 1} of them:",
    )
)
for row in why[:6]:
    print(" ", row.message)
first = [result.estimated_step_s(i) for i in groups[0]]
# zh: 第 1 组都在最快者的 1.2 倍以内，与上文一致
# en: the band, as the prose says
assert (
    max(first) <= min(first) * (1 + MODEL_UNCERTAINTY)
    and len(groups[0]) == within
)
# zh: 上文引用的数字
# en: the figure the prose above quotes
assert MODEL_UNCERTAINTY == 0.20
# zh: 两次实测之差的均方根
# en: the spread's RMS
assert (
    len(REMEASURED_RUNS) == 12
    and round(100 * MEASUREMENT_REPEATABILITY / 2, 1) == 2.2
)
# zh: 它的两倍：上文引用的数字
# en: twice it: the figures the prose above quotes
assert round(100 * MEASUREMENT_REPEATABILITY, 1) == 4.5

# %% [markdown] lang="zh"
# 前几名是**值得实测的候选**，不是结论：估算不知道拥塞、抖动和负载不均，这些要靠第 8 课的测量。

# %% [markdown] lang="en"
# The top group holds **candidates worth measuring**, not a verdict: the estimate knows nothing of congestion, jitter
# or load imbalance — lesson 8's measurements do.

# %% [markdown] lang="zh"
# ## 4. 为什么它输了？
#
# `explain` 接受任意组合（不必在搜索空间里），给出全部原因；组合成立时还给出账本。下面是一个 TP 组跨节点的组合，
# 和第 3 课的情形：在 24 GiB 的卡上，纯 DP 放不下，ZeRO-3 放得下。

# %% [markdown] lang="en"
# ## 4. Why did it lose?
#
# `explain` takes any composition (it need not be in the space) and gives every reason, plus the ledgers when the
# composition is well formed. Below: a composition whose TP group crosses a node, and lesson 3's situation — on 24 GiB
# cards pure DP does not fit while ZeRO-3 does.

# %%
print(result.explain("tp=16,pp=4,dp=2,zero=1,mb=1,recompute=full").explain())

# %%
box = plan(
    MODELS["llama3-8b"],
    CLUSTERS["pcie-24g-8"],
    WorkloadSpec(global_batch=64, seq_len=2048),
)
for degrees in (
    "tp=1,pp=1,dp=8,zero=0,recompute=full",
    "tp=1,pp=1,dp=8,zero=3,recompute=full",
):
    print(box.explain(degrees).explain())
    print()

# %% [markdown] lang="zh"
# ## 5. 假设分析 (what-if)：链路、上下文、MoE
#
# 结论依赖约束。`what_if` 用同样的预设重新规划，每个情形只改变一个条件：跨节点带宽除以 8；上下文变长；或者把每层 MLP 换成
# 8 个专家、每个 token 选 2 个。上下文变长要改两个数：序列从 8192 变长到 32768 个 token，全局批大小同时从 1024 降到
# 256 条序列，这样每步训练的 token 数不变（1024 × 8192 = 256 × 32768），变的只是每条序列有多长（工作台里也要把这两个控件都改掉）。
# MoE 不是“参数多了、计算几乎不变”：top-2 让每个 token 经过两个 MLP，下一格算出每个 token 的激活参数 (active parameters) 变了多少。

# %% [markdown] lang="en"
# ## 5. What-ifs: link, context, MoE
#
# Conclusions depend on constraints. `what_if` re-plans with the same presets, each case changing one condition: the
# inter-node bandwidth divided by 8, a longer context, or every MLP replaced by 8 experts with 2 routed per token. The
# longer context takes two numbers: the sequence grows from 8192 to 32768 tokens while the global batch drops from 1024
# to 256 sequences, so a step trains on the same number of tokens (1024 × 8192 = 256 × 32768) and only the length of
# each sequence changes (in the workbench, set both controls too). MoE is not "many more parameters, the same compute":
# top-2 sends every token through two MLPs; the next cell computes how the active parameters per token change.

# %%
dense_model, moe_model = MODELS["llama3-70b"], MODELS["llama3-70b"].as_moe(8, 2)
md_table(
    [
        Text(zh="模型", en="model"),
        Text(zh="全部参数（十亿）", en="all parameters (billion)"),
        Text(zh="每 token 激活参数（十亿）", en="active per token (billion)"),
    ],
    [
        (m.name, f"{m.num_params / 1e9:.1f}", f"{m.active_params / 1e9:.1f}")
        for m in (dense_model, moe_model)
    ],
)
# zh: 每个 token 的计算量接近两倍
# en: nearly twice the compute per token
assert moe_model.active_params > 1.7 * dense_model.active_params

# %%
# zh: 上下文变长：序列是 4 倍，序列条数是四分之一，每步的 token 数不变
# zh: （工作负载没有设序列长度，用模型自己的）
# en: the longer context: 4x the sequence, 1/4 of the sequences, the same tokens per
# en: step (the model's own sequence)
seq_len = workload.tokens_per_sequence(MODELS["llama3-70b"])
long_context = replace(
    workload, global_batch=workload.global_batch // 4, seq_len=seq_len * 4
)
assert (
    workload.global_batch,
    seq_len,
    long_context.global_batch,
    long_context.seq_len,
) == (1024, 8192, 256, 32768)
# zh: 与上文一致：1024 × 8192 = 256 × 32768
# en: as the prose says: 1024 × 8192 = 256 × 32768
assert (
    long_context.global_batch * long_context.seq_len
    == workload.global_batch * seq_len
)
scenarios = [
    (
        Text(zh="基线", en="baseline"),
        what_if("llama3-70b", "h100-8", 16, workload),
    ),
    (
        Text(zh="跨节点带宽 ÷ 8", en="inter-node bandwidth ÷ 8"),
        what_if("llama3-70b", "h100-8", 16, workload, link_slowdown=8),
    ),
    (
        Text(
            zh=f"序列 {long_context.seq_len}，全局批大小 "
            f"{long_context.global_batch}（每步 token 数不变）",
            en=f"sequence {long_context.seq_len}, global batch "
            f"{long_context.global_batch} (same tokens per step)",
        ),
        what_if("llama3-70b", "h100-8", 16, long_context),
    ),
    (
        Text(zh="MoE 8 专家 top-2", en="MoE 8 experts top-2"),
        what_if("llama3-70b", "h100-8", 16, workload, moe=True),
    ),
]
rows = []
for name, scenario in scenarios:
    top = scenario.accepted(1)
    rows.append(
        (
            name,
            scenario.space_size,
            scenario.accepted_count,
            breakable_code(top[0].label()) if top else "—",
            estimate_seconds_text(top[0].step_s, unit=False) if top else "—",
        )
    )
md_table(
    [
        Text(zh="情形", en="scenario"),
        Text(zh="组合数", en="compositions"),
        Text(zh="通过", en="accepted"),
        Text(zh="估算最快", en="fastest by estimate"),
        Text(zh="估算步时 (s)", en="estimated step (s)"),
    ],
    rows,
)
# zh: 慢链路改变了哪个组合最快；
# zh: 基线的最快组合放到慢链路上要慢得多。
# en: The slow link changes which composition is fastest; the baseline's fastest,
# en: planned on the slow link, is much slower.
baseline_best, slow_link = scenarios[0][1].accepted(1)[0], scenarios[1][1]
baseline_on_slow = slow_link.explain(baseline_best.label())
slow_fastest_s = slow_link.accepted(1)[0].step_s
print(
    Text(
        zh=f"基线最快的 `{baseline_best.label()}` 放到慢 8 倍的跨节点链路上："
        f"估算 {estimate_seconds_text(baseline_on_slow.step_s)}，"
        "是新的最快组合的 "
        f"{baseline_on_slow.step_s / slow_fastest_s:.1f} 倍",
        en=f"The baseline's fastest `{baseline_best.label()}` on the 8x slower "
        "inter-node link: estimated "
        f"{estimate_seconds_text(baseline_on_slow.step_s)}, "
        f"{baseline_on_slow.step_s / slow_fastest_s:.1f}x the new fastest",
    )
)
assert slow_link.accepted(1)[0].label() != baseline_best.label()
assert (
    baseline_on_slow.accepted
    and baseline_on_slow.step_s > 2 * slow_link.accepted(1)[0].step_s
)
# zh: 新的最快组合几乎不比原来的最快组合慢（不到 1.1 倍）
# en: the new fastest is barely slower (less than 1.1x)
assert slow_link.accepted(1)[0].step_s < 1.1 * baseline_best.step_s

# %% [markdown] lang="zh"
# ### 你自己的模型和集群
#
# 预设之外，工作台也能规划你自己的模型和机器。`ModelSpec.from_config` 读 Hugging Face `config.json` 里常用的键
# （`hidden_size`、`num_hidden_layers`、`num_attention_heads`、`num_key_value_heads`、`intermediate_size`、
# `vocab_size` 等；MoE 的 `n_routed_experts`、`n_shared_experts`，多头潜在注意力 (multi-head latent attention, MLA)
# 的 `kv_lora_rank` 等也认），缺键或值不对时报错并指出是哪个键。下面的字典按 Mistral 7B 公开的形状写成
# （arXiv 2310.06825 表 1），参数量由形状算出。集群按 NVIDIA L40S 的数据手册手写：48 GB 显存、bf16 稠密
# 362 TFLOP/s、显存带宽 864 GB/s；节点内只有 PCIe 4.0 x16，跨节点是每节点 100 GbE。显存这里按 48 × 10^9 字节 =
# 44.7 GiB 计，比本节后面那张表的规则（数据手册的 GB 数本身约是 GiB 数）保守：L40S 的 GDDR6 显存开着 ECC，校验位占去
# 一部分，可用的不到 48 GiB；手边有这台机器时，照表里的做法用 nvidia-smi 显示的总量（MiB）除以 1024。命令行上同样可以用
# `plan --model-config config.json --gpu-memory-gib ... --peak-tflops ... --hbm-gb-s ... --gpus-per-node ...
# --intra-gb-s ... --inter-gb-s ...`。

# %% [markdown] lang="en"
# ### Your own model and cluster
#
# Beyond the presets, the workbench plans your own model and machines. `ModelSpec.from_config` reads the usual keys of
# a Hugging Face `config.json` (`hidden_size`, `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads`,
# `intermediate_size`, `vocab_size` and more; MoE's `n_routed_experts`, `n_shared_experts` and multi-head latent
# attention's `kv_lora_rank` too) and names the key when one is missing or wrong. The dict below is Mistral 7B's
# published shape (arXiv 2310.06825, Table 1); the parameter count is computed from it. The cluster is written by hand
# from NVIDIA's L40S datasheet: 48 GB of memory, 362 TFLOP/s bf16 dense, 864 GB/s memory bandwidth; inside a node only
# PCIe 4.0 x16, between nodes 100 GbE per node. The memory is counted as 48 × 10^9 bytes = 44.7 GiB here, more
# cautious than the rule of the table further down (a datasheet's GB figure is about the GiB figure already): the
# L40S's GDDR6 runs with ECC, whose check bits take part of it, so less than 48 GiB is usable; with the machine at hand,
# do as the table says and divide the total nvidia-smi shows (MiB) by 1024. The command line does the same with
# `plan --model-config config.json
# --gpu-memory-gib ... --peak-tflops ... --hbm-gb-s ... --gpus-per-node ... --intra-gb-s ... --inter-gb-s ...`.

# %%
from coursekit.hardware import (
    ETHERNET_100G_PER_CARD_BYTES_PER_S,
    ETHERNET_LATENCY_S,
    PCIE4_X16_BYTES_PER_S,
    PCIE_LATENCY_S,
)
from coursekit.planner import ClusterSpec, ModelSpec

mistral_config = {
    "model_type": "mistral",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "intermediate_size": 14336,
    "vocab_size": 32000,
    "max_position_embeddings": 8192,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
}
own_model = ModelSpec.from_config(mistral_config, name="mistral-7b")
own_cluster = ClusterSpec(
    name="l40s-8",
    nodes=4,
    gpus_per_node=8,
    memory_per_device_gib=48e9 / 2**30,
    peak_flops=362e12,
    intra_node_bandwidth_bytes_per_s=PCIE4_X16_BYTES_PER_S,
    inter_node_bandwidth_bytes_per_s=ETHERNET_100G_PER_CARD_BYTES_PER_S,
    intra_node_latency_s=PCIE_LATENCY_S,
    inter_node_latency_s=ETHERNET_LATENCY_S,
    memory_bandwidth_bytes_per_s=864e9,
    source="NVIDIA L40S datasheet; PCIe 4.0 x16; 100 GbE per node",
)
own = plan(own_model, own_cluster, WorkloadSpec(global_batch=256, seq_len=4096))
print(
    Text(
        zh=f"{own_model.name}：{own_model.num_params / 1e9:.2f}B 参数，注意力 "
        f"{own_model.attention_kind.upper()}，{own_cluster.world_size} 张卡、"
        f"每卡 {own_cluster.memory_per_device_gib:.1f} GiB",
        en=f"{own_model.name}: {own_model.num_params / 1e9:.2f}B parameters, "
        f"{own_model.attention_kind.upper()} attention, "
        f"{own_cluster.world_size} GPUs of "
        f"{own_cluster.memory_per_device_gib:.1f} GiB",
    )
)
print(
    Text(
        zh=f"{own.space_size} 个组合，{own.accepted_count} 个通过；"
        "估算最快的三个：",
        en=f"{own.space_size} compositions, {own.accepted_count} accepted; the "
        "three fastest by estimate:",
    )
)
for cand in own.accepted(3):
    print(
        f"  {cand.label()}  {cand.memory.total_gib:.1f} GiB  "
        f"{estimate_seconds_text(cand.step_s)}"
    )
# zh: Mistral 7B：7,241,732,096 个参数
# en: Mistral 7B: 7,241,732,096 parameters
assert round(own_model.num_params / 1e9, 2) == 7.24
best_own = own.accepted(1)[0]
# zh: 下一段所说的
# en: what the next paragraph says
assert best_own.tp == 1 and best_own.pp > 1 and best_own.recompute == "none"

# %% [markdown] lang="zh"
# 没有 NVLink 时，TP 每层的集合通信都要走 PCIe，估算最快的布局因此不用 TP（tp = 1；TP 2 的布局几乎一样快，在估算的
# 不确定度之内），改用流水线切分模型
# （每个微批次只在相邻段之间传一次激活），再用 ZeRO 切优化器状态；融合注意力 (flash attention) 不保存 s×s 分数，
# 所以不重计算也放得下。这仍是估算：把第一组里的两三个拿去实测（第 8 课）。

# %% [markdown] lang="en"
# Without NVLink, every one of TP's per-layer collectives crosses PCIe, so the fastest layout by estimate uses no TP
# (tp = 1; a TP 2 layout is about as fast, within the estimate's uncertainty): pipeline stages split the model (one activation per micro-batch between neighbouring stages) and ZeRO shards
# the optimizer states; flash attention keeps no s×s scores, so it fits without recomputation. It is still an
# estimate: measure two or three of the first group (lesson 8).

# %% [markdown] lang="zh"
# `ClusterSpec` 的每个字段都要一个数，单位写在字段名里（命令行参数在括号里，单位是命令行的）：
#
# | 字段 | 单位与方向 | 从数据手册换算（例） |
# | --- | --- | --- |
# | `nodes`、`gpus_per_node`（`--nodes`、`--gpus-per-node`） | 个 | 2 个节点、每节点 8 张卡 |
# | `memory_per_device_gib`（`--gpu-memory-gib`，GiB） | 每 GPU 显存，GiB（2^30 字节） | nvidia-smi 的 81920 MiB → `81920 / 1024` |
# | `peak_flops`（`--peak-tflops`，TFLOP/s） | 每 GPU 稠密 bf16 峰值，FLOP/s | 312 TFLOPS → `312e12`（不用带稀疏的数字） |
# | `intra_node_bandwidth_bytes_per_s`（`--intra-gb-s`，GB/s） | 节点内每 GPU **单向**，字节/秒 | NVLink 400 GB/s（双向）→ `200e9`；只有 PCIe 时用 `PCIE4_X16_BYTES_PER_S` |
# | `inter_node_bandwidth_bytes_per_s`（`--inter-gb-s`，GB/s） | 跨节点每 GPU **单向**，字节/秒 | 每节点 4 × 200 Gb/s 网卡、8 张卡 → `4 * 200e9 / 8 / 8` |
# | `intra_node_latency_s`、`inter_node_latency_s`（`--intra-latency-us`、`--inter-latency-us`，微秒，可选） | 环形通信每一步的固定延迟 (alpha)，秒 | 不知道时用 NCCL 环形算法的 `3.4e-6` 和 `14e-6`（命令行的默认值） |
# | `memory_bandwidth_bytes_per_s`（`--hbm-gb-s`，GB/s） | 每 GPU 显存带宽，字节/秒 | 2039 GB/s → `2039e9` |
# | `host_memory_per_device_gib`、`host_link_bandwidth_bytes_per_s`（`--host-memory-gib`、`--host-link-gb-s`，可选，两个一起给） | 每 GPU 的主机内存，GiB；每 GPU 与主机之间**单向**，字节/秒 | DGX H100 的 2 TB、8 张卡 → `2e12 / 8 / 2**30`；PCIe 5.0 x16 → `63e9`（有了它们搜索才试激活卸载） |
# | `name`、`source`（可选） | 文字 | 集群的名字；数字出自哪份数据手册 |
#
# 显存按二进制造：数据手册的 80 GB 本身就约是 80 GiB（A800 80GB 的 nvidia-smi 显示 81920 MiB），不要再按 10^9 换算。
# 网卡按吉比特每秒 (Gb/s) 标，1 GB/s = 8 Gb/s；NVLink 的数据手册数字是两个方向之和。下面照抄一张 A800 服务器的厂商表
# （NVLink 400 GB/s，每节点 4 个 200 Gb/s InfiniBand 端口），再按上表换算一次：照抄的那个，`unit_notes()` 列出三条提醒，
# `plan` 的报告和命令行也在“假设”下面列出同样的提醒；超出范围的数（比如把 312 TFLOPS 写成 `312`）`ClusterSpec` 直接拒绝，
# 并说明该用的单位。命令行的全部参数见 `python -m coursekit plan --lang zh --help`，帮助的最后一段指回这一节。
# 在 JupyterLab 终端里要用装了 coursekit 的那个 Python（用 `make lab` 启动时是 `.venv/bin/python`）；在笔记本
# 单元格里写 `import sys` 后 `!{sys.executable} -m coursekit plan --lang zh --help`（`sys.executable` 就是这个
# 内核的 Python，单写 `!python` 可能是另一个没装 coursekit 的 Python）。

# %% [markdown] lang="en"
# Every `ClusterSpec` field takes one number, its unit in its name (the command-line flag in brackets, in the flag's
# unit):
#
# | field | unit and direction | from a datasheet (example) |
# | --- | --- | --- |
# | `nodes`, `gpus_per_node` (`--nodes`, `--gpus-per-node`) | count | 2 nodes of 8 GPUs |
# | `memory_per_device_gib` (`--gpu-memory-gib`, GiB) | memory per GPU, GiB (2^30 bytes) | nvidia-smi's 81920 MiB → `81920 / 1024` |
# | `peak_flops` (`--peak-tflops`, TFLOP/s) | dense bf16 peak per GPU, FLOP/s | 312 TFLOPS → `312e12` (not the sparse figure) |
# | `intra_node_bandwidth_bytes_per_s` (`--intra-gb-s`, GB/s) | inside a node, per GPU, **one way**, bytes/s | NVLink 400 GB/s (both ways) → `200e9`; PCIe only: `PCIE4_X16_BYTES_PER_S` |
# | `inter_node_bandwidth_bytes_per_s` (`--inter-gb-s`, GB/s) | between nodes, per GPU, **one way**, bytes/s | 4 × 200 Gb/s adapters per node of 8 GPUs → `4 * 200e9 / 8 / 8` |
# | `intra_node_latency_s`, `inter_node_latency_s` (`--intra-latency-us`, `--inter-latency-us`, microseconds, optional) | fixed cost of one ring step (alpha), seconds | if unknown, NCCL's ring `3.4e-6` and `14e-6` (the command line's defaults) |
# | `memory_bandwidth_bytes_per_s` (`--hbm-gb-s`, GB/s) | memory bandwidth per GPU, bytes/s | 2039 GB/s → `2039e9` |
# | `host_memory_per_device_gib`, `host_link_bandwidth_bytes_per_s` (`--host-memory-gib`, `--host-link-gb-s`, optional, both or neither) | host memory per GPU, GiB; between one GPU and the host, **one way**, bytes/s | a DGX H100's 2 TB over 8 GPUs → `2e12 / 8 / 2**30`; PCIe 5.0 x16 → `63e9` (the search tries activation offloading only with them) |
# | `name`, `source` (optional) | text | the cluster's name; which datasheet the numbers come from |
#
# Memory is built in binary sizes: a datasheet's 80 GB is about 80 GiB already (an A800 80GB shows 81920 MiB in
# nvidia-smi), so do not convert it by 10^9 again. Network adapters are rated in gigabits per second (Gb/s), 1 GB/s =
# 8 Gb/s; NVLink's datasheet figure sums both directions. Below, an A800 server's vendor sheet (NVLink 400 GB/s, four
# 200 Gb/s InfiniBand ports per node) is copied as printed, then converted by the table: for the copy, `unit_notes()`
# lists three notes, and `plan`'s report and the command line list the same under the assumptions; a number out of
# range (312 TFLOPS written `312`) is refused by `ClusterSpec` with the unit it wants. Every flag of the command line
# is in `python -m coursekit plan --help`, whose last paragraph points back to this section. In a JupyterLab terminal,
# use the Python coursekit is installed in (`.venv/bin/python` when `make lab` started it); in a notebook cell,
# `import sys` and then `!{sys.executable} -m coursekit plan --help` (`sys.executable` is this kernel's Python; a bare
# `!python` may be another one, without coursekit).

# %%
# zh: NVIDIA A800 80GB SXM 数据手册：bf16 稠密 312 TFLOPS、显存带宽 2039 GB/s；
# zh: nvidia-smi 显示显存 81920 MiB
# en: NVIDIA A800 80GB SXM datasheet: 312 TFLOPS bf16 dense, 2039 GB/s memory;
# en: nvidia-smi shows 81920 MiB of memory
a800 = dict(
    name="a800-8",
    nodes=2,
    gpus_per_node=8,
    memory_per_device_gib=81920 / 1024,
    peak_flops=312e12,
    intra_node_latency_s=3.4e-6,
    inter_node_latency_s=14e-6,
    memory_bandwidth_bytes_per_s=2039e9,
)
as_printed = ClusterSpec(
    **a800,
    intra_node_bandwidth_bytes_per_s=400e9,
    inter_node_bandwidth_bytes_per_s=4 * 200e9,
)
for note in as_printed.unit_notes():
    print("-", note)
converted = ClusterSpec(
    **a800,
    intra_node_bandwidth_bytes_per_s=400e9 / 2,
    inter_node_bandwidth_bytes_per_s=4 * 200e9 / 8 / 8,
)
# zh: 换算后没有提醒；每 GPU 单向 200 GB/s 与 12.5 GB/s
# en: no note once converted; 200 GB/s and 12.5 GB/s one way per GPU
assert len(as_printed.unit_notes()) == 3 and converted.unit_notes() == ()
assert converted.inter_node_bandwidth_bytes_per_s == 12.5e9

# %% [markdown] lang="zh"
# 手里已经有一个布局（论文、厂商表格或同事的配置）时，不必在列表里找它：`check_layout` 在具有这些并行度的组合里
# （没写出的 CP、EP 按 Megatron 的默认取 1；微批次、交错段数、ZeRO 阶段和重计算取任意值）找出通过门槛且估算最快的
# 那个，给出它在全部通过门槛的候选中的名次、所在并列组和相对最快候选的倍数；一个都通不过时，给出各变体最先卡在
# 哪道门槛。命令行上是 `plan ... --layout tp=8,pp=1`。
# 下面检查从 NVLink 机器上照搬来的习惯：节点内 TP = 8。

# %% [markdown] lang="en"
# When you already have a layout (a paper's, a vendor table's, a colleague's config), there is no need to search the
# list for it: `check_layout` takes the compositions with its degrees (CP and EP not given are 1, Megatron's
# defaults; the micro-batch, interleaving, ZeRO stage and recomputation take any value), finds the fastest accepted
# one by the estimate, and gives its rank among all accepted candidates, its tie group and its ratio to the fastest;
# when none passes, the gate each variant fails first. On the command line it is
# `plan ... --layout tp=8,pp=1`. Below, the habit carried over from NVLink machines is checked: TP = 8 inside a node.

# %%
habit = own.check_layout("tp=8,pp=1")
print(habit.report().splitlines()[2])
# zh: 下一段所说的
# en: what the next paragraph says
assert habit.accepted and habit.tie_group >= 3 and habit.over_best > 1.25

# %% [markdown] lang="zh"
# 它放得下，也通过了全部门槛，但排在很靠后的并列组里，估算步时是最快的 1.25 倍以上（已发表训练的检验标准之外）：
# 在这台只有 PCIe 的机器上，这个习惯要先实测再用。

# %% [markdown] lang="en"
# It fits and passes every gate, but it sits in a late tie group, more than 1.25x slower than the fastest by the
# estimate (outside the bar the published runs are checked against): on this PCIe-only machine, measure the habit
# before you keep it.

# %% [markdown] lang="zh"
# ## 6. 为什么节点内 TP = 8 是常见选择
#
# 下表对同一个例子，按 TP 并行度各取估算最快的通过候选（TP = 16 取第一个组合，看它为什么被拒绝）。
# 读三列：TP 的通信时间、矩阵乘效率、每 rank 显存。

# %% [markdown] lang="en"
# ## 6. Why TP = 8 inside a node is the usual choice
#
# For the same example, the table takes the fastest accepted candidate at each TP degree (for TP = 16, the first
# composition, to see why it is rejected). Read three columns: TP's communication time, matmul efficiency and memory
# per rank.

# %%
rows = []
# zh: 第 3 节的并列组
# en: tie groups of section 3
group_of = {
    i: number for number, members in enumerate(groups, start=1) for i in members
}
best_by_tp = {}
for tp in (1, 2, 4, 8, 16):
    accepted_tp = [
        i for i in result.accepted_indices() if result.degrees(i)["tp"] == tp
    ]
    if not accepted_tp:
        cand = result.explain(f"tp={tp},pp=4,zero=1,mb=1,recompute=selective")
        rows.append((tp, "—", "—", "—", "—", "—", ", ".join(cand.codes)))
        continue
    cand = result.candidate(accepted_tp[0])
    best_by_tp[tp] = (accepted_tp[0], cand.step_s)
    tp_ms = (
        sum(row.time_s for row in cand.communication if row.dimension == "TP")
        * 1e3
    )
    rows.append(
        (
            tp,
            breakable_code(cand.label()),
            estimate_seconds_text(cand.step_s, unit=False),
            group_of[accepted_tp[0]],
            f"{tp_ms:.0f}",
            f"{cand.efficiency:.0%}",
            f"{cand.memory.total_gib:.0f}",
        )
    )
md_table(
    [
        Text(zh="TP", en="TP"),
        Text(zh="估算最快的组合", en="fastest by estimate"),
        Text(zh="步时 (s)", en="step (s)"),
        Text(zh="并列组", en="tie group"),
        Text(zh="TP 通信 (ms)", en="TP comm. (ms)"),
        Text(zh="矩阵乘效率", en="matmul efficiency"),
        Text(zh="显存 (GiB) / 拒绝原因", en="memory (GiB) / rejected by"),
    ],
    rows,
)
steps_by_tp = [step for _, step in best_by_tp.values()]
# zh: 与下文一致
# en: the prose below
assert sorted(best_by_tp) == [1, 2, 4, 8] and {
    group_of[i] for i, _ in best_by_tp.values()
} == {1}
# zh: 下文的“步时相差不到 2%”
# en: "less than 2 % apart"
assert max(steps_by_tp) / min(steps_by_tp) - 1 < 0.02

# %% [markdown] lang="zh"
# - **TP 切的是每一层**：权重、梯度、优化器状态和（开序列并行时）激活都除以 TP，不需要流水线那样的气泡，也不像 ZeRO
#   那样每个微批次重新收集参数。所以大模型先用 TP 把单层放下、把激活切小。
# - **但 TP 每层每个微批次都要 4 次全归约**（前向 2 次、反向 2 次）；开序列并行时每次拆成一次全收集加一次归约散射，
#   共 8 次集合通信。它们夹在矩阵乘之间，本身藏不住。
#   NVIDIA 如今为稠密模型写的性能配方在 TP > 1 时大多打开 Transformer Engine 的通信-矩阵乘重叠（把全收集拆成分块的环形交换、把
#   归约散射拆成 4 块跟在分块矩阵乘后面），只剩每层前向两次归约散射的最后一块露在外面：8 次中的 2 次、各 1/4，即 1/16。
#   工作台默认就这样算；`overlap_tp=0` 算没有这种重叠的引擎，这时 TP 的通信全部露出。
#   节点内 NVLink 单向 450 GB/s，跨节点每 GPU 单向 50 GB/s：TP 组一旦跨节点，这些通信慢约 9 倍——互连门槛直接拒绝。
# - **TP 越大，每个 GPU 的矩阵越瘦**：隐藏维度/tp 变小，计算强度下降，效率跟着降（第 7 课）。
#
# 一个 DGX/HGX 节点正好 8 卡，于是 TP = 8 是“不出节点的最大切分”：再大就跨节点，再小就要靠更多流水线阶段或
# ZeRO 来装下模型。表里的估算把这些画成数字；在本例（70B、每条序列 8192 个 token）里，TP = 1、2、4、8 各自估算最快的组合
# 都在第 1 并列组，步时相差不到 2%——TP 小了，就由 ZeRO-3 和 CP 来装下模型和激活。估算分不出它们，实测才能分。

# %% [markdown] lang="en"
# - **TP splits every layer**: weights, gradients, optimizer states and (with sequence parallelism) activations are
#   divided by TP, with no pipeline bubble and no per-micro-batch weight gathering as in ZeRO. So large models use TP
#   first, to make one layer fit and to shrink the activations.
# - **But TP issues 4 all-reduces per layer and micro-batch** (2 forward, 2 backward); with sequence parallelism each
#   becomes an all-gather plus a reduce-scatter, 8 collectives. They sit between dependent matmuls, so by themselves
#   they cannot hide. NVIDIA's current performance recipes for dense models mostly switch on Transformer
#   Engine's communication-GEMM overlap when TP > 1 (all-gathers become chunked ring exchanges, reduce-scatters are split into 4 chunks behind
#   chunked GEMMs), which leaves only the last chunk of each layer's two forward reduce-scatters exposed: a quarter of 2 of the 8, 1/16. The
#   workbench counts it so by default; `overlap_tp=0` counts an engine without this overlap, where all of TP's
#   communication is exposed. NVLink gives 450 GB/s each way inside a node, the network 50 GB/s per GPU each way: a TP group
#   that leaves the node makes these about 9x slower — the interconnect gate rejects it outright.
# - **The larger TP, the thinner each GPU's matmuls**: hidden/tp shrinks, the arithmetic intensity drops and the
#   efficiency with it (lesson 7).
#
# A DGX/HGX node has exactly 8 GPUs, so TP = 8 is "the largest split that stays inside a node": larger crosses nodes,
# smaller needs more pipeline stages or ZeRO to fit the model. The estimate turns this into numbers; in this example
# (70B, 8192 tokens) the fastest composition of each of TP = 1, 2, 4 and 8 is in tie group 1, less than 2 % apart —
# with a smaller TP, ZeRO-3 and CP make the model and its activations fit. The estimate cannot tell them apart; a
# measurement can.

# %% [markdown] lang="zh"
# ## 7. 标定：Megatron-LM 的表 1
#
# Narayanan 等人（arXiv 2104.04473）表 1 在 8 卡 A100 节点上训练了 1.7B 到 1T 的 GPT 模型，给出每个模型的 (t, p, d)、
# 全局批大小和实测的每 GPU TFLOP/s。计算效率曲线的天花板**只在这一组数据上标定一次**：取使十行“估算 ÷ 实测”
# 的几何平均等于 1 的值。下表是标定后的样子（隔两行取一行）；它说明模型的系统误差：小模型估高、大模型估低。

# %% [markdown] lang="en"
# ## 7. Calibration: Megatron-LM's Table 1
#
# Table 1 of Narayanan et al. (arXiv 2104.04473) trained GPT models from 1.7B to 1T parameters on 8-GPU A100 nodes and
# lists each model's (t, p, d), global batch and measured TFLOP/s per GPU. The efficiency curve's ceiling is
# **calibrated once, on this set only**: the value that makes the geometric mean of the ten "estimated ÷ measured"
# ratios 1. The table shows the result (every third row); it exposes the model's systematic error: small models
# estimated high, large ones low.

# %%
rows = []
for run in MEGATRON_TABLE1[::3]:
    table = plan(MODELS[run.name], run.cluster(), run.workload())
    matching = set(table.find(tp=run.tp, pp=run.pp, dp=run.dp))
    chosen = table.candidate(
        next(i for i in table.accepted_indices() if i in matching)
    )
    estimate = (
        megatron_paper_flops_per_step(run.layers, run.hidden, run.global_batch)
        / (chosen.step_s * run.gpus)
        / 1e12
    )
    rows.append(
        (
            run.name,
            f"({run.tp}, {run.pp}, {run.dp})",
            run.gpus,
            f"{estimate:.0f}",
            f"{run.tflops_per_gpu:.0f}",
            f"{estimate / run.tflops_per_gpu:.2f}",
        )
    )
md_table(
    [
        Text(zh="模型", en="model"),
        "(t, p, d)",
        Text(zh="GPU 数", en="GPUs"),
        Text(zh="估算 TFLOP/s/GPU", en="estimated TFLOP/s/GPU"),
        Text(zh="论文实测", en="paper, measured"),
        Text(zh="估算 ÷ 实测", en="estimated ÷ measured"),
    ],
    rows,
)

# %% [markdown] lang="zh"
# ## 8. 对照已发表的大规模训练
#
# > **阅读提示**：这一节很长，是参考材料。第一次学习时，读这一段、看下面的大表（最后一列“四条都满足”），再读本节后面的
# > “估算漏掉了什么”和“估算能排对两个实测布局的先后吗？”两小节就够了；中间逐行解释个别训练的段落，讲课或查阅时再读。
#
# 标定集之外，用已发表的训练检验估算：8 次论文里的训练（稠密与 MoE，A100、H100 与 H800），加上 NVIDIA 性能表里
# 24 个 H100 配置（FP8；NeMo 24.07 的整张表格与 Megatron-Bridge 25.09 到 26.04 各版的表格，稠密与 MoE），NVIDIA DGX Cloud
# 基准配方 (v24.11.1) 的 14 行（7 个配方各取能跑完整模型的最小规模的 BF16 与 FP8 两行：Llama 3.1 8B、70B 与 405B、GPT-3 175B、
# Nemotron-4 15B 与 340B、Grok-1 314B 的 MoE 代理模型 (proxy model)；配方给出每步时间，换算成每 GPU 每秒 token 数比较），
# 它 2025 年的版本换到 NeMo 2.0 后的 9 行（v25.05.02 的 Llama 3.1 405B、Nemotron-4 15B 与 340B、Grok-1 各有 BF16 与 FP8，
# 再加 v25.05 的 DeepSeek-V3 BF16 一行），NeMo 长序列表的 8 行（Llama 2 7B，8K 到 1024K，见后文），再加上 Megatron-Core
# 2024 年在 H100 上的扩展表里的 9 行（bf16，1.7B 到 462B 的 GPT，48 到 6144 张卡，按它自己的 FLOP 计数比较 TFLOP/s）
# 和它的 MoE 指南给出的 Mixtral 8x7B 参考布局一行（64 张 H100，见后文），
# 以及 Megatron-MoE-ModelZoo（公开的 Megatron-Core MoE 基准配置仓库）里 Qwen3 235B-A22B 在 256 张 H100 上的
# 10 行（bf16：4K 序列的 5 种布局、同一仓库脚本里注明 320 TFLOP/s 的一种配置，与 16K 到 128K 的 4 行长上下文；
# 按 Megatron-Core 2025 年起的 FLOP 计数比较 TFLOP/s），以及 B200 上的 12 个配置：Megatron-Bridge 25.09 与 25.11 两版
# DGX-B200 表里的 4 个（FP8 按张量当前缩放：Llama 3 8B 在 8 张卡上、Llama 3.1 405B 在 128 张卡上，各两版），和 NeMo 25.02
# 的 DGX-B200 表的 8 行（FP8 延迟缩放：GPT-3 175B，Llama 3 8B、70B 与 405B，Nemotron-4 15B 与 340B，两个 MoE：Mixtral 8x7B
# 与 64K 序列的 Mixtral 8x22B），再加同一页 DGX-H100 表的 GPT-3 175B 一行（512 张 H100），NeMo 24.07 微调表的 6 行
# （Llama 2 7B、13B 与 70B 的全参数监督微调 (supervised fine-tuning, SFT) 与 LoRA 微调各 3 行，见后文），以及 GB200 NVL72
# 上的 4 个配置：Megatron-Bridge DGX-GB200 表里 Llama 3 8B 在 8 张卡上（25.09 与 25.11 两版）、Llama 3.1 405B 在 256 张卡上
# （25.11 与 26.06 两版），都是 FP8 按张量当前缩放。
# 表中每行写出模型、GPU 数、序列长度、全局批大小 (global batch size, GBS) 和发表的并行度。每一次都按原始设定登记：层布局 (TP, CP, PP, DP, EP；配方设了专家张量并行时还有 ETP，否则 ETP = TP) 用发表的，其余（微批次、调度、
# ZeRO 阶段、重计算）让工作台在允许的范围里找。除了 ModelZoo 的三行和 DGX Cloud 的 Llama 3.1 8B 两行，它们都只用来**检验**：
# 效率天花板只用 Megatron-LM 表 1 标定；ModelZoo 的两行（下面讲）标定 MoE 每层的主机时间，其中一行和打开 1F1B 全对全重叠
# 的那一行标定这种重叠实际藏住多少全对全通信，DGX Cloud 那两行（BF16 与 FP8）标定 FP8 矩阵乘保留多少提速（见下文），
# 所以这五行不算检验。
# 一行通过要满足四条：被接受；在第 1 并列组或前 10 名；步时在最优估算的 1.25 倍以内；吞吐相差不超过 ±30%。
#
# 效率怎样从 A100 带到 H100 和 B200：天花板 = 表 1 上标定的“整步保留的最佳矩阵乘份额” × 该 GPU 实测的最佳 bf16 矩阵乘
# 占峰值之比（A100 85.9%，H100 80.1%，B200 77.6%，出自公开的最大可达矩阵乘算力 (maximum achievable matmul FLOPS, MAMF) 测量表）。H100 和 B200 都不另调参数。
# 同一代（计算能力 8.x、9.x、10.x）的 GPU 不论峰值多少都取这一代的实测比例，所以同代更快的卡估算不会更慢；没写计算能力的自定义 GPU 按峰值在相邻两代之间插值。
# FP8 也这样带过去：在 H100 上标定的 FP8 矩阵乘份额（0.775，见后文），按同一张表里每种 GPU 的最佳 FP8 矩阵乘占 FP8 峰值之比
# 与最佳 bf16 矩阵乘占 bf16 峰值之比的比值换算（H100 是 0.882，B200 是 0.984：Hopper 的 FP8 矩阵乘离峰值更远），
# B200 上是 0.864。B200 的 12 行
# 登记时没有为它们调任何常数：12 行全部通过，估算吞吐是实测的 0.89 到 1.24 倍。其中 Megatron-Bridge 的 4 行最高
# 0.95 倍，NeMo 的 8 行在 0.98 到 1.24 倍之间：同一代 GPU 上，引擎和版本不同，估算与实测之比就能差出约三成（1.24 / 0.95 = 1.3）。
# GB200 NVL72 的 4 行也是先写好预设、再登记，没有为它们改常数：4 行都通过，是实测的 0.84 到 0.94 倍。GB200 的一个节点（计算托盘）
# 只有 4 张 GPU，但一个机柜的 NVLink 域把 72 张连在一起：工作台把作业在一个域里占的那几个节点当作一个“节点”，
# 域内的组都走 NVLink（`ClusterSpec(nvlink_domain_gpus=72)`；Megatron-Bridge 的启动脚本按每段至多 18 个托盘分段，
# 256 张卡就是 4 个各 64 张的域）。这 4 行的组要么留在托盘内、要么通信藏在计算下，所以把域去掉它们也都通过：
# 它们检验的是 GB200 的算力与显存，不是域本身；域的作用在下面的组合里看得到，比如跨托盘的 TP 8。
# 引擎也在一版版变快：NeMo 25.02 在 512 张 H100 上训练 GPT-3 175B，实测每 GPU 每秒 866 个 token，比 NeMo 24.07 同样规模的
# 782 个快 11%；估算只因配置写明的 TP 通信重叠与 bf16 梯度快了 8%，两行分别是实测的 0.75 与 0.73 倍（都在 ±30% 以内、都通过）：
# 这个模型在这个规模上，估算一直偏慢。

# %% [markdown] lang="en"
# ## 8. Against published large-scale runs
#
# > **How to read this section**: it is long and meant for reference. On a first pass, read this paragraph, look at the
# > big table below (its last column, "all four met"), then read the two subsections "What the estimate leaves out" and
# > "Can the estimate order two measured layouts?"; the paragraphs in between explain single runs, for class or lookup.
#
# Beyond the calibration set, published runs test the estimate: eight from papers (dense and MoE; A100, H100 and
# H800), twenty-four H100 configurations (FP8; NVIDIA's whole NeMo 24.07 table and Megatron-Bridge's tables from 25.09 to
# 26.04, dense and MoE), fourteen rows of NVIDIA's DGX Cloud benchmarking recipes (v24.11.1: each of seven recipes at its
# smallest scale that runs the whole model, in BF16 and in FP8 — Llama 3.1 8B, 70B and 405B, GPT-3 175B, Nemotron-4 15B
# and 340B, and a Grok-1 314B MoE
# proxy; the recipes give a step time, compared as tokens per GPU-second), nine rows of its 2025 releases (on NeMo 2.0:
# v25.05.02's Llama 3.1 405B, Nemotron-4 15B and 340B and Grok-1, each in BF16 and FP8, and v25.05's DeepSeek-V3 in
# BF16), eight
# rows of NeMo's long-sequence table (Llama 2 7B, 8K to 1024K; see below), nine rows of Megatron-Core's 2024 H100
# scaling table (bf16, GPT models from 1.7B to 462B on 48 to
# 6144 GPUs, compared in TFLOP/s by its own FLOP count) and the one Mixtral 8x7B reference layout of its MoE guide (64
# H100s; see below), ten rows of Qwen3 235B-A22B on 256 H100s from the
# Megatron-MoE-ModelZoo (a public repository of Megatron-Core MoE benchmark configurations; bf16: five layouts at 4K,
# one configuration its H100 script marks as 320 TFLOP/s, and four long-context rows from 16K to 128K, compared in
# TFLOP/s by Megatron-Core's count from 2025 on), and twelve B200 configurations: four from Megatron-Bridge's
# DGX-B200 tables of 25.09 and 25.11 (FP8 with per-tensor current scaling: Llama 3 8B on 8 GPUs and Llama 3.1 405B on
# 128, one row of each per release) and the eight rows of NeMo 25.02's DGX-B200 table (FP8 with delayed scaling: GPT-3
# 175B; Llama 3 8B, 70B and 405B; Nemotron-4 15B and 340B; and two MoE, Mixtral 8x7B and Mixtral 8x22B at 64K tokens),
# with the GPT-3 175B row (512 H100s) of the same page's DGX-H100 table, the six rows of NeMo 24.07's fine-tuning
# table (Llama 2 7B, 13B and 70B, each with supervised fine-tuning (SFT) of every weight and with LoRA; see below),
# and four GB200 NVL72 configurations from Megatron-Bridge's DGX-GB200 tables: Llama 3 8B on 8 GPUs (25.09 and 25.11)
# and Llama 3.1 405B on 256 (25.11 and 26.06), all FP8 with per-tensor current scaling.
# Each row names
# the model, GPUs, sequence length, global batch
# size (GBS) and the published parallel degrees. Each is registered with its original
# set-up: the layout (TP, CP, PP, DP, EP; and ETP where the recipe sets it, else ETP = TP) as published; the rest (micro-batch, schedule, ZeRO stage, recompute) the
# workbench searches within what the source allows. All of them only **check** the estimate, except three ModelZoo rows
# and DGX Cloud's two Llama 3.1 8B rows: Megatron-LM's Table 1 alone fits the efficiency ceiling, two ModelZoo rows
# (below) fit the host time per MoE layer, one of them and the row with the 1F1B all-to-all overlap fit how much of the
# all-to-all that overlap really hides, and the two DGX Cloud rows (BF16 and FP8) fit how much of its speed-up an
# FP8 matmul keeps (see below), so these five check nothing. A row passes when it meets four criteria: accepted; in tie group 1 or the top 10;
# within 1.25x of the best estimate; throughput within ±30 %.
#
# How efficiency carries from A100 to H100 and B200: the ceiling is the share of the best matmul a whole step keeps
# (fitted on Table 1) times the GPU's measured best bf16 matmul share of peak (A100 85.9 %, H100 80.1 %, B200 77.6 %,
# from a public table of maximum achievable matmul FLOPS, MAMF). Nothing is retuned for H100 or B200. A GPU of one of
# these generations (compute capability 8.x, 9.x, 10.x) keeps its generation's share at any peak, so a faster part of a
# generation is never estimated slower; a custom GPU without a stated compute capability takes a share interpolated
# on its peak between the two nearest generations. FP8 carries the
# same way: the FP8 matmul share fitted on H100 (0.775, below) is scaled by each GPU's best FP8 matmul share of its FP8
# peak over its best bf16 matmul share of its bf16 peak, from the same table (H100 0.882, B200 0.984: Hopper's FP8
# matmuls stay further from their peak), which gives 0.864 on a B200. The twelve B200 rows were registered without
# changing any constant for them: all twelve pass, with estimated throughput 0.89 to 1.24 of the measured.
# Megatron-Bridge's four rows reach at most 0.95, NeMo's eight between 0.98 and 1.24: on one GPU generation, another
# engine or release moves the ratio of estimate to measurement by nearly a third (1.24 / 0.95 = 1.3). Engines also
# get faster release by release: NeMo 25.02 trained GPT-3 175B
# on 512 H100s at 866 tokens per GPU-second, 11 % faster than NeMo 24.07's 782 at the same scale; the estimate is 8 %
# faster only through the TP comm overlap and bf16 gradients the newer config states, so the two rows sit at 0.75 and
# 0.73 of their measurements (both within ±30 %, both pass): on this model at this scale the estimate runs slow.
# The four GB200 NVL72 rows were also registered after the preset was written, with no constant changed for them: all
# four pass, at 0.84 to 0.94 of the measured. A GB200 node (a compute tray) holds 4 GPUs, but a rack's NVLink domain
# joins 72: the workbench treats the nodes a job fills in one domain as one "node", so every group inside it uses
# NVLink (`ClusterSpec(nvlink_domain_gpus=72)`; Megatron-Bridge's launcher splits a job into segments of at most 18
# trays, so 256 GPUs make 4 domains of 64). These four rows keep their groups inside a tray or hide their traffic
# under compute, so they pass without the domain too: they check the GB200's compute and memory, not the domain,
# whose effect shows in other layouts, such as TP 8 across two trays.

# %%
runs = all_published_runs()
comparisons = [compare_published(run) for run in runs]


# zh: 估算的单位，与这次训练发表吞吐时用的单位相同
# en: the estimate's unit, as the run reports its throughput
units = {
    "TFLOP/s/GPU": Text(zh="每 GPU {} TFLOP/s", en="{} TFLOP/s/GPU"),
    "tokens/s/GPU": Text(zh="每 GPU 每秒 {} 个 token", en="{} tokens/s/GPU"),
}
assert {c.unit for c in comparisons} == set(units)
md_table(
    [
        Text(zh="序号", en="no."),
        Text(zh="训练", en="run"),
        Text(zh="名次 / 通过数（并列组）", en="rank / accepted (tie group)"),
        Text(zh="步时 ÷ 最优", en="step ÷ best"),
        Text(zh="估算", en="estimated"),
        Text(zh="实测", en="published"),
        Text(zh="估算 ÷ 实测", en="est. ÷ published"),
        Text(zh="四条都满足", en="all four met"),
    ],
    [
        (
            number,
            run.label,
            f"{c.rank} / {c.accepted_count} ({c.tie_group})",
            f"{c.step_over_best:.3f}",
            str(units[c.unit]).format(f"{c.estimated:.0f}"),
            f"{c.published:.0f}",
            f"{c.estimated_over_published:.2f}",
            Text(zh="是", en="yes") if c.passes else Text(zh="否", en="no"),
        )
        if c.accepted
        else (
            number,
            run.label,
            Text(
                zh=f"未接受 / {c.accepted_count}",
                en=f"refused / {c.accepted_count}",
            ),
            "-",
            "-",
            f"{c.published:.0f}",
            "-",
            Text(zh="否", en="no"),
        )
        for number, (run, c) in enumerate(zip(runs, comparisons), start=1)
    ],
)
ceilings = {
    gpu: ceiling_for(CLUSTERS[f"{gpu.lower()}-8"].peak_flops)
    for gpu in ("A100", "H100", "B200")
}
print(
    Text(
        zh="效率天花板："
        + "，".join(f"{gpu} {c:.1%}" for gpu, c in ceilings.items()),
        en="Efficiency ceiling: "
        + ", ".join(f"{gpu} {c:.1%}" for gpu, c in ceilings.items()),
    )
)
shared_labels = sum(
    1 for run in runs if sum(other.label == run.label for other in runs) > 1
)
print(
    Text(
        zh=f"表中有 {shared_labels} 行与别的行标签相同："
        "那是同一个布局在另一个版本或设置下重新测的，"
        "按序号看下面的来源就能分开。",
        en=f"{shared_labels} rows share their label with another: one layout "
        "measured again in another release or setting; the sources below, by "
        "number, tell them apart.",
    )
)
print(
    Text(
        zh="来源，按表中序号（论文与表格；训练配置文件等完整出处在每次训练的 "
        "run.source 里）：",
        en="Sources by the table's number (paper and table; the full citation, "
        "with the training configs, is in each run's run.source):",
    )
)
for line in citation_lines(runs):
    print(line)
# zh: 上面列举的各组行数：论文 8、厂商 H100 表 24、DGX Cloud 14 + 9、长序列 8、
# zh: Megatron-Core 扩展表 9 与 MoE 指南 1、ModelZoo 10、B200 12、DGX-H100 1、
# zh: 微调 6、GB200 4
# en: the rows the paragraph above counts: papers 8, vendor H100 tables 24, DGX
# en: Cloud 14 + 9, long sequences 8, Megatron-Core's scaling table 9 and MoE guide
# en: 1, ModelZoo 10, B200 12, DGX-H100 1, fine-tuning 6, GB200 4
assert len(runs) == 8 + 24 + 14 + 9 + 8 + 9 + 1 + 10 + 12 + 1 + 6 + 4
refused = {c.name for c in comparisons if not c.accepted}
assert refused == set()
passed = {c.name for c in comparisons if c.passes}
by_name = {c.name: c for c in comparisons}
run_of_name = {run.name: run for run in runs}
assert {run.name for run in PUBLISHED_RUNS_2024} <= passed
# zh: 每个 Megatron-Bridge 版本的表格来源都以这一段开头
# en: every Megatron-Bridge release's table starts so
bridge = MEGATRON_BRIDGE_2511_SOURCE.split(",")[0]
# zh: 本节统计的厂商表格 H100 行：24 个配置，
# zh: 17 个稠密模型（16 个通过），7 个 MoE（3 个通过）
# en: the vendor tables' H100 rows the section counts: 24 configurations, 17 dense
# en: (16 pass) and 7 MoE (3 pass)
vendor_h100 = [
    (run, c)
    for run, c in zip(runs, comparisons)
    if run.source.startswith((NEMO_2407_SOURCE, bridge))
    and run.cluster == "h100-8"
]
vendor_counts = {
    kind: [
        c.passes
        for run, c in vendor_h100
        if run.model_spec().is_moe == (kind == "moe")
    ]
    for kind in ("dense", "moe")
}
assert len(vendor_h100) == 24
assert [(len(v), sum(v)) for v in vendor_counts.values()] == [(17, 16), (7, 3)]

# %% [markdown] lang="zh"
# NeMo 24.07 表里的 Llama 3、GPT-3、Llama 2 7B 与 13B 配置全部通过，其中 Llama 3 70B 用的正是 CP 2；Llama 3 8B 的全分片数据并行
# (FSDP，即 ZeRO-3) 与 Llama 3.1 405B 的 1024 卡 CP 2 布局也通过。Nemotron-4 340B 同样通过，靠的是把 FP8 算进显存账本：
# FP8 训练时，线性层（QKV、输出投影、MLP 的两个矩阵乘）为反向保存的是转成 FP8 之后的输入，每个元素 1 字节
# （Transformer Engine 的做法）；层归一化的输入、Q、K、V 和激活函数的输入仍按 16 位存。按它训练配置里的 bf16 梯度与 ZeRO-1，
# 若把保存的激活都按 16 位记，交错调度 (v = 12) 不重计算要 81.4 GiB，放不进 80 GiB；按 FP8 记是 76.9 GiB，
# 发表的布局就成了估算最优。（账本按配方的字节数记权重。FP8 权重取代 bf16 权重时这是准确的，NeMo 2 与 Megatron-Bridge
# 的 FP8 配方就这样做（--fp8-param-gather）。若引擎在 bf16 权重之外，还在微批次之间缓存每个线性层的 FP8 权重及其转置，
# 每个线性层参数要多占 2 字节，账本默认不计，设 fp8_weight_cache=True 才计入。NeMo 24.07 的启动配置没有写明这一项，
# 所以这份余量也要靠实测确认。）
# NeMo 24.07 的 GPT-3 5B 和 Megatron-Bridge 26.02 的 Llama 3.1 405B（全局批 1536）也通过。
# NeMo 24.07 的 GPT-3 20B（TP 2、DP 32 跨 8 个节点）也通过，靠的是 NCCL 跨节点的走法：NCCL 的环每个通道只进出每个节点一次，并把通道分到这个组
# 在该节点上各 rank 旁边的网卡上（[NCCL 的一份公开问题报告](https://github.com/NVIDIA/nccl/issues/569)：同一个 8 rank 的环形全归约 (all-reduce)，每节点 1、2、4 张卡、各用一块网卡时
# 分别用了 363、173、132 ms），所以每节点有 4 个 rank 的 DP 组跨节点时用 4 块网卡，DP 通信降到 0.30 s，全藏在一个
# 微批次之下，估算吞吐是实测的 0.92 倍。点对点的通信（PP 的点对点收发、CP 环的相邻交换、EP 的全对全）仍各走自己的网卡。
# Megatron-Core 扩展表的 9 行全部通过。其中 GPT 119B（1536 张 H100）的 92 层分成 PP 4，每段 23 层，是质数：Megatron-Core
# 的交错调度要求 v 整除每段的层数，2 到 8 都不行，只有 v = 23（每个模型块一层）可以。搜索的上限是 v = 8，只试到上限
# 的话这一行只能用 1F1B，气泡占步时的 3/19；所以上限以内没有能整除的 v 时，搜索会试能整除的最小 v，v = 23 的气泡降到 3/371，
# 发表的布局排第 2，步时在估算最优的 1.01 倍以内（吞吐是实测的 1.08 倍）。
# Megatron-Core 的 MoE 指南给出的 Mixtral 8x7B 参考布局（64 张 H100，TP 1、EP 8、PP 4、VP 8，即每个设备 8 个模型块，第 6 课的 v = 8）也通过：名次第 7
# （第 1 并列组），步时比估算最优只慢 2%，估算吞吐是实测 468 TFLOP/s 的 0.95 倍。这个实测数按 Megatron-Core 自己的计数：
# 它把分组查询注意力 (grouped-query attention, GQA)、SwiGLU 的三个矩阵和每个 token 去的 2 个专家都算进去，每 token
# 82.9 GFLOP；按稠密 GPT 层的公式（4h 宽的 MLP、不分组的注意力）去数只有它的 0.55 倍，这一行就会像只跑出了实测的一半。
# NeMo 24.07 表里的 Nemotron-3 8B（TP 2、DP 32）也通过。DGX Cloud 配方的 12 行稠密配置全部通过（其中 Llama 3.1 8B
# 两行用来标定；Llama 3.1 405B 在 576 张卡上的两行，TP 8、PP 9、CP 2、VP 7，排第 5 和第 3 名）：Nemotron-4 15B 的两行
# （TP 4、DP 4、微批次 4）步时只比估算最优（TP 1、DP 16、ZeRO-2）慢 1% 和 2%，排第 7 和第 10 名，在第 1 并列组，
# 而且相差不到 4.5%——单次实测本来就分不出这么小的差别；Nemotron-4 340B 按配方的选择性重计算与 bf16 梯度登记，
# BF16 与 FP8 两行都排第 1。Megatron-Bridge 26.04 的 Qwen3 30B-A3B（16 张 H100，EP 16）也通过：估算吞吐是实测的 0.90 倍；EP 16 跨 2 个节点，
# 全对全通信占了 17.9 s（配方关掉了 EP 全对全重叠），可把 EP 留在节点内的布局也快不了多少——它们每层在 GPU 上太短，要等主机
# 发射内核 (kernel)（见下面 ModelZoo 那几行）：估算最快的几个布局（EP 2 到 8）步时相同，都受主机所限，比如 EP 8、完全
# 重计算有 3.7 s 在等主机；发表的布局是它们的 1.13 倍。
# Megatron-Core 扩展表的 GPT 70B（768 张 H100，TP 8、PP 2；表里没写 VP，搜索取 VP 7）也通过：估算最优不切流水线（TP 8、
# DP 96、微批次 2，账本说放得下，74.6 GiB），省掉了气泡；发表的布局步时比它长 4%，排第 5 名，吞吐是实测的 1.04 倍；
# 把各维的重叠份额降低四分之一，它就追上了最优。
# Megatron-Bridge 的 DeepSeek-V3（1024 张 H100，TP 2、PP 8、VP 4、EP 64）也通过。它按 H100 运行脚本登记：DeepEP 分发、
# 1F1B 全对全重叠、梯度归约不重叠、只重计算 MLA 的上投影。这些版本的 Megatron-Core（0.13 起）把路由器的概率乘进专家的
# 激活函数，汇合 (combine) 时直接把专家输出相加，不再为反向保存它们，每个 token 少存 top_k·h 个元素；发表的 v = 4 放得下
# （57.0 GiB；若保存专家输出是 73.2 GiB）。这个模型的前三层是稠密层，账本在流水线第一段按没有专家的层去记它们；
# 多 token 预测 (multi-token prediction, MTP) 模块在最后一段，又跑一个 Transformer 块、再乘一次输出层。脚本的流水线切分
# "Et|(tt|)*30mL" 为此让两端少放层：32 个两层的分块里，第一块是嵌入层加 1 层，最后一块只有 MTP 模块和损失。登记时写成
# 首段让出 1 层、末段让出 2 层（参数 `pipeline_edge_layers=1`、`pipeline_last_edge_layers=2`），8 段依次放 7 层、
# 6 段各 8 层、6 层。配方打开了 1F1B 全对全重叠，估算按实测的份额只藏住 EP 全对全通信的 48%（见下文 ModelZoo 一条）：
# 估算步时 25.8 s，实测 25.3 s（估算吞吐是实测的 0.98 倍）；不算 MTP 模块是 22.9 s。估算最优保留同样的流水线
# （TP 2、PP 8、VP 4），只把 EP 从 64 降到 16（72.7 GiB）：跨的节点少，过 InfiniBand 的全对全通信就少；发表的布局是它的
# 1.18 倍，排第 120 名，在第 1 并列组。若两端各让出 1 层（末段多放 1 层），末段就成了最慢的一段：最优的 1.20 倍，
# 第 102 名，退到第 1 并列组的边上——流水线怎么切，本身就是布局的一部分。
# DeepSeek-V3 论文里的训练（2048 张 H800，TP 1、PP 16、EP 64）也通过。论文没写 PP 16 怎样切 61 层，估算按
# Megatron-Bridge 对 DeepSeek-V3 的切分：首段 4 层加嵌入层，中间各 4 层，末段 1 层加输出层和 MTP 模块（带 MTP 模块的
# 模型不写切分时都这样切）。DualPipe（DeepSeek-V3 的双向流水线调度：微批次从流水线两端同时送入，并让前向、反向的计算
# 与 EP 的全对全通信相互重叠）让每张卡同时承担第 i 段和第 p - 1 - i 段，两段的权重都在卡上，气泡按论文表 2 的
# (PP/2 - 1)(F&B + B - 3W) 记（F : B : W 取 1 : 2 : 1）。账本按论文 §3.3.4 记它的 FP8 框架为反向保存的激活（MoE 里
# SwiGLU 的输入存为 FP8，输出反向时重算；注意力输出只存一份 E5M6：1 位符号、5 位指数、6 位尾数，共 12 位），也和上面
# Megatron-Core 0.13 起的做法一样，汇合时不为反向保存专家输出：DeepSeek 自己的专家并行通信库 DeepEP 在训练接口里把
# 每份 token 副本的路由权重随分发送到专家一侧，汇合只做不加权的求和，权重的梯度经分发的反向传回。这样发表的布局
# 不做完全重计算就放得下（73.1 GiB），与论文说它不用张量并行就能训练相符；
# 若保存专家输出，要 102.8 GiB，就只能完全重计算。FP8 矩阵乘保留的提速是在 Transformer Engine 按整个张量缩放的矩阵乘上
# 标定的，DeepSeek 自己的细粒度（1×128 的块、128×128 的块）FP8 矩阵乘也按它算。估算吞吐是实测的 1.06 倍；
# 估算最快的是 TP 4、不分流水线、EP 256 的布局，它把 EP 的全对全几乎全藏在计算下面，
# 发表的布局是它的 1.13 倍，排第 492 名，在第 1 并列组。
# 还有两行在估算最优的 1.2 倍以内、因此在第 1 并列组，但没有哪个已知假设能让它们追上最优；它们通过，正说明估算在这个范围里
# 分不出先后（见后文“估算能排对两个实测布局的先后吗？”）：
#
# - **DGX Cloud 的 Llama 3.1 70B（BF16）**：与 FP8 那行同一布局（TP 4、PP 4、CP 2、VP 5），步时是估算最优
#   （TP 4、CP 2、DP 8，不切流水线）的 1.051 倍，排第 39 名。
# - **DGX Cloud 的 Grok-1 314B 代理模型（MoE，512 张 H100，TP 4、PP 8、CP 2、EP 8，BF16）**：配方没有设专家张量并行，
#   Megatron 默认 ETP = TP = 4，每个专家的矩阵乘再切成四份；估算偏爱 ETP 1（并行折叠）加更大的 CP，发表布局的估算步时
#   长 12%，排第 186 名，吞吐是实测的 0.91 倍。
#
# 没通过的，正是估算**漏掉**或**不确定**的东西，或者发表的布局本来就不是最快的：
#
# - **DGX Cloud 的 DeepSeek-V3（1024 张 H100，BF16，TP 2、PP 16、EP 64）**：按它的配方登记：只重计算 MLA 的上投影、
#   TP 通信不重叠、不用 CP（这个容器里的 Transformer Engine 还不能让 MLA 用上下文并行，2025 年 6 月的 2.5 版才支持），
#   首段和末段各放 3 层和 2 层（61 = 3 + 14 × 4 + 2，登记为两端让出 1 层和 2 层）。估算吞吐是实测的 1.02 倍，这个布局
#   本身估得准；没通过的是名次：EP 64 跨 8 个节点，每步 20.0 s 的全对全通信走 InfiniBand，流水线不交错时 Megatron-Core
#   不把它藏在计算下。估算最优（TP 4、PP 16、EP 8，68.0 GiB）让全对全留在节点内（2.1 s），发表的布局是它的 1.35 倍，
#   第 28 名，在第 2 并列组。两个 DeepSeek-V3 的厂商配置都用 EP 64 加流水线，估算对两者都另有所好（Megatron-Bridge 那一行
#   的最优把 EP 降到 16，差距还在第 1 并列组之内；这一行的最优用 EP 8、留在节点内）：也许是账本没算到的显存
#   （全对全的缓冲、按容量补齐的专家输入）让他们这样选，也许只是没有试过——这要实测才能定。
# - **Nemotron-3 22B（NeMo 24.07，TP 2、PP 4、VP 10）**：估算最优是 TP 1、DP 64、ZeRO-2，发表的布局慢 1.23 倍，排第
#   328 名。同一张表自己支持这个判断：宽度相同（hidden 6144）的 GPT-3 20B 在同样的 64 张卡上用 TP 2、不切流水线，
#   跑出每 GPU 750 模型 TFLOP/s，这一行只有 554。
# - **DGX Cloud 的 Grok-1 314B 代理模型（FP8）**：同一布局，FP8 时估算步时长 21%，超出了 20%，在第 2 并列组（第 218 名），
#   吞吐是实测的 1.00 倍；仍在最优的 1.25 倍以内，只差名次。DGX Cloud 2025 年的配方 (v25.05.02) 把这个模型改成了 ETP 1，
#   估算偏爱的正是它，两行（BF16 与 FP8）都通过（见后文“估算能排对两个实测布局的先后吗？”）。
#
# - **Qwen3 30B-A3B (MoE)**：名次第 22（第 1 并列组）、是最优的 1.06 倍（最优是 TP 1、DP 16、EP 4、不切流水线，
#   梯度环跨 2 个节点、每节点用 8 块网卡），但估算的吞吐约是实测的 2.8 倍。估算已经按每个
#   路由专家自己的矩阵乘形状算效率（分组矩阵乘 (grouped GEMM)：EP 8、微批次 2 时每个专家乘 4096 行 token），
#   把 token 重排 (token permutation) 与还原按显存带宽计时（含 Megatron 分发器在全对全前后按本地专家做的
#   第二次排序，连排序每步共 0.83 s），FP8 转换的显存遍历也按显存带宽计时（见下文），按配方的 EP 全对全重叠藏住实测份额的通信
#   （48%）、扣掉它占用的流式多处理器 (streaming multiprocessor, SM)，也算了等主机的时间（这个布局微批次为 2，每层在 GPU 上比主机发射它的时间长，所以不用等）；
#   仍没有建模的是逐元素运算和超出估算的那部分主机时间，按实测推算它们占了步时的大半。同一份性能文档里 25.09 版丢 token 的同一布局实测快一倍，可见这些开销之大。
#   引擎版本本身就能差这么多：26.02 版的配置（VP 12、全局批 1024、DeepEP、打开全对全重叠）实测每 GPU 每秒 5113 个 token，
#   同一配置在 26.02.01 补丁版是 9058 个，快 1.77 倍；估算正好落在后者上（1.00 倍，这一行通过），是前者的 1.77 倍，
#   没通过。没有哪个布局模型能跟上同一引擎两个版本之间的差别：这类差距只能靠在你自己的软件版本上实测来发现。
#   （表格本身也会出错：26.02 表的草稿把这一行印成 2557，旁边的 118 TFLOP/s 却对应 5113；每一行的两列互相核对，
#   才发现并改用合并后的数字。）
# - **Qwen3 235B-A22B (MoE)**：配方把专家张量并行 (expert tensor parallelism, ETP) 设成 1——Megatron-Core 的 MoE 并行折叠
#   (parallel folding) 让专家层把同样的 256 卡重新排成 ETP × EP × EDP × PP = 1 × 32 × 1 × 8，注意力层仍是 TP 2。
#   工作台把 ETP 当作一个搜索维度，这个布局被接受。配方让嵌入层和损失各占首末段一层的位置（94 + 2 = 8 × 12），
#   v = 4 不重计算要 52.7 GiB，放得下（激活全按 16 位记是 61.4 GiB；它的 Megatron-Core 把路由概率乘进专家的激活函数，
#   汇合时不再保存专家输出，见下文）。它的 32 个 EP rank 跨 4 个节点，全对全通信走 InfiniBand（配方用普通的全对全分发器，
#   不按节点去重），每步 14.4 s；配方打开了 EP 全对全重叠，估算按实测的份额只藏住 48%，露出 8.3 s：步时 19.9 s，
#   实测 20.8 s（吞吐是实测的 1.05 倍）。没通过的是名次：估算最优是 TP 1、PP 8、EP 8，EP 留在节点内，用 ZeRO-2，
#   要 78.2 GiB（80 GiB 的卡几乎装满），步时 13.5 s；发表的布局是它的 1.48 倍，第 673 名，在第 3 并列组。
#   可实测并不支持估算对节点内 EP 的偏爱：ModelZoo 在同一模型、同样 256 张卡上测过三种 EP 8 布局，没有一种比打开重叠的
#   EP 32（17.6 s）快：用 FSDP 的一样快（17.6 s），PP 32 是 24.2 s，TP 4 是 29.0 s（见下文）。估算偏爱的那个布局没人测过；
#   它可能漏了 EP 8 布局的某种开销，也可能配方确实没试过——只有实测能定。
#
# - **加大全局批的同一布局**（Megatron-Bridge 26.02 的 Qwen3 235B，全局批 8192）：结论与上面较小全局批的同一布局相同。
#   同一份表里 Llama 3 70B 的全局批 256 与 Llama 3.1 405B 的全局批 1536 两行，按同一份配方登记，都通过了。
# - **Megatron-MoE-ModelZoo 的 Qwen3 235B（256 张 H100，4K，全局批 2048）**：同一个模型、同一批卡上实测的 5 种布局，
#   正好检验估算能不能排对顺序。表里的 TFLOP/s 是 Megatron-Core 日志里的数，跑的代码是 2025 年 5 月的 Megatron-LM 主干
#   （已含 3 月改过的计数：因果注意力只算一半、按专家宽度计 MoE），EP 32 两行是 2025 年年中 MoE 开发分支的一个版本：
#   按这个计数每步 1.2418e18 FLOP，拿表里的步时一除就得到表里的数（19.7 s 对应 246.2，表里是 245；EP 32 的两行
#   也对得上），用旧计数会高 13%。每行按它的启动脚本登记：TP 通信重叠 (`--tp-comm-overlap`)、分布式优化器
#   (ZeRO-1)、嵌入层与损失各占一层的流水线切分；DeepEP 分发器每个 token 对每个目标节点只过一次 InfiniBand，送到那个节点
#   上同一序号的 GPU 再经 NVLink 转发（DeepSeek-V3 §3.2.1），所以跨节点的对端是其余每个节点各一张卡，而不是每个节点外的
#   EP rank；“norm, act” 是 Megatron-Core 的模块级重计算 (module-level recomputation)：丢掉 MoE 层前归一化的输出和专家
#   激活函数的输出、反向前再算一遍，工作台用 `recompute_modules` 表达它。实测的顺序是：EP 32 加 1F1B 重叠与 EP 8 加 FSDP
#   最快（都是 17.6 s），EP 32 不重叠 19.7 s，PP 32 24.2 s，TP 4 最慢 29.0 s。估算（EP 32 不重叠与 TP 4 两行用来标定
#   MoE 每层的主机时间，见倒数第二条；EP 32 不重叠与打开重叠的两行用来标定重叠的份额，见第二条；这三行都不算检验）：
#   - EP 32、DeepEP，不重叠：全对全每步 5.8 s，全部露在外面，估算 19.3 s（吞吐比实测高 2%），是最优估算的 1.22 倍
#     （第 24 名，第 2 并列组）；估算最优同样是 TP 2、PP 8，只把 EP 换成 16：EP 16 只跨 2 个节点，一个 token 只需过一次
#     InfiniBand 到另一个节点，EP 32 跨 4 个节点时平均要到其余 3 个节点中的 2.7 个。
#   - 同一布局加 1F1B 全对全重叠（`--overlap-moe-expert-parallel-comm`：一个微批次的前向与另一个的反向合在一起跑，
#     分发和汇合的通信在对方的注意力或专家计算下进行）：实测从 19.7 s 降到 17.6 s，快 1.127 倍。若把重叠当作完全藏住，
#     估算会是 14.8 s、快 1.31 倍；估算因此只让这种重叠藏住 EP 全对全通信的 48%（`EP_A2A_OVERLAP_ON`，就在这一对上标定，
#     取使估算的加速等于实测的值，精确到 0.01）。预热与收尾时单独跑的前向、反向和全对全占用的 SM 已另外算过，剩下的
#     差距这张表说不清原因（两个微批次的内核争抢显存带宽是可能之一），所以按实测标定，而不是假设。按它估算 17.2 s，
#     估算吞吐是实测的 1.02 倍，第 12 名（第 1 并列组），最优的 1.14 倍（最优同样是 TP 2、PP 8，EP 换成 16）。
#     同样打开这种重叠的 Megatron-Bridge 各行只用来检验：把重叠当作完全藏住时，Qwen3 235B 的两行、DeepSeek-V3 一行的
#     估算吞吐比实测高 39%、37%、16%；按实测的份额，是高 5%、高 3%、低 2%。DeepSeek-V3 自己的 DualPipe 是围绕这种重叠设计的，仍按完全藏住计。
#   - EP 8、FSDP（全重计算，微批次 4）：表里没写 FSDP 的切分方式，显存只容得下 ZeRO-3；Megatron 的 FSDP 在这种方式下
#     每个微批次的前向和反向都全收集参数、每个微批次之后归约散射梯度，每卡 284 亿专家参数跨 32 个节点
#     往返，通信 18.1 s，比 16.0 s 的计算还多，露出 4.7 s：估算 20.7 s（0.85 倍），最优的 1.25 倍，第 2 并列组。
#   - PP 32、VP 3（全对全分发器）：把重计算模块写进去后，发表的 v = 3 才放得下（75.4 GiB，不写是 83.2 GiB）；94 层加
#     两个边缘位置分给 32 段，末段是 2 层加输出层（151936 × 4096，按 FLOP 算约 2.1 层），计算 17.1 s，别的布局是
#     13.3 到 16.0 s：估算 19.2 s（吞吐 1.26 倍），最优的 1.16 倍，排第 12 名，但在第 1 并列组，通过：若主机发射每个 MoE 层
#     的时间多一半，估算最优（PP 8、不交错）的层要等主机，而 PP 32 每段的层少、末段还带着输出层，GPU 上的活更长，
#     就不比它慢——要判断，得实测主机时间（见下一条）。
#   - TP 4、EP 8：实测最慢 (29.0 s)，估算也最慢：29.0 s（吞吐 1.00 倍），是最优的 1.78 倍。TP 4 让每张卡跑 256 个微批次、
#     每个 12 层，层的前向加反向次数是 TP 2 各行的两倍，每次的工作量只有一半。这里起作用的是主机 (host) 开销：两种分发器
#     在每个 MoE 层的前向都让 CPU 等 GPU 一次（要先把各专家的 token 数拿到 CPU 上：Megatron-Core 的全对全分发器如此，
#     DeepEP 的说明也写着“CPU 会等 GPU 的信号”），CPU 没法提前发射后面的内核，所以一层至少要花 CPU 发射它的时间
#     （Python、框架、内核启动）。Megatron-Core 的 MoE 指南把它列为“CPU 开销瓶颈”，办法正是减小 TP 或加大微批次。
#     估算取每个 MoE 层一个微批次前向加反向的主机时间为 9.4 ms：这个数由这一行和 EP 32 不重叠那一行的实测之比拟合
#     （不加主机时间时，估算认为 TP 4 比 TP 2 还快 15%；实测它只有 TP 2 的 0.68 倍），所以这两行只用来标定。
#     按它，TP 4 每步 3072 次层计算共有 12.1 s 在等主机；这是一个假设，不确定度按一半计（“并列”时会拿它减半、加一半各比一次）。
#   - 同一仓库的 H100 脚本给出另一个数据点：1F1B 重叠那一行的布局，再用 CUDA Graph 包住路由器和分发的预处理，
#     注明 320 TFLOP/s，按计数是每步 15.2 s，比表里的 17.6 s 少 2.4 s，每次层计算约 1.6 ms（每步 1536 次）。这一行的
#     层在 GPU 上比 9.4 ms 长，估算不让它等主机，给的仍是 17.2 s（吞吐是实测的 0.88 倍），通过；可 CUDA Graph 实测省下的
#     2.4 s 说明：层比主机时间长时，主机时间也没有全藏住（每次等待之后，GPU 要等 CPU 发射下一个内核才能接着算）。
#     估算把两者取较大值，只是一个下限。
# - **同一仓库的长上下文表（Qwen3 235B，TP 4、PP 8、VP 4、EP 8，CP 1 到 8，序列 16K 到 128K，全局批 256）**：按它的命令
#   登记 `--recompute-modules layernorm moe`（整个 MoE 块重计算：只留块的输入，反向时把路由、分发、专家、汇合再跑一遍，
#   全对全也多两次），比较强制负载均衡的数（工作台假设路由均匀）。这几行检验注意力的计时：128K 时按 PaLM 计数，注意力的
#   两个矩阵乘约占执行 FLOP 的九成。因果掩码下融合注意力只算下三角那一半的查询-键对（Megatron-Core 2025 年的
#   计数也只算一半），而它的核比普通矩阵乘慢：FlashAttention-3 论文在 H100 上实测（每头维度 128、序列 4K 到 16K）前向约
#   644、反向约 554 TFLOP/s（反向按 2.5 倍前向计），折成训练计数是最佳矩阵乘 792.1 TFLOP/s 的 0.624。估算于是在这样长的序列上把注意力
#   核心每计一个 FLOP 记成约 0.5 / 0.624 = 0.80 个线性层 FLOP；2021 到 2022 年的引擎（Megatron-LM 表 1、训练 MT-NLG 与 BLOOM
#   的 Megatron-DeepSpeed）还没有融合注意力，仍按全部计（表 1 上标定出的天花板是 0.524）。序列越短，这个核越慢（同一组
#   实测：1K 个 token 时是最佳矩阵乘的 0.49，2K 时 0.57，4K 时 0.61）；有上下文并行时，每次调用只跑一个 rank 的 s/cp 个
#   token：4K 的序列用 CP 2，每计一个 FLOP 要花 0.5 / 0.57 = 0.87 个线性层 FLOP，不用 CP 是 0.5 / 0.61 = 0.82。把短序列
#   切开要付出注意力变慢的代价，CP 不是白来的。这样四行都通过（第 1
#   并列组，步时在最优的 1.024 倍以内）。吞吐是实测的 0.89、0.82、0.75、0.72 倍，仍随序列变长而变差：随序列增长的
#   还有别的开销没有建模。
# - **换一个注意力内核 (attention kernel)**：上面的速度是 FlashAttention-3 的，它为 Hopper 编写（用 Hopper 新增的异步矩阵乘指令 wgmma 和张量内存加速器 (Tensor Memory Accelerator, TMA)）；
#   2023 到 2024 年的不少引擎在 H100 上跑的还是为 Ampere 编写的 FlashAttention-2。同一篇论文的图里，它在 H100 上 4K 到 16K
#   的前向约 369、反向约 317 TFLOP/s，折成训练计数是最佳矩阵乘的 0.357，只有 FlashAttention-3 的 0.57；每计一个注意力核心
#   FLOP 要花 0.5 / 0.357 = 1.40 个线性层 FLOP，而不是 0.80。`WorkloadSpec(attention_kernel="flash-attention-2")`
#   （命令行 `--attention-kernel flash-attention-2`）按它计；`"cudnn"` 按同一组图里 cuDNN 的数计（0.578，Transformer
#   Engine 在 H100 上默认调用它）。这两组数只在 H100 上测过，所以只用于计算能力 9.x 的集群；默认值仍是 FlashAttention-3。
#   MosaicML 公布的 MPT 训练基准（llm-foundry，H100，2023 到 2024 年，没有登记进工作台、也没有用来标定）可以检验它：
#   77 行 H100 里，按默认内核通过 58 行；没通过的 19 行都是 13B 及以下的模型，其中 17 行的序列在 8K 及以上，估算快了最多 1.8 倍；
#   按 FlashAttention-2 计，77 行都通过。先弄清引擎用的是哪个内核，长序列的估算才可信。
#
# MoE 各行的结果取决于模型和引擎的两个细节，两者都容易算错。其一，输出层拿隐藏状态（Qwen3 235B 的 h = 4096）去乘词表，
# 每 token 6·V·h 次 FLOP，用的不是注意力的宽度（64 个头 × 128 = 8192）；对头比隐藏层宽的模型（Qwen3、DeepSeek-V3 的 MLA），
# 若取较宽的那个，末段多出的工作会被算成两倍以上，每种深流水线都会吃亏。其二，Megatron-Core 的全对全分发器
# (all-to-all dispatcher) 让每个 rank 只发出自己的序列并行份额（s/tp 个 token，每个 top_k 份），之后才在专家张量并行组内
# 全收集（token_dispatcher.py：先 “A2A(EP)” 再 “AG(TP)”）；若按 ETP 组收齐后的量 (s·etp/tp) 发送，在 ETP = TP 时
# 会多算 ETP 倍。DeepEP 所用的 flex 分发器 (flex dispatcher) 确实把 token 发给专家的每个 ETP rank，估算对它就这样算。
#
# Llama 3 405B 的三行按论文 (arXiv 2407.21783 §3.3.2) 登记：全分片数据并行只切梯度和优化器状态、前向之后不再把权重切回去，
# 即 ZeRO-2；首末两段各少一层，于是“第一段的第一个模型块只有嵌入层，最后一段的最后一个模型块只有输出层和损失”——每个模型块
# 一层，PP 16 时 v = (126 + 2) / 16 = 8；8K 时不做激活重计算。按 Megatron-Core 交错调度的预热数，v = 4 时第二个流水线 rank
# 同时存着 32 个微批次中 77 个两层分块的激活，不重计算每卡要 85 GiB，放不进 80 GiB；v = 8 时是 141 个一层分块，
# 每卡 79 GiB，放得下，气泡从 1F1B 的 15/47 降到 15/271。三行都进了第 1 并列组：8192 卡的 8K 行排第 1；16384 卡的两行排第 2，
# 步时都在估算最优的 1.01 倍以内（估算最优同样是 TP 8，只把流水线从 16 段减到 8 段、DP 加倍）。
# 这种切法如今 Megatron-Core 也有（2025 年 2 月起的 `--account-for-embedding-in-pipeline-split` 与
# `--account-for-loss-in-pipeline-split`）。工作台默认在它能把不均匀的切分变均匀的地方用它（层数不能被段数整除、加 2 后能），
# 别处不用；`pipeline_edge_layers=0` 关掉它（2025 年以前的引擎、没开这两个选项的配置），写一个数则照用。
#
# Megatron-Bridge 的 Llama 3 70B 按配方登记 TP 通信重叠和 bf16 梯度 (`grad_reduce_in_fp32 = False`)。配方没有设
# `account_for_embedding_in_pipeline_split` / `account_for_loss_in_pipeline_split`，Megatron-Core 于是把 80 层平均分给
# 8 段，末段除了 10 层还要带 12.8 万词表的输出层（约一层的计算量）。估算最优是 TP 4、CP 2、DP 8、不切流水线，发表的布局
# 步时是它的 1.09 倍；估算最优的 DP 和 CP 通信跨节点（DP 环每节点 2 个 rank，用 2 块网卡），而发表的布局的 DP 组在节点内，
# 把各维的重叠份额降低四分之一，估算最优露出的通信更多，发表的布局就追上了，于是两者进了同一个并列组：
# 谁快取决于通信藏住了多少，只有实测能定。
#
# MT-NLG 与 BLOOM 是用 Megatron-DeepSpeed 训练的，它没有上下文并行，这几行只搜 CP 1（`max_cp=1`）；MT-NLG 420 节点
# 于是进了前 10 名。估算仍偏爱 7 段流水线而不是发表的 35 段：每个数据并行组的微批次数随段数成比例增长，气泡 (p - 1)/m
# 却随 p 变大，也没有只有 3 层却还要带输出层的末段；差距在 1.1 倍以内，在估算声明的不确定度之内。
#
# BLOOM 按 BigScience 的切分登记：首末两段各少一层、各放一份嵌入层（25 万词表的嵌入层和一层差不多大），
# 于是各段差不多一样重，发表的布局进了第 1 并列组。Llama 3 405B 的 128K 布局（CP 16）也进了第 1 并列组：Llama 3 的上下文并行
# 先全收集全部 K、V 再算本地查询，论文说这次全收集露在关键路径上 (arXiv 2407.21783 §3.3.2)，
# 这几行于是把 CP 的重叠记为 0，把序列切得更宽（CP 32、64）也就显得不便宜了。


# %% [markdown] lang="en"
# The Llama 3, GPT-3, Llama 2 7B and 13B configurations of NeMo 24.07's table all pass, and the Llama 3 70B one runs CP 2; so do Llama 3
# 8B with fully sharded data parallelism (FSDP, i.e. ZeRO-3) and Llama 3.1 405B's 1024-GPU layout with CP 2. So does
# Nemotron-4 340B, once the memory ledger counts FP8: in FP8 training the linear layers (QKV, output projection, the
# MLP's two matmuls) save their input for backward after the cast to FP8, 1 byte per element (what Transformer Engine
# does); layer-norm inputs, Q, K, V and the activation function's input stay 16-bit. With its training config's bf16
# gradients and ZeRO-1, counting every saved activation at 16 bits puts the interleaved schedule (v = 12) without
# recomputation at 81.4 GiB, over 80 GiB; counted in FP8 it is 76.9 GiB, and the published layout becomes the best
# estimate. (The ledger counts the weights at the recipe's bytes. That is exact when FP8 weights replace the bf16
# ones, as NeMo 2's and Megatron-Bridge's FP8 recipes do (--fp8-param-gather). An engine that also caches each linear
# layer's FP8 weight and its transpose between micro-batches, beside the bf16 weight, needs 2 more bytes per
# linear-layer parameter, which the ledger counts only with fp8_weight_cache=True. NeMo 24.07's launcher config does
# not say which it ran, so this margin, too, is for a measurement to confirm.) NeMo 24.07's GPT-3 5B and
# Megatron-Bridge 26.02's
# Llama 3.1 405B (GBS 1536) pass too.
# NeMo 24.07's GPT-3 20B (TP 2, DP 32 over 8 nodes) passes as well, because of how NCCL crosses nodes: its rings enter and leave each node once per
# channel and spread the channels over the NICs next to the group's ranks on that node ([a public NCCL issue report](https://github.com/NVIDIA/nccl/issues/569): one 8-rank
# ring all-reduce over 1, 2 and 4 GPUs a node, each on its own NIC, took 363, 173 and 132 ms), so a DP group with 4
# ranks a node crosses nodes on 4 NICs; its DP traffic drops to 0.30 s and hides entirely under one
# micro-batch, 0.92x the measured throughput. Point-to-point traffic (PP's send/recv, the CP ring's neighbour
# exchange, EP's all-to-all) still leaves on each rank's own NIC. All 9 rows of
# Megatron-Core's scaling table pass. Its GPT 119B (1536 H100s) puts 92 layers over PP 4, 23 a stage, a prime:
# Megatron-Core's interleaved schedule needs v to divide every stage's layers, which 2 to 8 do not and only
# v = 23 (one layer per model chunk) does. The search's bound is v = 8; stopping there would leave this row at 1F1B
# with a bubble of 3/19 of the step, so when no v within the bound splits the stages it tries the smallest v that does,
# and at
# v = 23 the bubble falls to 3/371 and the published layout ranks 2nd, its step within 1.01x of the best estimate
# (1.08x the measured throughput). The Mixtral 8x7B reference mapping of Megatron-Core's MoE guide (64 H100s, TP 1,
# EP 8, PP 4, VP 8: 8 model chunks per device, lesson 6's v = 8) passes too: rank 7 (tie group 1), its step within 2% of the best estimate, its estimated throughput 0.95x
# the measured 468 TFLOP/s. That figure is in Megatron-Core's own count, which includes grouped-query attention (GQA),
# SwiGLU's three matrices and the 2 experts each token goes to: 82.9 GFLOP per token; the dense GPT-layer formula
# (a 4h MLP, ungrouped attention) counts only 0.55x of it, and the row would look as if it ran at half its measured
# speed. NeMo 24.07's Nemotron-3 8B (TP 2, DP 32) passes too. All 12 of the DGX Cloud recipes' dense rows pass (the two
# Llama 3.1 8B rows among them fit a constant; Llama 3.1 405B's two rows on 576 GPUs, TP 8, PP 9, CP 2, VP 7, rank 5th
# and 3rd):
# Nemotron-4 15B's two rows (TP 4, DP 4, micro-batch 4) are only 1 % and 2 % slower than the best estimate (TP 1,
# DP 16, ZeRO-2) and rank 7th and 10th, in tie group 1 and within 4.5 % — one measurement each could not tell so
# small a difference anyway; Nemotron-4 340B, registered with its recipe's selective recomputation and
# bf16 gradients, ranks 1st in BF16 and in FP8. Megatron-Bridge 26.04's Qwen3 30B-A3B (16 H100s,
# EP 16) passes too: its estimated throughput is 0.90x the measured; EP 16 spans 2 nodes and its all-to-all takes 17.9 s
# (the recipe turns the EP all-to-all overlap off), yet the layouts that keep EP inside a node are not much faster:
# their layers are so short on the GPU that they wait for the host to launch kernels (see the ModelZoo rows below): the
# fastest estimates (EP 2 to 8) take the same step, bound by the host (EP 8 with full recomputation, for one, waits
# 3.7 s for it), and the published layout is 1.13x of them.
# Megatron-Core's GPT 70B (768 H100s, TP 8, PP 2; the table gives no VP, the search takes VP 7) passes too: the best
# estimate drops the pipeline (TP 8, DP 96, micro-batch 2, which the ledger lets fit at 74.6 GiB) and with it the
# bubble; the published layout's step is 4 % longer, rank 5, at 1.04x the measured throughput, and with every overlap
# share a quarter lower it catches up with the best.
# Megatron-Bridge's DeepSeek-V3 (1024 H100s, TP 2, PP 8, VP 4, EP 64) passes too. It is registered as its H100 run
# script sets it: DeepEP's dispatcher, the 1F1B all-to-all overlap, no overlap of the gradient reduction, only MLA's
# up-projections recomputed. The Megatron-Core these releases run (0.13 on) multiplies the router's probabilities
# into the experts' activation, so the combine adds the expert outputs up as they are and keeps no copy of them for
# backward, top_k·h elements less per token; the published v = 4 fits (57.0 GiB; 73.2 GiB if the outputs were kept).
# The model's first three layers are dense, and the ledger counts them without experts on the first pipeline stage;
# the multi-token prediction (MTP) module sits on the last stage, running one more transformer block and the output
# layer once more. The script's pipeline layout "Et|(tt|)*30mL" makes room for this at both ends: of 32 two-layer
# chunks, the first holds the embedding and 1 layer, the last only the MTP module and the loss. It is registered as
# the first stage giving up 1 layer and the last 2 (`pipeline_edge_layers=1`, `pipeline_last_edge_layers=2`): the
# 8 stages hold 7 layers, 8 on each of the 6 middle ones, and 6. The recipe turns the 1F1B all-to-all overlap on, and
# the estimate lets it hide the measured 48 % of EP's all-to-all (see the ModelZoo point below): the estimated step is
# 25.8 s against the measured 25.3 s (0.98x the measured throughput); without the MTP module it would be 22.9 s. The
# best estimate keeps the same pipeline (TP 2, PP 8, VP 4) and cuts EP from 64 to 16 (72.7 GiB): fewer nodes to
# cross, less all-to-all over InfiniBand; the published layout is 1.18x of it, rank 120, tie group 1. Had both ends
# given up 1 layer (one more on the last stage), the last stage would be the slowest: 1.20x the best, rank 102, at
# the edge of tie group 1. How the pipeline is split is part of the layout.
# DeepSeek-V3's own run (2048 H800s, TP 1, PP 16, EP 64) passes too. The paper does not say how PP 16 splits the 61
# layers; the estimate takes Megatron-Bridge's split of DeepSeek-V3: the embedding and 4 layers on the first stage, 4
# on each middle one, and 1 layer with the output layer and the MTP module on the last (every model with MTP modules
# is split so when no split is stated). DualPipe (DeepSeek-V3's bidirectional pipeline schedule: micro-batches enter
# from both ends of the pipeline, and forward and backward compute overlap EP's all-to-all) runs stage i and stage
# p - 1 - i on each GPU, which holds both stages' weights, and the bubble is Table 2's (PP/2 - 1)(F&B + B - 3W)
# (F : B : W taken as 1 : 2 : 1). The ledger counts what the report's FP8 framework keeps for backward (§3.3.4: the MoE
# SwiGLU's input in FP8, its output recomputed; the attention output once, in E5M6: 1 sign, 5 exponent and 6 mantissa
# bits, 12 in all), and, as with Megatron-Core from 0.13 above, the combine keeps no copy of the experts' outputs:
# DeepEP, DeepSeek's own expert-parallel library, sends each token copy's router weight to the experts' side with the
# dispatch in its training interface, the combine sums unweighted, and the weights' gradient comes back through the
# dispatch's backward. The published layout then fits without full recomputation (73.1 GiB), as the paper says it
# trains without tensor parallelism;
# keeping the experts' outputs it would need 102.8 GiB and full recomputation. The share of its speed-up an FP8 matmul
# keeps, fitted on Transformer Engine's per-tensor-scaled matmuls, is applied to DeepSeek's own fine-grained (1×128
# tile, 128×128 block) FP8 matmuls too. The estimated throughput is 1.06x the measured;
# the fastest estimate is a TP 4 layout without a pipeline at EP 256, which hides almost all of EP's all-to-all under
# compute, and the published layout is 1.13x of it, rank 492, tie group 1.
# Two more rows are within 1.2x of the best estimate, so in tie group 1, though no known assumption lets them catch up
# with it; that they pass says the estimate cannot order layouts this close (see "Can the estimate order two measured
# layouts?" below):
#
# - **DGX Cloud's Llama 3.1 70B (BF16)**: the layout of the FP8 row (TP 4, PP 4, CP 2, VP 5), 1.051x the best estimate
#   (TP 4, CP 2, DP 8, no pipeline), rank 39.
# - **DGX Cloud's Grok-1 314B proxy (MoE, 512 H100s, TP 4, PP 8, CP 2, EP 8, BF16)**: the recipe sets no expert tensor
#   parallelism, so Megatron's default ETP = TP = 4 splits each expert's matmuls four ways again; the estimate prefers
#   ETP 1 (parallel folding) with more CP: the published layout's estimated step is 12 % longer, rank 186, at 0.91x
#   the measured throughput.
#
# The misses are what the estimate **leaves out** or is **unsure of**, or a published layout that is not the fastest:
#
# - **DGX Cloud's DeepSeek-V3 (1024 H100s, BF16, TP 2, PP 16, EP 64)**: registered as its recipe sets it: only MLA's
#   up-projections recomputed, no TP comm overlap, no CP (that container's Transformer Engine could not yet run MLA
#   with context parallelism; version 2.5, June 2025, added it); its first and last stage hold 3 and 2 layers
#   (61 = 3 + 14 × 4 + 2, registered as the ends giving up 1 and 2 layers). The estimated throughput is 1.02x the
#   measured, so the layout itself is estimated well; what misses is the rank. EP 64 spans 8 nodes, and 20.0 s of
#   all-to-all per step cross InfiniBand, which Megatron-Core does not hide under compute when the pipeline is not
#   interleaved. The best estimate (TP 4, PP 16, EP 8, 68.0 GiB) keeps the all-to-all inside a node (2.1 s); the
#   published layout is 1.35x of it, rank 28, tie group 2. Both vendor configurations of DeepSeek-V3 run EP 64 with a
#   pipeline, and the estimate prefers something else for each (for the Megatron-Bridge row EP 16, though within tie
#   group 1; here EP 8 inside a node): perhaps memory the ledger leaves out (all-to-all
#   buffers, expert inputs padded to capacity) led to that choice, perhaps nobody tried. Only a measurement settles
#   it.
#
# - **Nemotron-3 22B (NeMo 24.07, TP 2, PP 4, VP 10)**: the best estimate is TP 1, DP 64, ZeRO-2, and the published
#   layout is 1.23x slower, rank 328. The same table agrees: GPT-3 20B, as wide (hidden 6144), on the same 64 GPUs
#   with TP 2 and no pipeline ran 750 model TFLOP/s per GPU, this row 554.
# - **DGX Cloud's Grok-1 314B proxy (FP8)**: the same layout is 21 % longer in FP8, beyond 20 %, so in tie group 2
#   (rank 218), at 1.00x the measured throughput; within 1.25x of the best, it misses only on rank. DGX Cloud's 2025
#   recipe (v25.05.02) moved this model to ETP 1, the layout the estimate prefers, and both its rows (BF16 and FP8) pass
#   (see "Can the estimate order two measured layouts?" below).
#
# - **Qwen3 30B-A3B (MoE)**: rank 22 (tie group 1) and 1.06x the best (TP 1, DP 16, EP 4 without a
#   pipeline, its gradient rings crossing the 2 nodes on 8 NICs each), but the estimated throughput is about 2.8 times the
#   measured one. The estimate already takes each routed expert's efficiency from its own matmul shape (a grouped GEMM:
#   at EP 8 and micro-batch 2 each expert multiplies 4096 token rows), times token permutation and unpermutation at memory bandwidth,
#   with the second sort by local expert Megatron's dispatcher runs around the all-to-all (0.83 s a step, sorts
#   included), times the
#   FP8 casts' passes over memory at memory bandwidth too (see below), and hides the share of the all-to-all the
#   recipe's EP overlap was measured to hide (48 %), minus the SMs it holds, and charges the wait for the host (none
#   here: at micro-batch 2 each layer is longer on the GPU than the host's time to launch it); still left out are
#   elementwise kernels and host time beyond the estimate's, which by the measurement take most of the step. The
#   same document's 25.09 token-dropping run of this layout measured twice the throughput: these costs are large.
#   Releases of the engine alone differ this much: the 26.02 config (VP 12, global batch 1024, DeepEP, the all-to-all
#   overlap on) measured 5113 tokens per GPU-second, and the same config in the 26.02.01 patch release 9058, 1.77x
#   more; the estimate lands on the latter (1.00x, that row passes) and is 1.77x the former, which does not pass. No
#   layout model can follow the difference between two releases of one engine: only measuring on your own software
#   version finds such gaps. (Tables err too: the 26.02 table's draft printed this row as 2557 beside the same
#   118 TFLOP/s, which means 5113; checking each row's two columns against each other found it, and the merged
#   figure is used.)
# - **Qwen3 235B-A22B (MoE)**: the recipe sets expert tensor parallelism (ETP) to 1 — Megatron-Core's MoE parallel
#   folding lays the same 256 GPUs out again for the expert layers as ETP × EP × EDP × PP = 1 × 32 × 1 × 8, while
#   attention keeps TP 2. The workbench searches ETP as a dimension and accepts the layout. The recipe's pipeline
#   split counts the embedding and the loss as a layer each (94 + 2 = 8 × 12); v = 4 without
#   recomputation needs 52.7 GiB and fits (61.4 GiB with every activation counted at 16 bits; its Megatron-Core
#   multiplies the router's probabilities into the experts' activation and keeps no copy of their outputs, see above). Its 32 EP ranks span
#   4 nodes and the all-to-all over InfiniBand (the recipe runs the plain all-to-all dispatcher, which does not send a
#   token once per node) takes 14.4 s a step; the recipe turns the EP all-to-all overlap on, and the estimate lets it
#   hide the measured 48 %, leaving 8.3 s exposed: a 19.9 s step against the measured 20.8 s (1.05x the measured
#   throughput). What misses is the rank: the best estimate runs TP 1, PP 8 and EP 8, keeping EP inside a node, with
#   ZeRO-2 at 78.2 GiB (an 80 GiB card nearly full), a 13.5 s step; the published layout is 1.48x of it, rank 673,
#   tie group 3. The measurements do not bear out the estimate's preference for EP inside a node: the ModelZoo measured
#   three EP 8 layouts of this model on the same 256 GPUs, and none beat EP 32 with the overlap (17.6 s): the one with
#   FSDP tied it, PP 32 ran 24.2 s and TP 4 29.0 s (see below). Nobody measured the layout the estimate prefers; the
#   estimate may leave out a cost of EP 8 layouts, or the recipe may not have tried it. Only a measurement settles it.
#
# - **The same layout at a larger global batch** (Megatron-Bridge 26.02's Qwen3 235B at GBS 8192): the same verdict
#   as the same layout at the smaller batch above. The same table's Llama 3 70B at GBS 256 and Llama 3.1 405B at
#   GBS 1536, registered with the same recipes, both pass.
# - **The Megatron-MoE-ModelZoo's Qwen3 235B (256 H100s, 4K, GBS 2048)**: five layouts measured for the same model on
#   the same GPUs, a direct test of whether the estimate orders them right. The table's TFLOP/s are Megatron-Core's
#   logged figures. Most rows ran Megatron-LM's main branch of May 2025, which has the count as changed in March
#   2025 (causal attention at half, MoE at the experts' width), the two EP 32 rows a mid-2025 build of its MoE development
#   branch: by that
#   count a step is 1.2418e18 FLOPs, which divided by the table's step times gives the table's figures (19.7 s:
#   246.2, the table says 245; the EP 32 rows match too); the older count is 13 % higher. Each row is registered as
#   its launch script sets it: TP communication overlap (`--tp-comm-overlap`), the distributed optimizer (ZeRO-1), a pipeline
#   split that counts the embedding and the loss as a layer each; the DeepEP dispatcher sends a token over InfiniBand
#   once per target node, to the GPU with the same in-node index there, which forwards it over NVLink (DeepSeek-V3
#   §3.2.1), so a rank's inter-node peers are one GPU on each other node rather than every off-node EP rank; "norm,
#   act" is Megatron-Core's module-level recomputation: the MoE layer's pre-MLP norm output and the experts'
#   activation output are discarded and recomputed before backward, which the workbench states as
#   `recompute_modules`. Measured order: EP 32 with the 1F1B overlap and EP 8 with FSDP fastest (17.6 s each), EP 32
#   without the overlap 19.7 s, PP 32 24.2 s, TP 4 slowest at 29.0 s. The estimate (the EP 32 row without the overlap
#   and the TP 4 row fit the host time per MoE layer, the last point but one; the EP 32 rows without and with the
#   overlap fit the overlap's share, the next point; these three check nothing):
#   - EP 32, DeepEP, no overlap: the all-to-all is 5.8 s a step, all exposed; 19.3 s (2 % above the measured
#     throughput), 1.22x the best estimate (rank 24, tie group 2); the best keeps TP 2 and PP 8 and runs EP 16, which
#     spans 2 nodes, so a token crosses InfiniBand once, to the one other node, where at EP 32 (4 nodes) it reaches
#     2.7 of the 3 others.
#   - The same layout with the 1F1B all-to-all overlap (`--overlap-moe-expert-parallel-comm`: one micro-batch's
#     forward runs merged with another's backward, so each dispatch or combine runs beside the other pass's attention
#     or experts): measured, the step falls from 19.7 s to 17.6 s, 1.127x faster. Taking the overlap as complete, the
#     estimate would give 14.8 s, 1.31x faster; so it lets this overlap hide 48 % of EP's all-to-all
#     (`EP_A2A_OVERLAP_ON`, fitted on this pair alone: the share, to 0.01, at which the estimated gain equals the
#     measured one). The warm-up and cool-down passes that run alone and the SMs the all-to-all holds are counted
#     apart; what holds the rest back the table does not say (the two micro-batches' kernels contending for memory
#     bandwidth is one candidate), so the share is measured, not assumed. By it the step is 17.2 s.
#     The estimated throughput is 1.02x the measured; rank 12 (tie group 1), 1.14x the best (which keeps TP 2 and PP 8
#     and runs EP 16). Megatron-Bridge's
#     rows with the same overlap only check it: with the overlap taken as complete, the estimated throughput of the two
#     Qwen3 235B rows and the DeepSeek-V3 row would be 39 %, 37 % and 16 % above the measured; at the measured share it
#     is 5 % and 3 % above and 2 % below. DeepSeek-V3's own DualPipe, built
#     around the overlap, is still taken as complete.
#   - EP 8 with FSDP (full recomputation, micro-batch 4): the table does not say how FSDP shards, and memory leaves
#     ZeRO-3; in that mode Megatron's FSDP all-gathers the parameters for every micro-batch's forward and backward and
#     reduce-scatters the gradients after every micro-batch, each rank's 28.4 billion expert parameters travelling over
#     32 nodes: 18.1 s of traffic against 16.0 s of compute, 4.7 s exposed: 20.7 s (0.85x), 1.25x the best, tie group 2.
#   - PP 32, VP 3 (all-to-all dispatcher): with the recomputed modules stated, the published v = 3 fits (75.4 GiB;
#     83.2 GiB without); 94 layers and the two edge slots over 32 stages leave the last stage 2 layers and the output
#     layer (151936 × 4096, about 2.1 layers of FLOPs): 17.1 s of compute against 13.3 to 16.0 s on the other layouts, a
#     19.2 s step (1.26x the throughput), 1.16x the best, rank 12, yet in tie group 1, so it passes: were the host's
#     time per MoE layer half as long again, the best (PP 8, no interleaving) would wait for the host, while PP 32's
#     stages, with few layers and the output layer on the last, keep the GPU busy longer, and it would be no slower;
#     measuring the host time (the next point) decides.
#   - TP 4, EP 8: measured the slowest (29.0 s), and estimated the slowest too: 29.0 s (1.00x the throughput), 1.78x the
#     best. With TP 4 each GPU runs 256 micro-batches of 12 layers, twice the layer forward-and-backward passes of the
#     TP 2 rows, each with half the work. What tells here is the host: both dispatchers make the CPU wait for the GPU
#     once per MoE layer forward (the experts' token counts must reach the CPU first: so in Megatron-Core's all-to-all
#     dispatcher, and DeepEP's notes say "the CPU will wait for GPU's signal"), so the CPU cannot launch later kernels
#     ahead and a layer takes at least the CPU's time to launch it (Python, the framework, kernel launches).
#     Megatron-Core's MoE guide lists this as the "CPU overhead bottleneck", relieved by a smaller TP or a larger
#     micro-batch. The estimate takes one MoE layer's forward and backward of one micro-batch as 9.4 ms of host time,
#     fitted on the measured ratio of this row to the EP 32 row without the overlap (without a host time the estimate
#     makes TP 4 15 % faster than TP 2; measured, it runs at 0.68 of it), so these two rows only fit. By it, 12.1 s of
#     TP 4's step (3072 layer passes) waits for the host; an assumption, uncertain by half (the ties try it halved and half as long again).
#   - The same repository's H100 script gives one more data point: the layout of the overlap row with CUDA graphs
#     around the router and the dispatch preprocessing, marked 320 TFLOP/s, a 15.2 s step by the count, 2.4 s less
#     than the table's 17.6 s, about 1.6 ms per layer pass (1536 a step). This row's layers are longer on the GPU than
#     9.4 ms, so the estimate has it wait for nothing and still gives it 17.2 s (0.88x the measured throughput): it
#     passes. Yet the 2.4 s CUDA graphs saved say that host time does not all hide behind a longer layer either (after
#     each wait the GPU idles until the CPU launches the next kernel): the estimate's larger-of-the-two is a floor.
# - **The same repository's long-context table (Qwen3 235B, TP 4, PP 8, VP 4, EP 8, CP 1 to 8, sequences 16K to 128K,
#   GBS 256)**: registered with its command's `--recompute-modules layernorm moe` (the whole MoE block recomputed: only
#   its input is kept, and backward runs the router, dispatch, experts and combine again, two more all-to-alls) and
#   compared with the forced-load-balance figures (the workbench routes tokens evenly). These rows test how attention is
#   timed: at 128K attention's two matmuls are about nine tenths of the executed FLOPs in PaLM's count. Under the causal
#   mask flash attention computes only the lower half of the query-key pairs (Megatron-Core's 2025 count counts half
#   too), and its kernel is slower than a plain matmul: the FlashAttention-3 paper measured about 644 TFLOP/s forward
#   and 554 backward on H100 (head dim 128, sequences 4K to 16K; backward counted as 2.5 forwards), 0.624 of the best
#   matmul's 792.1 TFLOP/s in the training count. So on such sequences the estimate charges each counted FLOP of
#   attention's core about 0.5 / 0.624 = 0.80 of a linear layer's FLOP; the engines of 2021-2022 (Megatron-LM's Table 1,
#   and Megatron-DeepSpeed, which trained MT-NLG and BLOOM) had no flash attention and still count in full (the ceiling
#   fitted on Table 1 is 0.524). The kernel is slower on shorter sequences (the same figures: 0.49 of the best matmul at
#   1K tokens, 0.57 at 2K, 0.61 at 4K), and with context parallelism each call runs over one rank's s/cp tokens: at 4K
#   tokens CP 2 charges 0.5 / 0.57 = 0.87 of a linear-layer FLOP per counted FLOP, against 0.5 / 0.61 = 0.82 without
#   CP. Splitting a short sequence slows its attention down; CP does not come for free. All four rows pass (tie group 1, within 1.024x of the best). Their throughput is 0.89, 0.82, 0.75 and 0.72
#   of the measured, still worse as the sequence grows: something else that grows with it is not modelled.
# - **Another attention kernel**: the speed above is FlashAttention-3's, written for Hopper (its new asynchronous matmul instruction, wgmma, and its Tensor Memory
#   Accelerator, TMA, which copies tiles between memories);
#   many engines of 2023-2024 ran FlashAttention-2, written for Ampere, on H100 as well. In the same paper's figures it
#   reaches about 369 TFLOP/s forward and 317 backward on H100 at 4K to 16K tokens, 0.357 of the best matmul in the
#   training count, only 0.57 of FlashAttention-3's speed: each counted FLOP of attention's core costs 0.5 / 0.357 =
#   1.40 of a linear layer's FLOP instead of 0.80. `WorkloadSpec(attention_kernel="flash-attention-2")` (on the command
#   line `--attention-kernel flash-attention-2`) charges it; `"cudnn"` charges the same figures' cuDNN bars (0.578; the
#   backend Transformer Engine calls on H100 by default). Both were measured on H100 only, so they apply to clusters of
#   compute capability 9.x; the default stays FlashAttention-3. MosaicML's published MPT training benchmarks
#   (llm-foundry, H100, 2023-2024; neither registered in the workbench nor used to fit anything) test it: of their
#   77 H100 rows, 58 pass at the default kernel; the 19 others are all models of 13B parameters or fewer, 17 of them at
#   8K tokens or more, estimated up to 1.8 times too fast. Charged at FlashAttention-2, all 77 pass. Know which kernel
#   your engine runs before you trust an estimate at long sequences.
#
# Two details of these models and engines decide the MoE rows, and both are easy to get wrong. The output layer
# multiplies the hidden state (h = 4096 for Qwen3 235B) by the vocabulary: 6·V·h FLOPs per token, not attention's
# width (64 heads × 128 = 8192); for models whose heads are wider than the hidden size (Qwen3, DeepSeek-V3's MLA),
# taking the wider one would load the last pipeline stage with two or more times its real extra work and hold every
# deep pipeline back. And Megatron-Core's all-to-all dispatcher sends each rank's sequence-parallel share of the tokens
# (s/tp, top_k copies of each) and only then all-gathers over expert TP (token_dispatcher.py: "A2A(EP)", then
# "AG(TP)"); sending what the ETP group gathers (s·etp/tp) would count ETP times too much at ETP = TP. The flex
# dispatcher DeepEP runs under does send a token to each of its expert's ETP ranks, and the estimate counts it so.
#
# Llama 3 405B's three rows are registered as its paper (arXiv 2407.21783 §3.3.2) states: fully sharded data
# parallelism that shards gradients and optimizer states and does not reshard the weights after the forward pass,
# i.e. ZeRO-2; one layer fewer on the first and the last stage, so that "the first model chunk on the first stage has
# only the embedding" and the last chunk of the last stage only the output layer and the loss — one layer per model
# chunk, v = (126 + 2) / 16 = 8 at PP 16; no activation checkpointing at 8K. By Megatron-Core's interleaved warm-up
# count, at v = 4 the second pipeline rank holds the activations of 77 two-layer chunks out of 32 micro-batches:
# without recomputation at 85 GiB per GPU, over 80 GiB; at v = 8 it holds 141 one-layer chunks, 79 GiB per GPU,
# which fits, and the bubble falls from 1F1B's 15/47 to 15/271. All three rows land in tie group 1:
# the 8K row at 8192 GPUs ranks 1st; both rows at 16384 GPUs rank 2nd, their steps within 1.01x of the best
# estimate's (which also runs TP 8, with 8 pipeline stages instead of 16 and twice the DP).
# Megatron-Core has this split too now (`--account-for-embedding-in-pipeline-split` and
# `--account-for-loss-in-pipeline-split`, since February 2025). The workbench uses it by default wherever it evens a
# split that is otherwise uneven (the layers do not divide the stages, the layers plus two do), and nowhere else;
# `pipeline_edge_layers=0` turns it off (engines from before 2025, configs without the two options), and a number is
# used as given.
#
# Megatron-Bridge's Llama 3 70B is registered with its recipe's TP communication overlap and bf16 gradients
# (`grad_reduce_in_fp32 = False`). The recipe sets neither `account_for_embedding_in_pipeline_split` nor
# `account_for_loss_in_pipeline_split`, so Megatron-Core splits the 80 layers evenly over 8 stages, and the last
# also carries the output layer of the 128K vocabulary (about one layer's compute). The best estimate runs TP 4, CP 2
# and DP 8 without a pipeline, and the published layout takes 1.09x its step; the best estimate's DP and CP traffic
# crosses nodes (its DP ring holds 2 ranks a node, on 2 NICs) while the published layout's DP group stays inside a
# node, so with every overlap share a quarter lower the best estimate exposes more and the published layout catches
# up, and the two share a tie group: which wins depends on how much traffic stays hidden, and only a measurement can
# settle it.
#
# MT-NLG and BLOOM were trained with Megatron-DeepSpeed, which had no context parallelism, so these rows search CP 1
# only (`max_cp=1`); MT-NLG at 420 nodes then ranks in the top 10. The estimate still prefers 7 pipeline stages to the
# published 35: each data-parallel group's micro-batch count grows in proportion to the stage count, yet the bubble
# (p - 1)/m still grows with p, and there is no 3-layer last stage that also carries the output layer; the difference
# is within 1.1x, inside the estimate's stated uncertainty.
#
# BLOOM is registered with BigScience's partition: the first and last stages hold one layer fewer and a copy of the
# embedding (with a 250k vocabulary the embedding is about the size of a layer), so the stages weigh about the same,
# and the published layout lands in tie group 1. Llama 3 405B's 128K layout (CP 16) lands in tie group 1 too: Llama 3's
# context parallelism all-gathers every K and V before computing its local queries, and the paper says this
# all-gather sits exposed on the critical path (arXiv 2407.21783 §3.3.2), so these rows count CP overlap as 0, and a
# wider split of the sequence (CP 32, 64) does not look cheap.


# %% [markdown] lang="zh"
# FP8 省下的是矩阵乘的时间，但转换本身不在张量核心上跑。Transformer Engine 在每个线性层前把输入转成 FP8，反向时把输出梯度
# 也转成 FP8，并在 H100 上为权重梯度的矩阵乘另写一份转置（接在层归一化后面的 QKV 与 fc1，延迟缩放时由归一化直接写出 FP8，
# 只剩转置）；按当前缩放 (current scaling) 还要先把张量读一遍求最大绝对值 (amax)。这些都是访存受限的遍历。
# 以 Llama 3 8B 的一层、TP 1 为例：延迟缩放 (delayed scaling) 下每个 token 读写 256 KiB，当前缩放下 392 KiB；在 H100 上
# 这相当于该层矩阵乘按 FP8 峰值所需时间的 12% 和 18%。估算把这部分按显存带宽加到最慢一段的计算上（权重每步只转一次，也算进去）；
# NeMo 24.07 的行按延迟缩放登记，Megatron-Bridge 的行按它们配置里的当前缩放登记。

# %% [markdown] lang="en"
# FP8 saves matmul time, but the casts themselves do not run on the tensor cores. Transformer Engine casts each linear
# layer's input to FP8, casts its output gradient to FP8 in the backward pass, and on H100 writes a transposed copy for
# the weight-gradient matmul (for QKV and fc1, which follow a layer norm, delayed scaling lets the norm write FP8
# itself, leaving only the transpose); current scaling first reads the tensor once more for its largest absolute value
# (amax). These are passes bound by memory bandwidth. For one Llama 3 8B layer at TP 1: 256 KiB read and written per
# token with delayed scaling, 392 KiB with current scaling; on an H100 that is 12% and 18% of the time the layer's
# matmuls take at the FP8 peak. The estimate adds them, at memory bandwidth, to the slowest stage's compute (with the
# weights, cast once a step); NeMo 24.07's rows are registered with delayed scaling, Megatron-Bridge's with the
# current scaling their configs set.

# %%
llama8, h100 = MODELS["llama3-8b"], CLUSTERS["h100-8"]
# zh: 按张量缩放的两种配方：MXFP8 不能在 H100 上运行
# en: the per-tensor recipes: MXFP8 does not run on an H100
hopper_recipes = ("delayed", "current")
cast_kib = {
    recipe: fp8_quantisation_bytes_per_token(llama8, recipe).dense_layer / 1024
    for recipe in hopper_recipes
}
# zh: 没有偏置；减去 2 个 RMSNorm
# en: no biases; minus 2 RMSNorms
layer_matmul_s = (
    6 * (llama8.dense_params_per_layer - 2 * llama8.hidden) / h100.peak("fp8")
)
cast_share = {
    recipe: kib * 1024 / h100.memory_bandwidth_bytes_per_s / layer_matmul_s
    for recipe, kib in cast_kib.items()
}
recipe_names = {
    "delayed": Text(zh="延迟缩放", en="delayed scaling"),
    "current": Text(zh="当前缩放", en="current scaling"),
}
for recipe in hopper_recipes:
    name, kib, share = (
        recipe_names[recipe],
        cast_kib[recipe],
        cast_share[recipe],
    )
    print(
        Text(
            zh=f"{name}：每 token 每层 {kib:.0f} KiB，"
            f"是该层矩阵乘按 FP8 峰值所需时间的 {share:.0%}",
            en=f"{name}: {kib:.0f} KiB per token and layer, {share:.0%} of the "
            "layer's matmul time at the FP8 peak",
        )
    )
assert (cast_kib["delayed"], cast_kib["current"]) == (256, 392)
assert (
    round(100 * cast_share["delayed"]),
    round(100 * cast_share["current"]),
) == (
    12,
    18,
)

# %% [markdown] lang="zh"
# 上面的转置只属于 Hopper：H100 的 FP8 矩阵乘只接受一种操作数布局。计算能力 (compute capability) 10.x 的 GPU（B200、
# GB200、B300、GB300）的 FP8 矩阵乘接受任意布局，按张量缩放时一份 FP8 副本就够，不再写转置。那里还有第三种配方：
# 微缩放 FP8 (microscaling FP8, MXFP8)，每 32 个相邻元素共用一个 8 位缩放因子。它按行与按列的分块方向不同，
# 反向要用的按列副本不能由按行副本转置得到，所以两份都从 bf16 量化，但不必先把张量读一遍求 amax。
# 同一层在 B200 上：延迟缩放每个 token 读写 180 KiB，当前缩放 324 KiB，MXFP8 约 276 KiB。
# 用 `WorkloadSpec(precision="fp8", fp8_recipe="mxfp8")` 或命令行的 `--precision fp8 --fp8-recipe mxfp8` 试（只有 FP8
# 训练读这个配方：bf16 下设它会得到一条“设置被忽略”的警告）；在 H100 上它会被拒绝，理由写明要计算能力 10.x。

# %% [markdown] lang="en"
# The transposes above belong to Hopper: an H100's FP8 matmuls take one operand layout only. On GPUs of compute
# capability 10.x (B200, GB200, B300, GB300) FP8 matmuls take any layout, so per-tensor scaling keeps one FP8 copy and
# writes no transpose. There a third recipe runs as well: microscaling FP8 (MXFP8), one 8-bit scale per 32 consecutive
# elements. Its row-wise and column-wise blocks run in different directions, so the column-wise copy the backward
# needs cannot be a transpose of the row-wise one: both are quantised from bf16, but there is no pass for the amax.
# The same layer on a B200: 180 KiB read and written per token with delayed scaling, 324 KiB with current scaling,
# about 276 KiB with MXFP8. Try it with `WorkloadSpec(precision="fp8", fp8_recipe="mxfp8")` or `--precision fp8
# --fp8-recipe mxfp8` (only an FP8 run reads the recipe: set at bf16 it gets an "ignored setting" warning); on an
# H100 it is refused, with the reason that it needs compute capability 10.x.

# %%
b200 = CLUSTERS["b200-8"]
recipe_names["mxfp8"] = Text(
    zh="微缩放 FP8 (MXFP8)", en="microscaling FP8 (MXFP8)"
)
blackwell_kib = {
    recipe: fp8_quantisation_bytes_per_token(
        llama8, recipe, any_layout=b200.fp8_any_layout
    ).dense_layer
    / 1024
    for recipe in FP8_RECIPES
}
for recipe in FP8_RECIPES:
    print(
        Text(
            zh=f"B200，{recipe_names[recipe]}：每 token 每层 "
            f"{blackwell_kib[recipe]:.0f} KiB",
            en=f"B200, {recipe_names[recipe]}: {blackwell_kib[recipe]:.0f} KiB "
            "per token and layer",
        )
    )
assert b200.fp8_any_layout and b200.mxfp8 and not h100.mxfp8
assert (
    blackwell_kib["delayed"],
    blackwell_kib["current"],
    round(blackwell_kib["mxfp8"]),
) == (180, 324, 276)

# %% [markdown] lang="zh"
# 规格表上 H100 的 FP8 峰值 (1979 TFLOP/s) 是 bf16 (989) 的两倍，可一步训练的矩阵乘并不会快一倍：这些层形状的 FP8 矩阵乘
# 达到的峰值比例更低，缩放因子的簿记也不全是上面那种显存遍历，而在 bf16 训练上标定的效率天花板里还含着 FP8 根本加速不了的
# 工作（逐元素运算、内核启动）。DGX Cloud 的配方给了最直接的证据：两个版本（v24.11.1 的 7 个模型、v25.05.02 的 4 个）
# 各在同一批卡上、用同一布局跑了 BF16 和 FP8，两行步时之比就是 FP8 的实测提速。若按翻倍计，估算的提速比实测高 17% 到 50%，
# 11 对无一例外。估算因此让 FP8 线性层的矩阵乘只保留翻倍所带来提速的一部分 (`FP8_MATMUL_SHARE`)：只在一对上标定（Llama 3.1 8B，
# 8 张卡、单节点、不切流水线，通信最少，最接近纯计算），另外十对用来检验。这是一个假设：用来检验的稠密模型的八对落在实测的一成以内；
# 唯一的 MoE 模型 Grok-1 的两对估高了，2025 年的那对高出两成——专家的矩阵乘很窄，从 FP8 得到的提速更少，估算却按稠密层的份额给。
# 想换一个值，用 `WorkloadSpec(fp8_matmul_share=...)` 或命令行的 `--fp8-matmul-share`。

# %% [markdown] lang="en"
# On the datasheet H100's FP8 peak (1979 TFLOP/s) is twice bf16's (989), yet a training step's matmuls do not run twice
# as fast: FP8 matmuls of these layers' shapes reach a smaller share of their peak, the scaling bookkeeping is not
# all memory passes like those above, and the efficiency ceiling, fitted on bf16 steps, folds in work FP8 does not
# speed up at all (elementwise kernels, kernel launches). DGX Cloud's recipes give the most direct evidence: in two
# releases (v24.11.1, seven models; v25.05.02, four) each model ran on the same GPUs with the same layout in BF16 and in
# FP8, so the ratio of the two step times is FP8's measured speed-up. Taking the doubling at face value, the estimated
# speed-up is 17 % to 50 % above the measured one, on all eleven pairs. The estimate therefore lets the FP8 linear
# layers' matmuls keep only a share of the speed-up the doubling promises (`FP8_MATMUL_SHARE`), fitted on one pair alone
# (Llama 3.1 8B on 8 GPUs: one node, no pipeline, the least communication, the nearest to pure compute) and checked on
# the other ten. It is an assumption: the eight dense pairs it is checked on land within a tenth of their measurements; the one MoE
# model, Grok-1, is estimated too fast in both pairs, by about a fifth in its 2025 pair: narrow expert matmuls keep less
# of FP8's speed-up, and the estimate gives them a dense layer's share. To try another value, set
# `WorkloadSpec(fp8_matmul_share=...)` or the command line's `--fp8-matmul-share`.

# %%
face_value = {pair.bf16_name: pair for pair in fp8_speedups(1.0)}
fitted_pairs = fp8_speedups()
role_names = {
    "fit": Text(zh="标定", en="fit"),
    "validation": Text(zh="检验", en="check"),
}
md_table(
    [
        Text(
            zh="模型（DGX Cloud，BF16 对 FP8）",
            en="model (DGX Cloud, BF16 against FP8)",
        ),
        Text(zh="实测提速", en="measured speed-up"),
        Text(zh="按翻倍估算", en="estimated, doubling"),
        Text(
            zh=f"保留 {FP8_MATMUL_SHARE:.3f} 估算",
            en=f"estimated, keeping {FP8_MATMUL_SHARE:.3f}",
        ),
        Text(zh="估算 ÷ 实测", en="estimated ÷ measured"),
        Text(zh="用途", en="role"),
    ],
    [
        (
            pair.bf16_name.removeprefix("DGX Cloud ").removesuffix(" (BF16)"),
            f"{pair.measured:.2f}",
            f"{face_value[pair.bf16_name].estimated:.2f}",
            f"{pair.estimated:.2f}",
            f"{pair.estimated_over_measured:.2f}",
            role_names[pair.role],
        )
        for pair in fitted_pairs
    ],
)
checked_ratios = [
    pair.estimated_over_measured
    for pair in fitted_pairs
    if pair.role == "validation"
]
dense_ratios = [
    pair.estimated_over_measured
    for pair in fitted_pairs
    if pair.role == "validation"
    and not MODELS[run_of_name[pair.bf16_name].model].is_moe
]
moe_ratios = [r for r in checked_ratios if r not in dense_ratios]
face_ratios = [pair.estimated_over_measured for pair in face_value.values()]
print(
    Text(
        zh=f"按翻倍：估算提速是实测的 {min(face_ratios):.2f} 到 "
        f"{max(face_ratios):.2f} 倍；保留 {FP8_MATMUL_SHARE:.3f} 后，"
        f"稠密模型的 {len(dense_ratios)} 对检验在 {min(dense_ratios):.2f} 到 "
        f"{max(dense_ratios):.2f} 倍之间，MoE 的 {len(moe_ratios)} 对是 "
        + "、".join(f"{r:.2f}" for r in moe_ratios)
        + " 倍",
        en=f"At face value the estimated speed-up is {min(face_ratios):.2f}x "
        f"to {max(face_ratios):.2f}x the measured; keeping "
        f"{FP8_MATMUL_SHARE:.3f}, the {len(dense_ratios)} dense checks land at "
        f"{min(dense_ratios):.2f}x to {max(dense_ratios):.2f}x, the "
        f"{len(moe_ratios)} MoE ones at "
        + " and ".join(f"{r:.2f}x" for r in moe_ratios),
    )
)
assert set(FP8_FIT_RUNS) == {
    pair.bf16_name for pair in fitted_pairs if pair.role == "fit"
} | {pair.fp8_name for pair in fitted_pairs if pair.role == "fit"}
assert (
    round(min(face_ratios), 2),
    round(max(face_ratios), 2),
    len(face_ratios),
) == (
    1.17,
    1.50,
    11,
)
assert (
    round(min(dense_ratios), 2),
    round(max(dense_ratios), 2),
    len(dense_ratios),
) == (0.95, 1.06, 8)
assert [round(r, 2) for r in moe_ratios] == [1.09, 1.22]

# %%
print(
    Text(
        zh="没通过的几次：发表的布局与估算最优的布局",
        en="The runs that miss: the published layout and the best by estimate",
    )
)
for run, c in zip(runs, comparisons):
    if not c.passes:
        print(
            f"{run.label}\n    {Text(zh='发表', en='published')}: "
            f"{c.layout}\n    {Text(zh='估算最优', en='best by estimate')}: "
            f"{c.best_layout}"
        )

# %% [markdown] lang="zh"
# ### CP 在 8K 时什么时候划算
#
# 与第 3 课的上下文门槛不同，工作台不因为“不需要”拒绝上下文并行 (CP)：只要形状和显存通过就被接受，由估算来权衡。它的代价都记在账上：每层
# cp-1 步 K/V 环形传递（GQA 下只有 kv_heads 份宽），每一步只能藏在这一步的因果注意力计算下（按 Megatron 的
# 之字形切分，每个 rank 的工作量相同）；反向结束后 dK、dV 传回原 rank，藏不住；每个 GPU 的矩阵乘 token 减半，效率略降。
# 所以短序列时 CP 不划算；它划算的时候，是它**省掉了别的东西**。下面是 Llama 3 70B 在 64 张 H100 上、8K 序列：
# 厂商配置 TP 4、PP 4、CP 2、VP 5。按 Megatron-LM 训练脚本的默认，梯度以 fp32 累加和归约（精度方案
# `megatron-bf16`，每参数 2 + 4 + 12 字节），不用 CP 的同一布局只有完全重计算才放得下。

# %% [markdown] lang="en"
# ### When CP pays at 8K
#
# Unlike lesson 3's context gate, the workbench does not reject context parallelism (CP) as "not needed": a CP
# layout whose shape and memory pass is accepted, and the estimate weighs it. Its costs are all on the ledger: per layer, cp-1 ring steps of K and V (only
# kv_heads wide with GQA), each hidden only under that step's causal attention (Megatron's zig-zag split gives every
# rank the same work); after backward the dK, dV block travels home, unhidden; each GPU's matmuls get half the tokens,
# a little less efficient. So CP does not pay at short sequences; it pays when it **removes something else**. Below:
# Llama 3 70B on 64 H100s at 8K, the vendor layout TP 4, PP 4, CP 2, VP 5. With Megatron-LM's trainer default,
# gradients accumulated and reduced in fp32 (the recipe `megatron-bf16`, 2 + 4 + 12 bytes per parameter), the same
# layout without CP fits only with full recomputation.

# %%
cp_plan = plan(
    MODELS["llama3-70b"],
    CLUSTERS["h100-8"].with_nodes(8),
    WorkloadSpec(
        global_batch=128,
        seq_len=8192,
        max_virtual_stages=5,
        recipe="megatron-bf16",
    ),
)
vendor = {"tp": 4, "pp": 4, "v": 5, "zero": 1, "mb": 1}
with_cp = cp_plan.explain({**vendor, "cp": 2, "dp": 2, "recompute": "none"})
without = cp_plan.explain({**vendor, "cp": 1, "dp": 4, "recompute": "none"})
full_twin = cp_plan.explain({**vendor, "cp": 1, "dp": 4, "recompute": "full"})
cp_row = next(r for r in with_cp.communication if r.dimension == "CP")
md_table(
    [
        Text(zh="布局", en="layout"),
        Text(zh="显存 (GiB)", en="memory (GiB)"),
        Text(zh="通过", en="accepted"),
        Text(zh="估算步时 (s)", en="estimated step (s)"),
    ],
    [
        (
            name,
            f"{layout.memory.total_gib:.1f}",
            Text(zh="是", en="yes")
            if layout.accepted
            else Text(zh="否", en="no"),
            estimate_seconds_text(layout.step_s, unit=False),
        )
        for name, layout in [
            (Text(zh="CP 2，不重计算", en="CP 2, no recompute"), with_cp),
            (Text(zh="CP 1，不重计算", en="CP 1, no recompute"), without),
            (Text(zh="CP 1，完全重计算", en="CP 1, full recompute"), full_twin),
        ]
    ],
)
speedup = full_twin.step_s / with_cp.step_s
print(
    Text(
        zh=f"CP 环每个训练步传 {cp_row.time_s:.2f} s，"
        f"几乎全部藏在注意力计算下；CP 2 比完全重计算快 {speedup:.2f} 倍",
        en=f"The CP ring moves {cp_row.time_s:.2f} s of traffic per training "
        f"step, almost all hidden under attention; CP 2 is {speedup:.2f}x "
        "faster than full recompute",
    )
)
short = plan(
    MODELS["llama3-8b"],
    CLUSTERS["h100-8"],
    WorkloadSpec(global_batch=16, seq_len=2048),
)
cp_short = short.explain("tp=4,cp=2,dp=1,zero=1,mb=1,recompute=full")
twin_short = short.explain("tp=4,cp=1,dp=2,zero=1,mb=1,recompute=full")
print(
    Text(
        zh="对照：Llama 3 8B 在 2K 序列时，CP 2 的估算步时是不用 CP "
        f"的孪生布局的 {cp_short.step_s / twin_short.step_s:.2f} 倍",
        en="Compare: Llama 3 8B at 2K tokens, CP 2's estimated step is "
        f"{cp_short.step_s / twin_short.step_s:.2f}x its twin without CP",
    )
)
bf16_grads = plan(
    MODELS["llama3-70b"],
    CLUSTERS["h100-8"].with_nodes(8),
                  # zh: 默认方案
                  # en: the default recipe
    WorkloadSpec(global_batch=128, seq_len=8192, max_virtual_stages=5),
)
bf16_without = bf16_grads.explain(
    {**vendor, "cp": 1, "dp": 4, "recompute": "none"}
)
bf16_with = bf16_grads.explain(
    {**vendor, "cp": 2, "dp": 2, "recompute": "none"}
)
margin_gib = bf16_without.memory.device_gib - bf16_without.memory.total_gib
print(
    Text(
        zh="换成 bf16 梯度（工作台的默认方案，也是 NVIDIA 性能脚本的设置）："
        f"不用 CP、不重计算的布局要 {bf16_without.memory.total_gib:.1f} GiB，"
        f"离 {bf16_without.memory.device_gib:.0f} GiB "
        f"只剩 {margin_gib:.1f} GiB；"
        f"CP 2 要 {bf16_with.memory.total_gib:.1f} GiB，两者估算步时 "
        f"{estimate_seconds_text(bf16_without.step_s)} 与 "
        f"{estimate_seconds_text(bf16_with.step_s)}",
        en="With bf16 gradients (the workbench's default recipe, and what "
        "NVIDIA's performance scripts set): without CP and without "
        f"recomputation the layout needs {bf16_without.memory.total_gib:.1f} "
        f"GiB, leaving {margin_gib:.1f} GiB of the "
        f"{bf16_without.memory.device_gib:.0f} GiB; CP 2 needs "
        f"{bf16_with.memory.total_gib:.1f} GiB; estimated steps "
        f"{estimate_seconds_text(bf16_without.step_s)} and "
        f"{estimate_seconds_text(bf16_with.step_s)}",
    )
)
assert with_cp.accepted and without.codes == ("memory",) and full_twin.accepted
assert (
    with_cp.step_s * 1.2 < full_twin.step_s
    and cp_short.step_s > twin_short.step_s
)
# zh: 下文的“余量不到 1 GiB”
# en: the prose below: "less than 1 GiB to spare"
assert bf16_without.accepted and 0 <= margin_gib < 1
# zh: 下文的“2 GiB 的运行时预留”
# en: "a 2 GiB runtime reserve"
assert bf16_without.memory.reserve_gib == 2
# zh: 下文的“20 多 GiB 的余量”
# en: "more than 20 GiB of margin"
assert bf16_with.memory.device_gib - bf16_with.memory.total_gib > 20
# zh: 下文的“几乎一样”
# en: "nearly the same"
assert abs(bf16_without.step_s / bf16_with.step_s - 1) < 0.01

# %% [markdown] lang="zh"
# 8K 时 CP 2 值得：不用 CP 的布局放不下不重计算的激活，只好每层前向算两遍（完全重计算多花约三分之一的计算）；
# CP 2 把每个 GPU 的激活减半，不重计算也放得下，而它的 K/V 环在节点内、每一步都比这一步的注意力计算短，几乎全藏住。
# 2K 时没有什么可省：同样的 CP 只剩代价。要判断你的情况，看 CP 省掉了什么（重计算、流水线气泡），和它的环是否藏得住。
#
# 梯度精度也会改变这个结论。用 bf16 梯度时，不用 CP 的布局按估算刚好放得下，余量不到 1 GiB。账本算了张量和 2 GiB 的
# 运行时预留，却没有算显存分配器 (memory allocator) 的碎片；不到 1 GiB 的余量太薄，不实测就不能信。所以账本说“放得下”时，
# 还要看余量。两种布局的估算步时几乎一样，工作台分不出谁快；厂商选 CP 2，换来的是 20 多 GiB 的余量。

# %% [markdown] lang="en"
# At 8K, CP 2 pays: without CP the activations without recomputation do not fit, so every layer's forward runs twice
# (full recomputation costs about a third more compute); CP 2 halves each GPU's activations, fits without recomputation,
# and its K/V ring stays in the node and is shorter than each step's attention, so it almost all hides. At 2K there is
# nothing to remove: the same CP is only cost. To judge your own case, ask what CP removes (recomputation, pipeline
# bubble) and whether its ring can hide.
#
# The gradients' precision changes this verdict too. With bf16 gradients, the layout without CP just fits by the
# estimate, with less than 1 GiB to spare. The ledger counts the tensors and a 2 GiB runtime reserve, but not the memory
# allocator's fragmentation; a margin under 1 GiB is too thin to trust without measuring. So when the ledger says
# "fits", look at the margin as well. The two layouts' estimated steps are nearly the same, and the workbench cannot
# tell which is faster; by choosing CP 2 the vendor buys more than 20 GiB of margin.

# %% [markdown] lang="zh"
# ### 长序列：CP 省掉了流水线
#
# 序列越长，CP 能省掉的越多。NVIDIA 的 NeMo 发表过一张长序列表：Llama 2 7B 在 H100 上训练（FP8），序列从 8K 到 1024K，
# 每 1K 个 token 用一张 GPU，每步 4M 个 token；每个长度给出用 CP 时最快的布局和吞吐，以及不用 CP 时最快的吞吐
# （这种布局没有写出）。这几行也登记在上面的公开训练里。`cp_speedups()` 把表里 CP 带来的加速比和估算的加速比并排：
# 估算的是“不许用 CP 时估算最快的布局”的步时除以“发表的 CP 布局”的步时。

# %% [markdown] lang="en"
# ### Long sequences: CP removes the pipeline
#
# The longer the sequence, the more CP can remove. NVIDIA's NeMo published a long-sequence table: Llama 2 7B trained on
# H100s (FP8) at 8K to 1024K tokens, one GPU per 1K tokens and 4M tokens a step; for each length it gives the fastest
# layout with CP and its throughput, and the fastest throughput without CP (that layout is not given). These rows are
# among the published runs above too. `cp_speedups()` sets the table's speed-up from CP beside the estimated one: the
# estimated step of the fastest layout the search finds without CP, over that of the published CP layout.

# %%
cp_rows = cp_speedups()
md_table(
    [
        Text(zh="序列", en="sequence"),
        Text(zh="GPU", en="GPUs"),
        Text(zh="发表的布局", en="published layout"),
        Text(zh="实测加速比", en="measured speed-up"),
        Text(zh="估算加速比", en="estimated speed-up"),
        Text(
            zh="估算最快的无 CP 布局", en="fastest estimated layout without CP"
        ),
    ],
    [
        (
            f"{row.seq_len // 1024}K",
            run.gpus,
            " ".join(f"{k.upper()} {v}" for k, v in run.degrees),
            f"{row.measured:.2f}",
            f"{row.estimated:.2f}",
            breakable_code(row.no_cp_layout),
        )
        for row, run in zip(cp_rows, NEMO_LONG_CONTEXT_RUNS, strict=True)
    ],
)
short_rows = [row for row in cp_rows if row.seq_len <= 64 * 1024]
long_rows_cp = [row for row in cp_rows if row.seq_len >= 256 * 1024]
row_128k = next(row for row in cp_rows if row.seq_len == 128 * 1024)
over_long = [row.estimated_over_measured for row in long_rows_cp]
short_fastest = max(r.measured for r in short_rows)
short_low = min(r.estimated for r in short_rows)
short_high = max(r.estimated for r in short_rows)
long_low = min(r.measured for r in long_rows_cp)
long_high = max(r.measured for r in long_rows_cp)
measured_128k, estimated_128k = row_128k.measured, row_128k.estimated
# zh: 一行一段长度
# en: one line per range of lengths
for line in (
    Text(
        zh=f"到 64K 为止：实测 CP 最多快 {short_fastest:.2f} 倍，"
        f"估算的加速比在 {short_low:.2f} 到 {short_high:.2f} 之间。",
        en=f"Up to 64K: CP measured at most {short_fastest:.2f}x faster; "
        f"the estimated speed-up lies between {short_low:.2f} and "
        f"{short_high:.2f}.",
    ),
    Text(
        zh=f"128K：实测快 {measured_128k:.2f} 倍，"
        f"估算 {estimated_128k:.2f} 倍。",
        en=f"128K: measured {measured_128k:.2f}x faster, "
        f"estimated {estimated_128k:.2f}x.",
    ),
    Text(
        zh=f"256K 起：实测快 {long_low:.2f} 到 {long_high:.2f} 倍，"
        f"估算是实测的 {min(over_long):.2f} 到 {max(over_long):.2f} 倍。",
        en=f"From 256K: measured {long_low:.2f}x to {long_high:.2f}x faster; "
        f"the estimate is {min(over_long):.2f}x to {max(over_long):.2f}x "
        "the measured speed-up.",
    ),
):
    print(line)
assert row_128k.estimated < 1.1 < row_128k.measured and all(
    r.estimated > 1.25 < r.measured for r in long_rows_cp
)

# %% [markdown] lang="zh"
# 到 64K 为止，两边都说 CP 几乎不划算：一个长度的 CP 布局和不用 CP 的最快布局相差不到一成，估算分不出。
# 256K 起两边都说 CP 划算得多，原因是同一个：每步的序列比 GPU 少得多，数据并行的路数不能超过序列数，TP 又不宜跨出
# 一个节点，不用 CP 就只能靠流水线凑满 GPU，而每条流水线只有一两个微批次，气泡吃掉大半（第 6 课的
# (p-1)/(m+p-1)）。估算把这个加速比估高了：厂商没有写出不用 CP 时的布局，也可能用了更少的 GPU、完全重计算或更宽的 TP，
# 而估算只在同样多的 GPU 上找。128K 是估算漏掉的一行：它认为不用 CP 的最快布局（表的最后一列）和发表的 CP 布局
# 一样快，实测 CP 明显更快。
# 能定下来的只有实测。

# %% [markdown] lang="en"
# Up to 64K both sides say CP hardly pays: a length's CP layout and the fastest layout without CP are less than a tenth
# apart, which the estimate cannot tell apart. From 256K both say CP pays a lot, for one reason: a step holds far fewer
# sequences than there are GPUs, data parallelism cannot have more ways than sequences, and TP should not leave a node,
# so without CP only a pipeline fills the GPUs, and each pipeline gets one or two micro-batches: the bubble takes most
# of the step (lesson 6's (p-1)/(m+p-1)). The estimate overstates this speed-up: the vendor does not give its layout
# without CP, which may have used fewer GPUs, full recomputation or wider TP, while the estimate searches the same GPUs
# only. 128K is a row the estimate misses: it finds the fastest layout without CP (the table's last column) as fast
# as the published CP layout, where CP measured clearly faster. Only a measurement settles these.

# %% [markdown] lang="zh"
# 128K 那一行的最后一列写着 `recompute=offload`：这是激活卸载 (activation offloading)，前向时把部分层保存的激活拷到
# CPU 的主机内存，反向用到之前再拷回来（本节末“估算漏掉了什么”细讲）。估算假设这些拷贝全藏在计算下面，所以这部分偏乐观。
# 估算漏掉这一行，是不是因为它？不许卸载，再找一次不用 CP 的最快布局：

# %% [markdown] lang="en"
# The last column of the 128K row says `recompute=offload`: that is activation offloading, which copies some layers'
# saved activations to the CPU's host memory in the forward pass and back before the backward pass needs them (section
# 8's "What the estimate leaves out" says more). The estimate assumes the copies hide under compute, so this part is
# optimistic. Is that why the estimate misses the row? Forbid offloading and search again for the fastest layout
# without CP:

# %%
no_offload = next(
    row
    for row in cp_speedups(recompute_modes=RECOMPUTE_MODES)
    if row.seq_len == 128 * 1024
)
print(
    Text(
        zh=f"128K，不许卸载：{no_offload.no_cp_layout}，"
        f"估算加速比 {no_offload.estimated:.2f} 倍"
        f"（许卸载时 {estimated_128k:.2f} 倍，实测 {measured_128k:.2f} 倍）",
        en=f"128K, no offloading: {no_offload.no_cp_layout}, "
        f"estimated speed-up {no_offload.estimated:.2f}x "
        f"({estimated_128k:.2f}x with offloading, "
        f"{measured_128k:.2f}x measured)",
    )
)
assert "offload" not in no_offload.no_cp_layout and no_offload.estimated < 1.1

# %% [markdown] lang="zh"
# 不许卸载时，估算仍认为不用 CP 的布局和 CP 布局差不多快：这一行的差距不是卸载的乐观假设造成的，原因要到实测里找。

# %% [markdown] lang="en"
# Without offloading the estimate still finds the layout without CP about as fast as the CP layout: the gap in this
# row does not come from the optimistic offloading assumption; its cause is for a measurement to find.

# %% [markdown] lang="zh"
# ### LoRA 微调：权重冻结以后
#
# 低秩适配 (low-rank adaptation, LoRA) 冻结全部预训练权重，只在每个线性层旁训练两个小矩阵 A (in × r) 和 B (r × out)，
# 共 r·(in + out) 个参数。对并行策略来说，变的是三本账：
#
# 1. **容量**：冻结的权重只占它自己的字节（bf16 为 2 字节），没有梯度，也没有优化器状态；每参数 16 字节的账只落在适配器上。
# 2. **计算**：反向传播仍要算激活的梯度 (data gradient)，但不算冻结权重的梯度 (weight gradient)：PaLM 的每参数每 token 6 次
#    浮点运算降到 4 次。激活不变——每个适配器求自己的梯度时仍要用到这一层的输入。
# 3. **通信**：数据并行只归约适配器的梯度；但 ZeRO-3 仍要在每次前向和反向之前全收集 (all-gather) 冻结的权重。
#
# `WorkloadSpec(lora_rank=r)`（命令行 `--lora-rank`）按这三条计。NeMo 24.07 微调表里的三行 LoRA 已经在本节开头的表里；
# 下面再问：同样的布局如果训练全部权重会怎样？

# %% [markdown] lang="en"
# ### LoRA fine-tuning: once the weights are frozen
#
# Low-rank adaptation (LoRA) freezes every pretrained weight and trains only two small matrices beside each linear
# layer, A (in × r) and B (r × out): r·(in + out) parameters. For the parallel strategy three ledgers change:
#
# 1. **Capacity**: a frozen weight takes only its own bytes (2 in bf16), with no gradient and no optimizer state; the
#    16 bytes per parameter fall on the adapters alone.
# 2. **Compute**: backward still computes the activations' gradient (data gradient) but not the frozen weights'
#    gradient (weight gradient): PaLM's 6 FLOPs per parameter and token drop to 4. Activations stay: each adapter needs
#    its layer's input for its own gradient.
# 3. **Communication**: data parallelism reduces only the adapters' gradients; ZeRO-3 still all-gathers the frozen
#    weights before every forward and backward.
#
# `WorkloadSpec(lora_rank=r)` (`--lora-rank` on the command line) counts these three. The three LoRA rows of NeMo
# 24.07's fine-tuning table are in the table at the start of this section already; here is what the same layouts
# would do training every weight:

# %%
from dataclasses import replace as with_options

# zh: 本节开头的表中的 LoRA 三行，
# zh: 与同样的布局训练全部权重（去掉 lora_rank）
# en: the LoRA rows of the table at the start of this section, and the same layouts
# en: training every weight (lora_rank dropped)
numbers = [
    number
    for number, run in enumerate(runs, start=1)
    if run in NEMO_2407_LORA_RUNS
]
frozen_off = [
    compare_published(
        with_options(
            run,
            workload_options=tuple(
                option
                for option in run.workload_options
                if option[0] != "lora_rank"
            ),
        )
    )
    for run in NEMO_2407_LORA_RUNS
]
assert all(by_name[run.name].passes for run in NEMO_2407_LORA_RUNS) and not any(
    c.accepted for c in frozen_off
)
print(
    Text(
        zh=f"LoRA 三行（本节开头的表中第 {numbers[0]} 到 {numbers[-1]} 行）"
        "都通过；同样的布局训练全部权重时，三行都放不下。",
        en=f"The three LoRA rows (rows {numbers[0]} to {numbers[-1]} of the "
        "table at the start of this section) all pass; training every weight, "
        "none of the same layouts fits.",
    )
)
# zh: 下文在第 9 节工作台里的试验：一个 H100 节点上的 Llama-3 70B，
# zh: 训练全部权重，和工作台提供的每个 LoRA 秩
# en: the workbench trial below (section 9): Llama-3 70B on one H100 node,
# en: training every weight, and each LoRA rank the workbench offers
one_node = [
    what_if(
        "llama3-70b",
        "h100-8",
        1,
        WorkloadSpec(global_batch=1024, lora_rank=rank),
    ).accepted_count
    for rank in (None, *LORA_OPTIONS)
]
assert one_node[0] == 0 and min(one_node[1:]) > 0

# %% [markdown] lang="zh"
# 三行都通过：估算是实测的 0.76 到 0.79 倍，发表的布局都在第 1 并列组（见本节开头的表）。
# 训练全部权重时，同样的布局连显存门槛都过不了：
# 这张表用的是不分片的 Adam (ZeRO-0)，70B 的每张卡要装下 1/8 的模型，每参数 16 字节就是 138 GB（128.5 GiB），超过 80 GiB 的显存。所以 LoRA 改变的首先是
# **能不能放下**，其次才是快多少。估算一致偏慢约两成，原因之一是这张表把 SQuAD 的短文档打包 (packing) 成 4096 个 token：
# 注意力只在每个文档之内计算，而工作台按整条 4096 的因果注意力计（打包后的逐文档注意力掩码没有建模）。
# 同一张表还有这三个模型的全参数监督微调 (SFT) 三行，也登记在上面的公开训练里：它们训练全部权重，
# 优化器状态按 NeMo 的配置用 bf16（每参数 10 字节，`apex-dfa-bf16`），13B 与 70B 用交错流水线；三行都通过，
# 估算是实测的 0.77 到 0.86 倍。
#
# 可以在第 9 节的工作台里试：把节点数调到 1，训练全部权重时 Llama-3 70B 没有一个组合放得下；把“训练哪些权重”换成
# 低秩适配的任一个秩，就有组合通过全部门槛，表格下方的假设写明：权重全部冻结，适配器在哪几个线性层旁。

# %% [markdown] lang="en"
# All three pass: the estimate is 0.76 to 0.79 of the measured, and each published layout is in tie group 1 (see
# the table at the start of this section). Training
# every weight, the same layouts do not even pass the memory gate: the table ran unsharded Adam (ZeRO-0), and each GPU
# of the 70B run would hold an eighth of the model at 16 bytes per parameter, 138 GB (128.5 GiB), more than the 80 GiB of memory. So LoRA first changes **what
# fits**, and only then how fast. The estimate runs about a fifth slow throughout; one reason is that the table packs
# SQuAD's short documents into 4096 tokens: attention runs within each document, while the workbench counts causal
# attention over all 4096 (the per-document mask of packed sequences is not modelled). The same table has three
# supervised fine-tuning (SFT) rows of these models, registered among the published runs above too: they train every
# weight, with bf16 optimizer state as NeMo's config sets it (10 bytes per parameter, `apex-dfa-bf16`), 13B and 70B
# with interleaved pipelines; all three pass, the estimate at 0.77 to 0.86 of the measured.
#
# Try it in the workbench of section 9: set the nodes to 1, and Llama-3 70B has no composition that fits when every
# weight trains; set "weights trained" to any LoRA rank and compositions pass every gate, and the assumptions under the
# table say so: every weight frozen, and which linear layers the adapters sit beside.

# %% [markdown] lang="zh"
# ### 估算漏掉了什么
#
# 除了上面几条，估算还不含：稠密层的内核启动开销与同步的抖动（MoE 层等主机的时间算了，但只是一个标定过的下限）、
# 网络拥塞与拓扑（胖树 (fat tree)、轨道优化 (rail optimisation)）、数据加载、优化器步、掉队节点与故障重启。效率只在一个数据集上标定过，MoE 的主机时间和 FP8 矩阵乘
# 保留的提速各只用一对实测标定。所以它适合**排除**（门槛是硬的）和**分组**（并列组），
# 不适合在一个组里挑第一名——那要实测。
#
# 用 CPU 内存换显存的做法，搜索只试其中一种：激活卸载 (activation offloading)，在前向时把部分层保存的激活拷到
# CPU 内存（主机内存），反向用到之前再拷回来。组合的标签里它写作 `recompute=offload`，按 Megatron-Core 的规则来：
# 只在 pp = 1、不做任何重计算时可用，卸载的层数少于总层数；搜索取放得下所需的最少层数，再多留一层正在拷贝的激活。
# 拷贝走 CPU 与 GPU 之间的链路，估算假设每层的拷贝与下一层的计算重叠，只把比计算长出来的部分算进步时，
# 也不计拷贝占用的显存带宽，所以这部分是乐观的估计。只有给出主机内存和主机链路的集群（预设里的 H100、H200、B200、
# GB200、GB300）才会试它；别的集群上，卸载门槛会说明原因。链路很快时（GB200 的 Grace CPU 经 NVLink-C2C 与 GPU 相连），
# NVIDIA 在 2025 年下半年公开的 Megatron-Bridge 性能配置里，有几组 GB200 和 GB300 上的 Llama 3.1 405B 就用 FSDP
# 加激活卸载，不做重计算。ZeRO-Offload（把优化器状态和优化器步放到 CPU 上）搜索仍不尝试。

# %% [markdown] lang="en"
# ### What the estimate leaves out
#
# Besides the points above, the estimate does not include dense layers' kernel launch overhead and synchronisation
# jitter (MoE layers' wait for the host is in, but only as a fitted floor), network congestion and topology (fat tree,
# rail optimisation), data loading, the optimizer step, stragglers and restarts after failures. Its efficiency was
# calibrated on one data set, and the MoE host time and the share of its speed-up an FP8 matmul keeps on one pair of measurements each. So it is good for **excluding** (the gates are hard) and **grouping** (tie groups),
# not for picking the winner inside a group — that takes a measurement.
#
# Of the ways to trade host memory for device memory, the search tries one: activation offloading, which copies some
# layers' saved activations to CPU (host) memory during the forward pass and back before the backward pass needs
# them. A composition's label writes it `recompute=offload`; it follows Megatron-Core's rules: only with pp = 1 and
# no recomputation of any kind, and fewer layers offloaded than the model has; the search takes the fewest layers
# that make the rank fit, plus one layer's activations in flight. The copies use the link between CPU and GPU; the
# estimate assumes each layer's copy overlaps the next layer's compute, adds to the step only what a copy takes
# beyond that, and does not count the device memory bandwidth the copies use, so this part is an optimistic
# estimate. Only a cluster that states its host memory and host link (the H100, H200, B200, GB200 and GB300 presets)
# is tried; on others the offload gate says why not. Where the link is fast (GB200's Grace CPU joins its GPUs over
# NVLink-C2C), several of the Megatron-Bridge performance configurations NVIDIA published in late 2025 ran Llama 3.1
# 405B on GB200 and GB300 with FSDP and activation offloading, and no recomputation. ZeRO-Offload (the optimizer
# states and the optimizer step on the CPU) the search still does not try.

# %% [markdown] lang="zh"
# ### 估算能排对两个实测布局的先后吗？
#
# 搜索做的事就是给同一个模型的各种布局排先后。上面的公开训练里，有些是同一个模型、同样的 GPU、同样的全局批和序列长度、
# 同样的精度，只是布局不同：每一对都是两个实测布局，可以直接检验估算排的先后。`layout_pairs()` 找出全部这样的对
# （两个布局都被接受），给出实测的吞吐之比和估算之比。两次实测相差不到 4.5%（实测可重复性）的，实测本身也分不出先后，不计对错。
# 下表按估算之比是否超出估算的不确定度 ±20% 分成两类：
#
# - 估算相差超过 20% 的对，实测分得出先后的，估算排的先后和实测**全部一致**；但有一对实测一样快（ModelZoo 里打开 1F1B
#   重叠的 EP 32 与用 FSDP 的 EP 8，都是 17.6 s），估算却让它们差 21%：估算的差距本身也可能是估算的误差。
# - 估算相差不到 20% 的对，估算排的先后和实测**多数相反**——有的对两行来自同一张表、同一个团队，有的跨了引擎版本。
#   排对的有四对：Grok-1 的两对（DGX Cloud 的配方在 2025 年只把专家张量并行从 4 改成 1，正是估算在前一版上偏爱的布局，
#   实测快了两成多，估算也判它更快，只是差得不到 20%），以及 ModelZoo 里打开重叠的 EP 32 两行（普通的与加 CUDA 图的）
#   对 PP 32：实测快 38% 和 60%，估算也判它们更快，却只差 12%。相反的对里，Llama 3 8B 的两对估算之比是 1.001 和
#   0.999，相差不到 0.1%：估算其实没有给它们排出先后，算作“相反”只是因为实测分得出（所以表中估算之比保留三位小数）。
#
# 所以并列组之间的次序有实测支持；组内的先后，即使没有哪个已知假设能反转（见上文“怎样读并列组”），估算也给不出可靠的答案，
# 工作台因此把估算相差不到 20% 的候选都并列。对数还少，其中近一半来自一张表，这是目前能拿到的证据，不是定论。

# %% [markdown] lang="en"
# ### Can the estimate order two measured layouts?
#
# Putting layouts of one model in order is what the search does. Some of the published runs above ran one model on the
# same GPUs, with the same global batch, sequence length and precision, in different layouts: each such pair is two
# measured layouts, a direct test of the order the estimate gives. `layout_pairs()` finds every such pair (both layouts
# accepted) with the measured and the estimated throughput ratio. A pair measured less than 4.5 % apart (the
# measurement repeatability) is not ordered by its measurements either, and counts neither way. The table splits the
# pairs by whether the estimates differ by more than the estimate's ±20 % uncertainty:
#
# - where the estimates differ by more than 20 %, the estimate orders **every** pair the measurements tell apart as
#   measured; but one pair measured equally fast (the ModelZoo's EP 32 with the 1F1B overlap and EP 8 with FSDP, 17.6 s
#   each), and the estimate puts them 21 % apart: an estimated gap can be the estimate's own error.
# - where they differ by less, it reverses **most** pairs — some pairs are two rows of one team's table, some span
#   engine releases. It orders four right: Grok-1's two (in 2025 DGX Cloud's recipe changed only expert tensor
#   parallelism, from 4 to 1, the very layout the estimate preferred on the earlier release, and measured over a fifth
#   faster; the estimate also puts it ahead, by less than 20 %), and the ModelZoo's two EP 32 rows with the overlap
#   (plain and with CUDA graphs) against PP 32: measured 38 % and 60 % faster, estimated faster too, but by only 12 %.
#   Of the reversed pairs, Llama 3 8B's two are estimated at 1.001 and 0.999, less than 0.1 % apart: the estimate does
#   not really order them, and they count as reversed only because the measurements do (this is why the table shows
#   the estimated ratio to three decimals).
#
# So the order between tie groups has measurements behind it. Inside a group the estimate gives no reliable order, even
# where no known assumption reverses it (see "How to read tie groups" above); that is why the workbench ties every
# candidate within 20 % of a group's fastest. The pairs are few, and nearly half come from one table: this is the
# evidence there is, not a settled result.

# %%
pairs = layout_pairs(comparisons)


# zh: 公开的运行中大于 1 的并行度（都不大于 1 时只写 DP）和它的数字；
# zh: 有 EP 的运行总写出 ETP（配方没设时 ETP = TP）：
# zh: 只差 ETP 的两个布局不会看起来一样
# en: a published run's degrees above 1 (DP alone when none is) and its figure;
# en: a run with EP always shows its ETP (TP where the recipe sets none): two
# en: layouts that differ only in ETP do not look the same
def layout_of(name):
    degrees = published_degrees(run_of_name[name])
    shown = (
        " ".join(
            f"{k.upper()} {v}"
            for k, v in degrees.items()
            if k != "dp" and (v > 1 or k == "etp")
        )
        or f"DP {degrees['dp']}"
    )
    return f"{shown} ({by_name[name].published:.0f})"


verdict = {
    True: Text(zh="一致", en="as measured"),
    False: Text(zh="相反", en="reversed"),
    None: Text(zh="实测分不出", en="measured tie"),
}
yes_no = {True: Text(zh="是", en="yes"), False: Text(zh="否", en="no")}
md_table(
    [
        Text(zh="模型与 GPU", en="model, GPUs"),
        Text(zh="A（实测）", en="A (published)"),
        Text(zh="B（实测）", en="B (published)"),
        Text(zh="实测 A÷B", en="measured A÷B"),
        Text(zh="估算 A÷B", en="estimated A÷B"),
        Text(zh="同一张表", en="one table"),
        Text(zh="次序", en="order"),
    ],
    [
        (
            " · ".join(run_of_name[p.first_name].label.split(" · ")[:2]),
            layout_of(p.first_name),
            layout_of(p.second_name),
            f"{p.measured:.2f}",
            f"{p.estimated:.3f}",
            yes_no[p.same_source],
            verdict[p.same_order],
        )
        for p in pairs
    ],
)
apart = [
    p
    for p in pairs
    if max(p.estimated, 1 / p.estimated) > 1 + MODEL_UNCERTAINTY
]
close = [p for p in pairs if p not in apart]
for group, farther in ((apart, True), (close, False)):
    right, wrong, tie = (
        [p.same_order for p in group].count(v) for v in (True, False, None)
    )
    print(
        Text(
            zh=f"估算相差{'超过' if farther else '不到'}"
            f" {MODEL_UNCERTAINTY:.0%}：{len(group)} 对，"
            f"一致 {right}，相反 {wrong}，实测分不出 {tie}",
            en=f"estimates {'more than' if farther else 'within'} "
            f"{MODEL_UNCERTAINTY:.0%}{' apart' if farther else ''}: "
            f"{len(group)} pairs, {right} as measured, {wrong} reversed, {tie} "
            "measured ties",
        )
    )
# zh: 上文引用的数字
# en: the figures the prose quotes
assert (
    MODEL_UNCERTAINTY == 0.20
    and round(100 * MEASUREMENT_REPEATABILITY, 1) == 4.5
)
# zh: 与上文一致
# en: the prose
assert [
    sum(p.same_order is v for p in g)
    for g in (apart, close)
    for v in (True, False)
] == [6, 0, 4, 7]
# zh: 排反的对：有同一张表内的，也有跨表的
# en: reversed: in one table and across
assert {p.same_source for p in close if p.same_order is False} == {True, False}
# zh: 上文的 Llama 3 8B 两对：估算之比 1.001 和 0.999，
# zh: 相差不到 0.1%，却算作“相反”
# en: the prose's two Llama 3 8B pairs: estimated at 1.001 and 0.999, less than
# en: 0.1 % apart, yet counted as reversed
llama8_pairs = [p for p in close if "Llama 3 8B" in p.first_name]
assert [round(p.estimated, 3) for p in llama8_pairs] == [1.001, 0.999]
assert all(
    abs(p.estimated - 1) < 0.001 and p.same_order is False for p in llama8_pairs
)
# zh: 上文的“有一对实测一样快……估算却让它们差 21%”
# en: "one pair measured equally fast ... 21 % apart"
apart_tie = [p for p in apart if p.same_order is None]
assert (
    len(apart_tie) == 1
    and apart_tie[0].measured == 1.0
    and round(apart_tie[0].estimated, 2) == 1.21
)
assert {apart_tie[0].first_name, apart_tie[0].second_name} == {
    f"MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, {x})"
    for x in ("EP 32, 1F1B overlap", "EP 8, FSDP")
}
grok_pairs = [
    p
    for p in close
    if p.same_order and p.first_name.startswith("DGX Cloud Grok-1")
]
zoo_pairs = [
    p for p in close if p.same_order and p.first_name.startswith("MoE-ModelZoo")
]
assert (
    len(grok_pairs) == 2
    and len(zoo_pairs) == 2
    and len(grok_pairs) + len(zoo_pairs)
    == sum(1 for p in close if p.same_order)
)
# zh: 上文的“快了两成多”“差得不到 20%”
# en: "over a fifth", "< 20 %"
assert all(
    p.measured < 1 / 1.2 and 1 / 1.2 < p.estimated < 1 for p in grok_pairs
)
assert all(
    p.second_name.endswith("(all-to-all, EP 8, PP 32)") for p in zoo_pairs
)
assert sorted(round(100 * (p.measured - 1)) for p in zoo_pairs) == [
    38,
    60,
] and {round(100 * (p.estimated - 1)) for p in zoo_pairs} == {12}
# zh: 上文的“近一半来自一张表”
# en: "nearly half come from one table"
assert 0.4 < sum(p.same_source for p in pairs) / len(pairs) < 0.5

# %% [markdown] lang="zh"
# ## 9. 交互式工作台
#
# 选模型、节点类型和节点数、工作负载，调整假设，打开假设分析 (what-if) 开关。左图是漏斗，右图是估算最快的五个候选的分解
# （计算、暴露的通信、流水线气泡，MoE 模型还有等待主机发射内核的时间），下面的表格给出它们的组合、每 rank 显存和步时。

# %% [markdown] lang="en"
# ## 9. The interactive workbench
#
# Choose the model, node type and node count and the workload, adjust the assumptions, flip the what-if switches. Left:
# the funnel; right: the breakdown of the five fastest candidates by estimate (compute, exposed communication, pipeline
# bubble and, for an MoE model, waiting for the host to launch kernels); the table lists their compositions, memory per
# rank and step time.

# %%
workbench = WorkbenchWidget()
workbench

# %% [markdown] lang="zh"
# ## 10. 练习
#
# ### 练习 9.1
#
# 在课程的 8 × 24 GiB 机器（`pcie-24g-8`，1 个节点）上规划 Llama-3 8B，全局批大小 64 条 × 4096 个 token。
# 在漏斗里，容量门槛 (`memory`) 那一行排除了多少个候选？

# %% [markdown] lang="en"
# ## 10. Exercises
#
# ### Exercise 9.1
#
# Plan Llama-3 8B on the course's box of 8 × 24 GiB cards (`pcie-24g-8`, one node), global batch 64 × 4096 tokens. How
# many candidates does the fit gate (`memory`) remove in the funnel?

# %% tags=["learner"]
answer = ...
check("plan.memory_removed", answer)

# %% tags=["solution"]
small = plan(
    MODELS["llama3-8b"],
    CLUSTERS["pcie-24g-8"],
    WorkloadSpec(global_batch=64, seq_len=4096),
)
answer = next(step.removed for step in small.funnel if step.code == "memory")
verify("plan.memory_removed", answer)

# %% [markdown] lang="zh"
# ### 练习 9.2
#
# 回到第 2 节的例子（Llama-3 70B，16 个 H100 节点，全局批大小 1024 条 × 8192 个 token）。组合
# `tp=8,pp=2,dp=4,cp=2,zero=1,mb=1,recompute=selective` 通过了全部门槛。它的估算步时是把 CP 折回数据并行的孪生布局
# `tp=8,pp=2,dp=8,cp=1,zero=1,mb=1,recompute=selective` 的多少倍？（保留 3 位有效数字。）

# %% [markdown] lang="en"
# ### Exercise 9.2
#
# Back to section 2's example (Llama-3 70B, 16 H100 nodes, global batch 1024 × 8192 tokens). The composition
# `tp=8,pp=2,dp=4,cp=2,zero=1,mb=1,recompute=selective` passes every check. By what factor is its estimated step that
# of its twin with CP folded back into data parallelism, `tp=8,pp=2,dp=8,cp=1,zero=1,mb=1,recompute=selective`?
# (3 significant digits.)

# %% tags=["learner"]
answer = ...
check("plan.cp_cost", answer)

# %% tags=["solution"]
answer = (
    result.explain("tp=8,pp=2,dp=4,cp=2,zero=1,mb=1,recompute=selective").step_s
    / result.explain(
        "tp=8,pp=2,dp=8,cp=1,zero=1,mb=1,recompute=selective"
    ).step_s
)
verify("plan.cp_cost", answer)

# %% [markdown] lang="zh"
# ### 练习 9.3
#
# 第 5 节的 MoE 假设分析用了 8 个专家、top-2。换成 16 个专家、每个 token 路由 4 个（`as_moe(16, 4)`）：
# 每个 token 经过多少个激活参数？以十亿（B）为单位作答。先想清楚每层多出的是哪几块。

# %% [markdown] lang="en"
# ### Exercise 9.3
#
# Section 5's MoE what-if used 8 experts, top-2. Make it 16 experts with 4 routed per token (`as_moe(16, 4)`): how many
# billion active parameters does each token pass through? Work out first what each layer gains.

# %% tags=["learner"]
answer = ...
check("plan.moe_active", answer)

# %% tags=["solution"]
base = MODELS["llama3-70b"]
# zh: 多 3 个 SwiGLU MLP + 路由器
# en: three more SwiGLU MLPs + the router
extra_per_layer = 3 * (3 * base.hidden * base.ffn_hidden) + base.hidden * 16
answer = (base.active_params + base.layers * extra_per_layer) / 1e9
verify("plan.moe_active", answer)

# %% [markdown] lang="zh"
# ### 练习 9.4
#
# 同一个 70B 例子，跨节点带宽降到 1/5。估算最快的通过候选的步时变为原来的多少倍？（两次各取估算最快的通过候选，
# 它们可以是不同的组合；保留 3 位有效数字。）

# %% [markdown] lang="en"
# ### Exercise 9.4
#
# Same 70B example, with the inter-node bandwidth cut to 1/5. By what factor does the fastest accepted candidate's
# estimated step time grow? (Take the fastest accepted candidate each time; they may be different compositions. 3
# significant digits.)

# %% tags=["learner"]
answer = ...
check("plan.slow_link", answer)

# %% tags=["solution"]
fast = what_if(
    "llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024)
).accepted(1)[0]
slow = what_if(
    "llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024), link_slowdown=5
).accepted(1)[0]
answer = slow.step_s / fast.step_s
verify("plan.slow_link", answer)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 漏斗里各门槛“排除”之和加上通过数，为什么正好等于搜索空间的大小？一个同时违反两条规则的候选记在哪里？
# 2. 为什么工作台不给候选打综合分，而只按估算步时排序？这个排序在什么意义上仍然是“估算”？
# 3. 给设备换更大的显存，一个原来通过的候选会不会变成被拒绝？如果会，是哪道门槛，为什么？
# 4. 跨节点带宽降到 1/8 时，估算最快的组合换了一个，估算步时却只多了一点。为什么？什么样的组合受影响最大？
# 5. 两个候选的估算步时差 5%，能说前一个更快吗？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. Why do the funnel's "removed" counts plus the accepted count add up exactly to the size of the space? Where is a
#    candidate that breaks two rules counted?
# 2. Why does the workbench not score candidates, and only order them by estimated step time? In what sense is that
#    order still an "estimate"?
# 3. Give the devices more memory: can a candidate that was accepted become rejected? If so, by which gate, and why?
# 4. When the inter-node bandwidth drops to 1/8, the fastest composition by estimate is a different one, yet its
#    estimated step is only a little longer. Why? Which compositions suffer most?
# 5. Two candidates' estimated steps differ by 5 %. Can you say the first is faster?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 漏斗把每个候选只记一次，记在按门槛顺序它**第一个**没通过的门槛上；通过的候选一个都没违反。
#    同时违反两条规则的候选记在排在前面的那道门槛上，但 `explain` 和 `reasons` 会列出全部原因。
# 2. 综合分会把“放不下”这种硬失败和“慢一点”混在一起，还会隐藏是哪条规则、差多少。门槛先排除，留下的候选只按一个物理量（步时）排序。
#    但步时是由假设（峰值、计算效率模型、重叠、链路带宽与时延）算出来的，不是测量；第 1 并列组是要去实测的候选。
# 3. 不会。容量门槛在显存变大时只会放行更多候选；上下文门槛只看 CP 的形状（序列能否切成 2·cp 段等长的块），不看显存；
#    其余门槛与显存无关。会变的是**排序**：原来靠 CP 省掉重计算的布局，可能被不再需要重计算的无 CP 布局超过。
# 4. 重新搜索时，工作台换成了把高频通信留在节点内的组合：TP 组放满一个节点（NVLink），跨节点只剩低频的流水线点对点和
#    能藏在计算后面的 DP 梯度同步，所以链路慢 8 倍，新的最快组合只多花一点时间。基线的最快组合用 ZeRO-3 跨节点切分，
#    每层都要跨节点收集参数，放到慢链路上要慢好几倍（上面假设分析表格下面那一行算出了倍数），所以被换掉了。
#    受影响最大的是高频通信跨节点的组合：TP 或 CP 组跨节点、ZeRO-3 跨节点收集参数，以及 DP 组很大、
#    每步要跨节点同步大量梯度的组合。
# 5. 不能。估算的不确定度约 ±20%，差 5% 的两个候选在同一个并列组里；公开的实测对里，估算相差不到 20% 的布局多数被排反了
#    （见“估算能排对两个实测布局的先后吗？”）。`explain_ties()` 会说哪个假设（效率、重叠、带宽、流水线气泡）
#    能让后一个追上、该测什么；没有这样的假设也一样：要实测。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. The funnel counts each candidate once, at the **first** gate (in gate order) it fails; accepted candidates fail
#    none. A candidate that breaks two rules is counted at the earlier gate, while `explain` and `reasons` list both.
# 2. A blended score would mix a hard failure ("does not fit") with "a bit slower" and hide which rule failed and by how
#    much. The gates exclude first; survivors are ordered by one physical quantity (step time). That step time is
#    computed from assumptions (peak, the efficiency model, overlap, link bandwidths and latencies), not measured; tie
#    group 1 holds the candidates to measure.
# 3. No. The fit gate only lets more candidates through when memory grows; the context gate checks only CP's shape
#    (whether the sequence splits into 2·cp equal chunks), not memory; the other gates do not involve memory. What can
#    change is the **order**: a layout that used CP to avoid recomputation may fall behind a layout without CP that no
#    longer needs recomputation.
# 4. Re-planning, the workbench switches to a composition that keeps the frequent traffic inside nodes: the TP group
#    fills one node (NVLink), and only the infrequent pipeline point-to-point and the DP gradient sync, which hides
#    behind compute, cross nodes, so with an 8× slower link the new fastest costs only a little more. The baseline's
#    fastest shards with ZeRO-3 across nodes and gathers parameters across nodes for every layer; on the slow link it
#    is several times slower (the line under the what-if table computes by how much), so it is replaced. Compositions
#    whose frequent traffic crosses nodes suffer most: TP or CP groups spanning nodes, ZeRO-3 gathering across nodes,
#    and large DP groups that sync many gradient bytes across nodes every step.
# 5. No. The estimate's uncertainty is about ±20 %, so two candidates 5 % apart are in one tie group; among the
#    published pairs, the estimate reversed most measured layouts within 20 % of each other (see "Can the estimate
#    order two measured layouts?"). `explain_ties()` says which assumption (efficiency, overlap, bandwidth,
#    pipeline bubble) would let the second catch up, and what to measure; where none would, the answer is the same:
#    measure them.

# %% [markdown] lang="zh"
# ## 要点
#
# - 工作台按课程的顺序工作：登记约束 → 枚举全部组合 → 先查组合是否成立，再过硬门槛 → 只对留下的估算。
# - 漏斗把每个候选记在它第一个没通过的门槛上；`explain` 给出任意组合的全部原因和账本。
# - 没有综合分：通过的候选只按估算步时排序，结果对象带着所有假设（峰值、计算效率模型及其标定、按维度的重叠、链路）。
# - 估算不是测量：相差小于不确定度的候选是并列的；第 1 并列组是值得实测的候选；假设分析显示结论如何随约束移动。
# - 节点内 TP = 8：每层都切、没有气泡，但每层都要通信，只能放在 NVLink 上；再大就跨节点，矩阵也更瘦。

# %% [markdown] lang="en"
# ## Key points
#
# - The workbench works in the course's order: register constraints → enumerate every composition → check that it is well formed, then the hard gates → estimate only the survivors.
# - The funnel counts each candidate at the first gate it fails; `explain` gives any composition's reasons and ledgers.
# - No blended score: survivors are ordered by estimated step time only, and the result carries every assumption (peak, the efficiency model and its calibration, per-dimension overlap, links).
# - An estimate is not a measurement: candidates closer than its uncertainty are tied; tie group 1 holds the candidates to measure; the what-ifs show how the answer moves with the constraints.
# - TP = 8 inside a node: it splits every layer with no bubble, but communicates in every layer, so it belongs on NVLink; larger crosses nodes and thins the matmuls.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - Narayanan 等. [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473).
#   SC 2021. 张量、流水线、数据并行 (PTD-P) 怎样组合：TP 留在节点内，PP 跨节点；表 1 是本课的标定数据。
# - Rajbhandari 等. [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](https://arxiv.org/abs/1910.02054).
#   SC 2020. 训练状态分片的三个阶段及其通信量：工作台里 DP / ZeRO 这一维的出处。
# - Korthikanti 等. [Reducing Activation Recomputation in Large Transformer Models](https://arxiv.org/abs/2205.05198).
#   2022. 序列并行 (sequence parallelism) 与选择性重计算；工作台激活账本的公式（表 2）。
# - Llama Team, AI @ Meta. [The Llama 3 Herd of Models](https://arxiv.org/abs/2407.21783). 2024. 第 3.3 节：
#   在上万张 H100 上组合 TP、CP、PP 与 FSDP 的四维并行；本课的 Llama 3 对照行出自此文。

# %% [markdown] lang="en"
# ## Related reading
#
# - Narayanan et al. [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473).
#   SC 2021. How tensor, pipeline and data parallelism (PTD-P) compose: TP inside a node, PP across nodes; Table 1 is
#   this lesson's calibration data.
# - Rajbhandari et al. [ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](https://arxiv.org/abs/1910.02054).
#   SC 2020. The three stages of sharding the training state and their communication volume: the source of the
#   workbench's DP / ZeRO axis.
# - Korthikanti et al. [Reducing Activation Recomputation in Large Transformer Models](https://arxiv.org/abs/2205.05198).
#   2022. Sequence parallelism and selective recomputation; the formulas of the workbench's activation ledger (Table 2).
# - Llama Team, AI @ Meta. [The Llama 3 Herd of Models](https://arxiv.org/abs/2407.21783). 2024. Section 3.3: 4D
#   parallelism combining TP, CP, PP and FSDP on tens of thousands of H100s; this lesson's Llama 3 comparison rows come
#   from it.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的模型、集群和工作负载：
# - 漏斗里排除最多的门槛是：
# - 估算最快的三个组合，以及我准备实测哪一个：
# - 最可能让结论改变的一个假设：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - My model, cluster and workload:
# - The gate that removes the most candidates in my funnel:
# - The three fastest compositions by estimate, and the one I will measure:
# - The one assumption most likely to change the answer:

# %% [markdown] lang="zh"
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 8 课 公式与实测](08_lab.ipynb) · 下一课：[第 10 课 推理服务](10_serving.ipynb)

# %% [markdown] lang="en"
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 8, formula vs measurement](08_lab.ipynb) · next: [lesson 10, serving](10_serving.ipynb)
