"""Held-out check: NVIDIA's MoE tuning pages on GB200 and GB300 (Qwen3 235B-A22B, DeepSeek-V3); nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_zoo_blackwell.py

None of these rows is registered (``coursekit.published_runs`` holds the same page's H100 rows) and no constant of the
estimate was fitted on them. They are typed from github.com/yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md
@ 020b8136b3bc6f47e4143849f54e400cf0f71e8a, the "GB200" and "GB300" tables and their commands: Qwen3 235B-A22B,
HybridEP over the rack's NVLink domain, forced load balancing (the workbench routes evenly), sequence, nodes of 4
GPUs, TP, PP, VP, CP, EP, micro-batch, global batch, precision, and TFLOP/s per GPU in Megatron-Core's count (the same
page's H100 rows: the 2025 count). Each is planned as the registered H100 rows of that page are
(``MOE_ZOO_COMMON``: one edge layer on the first and the last stage; the BF16 row keeps fp32 main gradients, the MXFP8
rows the precision-aware optimizer's bf16 ones), ZeRO-1 (the distributed optimizer), expert TP 1, the published
micro-batch and interleaving depth as the search's upper bounds, A2A_OVERLAP as the command sets it, and the recompute
the command states (none when it states none). CUDA graphs are not modelled.

The GB200 MXFP8 row's command offloads expert_fc1 and moe_act activations to the host ("activation offloading
required"); the workbench does not model offloading, so that row is tallied apart as well ("without offloading"
leaves it out).

A second group is Megatron-LM's "Optimizing DeepSeek-V3 Training Performance on NVIDIA GB200 NVL72"
(docs/discussions/deepseek-v3-gb200-optimization/, deepseek-v3-gb200-optimization.md and the reproduce guide, read @
1d9edcf8c7c16c66ca6acc3801265b21588116a3 and 32ea0afdbf6bd87380a8cb0b9eafb4eda18a9fd9): DeepSeek-V3 without its MTP
module (the guide's command sets none), MXFP8, 256 GB200s, TP 1, PP 8, VP 4, EP 32, micro-batch 1, global batch 2048,
sequence 4096, the layout "Et|(tt|)*30L" (the embedding takes one layer's slot on the first stage, the loss two on the
last), BF16 optimizer moments with fp32 main gradients and weights (the ``deepseek-v3-fp8`` recipe), MLA's up
projections recomputed (the dense layers' MLP recompute, "mlp", is not an option here: left out). Its two figures:
the baseline, 494 TFLOP/s per GPU (the all-to-all dispatcher, no CUDA graphs), and the tuned run, 970 TFLOP/s
(HybridEP, CUDA graphs, fused kernels and CPU-side work the workbench does not model).

The pass rule is the registered runs' (accepted; tie group 1 or top 10; the best step within 1.25x; throughput within
±30 %). Takes a few seconds on 2 cores.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing

from coursekit.planner.validation import compare_published
from coursekit.presets import CLUSTERS, MODELS, PublishedRun
from coursekit.published_runs import EP_A2A_OVERLAP_ON, FP32_GRADS, MOE_ZOO_NORM_ACT

SOURCE = (
    "Megatron-MoE-ModelZoo (github.com/yanring/Megatron-MoE-ModelZoo) best_practice/qwen3/readme.md @ "
    "020b8136b3bc6f47e4143849f54e400cf0f71e8a, {system} table"
)
SYSTEMS = {"GB200": "gb200-nvl72", "GB300": "gb300-nvl72"}
#: (system, sequence, nodes, precision, TP, PP, VP, CP, EP, MBS, GBS, A2A overlap, selective norm+act recompute,
#: activation offloading, TFLOP/s per GPU)
ROWS: tuple[tuple[str, int, int, str, int, int, int, int, int, int, int, bool, bool, bool, float], ...] = (
    ("GB200", 4096, 64, "bf16", 1, 8, 1, 1, 8, 1, 8192, False, False, False, 750.0),
    ("GB200", 4096, 64, "mxfp8", 1, 4, 6, 1, 64, 3, 3072, True, True, True, 919.0),
    ("GB300", 4096, 64, "mxfp8", 1, 4, 1, 1, 32, 2, 8192, False, False, False, 974.0),
    ("GB300", 131072, 32, "mxfp8", 4, 4, 12, 4, 32, 1, 1024, False, True, False, 1150.0),
)


def held_out_run(row: tuple[object, ...]) -> PublishedRun:
    """One row as a :class:`coursekit.presets.PublishedRun`, with the options the module docstring lists."""
    system, seq, nodes, precision, tp, pp, vp, cp, ep, micro, batch, a2a, norm_act, _offload, tflops = row
    assert isinstance(nodes, int) and isinstance(tp, int) and isinstance(pp, int) and isinstance(cp, int)
    assert isinstance(seq, int) and isinstance(batch, int) and isinstance(tflops, float)
    cluster = SYSTEMS[str(system)]
    gpus = nodes * CLUSTERS[cluster].gpus_per_node
    degrees = {"tp": tp, "cp": cp, "pp": pp, "dp": gpus // (tp * pp * cp), "ep": ep, "etp": 1}
    options: list[tuple[str, object]] = [
        ("zero_stages", (1,)),
        ("max_micro_batch", micro),
        ("max_virtual_stages", vp),
        ("pipeline_edge_layers", 1),
    ]
    if precision == "bf16":
        options += [("precision", "bf16"), FP32_GRADS]
    else:
        options += [("precision", "fp8"), ("fp8_recipe", "mxfp8"), ("recipe", "zero-fp16-adam")]
    options += list(MOE_ZOO_NORM_ACT) if norm_act else [("recompute_modes", ("none",))]
    if a2a:
        options.append(("overlap_ep", EP_A2A_OVERLAP_ON))
    return PublishedRun(
        f"MoE-ModelZoo Qwen3 235B-A22B (MoE), {seq // 1024}K, {gpus} {system} ({precision.upper()}, EP {ep})",
        "qwen3-235b-a22b",
        cluster,
        nodes,
        batch,
        seq,
        tuple(degrees.items()),
        "megatron-core-2025",
        tflops,
        SOURCE.format(system=system),
        workload_options=tuple(options),
    )


DEEPSEEK_SOURCE = (
    "NVIDIA/Megatron-LM docs/discussions/deepseek-v3-gb200-optimization/deepseek-v3-gb200-optimization.md @ "
    "1d9edcf8c7c16c66ca6acc3801265b21588116a3 (§1 baseline 494 TFLOPS/GPU; final 970 TFLOPS/GPU) and "
    "deepseek-v3-gb200-reproduce-guide.md @ 32ea0afdbf6bd87380a8cb0b9eafb4eda18a9fd9 (the launch command)"
)
#: (label, TFLOP/s per GPU)
DEEPSEEK_ROWS: tuple[tuple[str, float], ...] = (("baseline, all-to-all", 494.0), ("tuned", 970.0))


def deepseek_run(row: tuple[str, float]) -> PublishedRun:
    """One of the DeepSeek-V3 GB200 guide's two figures, with the options the module docstring lists."""
    label, tflops = row
    spec = replace(MODELS["deepseek-v3"], name="deepseek-v3 (no MTP)", mtp_layers=0)
    degrees = {"tp": 1, "cp": 1, "pp": 8, "dp": 32, "ep": 32, "etp": 1}
    options: tuple[tuple[str, object], ...] = (
        ("precision", "fp8"),
        ("fp8_recipe", "mxfp8"),
        ("recipe", "deepseek-v3-fp8"),
        ("zero_stages", (1,)),
        ("max_micro_batch", 1),
        ("max_virtual_stages", 4),
        ("recompute_modes", ("none",)),
        ("recompute_modules", ("mla_up_proj",)),
        ("pipeline_edge_layers", 1),
        ("pipeline_last_edge_layers", 2),
    )
    return PublishedRun(
        f"Megatron-Core DeepSeek-V3 (MoE), 4K, 256 GB200 (MXFP8, {label})",
        spec,
        "gb200-nvl72",
        64,
        2048,
        4096,
        tuple(degrees.items()),
        "megatron-core-2025",
        tflops,
        DEEPSEEK_SOURCE,
        workload_options=options,
    )


def main() -> int:
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in ROWS:
        c = compare_published(held_out_run(row))
        offload = bool(row[13])
        tag = " (activation offloading, not modelled)" if offload else ""
        print(f"{row[0]:5} {row[1] // 1024:4}K {str(row[3]).upper():5} EP {row[8]:<3} {standing(c)}{tag}")
        if c.estimated_over_published is not None:
            print(f"{'':20} fastest with the layout: {c.layout}")
        groups = ("all", f"system {row[0]}") + (() if offload else ("without offloading",))
        count(passes, totals, groups, c.passes)
    for drow in DEEPSEEK_ROWS:
        c = compare_published(deepseek_run(drow))
        print(f"GB200 DeepSeek-V3 {drow[0]:20} {standing(c)}")
        count(passes, totals, ("all", "system GB200", "without offloading", "DeepSeek-V3 guide"), c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
