"""Audit 29: the registered published runs against their cited sources.

What was checked, every value typed below from the source itself (never read back from the code under test):

1. All 106 runs of ``all_published_runs()``: GPUs, global batch, sequence, TP/PP/CP/EP(/ETP), micro-batch,
   interleaving depth and the measured figure, against NeMo 24.07's performance page (NVIDIA/NeMo 070a0bb1),
   Megatron-Bridge's performance pages (fa0315ae 25.09, c0b9a000 25.11/26.02, 067f987d archive 26.02.01/26.04,
   63b08b39 26.06), DGX Cloud Benchmarking's READMEs (35a9aecc v24.11.1, f041145f v25.05.02, 68eaf7e1 v25.05),
   the Megatron-MoE-ModelZoo Qwen3 page (e8650517), Megatron-LM's README model table (f2e5db40, read off
   images/model_table.png) and MoE guide (8a71e3bc), NeMo's long-sequence page (19fadb67), NeMo 25.02's web page
   and the papers' tables (Llama 3 Table 4, MT-NLG Table 1, BLOOM, DeepSeek-V3). The vendor rows are pinned by
   :func:`test_vendor_rows_transcribe_their_tables`; no figure or layout differed from its source.
2. The workload options against the training configs each run cites (NeMo-Framework-Launcher 24.07, Megatron-Bridge
   recipes and performance scripts, DGX Cloud recipes, NeMo 2.x recipes, the ModelZoo scripts).
   Fixed (branch audit29-mixtral8x22b, with lesson 9's prose still to follow): NeMo 25.02's Mixtral 8x22B row ran
   NeMo v2.2.0's recipe (7192a2c9), whose ``pretrain_performance_optimizations`` builds ``MegatronCommOverlapCallback``
   without ``tp_comm_overlap`` (the callback then leaves it off), and whose B200 config row sets expert TP 1; the run
   was registered with TP comm overlap on and expert TP = TP = 2 (:func:`test_nemo_2502_mixtral_8x22b_runs_its_recipe`).
3. Citations. Fixed: the Mixtral 8x7B run quoted the MoE guide in a wording that came in after the cited commit
   (Megatron-LM 0d389f5e, 2025-02-25); it now quotes the text at 8a71e3bc
   (:func:`test_moe_guide_quote_is_the_cited_text`).
4. The model presets the runs use against the models' public configs (config.json of Llama 2/3, Qwen3 30B-A3B and
   235B-A22B, DeepSeek-V3, Mixtral 8x7B/8x22B, Nemotron-4; the DGX Cloud Grok-1 recipe's config): no difference
   (:func:`test_presets_match_public_configs`).
"""

from __future__ import annotations

from typing import Any

from coursekit.presets import MODELS
from coursekit.published_runs import (
    MEGATRON_CORE_MOE_GUIDE,
    NEMO_2502_B200_RUNS,
    NEMO_LONG_CONTEXT_ROWS,
    all_published_runs,
)

