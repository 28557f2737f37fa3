"""A faster peak of one GPU generation never lengthens the estimated step.

The best-matmul share of peak was interpolated on the peak alone
(:func:`coursekit.planner.calibration.matmul_fraction`), so a preset H100 at twice its peak was read as a later
generation with a smaller share. The efficiency ceiling scales both limbs of the roofline, so memory-bound matmuls
(small expert GEMMs) ran slower on the "faster" device: at peak x2, 12,923 of 493,624 layouts of
benchmarks/report_monotonicity.py got a longer step, by up to 4.0 %. A device that states its compute capability now
takes its generation's measured shares (:data:`~coursekit.planner.calibration.MAMF_GENERATION`: Bekman's table
measured A100, H100 and B200), whatever its peak; the presets' shares are unchanged.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from coursekit.planner import WorkloadSpec
from coursekit.planner.calibration import MAMF_FRACTION, ceiling_for, fp8_share_for, matmul_fraction
from coursekit.planner.estimate import training_estimate
from coursekit.planner.gate_table import WELL_FORMED_CODES
from coursekit.planner.search import _gated_space
from coursekit.presets import CLUSTERS, MODELS

KEYS = ("tp", "pp", "dp", "cp", "ep", "etp", "v", "zero", "mb", "ga", "rc")

#: Bekman's table (bf16 best matmul of peak, calibration.MAMF_SOURCE): A100 267.9 of 312, H100 792.1 of 989, B200
#: 1745.0 of 2250 TFLOP/s; FP8 over bf16 ratios (FP8_MAMF_SOURCE): H100 (1402.6/1979)/(794.5/989), B200
#: (3432.5/4500)/(1745.0/2250).
SHARES = {8.0: 267.9 / 312, 9.0: 792.1 / 989, 10.0: 1745.0 / 2250}
FP8_RATIO = {9.0: (1402.6 / 1979) / (794.5 / 989), 10.0: (3432.5 / 4500) / (1745.0 / 2250)}


@pytest.mark.parametrize("cc", [8.0, 8.6, 9.0, 10.0, 10.3])
@pytest.mark.parametrize("scale", [0.25, 1.0, 4.0])
def test_a_stated_generation_keeps_its_measured_share_at_any_peak(cc: float, scale: float) -> None:
    share = SHARES[float(int(cc))]
    assert matmul_fraction(989e12 * scale, cc) == pytest.approx(share, rel=1e-12)
    if int(cc) in (9, 10):
        fp8 = 0.775 * FP8_RATIO[float(int(cc))] / FP8_RATIO[9.0]  # the H100 fit carried by the ratio
        assert fp8_share_for(989e12 * scale, cc) == pytest.approx(fp8, rel=1e-12)


def test_every_preset_keeps_the_share_its_peak_gave() -> None:
    for cluster in CLUSTERS.values():
        peak, cc = cluster.peak_flops, cluster.compute_capability
        assert matmul_fraction(peak, cc) == matmul_fraction(peak), cluster.name
        assert ceiling_for(peak, cc) == ceiling_for(peak), cluster.name
        assert fp8_share_for(peak, cc) == fp8_share_for(peak), cluster.name
    gpus = [c for c in CLUSTERS.values() if c.compute_capability is not None]
    assert {matmul_fraction(c.peak_flops, c.compute_capability) for c in gpus} <= set(MAMF_FRACTION.values())


def test_without_a_stated_generation_the_peak_still_decides() -> None:
    assert matmul_fraction(2 * 989e12) < matmul_fraction(989e12)  # read as between Hopper and Blackwell


@pytest.mark.parametrize(
    ("model", "cluster", "nodes", "batch"),
    # pairs where twice the peak lengthened 122 and 44 of 3000 well-formed layouts, by up to 1.1 % and 0.56 %
    [("gpt3-175b", "h100-8", 64, 1536), ("qwen3-30b-a3b", "a100-8", 16, 512)],
)
def test_twice_the_peak_never_lengthens_a_step(model: str, cluster: str, nodes: int, batch: int) -> None:
    base = CLUSTERS[cluster].with_nodes(nodes)
    fp8 = None if base.peak_flops_fp8 is None else 2 * base.peak_flops_fp8
    faster = replace(base, peak_flops=2 * base.peak_flops, peak_flops_fp8=fp8)
    workload = WorkloadSpec(global_batch=batch)
    columns, fails, _, _ = _gated_space(MODELS[model], base, workload)
    rows = np.flatnonzero(~np.logical_or.reduce([fails[k] for k in WELL_FORMED_CODES]))
    rows = np.sort(np.random.default_rng(0).choice(rows, min(3000, rows.size), replace=False))
    c = {key: np.asarray(columns[key][rows]) for key in KEYS}
    before = training_estimate(MODELS[model], base, workload, c, with_memory=False)["step_s"]
    after = training_estimate(MODELS[model], faster, workload, c, with_memory=False)["step_s"]
    grown = after > before * (1 + 1e-12)
    assert not grown.any(), (np.flatnonzero(grown)[:5], float(np.max(after / before)))
