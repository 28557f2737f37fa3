"""Property sweep of the workbench's estimate: a better resource must never give a slower step; nothing is asserted.

    .venv/bin/python benchmarks/report_monotonicity.py [layouts per configuration, default 20000]

For 7 models on A100, H100 and H800 clusters of 1 to 64 nodes, under several workload variants, it takes up to N
well-formed layouts of the planner's search space per configuration (every accepted one up to half, the rest at
random, seed 0) and estimates each layout's step again after moving one resource or assumption: peak FLOP/s x0.5,
x0.97, x1.01, x2; HBM bandwidth x0.5, x2; intra- and inter-node bandwidth x0.5, x2; latencies x10; each overlap
share raised; the sequence doubled. A faster resource or a higher overlap share must not lengthen the step, a slower
one must not shorten it (relative tolerance 1e-9). It prints, per perturbation, how many layouts break that rule and
by how much at most. Takes about 100 s on 2 cores at the default size.

One break is by design: raising the expert-parallel overlap share (``overlap_ep``) can lengthen a step by a few
tenths of a per cent. The overlapped dispatch and combine kernels take SMs from the matmuls (DeepSeek-V3 §3.2.2:
20 of 132 SMs; ``coursekit.planner.estimate._ep_overlap_slowdown_s``), and that cost is paid even where the hidden
all-to-all was not what bounded the step.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from coursekit.planner import WorkloadSpec
from coursekit.planner.estimate import training_estimate
from coursekit.planner.gate_table import GATE_CODES, WELL_FORMED_CODES
from coursekit.planner.search import _gated_space
from coursekit.presets import CLUSTERS, MODELS

KEYS = ("tp", "pp", "dp", "cp", "ep", "etp", "v", "zero", "mb", "ga", "rc")
CONFIGS = (
    ("llama3-8b", "h100-8", 1, 64),
    ("llama3-8b", "a100-8", 2, 128),
    ("llama3-8b", "h100-8", 8, 512),
    ("llama3-70b", "h100-8", 4, 256),
    ("llama3-70b", "a100-8", 16, 1024),
    ("llama3-70b", "h100-8", 64, 2048),
    ("gpt3-175b", "a100-8", 8, 512),
    ("gpt3-175b", "h100-8", 64, 1536),
    ("mixtral-8x7b", "h100-8", 2, 128),
    ("mixtral-8x7b", "a100-8", 8, 512),
    ("mixtral-8x7b", "h100-8", 32, 1024),
    ("qwen3-30b-a3b", "h100-8", 1, 64),
    ("qwen3-30b-a3b", "h100-8", 4, 256),
    ("qwen3-30b-a3b", "a100-8", 16, 512),
    ("qwen3-235b-a22b", "h100-8", 8, 512),
    ("qwen3-235b-a22b", "h100-8", 32, 1024),
    ("qwen3-235b-a22b", "a100-8", 64, 2048),
    ("deepseek-v3", "h100-8", 16, 1024),
    ("deepseek-v3", "h800-8", 64, 2048),
)
VARIANTS = (
    ("default", {}),
    ("mid-overlap", {"overlap_dp": 0.6, "overlap_pp": 0.6, "overlap_cp": 0.6, "overlap_tp": 0.4, "overlap_ep": 0.5}),
    ("fp8", {"precision": "fp8"}),
    ("old-engine", {"flash_attention": False, "sequence_parallel": False, "pipeline_edge_layers": 1}),
)
MOE_VARIANTS = (
    (
        "deepep",
        {"ep_dedup_per_node": True, "ep_fp8_dispatch": True, "ep_overlap_schedule": "dualpipe", "ep_node_limit": 4},
    ),
    ("moe-modules", {"recompute_modules": ("moe", "layernorm"), "moe_probs_in_experts": True, "overlap_ep": 1.0}),
    ("moe-act-overlap", {"recompute_modules": ("moe_act", "layernorm"), "overlap_ep": 1.0, "overlap_tp": 1.0}),
)


def layouts(model, cluster, workload, most: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Up to ``most`` well-formed rows of the search space: the accepted ones first (up to half), then at random."""
    columns, fails, _, _ = _gated_space(model, cluster, workload)
    well_formed = np.flatnonzero(~np.logical_or.reduce([fails[k] for k in WELL_FORMED_CODES]))
    accepted = np.flatnonzero(~np.logical_or.reduce([fails[k] for k in GATE_CODES]))
    rows = well_formed
    if rows.size > most:
        rng = np.random.default_rng(seed)
        keep = accepted if accepted.size <= most // 2 else rng.choice(accepted, most // 2, replace=False)
        rest = np.setdiff1d(rows, keep)
        if rest.size > most - keep.size:
            rest = rng.choice(rest, most - keep.size, replace=False)
        rows = np.sort(np.concatenate([keep, rest]))
    return {key: np.asarray(columns[key][rows]) for key in KEYS}