#: name -> (GPUs, global batch, sequence, TP, PP, CP, EP or None, micro-batch, VP, tokens/s per GPU), as each table
#: prints the row (NeMo 24.07 @ 070a0bb1; Megatron-Bridge's DGX-H100/B200/GB200 tables; NeMo 25.02's page).
# fmt: off
VENDOR_ROWS: dict[str, tuple[int, int, int, int, int, int, int | None, int, int, float]] = {
    "NeMo Llama 3 8B, 8K, 8 H100 (FP8)": (8, 128, 8192, 1, 1, 2, None, 1, 1, 12036.0),
    "NeMo Llama 3 70B, 8K, 64 H100 (FP8)": (64, 128, 8192, 4, 4, 2, None, 1, 5, 1533.0),
    "NeMo GPT-3 175B, 2K, 128 H100 (FP8)": (128, 256, 2048, 4, 8, 1, None, 1, 6, 726.0),
    "NeMo GPT-3 175B, 2K, 512 H100 (FP8)": (512, 2048, 2048, 4, 8, 1, None, 2, 6, 782.0),
    "NeMo Llama 2 7B, 4K, 8 H100 (FP8)": (8, 128, 4096, 1, 1, 1, None, 1, 1, 16847.0),
    "NeMo Llama 2 13B, 4K, 16 H100 (FP8)": (16, 128, 4096, 1, 4, 1, None, 1, 10, 8646.0),
    "NeMo Llama 2 70B, 4K, 64 H100 (FP8)": (64, 128, 4096, 4, 4, 1, None, 1, 20, 1707.0),
    "NeMo Nemotron-4 340B, 4K, 128 H100 (FP8)": (128, 32, 4096, 8, 8, 1, None, 1, 12, 322.0),
    "NeMo GPT-3 5B, 2K, 64 H100 (FP8)": (64, 2048, 2048, 1, 1, 1, None, 4, 1, 22521.0),
    "NeMo GPT-3 20B, 2K, 64 H100 (FP8)": (64, 256, 2048, 2, 1, 1, None, 2, 1, 5851.0),
    "NeMo Nemotron-3 8B, 4K, 64 H100 (FP8)": (64, 256, 4096, 2, 1, 1, None, 4, 1, 12701.0),
    "NeMo Nemotron-3 22B, 4K, 64 H100 (FP8)": (64, 256, 4096, 2, 4, 1, None, 2, 10, 4256.0),
    "NeMo LoRA Llama 2 7B, 4K, 8 H100 (FP8)": (8, 32, 4096, 1, 1, 1, None, 1, 1, 25206.0),
    "NeMo LoRA Llama 2 13B, 4K, 8 H100 (FP8)": (8, 32, 4096, 1, 1, 1, None, 1, 1, 14161.0),
    "NeMo LoRA Llama 2 70B, 4K, 8 H100 (FP8)": (8, 32, 4096, 2, 4, 1, None, 1, 1, 2557.0),
    "NeMo SFT Llama 2 7B, 4K, 8 H100 (FP8)": (8, 32, 4096, 1, 1, 1, None, 1, 1, 17120.0),
    "NeMo SFT Llama 2 13B, 4K, 8 H100 (FP8)": (8, 32, 4096, 1, 4, 1, None, 1, 10, 9741.0),
    "NeMo SFT Llama 2 70B, 4K, 16 H100 (FP8)": (16, 32, 4096, 4, 4, 1, None, 1, 20, 1833.0),
    # Megatron-Bridge, DGX-H100 (25.09, 25.11, 26.02, 26.02.01, 26.04)
    "Megatron-Bridge Llama 3 8B, 8K, 8 H100 (FP8, FSDP)": (8, 128, 8192, 1, 1, 1, None, 1, 1, 14451.0),
    "Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8)": (64, 128, 8192, 4, 8, 1, None, 1, 5, 1602.0),
    "Megatron-Bridge Llama 3.1 405B, 8K, 1024 H100 (FP8)": (1024, 512, 8192, 8, 8, 2, None, 1, 8, 292.0),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8)": (16, 512, 4096, 1, 2, 1, 8, 2, 24, 5275.0),
    "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8)": (256, 2048, 4096, 2, 8, 1, 32, 1, 4, 1575.0),
    "Megatron-Bridge DeepSeek-V3 (MoE), 4K, 1024 H100 (FP8)": (1024, 8192, 4096, 2, 8, 1, 64, 1, 4, 1297.0),
    "Megatron-Bridge Llama 3 70B, 8K, 64 H100 (FP8, GBS 256)": (64, 256, 8192, 4, 8, 1, None, 1, 5, 1621.0),
    "Megatron-Bridge Llama 3.1 405B, 8K, 1024 H100 (FP8, GBS 1536)": (1024, 1536, 8192, 8, 8, 2, None, 1, 8, 311.0),
    "Megatron-Bridge Qwen3 235B-A22B (MoE), 4K, 256 H100 (FP8, GBS 8192)": (256, 8192, 4096, 2, 8, 1, 32, 1, 4, 1633.0),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, EP 16)": (16, 1024, 4096, 1, 1, 1, 16, 1, 1, 8901.0),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, GBS 1024, 26.02)": (
        16, 1024, 4096, 1, 2, 1, 8, 1, 12, 5113.0
    ),
    "Megatron-Bridge Qwen3 30B-A3B (MoE), 4K, 16 H100 (FP8, GBS 1024, 26.02.01)": (
        16, 1024, 4096, 1, 2, 1, 8, 1, 12, 9058.0
    ),
    # Megatron-Bridge, DGX-B200 and DGX-GB200 (FP8-CS figures)
    "Megatron-Bridge Llama 3 8B, 8K, 8 B200 (FP8, 25.09)": (8, 128, 8192, 1, 1, 1, None, 2, 1, 29994.0),
    "Megatron-Bridge Llama 3.1 405B, 8K, 128 B200 (FP8, 25.09)": (128, 64, 8192, 4, 8, 2, None, 1, 8, 664.0),
    "Megatron-Bridge Llama 3 8B, 8K, 8 B200 (FP8, 25.11)": (8, 128, 8192, 1, 1, 1, None, 2, 1, 30624.0),
    "Megatron-Bridge Llama 3.1 405B, 8K, 128 B200 (FP8, 25.11)": (128, 64, 8192, 4, 8, 2, None, 1, 8, 661.0),
    "Megatron-Bridge Llama 3 8B, 8K, 8 GB200 (FP8, 25.09)": (8, 128, 8192, 1, 1, 1, None, 2, 1, 31357.0),
    "Megatron-Bridge Llama 3 8B, 8K, 8 GB200 (FP8, 25.11)": (8, 128, 8192, 1, 1, 1, None, 2, 1, 31508.0),
    "Megatron-Bridge Llama 3.1 405B, 8K, 256 GB200 (FP8, 25.11)": (256, 1536, 8192, 4, 16, 1, None, 1, 4, 813.0),
    "Megatron-Bridge Llama 3.1 405B, 8K, 256 GB200 (FP8, 26.06)": (256, 1536, 8192, 4, 16, 1, None, 1, 4, 843.0),
    # NeMo 25.02 (docs.nvidia.com performance summary, DGX-H100 first row)
    "NeMo 25.02 GPT-3 175B, 2K, 512 H100 (FP8)": (512, 2048, 2048, 4, 8, 1, None, 2, 6, 866.0),
}
# fmt: on

