# ---
# jupyter:
#   jupytext:
#     text_representation:
#       format_name: percent
# ---

# %% [markdown] lang="zh"
# # 第 7 课：计算效率——屋顶线、计算强度与 MFU
#
# [English version](../en/07_compute_efficiency.ipynb) · [课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 6 课 流水线气泡与扩展效率](06_pipeline_scaling.ipynb) · 下一课：[第 8 课 公式与实测](08_lab.ipynb)
#
# > **时间：** 约 70 分钟（讲解与阅读 50 分钟，练习 20 分钟）
# >
# > **问题：**
# > - 同样的 GPU、同样多的 FLOP，为什么有的并行布局算得快，有的算得慢？
# > - 一个矩阵乘什么时候访存受限 (memory-bound)，什么时候计算受限 (compute-bound)？
# > - 论文报告的 MFU 是怎样算出来的？它和 HFU 差在哪里？
# >
# > **目标：**
# > - 用屋顶线模型 (roofline model) 和脊点 (ridge point) 判断一个内核是访存受限还是计算受限；从数据手册算出 A100 和 H100 的脊点。
# > - 推导 bf16 矩阵乘的计算强度 (arithmetic intensity) m·k·n / (m·k + k·n + m·n)，并说明它为什么接近最小的那一维。
# > - 说明张量并行度 TP、微批次大小和上下文并行度 CP 怎样改变每张 GPU 上矩阵乘的形状；说明 TP = 8 放在节点内为什么是常见选择。
# > - 按 PaLM 的约定 (6N + 12·L·h·s) 数模型 FLOP，从论文报告的吞吐算出模型浮点利用率 (MFU)；区分 MFU 与 HFU（重计算只算进 HFU）。
# > - 说明训练的矩阵乘为什么通常是计算受限、解码 (decode) 为什么是访存受限——这是通往第 10 课（服务）的桥。
# >
# > **前置：** 第 1 课的激活重计算，第 2 课的通信账本（TP 每层都有集合通信），第 6 课的微批次与流水线。

# %% [markdown] lang="en"
# # Lesson 7: Compute efficiency — the roofline, arithmetic intensity and MFU
#
# [中文版](../zh/07_compute_efficiency.ipynb) · [Course index](00_index.ipynb) · [Glossary](glossary.ipynb) · Previous: [lesson 6, pipeline bubble and scaling efficiency](06_pipeline_scaling.ipynb) · Next: [lesson 8, formula vs measurement](08_lab.ipynb)
#
# > **Time:** about 70 min (teaching and reading 50 min, exercises 20 min)
# >
# > **Questions:**
# > - Same GPU, same number of FLOPs: why do some parallel layouts compute fast and others slowly?
# > - When is a matrix multiplication limited by memory bandwidth, and when by arithmetic?
# > - How is the MFU that papers report computed, and how does it differ from HFU?
# >
# > **Objectives:**
# > - Use the roofline model and its ridge point to tell a memory-bound kernel from a compute-bound one; compute the
# >   ridge points of A100 and H100 from their datasheets.
# > - Derive the arithmetic intensity of a bf16 matmul, m·k·n / (m·k + k·n + m·n), and explain why it is close to the
# >   smallest dimension.
# > - Explain how the tensor-parallel degree TP, the micro-batch size and the context-parallel degree CP change the
# >   shape of each GPU's matmuls, and why TP = 8 inside a node is the usual choice.
# > - Count model FLOPs with PaLM's convention (6N + 12·L·h·s) and compute the model FLOPs utilization (MFU) of a
# >   published run from its reported throughput; tell MFU from HFU (recomputation counts only in HFU).
# > - Explain why training matmuls are usually compute-bound and decode is memory-bound: the bridge to lesson 10
# >   (serving).
# >
# > **Prerequisites:** lesson 1's activation recomputation, lesson 2's communication ledger (TP runs collectives in
# > every layer), lesson 6's micro-batches and pipelines.

# %%
import coursekit

coursekit.set_language("{{LANG}}")

from IPython.display import Markdown, display

from coursekit.exercises import check, show_solution, verify
from coursekit.hardware import (
    A100_80GB_HBM_BYTES_PER_S,
    A100_BF16_DENSE_FLOPS,
    H100_BF16_DENSE_FLOPS,
    H100_HBM_BYTES_PER_S,
    HDR_PER_GPU_BYTES_PER_S,
    IB_NDR_BYTES_PER_S,
    NVLINK3_UNIDIRECTIONAL_BYTES_PER_S,
    NVLINK4_H100_BYTES_PER_S,
    TPU_V4_BF16_FLOPS,
)
from coursekit.i18n import Text
from coursekit.presets import MEGATRON_TABLE1, MODELS
from coursekit.roofline import (
    achieved_flops,
    attention_flops_per_token,
    hardware_flops_per_token,
    layout_matmul_intensity,
    matmul_bytes,
    matmul_flops,
    matmul_intensity_flop_per_byte,
    mfu,
    model_flops_per_token,
    ridge_point_flop_per_byte,
    roofline_flops,
    roofline_time_s,
    tokens_per_gpu,
)
from coursekit.widgets.roofline import RooflineWidget

GPUS = {
    "A100": (A100_BF16_DENSE_FLOPS, A100_80GB_HBM_BYTES_PER_S),
    "H100": (H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S),
}


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
# ## 1. 两块天花板：算力和显存带宽
#
# 一张 GPU 有两个上限：
#
# - **峰值算力** (peak FLOP/s)：张量核心 (tensor core) 每秒最多做多少次浮点运算；
# - **显存带宽** (memory bandwidth)：每秒最多能从 HBM 显存（高带宽显存 (high-bandwidth memory)，紧挨芯片堆叠的
#   GPU 自带显存）把多少字节送到计算单元。
#
# 一个内核 (kernel) 做 F 次浮点运算、至少搬运 B 字节，它的时间不会少于 max(F / 峰值, B / 带宽)。
# 把 F 除以 B，得到**计算强度** I = F / B（FLOP/字节）。于是可达算力不超过 min(峰值, I × 带宽)：
# 画在双对数坐标上，是一条先斜着上升、再变平的线，像一道屋顶——这就是 Williams 等人 (2009) 的**屋顶线模型**。
# 两段相交的地方叫**脊点**：I = 峰值 ÷ 带宽。计算强度低于脊点的内核是**访存受限** (memory-bound)：
# 算力在等数据；高于脊点的是**计算受限** (compute-bound)。
#
# 数据手册上的数字（稠密 bf16，SXM 版本）：

# %% [markdown] lang="en"
# ## 1. Two ceilings: arithmetic and memory bandwidth
#
# A GPU has two limits:
#
# - **peak FLOP/s**: how many floating-point operations its Tensor Cores can do per second;
# - **memory bandwidth**: how many bytes per second its HBM (high-bandwidth memory, the GPU's own memory stacked
#   beside the chip) can feed to the arithmetic units.
#
# A kernel that does F FLOPs and moves at least B bytes takes at least max(F / peak, B / bandwidth). Divide F by B to
# get its **arithmetic intensity** I = F / B (FLOP per byte). The attainable FLOP/s is then at most
# min(peak, I × bandwidth): on log-log axes, a line that rises and then goes flat, like a roof. That is the **roofline
# model** of Williams et al. (2009). Where the two parts meet is the **ridge point**: I = peak ÷ bandwidth. A kernel
# below the ridge is **memory-bound** (the arithmetic units wait for data); one above it is **compute-bound**.
#
# The datasheet figures (dense bf16, SXM parts):

