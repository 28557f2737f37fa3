"""What the estimate is calibrated on, how it carries across GPU generations, and how sure it is.

Compute efficiency across generations: the share of peak a device's best large bf16 matmul reaches is
measured, not guessed — the "maximum achievable matmul FLOPS" (MAMF) of :data:`MAMF_SOURCE`. The planner's
ceiling is that fraction times one *relative* ceiling, the share of the best matmul a whole training step
keeps (:data:`EFFICIENCY_RELATIVE_CEILING`), fitted once on the fit set (Megatron-LM's Table 1, A100) and
checked on runs of other devices and years (:data:`VALIDATION_SET`). FP8 carries the same way: the share of the FP8
speed-up fitted on H100 (:data:`FP8_MATMUL_SHARE`) is scaled by each device's measured FP8-over-bf16 best-matmul ratio
(:data:`FP8_MAMF_RATIO`, :func:`fp8_share_for`). The size-dependent roofline curve of
:func:`coursekit.planner.estimate.matmul_efficiency` then applies below that ceiling. A device without a
measurement keeps the calibration device's fraction.

Attention's core under flash attention runs at its own measured speed: FlashAttention-3's H100 figures over the
H100's best matmul, which depend on the length of the sequence each kernel call runs over (:func:`attention_rate_at`;
from 4K tokens on about :data:`ATTENTION_RELATIVE_RATE`), on the causal half of the query-key pairs
(:data:`CAUSAL_EXECUTED_SHARE`); carried to other devices as the ceiling is. The same paper's cuDNN and
FlashAttention-2 bars give the other kernels a workload can name (:data:`ATTENTION_KERNEL_FIGURES`; H100 only).

Uncertainty: each assumption the order of two layouts can hinge on is moved within
:data:`ASSUMPTION_UNCERTAINTY` by :meth:`coursekit.planner.PlanResult.explain_ties`.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from .._validate import check_number, finite_result, learner_functions
from ..hardware import A100_BF16_DENSE_FLOPS, B200_BF16_DENSE_FLOPS, H100_BF16_DENSE_FLOPS
from ..i18n import register, shown_repr, tr
from ..published_runs import EP_OVERLAP_FIT_RUNS, FP8_FIT_RUNS, MOE_HOST_FIT_RUNS
from ..specs import EP_A2A_OVERLAP_ON, MAX_PEAK_FLOPS, MIN_PEAK_FLOPS

__all__ = [
    "ASSUMPTION_SOURCES",
    "ASSUMPTION_UNCERTAINTY",
    "ATTENTION_KERNEL_FIGURES",
    "ATTENTION_KERNEL_NAMES",
    "ATTENTION_KERNEL_RATES",
    "ATTENTION_RELATIVE_RATE",
    "CAUSAL_EXECUTED_SHARE",
    "CUDNN_ATTENTION_H100_BY_LENGTH",
    "DENSE_THROUGHPUT_RATIOS",
    "EFFICIENCY_CEILING",
    "EFFICIENCY_RELATIVE_CEILING",
    "EP_A2A_OVERLAP_ON",
    "EP_A2A_OVERLAP_SOURCE",
    "EP_OVERLAP_FIT_RUNS",
    "FIT_SET",
    "FLASH_ATTENTION_2_H100_BY_LENGTH",
    "FLASH_ATTENTION_H100_BY_LENGTH",
    "FLASH_ATTENTION_H100_SHORT_TFLOPS",
    "FLASH_ATTENTION_H100_TFLOPS",
    "FLASH_ATTENTION_SOURCE",
    "FP8_FIT_RUNS",
    "FP8_MAMF_RATIO",
    "FP8_MAMF_SOURCE",
    "FP8_MATMUL_SHARE",
    "FP8_MATMUL_SOURCE",
    "MAMF_FRACTION",
    "MAMF_GENERATION",
    "MAMF_SOURCE",
    "MEASUREMENT_REPEATABILITY",
    "MOE_HOST_FIT_RUNS",
    "MOE_LAYER_HOST_S",
    "MOE_LAYER_HOST_SOURCE",
    "MOE_THROUGHPUT_RATIOS",
    "PASS_THROUGHPUT_TOLERANCE",
    "REMEASURED_RUNS",
    "REMEASURED_SOURCE",
    "VALIDATION_SET",
    "attention_rate_at",
    "attention_relative_rate",
    "ceiling_for",
    "fp8_share_for",
    "matmul_fraction",
    "measurement_repeatability",
]

#: Measured best bf16 dense matmul over datasheet peak, by peak FLOP/s of the device.
#: A100 and H100 from the table's CUDA 12.1 edition, the B200 from its later edition (torch 2.7.1+cu128), which
#: measured A100 and H100 again at 271.2 and 794.5 TFLOP/s (newer software): read against the later A100 figure,
#: the B200's share relative to the calibration device would be about 1 % smaller. The B200 was added after the
#: ceiling was fitted and after the H100 runs were registered; its runs only check it.
MAMF_FRACTION: dict[float, float] = {
    A100_BF16_DENSE_FLOPS: 267.9e12 / A100_BF16_DENSE_FLOPS,  # A100 SXM: 267.9 of 312 TFLOP/s, 85.9 %
    H100_BF16_DENSE_FLOPS: 792.1e12 / H100_BF16_DENSE_FLOPS,  # H100 SXM: 792.1 of 989 TFLOP/s, 80.1 %
    B200_BF16_DENSE_FLOPS: 1745.0e12 / B200_BF16_DENSE_FLOPS,  # B200 SXM: 1745.0 of 2250 TFLOP/s, 77.6 %
}
MAMF_SOURCE: str = (
    "Bekman, Machine Learning Engineering (github.com/stas00/ml-engineering), compute/accelerator/README.md, "
    "'Maximum Achievable Matmul FLOPS comparison table' (bf16, no sparsity): CUDA 12.1 edition, A100 SXM 267.9 of "
    "312 TFLOP/s, H100 SXM 792.1 of 989; @ b9e29720eebd4aa946fa9678975385efbc90a777, B200 SXM 1745.0 of 2250 "
    "(torch 2.7.1+cu128)"
)

#: The measured device of each compute-capability major, the key of its shares in :data:`MAMF_FRACTION` and
#: :data:`FP8_MAMF_RATIO`: 8.x Ampere (A100), 9.x Hopper (H100), 10.x data-centre Blackwell (B200). A device that
#: states its compute capability takes its generation's measured shares whatever its peak, so a faster device of one
#: generation never keeps a smaller share (the smaller share at a larger peak is what a later generation measured,
#: not what a faster part of the same one does) and never gets a longer estimated step; one that does not state it, or
#: of another generation, takes shares interpolated on its peak.
MAMF_GENERATION: dict[int, float] = {8: A100_BF16_DENSE_FLOPS, 9: H100_BF16_DENSE_FLOPS, 10: B200_BF16_DENSE_FLOPS}


def _generation_peak(compute_capability: float | None) -> float | None:
    """The measured device's peak (the shares' key) for a compute capability of a measured generation, else None."""
    if compute_capability is None:
        return None
    return MAMF_GENERATION.get(math.floor(check_number("compute_capability", compute_capability, ge=0, le=100)))


#: The calibration device: Megatron-LM's Table 1 ran on A100s.
_CALIBRATION_PEAK: float = A100_BF16_DENSE_FLOPS

#: Runs that fit a constant (never used to check it) and runs that check it (never used to fit).
#: Fit: the ten rows of Megatron-LM's Table 1 fit EFFICIENCY_CEILING (A100). Validation: every entry of
#: :data:`coursekit.presets.PUBLISHED_RUNS` and :data:`coursekit.planner.published.PUBLISHED_RUNS_2024`.
FIT_SET: str = "Megatron-LM Table 1 (arXiv:2104.04473), 10 runs, A100"
VALIDATION_SET: str = (
    "Llama 3 405B (arXiv:2407.21783, Table 4), MT-NLG 530B (arXiv:2201.11990), BLOOM 176B (arXiv:2211.05100), "
    "DeepSeek-V3 (arXiv:2412.19437), NVIDIA NeMo performance tables (H100, 2024)"
)


def matmul_fraction(peak_flops: float, compute_capability: float | None = None) -> float:
    """The measured best-matmul share of peak for the device with this bf16 peak (:data:`MAMF_FRACTION`).

    A device of a measured generation (``compute_capability`` 8.x, 9.x or 10.x: :data:`MAMF_GENERATION`) takes its
    generation's share. Otherwise a peak between two measured devices takes a share interpolated linearly in
    log(peak); one outside them takes the nearest measured device's. This is an assumption, not a measurement: a
    faster device of a newer generation has so far kept a smaller share of its peak (A100 85.9 %, H100 80.1 %, B200
    77.6 %). It keeps the best matmul's speed, share × peak, rising with the peak, so a custom device a few per cent
    slower than an H100 is never estimated faster (a lookup of the exact peak gave it the A100's share).

    >>> round(matmul_fraction(989e12), 3), round(matmul_fraction(312e12), 3), round(matmul_fraction(2250e12), 3)
    (0.801, 0.859, 0.776)
    >>> round(matmul_fraction(362e12), 4), round(matmul_fraction(5000e12), 3), round(matmul_fraction(125e12), 3)
    (0.8512, 0.776, 0.859)
    >>> round(matmul_fraction(2 * 989e12, 9.0), 3), round(matmul_fraction(2 * 989e12), 3)  # a Hopper at twice the peak
    (0.801, 0.78)

    Taught in: lesson 9 (decision workbench).
    """
    peak = check_number("peak_flops", peak_flops, gt=0)
    generation = _generation_peak(compute_capability)
    if generation is not None:
        return MAMF_FRACTION[generation]
    measured = MAMF_FRACTION.get(peak)
    if measured is not None:
        return measured
    points = sorted(MAMF_FRACTION.items())
    if peak <= points[0][0]:
        return points[0][1]
    if peak >= points[-1][0]:
        return points[-1][1]
    (low, f_low), (high, f_high) = next((a, b) for a, b in itertools.pairwise(points) if a[0] < peak < b[0])
    return f_low + (f_high - f_low) * math.log(peak / low) / math.log(high / low)


#: Share of peak FLOP/s the largest matmuls reach inside a whole training step on the calibration device
#: (the ``ceiling`` of :func:`coursekit.roofline.achieved_flops`). Calibrated ONCE, on Megatron-LM's Table 1
#: (Narayanan et al. 2021, arXiv:2104.04473; ten A100 runs from 1.7B to 1T parameters): the value that makes
#: the geometric mean of (estimated ÷ published teraFLOP/s per GPU) over the ten rows equal 1, each row
#: planned with the paper's set-up and its (t, p, d), fastest accepted micro-batch and schedule
#: (``benchmarks/report_megatron_table1.py`` prints the fit; ``tests/test_planner_validation.py``
#: re-derives it). No other data set tunes the estimate.
EFFICIENCY_CEILING: float = 0.524

#: Share of the device's best matmul a whole training step keeps: EFFICIENCY_CEILING (fitted on A100) over
#: the A100's measured matmul share.
EFFICIENCY_RELATIVE_CEILING: float = EFFICIENCY_CEILING / MAMF_FRACTION[_CALIBRATION_PEAK]


def ceiling_for(peak_flops: float, compute_capability: float | None = None) -> float:
    """The efficiency ceiling on a device: :data:`EFFICIENCY_RELATIVE_CEILING` × its :func:`matmul_fraction` (of its
    peak and, when stated, its compute capability).

    >>> round(ceiling_for(312e12), 3), round(ceiling_for(989e12), 3)    # A100 (the fit), H100 (carried over)
    (0.524, 0.489)

    Taught in: lesson 9 (decision workbench).
    """
    return EFFICIENCY_RELATIVE_CEILING * matmul_fraction(peak_flops, compute_capability)


#: How much of the FP8 peak's speed-up an FP8 linear layer's matmuls keep inside a training step: their share of the
#: FP8 peak over a bf16 matmul's share of the bf16 peak (Transformer Engine's per-tensor-scaled FP8 GEMMs, H100). The
#: datasheet doubles the peak; a training step does not double its matmul speed: the FP8 GEMMs of a layer's shapes
#: reach a smaller share of their peak, the scaling bookkeeping around them is not all memory traffic (which the
#: estimate counts apart), and the efficiency ceiling, fitted on bf16 steps, folds in work that FP8 does not speed up
#: at all (elementwise kernels, launches). Without it the estimate made FP8 1.17x to 1.30x too fast against BF16 on all
#: seven of DGX Cloud's v24.11.1 BF16/FP8 pairs. Fitted ONCE, on :data:`FP8_FIT_RUNS` (see :data:`FP8_MATMUL_SOURCE`);
#: the other pairs (six of v24.11.1, four of v25.05.02) check it. Uncertain by about a tenth for dense models: their
#: eight checks land within 0.95x to 1.06x of their measured speed-ups (it scales every layout's matmul time alike; the
#: efficiency scenarios already move compute against communication). Grok-1's (MoE) land at 1.09x and 1.22x: an MoE
#: layer's narrow expert matmuls keep less of FP8's speed-up. Every FP8 recipe takes it (one GEMM path); a workload may
#: set its own (``WorkloadSpec.fp8_matmul_share``).
FP8_MATMUL_SHARE: float = 0.775
#: Where FP8_MATMUL_SHARE comes from (the fit pair's run names: :data:`coursekit.published_runs.FP8_FIT_RUNS`,
#: re-exported here).
FP8_MATMUL_SOURCE: str = (
    "NVIDIA DGX Cloud Benchmarking (v24.11.1), llama3.1/README_8b.md: Llama 3.1 8B on 8 H100s, TP 1, PP 1, CP 2, "
    "MBS 1, GA 32, sequence 8192, global batch 128, training step time 12.91 s in BF16 and 9.67 s in FP8 (delayed "
    "scaling), 1.335x the throughput. With FP8 matmuls at the full FP8 peak the estimate made it 1.56x. "
    "FP8_MATMUL_SHARE is the value (to 0.005) at which the estimate's FP8/BF16 ratio of the pair equals the measured "
    "one (tests/test_planner_fp8_share.py re-derives it and checks the other pairs)"
)


#: A device's best FP8 matmul share of its FP8 peak over its best bf16 matmul share of its bf16 peak, measured in one
#: edition of :data:`FP8_MAMF_SOURCE` (each device's two figures with the same torch and CUDA), by bf16 peak FLOP/s.
#: H100 is the device FP8_MATMUL_SHARE was fitted on; :func:`fp8_share_for` carries the share to another device by
#: this ratio, as :func:`ceiling_for` carries the bf16 ceiling. The same table measures B300 at 0.948 (torch 2.9.1) and
#: GB200 at 0.992 (a torch nightly); they are not listed: B300 has the B200's peaks (one key) and GB200's peak in the
#: table (2500) is not the one the presets state (2450). Against B200's ratio they put a Blackwell device's carried
#: share about 4 % lower or 1 % higher.
FP8_MAMF_RATIO: dict[float, float] = {
    H100_BF16_DENSE_FLOPS: (1402.6e12 / 1979e12) / (794.5e12 / 989e12),  # H100 SXM: 70.9 % over 80.3 %, 0.882
    B200_BF16_DENSE_FLOPS: (3432.5e12 / 4500e12) / (1745.0e12 / 2250e12),  # B200 SXM: 76.3 % over 77.6 %, 0.984
}
FP8_MAMF_SOURCE: str = (
    "Bekman, Machine Learning Engineering (github.com/stas00/ml-engineering), compute/accelerator/README.md "
    "@ 744d01e18b79512572f64a6bbd8b5f4a725203a7, 'Maximum Achievable Matmul FLOPS comparison table', BF16 and FP8 "
    "(float8_e4m3fn) tables, no sparsity: H100 SXM 794.5 of 989 and 1402.6 of 1979 TFLOP/s (torch 2.7.0+cu126); "
    "B200 SXM 1745.0 of 2250 and 3432.5 of 4500 (torch 2.7.1+cu128)"
)


def fp8_share_for(peak_flops: float, compute_capability: float | None = None) -> float:
    """The FP8 matmul share on the device with this bf16 peak: :data:`FP8_MATMUL_SHARE` (fitted on H100) times the
    device's :data:`FP8_MAMF_RATIO` over the H100's.

    A Hopper GEMM keeps less of the FP8 peak's doubling than a Blackwell one: at their best matmul shapes the H100
    reaches 70.9 % of its FP8 peak against 80.3 % of its bf16 peak, the B200 76.3 % against 77.6 %. A peak between
    the two devices takes a ratio interpolated linearly in log(peak); outside them, the nearest device's (every
    device up to the H100's peak keeps the fitted share). A device of a measured FP8 generation (``compute_capability``
    9.x or 10.x, :data:`MAMF_GENERATION`) takes its generation's ratio whatever its peak. Not fitted on any run: the
    Blackwell runs only check it.

    >>> round(fp8_share_for(989e12), 3), round(fp8_share_for(2250e12), 3), round(fp8_share_for(312e12), 3)
    (0.775, 0.864, 0.775)

    Taught in: lesson 9 (decision workbench).
    """
    peak = check_number("peak_flops", peak_flops, gt=0)
    generation = _generation_peak(compute_capability)
    points = sorted(FP8_MAMF_RATIO.items())
    if generation in FP8_MAMF_RATIO:
        ratio = FP8_MAMF_RATIO[generation]
    elif peak <= points[0][0]:
        ratio = points[0][1]
    elif peak >= points[-1][0]:
        ratio = points[-1][1]
    else:
        (low, r_low), (high, r_high) = next((a, b) for a, b in itertools.pairwise(points) if a[0] <= peak < b[0])
        ratio = r_low + (r_high - r_low) * math.log(peak / low) / math.log(high / low)
    return FP8_MATMUL_SHARE * ratio / FP8_MAMF_RATIO[H100_BF16_DENSE_FLOPS]


#: Host (CPU) seconds to launch one MoE layer's forward and backward for one micro-batch in eager Megatron-Core
#: (no CUDA graphs). Both of Megatron-Core's dispatchers make the host wait for the device once per MoE layer forward:
#: the all-to-all dispatcher needs the token counts on the host before its all-to-all (token_dispatcher.py, "A
#: synchronization is needed before expert parallel AlltoAll communication to get the `input_splits` and
#: `output_splits` CPU values"), and DeepEP's normal dispatch, which the flex dispatcher runs, waits on the host for
#: the receive counts ("the CPU will wait for GPU's signal to arrive, so this is not compatible with CUDA graph").
#: The host cannot run ahead past the wait, so an MoE layer whose GPU work is shorter than this leaves the GPU idle
#: (Megatron-Core's MoE guide, "CPU Overhead Bottleneck": "Reduce kernel launches — decrease TP size or increase
#: micro-batch size"). Fitted ONCE, on :data:`MOE_HOST_FIT_RUNS` (see :data:`MOE_LAYER_HOST_SOURCE`); no other run
#: tunes it. Uncertain by half either way (:data:`ASSUMPTION_UNCERTAINTY` ``"host"``): it depends on the CPU, the Python
#: and library versions and how much of the layer CUDA graphs capture.
MOE_LAYER_HOST_S: float = 9.4e-3
#: Where MOE_LAYER_HOST_S comes from (the fit pair's run names: :data:`coursekit.published_runs.MOE_HOST_FIT_RUNS`,
#: re-exported here).
MOE_LAYER_HOST_SOURCE: str = (
    "Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @ e8650517d60d71ab73fc6b3b0388cac4ba435181, H100 table: "
    "235B DeepEP TP 2 EP 32 PP 8 VPP 4, 245 TFLOP/s, and TP 4 EP 8 PP 8 VPP 4, 167 TFLOP/s. Without a host limit the "
    "estimate makes the TP 4 row 1.15x the TP 2 row's throughput; measured it is 0.68x. MOE_LAYER_HOST_S is the value "
    "(to 0.1 ms) at which the estimate's ratio of the two equals the measured one (tests/test_planner_moe_host.py "
    "re-derives it). Megatron-LM megatron/core/transformer/moe/README.md, 'CPU Overhead Bottleneck', names the effect"
)

#: Where :data:`coursekit.specs.EP_A2A_OVERLAP_ON` (re-exported here) comes from: the fit pair's run names are
#: :data:`coursekit.published_runs.EP_OVERLAP_FIT_RUNS`, re-exported here.
EP_A2A_OVERLAP_SOURCE: str = (
    "Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @ e8650517d60d71ab73fc6b3b0388cac4ba435181, H100 table: "
    "235B DeepEP TP 2 EP 32 PP 8 VPP 4, 245 TFLOP/s, and the same with +1f1b overlap (A2A_OVERLAP=1: "
    "--overlap-moe-expert-parallel-comm), 276 TFLOP/s: 1.127x. With the overlap taken as complete the estimate made "
    "the gain 1.31x. EP_A2A_OVERLAP_ON is the share (to 0.01) at which the estimate's gain equals the measured one "
    "(tests/test_planner_ep_overlap.py re-derives it)"
)

#: Share of the s x s query-key pairs a causal flash-attention kernel computes: it skips the key blocks above the
#: diagonal (FlashAttention-2, arXiv:2307.08691, §3.1.1: "we only need to compute about half the blocks"); the
#: diagonal blocks' extra is left out (under 1 % at 128-token blocks and 4K keys).
CAUSAL_EXECUTED_SHARE: float = 0.5

#: FlashAttention-3's measured BF16 speed on one H100 80GB SXM5, head dimension 128, at sequences 4K, 8K and 16K:
#: (sequence, forward TFLOP/s, backward TFLOP/s), each in the paper's own count, where the backward pass counts
#: 2.5 times the forward's FLOPs (it computes QKᵀ again). :data:`FLASH_ATTENTION_SOURCE`.
FLASH_ATTENTION_H100_TFLOPS: tuple[tuple[int, float, float], ...] = (
    (4096, 638.0, 542.0),
    (8192, 646.0, 559.0),
    (16384, 648.0, 561.0),
)
#: The same figures' FlashAttention-3 bars at the shorter sequences 1K and 2K: with fewer keys for each query tile the
#: kernel spends more of its time starting and finishing tiles. (The 512-token bars are not used: shorter sequences
#: take the 1K rate.)
FLASH_ATTENTION_H100_SHORT_TFLOPS: tuple[tuple[int, float, float], ...] = (
    (1024, 565.0, 424.0),
    (2048, 625.0, 501.0),
)
#: Every bar :func:`attention_rate_at` interpolates between, shortest first.
FLASH_ATTENTION_H100_BY_LENGTH: tuple[tuple[int, float, float], ...] = (
    *FLASH_ATTENTION_H100_SHORT_TFLOPS,
    *FLASH_ATTENTION_H100_TFLOPS,
)
FLASH_ATTENTION_SOURCE: str = (
    "Shah et al., FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision, arXiv:2407.08608, "
    "speed figures for head dim 128 on H100 80GB SXM5, BF16 (FlashAttention-3, cuDNN and FlashAttention-2 bars at 1k, "
    "2k, 4k, 8k, 16k; backward counted as 2.5x the forward FLOPs, as in the flash-attention repository's benchmarks)"
)
#: The same figures' cuDNN bars (cuDNN's fused attention, the backend Transformer Engine calls on H100 by default),
#: (sequence, forward TFLOP/s, backward TFLOP/s), 1K to 16K: slower than FlashAttention-3 by 2 to 8 %.
CUDNN_ATTENTION_H100_BY_LENGTH: tuple[tuple[int, float, float], ...] = (
    (1024, 574.0, 408.0),
    (2048, 617.0, 465.0),
    (4096, 609.0, 499.0),
    (8192, 600.0, 518.0),
    (16384, 595.0, 516.0),
)
#: The same figures' FlashAttention-2 bars, 1K to 16K. FlashAttention-2 was written for Ampere (its mma
#: instructions, no TMA or asynchronous wgmma): on H100 it reaches 370 TFLOP/s forward and 322 backward, against
#: FlashAttention-3's 648 and 561. (The 16K forward bar is read as 370, the plateau the 4K and 8K bars show.)
FLASH_ATTENTION_2_H100_BY_LENGTH: tuple[tuple[int, float, float], ...] = (
    (1024, 350.0, 260.0),
    (2048, 362.0, 291.0),
    (4096, 368.0, 310.0),
    (8192, 370.0, 318.0),
    (16384, 370.0, 322.0),
)
#: How each kernel of :data:`coursekit.specs.ATTENTION_KERNELS` is written in prose (its project's own spelling).
ATTENTION_KERNEL_NAMES: dict[str, str] = {
    "flash-attention-3": "FlashAttention-3",
    "cudnn": "cuDNN",
    "flash-attention-2": "FlashAttention-2",
}
#: Each kernel of :data:`coursekit.specs.ATTENTION_KERNELS` and the bars :func:`attention_rate_at` reads for it.
ATTENTION_KERNEL_FIGURES: dict[str, tuple[tuple[int, float, float], ...]] = {
    "flash-attention-3": FLASH_ATTENTION_H100_BY_LENGTH,
    "cudnn": CUDNN_ATTENTION_H100_BY_LENGTH,
    "flash-attention-2": FLASH_ATTENTION_2_H100_BY_LENGTH,
}


def _triples(name: str, value: Any, key_all: str, key_one: str) -> tuple[tuple[Any, Any, Any], ...]:
    """``value`` when it is a non-empty tuple of 3-tuples; else TypeError / ValueError worded by the catalog entries
    ``key_all`` (the whole) and ``key_one`` (one entry), naming ``name`` or ``name[i]``."""
    if not isinstance(value, tuple):
        raise TypeError(tr(key_all, name=name, value=shown_repr(value)))
    if not value:
        raise ValueError(tr(key_all, name=name, value=shown_repr(value)))
    for i, row in enumerate(value):
        if not (isinstance(row, tuple) and len(row) == 3):
            raise TypeError(tr(key_one, name=f"{name}[{i}]", value=shown_repr(row)))
    return value


def _kernel_tflops(forward: Any, backward: Any) -> Any:
    """TFLOP/s of one forward plus backward per counted FLOP: 3 / (1/f + 2/(0.8·b)) (see
    :func:`attention_relative_rate`)."""
    return 3.0 / (1.0 / forward + 2.0 / (backward * 2.0 / 2.5))


def _checked_figures(figures: Any) -> tuple[tuple[Any, Any, Any], ...]:
    """``figures`` when it is a non-empty tuple of (length, forward, backward) with positive numbers."""
    for i, row in enumerate(_triples("figures", figures, "calibration.figures", "calibration.figure")):
        check_number(f"figures[{i}][0]", row[0], gt=0)
        check_number(f"figures[{i}][1]", row[1], gt=0, le=1e6)
        check_number(f"figures[{i}][2]", row[2], gt=0, le=1e6)
    return figures  # type: ignore[no-any-return]


def attention_relative_rate(
    figures: tuple[tuple[int, float, float], ...] = FLASH_ATTENTION_H100_TFLOPS,
    peak_flops: float = H100_BF16_DENSE_FLOPS,
) -> float:
    """Speed of the attention kernel per counted FLOP over the device's best matmul (:func:`matmul_fraction`).

    The training count of attention's core is PaLM's: a forward of F and a backward of 2F. The kernel measures a
    forward at rate f and a backward of 2.5F at rate b, so the backward's 2F in that count run at 2b/2.5 and a
    forward plus backward takes F/f + 2F/(0.8·b): a rate of 3 / (1/f + 2/(0.8·b)), with f and b the means over
    ``figures``. Over the H100's measured best matmul (792.1 TFLOP/s).

    >>> round(attention_relative_rate(), 3)
    0.624
    >>> round(attention_relative_rate(((8192, 600.0, 500.0),), 989e12), 3)   # one sequence's bars
    0.568

    Taught in: lesson 9 (decision workbench).
    """
    figures = _checked_figures(figures)
    peak_flops = check_number("peak_flops", peak_flops, ge=MIN_PEAK_FLOPS, le=MAX_PEAK_FLOPS)  # ClusterSpec's
    forward = sum(row[1] for row in figures) / len(figures)
    backward = sum(row[2] for row in figures) / len(figures)
    return float(_kernel_tflops(forward, backward)) * 1e12 / (matmul_fraction(peak_flops) * peak_flops)


def attention_rate_at(
    tokens: Any,
    figures: tuple[tuple[int, float, float], ...] = FLASH_ATTENTION_H100_BY_LENGTH,
    peak_flops: float = H100_BF16_DENSE_FLOPS,
) -> Any:
    """Speed of the attention kernel per counted FLOP over the device's best matmul when one kernel call runs over a
    sequence of ``tokens`` queries and keys; array-generic.

    Each bar of ``figures`` (ascending lengths) gives the rate 3 / (1/f + 2/(0.8·b)) of
    :func:`attention_relative_rate`; between two lengths the rate is interpolated linearly in log2 of the length,
    and outside the table it is the nearest end's.

    >>> round(attention_rate_at(2048), 3), round(attention_rate_at(4096), 3), round(attention_rate_at(65536), 3)
    (0.575, 0.613, 0.631)
    >>> attention_rate_at([1024, 512, 2896.3]).round(3).tolist()   # 512 takes the 1K rate; 2896 ≈ 2^11.5
    [0.494, 0.494, 0.594]

    Taught in: lesson 9 (decision workbench).
    """
    import numpy as np

    own = _H100_TABLES.get(id(figures)) if peak_flops == H100_BF16_DENSE_FLOPS else None
    if own is not None and own[0] is figures:
        log2_lengths, rates = own[1]  # the estimate's path: the module's own checked figures, no checks again
    else:
        figures = _checked_figures(figures)
        lengths = [float(row[0]) for row in figures]
        if lengths != sorted(set(lengths)):
            raise ValueError(tr("calibration.figures_order", name="figures", value=shown_repr(figures)))
        peak_flops = check_number("peak_flops", peak_flops, ge=MIN_PEAK_FLOPS, le=MAX_PEAK_FLOPS)  # ClusterSpec's
        log2_lengths, rates = _rate_table(figures, peak_flops)
    try:
        scalar = np.ndim(tokens) == 0
    except ValueError:  # a ragged list
        scalar = False
    if scalar:
        check_number("tokens", tokens, gt=0)
    try:
        length = np.asarray(tokens, dtype=np.float64)
    except (TypeError, ValueError):  # an element that is no number ("x", a ragged list)
        length = np.array([np.nan])
    if not scalar and not bool(np.all(np.isfinite(length) & (length > 0))):  # inf would take the longest bar's rate
        raise ValueError(tr("calibration.tokens", name="tokens", value=shown_repr(tokens)))
    out = np.interp(np.log2(length), log2_lengths, rates)  # np.interp holds the end values beyond the table
    return float(out) if scalar else out


def _rate_table(
    figures: tuple[tuple[int, float, float], ...], peak_flops: float
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(log2 of each bar's length, its rate over the device's best matmul) for :func:`attention_rate_at`."""
    best = matmul_fraction(peak_flops) * peak_flops
    return (
        tuple(math.log2(row[0]) for row in figures),
        tuple(float(_kernel_tflops(row[1], row[2])) * 1e12 / best for row in figures),
    )