#: name -> (GPUs, global batch, sequence, TP, PP, CP, EP or None, micro-batch, VP, step s): DGX Cloud Benchmarking's
#: README layouts and "Training step time" (v24.11.1 @ 35a9aecc, v25.05.02 @ f041145f, v25.05 @ 68eaf7e1).
# fmt: off
DGXC_ROWS: dict[str, tuple[int, int, int, int, int, int, int | None, int, int, float]] = {
    "DGX Cloud Llama 3.1 8B, 8K, 8 H100 (BF16)": (8, 128, 8192, 1, 1, 2, None, 1, 1, 12.91),
    "DGX Cloud Llama 3.1 8B, 8K, 8 H100 (FP8)": (8, 128, 8192, 1, 1, 2, None, 1, 1, 9.67),
    "DGX Cloud Llama 3.1 70B, 8K, 64 H100 (BF16)": (64, 128, 8192, 4, 4, 2, None, 1, 5, 14.72),
    "DGX Cloud Llama 3.1 70B, 8K, 64 H100 (FP8)": (64, 128, 8192, 4, 4, 2, None, 1, 5, 11.01),
    "DGX Cloud Llama 3.1 405B, 8K, 576 H100 (BF16)": (576, 252, 8192, 8, 9, 2, None, 1, 7, 17.20),
    "DGX Cloud Llama 3.1 405B, 8K, 576 H100 (FP8)": (576, 252, 8192, 8, 9, 2, None, 1, 7, 11.24),
    "DGX Cloud GPT-3 175B, 2K, 128 H100 (BF16)": (128, 256, 2048, 4, 8, 1, None, 1, 12, 8.91),
    "DGX Cloud GPT-3 175B, 2K, 128 H100 (FP8)": (128, 256, 2048, 4, 8, 1, None, 1, 12, 5.92),
    "DGX Cloud Nemotron-4 15B, 4K, 16 H100 (BF16)": (16, 64, 4096, 4, 1, 1, None, 4, 1, 2.83),
    "DGX Cloud Nemotron-4 15B, 4K, 16 H100 (FP8)": (16, 64, 4096, 4, 1, 1, None, 4, 1, 2.08),
    "DGX Cloud Nemotron-4 340B, 4K, 128 H100 (BF16)": (128, 32, 4096, 8, 8, 1, None, 1, 12, 4.61),
    "DGX Cloud Nemotron-4 340B, 4K, 128 H100 (FP8)": (128, 32, 4096, 8, 8, 1, None, 1, 12, 3.16),
    "DGX Cloud Grok-1 314B (MoE), 8K, 512 H100 (BF16)": (512, 1024, 8192, 4, 8, 2, 8, 1, 8, 20.83),
    "DGX Cloud Grok-1 314B (MoE), 8K, 512 H100 (FP8)": (512, 1024, 8192, 4, 8, 2, 8, 1, 8, 16.69),
    "DGX Cloud 25.05 Llama 3.1 405B, 8K, 512 H100 (BF16)": (512, 256, 8192, 8, 8, 2, None, 1, 8, 19.810),
    "DGX Cloud 25.05 Llama 3.1 405B, 8K, 512 H100 (FP8)": (512, 256, 8192, 8, 8, 2, None, 1, 8, 13.020),
    "DGX Cloud 25.05 Nemotron-4 15B, 4K, 16 H100 (BF16)": (16, 64, 4096, 2, 1, 1, None, 2, 1, 2.746),
    "DGX Cloud 25.05 Nemotron-4 15B, 4K, 16 H100 (FP8)": (16, 64, 4096, 2, 1, 1, None, 2, 1, 1.988),
    "DGX Cloud 25.05 Nemotron-4 340B, 4K, 256 H100 (BF16)": (256, 64, 4096, 8, 8, 1, None, 1, 12, 4.606),
    "DGX Cloud 25.05 Nemotron-4 340B, 4K, 256 H100 (FP8)": (256, 64, 4096, 8, 8, 1, None, 1, 12, 3.107),
    "DGX Cloud 25.05 Grok-1 314B (MoE), 8K, 512 H100 (BF16)": (512, 1024, 8192, 4, 8, 2, 8, 1, 8, 15.933),
    "DGX Cloud 25.05 Grok-1 314B (MoE), 8K, 512 H100 (FP8)": (512, 1024, 8192, 4, 8, 2, 8, 1, 8, 13.433),
    "DGX Cloud DeepSeek-V3 (MoE), 4K, 1024 H100 (BF16)": (1024, 8192, 4096, 2, 16, 1, 64, 1, 1, 52.04),
}
# fmt: on

