"""A memory refusal never reads as if it fit: the need is shown with enough decimals to differ from the device, and
a shortfall never as 0.0 (a fuzz pass found "per-rank memory 2.3 GiB exceeds device memory 2.3 GiB" and "0.0 GiB
short")."""

from __future__ import annotations

import dataclasses

import pytest

import coursekit
from coursekit.gates import Candidate, Environment, gate_memory
from coursekit.planner import WorkloadSpec
from coursekit.planner.search import evaluate_composition
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving.kv import ServingLedger
from coursekit.units import telling_digits


@pytest.mark.parametrize(
    ("lang", "expected"),
    [
        ("en", "per-rank memory 2.3004 GiB exceeds device memory 2.3000 GiB"),
        ("zh", "每个 rank 需要 2.3004 GiB，超过设备显存 2.3000 GiB"),
    ],
)
def test_the_gate_shows_the_decimals_that_tell_need_from_device(lang: str, expected: str) -> None:
    def candidate(gib: float) -> Candidate:
        return Candidate("DP", gib, {"training"}, {"dense"}, "cross_node")

    reason = gate_memory(candidate(2.3004), Environment(2.3, "training", "dense", "intra_node"))
    assert reason is not None and reason.render(lang) == expected
    ordinary = gate_memory(candidate(29.0), Environment(24, "training", "dense", "intra_node"))
    assert ordinary is not None and ordinary.render("en") == "per-rank memory 29.0 GiB exceeds device memory 24.0 GiB"


def test_a_serving_shortfall_of_0_04_gib_reads_0_04() -> None:
    ledger = ServingLedger(
        weights_gib=70.0, kv_cache_gib=8.04, workspace_gib=0.0, reserve_gib=2.0, device_gib=80.0,
        kv_per_request_gib=1.0, concurrency=8,
    )  # fmt: skip
    assert ledger.verdict() == "does not fit, 0.04 GiB short"
    coursekit.set_language("zh")
    try:
        assert ledger.verdict() == "放不下，差 0.04 GiB"
    finally:
        coursekit.set_language("en")


def test_the_planner_memory_gate_tells_a_near_miss_apart() -> None:
    """A device 0.004 GiB smaller than a layout needs: the planner's reason shows both to three decimals."""
    model, work = MODELS["llama3-8b"], WorkloadSpec(global_batch=64)
    layout = dict(tp=1, pp=1, dp=8, zero=2, mb=1, recompute="none")
    roomy = evaluate_composition(model, CLUSTERS["h100-8"].with_nodes(1), work, **layout)
    assert roomy.memory is not None and roomy.accepted
    need = roomy.memory.total_gib
    tight = dataclasses.replace(CLUSTERS["h100-8"].with_nodes(1), memory_per_device_gib=need - 0.004)
    refused = evaluate_composition(model, tight, work, **layout)
    (reason,) = [r for r in refused.reasons if r.code == "memory"]
    digits = 3 if f"{need:.2f}" == f"{need - 0.004:.2f}" else 2
    assert reason.render("en") == (
        f"per-rank memory {need:.{digits}f} GiB exceeds device memory {need - 0.004:.{digits}f} GiB"
    )
    assert f"{need:.{digits}f}" != f"{need - 0.004:.{digits}f}"


def test_telling_digits() -> None:
    assert [telling_digits(v, o) for v, o in ((29.0, 24.0), (0.04, 0.0), (80.0004, 80.0), (1.0, 1.0))] == [1, 2, 4, 6]
