# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 10 课：服务——KV 缓存、预填充与解码、副本与张量并行
#
# [English version](../en/10_serving.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 9 课 决策工作台](09_workbench.ipynb)
#
# > **时间：** 约 65 分钟（讲解与阅读 50 分钟，练习 15 分钟）
# >
# > **问题：**
# > - 服务副本 (serving replica) 和数据并行 (data parallelism, DP) 都是“多份完整模型”，为什么不是一回事？
# > - 一个请求在显存里占多少？KV 缓存 (KV cache) 怎么算，分组查询注意力 (grouped-query attention, GQA) 省了什么？
# > - 为什么预填充 (prefill) 是计算受限 (compute-bound)、解码 (decode) 是访存受限 (memory-bound)？
# > - 张量并行 (tensor parallelism, TP) 什么时候能降低每个 token 的时延，什么时候不再划算？
# > - 批次变大、请求速率变高时，时延和吞吐怎么变？哪些东西只有实测才知道？
# >
# > **目标：**
# > - 用 `coursekit.kv_cache_bytes` 精确算出 KV 缓存，用 `serving_memory_ledger` 建每 rank 的服务显存账本。
# > - 在屋顶线 (roofline) 上放置预填充和解码，用 `serving_estimate` 得到首 token 时间 (TTFT)、每输出 token 时间 (TPOT)
# >   和吞吐的**下界估计**，说清它们的假设。
# > - 找出 TP 不再划算的位置：每个 token 2·L 次全归约 (all-reduce) 的时延。
# > - 用利特尔定律 (Little's law) 把请求速率换成并发数；用 `plan_serving` 搜索 replicas × TP × PP 并读懂门槛。
# >
# > **前置：** 第 1 课的显存账本，第 2 课的通信账本（TP 每层都有全归约），第 4 课的服务副本与训练 DP 之分，
# > 第 7 课的屋顶线与解码的计算强度（第 4 节直接用到）。第 8、9 课不是必需的。

# %% [markdown] lang="en"
# # Lesson 10: Serving — the KV cache, prefill and decode, replicas and tensor parallelism
#
# [中文版](../zh/10_serving.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 9, decision workbench](09_workbench.ipynb)
#
# > **Time:** about 65 min (teaching and reading 50 min, exercises 15 min)
# >
# > **Questions:**
# > - Serving replicas and data parallelism (DP) both keep "several whole copies of the model". Why are they not the
# >   same thing?
# > - How much memory does one request take? How is the KV cache computed, and what does grouped-query attention (GQA)
# >   save?
# > - Why is prefill compute-bound and decode memory-bound?
# > - When does tensor parallelism (TP) lower the time per token, and when does it stop paying?
# > - How do latency and throughput move as the batch and the request rate grow? What can only be measured?
# >
# > **Objectives:**
# > - Compute the KV cache exactly with `coursekit.kv_cache_bytes`, and build a rank's serving memory ledger with
# >   `serving_memory_ledger`.
# > - Place prefill and decode on the roofline and get **lower-bound estimates** of the time to first token (TTFT), the
# >   time per output token (TPOT) and the throughput with `serving_estimate`, naming their assumptions.
# > - Find where TP stops paying: the latency of 2·L all-reduces per token.
# > - Turn a request rate into a concurrency with Little's law; search replicas × TP × PP with `plan_serving` and read
# >   its gates.
# >
# > **Prerequisites:** lesson 1's memory ledger, lesson 2's communication ledger (TP runs an all-reduce in every
# > layer), lesson 4's serving replica versus training DP, lesson 7's roofline and the arithmetic intensity of decode
# > (section 4 builds on it). Lessons 8 and 9 are not needed.

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.communication import replica_traffic
from coursekit.exercises import check, show_solution, verify
from coursekit.i18n import Text
from coursekit.planner import ModelSpec
from coursekit.plotting import figure_image, label, new_figure
from coursekit.presets import CLUSTERS, MODELS
from coursekit.roofline import ridge_point_flop_per_byte, roofline_flops
from coursekit.serving import (
    PUBLISHED_MEASUREMENTS,
    ServingWorkload,
    kv_cache_bytes,
    littles_law_concurrency,
    plan_serving,
    serving_estimate,
    serving_memory_ledger,
    tp_all_reduce,
)
from coursekit.widgets.serving import ServingWidget, ledger_sentence

H100 = CLUSTERS["h100-8"]
LLAMA70 = MODELS["llama3-70b"]


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
# ## 1. 副本不是数据并行
#
# 训练里的 DP 也让每个 rank 持有完整模型，但每一步结束时所有 rank 都要对梯度做全归约，最慢的那个决定步时。
# 服务副本完全不同：每个副本有**自己的请求队列**，不产生梯度，彼此从不通信。加一个副本多一份吞吐，也不会拖慢别的副本。
# 负载一定时，请求分到更多副本，每个副本的批更小、排队更短，所以**负载下的时延也会降低**（第 6 节：批 64 的 TPOT 比批 16 长）；
# 但副本降不了**批为 1 时的时延下限**——一个请求始终只在一个副本上跑，它最快也只能按该副本读一遍权重的速度生成 token，
# 要降这个下限得靠 TP（第 5 节）。副本之间没有通信账本：

# %% [markdown] lang="en"
# ## 1. A replica is not data parallelism
#
# DP in training also gives every rank the whole model, but at the end of every step all ranks all-reduce their
# gradients, and the slowest one sets the step time. Serving replicas are different: each has **its own queue of
# requests**, makes no gradients and never talks to the others. Adding a replica adds throughput and slows no other
# replica. Under a given load the requests spread over more replicas, so each replica runs a smaller batch and queues
# less, and **latency under load drops too** (section 6: TPOT at batch 64 is longer than at batch 16). What replicas
# cannot lower is the **batch-1 floor**: a request runs on one replica only and can go no faster than that replica
# reads its weights once per token; lowering that floor takes TP (section 5). Replicas have no communication ledger:

# %%
traffic = replica_traffic(replicas=4)
assert traffic == ()
print(
    Text(
        zh=f"replica_traffic(replicas=4) = {traffic}：副本之间没有通信",
        en=f"replica_traffic(replicas=4) = {traffic}: replicas exchange "
        "nothing",
    )
)

# %% [markdown] lang="zh"
# 两者的差别会在搜索里变成门槛：副本之间不切分同一个批次，并发请求少于副本数时，多出来的副本只是闲着（门槛 `replica`）；
# 而每个副本都要独自放下全部权重，这由显存门槛把关。

# %% [markdown] lang="en"
# The difference becomes a gate in the search: replicas do not split one batch, so with fewer concurrent requests than
# replicas the extra replicas sit idle (gate `replica`); and each replica must hold all the weights on its own, which
# the memory gate checks.

# %% [markdown] lang="zh"
# ## 2. KV 缓存与 GQA
#
# 生成第 t 个 token 时，注意力要用到前面所有 token 的键 (K) 和值 (V)。推理引擎把它们存下来，这就是 KV 缓存。每个 token、每层存
# K 和 V 两份，每份是 KV 头数 × head_dim 个元素：
#
# $$\text{KV 字节/token} = 2 \cdot L \cdot n_{kv} \cdot d_{head} \cdot e$$
#
# 其中 e 是每个元素的字节数（本课程里 b 只表示批大小）。以 Llama-3 8B 为例：32 层、8 个 KV 头、head_dim 128，bf16 时 e = 2
# （第 12 节的练习 10.1 换成 70B，自己算）：

# %% [markdown] lang="en"
# ## 2. The KV cache and GQA
#
# To make token t, attention needs the keys (K) and values (V) of every earlier token. Inference engines keep them:
# that is the KV cache. Each token stores K and V in every layer, each with KV heads × head_dim elements:
#
# $$\text{KV bytes per token} = 2 \cdot L \cdot n_{kv} \cdot d_{head} \cdot e$$
#
# where e is the bytes per element (b means the batch size throughout the course). Take Llama-3 8B: 32 layers, 8 KV
# heads and head_dim 128, with e = 2 in bf16 (exercise 10.1 in section 12 asks the same of the 70B model: work that one
# out yourself):

# %%
LLAMA8 = MODELS["llama3-8b"]
per_token = kv_cache_bytes(LLAMA8, tokens=1)
print(
    Text(
        zh=f"kv_cache_bytes 给出每个 token {per_token:,} 字节 = 2 · 32 · 8 · "
        f"128 · 2 = {per_token / 1024:.0f} KiB",
        en=f"kv_cache_bytes gives {per_token:,} bytes per token = 2 · 32 · 8 · "
        f"128 · 2 = {per_token / 1024:.0f} KiB",
    )
)
assert per_token == 2 * 32 * 8 * 128 * 2 == 128 * 1024

