"""A better resource never gives a slower estimated step (and a worse one never a faster step), layout for layout.

The expectation is physical, not the code's: with every kernel and transfer of a step no slower, and the schedule's
dependencies unchanged, the critical path cannot lengthen. ``benchmarks/report_monotonicity.py`` sweeps 1.6 million
layouts and reports what still breaks the rule (the peak and HBM cases stated in CHANGELOG); these tests hold the
rules that hold everywhere, on a sample, and the peak rule on the layouts the published runs put first.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from coursekit.planner import WorkloadSpec, plan
from coursekit.planner.estimate import training_estimate
from coursekit.planner.gate_table import WELL_FORMED_CODES
from coursekit.planner.search import _gated_space
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs

KEYS = ("tp", "pp", "dp", "cp", "ep", "etp", "v", "zero", "mb", "ga", "rc")
CONFIGS = (
    ("llama3-70b", "h100-8", 8, 512, {}),
    ("gpt3-175b", "a100-8", 16, 1024, {"flash_attention": False, "sequence_parallel": False}),
    ("mixtral-8x7b", "h100-8", 4, 256, {"overlap_ep": 0.5}),
    ("deepseek-v3", "h800-8", 16, 1024, {"ep_dedup_per_node": True, "precision": "fp8"}),
)


def _sample(model, cluster, work, most: int = 2500) -> dict[str, np.ndarray]:
    columns, fails, _, _ = _gated_space(model, cluster, work)
    rows = np.flatnonzero(~np.logical_or.reduce([fails[k] for k in WELL_FORMED_CODES]))
    if rows.size > most:
        rows = np.sort(np.random.default_rng(0).choice(rows, most, replace=False))
    return {key: np.asarray(columns[key][rows]) for key in KEYS}


def _step(model, cluster, work, cols) -> np.ndarray:
    return np.asarray(training_estimate(model, cluster, work, cols, with_memory=False)["step_s"])


@pytest.mark.parametrize(("name", "cluster_name", "nodes", "batch", "options"), CONFIGS)
def test_faster_links_lower_latency_and_more_overlap_never_slow_a_layout(
    name: str, cluster_name: str, nodes: int, batch: int, options: dict
) -> None:
    model, cluster = MODELS[name], CLUSTERS[cluster_name].with_nodes(nodes)
    work = WorkloadSpec(global_batch=batch, **options)
    cols = _sample(model, cluster, work)
    base = _step(model, cluster, work, cols)
    better = {
        "inter-node x2": replace(
            cluster, inter_node_bandwidth_bytes_per_s=2 * cluster.inter_node_bandwidth_bytes_per_s
        ),
        "intra-node x2": replace(
            cluster, intra_node_bandwidth_bytes_per_s=2 * cluster.intra_node_bandwidth_bytes_per_s
        ),
        "latency /10": replace(
            cluster,
            intra_node_latency_s=cluster.intra_node_latency_s / 10,
            inter_node_latency_s=cluster.inter_node_latency_s / 10,
        ),
    }
    for label, faster in better.items():
        assert np.all(_step(model, faster, work, cols) <= base * (1 + 1e-9)), label
    slower = replace(cluster, inter_node_bandwidth_bytes_per_s=cluster.inter_node_bandwidth_bytes_per_s / 2)
    assert np.all(_step(model, slower, work, cols) >= base * (1 - 1e-9)), "inter-node / 2"
    # a slower NVLink lengthens the passes DP's buckets hide under, but the passes' growth is the step's too
    slower = replace(cluster, intra_node_bandwidth_bytes_per_s=cluster.intra_node_bandwidth_bytes_per_s / 2)
    assert np.all(_step(model, slower, work, cols) >= base * (1 - 1e-9)), "intra-node / 2"
    longer = replace(work, seq_len=2 * work.tokens_per_sequence(model))
    assert np.all(_step(model, cluster, longer, cols) >= base * (1 - 1e-9)), "sequence x2"
    for dim in ("dp", "pp", "cp", "tp"):
        low = _step(model, cluster, replace(work, **{f"overlap_{dim}": 0.0}), cols)
        high = _step(model, cluster, replace(work, **{f"overlap_{dim}": 1.0}), cols)
        assert np.all(high <= low * (1 + 1e-9)), f"overlap_{dim}"


def _leading_layouts_and_steps(run, cluster) -> dict[str, float]:
    result = plan(MODELS[run.model], cluster, run.workload())
    return {result.candidate(i).label(): result.candidate(i).step_s for i in result.accepted_indices()[:5]}


@pytest.mark.parametrize(
    "run",
    [
        run
        for run in all_published_runs()
        if run.name.startswith(
            (
                "Llama 3 405B, 8K, 8192",
                "NeMo Llama 3 70B",
                "Megatron-Core Mixtral",
                "MoE-ModelZoo Qwen3 235B-A22B (MoE), 32K",
                "DGX Cloud GPT-3 175B, 2K, 128 H100 (FP8)",
            )
        )
    ],
    ids=lambda run: run.name,
)
def test_a_slower_device_never_speeds_up_a_published_runs_leading_layouts(run) -> None:
    """The five fastest accepted layouts of a published run, on the same cluster at 97 % and at 200 % of its peak
    (bf16 and FP8 alike): each is at least as slow on the slower device and at most as slow on the faster one."""
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)
    base = _leading_layouts_and_steps(run, cluster)
    assert len(base) == 5
    for factor in (0.97, 2.0):
        changed = replace(
            cluster,
            peak_flops=cluster.peak_flops * factor,
            peak_flops_fp8=None if cluster.peak_flops_fp8 is None else cluster.peak_flops_fp8 * factor,
        )
        result = plan(MODELS[run.model], changed, run.workload())
        for label, step in base.items():
            degrees = dict(part.split("=") for part in label.split(","))
            found = result.find(**{k: v if k == "recompute" else int(v) for k, v in degrees.items()})
            assert found, label
            moved = result.candidate(found[0]).step_s
            assert (moved >= step * (1 - 1e-9)) if factor < 1 else (moved <= step * (1 + 1e-9)), (factor, label)
