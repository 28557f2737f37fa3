"""The H200 preset: the datasheets' figures, and what the workbench does with them.

Expected values are typed from NVIDIA's H200 Tensor Core GPU datasheet (H200 SXM: 141 GB HBM3e, 4.8 TB/s, BF16
1,979 and FP8 3,958 TFLOP/s with sparsity, NVLink 900 GB/s) and the DGX H200 datasheet (8x ConnectX-7 400 Gb/s).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from coursekit.__main__ import main
from coursekit.planner import plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.specs import WorkloadSpec


def test_h200_figures_are_the_datasheets() -> None:
    h200 = CLUSTERS["h200-8"]
    assert (h200.gpus_per_node, h200.memory_per_device_gib) == (8, 141.0)
    # dense: half the sparse figure (NVIDIA prints BF16's as 989, e.g. the DGX Cloud Benchmarking peak table's H100)
    assert h200.peak_flops == 989e12 and h200.peak_flops_fp8 == 3958e12 / 2
    assert h200.memory_bandwidth_bytes_per_s == 4.8e12
    assert h200.intra_node_bandwidth_bytes_per_s == 900e9 / 2  # NVLink 4, one direction
    assert h200.inter_node_bandwidth_bytes_per_s == 400e9 / 8  # one 400 Gb/s port per GPU, in bytes
    assert "H200" in h200.source and "DGX H200" in h200.source


def test_h200_is_an_h100_with_more_and_faster_memory() -> None:
    h100, h200 = CLUSTERS["h100-8"], CLUSTERS["h200-8"]
    same = ("gpus_per_node", "peak_flops", "peak_flops_fp8", "intra_node_bandwidth_bytes_per_s")
    assert all(getattr(h100, name) == getattr(h200, name) for name in same)
    assert h200.memory_per_device_gib > h100.memory_per_device_gib
    assert h200.memory_bandwidth_bytes_per_s > h100.memory_bandwidth_bytes_per_s


def _over_memory(result: Any) -> set[tuple[tuple[str, Any], ...]]:
    return {tuple(sorted(result.degrees(i).items())) for i in result.rejected_indices("memory")}


def test_more_memory_lets_more_layouts_fit() -> None:
    # Llama-3 70B on 64 GPUs: every layout over 141 GB is also over 80 GB, and some are over 80 GB only
    workload = WorkloadSpec(global_batch=128, seq_len=8192)
    on_h100 = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(8), workload)
    on_h200 = plan(MODELS["llama3-70b"], CLUSTERS["h200-8"].with_nodes(8), workload)
    assert _over_memory(on_h200) < _over_memory(on_h100)
    assert on_h200.accepted_count > on_h100.accepted_count


def test_cli_takes_the_h200(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["plan", "--model", "llama3-8b", "--cluster", "h200-8", "--global-batch", "64", "--json", "--top", "1"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cluster"]["name"] == "h200-8"