# %% [markdown] lang="zh"
# 8 个 KV 头是分组查询注意力：32 个查询头每 4 个共享一组 K、V。如果是多头注意力 (multi-head attention, MHA)，KV 头数等于查询头数，
# 缓存是 GQA 时的 4 倍；只有一个 KV 头时叫多查询注意力 (multi-query attention, MQA)。下表对比课程的预设模型，并给出“同一模型改成 MHA”的假设情形：

# %% [markdown] lang="en"
# Eight KV heads is grouped-query attention: the 32 query heads share K and V in groups of 4. With multi-head attention
# (MHA) there would be as many KV heads as query heads and the cache would be 4 times as large; with a single KV head it
# is multi-query attention (MQA). The table compares the course's preset models with the what-if "the same model with
# MHA":

# %%
rows = []
for name in (
    "gpt2-small",
    "llama3-8b",
    "llama3-405b",
    "mixtral-8x7b",
    "gpt3-175b",
):  # 70B: exercise 10.1
    spec = MODELS[name]
    mha = ModelSpec(
        f"{name}-mha",
        spec.layers,
        spec.hidden,
        spec.heads,
        spec.ffn_hidden,
        spec.vocab,
        spec.seq_len,
    )
    request = kv_cache_bytes(spec, tokens=2304)
    rows.append(
        (
            name,
            f"{spec.heads} / {spec.kv_heads}",
            f"{kv_cache_bytes(spec, tokens=1) / 1024:.0f}",
            f"{kv_cache_bytes(mha, tokens=1) / 1024:.0f}",
            f"{request / 2**30:.2f}",
        )
    )
mha8 = ModelSpec(
    "llama3-8b-mha",
    LLAMA8.layers,
    LLAMA8.hidden,
    LLAMA8.heads,
    LLAMA8.ffn_hidden,
    LLAMA8.vocab,
    LLAMA8.seq_len,
)
assert kv_cache_bytes(mha8, tokens=1) == 4 * kv_cache_bytes(LLAMA8, tokens=1)
md_table(
    [
        Text(zh="模型", en="model"),
        Text(zh="查询头 / KV 头", en="query / KV heads"),
        Text(zh="KiB/token", en="KiB per token"),
        Text(zh="若为 MHA (KiB/token)", en="if MHA (KiB per token)"),
        Text(
            zh="一个 2304 token 请求 (GiB)", en="one 2304-token request (GiB)"
        ),
    ],
    rows,
)

# %% [markdown] lang="zh"
# TP 按 KV 头切分缓存：TP = 8 时每张卡只存 1 个 KV 头。TP 超过 KV 头数时，KV 头只能**复制**，每张卡仍存 1 个——
# 缓存不再随 TP 变小。流水线并行 (PP) 按层切分。

# %% [markdown] lang="en"
# TP splits the cache by KV heads: at TP = 8 each GPU stores one KV head. Beyond the KV head count the heads are
# **replicated** and each GPU still stores one, so the cache stops shrinking with TP. Pipeline parallelism (PP) splits it
# by layers.

# %%
md_table(
    ["TP", Text(zh="每卡 KiB/token", en="KiB per token per GPU")],
    [
        (tp, f"{kv_cache_bytes(LLAMA8, tokens=1, tp=tp) / 1024:.0f}")
        for tp in (1, 2, 4, 8, 16)
    ],
)
assert kv_cache_bytes(LLAMA8, tokens=1, tp=16) == kv_cache_bytes(
    LLAMA8, tokens=1, tp=8
)

# %% [markdown] lang="zh"
# ## 3. 服务显存账本
#
# 每个 rank 的账本和第 1 课一样按项相加：权重 / (tp·pp) + 并发请求的 KV 缓存（按完整上下文：提示 + 输出） +
# 激活工作区（一次预填充块在一层里的临时张量，逐层复用）+ 运行时预留，再和设备显存比较。
# 下面是 Llama-3 70B 在一个 H100 节点上作为一个 TP = 8 的副本，服务 64 个 2048 + 256 token 的请求：

# %% [markdown] lang="en"
# ## 3. The serving memory ledger
#
# A rank's ledger adds up item by item, as in lesson 1: weights / (tp·pp) + the KV cache of the concurrent requests (at
# their full context: prompt + output) + the activation workspace (one prefill chunk's transient tensors in one layer,
# reused layer after layer) + the runtime reserve, against the device memory. Here is Llama-3 70B as one TP = 8 replica
# on an H100 node, serving 64 requests of 2048 + 256 tokens:

# %%
ledger = serving_memory_ledger(
    LLAMA70,
    H100,
    tp=8,
    concurrency=64,
    context_tokens=2304,
    prefill_chunk_tokens=2048,
)
md_table(
    [Text(zh="项", en="item"), "GiB"],
    [
        (Text(zh="权重", en="weights"), f"{ledger.weights_gib:.1f}"),
        (Text(zh="KV 缓存", en="KV cache"), f"{ledger.kv_cache_gib:.1f}"),
        (
            Text(zh="激活工作区", en="activation workspace"),
            f"{ledger.workspace_gib:.2f}",
        ),
        (
            Text(zh="运行时预留", en="runtime reserve"),
            f"{ledger.reserve_gib:.1f}",
        ),
        (
            Text(zh="合计 / 设备", en="total / device"),
            f"{ledger.total_gib:.1f} / {ledger.device_gib:.0f}",
        ),
    ],
)
print(ledger.verdict())
print(ledger_sentence(ledger, bold=False))

# %% [markdown] lang="zh"
# 如果把训练的全局批次 (global batch)（如 1024 条 × 8192 token）当作并发请求，KV 缓存远远放不下：即使一个节点的 8 张卡
# 平分，每张卡也要几百 GiB（下面的单元格算出来），这个节点上任何布局都通不过。
# 服务的负载要用并发请求数（或请求速率）和提示、输出长度来描述。

# %% [markdown] lang="en"
# Take a training global batch (say 1024 × 8192 tokens) as concurrent requests and that KV cache cannot fit: even split
# over the 8 GPUs of a node it is hundreds of GiB per GPU (the cell below computes it), so no layout on the node passes.
# A serving load is described by concurrent requests (or a request rate) and the prompt and output lengths.

# %%
training_batch = serving_memory_ledger(
    LLAMA70,
    H100,
    tp=8,
    concurrency=1024,
    context_tokens=8192,
    prefill_chunk_tokens=2048,
)
print(
    Text(
        zh="1024 条 × 8192 token 当作并发请求，一个节点的 8 张卡 (TP = 8) "
        f"平分：每 rank 合计 {training_batch.total_gib:.0f} / "
        f"{training_batch.device_gib:.0f} GiB，{training_batch.verdict()}",
        en="1024 × 8192 tokens as concurrent requests, split over the 8 GPUs "
        f"of a node (TP = 8): {training_batch.total_gib:.0f} / "
        f"{training_batch.device_gib:.0f} GiB per rank, "
        f"{training_batch.verdict()}",
    )
)
assert not training_batch.fits

# %% [markdown] lang="zh"
# ## 4. 预填充与解码在屋顶线上
#
# 第 7 课的屋顶线：一个内核做 F 次浮点运算、至少搬 B 字节，时间不会少于 max(F / 峰值, B / 带宽)。
#
# - **预填充**一次处理 P 个提示 token：每读一遍权重（2·N 字节），做 2·N·P 次运算，计算强度 (arithmetic intensity) 约为 P FLOP/字节。
#   P = 2048 远高于 H100 的脊点 (ridge point)，所以是计算受限。
# - **解码**每步为批次里每个请求做一个 token：读一遍全部权重和整个批次的 KV 缓存，只做 2·N·批 次运算，
#   计算强度约等于批大小。批为 64 时仍低于脊点，所以是访存受限。

# %% [markdown] lang="en"
# ## 4. Prefill and decode on the roofline
#
# Lesson 7's roofline: a kernel doing F FLOPs while moving at least B bytes takes at least max(F / peak, B / bandwidth).
#
# - **Prefill** handles the P prompt tokens at once: each read of the weights (2·N bytes) serves 2·N·P FLOPs, an
#   arithmetic intensity of about P FLOP/byte. P = 2048 is far above the H100's ridge point: compute-bound.
# - **Decode** makes one token per request of the batch each step: it reads all the weights and the batch's whole KV
#   cache but does only 2·N·batch FLOPs, an intensity of about the batch size. At batch 64 that is still below the
#   ridge: memory-bound.

# %%
ridge = ridge_point_flop_per_byte(
    H100.peak_flops, H100.memory_bandwidth_bytes_per_s
)
points = []
for batch in (1, 8, 64, 256):
    est = serving_estimate(
        LLAMA70, H100, tp=8, batch=batch, prompt_tokens=2048, output_tokens=256
    )
    points.append((f"decode, batch {batch}", batch, est))