#: name -> (GPUs, global batch, sequence, TP, PP, CP, EP or None, micro-batch, VP, TFLOP/s per GPU): Megatron-LM's
#: README model table (f2e5db40; micro-batch and VP not given), its MoE guide (8a71e3bc) and the ModelZoo's Qwen3
#: page (e8650517: "Per GPU TF"; the long-context table's "forced balance" figure) and run_h100_235b.sh.
# fmt: off
TFLOPS_ROWS: dict[str, tuple[int, int, int, int, int, int, int | None, int | None, int | None, float]] = {
    "Megatron-Core GPT 1.7B, 4K, 48 H100": (48, 192, 4096, 1, 1, 1, None, None, None, 408.8),
    "Megatron-Core GPT 7.1B, 4K, 96 H100": (96, 192, 4096, 2, 1, 1, None, None, None, 465.9),
    "Megatron-Core GPT 16B, 4K, 192 H100": (192, 192, 4096, 4, 1, 1, None, None, None, 489.1),
    "Megatron-Core GPT 32B, 4K, 384 H100": (384, 192, 4096, 8, 1, 1, None, None, None, 459.6),
    "Megatron-Core GPT 70B, 4K, 768 H100": (768, 384, 4096, 8, 2, 1, None, None, None, 419.7),
    "Megatron-Core GPT 119B, 4K, 1536 H100": (1536, 768, 4096, 8, 4, 1, None, None, None, 420.5),
    "Megatron-Core GPT 177B, 4K, 2304 H100": (2304, 1152, 4096, 8, 6, 1, None, None, None, 432.8),
    "Megatron-Core GPT 314B, 4K, 3072 H100": (3072, 1536, 4096, 8, 8, 1, None, None, None, 474.4),
    "Megatron-Core GPT 462B, 4K, 6144 H100": (6144, 3072, 4096, 8, 16, 1, None, None, None, 459.9),
    "Megatron-Core Mixtral 8x7B (MoE), 4K, 64 H100": (64, 256, 4096, 1, 4, 1, 8, 1, 8, 468.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32)": (256, 2048, 4096, 2, 8, 1, 32, 1, 4, 245.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32, 1F1B overlap)": (
        256, 2048, 4096, 2, 8, 1, 32, 1, 4, 276.0
    ),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 8, FSDP)": (256, 2048, 4096, 2, 1, 1, 8, 4, 1, 276.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, EP 32, 1F1B overlap, CUDA graphs)": (
        256, 2048, 4096, 2, 8, 1, 32, 1, 4, 320.0
    ),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (all-to-all, EP 8, PP 32)": (
        256, 2048, 4096, 2, 32, 1, 8, 1, 3, 200.0
    ),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 4K, 256 H100 (DeepEP, TP 4, EP 8)": (256, 2048, 4096, 4, 8, 1, 8, 1, 4, 167.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 16K, 256 H100 (CP 1)": (256, 256, 16384, 4, 8, 1, 8, 1, 4, 295.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 32K, 256 H100 (CP 2)": (256, 256, 32768, 4, 8, 2, 8, 1, 4, 335.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 64K, 256 H100 (CP 4)": (256, 256, 65536, 4, 8, 4, 8, 1, 4, 368.0),
    "MoE-ModelZoo Qwen3 235B-A22B (MoE), 128K, 256 H100 (CP 8)": (256, 256, 131072, 4, 8, 8, 8, 1, 4, 389.0),
}
# fmt: on