def step(model, cluster, workload, columns) -> np.ndarray:
    return np.asarray(training_estimate(model, cluster, workload, columns, with_memory=False)["step_s"])


def scaled(cluster, factor: float, *fields: str):
    return replace(cluster, **{f: getattr(cluster, f) * factor for f in fields if getattr(cluster, f) is not None})


def main(most: int) -> None:
    broken: Counter[str] = Counter()
    worst: dict[str, float] = {}
    checked: Counter[str] = Counter()
    started = time.perf_counter()
    total = 0

    def record(tag: str, base: np.ndarray, new: np.ndarray, faster_allowed: bool) -> None:
        rel = (new - base) / base if faster_allowed else (base - new) / base
        bad = rel > 1e-9
        checked[tag] += base.size
        broken[tag] += int(bad.sum())
        if bad.any():
            worst[tag] = max(worst.get(tag, 0.0), float(rel[bad].max()))

    for name, cluster_name, nodes, batch in CONFIGS:
        model = MODELS[name]
        cluster = CLUSTERS[cluster_name].with_nodes(nodes)
        for _, options in VARIANTS + (MOE_VARIANTS if model.is_moe else ()):
            if options.get("precision") == "fp8" and cluster.peak_flops_fp8 is None:
                continue
            work = WorkloadSpec(global_batch=batch, **options)
            cols = layouts(model, cluster, work, most)
            if not cols["tp"].size:
                continue
            total += cols["tp"].size
            base = step(model, cluster, work, cols)
            # (tag, changed cluster, True when the change is an improvement: the step must not grow)
            for tag, changed, better in (
                ("peak x2", scaled(cluster, 2, "peak_flops", "peak_flops_fp8"), True),
                ("peak x1.01", scaled(cluster, 1.01, "peak_flops", "peak_flops_fp8"), True),
                ("peak x0.97", scaled(cluster, 0.97, "peak_flops", "peak_flops_fp8"), False),
                ("peak x0.5", scaled(cluster, 0.5, "peak_flops", "peak_flops_fp8"), False),
                ("HBM x2", scaled(cluster, 2, "memory_bandwidth_bytes_per_s"), True),
                ("HBM x0.5", scaled(cluster, 0.5, "memory_bandwidth_bytes_per_s"), False),
                ("inter-node bandwidth x2", scaled(cluster, 2, "inter_node_bandwidth_bytes_per_s"), True),
                ("inter-node bandwidth x0.5", scaled(cluster, 0.5, "inter_node_bandwidth_bytes_per_s"), False),
                ("intra-node bandwidth x2", scaled(cluster, 2, "intra_node_bandwidth_bytes_per_s"), True),
                ("intra-node bandwidth x0.5", scaled(cluster, 0.5, "intra_node_bandwidth_bytes_per_s"), False),
                ("latencies x10", scaled(cluster, 10, "intra_node_latency_s", "inter_node_latency_s"), False),
            ):
                record(tag, base, step(model, changed, work, cols), better)
            for dim in ("dp", "pp", "cp", "tp", "ep"):
                low, high = replace(work, **{f"overlap_{dim}": 0.0}), replace(work, **{f"overlap_{dim}": 1.0})
                record(f"overlap_{dim} 0 -> 1", step(model, cluster, low, cols), step(model, cluster, high, cols), True)
            longer = replace(work, seq_len=2 * work.tokens_per_sequence(model))
            record("sequence x2 (must not shorten)", base, step(model, cluster, longer, cols), False)
    print(f"{total} layouts, {len(CONFIGS)} model-cluster pairs, {time.perf_counter() - started:.0f} s")
    print(f"{'perturbation':34s} {'layouts':>9s} {'broken':>8s} {'share':>7s} {'largest':>8s}")
    for tag in checked:
        share = broken[tag] / checked[tag]
        print(f"{tag:34s} {checked[tag]:9d} {broken[tag]:8d} {share:7.2%} {worst.get(tag, 0.0):8.2%}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