prefill = serving_estimate(
    LLAMA70, H100, tp=8, batch=1, prompt_tokens=2048, output_tokens=256
)
md_table(
    [
        Text(zh="阶段", en="phase"),
        Text(zh="约计算强度 (FLOP/字节)", en="approx. intensity (FLOP/byte)"),
        Text(zh="算力时间 (ms)", en="compute time (ms)"),
        Text(zh="显存时间 (ms)", en="memory time (ms)"),
        Text(zh="受限于", en="bound by"),
    ],
    [
        (
            Text(zh="预填充 2048 token", en="prefill of 2048 tokens"),
            2048,
            f"{prefill.prefill_compute_s * 1e3:.1f}",
            f"{prefill.prefill_memory_s * 1e3:.1f}",
            Text(zh="算力", en="compute"),
        )
    ]
    + [
        (
            Text(zh=f"解码，批 {b}", en=f"decode, batch {b}"),
            b,
            f"{e.decode_compute_s * 1e3:.2f}",
            f"{e.decode_memory_s * 1e3:.2f}",
            Text(zh="显存带宽", en="memory")
            if e.decode_bound == "memory"
            else Text(zh="算力", en="compute"),
        )
        for _, b, e in points
    ],
)
print(
    Text(
        zh=f"H100 的脊点：{ridge:.0f} FLOP/字节",
        en=f"H100 ridge point: {ridge:.0f} FLOP/byte",
    )
)
assert (
    prefill.prefill_compute_s > prefill.prefill_memory_s
    and points[2][2].decode_bound == "memory"
)

# %%
fig = new_figure(6.0, 3.0)
ax = fig.add_subplot()
# zh: 屋顶线在脊点处拐弯：
# zh: 采样点里要有脊点本身，否则两侧的点会被一条斜线连起来
# en: The roof bends at the ridge point: sample the ridge itself, or a slanted
# en: segment joins the points either side
intensities = sorted([2**k for k in range(0, 14)] + [ridge])
attainable = [
    roofline_flops(i, H100.peak_flops, H100.memory_bandwidth_bytes_per_s) / 1e12
    for i in intensities
]
ax.plot(intensities, attainable, color="#4c72b0")
ax.axvline(ridge, color="grey", linestyle=":", linewidth=0.8)
ax.annotate(
    label(Text(zh=f"脊点 {ridge:.0f}", en=f"ridge {ridge:.0f}")),
    (ridge * 1.08, 1.5),
    fontsize=7,
    color="grey",
)
for _, b, _e in points:
    on_roof = (
        roofline_flops(b, H100.peak_flops, H100.memory_bandwidth_bytes_per_s)
        / 1e12
    )
    ax.plot([b], [on_roof], "o", color="#dd8452")
    ax.annotate(
        label(Text(zh=f"解码 批{b}", en=f"decode b={b}")),
        (b, on_roof * 0.6),
        fontsize=7,
    )
ax.plot([2048], [H100.peak_flops / 1e12], "s", color="#c44e52")
# zh: 标签放在方块下方：
# zh: 放在左边会压住“解码 批256”
# en: The label sits under the square:
# en: on its left it covered "decode b=256"
ax.annotate(
    label(Text(zh="预填充 2048", en="prefill 2048")),
    (1400, H100.peak_flops / 1e12 * 0.55),
    fontsize=7,
)
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel(
    label(
        Text(zh="计算强度 (FLOP/字节)", en="arithmetic intensity (FLOP/byte)")
    ),
    fontsize=8,
)
ax.set_ylabel(
    label(
        Text(
            zh="可达 TFLOP/s（H100 bf16）", en="attainable TFLOP/s (H100 bf16)"
        )
    ),
    fontsize=8,
)
ax.tick_params(labelsize=7)
ax.set_ylim(1.0, 3000.0)
display(figure_image(fig))

# %% [markdown] lang="zh"
# 所以解码一个 token 的时间有一个硬下限：每张 GPU 至少要把这一步用到的那份权重读一遍，
# TPOT ≥ 每 GPU 权重字节 / HBM 带宽。稠密模型每一步用到全部权重；混合专家 (MoE) 模型只读批里的 token 被路由到的专家，
# 批为 1 时就是它的激活参数（Mixtral 8x7B：129 亿，而不是全部 467 亿）。批越大，KV 缓存读得越多，TPOT 越长，
# 但每次读权重能服务更多请求，吞吐越高。注意“只读激活参数”说的是读，不是存：全部专家都得放在显存里，
# Mixtral 8x7B 的 bf16 权重共 93 GB，一张 H100 放不下，至少要 TP = 2（下面的单元格算出这几个数）。

# %% [markdown] lang="en"
# So the time of a decode token has a hard floor: every GPU must read its share of the weights the step uses once,
# TPOT ≥ weight bytes per GPU / HBM bandwidth. A dense model's step uses all its weights; a mixture of experts (MoE)
# reads only the experts the batch's tokens are routed to, at batch 1 its active parameters
# (Mixtral 8x7B: 12.9 billion, not all 46.7 billion). A bigger batch reads more KV cache and lengthens TPOT, but each
# read of the weights serves more requests, so throughput rises. "Reads only the active parameters" is about reading,
# not storing: every expert must sit in memory, and Mixtral 8x7B's bf16 weights are 93 GB, which do not fit on one
# H100; it needs at least TP = 2 (the cell below computes these figures).

# %%
MIXTRAL = MODELS["mixtral-8x7b"]
mixtral_fits = {
    tp: serving_memory_ledger(
        MIXTRAL, H100, tp=tp, concurrency=1, context_tokens=512 + 128
    ).fits
    for tp in (1, 2)
}
print(
    Text(
        zh=f"Mixtral 8x7B：激活参数 {MIXTRAL.active_params / 1e9:.1f}B，"
        f"全部参数 {MIXTRAL.num_params / 1e9:.1f}B，bf16 权重 "
        f"{MIXTRAL.num_params * 2 / 1e9:.0f} GB；一张 H100 放得下："
        f"{'是' if mixtral_fits[1] else '否'}，TP = 2 放得下："
        f"{'是' if mixtral_fits[2] else '否'}",
        en=f"Mixtral 8x7B: {MIXTRAL.active_params / 1e9:.1f}B active, "
        f"{MIXTRAL.num_params / 1e9:.1f}B in all, "
        f"{MIXTRAL.num_params * 2 / 1e9:.0f} GB of bf16 weights; fits one "
        f"H100: {'yes' if mixtral_fits[1] else 'no'}, fits at TP = 2: "
        f"{'yes' if mixtral_fits[2] else 'no'}",
    )
)
mixtral_floor_ms = 1e3 * serving_estimate(
    MIXTRAL, H100, batch=1, prompt_tokens=512, output_tokens=128
).weights_floor_s
every_weight_ms = (
    1e3 * MIXTRAL.num_params * 2 / H100.memory_bandwidth_bytes_per_s
)
print(
    Text(
        zh=f"批 1 时一张 H100 读权重的下限：{mixtral_floor_ms:.1f} ms"
        f"（只读激活参数），读全部权重要 {every_weight_ms:.1f} ms",
        en=f"Weights floor at batch 1 on one H100: {mixtral_floor_ms:.1f} ms "
        f"(active parameters only), not the {every_weight_ms:.1f} ms of "
        "reading every weight",
    )
)
assert (
    round(MIXTRAL.active_params / 1e8) == 129
    and round(MIXTRAL.num_params / 1e8) == 467
)
assert round(MIXTRAL.num_params * 2 / 1e9) == 93 and mixtral_fits == {
    1: False,
    2: True,
}

# %% [markdown] lang="zh"
# 用 FP8 服务时两头都变：权重与激活都用 8 位浮点 (FP8) 的 W8A8 做法（vLLM、TensorRT-LLM 在 H100 上的 FP8 模型），
# 每个权重只读 1 字节，解码读权重的下限减半；线性层的矩阵乘按 FP8 峰值算（H100 为 bf16 的两倍），计算受限的预填充变快，
# 但注意力仍按 bf16 算，所以 TTFT 缩短不到一半。下面的单元格对同一个布局各估算一次。这些都是屋顶线下界：
# 真实的 FP8 矩阵乘达不到数据手册上的两倍，量化对输出质量的影响也只有评测才知道。

# %% [markdown] lang="en"
# Serving in FP8 changes both ends. With W8A8, 8-bit floating point (FP8) weights and activations (vLLM's and
# TensorRT-LLM's FP8 models on H100), each weight is read as 1 byte, halving decode's weight floor; the linear layers'
# matmuls run at the FP8 peak (twice bf16's on H100), so the compute-bound prefill speeds up, but attention still
# runs at bf16, so TTFT shrinks by less than half. The cell below estimates the same layout both ways. These are
# roofline lower bounds: real FP8 matmuls fall short of the datasheet's doubling, and what quantisation does to the
# output's quality only an evaluation tells.