#: The rate tables of the module's own figures on H100 (each kernel's), by the figures' identity.
_H100_TABLES: dict[int, tuple[Any, tuple[tuple[float, ...], tuple[float, ...]]]] = {
    id(figures): (figures, _rate_table(figures, H100_BF16_DENSE_FLOPS)) for figures in ATTENTION_KERNEL_FIGURES.values()
}


#: How fast the attention core runs per counted FLOP against the linear layers' matmuls on sequences of 4K to 16K
#: tokens (the mean of those bars), under the same share of the best matmul a whole step keeps
#: (:data:`EFFICIENCY_RELATIVE_CEILING`): measured on H100 (FlashAttention-3) and carried to other devices, as the
#: efficiency ceiling is; shorter sequences run slower (:func:`attention_rate_at`). With causal flash attention on
#: such sequences each counted FLOP of
#: the core costs CAUSAL_EXECUTED_SHARE / ATTENTION_RELATIVE_RATE = 0.80 of a linear layer's FLOP. Uncertainty: the
#: same paper's cuDNN bars (a backend Transformer Engine can call on H100) are about 7 % slower forward and 8 %
#: backward, a rate near 0.58; the rate is not one of the assumptions explain_ties moves.
ATTENTION_RELATIVE_RATE: float = attention_relative_rate()
#: The same rate (the mean of the 4K, 8K and 16K bars) for each kernel of :data:`ATTENTION_KERNEL_FIGURES`: the
#: default's is :data:`ATTENTION_RELATIVE_RATE`.
ATTENTION_KERNEL_RATES: dict[str, float] = {
    kernel: attention_relative_rate(tuple(row for row in figures if row[0] >= 4096))
    for kernel, figures in ATTENTION_KERNEL_FIGURES.items()
}


