"""coursekit.widgets.scaling: the E(P) widget of lesson 5 against independent coursekit calls."""

from __future__ import annotations

import pytest

import coursekit
from coursekit.hardware import IB_NDR_BYTES_PER_S
from coursekit.scaling import ScalingCurve, diagnose_efficiency, scaling_curve, step_timeline
from coursekit.units import GB_BYTES, MS_PER_S
from coursekit.widgets import significant
from coursekit.widgets.scaling import DEVICE_COUNTS, ScalingWidget, scaling_view


def _curve(overlap: float, bandwidth_gb_s: float, gradient_gb: float, compute_ms: float) -> ScalingCurve:
    return scaling_curve(
        list(DEVICE_COUNTS),
        single_device_step_s=compute_ms / MS_PER_S,
        gradient_bytes=gradient_gb * GB_BYTES,
        bandwidth_bytes_per_s=bandwidth_gb_s * GB_BYTES,
        overlap_fraction=overlap,
    )


def test_default_is_the_cross_node_link() -> None:
    w = ScalingWidget()
    assert w.controls["bandwidth_gb_s"].value == IB_NDR_BYTES_PER_S / GB_BYTES
    assert w.status == "ok" and w.result is not None
    expected = _curve(0.0, IB_NDR_BYTES_PER_S / GB_BYTES, 14.0, 500.0)
    assert w.result.curve == expected
    assert w.result.diagnosis == diagnose_efficiency(expected.points[-1].timeline)


def test_overlap_raises_efficiency_and_moves_the_artists() -> None:
    w = ScalingWidget()
    figure, line, compute_bar = w.figure, w.curve_line, w.segments["compute"]
    before = w.result.last_efficiency if w.result else None
    exposed_before = w.segments["communication"].get_width()
    png_before = bytes(w.image.value)
    w.controls["overlap"].value = 0.8
    assert w.result is not None and before is not None
    expected = _curve(0.8, 50.0, 14.0, 500.0)
    assert w.result.last_efficiency == expected.efficiencies[-1] > before
    assert w.figure is figure and w.curve_line is line and w.segments["compute"] is compute_bar
    assert list(line.get_ydata()) == list(expected.efficiencies)
    timeline = expected.points[-1].timeline
    assert w.segments["communication"].get_width() == pytest.approx(timeline.exposed_communication_s * MS_PER_S)
    assert w.segments["communication"].get_width() < exposed_before
    assert w.segments["hidden_communication"].get_width() == pytest.approx(timeline.hidden_communication_s * MS_PER_S)
    assert bytes(w.image.value) != png_before


def test_message_in_english() -> None:
    w = ScalingWidget(overlap=0.5)
    point = _curve(0.5, 50.0, 14.0, 500.0).points[-1]
    assert w.message.startswith(
        f"E(512) = <b>{point.efficiency:.2f}</b>: 512 devices give {point.speedup:.0f}× the throughput of one, "
        "not 512×."
    )
    assert "Diagnosis: exposed communication takes" in w.message
    assert "This is a model, not a measurement" in w.message


def test_message_in_chinese() -> None:
    coursekit.set_language("zh")
    w = ScalingWidget()
    assert w.message.startswith("E(512) = <b>")
    assert "诊断：暴露的通信 (exposed communication) 占一步时间的" in w.message
    assert w.controls["overlap"].description == "通信与计算重叠比例"


