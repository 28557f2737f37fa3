"""coursekit.widgets.communication: lesson 2's latency-vs-bandwidth picture, checked against coursekit."""

from __future__ import annotations

import math
import statistics
import time

import pytest

import coursekit
from coursekit.communication import CollectiveCost, collective_cost, communication_ledger, crossover_payload_mib
from coursekit.hardware import LINK_PRESETS
from coursekit.units import GIB_BYTES, MS_PER_S, US_PER_S, mib_to_bytes
from coursekit.widgets.communication import PAYLOAD_CHOICES_MIB, CommunicationWidget, call_cost, payload_label


def _send_recv(payload_mib: float, bandwidth_gib_s: float, latency_us: float) -> CollectiveCost:
    """One point-to-point call of lesson 2's ledger from the public collective formula, in the widget's units."""
    return collective_cost(
        "send_recv",
        payload_bytes=mib_to_bytes(payload_mib),
        ranks=2,
        bandwidth_bytes_per_s=bandwidth_gib_s * GIB_BYTES,
        latency_s=latency_us / US_PER_S,
    )


def test_default_is_the_lesson_2_high_frequency_ledger() -> None:
    w = CommunicationWidget()
    assert w.status == "ok" and w.result is not None
    assert w.result.ledger == communication_ledger(32, 24, 100, 5)
    assert w.result.crossover_mib == crossover_payload_mib(100, 5)
    assert w.values()["link"] == "example"


def test_the_former_link_name_loads_the_example_link_and_is_not_offered() -> None:
    w = CommunicationWidget(link="seed")
    assert w.values()["link"] == "example"
    assert w.result is not None and w.result.ledger == communication_ledger(32, 24, 100, 5)
    assert [value for _, value in w.controls["link"].options] == ["example", "intra_node", "cross_node"]


def test_an_unknown_link_names_the_argument_and_the_choices() -> None:
    with pytest.raises(ValueError) as info:
        CommunicationWidget(link="nvlink")
    assert str(info.value) == "link = 'nvlink': must be one of 'example', 'intra_node', 'cross_node'."


@pytest.mark.parametrize(
    ("payload", "calls", "bandwidth", "latency"),
    [(256.0, 1, 100.0, 5.0), (1 / 64, 96, 100.0, 5.0), (4.0, 512, 25.0, 0.0), (1024.0, 0, 1.0, 50.0)],
)
def test_controls_drive_the_ledger(payload: float, calls: int, bandwidth: float, latency: float) -> None:
    w = CommunicationWidget()
    with w.hold_updates():
        w.controls["payload_mib"].value = payload
        w.controls["calls_per_step"].value = calls
        w.controls["bandwidth_gib_s"].value = bandwidth
        w.controls["latency_us"].value = latency
    assert w.status == "ok" and w.result is not None
    assert w.result.ledger == communication_ledger(payload, calls, bandwidth, latency)
    assert w.result.crossover_mib == pytest.approx(crossover_payload_mib(bandwidth, latency))
    # one call is one point-to-point transfer: alpha + payload / B, unrounded
    expected = _send_recv(payload, bandwidth, latency)
    assert w.result.per_call.total_s == pytest.approx(expected.total_s)
    # ... and the ledger is that call times the calls, rounded to 3 decimals of a ms
    assert w.result.ledger.lower_bound_ms == pytest.approx(calls * expected.total_s * MS_PER_S, abs=6e-4)


def test_per_call_dominance_follows_the_crossover() -> None:
    w = CommunicationWidget()
    crossover = crossover_payload_mib(100, 5)
    for payload in PAYLOAD_CHOICES_MIB:
        w.controls["payload_mib"].value = payload
        assert w.result is not None
        expected = "latency" if payload < crossover else "bandwidth"
        assert w.result.per_call_dominant_term == expected
        assert w.result.ledger.dominant_term == expected  # 24 calls: the step agrees with one call