# %%
bf16_est = serving_estimate(
    LLAMA70, H100, tp=8, batch=64, prompt_tokens=2048, output_tokens=256
)
fp8_est = serving_estimate(
    LLAMA70,
    H100,
    tp=8,
    batch=64,
    prompt_tokens=2048,
    output_tokens=256,
    weight_bytes=1,
    precision="fp8",
)
md_table(
    [
        Text(zh="精度", en="precision"),
        Text(zh="每个权重的字节数", en="bytes per weight"),
        Text(zh="TTFT 下界 (ms)", en="TTFT lower bound (ms)"),
        Text(zh="TPOT 下界 (ms)", en="TPOT lower bound (ms)"),
    ],
    [
        (
            "bf16",
            2,
            f"{bf16_est.time_to_first_token_s * 1e3:.1f}",
            f"{bf16_est.time_per_output_token_s * 1e3:.2f}",
        ),
        (
            "FP8 (W8A8)",
            1,
            f"{fp8_est.time_to_first_token_s * 1e3:.1f}",
            f"{fp8_est.time_per_output_token_s * 1e3:.2f}",
        ),
    ],
)
ttft_ratio = fp8_est.time_to_first_token_s / bf16_est.time_to_first_token_s
tpot_ratio = fp8_est.time_per_output_token_s / bf16_est.time_per_output_token_s
print(
    Text(
        zh=f"FP8 的 TTFT 是 bf16 的 {ttft_ratio:.2f} 倍"
        "（注意力仍按 bf16 峰值算，所以不到一半）；"
        f"TPOT 是 {tpot_ratio:.2f} 倍（解码是访存受限，"
        "读的权重字节减半，KV 缓存不变）",
        en=f"FP8's TTFT is {ttft_ratio:.2f} times bf16's (attention still runs "
        f"at the bf16 peak, so not half); its TPOT {tpot_ratio:.2f} times "
        "(decode is memory-bound: half the weight bytes, the same KV cache)",
    )
)
assert (
    0.5 < ttft_ratio < 1
    and fp8_est.time_per_output_token_s < bf16_est.time_per_output_token_s
)
assert fp8_est.decode_bound == bf16_est.decode_bound == "memory"

# %% [markdown] lang="zh"
# ## 5. TP 降低时延，副本提高吞吐；TP 在哪里不再划算
#
# TP = t 让每张卡只读 1/t 的权重，解码下限也变成 1/t。代价是每层两次全归约（注意力之后和 MLP 之后），
# 每个 token 2·L 次，而且都在关键路径 (critical path) 上。解码时每次只归约 批 × h 个元素——几十 KiB 到几 MiB——这时 NCCL 不用
# 大消息的 Simple 协议，它自己的成本模型会选 LL（低时延）协议：每跳时延小得多，但只有约四分之一的带宽。
# 这里的协议 (protocol) 是 NCCL 在数据旁边写“已到达”标志的方式（[术语表](glossary.ipynb)的“通信协议”）：LL 每 8 字节里
# 4 字节是标志，接收方看到标志就能用数据，时延最低；LL128 每 128 字节里 8 字节是标志，居中；Simple 整块写完再同步一次，
# 带宽最高、时延也最高。算法 (algorithm) 是数据走的路线：环形算法 (ring) 沿一个环逐卡传递，
# 树形算法 (tree) 沿一棵树先归约、再把结果传回。
# `tp_all_reduce` 按 NCCL `src/graph/tuning.cc` 里的表格为环形、树形两种算法与 LL、LL128、Simple 三种协议的每个组合定价，
# 取最快者。它**不给 NVLS 定价**：H100 的 NVSwitch 上 NCCL 还会用 NVLS（在交换机内做归约），小消息时可能比下表更快。
# 另外，vLLM 和 TensorRT-LLM 对解码这样的小消息不调用 NCCL，而用自己的全归约内核（一次性把数据写到对端显存、只同步一次），
# 时延更低。所以下表是 NCCL 环形/树形的估计，不是引擎实际付出的时间。每行看两样：NCCL 为这个大小的消息选的算法和协议，
# 以及 8 张卡一次全归约的时间——消息从 16 KiB 涨到 1 MiB（64 倍），时间只多了一倍多，小消息几乎全是时延：

# %% [markdown] lang="en"
# ## 5. TP for latency, replicas for throughput; where TP stops paying
#
# TP = t makes each GPU read 1/t of the weights, and the decode floor drops to 1/t. The price is two all-reduces per layer
# (after attention and after the MLP), 2·L per token, all on the critical path. A decode all-reduce carries only
# batch × h elements, tens of KiB to a few MiB, and there NCCL does not use its large-message Simple protocol: its own
# cost model picks LL (low latency), with much smaller per-hop latency but only about a quarter of the bandwidth.
# A protocol here is how NCCL writes an "arrived" flag beside the data (the [glossary](glossary.ipynb)'s "NCCL
# protocol"): LL spends 4 bytes of every 8 on the flag, so the receiver can use the data as soon as it sees the flag,
# the lowest latency; LL128 spends 8 bytes of every 128, in between; Simple writes whole blocks and synchronises once,
# the highest bandwidth and the highest latency. An algorithm is the route the data takes: the ring algorithm passes
# it GPU to GPU around a ring, the tree algorithm reduces it up a tree and sends the result back down.
# `tp_all_reduce` prices each pair of the ring and tree algorithms with the LL, LL128 and Simple protocols from the
# tables of NCCL's `src/graph/tuning.cc` and takes the fastest. It **does not price NVLS**: on H100's NVSwitch NCCL
# also uses NVLS (the reduction done inside the switch), which may beat the table for small messages. And vLLM and
# TensorRT-LLM do not call NCCL for decode-sized messages: they use their own all-reduce kernels (each GPU writes its
# data straight into its peers' memory and synchronises once), with lower latency. So the table estimates NCCL's ring
# and tree, not what an engine actually pays. Read two things in each row: the algorithm and protocol NCCL picks for
# a message of this size, and the time of one all-reduce over 8 GPUs. From 16 KiB to 1 MiB (64 times the bytes) the
# time little more than doubles: a small message is almost all latency:

# %%
nvlink_bytes_per_s = H100.intra_node_bandwidth_bytes_per_s
picks = {
    size: tp_all_reduce(size, ranks=8, bandwidth_bytes_per_s=nvlink_bytes_per_s)
    for size in (8192 * 2, 64 * 8192 * 2, 2048 * 8192 * 2, 2**28)
}
md_table(
    [
        Text(zh="消息", en="message"),
        Text(zh="NCCL 选择", en="NCCL picks"),
        Text(zh="时间 (µs)", en="time (µs)"),
    ],
    [
        (
            f"{size / 2**10:.0f} KiB"
            if size < 2**20
            else f"{size / 2**20:.0f} MiB",
            c.label,
            f"{c.time_s * 1e6:.1f}",
        )
        for size, c in picks.items()
    ],
)
# zh: 核对上文的说法：16 KiB 到 1 MiB，
# zh: 字节 64 倍，时间只多一倍多
# en: Checking the text above: 16 KiB to 1 MiB, 64 times the bytes, the time
# en: little more than doubles
growth = picks[64 * 8192 * 2].time_s / picks[8192 * 2].time_s
assert 2 < growth < 3

# %% [markdown] lang="zh"
# 于是 TPOT = 权重与 KV 的读取时间（随 TP 减半）+ 2·L 次全归约（随 TP 增加）。对 70B 模型，TP 从 1 加到 8，
# 读取时间每次减半，省下的比新增的通信多，TP 一路有利；但通信并不小：TP = 8 时全归约已占 TPOT 的三成左右（见表后的一行）。
# TP = 1 那一行只是为了比较：70B 的 bf16 权重一张 H100 放不下，标为“放不下”。对很小的模型，读权重本来就只要几十微秒，
# TP = 2 最多省一半，却要加 24 次全归约，每次至少 6.6 µs 的基础时延：

# %% [markdown] lang="en"
# So TPOT = the time to read weights and KV (halving with TP) + 2·L all-reduces (growing with TP). For a 70B model each
# doubling of TP from 1 to 8 saves more reading than it adds communication, so TP keeps paying; but the communication
# is not small: at TP = 8 the all-reduces are already about a third of TPOT (see the line after the table). The TP = 1
# row is there for comparison only: 70B's bf16 weights do not fit on one H100, and the row says so. For a very small
# model the weights take only tens of microseconds, TP = 2 saves at most half of that, and adds 24 all-reduces of at
# least 6.6 µs base latency each:

# %%
rows = []
tpot_by_model = {}
estimates = {}
fits_by_row = {}
for name in ("llama3-70b", "llama3-8b", "gpt2-small"):
    spec = MODELS[name]
    for tp in (1, 2, 4, 8):
        if spec.heads % tp:
            continue
        est = serving_estimate(
            spec, H100, tp=tp, batch=1, prompt_tokens=512, output_tokens=128
        )
        ledger_1 = serving_memory_ledger(
            spec, H100, tp=tp, concurrency=1, context_tokens=512 + 128
        )
        estimates[name, tp], fits_by_row[name, tp] = est, ledger_1.fits
        tpot_by_model.setdefault(name, []).append(est.time_per_output_token_s)
        compute_s = est.time_per_output_token_s - est.decode_comm_s
        rows.append(
            (
                name,
                tp,
                f"{est.weights_floor_s * 1e3:.3f}",
                f"{compute_s * 1e3:.3f}",
                f"{est.decode_comm_s * 1e3:.3f}",
                f"{est.time_per_output_token_s * 1e3:.3f}",
                Text(zh="放得下", en="fits")
                if ledger_1.fits
                else Text(
                    zh=f"放不下（需 {ledger_1.total_gib:.0f} GiB）",
                    en=f"does not fit (needs {ledger_1.total_gib:.0f} GiB)",
                ),
            )
        )
md_table(
    [
        Text(zh="模型", en="model"),
        "TP",
        Text(zh="权重下限 (ms)", en="weights floor (ms)"),
        Text(zh="读取 (ms)", en="reads (ms)"),
        Text(zh="TP 通信 (ms)", en="TP communication (ms)"),
        Text(zh="TPOT 下界 (ms)", en="TPOT lower bound (ms)"),
        Text(zh="单卡显存", en="memory per GPU"),
    ],
    rows,
)
tp8 = estimates["llama3-70b", 8]
tp8_reads_ms = (tp8.time_per_output_token_s - tp8.decode_comm_s) * 1e3
tp8_comm_share = tp8.decode_comm_s / tp8.time_per_output_token_s
print(
    Text(
        zh=f"Llama-3 70B，TP = 8：读取 {tp8_reads_ms:.2f} ms，全归约 "
        f"{tp8.decode_comm_s * 1e3:.2f} ms，通信占 TPOT 的 "
        f"{tp8_comm_share:.0%}",
        en=f"Llama-3 70B, TP = 8: reads {tp8_reads_ms:.2f} ms, all-reduces "
        f"{tp8.decode_comm_s * 1e3:.2f} ms, "
        f"communication {tp8_comm_share:.0%} of TPOT",
    )
)
# zh: 核对上文引用的数字：TP = 8 时通信约占 TPOT 的三成；
# zh: 70B 在 TP = 1 时放不进一张 H100（仅 bf16 权重就有 141 GB），
# zh: TP = 2 起放得下。
# en: Checking the figures the text above quotes: about a third of TPOT at TP = 8;
# en: 70B at TP = 1 does not fit one H100 (its bf16 weights alone are 141 GB), from
# en: TP = 2 on it does.
assert (
    round(tp8_reads_ms, 2) == 5.27
    and round(tp8.decode_comm_s * 1e3, 2) == 2.45
    and round(tp8_comm_share, 2) == 0.32
)
assert round(LLAMA70.num_params * 2 / 1e9) == 141
assert not fits_by_row["llama3-70b", 1] and all(
    fits_by_row["llama3-70b", tp] for tp in (2, 4, 8)
)
gpt2_floor_us = (
    MODELS["gpt2-small"].num_params
    * 2
    / H100.memory_bandwidth_bytes_per_s
    * 1e6
)
print(
    Text(
        zh=f"GPT-2 small：每 token 读权重 {gpt2_floor_us:.0f} µs；TP=2 最多省 "
        f"{gpt2_floor_us / 2:.0f} µs",
        en=f"GPT-2 small: {gpt2_floor_us:.0f} µs of weight reads per token; "
        f"TP=2 saves at most {gpt2_floor_us / 2:.0f} µs",
    )
)
assert (
    round(gpt2_floor_us) == 74
    and tpot_by_model["gpt2-small"][1] > tpot_by_model["gpt2-small"][0]
)
assert tpot_by_model["llama3-70b"] == sorted(
    tpot_by_model["llama3-70b"], reverse=True
)

# %% [markdown] lang="zh"
# TP 降低单个请求的时延；要更多吞吐，就加副本——副本之间没有通信，吞吐按副本数线性增长（只要请求够多）。
# PP 也切权重，但一个 token 仍要依次穿过全部阶段，所以 PP 不降低 TPOT：它只让更大的模型放得下，并用多个请求组把流水线填满。

# %% [markdown] lang="en"
# TP lowers a single request's latency; for more throughput, add replicas: they do not communicate, so throughput grows
# linearly with their number (given enough requests). PP splits the weights too, but a token still passes every stage
# in turn, so PP does not lower TPOT: it only makes a bigger model fit and keeps the stages busy with several groups of
# requests.

# %% [markdown] lang="zh"
# ## 6. 批大小与时延
#
# 同一个副本，批越大，TPOT 越长（每步多读 KV 缓存），吞吐越高（权重读一次服务更多请求），直到 KV 缓存放不下。
# 反过来读：同样的负载分给 4 个副本而不是 1 个，每个副本的批从 64 降到 16，TPOT 也跟着降——这就是副本在负载下降低时延的方式。
# 和本课所有的表一样，下表的时间是屋顶线下界、吞吐是上界，不是预测值：第 9 节把它们和公开测量对比，实测的首 token 时间约为
# 下界的 1.4-1.5 倍，吞吐约为上界的 0.8；TPOT 的实测同样只会更长。比较两行时看的是相对大小，而不是把某个数当成能达到的时延：

# %% [markdown] lang="en"
# ## 6. Batch size against latency
#
# On the same replica, a bigger batch lengthens TPOT (each step reads more KV cache) and raises throughput (one read of
# the weights serves more requests), until the KV cache no longer fits. Read it the other way: the same load spread
# over 4 replicas instead of 1 takes each replica's batch from 64 to 16, and TPOT falls with it. That is how replicas
# lower latency under load. As in every table of this lesson, the times below are roofline lower bounds and the
# throughputs upper bounds, not predictions: section 9 compares them with published measurements, where the measured
# time to first token is about 1.4-1.5 times the bound and the throughput about 0.8 of it; a measured TPOT can only be
# longer too. Compare rows with each other; do not read any number as a latency you will reach:

# %%
rows = []
tpot_at_batch_ms = {}
for batch in (1, 4, 16, 64, 256, 1024):
    est = serving_estimate(
        LLAMA70, H100, tp=8, batch=batch, prompt_tokens=2048, output_tokens=256
    )
    tpot_at_batch_ms[batch] = est.time_per_output_token_s * 1e3
    fits = serving_memory_ledger(
        LLAMA70, H100, tp=8, concurrency=batch, context_tokens=2304
    ).fits
    rows.append(
        (
            batch,
            f"{est.time_per_output_token_s * 1e3:.1f}",
            f"{est.decode_tokens_per_s:,.0f}",
            f"{est.tokens_per_s:,.0f}",
            Text(zh="是", en="yes") if fits else Text(zh="否", en="no"),
        )
    )
md_table(
    [
        Text(zh="批", en="batch"),
        Text(zh="TPOT 下界 (ms)", en="TPOT lower bound (ms)"),
        Text(zh="解码 token/秒（上界）", en="decode tokens/s (upper bound)"),
        Text(
            zh="含预填充的 token/秒（上界）",
            en="tokens/s with prefills (upper bound)",
        ),
        Text(zh="放得下", en="fits"),
    ],
    rows,
)
# zh: 核对第 1 节的说法：4 个副本代替 1 个，
# zh: 每个副本的批从 64 降到 16，TPOT 从 12.7 ms 降到 8.9 ms；
# zh: 再多副本也低不过批 1 那一行。
# en: Checking section 1's claim: 4 replicas instead of 1 take a replica's batch
# en: from 64 to 16 and its TPOT from 12.7 to 8.9 ms; no replica count gets below
# en: the batch-1 row.
assert (
    round(tpot_at_batch_ms[64], 1) == 12.7
    and round(tpot_at_batch_ms[16], 1) == 8.9
)
assert tpot_at_batch_ms[1] == min(tpot_at_batch_ms.values())

# %% [markdown] lang="zh"
# ## 7. 利特尔定律：从请求速率到并发
#
# 稳态下，系统里的平均请求数 N = 到达速率 λ × 每个请求在系统里的时间 W（这一节的 N 不是层数 L）。请求时间 W = TTFT + 输出长度 × TPOT，而 TPOT 又随并发增长，
# 所以并发要解一个不动点。`plan_serving` 给定请求速率时就这样做：它找每个副本最小的并发 c，使 λ × W(c) ≤ c
# （利特尔定律），且副本的吞吐跟得上 λ；速率太高、显存能容纳的并发内没有这样的 c 时，布局被服务目标 (service-level objective, SLO) 门槛以 `rate` 拒绝。
# 下面的例子里，决定 c 的是吞吐条件，不是 λ × W：

