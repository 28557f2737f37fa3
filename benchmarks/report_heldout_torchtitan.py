"""Held-out check on TorchTitan's published H100 runs (PyTorch-native FSDP2, TP, PP, CP); nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_torchtitan.py [--attention-kernel K] [--peak-tflops T]

The rows are the six tables of pytorch/torchtitan docs/performance.md @ 820504e20^ (d4c86e375, 2025-01-30; the
TorchTitan paper's H100 experiments, arXiv:2410.06511): Llama 3.1 8B, 70B and 405B on 8 to 512 H100s, one row per
technique (torch.compile, Float8, Async TP, the pipeline schedule) or context-parallel degree, each with its layout,
local and global batch, activation checkpointing, tokens per GPU-second and peak memory. None is registered and no
constant was fitted on them. The runs used torch 1963fc8 (2024-12-23), torchao eab345c and torchtitan 9dec370.

What the rows state, and how they are planned:
* the layout as published (FSDP degree as DP, TP, PP, CP) and the local batch as micro-batch bound; Llama 3.1's
  8192-token sequence (torchtitan's llama3 configs) except in the context-parallel tables;
* FSDP2: each block resharded after forward, so ZeRO-3 (``zero_stages=(3,)``); with pipeline parallelism torchtitan
  keeps the weights gathered through the step (parallelize_llama.py @ 9dec370: "For PP, do not reshard after forward
  to avoid per-microbatch all-gathers") and the pipeline schedule syncs gradients on the last micro-batch only, so
  those rows are ZeRO-1 (``zero_stages=(1,)``);
* "selective" activation checkpointing is torchtitan's per-op policy, which saves every matmul's and attention's
  output and recomputes only elementwise operations: counted as no recomputation (``recompute_modes=("none",)``), an
  assumption; "full" as full recomputation;
* Float8 rows at ``precision="fp8"`` with per-tensor current scaling (torchao's dynamic tensorwise scaling,
  ``fp8_recipe="current"``); the others at bf16 (torch.compile's own speed-up is not modelled: the bf16 rows without
  it are left out, the compiled ones kept);
* Async TP as the workbench's TP comm-GEMM overlap (the default); the 70B row without it at ``overlap_tp=0``;
* attention: PyTorch's ``scaled_dot_product_attention``, which in that nightly picked its flash backend
  (FlashAttention-2) on H100, not cuDNN (pytorch/pytorch#142132, 2024-12-05: native SDPA at 329 TFLOP/s against
  cuDNN's 631 on an H100, "expected"), and which torchtitan's context parallelism restricts to the flash or
  efficient backends (torchtitan/utils.py @ 9dec370): ``attention_kernel="flash-attention-2"``;
* the device: "H100 ... 96GB HBM2e with 2.4 TB/sec", 8 per host with NVLink, "400 Gb/s per GPU" between hosts, at the
  default 500 W power limit; its footnote says the actual peak lies between the SXM's and the NVL's and is not known.
  Planned at the SXM's 989 TFLOP/s bf16 (an upper bound: estimates lean fast) unless ``--peak-tflops`` says otherwise
  (835 is the H100 NVL's dense bf16 peak).

The pass rule is the registered runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput within
±30 %). The tables fix small global batches to compare techniques, so the best layout is often the published one.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing

from coursekit.planner import plan
from coursekit.planner.validation import compare_published, published_degrees
from coursekit.presets import CLUSTERS, PublishedRun
from coursekit.specs import ATTENTION_KERNELS

SOURCE = (
    "pytorch/torchtitan docs/performance.md @ d4c86e375 (2025-01-30), Table {table}; torch 1963fc8, torchao eab345c, "
    "torchtitan 9dec370"
)
#: The workload options every row shares besides its own: the attention kernel is the module docstring's reading.
KERNEL = "flash-attention-2"

#: (table, label, model, GPUs, global batch, sequence, (dp, tp, pp, cp), local batch, virtual stages, recompute,
#: precision, TP overlap on, tokens per GPU-second, peak memory GiB)
ROWS: tuple[tuple[object, ...], ...] = (
    (1, "8B, FSDP + compile", "llama3-8b", 8, 16, 8192, (8, 1, 1, 1), 2, 1, "none", "bf16", True, 6667, 77.0),
    (1, "8B, FSDP + compile + Float8", "llama3-8b", 8, 16, 8192, (8, 1, 1, 1), 2, 1, "none", "fp8", True, 8532, 76.8),
    (2, "8B, FSDP 8, CP 1, 32K", "llama3-8b", 8, 8, 32768, (8, 1, 1, 1), 1, 1, "full", "fp8", True, 3890, 83.9),
    (2, "8B, FSDP 4, CP 2, 64K", "llama3-8b", 8, 4, 65536, (4, 1, 1, 2), 1, 1, "full", "fp8", True, 2540, 84.2),
    (2, "8B, FSDP 2, CP 4, 128K", "llama3-8b", 8, 2, 131072, (2, 1, 1, 4), 1, 1, "full", "fp8", True, 1071, 84.0),
    (2, "8B, FSDP 1, CP 8, 256K", "llama3-8b", 8, 1, 262144, (1, 1, 1, 8), 1, 1, "full", "fp8", True, 548, 84.5),
    (3, "8B, 128 GPUs, FSDP + compile", "llama3-8b", 128, 256, 8192, (128, 1, 1, 1), 2, 1, "none", "bf16", True, 6514,
     62.0),
    (3, "8B, 128 GPUs, FSDP + compile + Float8", "llama3-8b", 128, 256, 8192, (128, 1, 1, 1), 2, 1, "none", "fp8",
     True, 8380, 61.8),
    (4, "70B, FSDP 32 TP 8", "llama3-70b", 256, 512, 8192, (32, 8, 1, 1), 16, 1, "full", "fp8", False, 829, 71.9),
    (4, "70B, FSDP 32 TP 8, Async TP", "llama3-70b", 256, 512, 8192, (32, 8, 1, 1), 16, 1, "full", "fp8", True, 876,
     67.6),
    (5, "405B, FSDP 8 TP 8 PP 8, 1F1B", "llama3-405b", 512, 256, 8192, (8, 8, 8, 1), 1, 1, "full", "fp8", True, 100,
     82.5),
    (5, "405B, FSDP 8 TP 8 PP 8, interleaved 1F1B", "llama3-405b", 512, 256, 8192, (8, 8, 8, 1), 1, 2, "full", "fp8",
     True, 128, 72.7),
    (6, "405B, FSDP 8 TP 8 PP 8 CP 1, 32K", "llama3-405b", 512, 64, 32768, (8, 8, 8, 1), 1, 1, "full", "fp8", True, 76,
     75.3),
    (6, "405B, FSDP 4 TP 8 PP 8 CP 2, 64K", "llama3-405b", 512, 32, 65536, (4, 8, 8, 2), 1, 1, "full", "fp8", True, 47,
     75.9),
    (6, "405B, FSDP 2 TP 8 PP 8 CP 4, 128K", "llama3-405b", 512, 16, 131072, (2, 8, 8, 4), 1, 1, "full", "fp8", True,
     31, 77.1),
    (6, "405B, FSDP 1 TP 8 PP 8 CP 8, 256K", "llama3-405b", 512, 8, 262144, (1, 8, 8, 8), 1, 1, "full", "fp8", True,
     16, 84.9),
)  # fmt: skip


def held_out_run(row: tuple[object, ...], kernel: str = KERNEL, peak_flops: float = 989e12) -> PublishedRun:
    """One row as a :class:`coursekit.presets.PublishedRun` (the module docstring's reading)."""
    table, label, model, gpus, batch, seq, layout, micro, virtual, recompute, precision, tp_overlap, tokens, _ = row
    assert isinstance(gpus, int) and isinstance(layout, tuple) and isinstance(tokens, int)
    dp, tp, pp, cp = layout
    cluster = replace(
        CLUSTERS["h100-8"],
        name="h100-96gb-500w",
        memory_per_device_gib=96e9 / 2**30,
        memory_bandwidth_bytes_per_s=2.4e12,
        peak_flops=peak_flops,
    )
    options: list[tuple[str, object]] = [
        ("zero_stages", (1,) if pp > 1 else (3,)),
        ("recompute_modes", (recompute,)),
        ("max_micro_batch", micro),
        ("max_virtual_stages", virtual),
        ("precision", precision),
        ("attention_kernel", kernel),
    ]
    if precision == "fp8":
        options.append(("fp8_recipe", "current"))
    if not tp_overlap:
        options.append(("overlap_tp", 0.0))
    return PublishedRun(
        f"TorchTitan {label} (table {table})",
        str(model),
        cluster,
        gpus // 8,
        int(str(batch)),
        int(str(seq)),
        (("dp", dp), ("tp", tp), ("pp", pp), ("cp", cp)),
        "tokens",
        0.0,
        SOURCE.format(table=table),
        measured_tokens_per_gpu_s=float(tokens),
        workload_options=tuple(options),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attention-kernel", choices=ATTENTION_KERNELS, default=KERNEL)
    parser.add_argument("--peak-tflops", type=float, default=989.0, help="the device's bf16 dense peak (default 989)")
    args = parser.parse_args()
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in ROWS:
        run = held_out_run(row, args.attention_kernel, args.peak_tflops * 1e12)
        c = compare_published(run)
        check = plan(run.model_spec(), run.cluster_spec(), run.workload()).check_layout(published_degrees(run))
        memory = "-" if check.candidate is None else f"{check.candidate.memory.total_gib:.1f}"
        print(f"{run.name[11:]:52} {standing(c)}; memory {memory} GiB (measured {row[-1]})")
        piped = "pipeline" if row[6][2] > 1 else "no pipeline"  # type: ignore[index]
        count(passes, totals, ("all", f"table {row[0]}", piped), c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