# %%
ridge = {
    name: ridge_point_flop_per_byte(peak, bandwidth)
    for name, (peak, bandwidth) in GPUS.items()
}
md_table(
    [
        "GPU",
        Text(zh="峰值 (TFLOP/s)", en="peak (TFLOP/s)"),
        Text(zh="显存带宽 (TB/s)", en="memory bandwidth (TB/s)"),
        Text(zh="脊点 (FLOP/字节)", en="ridge point (FLOP/byte)"),
    ],
    [
        (
            name,
            f"{peak / 1e12:.0f}",
            f"{bandwidth / 1e12:.2f}",
            f"{ridge[name]:.1f}",
        )
        for name, (peak, bandwidth) in GPUS.items()
    ],
)
peak, bandwidth = GPUS["H100"]

# %%
peak_ratio = H100_BF16_DENSE_FLOPS / A100_BF16_DENSE_FLOPS
bandwidth_ratio = H100_HBM_BYTES_PER_S / A100_80GB_HBM_BYTES_PER_S
print(
    Text(
        zh=f"H100 与 A100 之比：峰值算力 {peak_ratio:.1f}，显存带宽 "
        f"{bandwidth_ratio:.1f}；脊点 {ridge['A100']:.0f} → "
        f"{ridge['H100']:.0f} FLOP/字节",
        en=f"H100 over A100: peak {peak_ratio:.1f}, memory bandwidth "
        f"{bandwidth_ratio:.1f}; ridge {ridge['A100']:.0f} → "
        f"{ridge['H100']:.0f} FLOP/byte",
    )
)
# zh: 核对下文引用的数字
# en: Checking the figures the text below quotes
assert round(ridge["A100"]) == 153 and round(ridge["H100"]) == 295
assert round(peak_ratio, 1) == 3.2 and round(bandwidth_ratio, 1) == 1.6

# %% [markdown] lang="zh"
# H100 的算力是 A100 的 3.2 倍，显存带宽却只是 A100 的 1.6 倍，所以它的脊点从 153 右移到 295 FLOP/字节：
# **更快的 GPU 需要更“厚”的矩阵乘才能喂饱。** 同一个内核在 A100 上计算受限，到了 H100 上可能就访存受限了。

# %% [markdown] lang="en"
# H100 has 3.2× A100's arithmetic but only 1.6× its memory bandwidth, so its ridge moves from 153 to 295 FLOP/byte:
# **a faster GPU needs "thicker" matmuls to stay busy.** A kernel that is compute-bound on A100 can be memory-bound
# on H100.

# %% [markdown] lang="zh"
# ## 2. 一个矩阵乘的计算强度
#
# 取 (m × k) @ (k × n)。输出有 m·n 个元素，每个是长度 k 的点积：k 次乘、k 次加，所以 FLOP = 2·m·k·n。
# 至少要搬运的字节：两个输入各读一次 (m·k 和 k·n 个元素)，输出写一次 (m·n 个)，bf16 每个元素 2 字节：
# B = 2·(m·k + k·n + m·n)。相除：
#
# $$I = \frac{2mkn}{2(mk + kn + mn)} = \frac{mkn}{mk + kn + mn} = \frac{1}{1/m + 1/k + 1/n}.$$
#
# 最后一种写法说明：I 总小于最小的那一维，而当某一维远小于另外两维时，I 约等于它。
# 在 Transformer 里，m 是这张 GPU 一次乘的 token 数，k 和 n 是权重矩阵的两维（隐藏维 h、MLP 宽度，被 TP 切分）。
# 下表是 m 个 token 乘一个 8192 × 8192 的权重，在 H100 上：

# %% [markdown] lang="en"
# ## 2. The arithmetic intensity of one matmul
#
# Take (m × k) @ (k × n). The output has m·n elements, each a dot product of length k: k multiplies and k adds, so
# FLOPs = 2·m·k·n. The least bytes to move: read each input once (m·k and k·n elements), write the output once (m·n),
# 2 bytes per element in bf16: B = 2·(m·k + k·n + m·n). Divide:
#
# $$I = \frac{2mkn}{2(mk + kn + mn)} = \frac{mkn}{mk + kn + mn} = \frac{1}{1/m + 1/k + 1/n}.$$
#
# The last form says I is always below the smallest dimension, and close to it when one dimension is much smaller than
# the other two. In a transformer, m is the number of tokens this GPU multiplies at once, and k and n are the weight
# matrix's dimensions (hidden size h, MLP width, split by TP). The table: m tokens times an 8192 × 8192 weight, on H100:

# %%
peak, bandwidth = GPUS["H100"]
rows = []
for m in (1, 16, 128, 1024, 8192):
    intensity = matmul_intensity_flop_per_byte(m, 8192, 8192)
    hard = roofline_flops(intensity, peak, bandwidth) / peak
    smooth = achieved_flops(intensity, peak, bandwidth) / peak
    rows.append(
        (
            m,
            f"{matmul_flops(m, 8192, 8192) / 1e9:.3g}",
            f"{matmul_bytes(m, 8192, 8192) / 1e6:.3g}",
            f"{intensity:.1f}",
            f"{hard:.1%}",
            f"{smooth:.1%}",
        )
    )
md_table(
    [
        Text(zh="token 数 m", en="tokens m"),
        "GFLOP",
        Text(zh="字节 (MB)", en="bytes (MB)"),
        Text(zh="计算强度", en="intensity"),
        Text(zh="硬屋顶线占峰值", en="hard roofline, share of peak"),
        Text(zh="平滑曲线占峰值", en="smooth curve, share of peak"),
    ],
    rows,
)

# %%
assert round(matmul_intensity_flop_per_byte(16, 8192, 8192), 1) == 15.9
assert (
    round(
        100
        * roofline_flops(
            matmul_intensity_flop_per_byte(16, 8192, 8192), peak, bandwidth
        )
        / peak,
        1,
    )
    == 5.4
)
assert round(100 * achieved_flops(ridge["H100"], peak, bandwidth) / peak) == 71
assert (
    round(100 * achieved_flops(3 * ridge["H100"], peak, bandwidth) / peak) == 95
)
assert (
    round(matmul_intensity_flop_per_byte(8192, 8192, 8192), 1) == 2730.7
)  # = 8192 / 3

# %% [markdown] lang="zh"
# 16 个 token 的矩阵乘，计算强度只有 15.9：H100 最多用到峰值的 5.4%，其余时间在等权重从显存里读出来。
# 8192 个 token 时强度是 2730.7（三维相等时正好是 8192 / 3），远在脊点右边。
#
# 硬屋顶线在脊点处是一个尖角；实测的矩阵乘效率曲线在脊点附近是圆的（NVIDIA 的 *Matrix Multiplication Background*
# 指南里的曲线就是这样）。课程用一条平滑曲线来表达这一点：峰值 / (1 + (脊点 / I)²)^(1/2)，
# 在脊点处是峰值的 71%，在 3 倍脊点处是 95%。平滑的形状是一个建模选择，不是测量；
# 真实内核的上限还要再低一些（第 9 课的工作台用一组公开的测量来校准它）。

# %% [markdown] lang="en"
# A 16-token matmul has an intensity of only 15.9: H100 reaches at most 5.4% of peak, waiting the rest of the time for
# the weights to arrive from memory. At 8192 tokens the intensity is 2730.7 (exactly 8192 / 3 with three equal
# dimensions), far right of the ridge.
#
# The hard roofline has a sharp corner at the ridge; measured matmul efficiency curves are round there (see the curves
# in NVIDIA's *Matrix Multiplication Background* guide). The course expresses that with a smooth curve,
# peak / (1 + (ridge / I)²)^(1/2): 71% of peak at the ridge, 95% at three times the ridge. The smooth shape is a
# modelling choice, not a measurement; a real kernel's ceiling is lower still (lesson 9's workbench calibrates it on
# one published set of measurements).