def _shape(run: Any) -> tuple[int, int, int, int, int, int, int | None, Any, Any]:
    degrees, options = dict(run.degrees), dict(run.workload_options)
    vp = options.get("max_virtual_stages")
    return (
        run.gpus,
        run.global_batch,
        run.seq_len,
        degrees["tp"],
        degrees["pp"],
        degrees["cp"],
        degrees.get("ep"),
        options.get("max_micro_batch"),
        1 if vp is None and options.get("max_micro_batch") is not None else vp,
    )


def test_vendor_rows_transcribe_their_tables() -> None:
    runs = {run.name: run for run in all_published_runs()}
    assert len(runs) == 106
    for name, (*shape, tokens) in VENDOR_ROWS.items():
        run = runs[name]
        assert _shape(run) == tuple(shape), name
        assert run.measured_tokens_per_gpu_s == tokens and run.flop_convention == "tokens", name
    for name, (*shape, step_s) in DGXC_ROWS.items():
        run = runs[name]
        gpus, batch, seq = shape[:3]
        assert _shape(run) == tuple(shape), name
        # the README's own formula, per GPU: tokens a step over the step time and the GPUs
        assert abs(run.measured_tokens_per_gpu_s - batch * seq / (step_s * gpus)) < 1e-9, name
    for name, (*shape, tflops) in TFLOPS_ROWS.items():
        run = runs[name]
        assert _shape(run) == tuple(shape), name
        assert run.measured_tflops_per_gpu == tflops, name
    # every data-parallel degree is what the GPUs leave: GPUs / (TP · PP · CP)
    for name in (*VENDOR_ROWS, *DGXC_ROWS, *TFLOPS_ROWS):
        degrees = dict(runs[name].degrees)
        assert degrees["dp"] * degrees["tp"] * degrees["pp"] * degrees["cp"] == runs[name].gpus, name


