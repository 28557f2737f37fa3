"""Published H100 runs from vendor benchmark tables, and which runs fit a constant and which only check one.

:data:`PUBLISHED_RUNS_2024` adds NVIDIA's own measured configurations to the paper runs of
:data:`coursekit.presets.PUBLISHED_RUNS`. Every run is marked in :data:`RUN_ROLES`: ``"fit"`` runs set a
constant of the estimate and are never used to check it; ``"validation"`` runs only check it. Today the only
fitted constant is the efficiency ceiling, fitted on Megatron-LM's Table 1
(:data:`coursekit.presets.MEGATRON_TABLE1`); every published run here is validation.

Taught in: lesson 9 (decision workbench).
"""

from __future__ import annotations

from .i18n import Text
from .presets import MEGATRON_TABLE1, PUBLISHED_RUNS, PublishedRun

__all__ = ["NEMO_2407_SOURCE", "PUBLISHED_RUNS_2024", "RUN_ROLES", "all_published_runs"]

NEMO_2407_SOURCE: str = (
    "NVIDIA NeMo, “Performance Summary” (NeMo 24.07, DGX-H100, FP8 pre-training), "
    "github.com/NVIDIA/NeMo docs/source/performance/performance_summary.md"
)

#: NVIDIA's measured H100 configurations (NeMo 24.07, FP8, per-tensor current scaling), tokens per GPU-second.
PUBLISHED_RUNS_2024: tuple[PublishedRun, ...] = (
    PublishedRun(
        "NeMo Llama 3 8B, 8K, 8 H100 (FP8)",
        "llama3-8b",
        "h100-8",
        1,
        128,
        8192,
        (("tp", 1), ("cp", 2), ("pp", 1), ("dp", 4)),
        "tokens",
        0.0,
        NEMO_2407_SOURCE + ", row LLAMA3-8B",
        measured_tokens_per_gpu_s=12036.0,
        workload_options=(("precision", "fp8"), ("max_micro_batch", 1)),
        note=Text(
            zh="8 张 H100，TP 1、PP 1、CP 2，微批次 1，每 GPU 每秒 12036 tokens（FP8）",
            en="8 H100s, TP 1, PP 1, CP 2, micro-batch 1: 12036 tokens per GPU-second (FP8)",
        ),
    ),
    PublishedRun(
        "NeMo Llama 3 70B, 8K, 64 H100 (FP8)",
        "llama3-70b",
        "h100-8",
        8,
        128,
        8192,
        (("tp", 4), ("cp", 2), ("pp", 4), ("dp", 2)),
        "tokens",
        0.0,
        NEMO_2407_SOURCE + ", row LLAMA3-70B",
        measured_tokens_per_gpu_s=1533.0,
        workload_options=(("precision", "fp8"), ("max_micro_batch", 1), ("max_virtual_stages", 5)),
        note=Text(
            zh="64 张 H100，TP 4、PP 4、CP 2、VP 5，微批次 1，每 GPU 每秒 1533 tokens（FP8）",
            en="64 H100s, TP 4, PP 4, CP 2, VP 5, micro-batch 1: 1533 tokens per GPU-second (FP8)",
        ),
    ),
    PublishedRun(
        "NeMo GPT-3 175B, 2K, 128 H100 (FP8)",
        "gpt3-175b",
        "h100-8",
        16,
        256,
        2048,
        (("tp", 4), ("cp", 1), ("pp", 8), ("dp", 4)),
        "tokens",
        0.0,
        NEMO_2407_SOURCE + ", row GPT3-175B (128 GPUs)",
        measured_tokens_per_gpu_s=726.0,
        workload_options=(("precision", "fp8"), ("max_micro_batch", 1), ("max_virtual_stages", 6)),
        note=Text(
            zh="128 张 H100，TP 4、PP 8、VP 6，微批次 1，每 GPU 每秒 726 tokens（FP8）",
            en="128 H100s, TP 4, PP 8, VP 6, micro-batch 1: 726 tokens per GPU-second (FP8)",
        ),
    ),
)

#: Every run's role: the calibration rows fit; the published runs validate. No run is both.
RUN_ROLES: dict[str, str] = {
    **{f"Megatron-LM Table 1, {run.name}": "fit" for run in MEGATRON_TABLE1},
    **{run.name: "validation" for run in (*PUBLISHED_RUNS, *PUBLISHED_RUNS_2024)},
}


def all_published_runs() -> tuple[PublishedRun, ...]:
    """The paper runs and the vendor-table runs, every one a validation run."""
    return (*PUBLISHED_RUNS, *PUBLISHED_RUNS_2024)
