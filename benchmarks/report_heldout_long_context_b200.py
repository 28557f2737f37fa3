"""Held-out check at long context on Blackwell: NeMo's Llama 3 8B long-sequence table on DGX-B200; nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_long_context_b200.py [--printed-gpus]

None of these rows is registered (``coursekit.published_runs``) and no constant of the estimate was fitted on them.
The table (NVIDIA NeMo docs/source/performance/performance_long_sequence.md @ a2c4cc8ee64e, "LLAMA3-8B (FP8) -
B200", the NeMo 25.04.rc2 container) trains Llama 3 8B at 8K to 1024K tokens, one GPU per 1K tokens of sequence and
4M tokens a step, each length at its fastest layout with context parallelism (TP, PP, DP, CP given) and, in a
second column, at "the most performant model- and data-parallel configurations without CP" (that layout not given).
The registered H100 rows of the same page (Llama 2 7B, NeMo 24.03) are the model's only long-context calibration;
this is a different model, GPU and release.

The table's GPU column does not match its degrees: on every row TP x PP x DP x CP is a quarter of the GPUs printed
(8K: 1 x 1 x 2 x 1 on "8" GPUs), while the H100 table of the same page fills its GPUs exactly. The printed GPU counts
and global batches are the H100 table's, row for row, and the DP column is the one consistent with the batch (at
512K, 8 sequences cannot feed DP 16); a B200 holds 2.4 times an H100's memory. So the rows are planned on TP x PP x
DP x CP GPUs, one GPU per 4K tokens (2 and 4 GPUs of one node at 8K and 16K): an assumption, printed with each row.
``--printed-gpus`` plans the other reading instead (the printed GPU counts, DP widened to fill them), on the rows
whose batch allows it (8K to 256K).

Each row is planned with what the table states (GPUs, global batch, sequence, TP, PP, DP, CP, FP8) and, for what it
does not, NeMo 25.02's B200 performance rows' settings (the nearest release the project registers: the distributed
optimizer, bf16 gradients, TP comm overlap), micro-batch 1 (4M tokens over the data-parallel ranks leave one sequence
a rank at every length) and no interleaving; recomputation is left to the search. The table's TFLOP/s are in NeMo's
model-FLOP count of that release, which counts every query-key pair (nemo/utils/flops_formulas.py ``llama3`` @
8961917bb6, the same terms as Megatron-Core r0.8's count: :func:`coursekit.planner.megatron_core_model_flops_per_step`
with ``release="r0.8"``), so they are divided by it to get tokens per GPU-second. The pass rule is the registered
runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput within ±30 %). The second block
compares context parallelism's speed-up: measured (the table's last column) and estimated (the fastest accepted
layout with CP limited to 1, over the published CP layout's estimate). Takes a few seconds on 2 cores.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import standing

from coursekit.planner import megatron_core_model_flops_per_step
from coursekit.planner.search import plan
from coursekit.planner.validation import compare_published
from coursekit.presets import CLUSTERS, MODELS, PublishedRun
from coursekit.specs import TP_COMM_OVERLAP_ON

SOURCE = (
    "NVIDIA NeMo, “Long Sequence Performance”, LLAMA3-8B (FP8) - B200 (NeMo 25.04.rc2, DGX-B200), "
    "github.com/NVIDIA/NeMo docs/source/performance/performance_long_sequence.md @ "
    "a2c4cc8ee64eb98d83684fc616dd0225c25bdfa1"
)
FLOPS_SOURCE = "TFLOP/s -> tokens/s: NVIDIA NeMo nemo/utils/flops_formulas.py llama3 @ 8961917bb6"

#: (sequence in K tokens, GPUs, global batch, TFLOP/s per GPU without CP, TP, PP, DP, CP, TFLOP/s per GPU with CP),
#: typed from the table (the GPU column as printed; the rows use TP x PP x DP x CP GPUs, see the module docstring);
#: the 1024K row has no CP-free figure (the table's footnote: it does not fit without CP).
ROWS: tuple[tuple[int, int, int, float | None, int, int, int, int, float], ...] = (
    (8, 8, 512, 1671.0, 1, 1, 2, 1, 1671.0),
    (16, 16, 256, 1717.0, 1, 1, 4, 1, 1717.0),
    (32, 32, 128, 1549.0, 1, 1, 4, 2, 1624.0),
    (64, 64, 64, 1481.0, 1, 1, 4, 4, 1600.0),
    (128, 128, 32, 1438.0, 2, 1, 4, 4, 1588.0),
    (256, 256, 16, 1162.0, 4, 1, 4, 4, 1590.0),
    (512, 512, 8, 607.0, 4, 1, 4, 8, 1619.0),
    (1024, 1024, 4, None, 4, 1, 4, 16, 1608.0),
)


def flops_per_token(seq_len: int) -> float:
    """NeMo's model FLOPs per token of Llama 3 8B at ``seq_len`` tokens (every query-key pair counted)."""
    return megatron_core_model_flops_per_step(MODELS["llama3-8b"], 1, seq_len, release="r0.8") / seq_len