def test_nemo_long_sequence_rows_transcribe_the_table() -> None:
    # NeMo docs/source/performance/performance_long_sequence.md @ 19fadb67, "LLAMA2-7B (FP8) - H100": SeqLen (K),
    # # of GPUs, Batch Size, TP, PP, DP, CP, TFLOPS/GPU with CP, TFLOPS/GPU without CP
    table = (
        (4, 4, 1024, 1, 1, 4, 1, 768.0, 768.0),
        (8, 8, 512, 1, 2, 4, 1, 730.0, 730.0),
        (16, 16, 256, 2, 1, 8, 1, 660.0, 660.0),
        (32, 32, 128, 2, 1, 8, 2, 610.0, 595.0),
        (64, 64, 64, 4, 1, 8, 2, 574.0, 534.0),
        (128, 128, 32, 4, 1, 8, 4, 555.0, 424.0),
        (256, 256, 16, 4, 1, 8, 8, 549.0, 392.0),
        (512, 512, 8, 8, 1, 4, 16, 549.0, 104.0),
        (1024, 1024, 4, 8, 1, 4, 32, 536.0, 26.5),
    )
    assert NEMO_LONG_CONTEXT_ROWS == table


def test_nemo_2502_mixtral_8x22b_runs_its_recipe() -> None:
    # NVIDIA/NeMo @ 7192a2c9 (v2.2.0): model_configs_b200.csv "pre_train,mixtral,8x22b,b200,fp8,256.0,65536.0,
    # 2.0,4.0,8.0,4.0,8.0,1.0,14.0,1.0,64.0,1.0" (tp, pp, cp, dp, ep, etp, vp, mbs, gbs): expert TP 1; the recipe's
    # MegatronCommOverlapCallback gets no tp_comm_overlap, and the callback leaves it False
    (run,) = (run for run in NEMO_2502_B200_RUNS if run.model == "mixtral-8x22b")
    degrees, options = dict(run.degrees), dict(run.workload_options)
    assert tuple(degrees[k] for k in ("tp", "pp", "cp", "dp", "ep", "etp")) == (2, 4, 8, 4, 8, 1)
    assert (options["max_virtual_stages"], options["max_micro_batch"], run.global_batch) == (14, 1, 64)
    assert options["overlap_tp"] == 0.0 and run.workload().overlap("tp") == 0.0
    assert "model_configs_b200.csv" in run.source and "7192a2c944c48ab253f3f711ee52fe2dc986a3bb" in run.source
    # the table's dense rows at TP > 1 ran recipes that pass tp_comm_overlap=True (gpt3_175b, llama3_70b,
    # llama31_405b, nemotron4_340b pretrain_performance_optimizations @ 7192a2c9): they keep the overlap on
    for other in NEMO_2502_B200_RUNS:
        if other.model != "mixtral-8x22b" and dict(other.degrees)["tp"] > 1:
            assert dict(other.workload_options)["overlap_tp"] > 0.0, other.name
            assert "etp" not in dict(other.degrees), other.name


