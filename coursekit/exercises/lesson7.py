"""Exercises of lesson 7 (compute efficiency): intensity, ridge point, MFU, what raises efficiency, decode.

Every expected answer is computed with :mod:`coursekit.roofline` from the
inputs named below: datasheet figures from :mod:`coursekit.hardware`, model
shapes from :data:`coursekit.presets.MODELS` and one row of Megatron-LM's
Table 1 from :data:`coursekit.presets.MEGATRON_TABLE1`.

>>> from coursekit.exercises import get_exercise
>>> round(get_exercise("eff.matmul_intensity").expected_value(), 1)
1365.3
>>> round(get_exercise("eff.h200_ridge").expected_value(), 1)
206.0
>>> get_exercise("eff.best_change").expected_value()
'mb2'

Taught in: lesson 7 (compute efficiency).
"""

from __future__ import annotations

from .._validate import learner_functions
from ..hardware import (
    A100_BF16_DENSE_FLOPS,
    H100_BF16_DENSE_FLOPS,
    H100_HBM_BYTES_PER_S,
    H200_BF16_DENSE_FLOPS,
    H200_HBM_BYTES_PER_S,
)
from ..i18n import Text
from ..presets import MEGATRON_TABLE1, MODELS, MegatronRun
from ..roofline import (
    hardware_flops_per_token,
    layout_matmul_intensity,
    matmul_intensity_flop_per_byte,
    mfu,
    model_flops_per_token,
    ridge_point_flop_per_byte,
    roofline_flops,
)
from ..shapes import MEGATRON_SEQ_LEN, MEGATRON_VOCAB_SIZE
from . import PERCENT_VS_FRACTION, Exercise, any_mistake, mistake, register

#: eff.matmul_intensity: a (tokens × h) @ (h × h) projection, 2048 tokens, h = 8192, bf16.
MATMUL_SHAPE: tuple[int, int, int] = (2048, 8192, 8192)

#: eff.megatron_mfu: the 145.6B row of Megatron-LM's Table 1 (80 layers, h = 12288, 148 TFLOP/s per A100).
MEGATRON_RUN: MegatronRun = next(run for run in MEGATRON_TABLE1 if run.params_billion == 145.6)

#: eff.best_change and eff.decode_share: Llama 3 70B on one H100 rank at TP = 8.
LLAMA_MODEL: str = "llama3-70b"
LLAMA_TP: int = 8
#: eff.best_change: the starting layout (micro-batch 1 of 4096 tokens, CP = 1) and the three changes offered.
BASE_LAYOUT: dict[str, int] = {"micro_batch": 1, "seq_len": 4096, "cp": 1, "tp": LLAMA_TP}
CHANGES: dict[str, dict[str, int]] = {"tp16": {"tp": 16}, "cp2": {"cp": 2}, "mb2": {"micro_batch": 2}}
#: eff.decode_share: one decode step of 16 concurrent sequences (16 tokens per matmul).
DECODE_BATCH: int = 16


def matmul_intensity() -> float:
    """eff.matmul_intensity: FLOP per byte of :data:`MATMUL_SHAPE` in bf16."""
    return matmul_intensity_flop_per_byte(*MATMUL_SHAPE)


def h200_ridge() -> float:
    """eff.h200_ridge: H200 SXM's dense bf16 peak over its HBM bandwidth, FLOP per byte (not in the lesson's table)."""
    return ridge_point_flop_per_byte(H200_BF16_DENSE_FLOPS, H200_HBM_BYTES_PER_S)


def h100_ridge_point() -> float:
    """H100 SXM's ridge point (the lesson's table shows it), FLOP per byte."""
    return ridge_point_flop_per_byte(H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S)


def _megatron_flops_per_token() -> tuple[float, float]:
    """(model, hardware) FLOPs per token of :data:`MEGATRON_RUN` in Megatron-LM's eq. 3 convention."""
    run = MEGATRON_RUN
    layer_params = 12 * run.layers * run.hidden**2  # eq. 3 counts the layers' matmuls ...
    params = layer_params + MEGATRON_VOCAB_SIZE * run.hidden  # ... and the output layer, which is not recomputed
    model = model_flops_per_token(params, run.layers, run.hidden, MEGATRON_SEQ_LEN)
    hardware = hardware_flops_per_token(
        params, run.layers, run.hidden, MEGATRON_SEQ_LEN, "full", recomputed_params=layer_params
    )
    return model, hardware


