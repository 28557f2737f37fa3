"""coursekit.widgets.capacity: lesson 1's per-rank memory bar, checked against independent coursekit calls."""

from __future__ import annotations

import statistics
import time

import pytest

import coursekit
from coursekit.capacity import activation_memory, build_resource_ledger, training_state_memory
from coursekit.pipeline import warmup_microbatches
from coursekit.plotting import cjk_font_family
from coursekit.shapes import MODEL_SHAPES
from coursekit.units import bytes_to_gib
from coursekit.widgets.capacity import ZERO_STAGES, CapacityWidget


def _expected_ledger(
    *,
    model: str,
    recipe: str,
    stage: int,
    dp: int,
    tp: int,
    pp: int,
    seq_len: int,
    micro_batch: int,
    recompute: str,
    reserve: float,
    device: float,
) -> tuple[float, float, bool]:
    """(state GiB, activation GiB, fits) computed without the widget."""
    shape = MODEL_SHAPES[model]
    state = training_state_memory(shape.num_params, dp=dp, zero_stage=stage, tp=tp, pp=pp, recipe=recipe)
    activations = activation_memory(
        seq_len=seq_len,
        micro_batch=micro_batch,
        hidden=shape.hidden,
        heads=shape.heads,
        layers=shape.layers // pp,
        tp=tp,
        recompute=recompute,
    )
    in_flight = warmup_microbatches(pp, pp, 0) + 1
    activation_gib = bytes_to_gib(activations) * in_flight
    ledger = build_resource_ledger(state.total_gib, activation_gib, reserve, device)
    return state.total_gib, activation_gib, ledger.fits_one_device


def test_default_matches_coursekit() -> None:
    w = CapacityWidget()
    assert w.status == "ok" and w.result is not None
    state_gib, activation_gib, fits = _expected_ledger(
        model="megatron-7.5b",
        recipe="zero-fp16-adam",
        stage=0,
        dp=8,
        tp=1,
        pp=1,
        seq_len=2048,
        micro_batch=1,
        recompute="selective",
        reserve=2.0,
        device=80.0,
    )
    assert w.result.state.total_gib == pytest.approx(state_gib)
    assert w.result.activation_gib == pytest.approx(activation_gib)
    assert w.result.ledger.fits_one_device is fits is False
    assert w.result.in_flight == 1
    # the bar's five components add up to the ledger's requirement
    assert sum(w.result.segments_gib) == pytest.approx(w.result.ledger.required_gib, abs=0.006)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"zero_stage": 1}, dict(stage=1)),
        ({"zero_stage": 3, "dp": 64}, dict(stage=3, dp=64)),
        ({"tp": 8, "recompute": "none"}, dict(tp=8, recompute="none")),
        ({"pp": 4, "micro_batch": 2}, dict(pp=4, micro_batch=2)),
        (
            {"model": "megatron-18.4b", "recipe": "megatron-bf16", "zero_stage": 2},
            dict(model="megatron-18.4b", recipe="megatron-bf16", stage=2),
        ),
        ({"seq_len": 8192, "recompute": "full", "device_gib": 24.0}, dict(seq_len=8192, recompute="full", device=24.0)),
        ({"reserve_gib": 6.5, "zero_stage": 2}, dict(reserve=6.5, stage=2)),
    ],
)
def test_controls_drive_the_ledger(changes: dict[str, object], expected: dict[str, object]) -> None:
    w = CapacityWidget()
    with w.hold_updates():
        for name, value in changes.items():
            w.controls[name].value = value
    inputs: dict[str, object] = dict(
        model="megatron-7.5b",
        recipe="zero-fp16-adam",
        stage=0,
        dp=8,
        tp=1,
        pp=1,
        seq_len=2048,
        micro_batch=1,
        recompute="selective",
        reserve=2.0,
        device=80.0,
    )
    inputs.update(expected)
    state_gib, activation_gib, fits = _expected_ledger(**inputs)  # type: ignore[arg-type]
    assert w.status == "ok" and w.result is not None
    assert w.result.state.total_gib == pytest.approx(state_gib)
    assert w.result.activation_gib == pytest.approx(activation_gib)
    assert w.result.ledger.fits_one_device is fits