def test_curves_are_the_two_terms_and_their_sum() -> None:
    w = CommunicationWidget(link="cross_node")
    assert w.result is not None
    preset = LINK_PRESETS["cross_node"]
    for mib, latency, transfer, total in zip(
        w.result.curve_mib, w.result.latency_us, w.result.transfer_us, w.result.total_us, strict=True
    ):
        cost = call_cost(mib, preset.bandwidth_gib_s, preset.latency_us)
        assert latency == pytest.approx(preset.latency_us)
        assert transfer == pytest.approx(mib_to_bytes(mib) / preset.bandwidth_bytes_per_s * US_PER_S)
        assert total == pytest.approx(cost.total_s * US_PER_S)
    # at the crossover payload the two terms are equal
    cross = call_cost(w.result.crossover_mib, preset.bandwidth_gib_s, preset.latency_us)
    assert cross.latency_s == pytest.approx(cross.transfer_s)


def test_link_preset_loads_both_sliders_and_updates_once() -> None:
    w = CommunicationWidget()
    renders = w.render_count
    w.controls["link"].value = "intra_node"
    preset = LINK_PRESETS["intra_node"]
    assert w.controls["bandwidth_gib_s"].value == pytest.approx(preset.bandwidth_gib_s)
    assert w.controls["latency_us"].value == pytest.approx(preset.latency_us)
    assert w.result is not None
    assert w.result.ledger == communication_ledger(32, 24, preset.bandwidth_gib_s, preset.latency_us)
    assert w.render_count == renders + 1


def test_message_in_english_and_chinese() -> None:
    w = CommunicationWidget()
    assert w.result is not None
    assert w.message.endswith("<b>" + w.result.ledger.explain() + "</b>")
    assert "bandwidth-bound" in w.message and "payload* = 0.512 MiB" in w.message
    w.controls["payload_mib"].value = 1 / 64
    assert "The payload 16 KiB is below the crossover payload* = 0.512 MiB: latency-bound." in w.message
    coursekit.set_language("zh")
    w = CommunicationWidget(payload_mib=1 / 64)
    assert "载荷 16 KiB 低于分界载荷 payload* = 0.512 MiB：时延主导。" in w.message
    assert "时延主导 (latency-bound)" in w.message
    assert w.controls["calls_per_step"].description == "每步调用次数"


def test_zero_latency_hides_the_crossover() -> None:
    w = CommunicationWidget()
    w.controls["latency_us"].value = 0.0
    assert w.status == "ok" and w.result is not None
    assert w.result.crossover_mib == 0.0
    assert not w.crossover_line.get_visible()
    assert all(math.isnan(y) for y in w.latency_line.get_ydata())
    w.controls["calls_per_step"].value = 0
    assert w.result is not None and w.result.ledger.dominant_term == "none"
    assert "no communication in this step" in w.message


def test_figure_is_updated_in_place() -> None:
    w = CommunicationWidget()
    figure, ax = w.figure, w.ax
    lines = list(ax.lines)
    point_before = list(w.point.get_xdata())
    transfer_before = list(w.transfer_line.get_ydata())
    png_before = bytes(w.image.value)
    w.controls["payload_mib"].value = 256.0
    assert w.figure is figure and w.figure.axes == [ax] and list(ax.lines) == lines
    assert list(w.point.get_xdata()) == [256.0] != point_before
    w.controls["bandwidth_gib_s"].value = 50.0
    assert list(w.transfer_line.get_ydata()) != transfer_before
    assert list(w.crossover_line.get_xdata()) == [crossover_payload_mib(50.0, 5.0)] * 2
    assert bytes(w.image.value) != png_before


@pytest.mark.parametrize(
    ("control", "value", "message"),
    [
        ("bandwidth_gib_s", 0.0, "These inputs cannot be computed: bandwidth (GiB/s, one way) = 0.0: must be > 0."),
        ("latency_us", -1.0, "These inputs cannot be computed: latency (µs per call) = -1.0: must be >= 0."),
    ],
)
def test_invalid_inputs_give_a_friendly_message(control: str, value: float, message: str) -> None:
    w = CommunicationWidget()
    # the sliders offer only valid stops; add one as a learner's code could
    w.controls[control].options = (*w.controls[control].options, (str(value), value))
    w.controls[control].value = value
    assert w.status == "invalid" and w.result is None
    assert w.message == message


def test_invalid_message_in_chinese() -> None:
    coursekit.set_language("zh")
    w = CommunicationWidget()
    w.controls["bandwidth_gib_s"].options = (*w.controls["bandwidth_gib_s"].options, ("0", 0.0))
    w.controls["bandwidth_gib_s"].value = 0.0
    assert w.message == "这些输入无法计算：带宽 (GiB/s，单向) = 0.0：必须 > 0。"