def megatron_mfu() -> float:
    """eff.megatron_mfu: MFU of :data:`MEGATRON_RUN`, whose reported TFLOP/s count full recomputation."""
    model, hardware = _megatron_flops_per_token()
    tokens_per_s_per_gpu = MEGATRON_RUN.tflops_per_gpu * 1e12 / hardware
    return mfu(model, tokens_per_s_per_gpu, 1, A100_BF16_DENSE_FLOPS)


def change_intensities() -> dict[str, float]:
    """eff.best_change: the per-GPU layer intensity after each of :data:`CHANGES`."""
    model = MODELS[LLAMA_MODEL]
    result = {}
    for name, change in CHANGES.items():
        result[name] = layout_matmul_intensity(model, **{**BASE_LAYOUT, **change})
    return result


def best_change() -> str:
    """eff.best_change: the change of :data:`CHANGES` with the highest per-GPU matmul intensity."""
    intensities = change_intensities()
    return max(intensities, key=intensities.__getitem__)


def decode_intensity() -> float:
    """FLOP per byte of a decode step's layer matmuls: :data:`DECODE_BATCH` tokens, Llama 3 70B at TP = 8."""
    return layout_matmul_intensity(MODELS[LLAMA_MODEL], tp=LLAMA_TP, micro_batch=DECODE_BATCH, seq_len=1)


def decode_share() -> float:
    """eff.decode_share: the hard roofline's share of H100 peak for :func:`decode_intensity`."""
    attainable = roofline_flops(decode_intensity(), H100_BF16_DENSE_FLOPS, H100_HBM_BYTES_PER_S)
    return attainable / H100_BF16_DENSE_FLOPS


MATMUL_INTENSITY = register(
    Exercise(
        id="eff.matmul_intensity",
        lesson=7,
        prompt=Text(
            zh="一个投影矩阵乘：2048 个 token 的激活 (2048 × 8192) 乘以权重 (8192 × 8192)，bf16。"
            "它的计算强度是多少 FLOP/字节？",
            en="A projection: activations of 2048 tokens (2048 × 8192) times a weight (8192 × 8192), bf16. What is "
            "its arithmetic intensity in FLOP per byte?",
        ),
        expected=matmul_intensity,
        hint=Text(
            zh="FLOP = 2·m·k·n；至少搬运的字节 = 2·(m·k + k·n + m·n)（两个输入各读一次，输出写一次）。",
            en="FLOPs = 2·m·k·n; the least bytes moved = 2·(m·k + k·n + m·n) (read both inputs once, write the "
            "output once).",
        ),
        why=lambda value: Text(
            zh=f"m·k·n / (m·k + k·n + m·n) = 2048·8192 / (2048 + 8192 + 2048) = {value:.0f}。",
            en=f"m·k·n / (m·k + k·n + m·n) = 2048·8192 / (2048 + 8192 + 2048) = {value:.0f}.",
        ),
        slips=(
            mistake(
                "elements_not_bytes",
                lambda: 2 * matmul_intensity(),
                Text(
                    zh="你把元素个数当成了字节数：bf16 每个元素占 2 字节。",
                    en="You counted elements, not bytes: each bf16 element is 2 bytes.",
                ),
            ),
            mistake(
                "multiply_add",
                lambda: matmul_intensity() / 2,
                Text(
                    zh="一次乘加是 2 个 FLOP：矩阵乘的 FLOP 是 2·m·k·n，不是 m·k·n。",
                    en="A multiply-add is 2 FLOPs: a matmul does 2·m·k·n FLOPs, not m·k·n.",
                ),
            ),
        ),
    ),
    replace=True,
)