# %% [markdown] lang="zh"
# ## 3. 一层 Transformer 在一张 GPU 上
#
# 按 Megatron-LM 的张量并行切法，一层有四个线性矩阵乘：QKV 投影和 MLP 上投影按列切（n 除以 TP），
# 输出投影和 MLP 下投影按行切（k 除以 TP）。每张 GPU 一次乘的 token 数是
#
# $$\text{token 数} = \text{微批次} \times s \,/\, \text{CP},$$
#
# 因为上下文并行把每条序列切成 CP 段。`layout_matmul_intensity` 把这四个矩阵乘的 FLOP 和字节分别相加，
# 得到这一层按 FLOP 加权的计算强度。于是三个旋钮的作用一目了然：
#
# - **TP 越大**，每个 rank 的权重越窄（h / TP），强度下降；
# - **微批次越大**，token 越多，强度上升；
# - **CP 越大**，每张 GPU 的 token 越少，强度下降。
#
# Llama 3 70B 在 H100 上（序列 4096）：

# %% [markdown] lang="en"
# ## 3. One transformer layer on one GPU
#
# With Megatron-LM's tensor-parallel split a layer has four linear matmuls: the QKV projection and the MLP up
# projection are split by columns (n divided by TP), the output projection and the MLP down projection by rows (k
# divided by TP). Each GPU multiplies
#
# $$\text{tokens} = \text{micro-batch} \times s \,/\, \text{CP}$$
#
# tokens at once, because context parallelism cuts each sequence into CP chunks. `layout_matmul_intensity` adds up
# the four matmuls' FLOPs and bytes and gives the layer's FLOP-weighted intensity. The three knobs then act plainly:
#
# - **larger TP**: each rank's weights are narrower (h / TP), intensity falls;
# - **larger micro-batch**: more tokens, intensity rises;
# - **larger CP**: fewer tokens per GPU, intensity falls.
#
# Llama 3 70B on H100 (sequence 4096):

# %%
llama70 = MODELS["llama3-70b"]
layouts = [
    (1, 1, 1),
    (4, 1, 1),
    (8, 1, 1),
    (16, 1, 1),
    (32, 1, 1),
    (8, 2, 1),
    (8, 1, 8),
]
layer_intensity, rows = {}, []
for tp, micro_batch, cp in layouts:
    intensity = layout_matmul_intensity(
        llama70, tp=tp, micro_batch=micro_batch, seq_len=4096, cp=cp
    )
    layer_intensity[tp, micro_batch, cp] = intensity
    tokens = tokens_per_gpu(micro_batch, 4096, cp)
    share = achieved_flops(intensity, peak, bandwidth) / peak
    rows.append(
        (
            tp,
            micro_batch,
            cp,
            tokens,
            llama70.hidden // tp,
            f"{intensity:.0f}",
            f"{share:.1%}",
        )
    )
md_table(
    [
        "TP",
        Text(zh="微批次", en="micro-batch"),
        "CP",
        Text(zh="每 GPU token 数", en="tokens per GPU"),
        "h / TP",
        Text(zh="计算强度", en="intensity"),
        Text(zh="平滑曲线占峰值", en="smooth curve, share of peak"),
    ],
    rows,
)

# %%
assert (
    round(layer_intensity[8, 1, 1]) == 1487
    and round(layer_intensity[32, 1, 1]) == 628
)
tp4_share, tp8_share = (
    achieved_flops(layer_intensity[tp, 1, 1], peak, bandwidth) / peak
    for tp in (4, 8)
)
assert (round(100 * tp4_share, 1), round(100 * tp8_share, 1)) == (98.8, 98.1)
assert round(layer_intensity[8, 1, 8]) == 420
# zh: 核对下文的链路带宽（数据手册，每块 GPU 每个方向）：
# zh: A100 / H100 的 NVLink 300 / 450 GB/s；跨节点每块 GPU 一个 InfiniBand 端口，
# zh: HDR 200 Gb/s、NDR 400 Gb/s，即 25 / 50 GB/s。
# en: Check the link bandwidths below (datasheets, per GPU and direction):
# en: NVLink 300 / 450 GB/s on A100 / H100; across nodes one InfiniBand port
# en: per GPU, HDR 200 Gb/s or NDR 400 Gb/s, that is 25 / 50 GB/s.
assert (NVLINK3_UNIDIRECTIONAL_BYTES_PER_S, NVLINK4_H100_BYTES_PER_S) == (
    300e9,
    450e9,
)
assert (HDR_PER_GPU_BYTES_PER_S, IB_NDR_BYTES_PER_S) == (25e9, 50e9)

# %% [markdown] lang="zh"
# 有两点值得注意。
#
# 第一，**大模型训练的矩阵乘通常远在脊点右边**。TP = 8 时强度 1487，TP = 32 时 628，都高于 H100 的脊点 295；
# 只看屋顶线，TP = 4 和 TP = 8 几乎分不出高下。屋顶线开始“咬人”，要等每张 GPU 的矩阵乘缩到几百：
# 小模型配大 TP、短序列配大 CP（上表 CP = 8 时只剩 512 个 token，强度 420），或者解码（第 8 节）。
#
# 第二，**为什么 TP = 8 放在节点内是常见选择**。DGX A100 / H100 一台机器 8 张 GPU，由 NVLink 连成一个高速域：
# TP 每层的集合通信留在 300–450 GB/s（单向）的链路上，而不是 25–50 GB/s 的跨节点网络上（第 2 课）。
# 超过 8，TP 组就要跨节点；同时每个 rank 的矩阵继续变窄（上表从 1487 降到 628），而每层要全归约的激活并不随 TP 变小，
# 通信占比越来越大。常见模型的注意力头数（64、128）和 KV 头数（8）也都能被 8 整除。
# 所以需要 TP 的大模型通常取 TP = 8；放得下的小模型则用更小的 TP，省下通信，矩阵也更“厚”。

# %% [markdown] lang="en"
# Two things stand out.
#
# First, **big-model training matmuls usually sit far right of the ridge.** Intensity 1487 at TP = 8 and 628 at
# TP = 32 are both above H100's ridge of 295; on the roofline alone TP = 4 and TP = 8 are nearly indistinguishable.
# The roofline starts to bite only when each GPU's matmuls shrink to a few hundred: a small model with a large TP, a
# short sequence with a large CP (at CP = 8 above only 512 tokens are left, intensity 420), or decode (section 8).
#
# Second, **why TP = 8 inside a node is the usual choice.** A DGX A100 / H100 has 8 GPUs joined by NVLink into one
# fast domain: TP's per-layer collectives stay on 300–450 GB/s (one way) links instead of the 25–50 GB/s network
# between nodes (lesson 2). Beyond 8, the TP group crosses nodes; each rank's matrices keep narrowing (1487 down to 628
# above) while the activations all-reduced in every layer do not shrink with TP, so communication takes a growing
# share. The head counts of common models (64, 128 heads; 8 KV heads) divide by 8 as well. So big models that need TP
# usually take TP = 8; smaller models that fit use less TP, saving communication and keeping matmuls "thick".

