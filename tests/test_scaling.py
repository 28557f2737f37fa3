"""Scaling efficiency E(P), the step timeline and the diagnosis of a falling E(P)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit.i18n import Reason, catalog, placeholders
from coursekit.pipeline import bubble_fraction
from coursekit.scaling import (
    DIAGNOSIS_TERMS,
    EfficiencyDiagnosis,
    diagnose_efficiency,
    load_imbalance_s,
    scaling_curve,
    scaling_efficiency,
    step_timeline,
)

seconds = st.floats(min_value=1e-3, max_value=10.0, allow_nan=False, allow_infinity=False)
non_negative = st.floats(min_value=0.0, max_value=10.0, allow_nan=False, allow_infinity=False)
fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)

# ---------------------------------------------------------------------------
# E(P): the seed's definition
# ---------------------------------------------------------------------------


def test_seed_definition() -> None:
    # Seed S18: E(P) = throughput(P) / (P · throughput(1)). 8 devices reaching 700 samples/s where one
    # reaches 100 samples/s: 700 / 800 = 7/8.
    assert scaling_efficiency(700.0, 8, 100.0) == float(Fraction(700, 8 * 100))


def test_linear_scaling_is_one_and_superlinear_is_allowed() -> None:
    assert scaling_efficiency(800.0, 8, 100.0) == 1.0
    # Superlinear (e.g. the per-device shard starts to fit in cache): E(P) > 1 is reported, not refused.
    assert scaling_efficiency(900.0, 8, 100.0) == float(Fraction(9, 8))


@given(seconds, st.integers(1, 4096), seconds)
def test_efficiency_is_positive_and_scales_with_throughput(throughput: float, p: int, single: float) -> None:
    e = scaling_efficiency(throughput, p, single)
    assert e > 0
    assert scaling_efficiency(2 * throughput, p, single) == pytest.approx(2 * e)
    assert scaling_efficiency(p * single, p, single) == pytest.approx(1.0)


# ---------------------------------------------------------------------------
# Step timeline
# ---------------------------------------------------------------------------


@given(seconds, non_negative, fractions, non_negative, non_negative, non_negative)
def test_timeline_adds_up(
    compute: float, comm: float, overlap: float, bubble: float, wait: float, imbalance: float
) -> None:
    t = step_timeline(compute, comm, overlap, bubble, wait, imbalance)
    assert t.hidden_communication_s + t.exposed_communication_s == pytest.approx(comm)
    assert t.step_s == pytest.approx(compute + t.exposed_communication_s + bubble + wait + imbalance)
    assert 0 <= t.hidden_communication_s <= compute + 1e-12
    if comm * overlap <= compute:
        assert t.exposed_communication_s == pytest.approx(comm * (1 - overlap), abs=1e-12)
    else:  # only compute_s of communication can hide under compute
        assert t.hidden_communication_s == compute


@given(seconds, non_negative, fractions, non_negative, non_negative, non_negative)
def test_segments_tile_the_step(
    compute: float, comm: float, overlap: float, bubble: float, wait: float, imbalance: float
) -> None:
    t = step_timeline(compute, comm, overlap, bubble, wait, imbalance)
    main = [seg for seg in t.segments() if seg.kind != "hidden_communication"]
    assert main[0].kind == "compute" and main[0].start_s == 0.0
    for a, b in itertools.pairwise(main):
        assert b.start_s == pytest.approx(a.start_s + a.duration_s)
    assert main[-1].start_s + main[-1].duration_s == pytest.approx(t.step_s)
    assert all(seg.duration_s > 0 for seg in main)
    hidden = [seg for seg in t.segments() if seg.kind == "hidden_communication"]
    if t.hidden_communication_s > 0:
        (bar,) = hidden
        assert bar.start_s >= -1e-12
        assert bar.start_s + bar.duration_s == pytest.approx(compute)
    else:
        assert hidden == []


def test_segment_labels_are_bilingual() -> None:
    t = step_timeline(1.0, 0.5, 0.5, bubble_s=0.1, input_wait_s=0.2, load_imbalance_s=0.3)
    kinds = [seg.kind for seg in t.segments()]
    assert kinds == ["compute", "hidden_communication", "communication", "bubble", "input", "load_imbalance"]
    assert [seg.label.render("en") for seg in t.segments()][-3:] == [
        "wait: pipeline bubble",
        "wait: input data",
        "wait: load imbalance",
    ]
    assert t.segments()[0].label.render("zh") == "计算"


def test_timeline_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        step_timeline(1.0, 1.0).step_s = 0.0  # type: ignore[misc]


def test_load_imbalance_is_the_mean_wait_for_the_straggler() -> None:
    # Four devices, one straggler 0.4 s slower: the others wait 0.4 s each, the straggler 0: mean 0.3 s.
    assert load_imbalance_s([1.0, 1.0, 1.0, 1.4]) == pytest.approx(Fraction(3, 10))
    assert load_imbalance_s((2.0, 2.0)) == 0.0


# ---------------------------------------------------------------------------
# Weak-scaling curve with a ring all-reduce
# ---------------------------------------------------------------------------


def _ring_s(p: int, size: float, bandwidth: float, latency: float) -> float:
    # Ring all-reduce (Patarasuk & Yuan 2009): 2(P-1) steps, each moving S/P bytes per link. nccl-tests
    # PERFORMANCE.md: bus bandwidth = algorithm bandwidth · 2(n-1)/n for all-reduce.
    return 2 * (p - 1) / p * size / bandwidth + 2 * (p - 1) * latency


@given(
    st.lists(st.integers(1, 4096), min_size=1, max_size=8),
    seconds,
    st.floats(1e6, 1e11),
    st.floats(1e9, 1e12),
    st.floats(0.0, 1e-4),
    fractions,
)
def test_curve_matches_the_ring_model(
    devices: list[int], compute: float, size: float, bandwidth: float, latency: float, overlap: float
) -> None:
    curve = scaling_curve(
        devices,
        single_device_step_s=compute,
        gradient_bytes=size,
        bandwidth_bytes_per_s=bandwidth,
        latency_s=latency,
        overlap_fraction=overlap,
    )
    assert curve.devices == tuple(devices)
    for point in curve.points:
        comm = _ring_s(point.devices, size, bandwidth, latency)
        assert point.timeline.communication_s == pytest.approx(comm)
        hidden = min(comm * overlap, compute)  # communication hides only under compute that exists
        assert point.step_s == pytest.approx(compute + comm - hidden)
        # Weak scaling: P devices do P times the work, so E(P) = step(1) / step(P).
        assert point.efficiency == pytest.approx(compute / point.step_s)
        assert point.efficiency == pytest.approx(
            scaling_efficiency(point.devices / point.step_s, point.devices, 1 / compute)
        )
        assert point.speedup == pytest.approx(point.devices * point.efficiency)
        assert 0 < point.efficiency <= 1


@given(seconds, st.floats(1e6, 1e11), st.floats(1e9, 1e12), st.floats(0.0, 1e-4), st.floats(0.0, 0.99))
def test_efficiency_falls_as_exposed_communication_grows(
    compute: float, size: float, bandwidth: float, latency: float, overlap: float
) -> None:
    devices = [1, 2, 4, 8, 64, 512]
    curve = scaling_curve(
        devices,
        single_device_step_s=compute,
        gradient_bytes=size,
        bandwidth_bytes_per_s=bandwidth,
        latency_s=latency,
        overlap_fraction=overlap,
    )
    assert curve.efficiencies[0] == 1.0
    assert all(b <= a for a, b in itertools.pairwise(curve.efficiencies))


def test_full_overlap_keeps_linear_scaling_while_communication_fits_under_compute() -> None:
    # 1 GB of gradients over 100 GB/s: at most 2·0.01 s of ring time, all hidden under 0.5 s of compute.
    curve = scaling_curve(
        [1, 8, 1024], single_device_step_s=0.5, gradient_bytes=1e9, bandwidth_bytes_per_s=100e9, overlap_fraction=1.0
    )
    assert curve.efficiencies == (1.0, 1.0, 1.0)


def test_curve_with_a_callable_and_its_limit() -> None:
    # Without overlap the ring term tends to 2·S/B, so E(P) tends to compute / (compute + 2·S/B).
    compute, size, bandwidth = 0.5, 2e9, 50e9
    curve = scaling_curve([10**6], single_device_step_s=compute, gradient_bytes=size, bandwidth_bytes_per_s=bandwidth)
    assert curve.efficiencies[0] == pytest.approx(compute / (compute + 2 * size / bandwidth), rel=1e-5)
    flat = scaling_curve([1, 4], single_device_step_s=1.0, communication_s_fn=lambda p: 0.25 if p > 1 else 0.0)
    assert flat.efficiencies == (1.0, float(Fraction(4, 5)))


# ---------------------------------------------------------------------------
# Diagnosis: decompose the step before blaming the strategy
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "dominant"),
    [
        ({"communication_s": 0.04, "bubble_s": 0.01}, "communication"),
        ({"communication_s": 0.04, "overlap_fraction": 1.0, "bubble_s": 0.01}, "bubble"),
        ({"communication_s": 0.0, "input_wait_s": 0.02, "bubble_s": 0.01}, "input"),
        ({"communication_s": 0.01, "load_imbalance_s": 0.02}, "load_imbalance"),
        ({"communication_s": 0.0}, "none"),
        ({"communication_s": 0.01, "bubble_s": 0.01}, "communication"),  # ties keep DIAGNOSIS_TERMS order
    ],
)
def test_dominant_term(kwargs: dict[str, float], dominant: str) -> None:
    timeline = step_timeline(0.1, **kwargs)
    diagnosis = diagnose_efficiency(timeline)
    assert isinstance(diagnosis, EfficiencyDiagnosis)
    assert diagnosis.dominant == dominant
    assert isinstance(diagnosis.reason, Reason) and diagnosis.reason.code == dominant
    assert [code for code, _ in diagnosis.terms] == list(DIAGNOSIS_TERMS)
    assert diagnosis.overhead_s == pytest.approx(timeline.step_s - timeline.compute_s)
    assert diagnosis.compute_fraction == pytest.approx(timeline.compute_s / timeline.step_s)


def test_falling_efficiency_with_a_sound_strategy() -> None:
    # Seed S18: E(P) falling does not by itself mean the strategy is wrong. A DP job whose gradient
    # all-reduce is fully hidden but whose data loader stalls: E(P) drops, the cause is the input.
    comm = 0.08
    timeline = step_timeline(0.5, comm, overlap_fraction=1.0, input_wait_s=0.1)
    efficiency = scaling_efficiency(8 / timeline.step_s, 8, 1 / 0.5)
    assert efficiency < 1
    assert diagnose_efficiency(timeline).dominant == "input"


def test_bubble_from_the_pipeline_module() -> None:
    # A pipeline step of 1 s of work per device with p = 4, m = 4 idles 3/7 of the step; as a timeline the
    # bubble is fraction/(1 - fraction) of the compute, and the diagnosis names it.
    fraction = bubble_fraction(4, 4)
    timeline = step_timeline(1.0, 0.0, bubble_s=fraction / (1 - fraction))
    assert timeline.bubble_s / timeline.step_s == pytest.approx(float(Fraction(3, 7)))
    assert diagnose_efficiency(timeline).dominant == "bubble"


def test_diagnosis_messages() -> None:
    timeline = step_timeline(0.100, 0.040, bubble_s=0.010)
    reason = diagnose_efficiency(timeline).reason
    assert reason.message == (
        "exposed communication takes 27% of the step (40 ms): overlap it with compute, send fewer bytes, "
        "or keep the frequent collectives on faster links."
    )
    coursekit.set_language("zh")
    assert reason.message == (
        "暴露的通信 (exposed communication) 占一步时间的 27%（40 ms）：先提高与计算的重叠、减少通信量，"
        "或把高频集合通信放到更快的链路上。"
    )
    assert diagnose_efficiency(step_timeline(0.25, 0.0)).reason.message.startswith("这一步只有计算（250 ms）")


def test_catalog_entries_share_placeholders() -> None:
    entries = {key: texts for key, texts in catalog().items() if key.startswith("scaling.")}
    assert entries
    for key, texts in entries.items():
        assert placeholders(texts["zh"]) == placeholders(texts["en"]), key


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: scaling_efficiency(0.0, 8, 1.0), ValueError, "throughput = 0.0: must be > 0."),
        (lambda: scaling_efficiency(1.0, 2.0, 1.0), TypeError, "devices = 2.0: must be an integer (int), not float."),
        (lambda: scaling_efficiency(1.0, 0, 1.0), ValueError, "devices = 0: must be >= 1."),
        (
            lambda: scaling_efficiency(1.0, 1, True),
            TypeError,
            "single_device_throughput = True: must be a real number (int or float), not bool.",
        ),
        (lambda: step_timeline(0.0, 1.0), ValueError, "compute_s = 0.0: must be > 0."),
        (lambda: step_timeline(1.0, -0.1), ValueError, "communication_s = -0.1: must be >= 0."),
        (lambda: step_timeline(1.0, 1.0, 1.5), ValueError, "overlap_fraction = 1.5: must be <= 1."),
        (
            lambda: step_timeline(1.0, 1.0, input_wait_s=float("inf")),
            ValueError,
            "input_wait_s = inf: must be a finite number (not NaN or infinity).",
        ),
        (lambda: step_timeline(1.0, 1.0, load_imbalance_s=-1), ValueError, "load_imbalance_s = -1: must be >= 0."),
        (lambda: load_imbalance_s([]), ValueError, "device_compute_s is empty: give at least one value."),
        (
            lambda: load_imbalance_s(1.0),
            TypeError,
            "device_compute_s = 1.0: must be a non-empty list or tuple, not float.",
        ),
        (lambda: load_imbalance_s([1.0, 0.0]), ValueError, "device_compute_s[1] = 0.0: must be > 0."),
        (
            lambda: scaling_curve([1, 8], single_device_step_s=1.0),
            ValueError,
            "no communication model: give communication_s_fn, or both gradient_bytes and bandwidth_bytes_per_s "
            "(for a ring all-reduce).",
        ),
        (
            lambda: scaling_curve([1, 8], single_device_step_s=1.0, gradient_bytes=1e9),
            ValueError,
            "no communication model: give communication_s_fn, or both gradient_bytes and bandwidth_bytes_per_s "
            "(for a ring all-reduce).",
        ),
        (
            lambda: scaling_curve([8], single_device_step_s=1.0, gradient_bytes=1e9, communication_s_fn=abs),
            ValueError,
            "two communication models: give communication_s_fn or gradient_bytes / bandwidth_bytes_per_s, not both.",
        ),
        (
            lambda: scaling_curve([8], single_device_step_s=1.0, communication_s_fn=0.5),
            TypeError,
            "communication_s_fn = 0.5: must be callable (devices -> seconds), not float.",
        ),
        (
            lambda: scaling_curve([8], single_device_step_s=1.0, communication_s_fn=lambda p: -1.0),
            ValueError,
            "communication_s_fn(1) = -1.0: must be >= 0.",
        ),
        (
            lambda: scaling_curve([], single_device_step_s=1.0, communication_s_fn=abs),
            ValueError,
            "devices_list is empty: give at least one value.",
        ),
        (
            lambda: scaling_curve(8, single_device_step_s=1.0, communication_s_fn=abs),
            TypeError,
            "devices_list = 8: must be a non-empty list or tuple, not int.",
        ),
        (
            lambda: scaling_curve([1, 0], single_device_step_s=1.0, communication_s_fn=abs),
            ValueError,
            "devices_list[1] = 0: must be >= 1.",
        ),
        (
            lambda: scaling_curve([8], single_device_step_s=1.0, gradient_bytes=1e9, bandwidth_bytes_per_s=0.0),
            ValueError,
            "bandwidth_bytes_per_s = 0.0: must be > 0.",
        ),
        (
            lambda: diagnose_efficiency(0.5),
            TypeError,
            "timeline = 0.5: must be a StepTimeline returned by step_timeline, not float.",
        ),
    ],
)
def test_messages(call: Callable[[], Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_chinese_message() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        scaling_curve([1, 8], single_device_step_s=1.0)
    assert str(info.value) == (
        "通信模型缺失：请给出 communication_s_fn，或同时给出 gradient_bytes 与 bandwidth_bytes_per_s"
        "（用环形全归约 (all-reduce) 估算）。"
    )