H200_RIDGE = register(
    Exercise(
        id="eff.h200_ridge",
        lesson=7,
        prompt=Text(
            zh="H200 SXM 的数据手册：稠密 bf16 峰值 989 TFLOP/s（与 H100 相同），HBM 带宽 4.8 TB/s。"
            "它的脊点是多少 FLOP/字节？",
            en="The H200 SXM datasheet: 989 TFLOP/s dense bf16 (the same as H100), 4.8 TB/s of HBM bandwidth. "
            "Where is its ridge point, in FLOP per byte?",
        ),
        expected=h200_ridge,
        hint=Text(
            zh="脊点是屋顶线的拐点：峰值算力 ÷ 显存带宽，单位要一致 (FLOP/s ÷ 字节/s)。",
            en="The ridge is where the roofline bends: peak FLOP/s ÷ memory bytes/s, in matching units.",
        ),
        why=lambda value: Text(
            zh=f"989e12 / 4.8e12 = {value:.1f}：算力不变、带宽更高，脊点左移，访存受限的解码 (decode) 随之变快。",
            en=f"989e12 / 4.8e12 = {value:.1f}: the same compute with more bandwidth moves the ridge left, and "
            "memory-bound decoding gets faster.",
        ),
        slips=(
            mistake(
                "h100_figures",
                h100_ridge_point,
                Text(
                    zh="这是 H100 的脊点（3.35 TB/s）；题目给的是 H200 的带宽。",
                    en="That is H100's ridge (3.35 TB/s); the question gives H200's bandwidth.",
                ),
            ),
            mistake(
                "inverted",
                lambda: 1 / h200_ridge(),
                Text(
                    zh="比值倒过来了：脊点是峰值算力除以显存带宽（FLOP/s ÷ 字节/s），得到每字节多少 FLOP，"
                    "不是带宽除以算力。",
                    en="The ratio is upside down: the ridge is the peak FLOP/s divided by the memory bandwidth "
                    "(bytes/s), giving FLOP per byte, not the bandwidth over the compute.",
                ),
            ),
            any_mistake(
                "units_thousand",
                lambda: (h200_ridge() * 1000, h200_ridge() / 1000),
                Text(
                    zh="你的答案与正确值正好差 1000 倍：峰值和带宽的单位没对齐（T 对 T：TFLOP/s 配 TB/s；"
                    "或者都换成 FLOP/s 和字节/s），带宽是 TB/s 不是 GB/s。",
                    en="Your answer is off by exactly 1000: the peak and the bandwidth are in mismatched units (T with "
                    "T: TFLOP/s with TB/s, or both in FLOP/s and bytes/s); the bandwidth is in TB/s, not GB/s.",
                ),
            ),
        ),
    ),
    replace=True,
)

MEGATRON_MFU = register(
    Exercise(
        id="eff.megatron_mfu",
        lesson=7,
        prompt=Text(
            zh="Megatron-LM 表 1 中 145.6B 的一行：80 层，h = 12288，s = 2048，词表 51200，"
            "每张 A100 达到 148 TFLOP/s——这个数按论文的公式 (3) 计入了完全重计算。"
            "它的 MFU 是多少（0 到 1 之间的小数）？",
            en="The 145.6B row of Megatron-LM's Table 1: 80 layers, h = 12288, s = 2048, vocabulary 51200, "
            "148 TFLOP/s per A100, counted with the paper's eq. (3), which includes full recomputation. What is "
            "its MFU (a fraction between 0 and 1)?",
        ),
        expected=megatron_mfu,
        # 0.5 %: "about 1/3 more FLOPs", 148 / 312 × 3/4 = 0.3558, is the reasoning the result states (0.3561)
        rel_tol=5e-3,
        hint=Text(
            zh="148 TFLOP/s 是硬件 FLOP（HFU 的分子）。先用 hardware_flops_per_token 换算成每张 GPU 每秒的 token 数，"
            "再按模型 FLOP（6N + 12·L·h·s，不含重计算）算 MFU；A100 的峰值是 312 TFLOP/s。",
            en="148 TFLOP/s are hardware FLOPs (HFU's numerator). Turn them into tokens per second per GPU with "
            "hardware_flops_per_token, then count model FLOPs (6N + 12·L·h·s, no recomputation) for MFU; the A100 "
            "peak is 312 TFLOP/s.",
        ),
        why=lambda value: Text(
            zh=f"HFU = 148 / 312 = {148 / 312:.3f}；完全重计算多做了约 1/3 的 FLOP，所以 MFU = {value:.3f}。",
            en=f"HFU = 148 / 312 = {148 / 312:.3f}; full recomputation executes about 1/3 more FLOPs, so "
            f"MFU = {value:.3f}.",
        ),
        slips=(
            PERCENT_VS_FRACTION,
            mistake(
                "hfu_for_mfu",
                lambda: MEGATRON_RUN.tflops_per_gpu * 1e12 / A100_BF16_DENSE_FLOPS,
                Text(
                    zh="148 / 312 是 HFU：148 TFLOP/s 里含有重计算的 FLOP，MFU 只数模型 FLOP。",
                    en="148 / 312 is HFU: the 148 TFLOP/s include the recomputed FLOPs, and MFU counts only the "
                    "model's.",
                ),
            ),
            mistake(
                "hfu_percent",
                lambda: 100 * MEGATRON_RUN.tflops_per_gpu * 1e12 / A100_BF16_DENSE_FLOPS,
                Text(
                    zh="这是以百分数写的 HFU（148 / 312 × 100）：两处要改。"
                    "148 TFLOP/s 里含有重计算的 FLOP，MFU 只数模型 FLOP；题目要 0 到 1 之间的小数，不是百分数。",
                    en="That is HFU as a percentage (148 / 312 × 100): two things to change. The 148 TFLOP/s include "
                    "the recomputed FLOPs, and MFU counts only the model's; the question asks for a fraction between "
                    "0 and 1, not a percentage.",
                ),
            ),
        ),
    ),
    replace=True,
)