register(
    {
        "calibration.pairs": {
            "zh": "{name} = {value}：必须是非空元组，每项是 (名称, 第一次实测, 第二次实测)，两次实测都是正数。",
            "en": "{name} = {value}: must be a non-empty tuple of (name, first measurement, second measurement), both "
            "measurements positive.",
        },
        "calibration.figures": {
            "zh": "{name} = {value}：必须是非空元组，每项是 (序列长度, 前向 TFLOP/s, 反向 TFLOP/s)，三个都是正数。",
            "en": "{name} = {value}: must be a non-empty tuple of (sequence length, forward TFLOP/s, backward "
            "TFLOP/s), all three positive.",
        },
        "calibration.figure": {
            "zh": "{name} = {value}：必须是 3 元组 (序列长度, 前向 TFLOP/s, 反向 TFLOP/s)。",
            "en": "{name} = {value}: must be a 3-tuple (sequence length, forward TFLOP/s, backward TFLOP/s).",
        },
        "calibration.figures_order": {
            "zh": "{name} = {value}：序列长度必须严格递增。",
            "en": "{name} = {value}: the sequence lengths must be strictly increasing.",
        },
        "calibration.tokens": {
            "zh": "{name} = {value}：每个元素都必须是有限的正数。",
            "en": "{name} = {value}: every element must be a finite positive number.",
        },
        "calibration.pair": {
            "zh": "{name} = {value}：必须是 3 元组 (名称, 第一次实测, 第二次实测)。",
            "en": "{name} = {value}: must be a 3-tuple (name, first measurement, second measurement).",
        },
    }
)