# %% [markdown] lang="zh"
# ## 4. 动手：屋顶线小部件
#
# 小部件把所选布局在一张 GPU 上的一层矩阵乘画在这张 GPU 的屋顶线上：实线是硬屋顶线，虚线是平滑曲线，
# 点线是脊点，红点是这一层（计算强度，可达算力）。说明区给出访存受限还是计算受限、占峰值的比例和每张 GPU 的形状。
#
# 试一试：
# 1. 从默认值（Llama 3 70B，H100，TP 8，微批次 1，序列 8192）出发，把 TP 调到 16、32：点往哪里走？还在脊点右边吗？
# 2. 换成 Llama 3 8B，TP 调回 8，序列 4096，CP 调到 8、16、32：什么时候跌到脊点左边？
# 3. 先把 TP 调到 4，再换成 GPT-2 small（12 个头，TP 8 不能整除），序列 1024，CP 4：访存受限。再把微批次调到 16：
#    发生了什么？
# 4. 在 A100 和 H100 之间切换：同一个布局，哪张卡离脊点更近？

# %% [markdown] lang="en"
# ## 4. Hands on: the roofline widget
#
# The widget places the chosen layout's per-GPU layer matmuls on that GPU's roofline: the solid line is the hard
# roofline, the dashed one the smooth curve, the dotted line the ridge, and the red point the layer (intensity,
# attainable FLOP/s). The message says memory-bound or compute-bound, the share of peak and the per-GPU shapes.
#
# Try:
# 1. From the defaults (Llama 3 70B, H100, TP 8, micro-batch 1, sequence 8192), raise TP to 16, then 32: where does
#    the point go? Is it still right of the ridge?
# 2. Switch to Llama 3 8B, TP back to 8, sequence 4096, and raise CP to 8, 16, 32: when does it drop left of
#    the ridge?
# 3. Set TP to 4, then switch to GPT-2 small (12 heads, which TP 8 does not divide), sequence 1024, CP 4:
#    memory-bound. Now raise the micro-batch to 16: what happens?
# 4. Switch between A100 and H100: for the same layout, which GPU is closer to its ridge?

# %%
roofline_widget = RooflineWidget()
roofline_widget

# %%
# zh: 小部件只调用 coursekit：用直接调用核对它。
# en: The widget only calls coursekit: check it against a direct call.
assert roofline_widget.status == "ok"
assert (
    roofline_widget.result.intensity_flop_per_byte
    == layout_matmul_intensity(llama70, tp=8, micro_batch=1, seq_len=8192)
)

# %% [markdown] lang="zh"
# ## 5. 数 FLOP：6N 加上注意力
#
# 要把“每秒多少 token”换成“每秒多少 FLOP”，先要数每个 token 的 FLOP。PaLM（Chowdhery 等，2022）的附录 B 给出了论文通用的约定：
#
# $$\text{模型 FLOP / token} = 6N + 12 \cdot L \cdot h \cdot s.$$
#
# - **6N**：每个参数对每个 token 做一次乘加，前向 2N；反向对输入和权重各求一次梯度，4N。
# - **12·L·h·s**：注意力的两个矩阵乘 QKᵀ 和 AV 是激活乘激活，不在参数 N 里。每层前向各 2·s·h，
#   共 4·L·h·s，加上反向一共 12·L·h·s。按惯例不扣掉因果掩码 (causal mask) 的一半（PaLM 和 Megatron-LM 都这样数）。
#
# 注意力这一项随序列长度 s 线性增长（对整条序列是 s²）。Llama 3 70B：

# %% [markdown] lang="en"
# ## 5. Counting FLOPs: 6N plus attention
#
# To turn "tokens per second" into "FLOPs per second" we first count the FLOPs per token. Appendix B of PaLM
# (Chowdhery et al., 2022) gives the convention papers use:
#
# $$\text{model FLOPs / token} = 6N + 12 \cdot L \cdot h \cdot s.$$
#
# - **6N**: each parameter does one multiply-add per token, 2N forward; the backward pass takes gradients with respect
#   to both the input and the weight, 4N.
# - **12·L·h·s**: attention's two matmuls QKᵀ and AV multiply activations by activations and are not in the parameters
#   N. Each costs 2·s·h per token and layer forward, 4·L·h·s together, 12·L·h·s with the backward pass. By convention
#   the causal mask's half is not subtracted (PaLM and Megatron-LM both count this way).
#
# The attention term grows linearly with the sequence length s (s² for the whole sequence). Llama 3 70B:

# %%
n70 = llama70.num_params
attention_share, rows = {}, []
for seq_len in (8192, 131072):
    attention = attention_flops_per_token(
        llama70.layers, llama70.hidden, seq_len
    )
    total = model_flops_per_token(n70, llama70.layers, llama70.hidden, seq_len)
    attention_share[seq_len] = attention / total
    rows.append(
        (
            seq_len,
            f"{6 * n70 / 1e9:.0f}",
            f"{attention / 1e9:.0f}",
            f"{attention_share[seq_len]:.0%}",
        )
    )
md_table(
    [
        Text(zh="序列长度", en="sequence length"),
        "6N (GFLOP)",
        Text(zh="注意力 (GFLOP)", en="attention (GFLOP)"),
        Text(zh="注意力占比", en="attention share"),
    ],
    rows,
)

# %%
assert (
    round(100 * attention_share[8192]) == 13
    and round(100 * attention_share[131072]) == 71
)
# zh: 128K 时只数 6N 得到的占比
# en: 6N alone at 128K
assert (
    round(
        100
        * 6
        * n70
        / model_flops_per_token(n70, llama70.layers, llama70.hidden, 131072)
    )
    == 29
)

# %% [markdown] lang="zh"
# 8K 上下文时注意力占 13%，128K 时占 71%。只数 6N 的估算在 128K 时只数到实际计算量的 29%（不到三分之一），
# 也会让长上下文训练的 MFU 看起来低得离谱。这一项也是第 9 课工作台为什么要把注意力 FLOP 算进去的原因。

# %% [markdown] lang="en"
# Attention is 13% of the FLOPs at an 8K context and 71% at 128K. An estimate that counts only 6N sees only 29% of
# the FLOPs at 128K (less than a third), and makes long-context training's MFU look absurdly low. It is also why
# lesson 9's workbench counts attention FLOPs.

# %% [markdown] lang="zh"
# ## 6. MFU 与 HFU：重计算算不算？
#
# - **MFU**（模型浮点利用率，model FLOPs utilization）= 每秒的**模型 FLOP** ÷ 所有设备峰值之和。
# - **HFU**（硬件浮点利用率，hardware FLOPs utilization）= 每秒**实际执行**的 FLOP ÷ 峰值之和，包括重计算重做的部分。
#
# 完全重计算 (full recomputation) 在反向之前把前向再做一遍：每个 token 多 2N + 4·L·h·s；
# 选择性重计算（Korthikanti 等，2022）只重做注意力的核心部分：多 4·L·h·s。

# %% [markdown] lang="en"
# ## 6. MFU and HFU: does recomputation count?
#
# - **MFU** (model FLOPs utilization) = **model FLOPs** per second ÷ the devices' summed peak.
# - **HFU** (hardware FLOPs utilization) = FLOPs **executed** per second ÷ the summed peak, including what
#   recomputation does again.
#
# Full recomputation redoes the forward pass before the backward: 2N + 4·L·h·s more per token. Selective
# recomputation (Korthikanti et al., 2022) redoes only attention's core: 4·L·h·s more.

# %%
model_flops = model_flops_per_token(n70, llama70.layers, llama70.hidden, 8192)
recompute_names = {
    "none": Text(zh="不重计算", en="none"),
    "selective": Text(zh="选择性重计算", en="selective"),
    "full": Text(zh="完全重计算", en="full"),
}
executed_ratio = {}
for recompute in recompute_names:
    executed = hardware_flops_per_token(
        n70, llama70.layers, llama70.hidden, 8192, recompute
    )
    executed_ratio[recompute] = executed / model_flops