def test_pure_compute_when_communication_is_negligible() -> None:
    view = scaling_view(1.0, 450.0, 0.5, 2000.0)  # everything hides under compute
    assert view.diagnosis.dominant == "none"
    assert view.last_efficiency == 1.0
    assert view.diagnosis == diagnose_efficiency(
        step_timeline(2.0, view.curve.points[-1].timeline.communication_s, 1.0)
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"bandwidth_gb_s": 0.0}, ValueError, "bandwidth_gb_s = 0.0: must be > 0."),
        ({"overlap": 1.5}, ValueError, "overlap_fraction = 1.5: must be <= 1."),
        ({"compute_ms": True}, TypeError, "compute_ms = True: must be a real number (int or float), not bool."),
    ],
)
def test_scaling_view_validates(kwargs: dict[str, object], error: type[Exception], message: str) -> None:
    values: dict[str, object] = {"overlap": 0.0, "bandwidth_gb_s": 50.0, "gradient_gb": 14.0, "compute_ms": 500.0}
    values.update(kwargs)
    with pytest.raises(error) as info:
        scaling_view(**values)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_invalid_value_in_the_widget_is_a_message() -> None:
    w = ScalingWidget()
    w.controls["compute_ms"].options = [("-1", -1.0), ("500", 500.0)]
    w.controls["compute_ms"].value = -1.0
    assert w.status == "invalid" and w.result is None
    assert w.message == "These inputs cannot be computed: compute per step (ms) = -1.0: must be > 0."


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_at_the_ideal_the_verdict_says_it_is_reached(lang: str) -> None:
    """E = 1.00 is not "512x, not 512x": all communication hidden says the ideal is reached; next to it, nearly."""
    coursekit.set_language(lang)
    try:
        ideal = ScalingWidget(overlap=1.0, gradient_gb=0.5)
        assert ideal.result is not None and ideal.result.last_efficiency == 1.0
        first = ideal.message.split("<br>")[0]
        assert ("不是 512 倍" not in first) and ("not 512×" not in first)
        assert ("达到了理想的线性扩展" if lang == "zh" else "the ideal linear scaling") in first
        near = ScalingWidget(bandwidth_gb_s=450.0, gradient_gb=0.5, compute_ms=2000.0)  # E = 0.999, shown as 1.00
        assert (
            near.result is not None
            and f"{near.result.last_efficiency:.2f}" == "1.00"
            and near.result.last_efficiency < 1
        )
        first = near.message.split("<br>")[0]
        assert ("不是 512 倍" not in first) and ("not 512×" not in first)
        assert ("接近理想的线性扩展" if lang == "zh" else "close to the ideal linear scaling") in first
        below = ScalingWidget()
        assert ("不是 512 倍" if lang == "zh" else "not 512×") in below.message
    finally:
        coursekit.set_language("en")


@pytest.mark.parametrize(("gradient_gb", "compute_ms"), [(40.0, 500.0), (14.0, 2000.0), (40.0, 2000.0), (0.5, 50.0)])
def test_milliseconds_are_plain_numbers_and_agree_between_lines(gradient_gb: float, compute_ms: float) -> None:
    """The diagnosis writes its milliseconds as the step line does: 1497 ms, never 1.5e+03 ms."""
    w = ScalingWidget(gradient_gb=gradient_gb, compute_ms=compute_ms)
    assert w.result is not None and "e+" not in w.message and "e-" not in w.message
    step, diagnosis = w.message.split("<br>")[1:3]
    timeline = w.result.curve.points[-1].timeline
    exposed = significant(timeline.exposed_communication_s * MS_PER_S)
    assert f"exposed communication {exposed} ms" in step and f"({exposed} ms)" in diagnosis


def test_the_bandwidth_steps_reach_the_lessons_values_in_a_few_presses() -> None:
    """Try this, step 2 moves the bandwidth from 50 GB/s (one 400 Gb/s NDR port: 400 / 8) to 450 GB/s (H100 NVLink,
    900 GB/s both directions / 2); with a 5 GB/s step that took 80 arrow presses, and crossing the slider 89. The
    gradient slider's 0.5 GB step took 79 presses from end to end."""
    w = ScalingWidget()
    bandwidths = [value for _, value in w.controls["bandwidth_gb_s"].options]
    assert w.controls["bandwidth_gb_s"].value == 400 / 8
    assert abs(bandwidths.index(900 / 2) - bandwidths.index(400 / 8)) <= 5 and len(bandwidths) <= 12
    gradients = [value for _, value in w.controls["gradient_gb"].options]
    assert w.controls["gradient_gb"].value == 7 * 2  # 7e9 bf16 gradients: 14 GB
    assert {0.5, 14.0, 40.0} <= set(gradients) and len(gradients) <= 12
    assert [value for _, value in ScalingWidget(bandwidth_gb_s=37.0).controls["bandwidth_gb_s"].options].count(
        37.0
    ) == 1