def run_of(
    row: tuple[int, int, int, float | None, int, int, int, int, float], printed_gpus: bool = False
) -> PublishedRun:
    """One table row as a published run, planned as the module docstring states (``printed_gpus``: on the GPU
    column's count, DP widened to fill it)."""
    k, printed, batch, _, tp, pp, dp, cp, tflops = row
    seq = k * 1024
    if printed_gpus:
        dp = printed // (tp * pp * cp)
    gpus = tp * pp * dp * cp
    node = CLUSTERS["b200-8"]
    cluster = dataclasses.replace(node, gpus_per_node=min(gpus, node.gpus_per_node))
    return PublishedRun(
        f"Llama 3 8B, {k}K, {gpus} B200 ({'as printed' if printed_gpus else 'assumed'}; TP {tp}, CP {cp}, DP {dp})",
        "llama3-8b",
        cluster,
        gpus // cluster.gpus_per_node,
        batch,
        seq,
        (("tp", tp), ("cp", cp), ("pp", pp), ("dp", dp)),
        "tokens",
        0.0,
        f"{SOURCE}, row {k}K ({tflops:g} TFLOP/s); {FLOPS_SOURCE}",
        measured_tokens_per_gpu_s=tflops * 1e12 / flops_per_token(seq),
        workload_options=(
            ("precision", "fp8"),
            ("recipe", "zero-fp16-adam"),
            ("zero_stages", (1,)),
            ("overlap_tp", TP_COMM_OVERLAP_ON),
            ("max_micro_batch", 1),
            ("max_virtual_stages", 1),
        ),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--printed-gpus", action="store_true", help="plan on the table's GPU column (8K to 256K)")
    args = parser.parse_args()
    start = time.perf_counter()
    passed = 0
    speedups = []
    rows = [r for r in ROWS if r[1] // (r[4] * r[5] * r[7]) <= r[2]] if args.printed_gpus else list(ROWS)
    for row in rows:
        run = run_of(row, args.printed_gpus)
        c = compare_published(run)
        passed += c.passes
        print(f"{run.name}: {standing(c)}")
        print(f"    published layout as estimated: {c.layout}")
        print(f"    fastest estimate:              {c.best_layout}")
        without = row[3]
        if without is not None and c.estimated_over_published is not None:
            workload = run.workload()
            with_cp = plan(run.model_spec(), run.cluster_spec(), workload).check_layout(c.layout).candidate
            free = plan(run.model_spec(), run.cluster_spec(), dataclasses.replace(workload, max_cp=1))
            best = next(iter(free.accepted(1)), None)
            estimated = None if best is None or best.step_s is None else best.step_s / with_cp.step_s
            speedups.append((row[0], row[8] / without, estimated, "" if best is None else best.label()))
    print(f"\nall: {passed} of {len(rows)} pass")
    print("\nCP's speed-up over the fastest layout without it (measured: the table; estimated: the workbench)")
    for k, measured, estimated, layout in speedups:
        shown = "no CP-free layout fits" if estimated is None else f"{estimated:.2f}x ({layout})"
        print(f"  {k:5d}K  measured {measured:.2f}x  estimated {shown}")
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
