"""coursekit.widgets.pipeline: the Gantt chart widget of lesson 5 against independent coursekit calls."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.patches import PathPatch

import coursekit
from coursekit.pipeline import (
    DEFAULT_BACKWARD_S,
    DEFAULT_FORWARD_S,
    bubble_fraction,
    bubble_overhead,
    simulate_schedule,
)
from coursekit.plotting import cjk_font_family
from coursekit.widgets.pipeline import (
    MAX_MICROBATCHES,
    MAX_STAGES,
    MAX_VIRTUAL_STAGES,
    PipelineWidget,
    pipeline_view,
)


def _bar_count(w: PipelineWidget) -> int:
    """Rectangles drawn by the bar patches: each rectangle is 5 path vertices (the empty path has 1)."""
    return sum(len(patch.get_path().vertices) // 5 for patch in w.bars.values())


def test_default_matches_the_simulator_and_the_formula() -> None:
    w = PipelineWidget()
    assert w.status == "ok" and w.result is not None
    expected = simulate_schedule(4, 8, schedule="1f1b")
    assert w.result.schedule == expected
    assert w.result.simulated_fraction == expected.idle_fraction
    assert w.result.formula_fraction == bubble_fraction(4, 8)
    assert w.result.formula_overhead == bubble_overhead(4, 8)
    assert _bar_count(w) == len(expected.events)


@pytest.mark.parametrize(
    ("stages", "microbatches", "schedule", "virtual"),
    [(4, 4, "1f1b", 1), (4, 16, "1f1b", 1), (8, 16, "gpipe", 1), (4, 8, "interleaved", 2), (8, 16, "interleaved", 4)],
)
def test_controls_drive_the_simulation(stages: int, microbatches: int, schedule: str, virtual: int) -> None:
    w = PipelineWidget()
    with w.hold_updates():
        w.controls["stages"].value = stages
        w.controls["microbatches"].value = microbatches
        w.controls["schedule"].value = schedule
        w.controls["virtual_stages"].value = virtual
    assert w.status == "ok" and w.result is not None
    expected = simulate_schedule(stages, microbatches, schedule=schedule, virtual_stages=virtual)
    assert w.result.schedule.makespan_s == expected.makespan_s
    assert w.result.schedule.peak_inflight_per_stage == expected.peak_inflight_per_stage
    assert w.result.simulated_fraction == pytest.approx(bubble_fraction(stages, microbatches, virtual), abs=1e-12)
    assert _bar_count(w) == 2 * stages * microbatches * virtual
    peaks = ", ".join(str(peak) for peak in expected.peak_inflight_per_stage)
    assert peaks in w.message


def test_slow_stage_exceeds_the_formula() -> None:
    w = PipelineWidget(slow_stage=2, slow_factor=1.5)
    assert w.status == "ok" and w.result is not None
    factors = [1.5 if s == 2 else 1.0 for s in range(4)]
    expected = simulate_schedule(
        4,
        8,
        stage_forward_s=[DEFAULT_FORWARD_S * f for f in factors],
        stage_backward_s=[DEFAULT_BACKWARD_S * f for f in factors],
    )
    assert w.result.schedule == expected
    excess = expected.idle_fraction - bubble_fraction(4, 8)
    assert excess > 0
    points = f"{100 * excess:.1f} percentage points"  # two shares' difference: points, not a relative per cent
    assert f"Device 2 is 1.5× slower: the idle share exceeds the formula by {points}." in w.message
    # the slow device's tick label is highlighted
    assert w.ax.get_yticklabels()[2].get_color() != w.ax.get_yticklabels()[0].get_color()


def test_message_in_english() -> None:
    w = PipelineWidget(microbatches=4)
    fraction = bubble_fraction(4, 4)
    assert w.message.startswith(
        f"Simulated bubble (idle share of the step): <b>{fraction:.1%}</b>; "
        f"formula (p-1)/(v·m+p-1) = <b>{fraction:.1%}</b>."
    )
    assert "Balanced stages and no transfer time: the simulation matches the formula." in w.message
    assert f"(p-1)/(v·m) = {bubble_overhead(4, 4):.1%}" in w.message
    assert "Peak in-flight micro-batches per device (activations held at once): 4, 3, 2, 1." in w.message


def test_message_and_labels_in_chinese() -> None:
    coursekit.set_language("zh")
    w = PipelineWidget(microbatches=16)
    fraction = bubble_fraction(4, 16)
    assert w.message.startswith(f"模拟的气泡（一步中设备空闲的占比）：<b>{fraction:.1%}</b>")
    assert "各阶段均衡、没有传输时间：模拟与公式一致。" in w.message
    assert w.controls["microbatches"].description == "微批次数 m"
    assert w.controls["slow_stage"].label == "无"
    w.controls["slow_stage"].value = 1
    assert w.status == "ok" and w.result is not None and w.result.slow_stage == 1
    w.controls["slow_stage"].value = "none"
    assert w.result.slow_stage is None
    expected_tick = "设备 0" if cjk_font_family() is not None else "device 0"
    assert w.ax.get_yticklabels()[0].get_text() == expected_tick


def test_same_figure_and_artists_updated_in_place() -> None:
    w = PipelineWidget(microbatches=4)
    figure, ax, patches, idle = w.figure, w.ax, dict(w.bars), w.idle
    paths_before = {key: patch.get_path() for key, patch in w.bars.items()}
    png_before = bytes(w.image.value)
    w.controls["microbatches"].value = 12
    assert w.figure is figure and w.figure.axes == [ax]
    assert w.bars == patches and w.idle is idle
    assert all(isinstance(patch, PathPatch) for patch in w.bars.values())
    assert w.bars[("F", 0)].get_path() is not paths_before[("F", 0)]
    assert _bar_count(w) == 2 * 4 * 12
    assert ax.get_xlim()[1] == pytest.approx(simulate_schedule(4, 12).makespan_s * 1.01)
    assert bytes(w.image.value) != png_before and bytes(w.image.value).startswith(b"\x89PNG")


def test_captions_only_for_small_shapes() -> None:
    w = PipelineWidget(microbatches=4)
    shown = [c.get_text() for c in w.captions if c.get_visible()]
    assert len(shown) == 2 * 4 * 4 and "F0" in shown and "B3" in shown
    w.controls["microbatches"].value = 16
    assert not any(c.get_visible() for c in w.captions)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            {"schedule": "interleaved", "virtual_stages": 1},
            "These inputs cannot be computed: 'interleaved 1F1B (v >= 2)' needs 'model chunks per device v' of at "
            "least 2: move that slider to 2 or more, or pick 1F1B under 'schedule'.",
        ),
        (
            {"virtual_stages": 2},
            "These inputs cannot be computed: 'model chunks per device v' = 2 only means something for "
            "'interleaved 1F1B (v >= 2)': pick it under 'schedule', or move v back to 1.",
        ),
        (
            {"schedule": "interleaved", "microbatches": 6},
            "These inputs cannot be computed: 'interleaved 1F1B (v >= 2)' needs 'micro-batches m' to be a multiple "
            "of 'pipeline stages p' (now m = 6, p = 4): move m to one of 4, 8, 12, 16, or pick 1F1B under "
            "'schedule'.",
        ),
    ],
)
def test_invalid_combinations_give_a_friendly_message(values: dict[str, object], message: str) -> None:
    w = PipelineWidget()
    with w.hold_updates():
        for key, value in values.items():
            w.controls[key].value = value
    assert w.status == "invalid" and w.result is None
    assert w.message == message
    assert "Traceback" not in w.message_html.value


def test_messages_name_the_controls_not_code_parameters() -> None:
    coursekit.set_language("zh")
    w = PipelineWidget()
    with w.hold_updates():
        w.controls["schedule"].value = "interleaved"
        w.controls["virtual_stages"].value = 1
    assert w.status == "invalid"
    assert "virtual_stages" not in w.message and "schedule=" not in w.message
    assert "“每设备模型块数 v”" in w.message and "“调度 (schedule)”" in w.message
    w.controls["virtual_stages"].value = 2
    w.controls["microbatches"].value = 6
    assert "请把 m 调到 4、8、12、16 之一" in w.message  # a Chinese list, not "4, 8, 12, 16"


def test_slow_stage_menu_offers_the_devices_of_the_pipeline_only() -> None:
    # The menu listed devices 0 to 7 whatever p was: at p = 4, devices 4 to 7 do not exist.
    w = PipelineWidget()
    menu = w.controls["slow_stage"]
    for stages in (4, 8, 2, 1, 4):
        w.controls["stages"].value = stages
        assert [value for _, value in menu.options] == ["none", *range(stages)], stages
        assert w.status == "ok"
    w.controls["stages"].value = 8
    w.controls["slow_stage"].value = 6
    assert w.result is not None and w.result.slow_stage == 6
    renders = w.render_count
    w.controls["stages"].value = 4  # device 6 is gone: back to "none", in one update
    assert (menu.value, w.status, w.result.slow_stage, w.render_count) == ("none", "ok", None, renders + 1)
    w.controls["slow_stage"].value = 2
    w.controls["stages"].value = 3  # device 2 is still there: kept
    assert menu.value == 2 and w.result.slow_stage == 2


def test_compute_refuses_a_slow_stage_the_pipeline_does_not_have() -> None:
    coursekit.set_language("zh")
    w = PipelineWidget()
    with pytest.raises(ValueError) as info:
        w.compute(**{**w.values(), "stages": 2, "slow_stage": 3})
    expected = "slow_stage = 3：慢阶段选了设备 3，但 p = 2 时设备编号只有 0 到 1；请换一个设备，或选“无”。"
    assert str(info.value) == expected
    assert w.compute(**{**w.values(), "stages": 8, "slow_stage": 6}).slow_stage == 6  # not the menu of p = 4
    with pytest.raises(ValueError, match=r"^slow_stage = 8：必须在 0 到 7 之间。$"):
        w.compute(**{**w.values(), "slow_stage": 8})


def test_switching_to_interleaved_and_back_keeps_v_consistent() -> None:
    # The issue: after interleaved (v = 2) and back to 1F1B, v stayed 2 and the widget blocked.
    w = PipelineWidget()
    assert w.controls["virtual_stages"].disabled
    w.controls["schedule"].value = "interleaved"
    assert (w.status, w.controls["virtual_stages"].value, w.controls["virtual_stages"].disabled) == ("ok", 2, False)
    assert w.result is not None and w.result.formula_fraction == bubble_fraction(4, 8, 2)  # 3/19
    assert "each holds 1/2 of the device&#x27;s layers" in w.message  # the message is HTML
    w.controls["virtual_stages"].value = 4
    w.controls["schedule"].value = "1f1b"
    assert (w.status, w.controls["virtual_stages"].value, w.controls["virtual_stages"].disabled) == ("ok", 1, True)
    assert w.result is not None and w.result.formula_fraction == bubble_fraction(4, 8)  # 3/11
    w.controls["schedule"].value = "gpipe"
    assert w.status == "ok" and w.controls["virtual_stages"].value == 1


def test_recovers_after_an_invalid_combination() -> None:
    w = PipelineWidget()
    with w.hold_updates():
        w.controls["schedule"].value = "interleaved"
        w.controls["microbatches"].value = 6
    assert w.status == "invalid"
    w.controls["microbatches"].value = 8
    assert w.status == "ok" and w.result is not None
    assert w.result.formula_fraction == bubble_fraction(4, 8, 2)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"stages": 100}, ValueError, "stages = 100: must be between 1 and 8."),
        ({"microbatches": 0}, ValueError, "microbatches = 0: must be between 1 and 16."),
        ({"schedule": "zb"}, ValueError, "schedule = 'zb': must be one of 'gpipe', '1f1b', 'interleaved'."),
        ({"virtual_stages": 5}, ValueError, "virtual_stages = 5: must be between 1 and 4."),
        ({"slow_stage": 8}, ValueError, "slow_stage = 8: must be between 0 and 3."),
        ({"stages": 2, "slow_stage": 3}, ValueError, "slow_stage = 3: must be between 0 and 1."),
        ({"slow_factor": 4.0}, ValueError, "slow_factor = 4.0: must be between 1.0 and 3.0."),
        ({"stages": 2.0}, TypeError, "stages = 2.0: must be an integer (int), not float."),
    ],
)
def test_constructor_refuses_values_the_controls_cannot_show(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        PipelineWidget(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_constructor_with_interleaved_starts_at_two_chunks() -> None:
    w = PipelineWidget(schedule="interleaved")
    assert (w.status, w.controls["virtual_stages"].value) == ("ok", 2)


def test_slider_caps_bound_the_bars() -> None:
    w = PipelineWidget()
    assert w.controls["stages"].max == MAX_STAGES
    assert w.controls["microbatches"].max == MAX_MICROBATCHES
    assert w.controls["virtual_stages"].max == MAX_VIRTUAL_STAGES
    assert w.main_control == "microbatches"


def test_pipeline_view_validates_inputs() -> None:
    with pytest.raises(ValueError, match=r"^slow_factor = 0.5: must be >= 1\.$"):
        pipeline_view(4, 8, slow_stage=1, slow_factor=0.5)
    with pytest.raises(TypeError, match=r"^slow_stage = 1.0: must be an integer \(int\), not float\.$"):
        pipeline_view(4, 8, slow_stage=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^schedule = 'zb': must be one of 'gpipe', '1f1b', 'interleaved'\.$"):
        pipeline_view(4, 8, schedule="zb")


@settings(max_examples=40, deadline=None)
@given(
    stages=st.integers(1, MAX_STAGES),
    groups=st.integers(1, MAX_MICROBATCHES // MAX_STAGES),
    virtual=st.integers(1, MAX_VIRTUAL_STAGES),
    factor=st.sampled_from([1.0, 1.25, 2.0, 3.0]),
)
def test_view_property_balanced_matches_formula_and_slow_never_beats_it(
    stages: int, groups: int, virtual: int, factor: float
) -> None:
    microbatches = groups * stages if virtual > 1 else min(groups * stages, MAX_MICROBATCHES)
    schedule = "interleaved" if virtual > 1 else "1f1b"
    balanced = pipeline_view(stages, microbatches, schedule, virtual)
    assert balanced.simulated_fraction == pytest.approx(bubble_fraction(stages, microbatches, virtual), abs=1e-12)
    slow = pipeline_view(stages, microbatches, schedule, virtual, slow_stage=stages - 1, slow_factor=factor)
    assert slow.simulated_fraction >= balanced.simulated_fraction - 1e-12
    assert slow.schedule.makespan_s >= balanced.schedule.makespan_s


def test_rows_and_title_follow_the_stages_back_and_forth() -> None:
    """The device rows are set again only when p changes: after 4 -> 2 -> 4 -> 8 the figure shows p rows and
    the title the closed form of lesson 6 for that p."""
    w = PipelineWidget(stages=4, microbatches=8)
    for p in (2, 4, 4, 8, 1):
        w.controls["stages"].value = p
        assert w.status == "ok"
        assert [t.get_text() for t in w.ax.get_yticklabels()] == [f"device {s}" for s in range(p)]
        assert list(w.ax.get_yticks()) == list(range(p))
        assert w.ax.get_ylim() == (p - 0.5, -0.5)
        assert f"(p-1)/(v·m+p-1) = {bubble_fraction(p, 8):.1%}" in w.title.get_text()
        assert f"p = {p}, m = 8, v = 1" in w.title.get_text()