md_table(
    [
        Text(zh="重计算", en="recomputation"),
        Text(zh="执行的 FLOP ÷ 模型 FLOP", en="executed FLOPs ÷ model FLOPs"),
    ],
    [
        (name, f"{executed_ratio[recompute]:.3f}")
        for recompute, name in recompute_names.items()
    ],
)

# %%
assert (
    round(executed_ratio["full"], 3) == 1.333
    and round(executed_ratio["selective"], 3) == 1.044
)

# %% [markdown] lang="zh"
# 同样的步时，完全重计算让 HFU 比 MFU 高出三分之一：这三分之一是布局**选择**重做的工作，不是训练的进展。
# 所以比较不同布局、不同论文时用 MFU；一个重计算更多的实现，HFU 可能更高，训练却更慢。
# 选择性重计算只多 4.4%：Korthikanti 等人正是为此设计它的——只重做占显存多、算起来便宜的注意力核心部分。

# %% [markdown] lang="en"
# At the same step time, full recomputation makes HFU a third higher than MFU: that third is work the layout *chose* to
# redo, not training progress. So compare layouts and papers by MFU; an implementation that recomputes more may have a
# higher HFU and still train more slowly. Selective recomputation adds only 4.4%: Korthikanti et al. designed it that
# way, redoing only attention's core, which takes much memory and little arithmetic.

# %% [markdown] lang="zh"
# ## 7. 例题：算出一个公开训练的 MFU
#
# PaLM 540B（Chowdhery 等，2022，表 3 和附录 B）：6144 块 TPU v4 芯片，训练吞吐 238.3K token/s，报告的 MFU 是 46.2%。
# 模型：N = 540.35B 参数，L = 118 层，48 个注意力头、每头 256 维（PaLM 用多查询注意力 (multi-query attention, MQA)，注意力项里的 h 是头数 H 乘每头维度 Q：H·Q = 48 × 256），
# 序列长度 2048。TPU v4 每块芯片 bf16 峰值 275 TFLOP/s：

# %% [markdown] lang="en"
# ## 7. Worked example: the MFU of a published run
#
# PaLM 540B (Chowdhery et al., 2022, Table 3 and appendix B): 6144 TPU v4 chips, a training throughput of 238.3K
# tokens/s, and a reported MFU of 46.2%. The model: N = 540.35B parameters, L = 118 layers, 48 attention heads of 256
# dimensions (PaLM uses multi-query attention; the h of the attention term is the heads H times the dimensions per head Q: H·Q = 48 × 256), sequence length 2048.
# A TPU v4 chip's bf16 peak is 275 TFLOP/s:

# %%
palm_flops_per_token = model_flops_per_token(540.35e9, 118, 48 * 256, 2048)
palm_mfu = mfu(palm_flops_per_token, 238.3e3, 6144, TPU_V4_BF16_FLOPS)
palm_mfu_6n = mfu(6 * 540.35e9, 238.3e3, 6144, TPU_V4_BF16_FLOPS)
print(
    Text(
        zh=f"每 token 的模型 FLOP：{palm_flops_per_token:.4g}",
        en=f"model FLOPs per token: {palm_flops_per_token:.4g}",
    )
)
print(Text(zh=f"MFU：{palm_mfu:.1%}", en=f"MFU: {palm_mfu:.1%}"))
print(
    Text(
        zh=f"只数 6N 时的 MFU：{palm_mfu_6n:.1%}",
        en=f"MFU counting 6N only: {palm_mfu_6n:.1%}",
    )
)

# %%
# zh: PaLM 表 3
# en: PaLM, Table 3
assert round(palm_mfu, 3) == 0.462
assert round(palm_mfu_6n, 3) == 0.457

# %% [markdown] lang="zh"
# 算出来正好是论文的 46.2%。序列只有 2048 时注意力项不大，只数 6N 也有 45.7%；到了长上下文，差别就大了（第 5 节）。
# 读别人的 MFU 时，先问三件事：FLOP 按什么约定数（有没有注意力项、有没有重计算）？峰值用的是稠密还是稀疏的数字？
# 吞吐是整个集群的还是每张卡的？练习 7.3 用 Megatron-LM 表 1 做同样的换算，那里报告的是含重计算的 FLOP。

# %% [markdown] lang="en"
# That is exactly the paper's 46.2%. With sequences of only 2048 tokens the attention term is small, and 6N alone gives
# 45.7%; at long contexts the difference grows (section 5). When you read someone's MFU, ask three things: how are the
# FLOPs counted (attention term? recomputation?), is the peak the dense or the sparse figure, and is the throughput
# the whole cluster's or one device's? Exercise 7.3 does the same conversion for Megatron-LM's Table 1, whose reported
# FLOPs include recomputation.

# %% [markdown] lang="zh"
# ## 8. 训练与解码
#
# 训练时每张 GPU 一次乘几千个 token。服务时的**解码**一步只给每条序列生成一个 token：一个批次 b 条序列，
# 每个矩阵乘只有 m = b 行，计算强度约等于 b。Llama 3 70B，TP = 8，H100：

# %% [markdown] lang="en"
# ## 8. Training and decode
#
# In training each GPU multiplies thousands of tokens at once. A **decode** step in serving produces one token per
# sequence: with a batch of b sequences each matmul has only m = b rows, and its intensity is about b. Llama 3 70B,
# TP = 8, H100:

# %%
# zh: bf16 权重，TP = 8 时每张 GPU 存八分之一
# en: bf16 weights, one eighth per GPU at TP = 8
weight_bytes_per_gpu = 2 * n70 / 8
decode_share, decode_step_ms, rows = {}, {}, []
for batch in (1, 8, 64, 256, 1024):
    intensity = layout_matmul_intensity(
        llama70, tp=8, micro_batch=batch, seq_len=1
    )
    decode_share[batch] = roofline_flops(intensity, peak, bandwidth) / peak
    # zh: 每一步把每个权重与 b 个新 token 相乘（每个权重每个 token 2 FLOPs），
    # zh: 每个权重读一次
    # en: each step multiplies every weight by b new tokens (2 FLOPs per weight and
    # en: token) and reads every weight once
    step_s = roofline_time_s(
        2 * n70 / 8 * batch,
        weight_bytes_per_gpu,
        H100_BF16_DENSE_FLOPS,
        H100_HBM_BYTES_PER_S,
    )
    decode_step_ms[batch] = step_s * 1e3
    rows.append(
        (
            batch,
            f"{intensity:.1f}",
            f"{decode_share[batch]:.1%}",
            f"{decode_step_ms[batch]:.1f}",
        )
    )
md_table(
    [
        Text(zh="批大小 b", en="batch b"),
        Text(zh="计算强度", en="intensity"),
        Text(zh="硬屋顶线占峰值", en="hard roofline, share of peak"),
        Text(zh="每步下限 (ms)", en="step lower bound (ms)"),
    ],
    rows,
)
# zh: 只计权重时，一步对每个权重做 2·b FLOPs、
# zh: 读 2 字节：计算强度为 b FLOP/byte。
# zh: 批大小取到脊点 (ridge point) 或更大的第一个整数时，
# zh: 这一步变成计算受限。
# en: Counting weights only, a step does 2·b FLOPs per weight and reads 2 bytes per
# en: weight: an intensity of b FLOP/byte.
# en: From the first whole batch at or past the ridge point, the step is
# en: compute-bound.
compute_bound_batch = next(b for b in range(1, 4096) if b >= ridge["H100"])
print(
    Text(
        zh=f"只算权重时，从批大小 {compute_bound_batch} 起，"
        f"步时由计算决定（H100 脊点 {ridge['H100']:.1f} FLOP/字节）",
        en="Counting weights only, arithmetic sets the step time from batch "
        f"{compute_bound_batch} on (H100 ridge {ridge['H100']:.1f} FLOP/byte)",
    )
)