@pytest.mark.parametrize(
    ("control", "start", "target"),
    [("bandwidth_gib_s", 100.0, 200.0), ("latency_us", 5.0, 2.5), ("calls_per_step", 24, 512)],
)
def test_try_this_values_are_a_few_presses_apart(control: str, start: float, target: float) -> None:
    """Try this, step 2 doubles the bandwidth and halves the latency; exercise 2.2 has 512 calls. With a 0.01 GiB/s
    step, 100 to 200 GiB/s took 10,000 arrow presses; every value the lesson names is now a stop a few presses away,
    and so is each link preset's."""
    w = CommunicationWidget()
    values = [value for _, value in w.controls[control].options]
    assert abs(values.index(target) - values.index(start)) <= 6  # End reaches 512 at once
    assert len(values) <= 16
    for preset in LINK_PRESETS.values():
        assert preset.bandwidth_gib_s in [value for _, value in w.controls["bandwidth_gib_s"].options]
        assert preset.latency_us in [value for _, value in w.controls["latency_us"].options]


def test_payload_label() -> None:
    assert [payload_label(v) for v in (0.0, 0.5, 1.0, 1536.0)] == ["0 MiB", "512 KiB", "1 MiB", "1.5 GiB"]
    with pytest.raises(ValueError, match=r"mib = -1: must be >= 0\."):
        payload_label(-1)


def test_update_time_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Measure the update time including the PNG render (reported, not asserted)."""
    w = CommunicationWidget()
    options = [value for _, value in w.controls["payload_mib"].options]
    times = []
    for i in range(50):
        start = time.perf_counter()
        w.controls["payload_mib"].value = options[(i + 1) % len(options)]
        times.append(time.perf_counter() - start)
    times.sort()
    with capsys.disabled():
        print(
            f"\nCommunicationWidget update incl. PNG: median {statistics.median(times) * 1e3:.1f} ms, "
            f"p95 {times[int(0.95 * len(times)) - 1] * 1e3:.1f} ms"
        )
    assert w.render_count >= 50


@pytest.mark.parametrize(
    ("link", "payload_mib", "bandwidth_gib_s", "latency_us"),
    [("example", 32.0, 100.0, 5.0), ("cross_node", 1 / 64, 12.5, 12.0), ("intra_node", 4096.0, 450.0, 0.0)],
)
def test_shown_numbers_are_the_collective_formulas(
    link: str, payload_mib: float, bandwidth_gib_s: float, latency_us: float
) -> None:
    """What the learner reads (message, crossover label) and sees (the three curves, the dot) for a few states,
    against collective_cost of one send_recv and crossover_payload_mib, called here on each payload."""
    # a bandwidth or latency the sliders do not offer becomes one of their stops
    w = CommunicationWidget(link=link, payload_mib=payload_mib, bandwidth_gib_s=bandwidth_gib_s, latency_us=latency_us)
    assert w.status == "ok" and w.result is not None

    def one_call(mib: float) -> tuple[float, float]:
        cost = _send_recv(mib, bandwidth_gib_s, latency_us)
        return cost.latency_s * US_PER_S, cost.transfer_s * US_PER_S

    curve_mib = list(w.total_line.get_xdata())
    expected = [one_call(mib) for mib in curve_mib]
    assert len(curve_mib) > 80
    for line, term in ((w.latency_line, 0), (w.transfer_line, 1)):
        shown = list(line.get_ydata())
        assert [v for v in shown if not math.isnan(v)] == [e[term] for e in expected if e[term] > 0]
    assert list(w.total_line.get_ydata()) == [a + b for a, b in expected]
    latency, transfer = one_call(payload_mib)
    assert list(w.point.get_ydata()) == [latency + transfer]
    crossover = crossover_payload_mib(bandwidth_gib_s, latency_us)
    if crossover > 0:
        assert f"latency {latency:.3g} µs, transfer {transfer:.3g} µs" in w.message
        assert w.crossover_text.get_text() == f"payload* = {crossover:.3g} MiB"
        assert list(w.crossover_line.get_xdata()) == [crossover, crossover]
    else:
        assert not w.crossover_text.get_visible()