#: How far the estimate's throughput was from the measured one over the registered published runs
#: (:func:`coursekit.published_runs.all_published_runs` through :func:`coursekit.planner.validation.compare_published`,
#: the runs each plan accepts): (runs, smallest estimated/measured, largest, runs outside the pass rule's ±30 %,
#: :data:`PASS_THROUGHPUT_TOLERANCE`), mixture-of-experts and dense models apart. A
#: plan of an MoE model states its spread beside the model's ±20 %: its tail is optimistic (engine features the
#: estimate does not see: the all-to-all's overlap and dispatcher, the routing's balance).
#: ``tests/test_moe_uncertainty.py`` recomputes both from the runs, so a change of the estimate restates them.
#: The pass rule's throughput tolerance, |estimated / published - 1| at most this (issue 19's "Done when";
#: :mod:`coursekit.planner.validation` applies it).
PASS_THROUGHPUT_TOLERANCE: float = 0.3
MOE_THROUGHPUT_RATIOS: tuple[int, float, float, int] = (26, 0.72, 2.81, 2)
DENSE_THROUGHPUT_RATIOS: tuple[int, float, float, int] = (80, 0.73, 1.20, 0)

#: How far each assumption may be off, as a relative change; what explain_ties moves it by.
ASSUMPTION_UNCERTAINTY: dict[str, float] = {
    # the roofline curve's shape-dependence: halved or doubled (log-efficiency scaled by 0.5 .. 2)
    "efficiency": 0.5,
    # each overlap share moved by a quarter: every share down (TP/EP only where a kernel turns them on), TP/EP up
    "overlap": 0.25,
    # achieved bus bandwidth below the datasheet's, per link
    "bandwidth": 0.25,
    # the pipeline bubble's share, smaller by this much
    "pipeline": 0.5,
    # the host's launch time per MoE layer, smaller or larger by this much (CUDA graphs over part of the layer or a
    # faster CPU; a slower CPU)
    "host": 0.5,
}
ASSUMPTION_SOURCES: dict[str, str] = {
    "efficiency": "the calibration fits one ceiling; how efficiency falls with smaller matmuls is the course's "
    "smooth-roofline shape (ROOFLINE_SMOOTHNESS), not fitted: moved by a factor 2 either way",
    "overlap": "engines differ (Megatron-Core --overlap-grad-reduce / --overlap-param-gather / --tp-comm-overlap, "
    "FSDP prefetch; the EP all-to-all overlap's share EP_A2A_OVERLAP_ON is fitted on one pair of runs, "
    "EP_A2A_OVERLAP_SOURCE); a profile of one step shows the exposed share",
    "bandwidth": "nccl-tests bus bandwidth commonly reaches 70-90 % of the link's datasheet figure; course "
    "assumption of up to 25 % below",
    "pipeline": "the calibration's residuals fall with pipeline depth (estimated / published 1.18 at pp 1, 0.85 at "
    "pp 64 on Megatron-LM Table 1): the bubble formula is the least certain term; moved to half",
    "host": "MOE_LAYER_HOST_S is fitted on one pair of runs (MOE_LAYER_HOST_SOURCE); CUDA graphs over the router and "
    "the dispatch preprocessing (Megatron-Core --cuda-graph-scope moe_router moe_preprocess) or a faster host shorten "
    "it, a slower host lengthens it: moved to half and to half as much again",
}