# %%
assert round(100 * decode_share[8], 1) == 2.7 and decode_share[1024] == 1.0
assert round(2 * n70 / 1e9) == 141
assert (
    round(decode_step_ms[1], 1) == round(decode_step_ms[256], 1) == 5.3
    and round(decode_step_ms[1024], 1) == 18.3
)
# zh: 脊点 989 TFLOP/s ÷ 3.35 TB/s = 295.2，向上取整到整数批大小
# en: the ridge point, 989 TFLOP/s / 3.35 TB/s = 295.2, rounded up to a whole batch
assert compute_bound_batch == 296

# %% [markdown] lang="zh"
# 批大小 8 时只能用到峰值的 2.7%：每一步都要把整套权重从显存读一遍，却只拿它们乘 8 行。
# TP = 8 时每张 GPU 存 141 GB bf16 权重的八分之一，每步至少 5.3 ms——批大小从 1 到 256 都一样，时间花在读权重上，而不是计算上。
# 所以在脊点以下，加大批几乎不花时间；只算权重时，每步的计算强度就是批大小 b FLOP/字节，批大小越过脊点（约 296）后步时才由计算决定，
# 之后随批线性增长（1024 时 18.3 ms）。
# 表中“计算强度”一栏是每个矩阵乘的强度，还计入了 b 行激活的读写字节，所以低于 b，b 越大低得越多；
# “每步下限”一栏只计权重。两栏都用到了，结论相同：脊点以下由读权重决定。
# 这就是服务要攒批 (batching) 的原因。这里只算了权重：每条序列的 KV 缓存 (KV cache，已生成 token 的注意力键和值，第 10 课细讲) 还要再读，它增加要读的字节，
# 把强度往回拉。这是第 10 课的主题。

# %% [markdown] lang="en"
# At a batch of 8 only 2.7% of peak is reachable: every step reads all the weights from memory and multiplies them by
# just 8 rows. At TP = 8 each GPU holds an eighth of the 141 GB of bf16 weights, and every step takes at least 5.3 ms,
# the same for batches of 1 to 256: the time goes into reading weights, not into arithmetic. Below the ridge a larger
# batch is therefore almost free. Counting weights only, a step's intensity is the batch b FLOP/byte, so arithmetic sets
# the step time once the batch passes the ridge point, at about 296, and grows linearly after it (18.3 ms at 1024).
# The table's intensity column is each matmul's own intensity, which also counts the bytes of the b rows of
# activations read and written, so it sits below b, further below as b grows; the step lower bound column
# counts the weights only. Both lead to the same conclusion: below the ridge, reading the weights sets the pace.
# That is why serving batches requests. Only the weights are counted here: each sequence's KV cache must be read as
# well, which adds bytes to read and pulls the intensity back down. That is lesson 10's topic.

# %% [markdown] lang="zh"
# ## 9. 屋顶线没有算什么
#
# 屋顶线给的是**上限**，不是预测：
#
# - 它只算四个线性矩阵乘。注意力核心（FlashAttention 这样的融合内核）、归一化和逐元素运算都没算；后者的计算强度很低，
#   是访存受限的。
# - 矩阵的维数不是内核分块 (tile) 大小的整数倍时，会浪费一部分算力（形状量化）；内核启动也有固定开销。
# - 通信（第 2 课）和流水线气泡（第 6 课）不在屋顶线里；它们让 GPU 空等，而不是让矩阵乘变慢。
#
# 所以公开的大规模训练 MFU 通常明显低于 100%：PaLM 是 46.2%，练习 7.3 会算出 Megatron-LM 一次训练的 MFU。
# 第 9 课的工作台只用屋顶线描述矩阵乘形状的影响，再用一组公开的测量把上限校准到真实水平；它给出的是估算，带着这些假设。
#
# 这也决定了怎样读估算的差别。第 3 节的表里，TP = 4 和 TP = 8 在平滑曲线上是 98.8% 对 98.1%：
# 差距比屋顶线漏掉的任何一项都小得多。这样的两个布局对这个模型来说是**并列** (tie)，不分先后；
# 要在它们之间选，看通信（第 2 课）和实测（第 8 课），而不是看第三位小数。

# %% [markdown] lang="en"
# ## 9. What the roofline leaves out
#
# The roofline gives an **upper bound**, not a prediction:
#
# - It counts only the four linear matmuls. Attention's core (fused kernels such as FlashAttention), normalisation and
#   element-wise operations are left out; the latter have a low intensity and are memory-bound.
# - When a matrix dimension is not a multiple of the kernel's tile size, part of the arithmetic is wasted (tile
#   quantisation), and every kernel launch has a fixed cost.
# - Communication (lesson 2) and pipeline bubbles (lesson 6) are not in the roofline; they make the GPU wait rather
#   than slow the matmuls down.
#
# So published large-scale training runs stay well below 100% MFU: PaLM reached 46.2%, and exercise 7.3 computes the MFU
# of a Megatron-LM run. Lesson 9's workbench uses the roofline for the effect of shapes and calibrates the ceiling on
# one published set of measurements; what it gives is an estimate that carries these assumptions.
#
# That also tells you how to read differences between estimates. In section 3's table TP = 4 and TP = 8 reach 98.8%
# and 98.1% on the smooth curve: a gap far smaller than anything the roofline leaves out. For this model the two
# layouts are a **tie**, not a ranking; to choose between them, look at communication (lesson 2) and measure
# (lesson 8), not at the third digit.

# %% [markdown] lang="zh"
# ## 10. 练习
#
# ### 练习 7.1
#
# 一个投影矩阵乘：2048 个 token 的激活 (2048 × 8192) 乘以权重 (8192 × 8192)，bf16。它的计算强度是多少 FLOP/字节？

# %% [markdown] lang="en"
# ## 10. Exercises
#
# ### Exercise 7.1
#
# A projection: activations of 2048 tokens (2048 × 8192) times a weight (8192 × 8192), bf16. What is its arithmetic
# intensity in FLOP per byte?

# %% tags=["learner"]
answer = ...
check("eff.matmul_intensity", answer)

# %% tags=["solution"]
answer = matmul_flops(2048, 8192, 8192) / matmul_bytes(2048, 8192, 8192)
verify("eff.matmul_intensity", answer)

# %% [markdown] lang="zh"
# ### 练习 7.2
#
# H200 SXM 的数据手册：稠密 bf16 峰值 989 TFLOP/s（与 H100 相同），HBM 带宽 4.8 TB/s。它的脊点是多少 FLOP/字节？
# 和第 1 节表里的 H100 比，脊点往哪边移，这对解码意味着什么？

# %% [markdown] lang="en"
# ### Exercise 7.2
#
# The H200 SXM datasheet: 989 TFLOP/s dense bf16 (the same as H100), 4.8 TB/s of HBM bandwidth. Where is its ridge
# point, in FLOP per byte? Compared with H100 in section 1's table, which way does the ridge move, and what does that
# mean for decoding?

# %% tags=["learner"]
answer = ...
check("eff.h200_ridge", answer)

# %% tags=["solution"]
answer = 989e12 / 4.8e12
verify("eff.h200_ridge", answer)