def test_pipeline_keeps_pp_micro_batches_in_flight() -> None:
    w = CapacityWidget(pp=4)
    assert w.result is not None
    assert w.result.in_flight == 4
    one_stage = activation_memory(seq_len=2048, micro_batch=1, hidden=4096, heads=32, layers=9, recompute="selective")
    assert w.result.activation_gib == pytest.approx(bytes_to_gib(one_stage) * 4)


def test_smallest_fitting_stage_is_the_first_fitting_ledger() -> None:
    w = CapacityWidget(device_gib=40.0)
    assert w.result is not None
    fits = [ledger.fits_one_device for ledger in w.result.stage_ledgers]
    assert fits == [False, False, True, True]
    assert w.result.smallest_fitting_stage == 2
    assert "smallest ZeRO stage that fits is 2" in w.message
    w.controls["model"].value = "gpt3-175b"
    assert w.result is not None and w.result.smallest_fitting_stage is None
    assert "Not even ZeRO-3 fits" in w.message


def test_message_in_english_and_chinese() -> None:
    w = CapacityWidget(zero_stage=1)
    assert w.result is not None
    assert w.message.startswith("<b>" + w.result.ledger.explain() + "</b>")
    assert "Needs 49.81 GiB of 80.0 GiB device memory" in w.message
    coursekit.set_language("zh")
    w = CapacityWidget(zero_stage=1)
    assert "需要 49.81 GiB，设备显存 80.0 GiB" in w.message
    assert "能放下的最小 ZeRO 阶段是 1" in w.message
    assert w.controls["zero_stage"].description == "ZeRO 阶段"


def test_figure_is_updated_in_place() -> None:
    w = CapacityWidget()
    figure, ax = w.figure, w.ax
    bars = [list(row) for row in w.bars]
    line = w.device_line
    widths_before = [bar.get_width() for row in bars for bar in row]
    png_before = bytes(w.image.value)
    w.controls["zero_stage"].value = 3
    w.controls["device_gib"].value = 24.0
    assert w.figure is figure and w.figure.axes == [ax]
    assert [list(row) for row in w.bars] == bars and w.device_line is line
    assert [bar.get_width() for row in bars for bar in row] == widths_before  # same bars: the stages did not change
    assert [bar.get_alpha() for bar in bars[0]] == [0.3, 0.3, 0.3, 1.0]
    assert list(line.get_xdata()) == [24.0, 24.0]
    w.controls["dp"].value = 16
    assert [bar.get_width() for row in bars for bar in row] != widths_before
    assert bytes(w.image.value) != png_before


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"model": "megatron-1.7b", "tp": 16},
            "These inputs cannot be computed: tensor-parallel degree TP = 16: must divide heads = 24.",
        ),
    ],
)
def test_invalid_combinations_give_a_friendly_message(changes: dict[str, object], message: str) -> None:
    w = CapacityWidget()
    with w.hold_updates():
        for name, value in changes.items():
            w.controls[name].value = value
    assert w.status == "invalid" and w.result is None
    assert w.message == message
    assert "Traceback" not in w.message_html.value


def test_invalid_message_in_chinese() -> None:
    coursekit.set_language("zh")
    w = CapacityWidget()
    with w.hold_updates():
        w.controls["model"].value = "megatron-1.7b"
        w.controls["tp"].value = 16
    assert w.status == "invalid" and w.verdict == "invalid"
    assert w.message == "这些输入无法计算：张量并行度 TP = 16：必须整除 heads = 24。"
    assert "coursekit-invalid" in w.message_html.value
    expected = "输入无效，见上方说明" if cjk_font_family() is not None else "Invalid input: see the message above"
    assert w._veil_text.get_text() == expected


def test_every_stage_row_is_drawn() -> None:
    w = CapacityWidget()
    assert len(w.value_texts) == len(ZERO_STAGES)
    # Words, not check-mark glyphs: ZeRO-0 of the 7.5B model at DP = 8 needs more than 80 GiB.
    assert [t.get_text().endswith("does not fit") for t in w.value_texts] == [True, False, False, False]
    assert [t.get_text().endswith(" fits") for t in w.value_texts] == [False, True, True, True]