# %% [markdown] lang="en"
# ## 7. Little's law: from a request rate to a concurrency
#
# In steady state the mean number of requests in the system is N = arrival rate λ × the time W each spends in it (N
# here, not the layer count L). W = TTFT + output
# length × TPOT, and TPOT grows with concurrency, so the concurrency is a fixed point. `plan_serving` solves it when
# given a request rate: it finds the smallest concurrency c per replica with λ × W(c) ≤ c (Little's law) at which the
# replica's throughput also keeps up with λ; when the rate is too high and no such c exists within the concurrency
# memory holds, the gate of the service-level objectives (SLO) rejects the layout with `rate`. In the example below the throughput condition sets c, not
# λ × W:

# %%
in_system = littles_law_concurrency(8.0, 2.5)
print(
    Text(
        zh=f"littles_law_concurrency(8.0, 2.5) = {in_system:g}："
        f"每秒到达 8 个请求、每个停留 2.5 秒，系统里平均有 {in_system:g} 个",
        en=f"littles_law_concurrency(8.0, 2.5) = {in_system:g}: 8 requests/s "
        f"that each stay 2.5 s keep {in_system:g} in the system on average",
    )
)
TWO_NODES = H100.with_nodes(2)
rate_plan = plan_serving(
    LLAMA70,
    TWO_NODES,
    ServingWorkload(
        prompt_tokens=2048, output_tokens=256, request_rate_per_s=8.0
    ),
)
best = rate_plan.accepted[0]
c = best.concurrency_per_replica
rate_per_replica = 8.0 / best.replicas


def in_flight(concurrency):
    """W (s) of one request, and the requests/s one replica of the best layout
    completes, at this concurrency."""
    est = serving_estimate(
        LLAMA70,
        TWO_NODES,
        tp=best.tp,
        pp=best.pp,
        batch=concurrency,
        prompt_tokens=2048,
        output_tokens=256,
    )
    return (
        est.time_to_first_token_s + 256 * est.time_per_output_token_s,
        est.tokens_per_s / 256,
    )


w_c, served_c = in_flight(c)
w_below, served_below = in_flight(c - 1)
print(
    Text(
        zh="每秒 8 个请求、2 个节点：最佳布局 "
        f"replicas={best.replicas} tp={best.tp} pp={best.pp}，"
        f"每个副本每秒分到 {rate_per_replica:g} 个请求，稳态并发 c = {c} 个。"
        f"\nc = {c} 时：W = {w_c:.2f} s，"
        f"λ × W = {rate_per_replica * w_c:.2f} ≤ {c}，"
        f"副本每秒完成 {served_c:.2f} 个请求，跟得上；\nc = {c - 1} 时："
        f"λ × W = {rate_per_replica * w_below:.2f}，但副本每秒只完成 "
        f"{served_below:.2f} 个请求，跟不上。",
        en=f"8 requests/s on 2 nodes: best layout replicas={best.replicas} "
        f"tp={best.tp} pp={best.pp}, {rate_per_replica:g} request/s per "
        f"replica, c = {c} requests in flight per replica.\nAt c = {c}: W = "
        f"{w_c:.2f} s, λ × W = {rate_per_replica * w_c:.2f} ≤ {c}, and the "
        f"replica completes {served_c:.2f} requests/s: it keeps up;\nat c = "
        f"{c - 1}: λ × W = {rate_per_replica * w_below:.2f}, but the replica "
        f"completes only {served_below:.2f} requests/s: it falls behind.",
    )
)
# zh: 核对上面的说法：
# zh: c 是同时满足利特尔定律和吞吐条件的最小并发
# en: Checking the lines above: c is the smallest concurrency that meets both
# en: Little's law and the throughput condition
assert rate_per_replica * w_c <= c and served_c >= rate_per_replica
assert rate_per_replica * w_below <= c - 1 and served_below < rate_per_replica

# %% [markdown] lang="zh"
# ## 8. 搜索 replicas × TP × PP
#
# `plan_serving` 枚举所有 replicas × tp × pp = 设备数 的布局，按顺序过门槛：形状（TP 整除注意力头数，KV 头平分或整头复制）、
# 互连（TP 留在节点内）、显存、副本（每个副本都有请求）、SLO（TTFT、TPOT、请求速率），对留下的给出下界估计，
# 按每 GPU 吞吐排序；相差不到 15% 的标为“分不出高下”。并发不能被副本数整除时，最满的副本决定显存和时延，
# 吞吐则按每个副本实际的请求数相加。命令行版本：
#
# `python -m coursekit plan --mode serving --model llama3-70b --cluster h100-8 --concurrency 64 --prompt-tokens 2048 --output-tokens 256 --ttft-ms 500 --tpot-ms 50 --lang zh`

# %% [markdown] lang="en"
# ## 8. Searching replicas × TP × PP
#
# `plan_serving` enumerates every layout with replicas × tp × pp = devices and runs the gates in order: shape (TP
# divides the heads; the KV heads split evenly or are copied whole), interconnect (TP inside a node), memory, replica
# (every replica gets requests), SLO (TTFT, TPOT, request rate). It gives lower-bound estimates for the survivors and
# orders them by throughput per GPU, marking those within 15 % of the best as a tie. When the replicas do not divide
# the concurrency, the fullest replica sets memory and latency, and the throughput adds up each replica's own
# requests. On the command line:
#
# `python -m coursekit plan --mode serving --model llama3-70b --cluster h100-8 --concurrency 64 --prompt-tokens 2048 --output-tokens 256 --ttft-ms 500 --tpot-ms 50 --lang en`

# %%
result = plan_serving(
    LLAMA70,
    H100,
    ServingWorkload(
        prompt_tokens=2048,
        output_tokens=256,
        concurrency=64,
        ttft_slo_s=0.5,
        tpot_slo_s=0.05,
    ),
)
print(result.report(top=3))

# %% [markdown] lang="zh"
# 并发多到任何布局都放不下时，结果会说清最接近的布局还差多少：

# %% [markdown] lang="en"
# When the concurrency is more than any layout can hold, the result names the closest layout and its shortfall:

# %%
crowded = plan_serving(
    LLAMA70,
    H100,
    ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=5000),
)
assert not crowded.accepted
print(crowded.report(top=1).split("\n\n")[2])

# %% [markdown] lang="zh"
# ## 9. 与公开测量对比
#
# 估计的时间是下界、吞吐是上界，所以测量应当更慢（吞吐更低）。TensorRT-LLM 公布过 A100 80GB 上 FP16 的测量
# （其文档 `performance.md`）；与本课的界对比：

# %% [markdown] lang="en"
# ## 9. Against published measurements
#
# The estimated times are lower bounds and the throughputs upper bounds, so measurements should be slower (lower
# throughput). TensorRT-LLM published FP16 measurements on A100 80GB (its `performance.md` documentation); against
# this lesson's bounds:

# %%
rows = []
ratios = {"ttft_s": [], "tokens_per_s": []}
for m in PUBLISHED_MEASUREMENTS:
    est = serving_estimate(
        m.model,
        CLUSTERS[m.gpu],
        tp=m.tp,
        batch=m.batch,
        prompt_tokens=m.prompt_tokens,
        output_tokens=m.output_tokens,
    )
    bound = (
        est.time_to_first_token_s if m.metric == "ttft_s" else est.tokens_per_s
    )
    metric = (
        Text(zh="首 token 时间 (s)", en="TTFT (s)")
        if m.metric == "ttft_s"
        else Text(zh="输出 token/秒", en="output tokens/s")
    )
    ratios[m.metric].append(m.value / bound)
    rows.append(
        (
            m.model.name,
            f"{m.tp} × A100",
            m.batch,
            f"{m.prompt_tokens} / {m.output_tokens}",
            metric,
            f"{m.value:.3g}" if m.metric == "ttft_s" else f"{m.value:,.0f}",
            f"{bound:.3g}" if m.metric == "ttft_s" else f"{bound:,.0f}",
            f"{m.value / bound:.2f}",
        )
    )
md_table(
    [
        Text(zh="模型", en="model"),
        "GPU",
        Text(zh="批", en="batch"),
        Text(zh="提示 / 输出", en="prompt / output"),
        Text(zh="指标", en="metric"),
        Text(zh="公布值", en="published"),
        Text(
            zh="本课的界（时间为下界，吞吐为上界）",
            en="this lesson's bound (time: lower, throughput: upper)",
        ),
        Text(zh="比值", en="ratio"),
    ],
    rows,
)
# zh: 核对下文引用的比值
# en: Checking the ratios the text below quotes
assert all(1.4 <= r <= 1.5 for r in ratios["ttft_s"]) and all(
    round(r, 1) == 0.8 for r in ratios["tokens_per_s"]
)