# %% [markdown] lang="zh"
# ### 练习 7.3
#
# Megatron-LM（Narayanan 等，2021）表 1 中 145.6B 的一行：80 层，h = 12288，s = 2048，词表 51200，
# 每张 A100 达到 148 TFLOP/s。论文按它的公式 (3) 数 FLOP，计入了完全重计算，而且重计算不包括输出层。
# 它的 MFU 是多少（0 到 1 之间的小数）？提示：参数按公式 (3) 的口径取 N = 12·L·h² + V·h，
# 其中前一项是会被重计算的部分：把它作为第 6 节 `hardware_flops_per_token` 的参数 `recomputed_params` 传入。

# %% [markdown] lang="en"
# ### Exercise 7.3
#
# The 145.6B row of Megatron-LM's Table 1 (Narayanan et al., 2021): 80 layers, h = 12288, s = 2048, vocabulary 51200,
# 148 TFLOP/s per A100. The paper counts FLOPs with its eq. (3), which includes full recomputation, and the output
# layer is not recomputed. What is its MFU (a fraction between 0 and 1)? Hint: count parameters as eq. (3) does,
# N = 12·L·h² + V·h, where the first term is what recomputation repeats: pass it to section 6's
# `hardware_flops_per_token` as its `recomputed_params` argument.

# %% tags=["learner"]
answer = ...
check("eff.megatron_mfu", answer)

# %% tags=["solution"]
run = next(r for r in MEGATRON_TABLE1 if r.params_billion == 145.6)
layer_params = 12 * run.layers * run.hidden**2
params = layer_params + 51200 * run.hidden
model = model_flops_per_token(params, run.layers, run.hidden, 2048)
executed = hardware_flops_per_token(
    params, run.layers, run.hidden, 2048, "full", recomputed_params=layer_params
)
tokens_per_s_per_gpu = run.tflops_per_gpu * 1e12 / executed
answer = mfu(model, tokens_per_s_per_gpu, 1, A100_BF16_DENSE_FLOPS)
hfu_value = run.tflops_per_gpu * 1e12 / A100_BF16_DENSE_FLOPS
# zh: 默认参数把数值在这里定下来：后面的练习会给 answer 赋新值。
# en: Default arguments fix the values now: later exercises assign answer again.
utilisation = Text(
    zh=f"HFU = {hfu_value:.3f}，MFU = {answer:.3f}",
    en=f"HFU = {hfu_value:.3f}, MFU = {answer:.3f}",
)
verify(
    "eff.megatron_mfu", answer, reveal=lambda shown=utilisation: print(shown)
)

# %% [markdown] lang="zh"
# ### 练习 7.4
#
# Llama 3 70B 在 H100 上，TP = 8，微批次 1，序列 4096，CP = 1。下面哪一个改动提高每张 GPU 上层内矩阵乘的计算强度？
# `'tp16'`（TP 改成 16）、`'cp2'`（CP 改成 2）、`'mb2'`（微批次改成 2）。先预测，再用 `layout_matmul_intensity` 验证。

# %% [markdown] lang="en"
# ### Exercise 7.4
#
# Llama 3 70B on H100 at TP = 8, micro-batch 1, sequence 4096, CP = 1. Which change raises the arithmetic intensity of
# each GPU's layer matmuls: `'tp16'` (TP to 16), `'cp2'` (CP to 2) or `'mb2'` (micro-batch to 2)? Predict first, then
# check with `layout_matmul_intensity`.

# %% tags=["learner"]
answer = ...
check("eff.best_change", answer)

# %% tags=["solution"]
base = {"tp": 8, "micro_batch": 1, "seq_len": 4096, "cp": 1}
changes = {"tp16": {"tp": 16}, "cp2": {"cp": 2}, "mb2": {"micro_batch": 2}}
after = {
    name: layout_matmul_intensity(llama70, **{**base, **change})
    for name, change in changes.items()
}
answer = max(after, key=after.get)
shown = Text(
    zh="每层矩阵乘的计算强度（FLOP/字节）：原布局 "
    f"{layout_matmul_intensity(llama70, **base):.0f}；"
    + "，".join(f"{name} 之后 {value:.0f}" for name, value in after.items()),
    en="layer matmul intensity (FLOP/byte): "
    f"{layout_matmul_intensity(llama70, **base):.0f} as is; "
    + ", ".join(f"{value:.0f} after {name}" for name, value in after.items()),
)
verify("eff.best_change", answer, reveal=lambda shown=shown: print(shown))

# %% [markdown] lang="zh"
# ### 练习 7.5
#
# 服务时的一个解码步：16 条并发序列各生成 1 个 token，Llama 3 70B，TP = 8，H100。按硬屋顶线，
# 层内矩阵乘最多能用到峰值算力的多少（0 到 1 之间的小数）？

# %% [markdown] lang="en"
# ### Exercise 7.5
#
# One decode step when serving: 16 concurrent sequences each produce 1 token; Llama 3 70B, TP = 8, H100. On the hard
# roofline, what share of peak can the layer matmuls reach at most (a fraction between 0 and 1)?

# %% tags=["learner"]
answer = ...
check("eff.decode_share", answer)

# %% tags=["solution"]
intensity = layout_matmul_intensity(llama70, tp=8, micro_batch=16, seq_len=1)
answer = (
    roofline_flops(intensity, H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S)
    / H100_BF16_DENSE_FLOPS
)
verify("eff.decode_share", answer)

# %% [markdown] lang="zh"
# ### 自检问题
#
# 1. 一个内核在 A100 上是计算受限的，换到 H100 上变成了访存受限。这可能吗？为什么？
# 2. 为什么矩阵乘的计算强度总小于它最小的那一维？解码时最小的那一维是什么？
# 3. 两篇论文报告了同一个模型的训练：一篇 HFU 55%，另一篇 MFU 45%。能说前一篇更快吗？还要知道什么？
# 4. 把 CP 从 1 调到 8，屋顶线说矩阵乘效率几乎不变（Llama 3 70B，序列 128K）。这是不是说明 CP 没有代价？

# %% [markdown] lang="en"
# ### Self-check questions
#
# 1. A kernel is compute-bound on A100 and memory-bound on H100. Is that possible? Why?
# 2. Why is a matmul's intensity always below its smallest dimension? In decode, which dimension is the smallest?
# 3. Two papers report training the same model: one an HFU of 55%, the other an MFU of 45%. Can you say the first is
#    faster? What else do you need to know?
# 4. Raising CP from 1 to 8 leaves the roofline's matmul efficiency almost unchanged (Llama 3 70B, sequence 128K). Does
#    that mean CP costs nothing?

# %% [markdown] lang="zh" tags=["answer"]
# **参考答案**
#
# 1. 可能。H100 的算力是 A100 的 3.2 倍，带宽却只是 A100 的 1.6 倍，脊点从 153 移到 295 FLOP/字节。
#    计算强度在 153 到 295 之间的内核，在 A100 上计算受限，在 H100 上访存受限。
# 2. I = 1 / (1/m + 1/k + 1/n)，分母里的每一项都是正的，所以 I < 1/(1/最小维) = 最小维。
#    解码时 m 是批里的序列数（每条序列一个新 token），通常远小于 h 和 MLP 宽度，所以 I ≈ 批大小。
# 3. 不能。HFU 把重计算重做的 FLOP 也算进去：完全重计算下 HFU 约是 MFU 的 4/3，55% 的 HFU 大约相当于 41% 的 MFU。
#    还要知道：FLOP 怎么数（有没有注意力项）、峰值是稠密还是稀疏的数字、硬件是否相同、序列长度是否相同。
#    最可靠的比较是同一约定下的 MFU，或者直接比每秒训练的 token 数。
# 4. 不是。128K 的序列切成 8 段，每张 GPU 仍有 16K 个 token，矩阵乘依然远在脊点右边，所以屋顶线看不出差别。
#    CP 的代价在别处：每层注意力要在 CP 组内传递 K 和 V（第 2 课的通信账本），也占用了本可用于数据并行的 GPU。
#    屋顶线只回答“矩阵乘的形状是否够厚”这一个问题。