def test_uneven_pipeline_split_is_a_warning_like_lesson_3() -> None:
    # Lesson 3's PP rule: 36 layers over pp = 8 stages runs (stages of 4 and 5 layers) but the heaviest
    # stage sets the pace; lesson 1's widget must warn, not refuse. The ledger is the heaviest stage's:
    # ceil(36 / 8) = 5 layers, holding 5/36 of the parameters (spread with the layers).
    w = CapacityWidget(zero_stage=1)
    w.controls["pp"].value = 8
    assert w.status == "ok" and w.result is not None
    assert w.verdict == "warning"
    assert [r.code for r in w.result.warnings] == ["pp_balance"]
    assert w.result.stage_layers == 5
    shape = MODEL_SHAPES["megatron-7.5b"]
    state = training_state_memory(shape.num_params * 5 / 36, dp=8, zero_stage=1)
    assert w.result.state.total_gib == pytest.approx(state.total_gib)
    one_stage = activation_memory(
        seq_len=2048, micro_batch=1, hidden=shape.hidden, heads=shape.heads, layers=5, recompute="selective"
    )
    assert w.result.activation_gib == pytest.approx(bytes_to_gib(one_stage) * 8)  # 8 micro-batches in flight
    assert "Warning: " in w.message_html.value and "coursekit-warning" in w.message_html.value
    assert "do not split evenly" in w.message


def test_status_colour_and_words_follow_the_verdict() -> None:
    w = CapacityWidget()  # ZeRO-0 of the 7.5B model at DP = 8 does not fit 80 GiB: 16 x 7.5e9 bytes alone
    assert w.verdict == "fail"
    assert "coursekit-fail" in w.message_html.value and "Fail: " in w.message_html.value
    w.controls["zero_stage"].value = 3
    assert w.verdict == "pass"
    assert "coursekit-pass" in w.message_html.value and "Pass: " in w.message_html.value
    coursekit.set_language("zh")
    w.redraw()
    assert "不通过" not in w.message_html.value and "通过：" in w.message_html.value


def test_update_time_report(capsys: pytest.CaptureFixture[str]) -> None:
    """Measure the update time including the PNG render (reported, not asserted)."""
    w = CapacityWidget()
    times = []
    for i in range(50):
        start = time.perf_counter()
        w.controls["zero_stage"].value = (i + 1) % 4
        times.append(time.perf_counter() - start)
    times.sort()
    with capsys.disabled():
        print(
            f"\nCapacityWidget update incl. PNG: median {statistics.median(times) * 1e3:.1f} ms, "
            f"p95 {times[int(0.95 * len(times)) - 1] * 1e3:.1f} ms"
        )
    assert w.render_count >= 50


@pytest.mark.parametrize("language", ["zh", "en"])
@pytest.mark.parametrize("model", [None, "largest"])
def test_total_labels_sit_right_of_their_bars_inside_the_axes(language: str, model: str | None) -> None:
    """Each stage's "… GiB" label starts after its bar ends and ends inside the axes, for every stage (the longest
    bar need not be the chosen stage's) and in both languages (the English label is the longer)."""
    previous = coursekit.i18n.get_language()
    coursekit.i18n.set_language(language)
    try:
        w = CapacityWidget()
        if model == "largest":
            option = w.controls["model"].options[-1]
            w.controls["model"].value = option[1] if isinstance(option, tuple) else option
        assert w.status == "ok"
        fig = w.figure
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        axes_box = w.ax.get_window_extent(renderer)
        for row, text in enumerate(w.value_texts):
            bar_end = max(bars[row].get_window_extent(renderer).x1 for bars in w.bars)
            box = text.get_window_extent(renderer)
            assert box.x0 > bar_end, (row, box.x0, bar_end)
            assert box.x1 < axes_box.x1, (row, box.x1, axes_box.x1)
    finally:
        coursekit.i18n.set_language(previous)