#: Where :data:`REMEASURED_RUNS` come from: NVIDIA published its NeMo 24.07 pre-training table on DGX-H100 (FP8) and,
#: four weeks later, the same table again with every row measured anew, same model, GPUs, batch and layout.
REMEASURED_SOURCE: str = (
    "NVIDIA NeMo docs/source/performance/performance_summary.md @ 164b0097f83a187ccfea1513ea5ef76679569dd9 "
    "(2024-08-14, “24.07 perf”) and @ 9c5c5e9709407d3511005fc966e45374998bb478 (2024-09-09, “24.07 perf numbers”)"
)
#: The twelve rows of that table as published first and second: (row, tokens per GPU-second first, second).
REMEASURED_RUNS: tuple[tuple[str, float, float], ...] = (
    ("GPT3-5B", 22521.0, 23406.0),
    ("GPT3-20B", 5851.0, 5851.0),
    ("GPT3-175B, 128 GPUs", 726.0, 716.0),
    ("GPT3-175B, 512 GPUs", 782.0, 825.0),
    ("LLAMA2-7B", 16847.0, 16934.0),
    ("LLAMA2-13B", 8646.0, 8715.0),
    ("LLAMA2-70B", 1707.0, 1728.0),
    ("Nemotron-8B", 12701.0, 12507.0),
    ("Nemotron-22B", 4256.0, 4312.0),
    ("Nemotron-340B", 322.0, 326.0),
    ("LLAMA3-8B", 12036.0, 12273.0),
    ("LLAMA3-70B", 1533.0, 1524.0),
)