# %% [markdown] lang="en" tags=["answer"]
# **Answers**
#
# 1. Yes. H100 has 3.2× A100's arithmetic but only 1.6× its bandwidth, so the ridge moves from 153 to 295 FLOP/byte.
#    A kernel with an intensity between 153 and 295 is compute-bound on A100 and memory-bound on H100.
# 2. I = 1 / (1/m + 1/k + 1/n); every term of the denominator is positive, so I < 1 / (1/smallest) = the smallest
#    dimension. In decode m is the number of sequences in the batch (one new token each), usually far below h and the
#    MLP width, so I ≈ the batch size.
# 3. No. HFU also counts the FLOPs recomputation repeats: with full recomputation HFU is about 4/3 of MFU, so an HFU of
#    55% is roughly an MFU of 41%. You also need: how FLOPs were counted (attention term?), whether the peak is the
#    dense or the sparse figure, whether the hardware and the sequence length are the same. The safest comparison is
#    MFU under one convention, or simply the tokens trained per second.
# 4. No. A 128K sequence cut into 8 chunks still leaves 16K tokens per GPU, far right of the ridge, so the roofline
#    sees no difference. CP's cost is elsewhere: every layer's attention passes K and V around the CP group (lesson 2's
#    communication ledger), and CP uses GPUs that could otherwise serve data parallelism. The roofline answers one
#    question only: are the matmuls thick enough?

# %% [markdown] lang="zh"
# ## 要点
#
# - 屋顶线：可达算力 ≤ min(峰值, 计算强度 × 显存带宽)。脊点 = 峰值 ÷ 带宽：A100 153、H100 295 FLOP/字节。更快的 GPU 需要更厚的矩阵乘。
# - bf16 矩阵乘的计算强度 = m·k·n / (m·k + k·n + m·n) = 1 / (1/m + 1/k + 1/n)，接近最小的那一维。
# - 每张 GPU 一次乘微批次 × s ÷ CP 个 token，权重宽度除以 TP：TP 和 CP 越大、微批次越小，矩阵越薄。大模型训练通常仍远在脊点右边。
# - TP = 8 是常见选择：8 张 GPU 的 NVLink 域让 TP 的每层通信留在高速链路上；再大就跨节点，矩阵也更薄。
# - 模型 FLOP / token = 6N + 12·L·h·s（PaLM 附录 B）；长上下文时注意力项占大头。MFU 用模型 FLOP，HFU 还算上重计算；比较时用 MFU。
# - 解码的计算强度约等于批大小，远低于脊点：服务是访存受限的（第 10 课）。屋顶线是上限，不含通信、气泡和内核开销。

# %% [markdown] lang="en"
# ## Key points
#
# - The roofline: attainable FLOP/s ≤ min(peak, intensity × memory bandwidth). Ridge = peak ÷ bandwidth: 153 FLOP/byte on A100, 295 on H100. Faster GPUs need thicker matmuls.
# - A bf16 matmul's intensity = m·k·n / (m·k + k·n + m·n) = 1 / (1/m + 1/k + 1/n), close to its smallest dimension.
# - Each GPU multiplies micro-batch × s ÷ CP tokens against weights divided by TP: larger TP and CP and smaller micro-batches make thinner matmuls. Big-model training usually stays far right of the ridge.
# - TP = 8 is the usual choice: an 8-GPU NVLink domain keeps TP's per-layer communication on fast links; beyond that it crosses nodes and the matmuls thin further.
# - Model FLOPs per token = 6N + 12·L·h·s (PaLM appendix B); attention dominates at long contexts. MFU counts model FLOPs, HFU adds recomputation; compare by MFU.
# - Decode's intensity is about the batch size, far below the ridge: serving is memory-bound (lesson 10). The roofline is an upper bound: no communication, bubbles or kernel overheads.

# %% [markdown] lang="zh"
# ## 延伸阅读
#
# - Williams, Waterman, Patterson. [Roofline: An Insightful Visual Performance Model for Multicore Architectures](https://doi.org/10.1145/1498765.1498785). *Communications of the ACM* 52(4), 2009. 屋顶线模型的原始论文。
# - Chowdhery 等. [PaLM: Scaling Language Modeling with Pathways](https://arxiv.org/abs/2204.02311). 2022. 附录 B 定义了 MFU 和 6N + 12·L·H·Q·T 的 FLOP 约定（H 为头数、Q 为每头维度、T 为序列长度，即本课的 12·L·h·s）；表 3 是本课的例题。
# - Narayanan 等. [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473). SC 2021. 张量并行的切法、公式 (3) 和表 1。
# - Korthikanti 等. [Reducing Activation Recomputation in Large Transformer Models](https://arxiv.org/abs/2205.05198). 2022. 选择性重计算，以及 MFU 与 HFU 的区分。
# - NVIDIA. [Matrix Multiplication Background User's Guide](https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html). 矩阵乘的计算强度、分块与形状量化。

# %% [markdown] lang="en"
# ## Related reading
#
# - Williams, Waterman, Patterson. [Roofline: An Insightful Visual Performance Model for Multicore Architectures](https://doi.org/10.1145/1498765.1498785). *Communications of the ACM* 52(4), 2009. The original roofline paper.
# - Chowdhery et al. [PaLM: Scaling Language Modeling with Pathways](https://arxiv.org/abs/2204.02311). 2022. Appendix B defines MFU and the 6N + 12·L·H·Q·T FLOP convention (H heads, Q dimensions per head, T the sequence length: this lesson's 12·L·h·s); Table 3 is this lesson's worked example.
# - Narayanan et al. [Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM](https://arxiv.org/abs/2104.04473). SC 2021. The tensor-parallel split, eq. (3) and Table 1.
# - Korthikanti et al. [Reducing Activation Recomputation in Large Transformer Models](https://arxiv.org/abs/2205.05198). 2022. Selective recomputation, and the distinction between MFU and HFU.
# - NVIDIA. [Matrix Multiplication Background User's Guide](https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html). Matmul intensity, tiles and tile quantisation.

# %% [markdown] lang="zh" tags=["learner"]
# ## 学后填写区
#
# - 我的 GPU 和它的脊点：
# - 我的布局（TP、微批次、序列长度、CP）下每张 GPU 的 token 数和计算强度：
# - 我最近一次训练的 MFU（按哪种 FLOP 约定）：
# - 屋顶线之外，最可能拖慢我的训练的因素：

# %% [markdown] lang="en" tags=["learner"]
# ## Notes after the lesson
#
# - My GPU and its ridge point:
# - Tokens per GPU and intensity under my layout (TP, micro-batch, sequence length, CP):
# - The MFU of my latest training run (under which FLOP convention):
# - Beyond the roofline, the factor most likely to slow my training:

# %% [markdown] lang="zh"
# 导航：[课程导引](00_index.ipynb) · [术语表](glossary.ipynb) · 上一课：[第 6 课 流水线气泡与扩展效率](06_pipeline_scaling.ipynb) · 下一课：[第 8 课 公式与实测](08_lab.ipynb)

# %% [markdown] lang="en"
# Navigation: [course index](00_index.ipynb) · [glossary](glossary.ipynb) · previous: [lesson 6, pipeline bubble and scaling efficiency](06_pipeline_scaling.ipynb) · next: [lesson 8, formula vs measurement](08_lab.ipynb)
