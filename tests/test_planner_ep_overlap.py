"""The share of the EP all-to-all that Megatron-Core's 1F1B all-to-all overlap hides, and the two runs it is fitted on.

The Megatron-MoE-ModelZoo measured the same Qwen3 235B-A22B layout (256 H100s, TP 2, EP 32, PP 8, VP 4, DeepEP, one
build) without and with ``--overlap-moe-expert-parallel-comm``: 245 and 276 TFLOP/s per GPU. The expected ratio below
is worked from those two table figures by hand; the fit is re-derived here, never read back from the code under test.
"""

from __future__ import annotations

import dataclasses

import pytest

from coursekit.planner import plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import (
    EP_OVERLAP_FIT_RUNS,
    FP8_FIT_RUNS,
    MOE_HOST_FIT_RUNS,
    RUN_ROLES,
    all_published_runs,
)
from coursekit.specs import EP_A2A_OVERLAP_ON, OVERLAP_SOURCES

RUNS = {run.name: run for run in all_published_runs()}


def _step_s(run: object, overlap_ep: float) -> float:
    """The estimated step of ``run``'s published layout with the EP overlap share ``overlap_ep``."""
    workload = dataclasses.replace(run.workload(), overlap_ep=overlap_ep)  # type: ignore[attr-defined]
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)  # type: ignore[attr-defined]
    result = plan(MODELS[run.model], cluster, workload)  # type: ignore[attr-defined]
    check = result.check_layout(dict(run.degrees))  # type: ignore[attr-defined]
    assert check.candidate is not None and check.candidate.step_s is not None
    return check.candidate.step_s


def test_the_fit_pair_is_one_layout_without_and_with_the_overlap() -> None:
    without, with_overlap = (RUNS[name] for name in EP_OVERLAP_FIT_RUNS)
    assert (without.measured_tflops_per_gpu, with_overlap.measured_tflops_per_gpu) == (245.0, 276.0)
    assert without.degrees == with_overlap.degrees and without.global_batch == with_overlap.global_batch
    assert without.workload().overlap("ep") == 0.0 and with_overlap.workload().overlap("ep") == EP_A2A_OVERLAP_ON
    # the workloads differ in the overlap alone: at share 0 the two rows are estimated the same step
    assert _step_s(with_overlap, 0.0) == pytest.approx(_step_s(without, 0.0), rel=1e-12)


def test_the_share_reproduces_the_measured_gain_to_a_hundredth() -> None:
    measured = 276 / 245  # 1.1265: the overlap's gain in the table
    without, with_overlap = (RUNS[name] for name in EP_OVERLAP_FIT_RUNS)
    base = _step_s(without, 0.0)

    def gain(share: float) -> float:
        return base / _step_s(with_overlap, share)

    # taken as complete the overlap gains far more than measured; the fitted share is the nearest hundredth
    assert gain(1.0) > 1.25
    error = {share: abs(gain(share) - measured) for share in (0.47, 0.48, 0.49)}
    assert min(error, key=error.__getitem__) == EP_A2A_OVERLAP_ON == 0.48
    assert gain(EP_A2A_OVERLAP_ON) == pytest.approx(measured, rel=0.005)


def test_fit_rows_fit_and_the_others_with_the_overlap_only_check() -> None:
    assert all(RUN_ROLES[name] == "fit" for name in EP_OVERLAP_FIT_RUNS)
    fit = set(EP_OVERLAP_FIT_RUNS) | set(MOE_HOST_FIT_RUNS) | set(FP8_FIT_RUNS)
    overlapped = [run for run in RUNS.values() if run.workload().overlap("ep") > 0]
    checks = [run.name for run in overlapped if run.name not in fit]
    assert len(checks) >= 5 and all(RUN_ROLES[name] == "validation" for name in checks)


def test_dualpipe_keeps_the_overlap_complete_and_megatron_rows_take_the_measured_share() -> None:
    for run in RUNS.values():
        workload = run.workload()
        share = workload.overlap("ep")
        if workload.ep_overlap_schedule == "dualpipe":  # DeepSeek-V3 §3.2.1: built around the overlap
            assert share == 1.0
        elif share > 0:
            assert share == EP_A2A_OVERLAP_ON, run.name


def test_the_default_leaves_the_overlap_off_and_says_what_it_hides_when_on() -> None:
    from coursekit.planner import WorkloadSpec

    assert WorkloadSpec(global_batch=8).overlap("ep") == 0.0
    assert "0.48" in OVERLAP_SOURCES["ep"] and "245" in OVERLAP_SOURCES["ep"] and "276" in OVERLAP_SOURCES["ep"]


def test_the_cli_help_gives_the_measured_share_in_both_languages() -> None:
    import subprocess
    import sys

    for lang, words in (("en", "was measured to"), ("zh", "实测藏")):
        out = subprocess.run(
            [sys.executable, "-m", "coursekit.planner", "--lang", lang, "--help"],
            capture_output=True,
            text=True,
            env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
            check=True,
        ).stdout
        start = out.index("--overlap-ep")
        end = out.find("\n  -", start)
        entry = " ".join(out[start : None if end < 0 else end].split())  # the option's help, unwrapped
        assert words in entry and f"{EP_A2A_OVERLAP_ON:g}" in entry, entry
