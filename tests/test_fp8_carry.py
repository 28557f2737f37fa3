"""The FP8 matmul share carried from H100 to other GPUs by measured best-matmul ratios.

The share is fitted once, on an H100 BF16/FP8 pair (:data:`coursekit.planner.calibration.FP8_MATMUL_SHARE`). Bekman's
maximum-achievable-matmul table (ml-engineering @ 744d01e1, compute/accelerator/README.md) measures each GPU's best
bf16 and FP8 matmul with one torch build: H100 SXM 794.5 of 989 and 1402.6 of 1979 TFLOP/s, B200 SXM 1745.0 of 2250
and 3432.5 of 4500. The expected values below are worked from those printed figures, not read from the code.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from coursekit.planner import WorkloadSpec
from coursekit.planner.calibration import FP8_MATMUL_SHARE, fp8_share_for
from coursekit.planner.estimate import precision_peak_flops
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import RUN_ROLES, all_published_runs

ROOT = Path(__file__).resolve().parents[1]
H100_RATIO = (1402.6 / 1979) / (794.5 / 989)  # 0.7087 / 0.8033
B200_RATIO = (3432.5 / 4500) / (1745.0 / 2250)  # 0.7628 / 0.7756


def test_the_ratios_worked_from_the_table() -> None:
    assert round(H100_RATIO, 3) == 0.882 and round(B200_RATIO, 3) == 0.984
    assert fp8_share_for(989e12) == pytest.approx(FP8_MATMUL_SHARE)
    assert fp8_share_for(2250e12) == pytest.approx(0.775 * B200_RATIO / H100_RATIO)
    assert round(fp8_share_for(2250e12), 3) == 0.864


def test_between_and_outside_the_measured_devices() -> None:
    # halfway in log(peak) between H100 and B200: halfway between their ratios
    middle = math.sqrt(989e12 * 2250e12)
    assert fp8_share_for(middle) == pytest.approx(0.775 * (H100_RATIO + B200_RATIO) / 2 / H100_RATIO)
    # an older or smaller device keeps the fitted share; a larger one the B200's
    assert fp8_share_for(312e12) == pytest.approx(0.775) and fp8_share_for(5000e12) == fp8_share_for(2250e12)
    peaks = [500e12, 989e12, 1200e12, 1600e12, 2000e12, 2250e12, 2450e12]
    shares = [fp8_share_for(p) for p in peaks]
    assert shares == sorted(shares)


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "989e12", None])
def test_bad_peak_is_refused(bad: object) -> None:
    with pytest.raises((TypeError, ValueError), match="peak_flops"):
        fp8_share_for(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("cluster", ["h100-8", "b200-8", "gb200-nvl72", "gb300-nvl72"])
def test_the_estimate_takes_the_carried_share_unless_the_workload_sets_one(cluster: str) -> None:
    model, c = MODELS["llama3-70b"], CLUSTERS[cluster]
    work = WorkloadSpec(global_batch=64, seq_len=8192, precision="fp8")
    executed = 6.0 * 70e9  # FLOPs per token of a 70B model, enough to hold the attention and output-layer shares
    default = precision_peak_flops(model, c, work, executed, 0)
    carried = precision_peak_flops(model, c, replace(work, fp8_matmul_share=fp8_share_for(c.peak_flops)), executed, 0)
    fitted = precision_peak_flops(model, c, replace(work, fp8_matmul_share=FP8_MATMUL_SHARE), executed, 0)
    assert default == pytest.approx(carried)
    if cluster == "h100-8":
        assert default == pytest.approx(fitted)
    else:  # a Blackwell GPU keeps more of the FP8 speed-up than the H100 the share was fitted on
        assert default > fitted


def test_no_blackwell_run_fits_it() -> None:
    blackwell = [run for run in all_published_runs() if run.cluster in ("b200-8", "gb200-nvl72", "b300-8")]
    assert len(blackwell) >= 16
    assert {RUN_ROLES[run.name] for run in blackwell} == {"validation"}


def test_lesson_9_and_the_guides_state_the_carried_numbers() -> None:
    lesson = (ROOT / "notebooks/src/09_workbench.py").read_text(encoding="utf-8")
    h, b, share = f"{H100_RATIO:.3f}", f"{B200_RATIO:.3f}", f"{fp8_share_for(2250e12):.3f}"
    assert f"（H100 是 {h}，B200 是 {b}" in lesson and f"B200 上是 {share}。" in lesson
    assert f"(H100 {h}, B200 {b}:" in lesson and f"which gives {share} on a B200" in lesson
    guide_en = (ROOT / "docs/instructor/en/09_workbench.md").read_text(encoding="utf-8")
    guide_zh = (ROOT / "docs/instructor/zh/09_workbench.md").read_text(encoding="utf-8")
    assert f"({share} on the B200)" in guide_en and f"（B200 上 {share}）" in guide_zh
