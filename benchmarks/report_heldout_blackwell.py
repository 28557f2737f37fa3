"""Held-out check on Blackwell: Megatron-Bridge's MXFP8 rows, planned as published; nothing is asserted.

    .venv/bin/python benchmarks/report_heldout_blackwell.py [--recipe mxfp8|current] [--ep-overlap X]

None of these rows is registered (``coursekit.published_runs``) and no constant of the estimate was fitted on them:
they check the model on GPUs and an FP8 recipe it was not built on. The rows are typed from Megatron-Bridge's
performance pages at 067f987df03b8355b03192d88d70f1709fedf51a: docs/performance-summary.md (the 26.08 container) and
docs/performance-summary-archive.md (26.06 and 26.04), every MXFP8 pre-training row on DGX-B200, B300, GB200 and GB300
of a model the presets hold (Llama 3 70B and 3.1 405B, DeepSeek-V3, Qwen3 30B-A3B and 235B-A22B), at the table's
GPUs, global batch, micro-batch, sequence, TP, PP, CP, VP and EP (expert TP 1, as the MoE recipes set). Each is
planned with what the registered Megatron-Bridge rows state for the same recipes: bf16 gradients (2 + 2 + 12 bytes
per parameter), the distributed optimizer (ZeRO-1), the published micro-batch and interleaving depth as the search's
upper bounds, the router's probabilities in the experts' activation; the dense Llama rows with TP comm overlap and
one edge layer on the first and last stage. What the tables' configs set beyond that (CUDA graphs, HybridEP over the
rack's NVLink, hand-written pipeline layouts, recomputed modules) is not stated here, so this is the workbench as a
reader who copies a table row would use it. The pass rule is the registered runs' (accepted; tie group 1 or top 10;
the best step within 1.25x; throughput within ±30 %). Takes about a second on 2 cores.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from heldout import count, print_tally, standing

from coursekit.planner.validation import compare_published
from coursekit.presets import CLUSTERS, PublishedRun
from coursekit.presets import MODELS as PRESET_MODELS
from coursekit.specs import FP8_RECIPES, TP_COMM_OVERLAP_ON

SOURCE = (
    "NVIDIA NeMo Megatron-Bridge, “Performance”, {release} NeMo container, {system}, MXFP8, "
    "github.com/NVIDIA-NeMo/Megatron-Bridge docs/{page} @ 067f987df03b8355b03192d88d70f1709fedf51a"
)
SYSTEMS = {"GB300": "gb300-nvl72", "GB200": "gb200-nvl72", "B300": "b300-8", "B200": "b200-8"}
MODELS = {
    "Llama 3 70B": "llama3-70b",
    "Llama 3.1 405B": "llama3-405b",
    "DeepSeek-V3": "deepseek-v3",
    "Qwen3 30B-A3B": "qwen3-30b-a3b",
    "Qwen3 235B-A22B": "qwen3-235b-a22b",
}
#: (release, system, model, GPUs, global batch, micro-batch, sequence, TP, PP, CP, VP, EP, tokens/s/GPU); VP 1 where
#: the table prints n/a, EP 0 for a dense model.
ROWS: tuple[tuple[str, str, str, int, int, int, int, int, int, int, int, int, float], ...] = (
    ("26.08", "GB300", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 2, 1, 8, 32, 6288),
    ("26.08", "GB200", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 4, 1, 4, 64, 4912),
    ("26.08", "GB300", "Qwen3 30B-A3B", 8, 512, 8, 4096, 1, 1, 1, 1, 8, 44544),
    ("26.08", "GB200", "Qwen3 30B-A3B", 8, 512, 4, 4096, 1, 1, 1, 1, 8, 39936),
    ("26.08", "GB300", "Qwen3 235B-A22B", 256, 8192, 2, 4096, 1, 4, 1, 12, 32, 8816),
    ("26.08", "GB200", "Qwen3 235B-A22B", 256, 8192, 1, 4096, 1, 8, 1, 3, 32, 7280),
    ("26.06", "GB300", "Llama 3.1 405B", 256, 1536, 1, 8192, 2, 8, 2, 4, 0, 952),
    ("26.06", "GB200", "Llama 3.1 405B", 256, 1536, 1, 8192, 4, 16, 1, 8, 0, 783),
    ("26.06", "GB300", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 2, 1, 8, 32, 6338),
    ("26.06", "GB200", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 4, 1, 4, 64, 4969),
    ("26.06", "B300", "DeepSeek-V3", 256, 4096, 2, 4096, 1, 8, 1, 1, 8, 3541),
    ("26.06", "GB300", "Qwen3 30B-A3B", 8, 512, 8, 4096, 1, 1, 1, 1, 8, 45275),
    ("26.06", "GB200", "Qwen3 30B-A3B", 8, 512, 4, 4096, 1, 1, 1, 1, 8, 40706),
    ("26.06", "B300", "Qwen3 30B-A3B", 8, 512, 8, 4096, 1, 1, 1, 1, 8, 40769),
    ("26.06", "GB300", "Qwen3 235B-A22B", 256, 8192, 2, 4096, 1, 4, 1, 12, 32, 9015),
    ("26.06", "GB200", "Qwen3 235B-A22B", 256, 8192, 1, 4096, 1, 8, 1, 3, 32, 7376),
    ("26.04", "GB300", "Llama 3 70B", 64, 256, 1, 8192, 1, 4, 1, 5, 0, 4742),
    ("26.04", "GB200", "Llama 3 70B", 64, 256, 1, 8192, 2, 4, 1, 5, 0, 3828),
    ("26.04", "GB300", "Llama 3.1 405B", 256, 1536, 1, 8192, 2, 8, 2, 4, 0, 968),
    ("26.04", "GB200", "Llama 3.1 405B", 256, 1536, 1, 8192, 4, 16, 1, 8, 0, 793),
    ("26.04", "GB300", "DeepSeek-V3", 256, 4096, 2, 4096, 1, 2, 1, 8, 32, 4965),
    ("26.04", "GB200", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 4, 1, 4, 64, 4193),
    ("26.04", "B300", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 16, 1, 1, 8, 3131),
    ("26.04", "B200", "DeepSeek-V3", 256, 4096, 1, 4096, 1, 16, 1, 1, 8, 2815),
    ("26.04", "GB300", "Qwen3 30B-A3B", 8, 512, 8, 4096, 1, 1, 1, 1, 8, 31470),
    ("26.04", "GB200", "Qwen3 30B-A3B", 8, 512, 4, 4096, 1, 1, 1, 1, 8, 26032),
    ("26.04", "B300", "Qwen3 30B-A3B", 8, 512, 8, 4096, 1, 1, 1, 1, 8, 30553),
    ("26.04", "B200", "Qwen3 30B-A3B", 8, 512, 4, 4096, 1, 1, 1, 1, 8, 26859),
    ("26.04", "GB300", "Qwen3 235B-A22B", 256, 8192, 2, 4096, 1, 4, 1, 12, 32, 6994),
    ("26.04", "GB200", "Qwen3 235B-A22B", 256, 8192, 1, 4096, 1, 8, 1, 3, 32, 5672),
    ("26.04", "B300", "Qwen3 235B-A22B", 256, 8192, 2, 4096, 1, 8, 1, 1, 8, 4865),
)


def held_out_run(row: tuple[object, ...], recipe: str = "mxfp8", ep_overlap: float | None = None) -> PublishedRun:
    """One row as a :class:`coursekit.presets.PublishedRun`, with the options the module docstring lists."""
    release, system, model, gpus, batch, micro, seq, tp, pp, cp, vp, ep, tokens = row
    assert isinstance(gpus, int) and isinstance(ep, int) and isinstance(tokens, (int, float))
    cluster = SYSTEMS[str(system)]
    degrees = {"tp": tp, "cp": cp, "pp": pp, "dp": gpus // (int(tp) * int(pp) * int(cp))}  # type: ignore[call-overload]
    options: list[tuple[str, object]] = [
        ("precision", "fp8"),
        ("fp8_recipe", recipe),
        ("recipe", "zero-fp16-adam"),
        ("zero_stages", (1,)),
        ("max_micro_batch", micro),
        ("max_virtual_stages", vp),
    ]
    if PRESET_MODELS[MODELS[str(model)]].is_moe:  # an MoE setting: plan() refuses it on a dense model
        options.append(("moe_probs_in_experts", True))
    if ep:
        degrees.update(ep=ep, etp=1)
        if ep_overlap is not None:
            options.append(("overlap_ep", ep_overlap))
    else:
        options += [("overlap_tp", TP_COMM_OVERLAP_ON), ("pipeline_edge_layers", 1)]
    page = "performance-summary.md" if release == "26.08" else "performance-summary-archive.md"
    return PublishedRun(
        f"Megatron-Bridge {model}, {seq // 1024}K, {gpus} {system} (MXFP8, {release})",  # type: ignore[operator]
        MODELS[str(model)],
        cluster,
        gpus // CLUSTERS[cluster].gpus_per_node,
        int(batch),  # type: ignore[call-overload]
        int(seq),  # type: ignore[call-overload]
        tuple(degrees.items()),
        "tokens",
        0.0,
        SOURCE.format(release=release, system=f"DGX-{system}", page=page),
        measured_tokens_per_gpu_s=float(tokens),
        workload_options=tuple(options),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", choices=FP8_RECIPES, default="mxfp8", help="the FP8 recipe to plan them with")
    parser.add_argument("--ep-overlap", type=float, help="overlap_ep for the MoE rows (default: the fitted one)")
    args = parser.parse_args()
    start = time.perf_counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for row in ROWS:
        c = compare_published(held_out_run(row, args.recipe, args.ep_overlap))
        print(f"{row[0]} {row[1]:5} {row[2]:16} {standing(c)}")
        count(passes, totals, ("all", f"system {row[1]}", f"release {row[0]}"), c.passes)
    print_tally(passes, totals)
    print(f"({time.perf_counter() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