# %% [markdown] lang="zh"
# 首 token 时间实测约为下界的 1.4-1.5 倍：真实的预填充内核只达到峰值算力的七成左右（softmax、归一化和内核间隙都不是矩阵乘）。
# 吞吐实测约为上界的八成：解码读权重和 KV 达不到满带宽，调度还要穿插预填充。比值稳定，说明模型抓住了主导项；
# 它不是测量的替代品。

# %% [markdown] lang="en"
# Measured TTFT is about 1.4-1.5 times the bound: real prefill kernels reach about 70 % of peak FLOP/s (softmax,
# normalisation and gaps between kernels are not matmuls). Measured throughput is about 0.8 of the bound: decode reads
# weights and KV at less than full bandwidth, and scheduling interleaves prefills. Stable ratios say the model captures
# the dominant terms; it does not replace measurement.

# %% [markdown] lang="zh"
# ## 10. 只有实测才知道的事
#
# - **尾延迟 (tail latency)：** 下界是平均意义上的单个请求；p99 由排队、长提示插队、批次组成变化决定。
# - **排队：** 请求速率接近副本吞吐时，等待时间急剧上升（利特尔定律只给平均值，不给分布）；TTFT 的目标必须在负载下测。
# - **缓存局部性：** 前缀缓存 (prefix caching) 命中时，预填充可以跳过共享的提示前缀；命中率取决于真实流量。
# - **路由：** 副本之间负载是否均衡，决定了尾延迟先在哪里出现。

# %% [markdown] lang="en"
# ## 10. What only measurement tells
#
# - **Tail latency:** the bounds describe one request on average; p99 comes from queueing, long prompts cutting in and
#   the changing mix of the batch.
# - **Queueing:** as the request rate approaches a replica's throughput, waiting time shoots up (Little's law gives the
#   mean, not the distribution); TTFT objectives must be measured under load.
# - **Cache locality:** with prefix caching, a hit skips the prefill of a shared prompt prefix; the hit rate depends on
#   real traffic.
# - **Routing:** whether load is balanced across replicas decides where tail latency appears first.

# %% [markdown] lang="zh"
# ## 11. 交互：服务账本与时延-吞吐曲线
#
# 选模型、GPU、每副本 TP、批大小、提示/输出长度和精度。左图是每 rank 的显存账本（红线是设备显存），右图把每个批大小放在
# (TPOT, 每 GPU 吞吐) 上：往右上走是拿时延换吞吐，灰色叉表示 KV 缓存放不下；灰色点线是权重下限（图例里也标出）。
#
# “精度”默认是 bf16；选 FP8 W8A8 时，小部件按第 4 节的 FP8 估算重算一切：每个权重 1 字节（账本里的权重减半，点线左移），
# 线性层的矩阵乘按 FP8 峰值、注意力仍按 bf16 峰值，KV 缓存仍是 2 字节。说明里会写出用了哪种精度、哪些峰值。
# 默认布局下 TTFT 从 66 ms 降到 48 ms，TPOT 从 12.7 ms 降到 10.1 ms，与第 4 节的表一致；它们仍是屋顶线下界，
# 量化对输出质量的影响要靠评测。A100 没有 FP8 张量核心 (tensor core)：在 a100-8 上选 FP8，小部件不给数字，只说明原因。

# %% [markdown] lang="en"
# ## 11. Interactive: the serving ledger and the latency–throughput curve
#
# Choose the model, GPU, TP per replica, batch, prompt/output lengths and precision. Left: the memory ledger of one
# rank (the red line is the device memory). Right: every batch size at its (TPOT, throughput per GPU); moving up and
# right trades latency for throughput, grey crosses mark batches whose KV cache does not fit, and the dotted grey line
# is the weights floor (the legend names it too).
#
# The precision is bf16 by default. Choose FP8 W8A8 and the widget recomputes everything as section 4's FP8 estimate
# does: 1 byte a weight (the ledger's weights halve, the dotted line moves left), the linear layers' matmuls at the
# FP8 peak, attention still at the bf16 peak, the KV cache still 2 bytes. Its description names the precision and the
# peaks it used. At the default layout TTFT falls from 66 ms to 48 ms and TPOT from 12.7 ms to 10.1 ms, as in section
# 4's table; they are still roofline lower bounds, and what quantisation does to the output's quality is for an
# evaluation to show. A100 has no FP8 tensor cores: choose FP8 on a100-8 and the widget gives no numbers, only the
# reason.

# %%
widget = ServingWidget()
widget

# %% [markdown] lang="zh"
# ## 12. 练习
#
# ### 练习 10.1
#
# Llama-3 70B 每个 token 的 KV 缓存是多少 KiB（bf16）？

# %% [markdown] lang="en"
# ## 12. Exercises
#
# ### Exercise 10.1
#
# How many KiB of KV cache does one token of Llama-3 70B take (bf16)?

# %% tags=["learner"]
answer = ...
check("serve.kv_kib_per_token", answer)

# %% tags=["solution"]
answer = kv_cache_bytes(MODELS["llama3-70b"], tokens=1) / 1024
verify("serve.kv_kib_per_token", answer)

# %% [markdown] lang="zh"
# ### 练习 10.2
#
# 一个 TP = 8 的副本（一个 H100 节点）服务 Llama-3 70B，这次每个请求 8192 + 512 token（比第 3 节的例子长），
# 提示一次预填充完（`prefill_chunk_tokens=8192`，不是第 3 节的 2048）。按每 rank 账本，最多容纳多少个请求？

# %% [markdown] lang="en"
# ### Exercise 10.2
#
# One TP = 8 replica (one H100 node) serves Llama-3 70B, this time with requests of 8192 + 512 tokens (longer than
# section 3's example), each prompt prefilled in one chunk (`prefill_chunk_tokens=8192`, not section 3's 2048). By the
# per-rank ledger, how many requests does it hold at most?

# %% tags=["learner"]
answer = ...
check("serve.max_requests", answer)

# %% tags=["solution"]
answer = serving_memory_ledger(
    LLAMA70,
    H100,
    tp=8,
    concurrency=1,
    context_tokens=8192 + 512,
    prefill_chunk_tokens=8192,
).max_concurrency
verify("serve.max_requests", answer)

# %% [markdown] lang="zh"
# ### 练习 10.3
#
# Megatron-LM 表 1 的 1.7B 模型（`MODELS["megatron-1.7b"]`：24 层，h = 2304，24 个头）在 H100 节点上解码单个请求
# （提示 512 个 token，输出 128 个）。TP = 1、2、4、8 中哪一个的 TPOT 下界最小？

# %% [markdown] lang="en"
# ### Exercise 10.3
#
# Megatron-LM's Table 1 1.7B model (`MODELS["megatron-1.7b"]`: 24 layers, h = 2304, 24 heads) decodes a single request
# on an H100 node (512 prompt tokens, 128 output tokens). Which of TP = 1, 2, 4, 8 has the lowest TPOT bound?

# %% tags=["learner"]
answer = ...
check("serve.best_tp", answer)

# %% tags=["solution"]
times = {
    tp: serving_estimate(
        MODELS["megatron-1.7b"],
        H100,
        tp=tp,
        prompt_tokens=512,
        output_tokens=128,
    ).time_per_output_token_s
    for tp in (1, 2, 4, 8)
}
answer = min(times, key=times.get)
verify("serve.best_tp", answer)

# %% [markdown] lang="zh"
# ### 练习 10.4
#
# 每秒到达 20 个请求，每个请求平均 3.2 秒完成。稳态下系统里有多少个请求？

# %% [markdown] lang="en"
# ### Exercise 10.4
#
# 20 requests arrive per second and each takes 3.2 s on average. How many requests are in the system in steady state?

# %% tags=["learner"]
answer = ...
check("serve.littles_law", answer)