BEST_CHANGE = register(
    Exercise(
        id="eff.best_change",
        lesson=7,
        prompt=Text(
            zh="Llama 3 70B 在 H100 上，TP = 8，微批次 1，序列 4096，CP = 1。下面哪一个改动提高每张 GPU 上层内矩阵乘的"
            "计算强度？'tp16'（TP 改成 16）、'cp2'（CP 改成 2）、'mb2'（微批次改成 2）。",
            en="Llama 3 70B on H100 at TP = 8, micro-batch 1, sequence 4096, CP = 1. Which change raises the "
            "arithmetic intensity of each GPU's layer matmuls? 'tp16' (TP to 16), 'cp2' (CP to 2) or 'mb2' "
            "(micro-batch to 2).",
        ),
        expected=best_change,
        kind="choice",
        choices=tuple(CHANGES),
        normalize=lambda s: s.strip().lower(),
        hint=Text(
            zh="每张 GPU 乘的 token 数是微批次 × s ÷ CP，权重的宽度要除以 TP。哪个改动让矩阵变大而不是变小？",
            en="Each GPU multiplies micro-batch × s ÷ CP tokens against weights divided by TP. Which change makes "
            "the matmuls bigger rather than smaller?",
        ),
        why=lambda name: Text(
            zh=f"'{name}'：token 数加倍、权重不变；TP 16 把权重切得更细，CP 2 把 token 减半，两者都降低计算强度。",
            en=f"'{name}': twice the tokens against the same weights; TP 16 cuts the weights thinner and CP 2 halves "
            "the tokens, and both lower the intensity.",
        ),
    ),
    replace=True,
)

DECODE_SHARE = register(
    Exercise(
        id="eff.decode_share",
        lesson=7,
        prompt=Text(
            zh="服务时的一个解码 (decode) 步：16 条并发序列各生成 1 个 token，Llama 3 70B，TP = 8，H100。"
            "按硬屋顶线，层内矩阵乘最多能用到峰值算力的多少（0 到 1 之间的小数）？",
            en="One decode step when serving: 16 concurrent sequences each produce 1 token; Llama 3 70B, TP = 8, "
            "H100. On the hard roofline, what share of peak can the layer matmuls reach at most (a fraction "
            "between 0 and 1)?",
        ),
        expected=decode_share,
        # 1 %: the hint's "about 16" gives 0.0542 where the layer's intensity, 15.9, gives 0.0538
        rel_tol=1e-2,
        hint=Text(
            zh="每个矩阵乘只有 16 个 token：计算强度约等于 16。它在脊点的左边，可达算力 = 计算强度 × 带宽。",
            en="Each matmul sees only 16 tokens: the intensity is about 16. That is left of the ridge, where "
            "attainable FLOP/s = intensity × bandwidth.",
        ),
        why=lambda value: Text(
            zh=f"计算强度 {decode_intensity():.1f} FLOP/字节 × 3.35 TB/s ÷ 989 TFLOP/s = {value:.3f}："
            "解码是访存受限的，批越大越接近脊点（第 10 课）。",
            en=f"intensity {decode_intensity():.1f} FLOP/byte × 3.35 TB/s ÷ 989 TFLOP/s = {value:.3f}: decode is "
            "memory-bound, and a larger batch moves it toward the ridge (lesson 10).",
        ),
        slips=(PERCENT_VS_FRACTION,),
    ),
    replace=True,
)

learner_functions(globals())