@finite_result  # two finite measurements 1e-300 and 1e300 apart differ by more than a float holds
def measurement_repeatability(pairs: tuple[tuple[str, float, float], ...] = REMEASURED_RUNS) -> float:
    """How far apart two single measurements of one configuration can land: twice the root-mean-square of the
    relative difference ``second / first - 1`` over ``pairs`` (a difference two single runs resolve at about 95 %,
    if the differences are roughly normal).

    Two candidates whose estimates are closer than this cannot be ordered by one run of each either, so the
    planner ties them (:mod:`coursekit.planner.ties`): only repeated measurements can.

    >>> round(measurement_repeatability(), 4)    # NeMo 24.07's twelve rows, published twice
    0.0447

    Taught in: lesson 9 (decision workbench).
    """
    import math

    diffs = []
    for i, pair in enumerate(_triples("pairs", pairs, "calibration.pairs", "calibration.pair")):
        first = check_number(f"pairs[{i}][1]", pair[1], gt=0)
        second = check_number(f"pairs[{i}][2]", pair[2], gt=0)
        diffs.append(second / first - 1.0)
    return 2.0 * math.sqrt(sum(d * d for d in diffs) / len(diffs))


#: :func:`measurement_repeatability` of :data:`REMEASURED_RUNS`: 4.47 %.
MEASUREMENT_REPEATABILITY: float = measurement_repeatability()

learner_functions(globals())