def test_moe_guide_quote_is_the_cited_text() -> None:
    # Megatron-LM megatron/core/transformer/moe/README.md @ 8a71e3bc, line 3: "This boosts Mixtral 8X7B bf16 training
    # to achieve **468 TFLOPS** as of MCore v0.9."; the "remarkable performance" wording is not in that commit
    assert "This boosts Mixtral 8X7B bf16 training to achieve 468 TFLOPS as of MCore v0.9" in MEGATRON_CORE_MOE_GUIDE
    assert "8a71e3bc7ddf27b83f981b9751a115e48f31c5f0" in MEGATRON_CORE_MOE_GUIDE
    assert "remarkable" not in MEGATRON_CORE_MOE_GUIDE
    assert "Reference Best Parallel Mapping" in MEGATRON_CORE_MOE_GUIDE


def test_presets_match_public_configs() -> None:
    # (layers, hidden, attention heads, KV heads, FFN or MoE-FFN width, vocabulary, experts, top-k), from each model's
    # config.json (num_hidden_layers, hidden_size, num_attention_heads, num_key_value_heads, intermediate_size or
    # moe_intermediate_size, vocab_size, num_experts / n_routed_experts / num_local_experts, num_experts_per_tok)
    configs: dict[str, tuple[int, int, int, int, int, int, int, int]] = {
        "llama2-7b": (32, 4096, 32, 32, 11008, 32000, 0, 0),
        "llama2-13b": (40, 5120, 40, 40, 13824, 32000, 0, 0),
        "llama2-70b": (80, 8192, 64, 8, 28672, 32000, 0, 0),
        "llama3-8b": (32, 4096, 32, 8, 14336, 128256, 0, 0),
        "llama3-70b": (80, 8192, 64, 8, 28672, 128256, 0, 0),
        "llama3-405b": (126, 16384, 128, 8, 53248, 128256, 0, 0),
        "qwen3-30b-a3b": (48, 2048, 32, 4, 768, 151936, 128, 8),
        "qwen3-235b-a22b": (94, 4096, 64, 4, 1536, 151936, 128, 8),
        "deepseek-v3": (61, 7168, 128, 128, 2048, 129280, 256, 8),
        "mixtral-8x7b": (32, 4096, 32, 8, 14336, 32000, 8, 2),
        "mixtral-8x22b": (56, 6144, 48, 8, 16384, 32768, 8, 2),
        "nemotron4-15b": (32, 6144, 48, 8, 24576, 256000, 0, 0),
        "nemotron4-340b": (96, 18432, 96, 8, 73728, 256000, 0, 0),
        # DGX Cloud's grok1_314b.yaml: 64 layers, 6144, 48 heads, 8 query groups, ffn 32768, Llama 3 tokenizer
        "grok1-314b": (64, 6144, 48, 8, 32768, 128256, 8, 2),
    }
    for name, expected in configs.items():
        m = MODELS[name]
        width = m.moe_ffn_hidden if m.is_moe and m.moe_ffn_hidden else m.ffn_hidden
        got = (m.layers, m.hidden, m.heads, m.kv_heads, width, m.vocab, m.num_experts or 0, m.top_k or 0)
        assert got == expected, name
    # DeepSeek-V3's MLA and routing (config.json: q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim,
    # v_head_dim, first_k_dense_replace, n_shared_experts, intermediate_size of the dense layers)
    ds = MODELS["deepseek-v3"]
    mla = (ds.q_lora_rank, ds.kv_lora_rank, ds.qk_rope_head_dim, ds.qk_nope_head_dim, ds.v_head_dim)
    assert mla == (1536, 512, 64, 128, 128)
    assert (ds.first_k_dense, ds.shared_experts, ds.ffn_hidden) == (3, 1, 18432)