# %% tags=["solution"]
answer = littles_law_concurrency(20.0, 3.2)
verify("serve.littles_law", answer)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 加服务副本能降低负载下的时延，却降不了批为 1 时的时延下限；加 TP 两样都能降。为什么？
# 2. TP 超过 KV 头数以后，每张卡的 KV 缓存为什么不再变小？
# 3. 为什么解码的 TPOT 不可能低于“每 GPU 权重字节 / HBM 带宽”？批大小变大时，哪一项跟着变大？
# 4. 给设备更多显存，一个原来通过的服务布局会不会被拒绝？
# 5. TensorRT-LLM 测得的首 token 时间约是下界估计的 1.4-1.5 倍。这说明估计错了吗？哪些量只能实测？
# 6. 在第 11 节的小部件里保持默认布局，把精度从 bf16 换成 FP8：每 rank 读的权重字节减半，TPOT 却只从 12.7 ms 降到
#    10.1 ms。为什么没有减半？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. Adding serving replicas lowers latency under load but not the batch-1 floor; adding TP lowers both. Why?
# 2. Why does the KV cache per GPU stop shrinking once TP exceeds the KV head count?
# 3. Why can decode's TPOT never be below "weight bytes per GPU / HBM bandwidth"? Which term grows with the batch?
# 4. Give the devices more memory: can an accepted serving layout become rejected?
# 5. TensorRT-LLM's measured time to first token is about 1.4-1.5 times the lower bound. Does that make the estimate
#    wrong? What can only be measured?
# 6. In section 11's widget, keep the default layout and switch the precision from bf16 to FP8: each rank reads half the
#    weight bytes, yet TPOT falls only from 12.7 ms to 10.1 ms. Why not by half?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 负载一定时，副本越多，每个副本的批越小、排队越短，TPOT 和等待都下降（第 6 节：批 64 时 12.7 ms，批 16 时 8.9 ms）。
#    但一个请求始终只在一个副本上跑，批为 1 时它的时延由该副本读一遍权重的时间决定，副本数改变不了；TP 把每个 token 要读的权重
#    分到多张卡上并行读，所以连这个下限也降低（直到通信时延占主导）。
# 2. TP 按 KV 头切分缓存；头数不够分时，每张卡至少要有一个完整的 KV 头来算自己的查询头，只能复制。
# 3. 每个解码步都要用到这一步的权重（稠密模型是全部权重；MoE 是批里的 token 被路由到的专家，批为 1 时就是激活参数），
#    每张卡至少要把自己那份从 HBM 读一遍。批变大时，KV 缓存的读取和运算随之增加；稠密模型的权重读取不变。
# 4. 不会：显存变大只会放行更多布局。显存门槛放行更多；SLO 门槛在显存容得下的并发里找满足请求速率的并发，显存大了只是
#    可找的范围更宽；形状、互连、副本门槛与显存无关。
# 5. 不是：下界假设内核跑满峰值、没有排队和调度开销；稳定的比值说明主导项抓对了。尾延迟、排队、缓存命中率和路由均衡只能实测。
# 6. FP8 只减少了权重那一项：权重下限从 5.27 ms 降到 2.63 ms。同一个解码步里，批 64 个请求读 KV 缓存的 1.70 ms
#    不变（KV 缓存仍是 2 字节），每个 token 160 次 TP 全归约的 5.75 ms 也不变（传的是激活，不是权重）。
#    所以 5.27 + 1.70 + 5.75 = 12.72 ms 变成 2.63 + 1.70 + 5.75 = 10.08 ms。批越大、上下文越长，KV 缓存那一项越重，
#    FP8 省下的比例就越小。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. Under a given load, more replicas mean a smaller batch and a shorter queue on each, so TPOT and waiting both fall
#    (section 6: 12.7 ms at batch 64, 8.9 ms at batch 16). But a request runs on one replica only, and at batch 1 its
#    latency is the time that replica takes to read its weights, which the replica count does not change. TP spreads
#    the weights each token reads over several GPUs that read in parallel, so it lowers even that floor (until
#    communication latency dominates).
# 2. TP splits the cache by KV heads; when there are not enough heads to go round, every GPU still needs one whole KV
#    head for its query heads, so heads are replicated.
# 3. Every decode step uses the step's weights (all of them in a dense model; in an MoE the experts the batch's tokens
#    are routed to, its active parameters at batch 1), and each GPU must read its share from HBM at least once. With a
#    bigger batch, the KV cache reads and the arithmetic grow; a dense model's weight reads do not.
# 4. No: more memory only lets more layouts through. The memory gate admits more; the SLO gate searches for a
#    concurrency that meets the request rate within what memory holds, and more memory only widens that search; the
#    shape, interconnect and replica gates do not depend on memory.
# 5. No: the bound assumes kernels at peak and no queueing or scheduling overhead; a stable ratio says the dominant
#    terms are right. Tail latency, queueing, cache hit rates and routing balance can only be measured.
# 6. FP8 shrinks only the weights term: the weights floor falls from 5.27 ms to 2.63 ms. In the same decode step,
#    reading the KV cache of the batch's 64 requests still takes 1.70 ms (the cache stays 2 bytes), and the 160 TP
#    all-reduces per token still take 5.75 ms (they carry activations, not weights). So 5.27 + 1.70 + 5.75 = 12.72 ms
#    becomes 2.63 + 1.70 + 5.75 = 10.08 ms. The bigger the batch and the longer the context, the heavier the KV cache
#    term and the smaller the share FP8 saves.

# %% [markdown] lang="zh"
# ## 要点
#
# - 服务副本不是 DP：各自排队、从不同步；加副本加吞吐，也因批更小、排队更短而降低负载下的时延，但降不了批为 1 的时延下限（那要靠 TP）。
# - KV 字节/token = 2·L·KV 头数·head_dim·每元素字节数；GQA/MQA 省下的显存全部来自 KV 头数的减少；TP 按 KV 头切分，超过头数就复制。
# - 预填充是计算受限（强度约为提示长度），解码是访存受限（强度约为批大小）；TPOT ≥ 每 GPU 权重 / HBM 带宽。
# - TP 降低 TPOT，直到每 token 2·L 次小消息全归约的时延占主导；PP 不降低 TPOT。
# - 所有时间都是下界估计；尾延迟、排队和缓存局部性必须实测。

# %% [markdown] lang="en"
# ## Key points
#
# - A serving replica is not DP: its own queue, never synchronized; replicas add throughput and, through smaller batches and shorter queues, lower latency under load, but not the batch-1 floor (that takes TP).
# - KV bytes per token = 2·L·KV heads·head_dim·bytes; all of GQA's and MQA's saving is in the KV head count; TP splits by KV heads and replicates beyond them.
# - Prefill is compute-bound (intensity about the prompt length), decode memory-bound (intensity about the batch); TPOT ≥ weights per GPU / HBM bandwidth.
# - TP lowers TPOT until the latency of 2·L small all-reduces per token dominates; PP does not lower TPOT.
# - Every time is a lower-bound estimate; tail latency, queueing and cache locality must be measured.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - Kwon 等. [Efficient Memory Management for Large Language Model Serving with PagedAttention](https://arxiv.org/abs/2309.06180).
#   SOSP 2023. 分页注意力 (PagedAttention) 把 KV 缓存按固定大小的块管理，减少碎片、让更多请求同时驻留；vLLM 的核心。
# - Pope 等. [Efficiently Scaling Transformer Inference](https://arxiv.org/abs/2211.05102). MLSys 2023.
#   预填充与解码的成本模型，以及时延、吞吐和模型利用率之间按切分方式的权衡；多查询注意力 (MQA) 怎样缩小 KV 缓存。
# - Agrawal 等. [Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve](https://arxiv.org/abs/2403.02310).
#   OSDI 2024. 分块预填充 (chunked prefill)：把长提示切块、和解码一起成批，避免解码被长预填充卡住。
# - Ainslie 等. [GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints](https://arxiv.org/abs/2305.13245).
#   EMNLP 2023. 分组查询注意力 (GQA)：本课 KV 头数公式省下的显存就来自它。

# %% [markdown] lang="en"
# ## Related reading
#
# - Kwon et al. [Efficient Memory Management for Large Language Model Serving with PagedAttention](https://arxiv.org/abs/2309.06180).
#   SOSP 2023. PagedAttention manages the KV cache in fixed-size blocks, cutting fragmentation so more requests fit at
#   once; the core of vLLM.
# - Pope et al. [Efficiently Scaling Transformer Inference](https://arxiv.org/abs/2211.05102). MLSys 2023. A cost model
#   of prefill and decode, and how the partitioning trades latency, throughput and model FLOPs utilization; how
#   multi-query attention (MQA) shrinks the KV cache.
# - Agrawal et al. [Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve](https://arxiv.org/abs/2403.02310).
#   OSDI 2024. Chunked prefill: long prompts are split into chunks batched together with decodes, so decodes are not
#   stalled behind a long prefill.
# - Ainslie et al. [GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints](https://arxiv.org/abs/2305.13245).
#   EMNLP 2023. Grouped-query attention (GQA): where the saving in this lesson's KV-head formula comes from.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的模型每 token KV 字节，以及一个典型请求的 KV 缓存：
# - 我的服务目标 (SLO)，以及下界估计说哪些布局可能满足：
# - TP 在我的模型上从哪里开始不划算：
# - 我准备实测的三件事（尾延迟、排队、缓存命中……）：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - My model's KV bytes per token, and the KV cache of a typical request:
# - My service-level objectives (SLO), and the layouts the bounds say might meet them:
# - Where TP stops paying for my model:
# - The three things I will measure (tail latency, queueing, cache hits, ...):

# %% [markdown] lang="zh"
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 9 课 决策工作台](09_workbench.ipynb)

# %% [markdown] lang="en"
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 9, decision workbench](09_workbench.ipynb)
