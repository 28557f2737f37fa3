"""Pipeline bubble formulas and the GPipe / 1F1B / interleaved 1F1B schedule simulator."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import coursekit
from coursekit.i18n import Text, catalog, placeholders
from coursekit.pipeline import (
    SCHEDULES,
    GanttRow,
    Schedule,
    ScheduleEvent,
    bubble_fraction,
    bubble_overhead,
    gantt_rows,
    simulate_schedule,
    warmup_microbatches,
)

# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

times = st.floats(min_value=0.1, max_value=10.0, allow_nan=False, allow_infinity=False)


@st.composite
def layouts(draw: st.DrawFn) -> tuple[str, int, int, int]:
    """(schedule, p, m, v) that the simulator accepts."""
    schedule = draw(st.sampled_from(SCHEDULES))
    p = draw(st.integers(1, 6))
    if schedule == "interleaved":
        v = draw(st.integers(2, 4))
        m = p * draw(st.integers(1, 4))
    else:
        v = 1
        m = draw(st.integers(1, 12))
    return schedule, p, m, v


def _seed_fraction(p: int, m: int) -> Fraction:
    """The seed S18's naive pipeline bubble share, (p-1)/(m+p-1), as an exact fraction."""
    return Fraction(p - 1, m + p - 1)


# ---------------------------------------------------------------------------
# Closed-form bubble: reference values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("p", "m"), [(4, 4), (4, 16)])
def test_seed_bubble_two_microbatch_counts(p: int, m: int) -> None:
    # Seed S18 (机制与推导): the naive pipeline's bubble share is roughly (p-1)/(m+p-1); exercise 4 asks
    # for it at two micro-batch counts. For p = 4 that is 3/7 (m = 4) and 3/19 (m = 16).
    assert bubble_fraction(p, m) == float(_seed_fraction(p, m))


def test_seed_bubble_values_are_three_sevenths_and_three_nineteenths() -> None:
    assert _seed_fraction(4, 4) == Fraction(3, 7)
    assert _seed_fraction(4, 16) == Fraction(3, 19)
    assert bubble_fraction(4, 16) < bubble_fraction(4, 4)


def test_megatron_overhead_formula() -> None:
    # Narayanan et al. 2021 (arXiv 2104.04473), §2.2.1: bubble time fraction (p-1)/m for the
    # non-interleaved schedule; §2.2.2: (1/v)·(p-1)/m with v model chunks per device.
    assert bubble_overhead(4, 4) == float(Fraction(3, 4))
    assert bubble_overhead(8, 32, virtual_stages=4) == float(Fraction(1, 4) * Fraction(7, 32))


@given(st.integers(1, 16), st.integers(1, 16), st.integers(2, 8))
def test_interleaving_reduces_the_bubble_by_a_factor_of_v(p: int, groups: int, v: int) -> None:
    # arXiv 2104.04473, §2.2.2: "the new schedule reduces the bubble time by v".
    m = p * groups
    assume(p > 1)
    assert bubble_overhead(p, m) / bubble_overhead(p, m, virtual_stages=v) == pytest.approx(v, rel=1e-12)


@given(st.integers(1, 64), st.integers(1, 256))
def test_fraction_is_overhead_over_one_plus_overhead(p: int, m: int) -> None:
    overhead = bubble_overhead(p, m)
    assert bubble_fraction(p, m) == pytest.approx(overhead / (1 + overhead), rel=1e-12, abs=1e-15)


@given(st.integers(1, 64), st.integers(1, 256))
def test_bubble_fraction_is_a_share(p: int, m: int) -> None:
    share = bubble_fraction(p, m)
    assert 0 <= share < 1
    assert (share == 0) == (p == 1)


@given(st.integers(2, 64), st.integers(1, 256))
def test_bubble_fraction_falls_with_microbatches_and_grows_with_stages(p: int, m: int) -> None:
    assert bubble_fraction(p, m + 1) < bubble_fraction(p, m)
    assert bubble_fraction(p + 1, m) > bubble_fraction(p, m)


@given(st.integers(1, 16), st.integers(1, 8), st.integers(1, 8))
def test_bubble_fraction_is_exact(p: int, groups: int, v: int) -> None:
    m = p * groups
    assert bubble_fraction(p, m, virtual_stages=v) == float(Fraction(p - 1, v * m + p - 1))


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: bubble_fraction(0, 4), ValueError, "stages = 0: must be >= 1."),
        (lambda: bubble_fraction(4, 0), ValueError, "microbatches = 0: must be >= 1."),
        (lambda: bubble_fraction(4.0, 4), TypeError, "stages = 4.0: must be an integer (int), not float."),
        (lambda: bubble_overhead(True, 4), TypeError, "stages = True: must be an integer (int), not bool."),
        (lambda: bubble_overhead(4, 8, 0), ValueError, "virtual_stages = 0: must be >= 1."),
        (
            lambda: bubble_fraction(4, 6, virtual_stages=2),
            ValueError,
            "microbatches = 6: the interleaved schedule needs a multiple of stages = 4 "
            "(Megatron-LM feeds micro-batches to each model chunk in groups of 4).",
        ),
        (
            lambda: simulate_schedule(4, 8, schedule="zb-v"),
            ValueError,
            "schedule = 'zb-v': must be one of 'gpipe', '1f1b', 'interleaved'.",
        ),
        (
            lambda: simulate_schedule(4, 8, schedule="1f1b", virtual_stages=2),
            ValueError,
            "virtual_stages = 2: schedule '1f1b' runs one model chunk per device; "
            "use schedule='interleaved' for virtual_stages > 1.",
        ),
        (
            lambda: simulate_schedule(4, 8, schedule="interleaved"),
            ValueError,
            "virtual_stages = 1: the interleaved schedule needs at least 2 model chunks per device "
            "(virtual_stages >= 2); with 1 chunk use schedule='1f1b'.",
        ),
        (
            lambda: simulate_schedule(4, 6, schedule="gpipe", virtual_stages=2),
            ValueError,
            "virtual_stages = 2: schedule 'gpipe' runs one model chunk per device; "
            "use schedule='interleaved' for virtual_stages > 1.",
        ),
        (
            lambda: simulate_schedule(4, 6, schedule="interleaved", virtual_stages=2),
            ValueError,
            "microbatches = 6: the interleaved schedule needs a multiple of stages = 4 "
            "(Megatron-LM feeds micro-batches to each model chunk in groups of 4).",
        ),
        (lambda: simulate_schedule(4, 8, forward_s=0), ValueError, "forward_s = 0: must be > 0."),
        (
            lambda: simulate_schedule(4, 8, backward_s=float("nan")),
            ValueError,
            "backward_s = nan: must be a finite number (not NaN or infinity).",
        ),
        (lambda: simulate_schedule(4, 8, p2p_s=-1.0), ValueError, "p2p_s = -1.0: must be >= 0."),
        (
            lambda: simulate_schedule(2, 4, stage_forward_s=[1.0, 1.0, 1.0]),
            ValueError,
            "stage_forward_s has 3 values: must have one per stage (stages == 2).",
        ),
        (
            lambda: simulate_schedule(2, 4, stage_backward_s=2.0),
            TypeError,
            "stage_backward_s = 2.0: must be a list or tuple with one number per stage, not float.",
        ),
        (
            lambda: simulate_schedule(2, 4, stage_forward_s=[1.0, -1.0]),
            ValueError,
            "stage_forward_s[1] = -1.0: must be > 0.",
        ),
        (
            lambda: warmup_microbatches(4, 8, 4),
            ValueError,
            "stage = 4: must be between 0 and stages - 1 == 3.",
        ),
        (lambda: warmup_microbatches(4, 8, -1), ValueError, "stage = -1: must be >= 0."),
        (
            lambda: gantt_rows("1f1b"),
            TypeError,
            "schedule = '1f1b': must be a Schedule returned by simulate_schedule, not str.",
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
        bubble_fraction(4, 6, virtual_stages=2)
    assert str(info.value) == (
        "microbatches = 6：交错调度 (interleaved schedule) 要求微批次 (micro-batch) 数是 stages = 4 的整数倍"
        "（Megatron-LM 按每组 4 个微批次轮流送入各模型块 (model chunk)）。"
    )


def test_catalog_entries_share_placeholders() -> None:
    entries = {key: texts for key, texts in catalog().items() if key.startswith("pipeline.")}
    assert entries
    for key, texts in entries.items():
        assert placeholders(texts["zh"]) == placeholders(texts["en"]), key


# ---------------------------------------------------------------------------
# Simulator: the formula, and the structure of every schedule
# ---------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(layouts(), times, times)
def test_idle_fraction_equals_the_bubble_formula(layout: tuple[str, int, int, int], f: float, b: float) -> None:
    # Uniform stages, no transfer time: the simulated idle share is (p-1)/(v·m + p-1) whatever the
    # forward/backward ratio (for GPipe and 1F1B v = 1, the seed's formula).
    schedule, p, m, v = layout
    result = simulate_schedule(p, m, schedule=schedule, virtual_stages=v, forward_s=f, backward_s=b)
    expected = float(Fraction(p - 1, v * m + p - 1))
    assert result.idle_fraction == pytest.approx(expected, rel=1e-9, abs=1e-12)
    # Megatron-LM §2.2: ideal time m·(f + b) plus a bubble of (p-1)·(f + b)/v.
    assert result.makespan_s == pytest.approx(m * (f + b) + (p - 1) * (f + b) / v, rel=1e-9)


@settings(deadline=None)
@given(st.integers(1, 6), st.integers(1, 12), times, times)
def test_gpipe_and_1f1b_have_the_same_makespan(p: int, m: int, f: float, b: float) -> None:
    gpipe = simulate_schedule(p, m, schedule="gpipe", forward_s=f, backward_s=b)
    one_f_one_b = simulate_schedule(p, m, schedule="1f1b", forward_s=f, backward_s=b)
    assert gpipe.makespan_s == pytest.approx(one_f_one_b.makespan_s, rel=1e-12)


def _check_structure(result: Schedule, p2p_s: float) -> None:
    p, m, v = result.stages, result.microbatches, result.virtual_stages
    keys = [(e.stage, e.microbatch, e.phase, e.chunk) for e in result.events]
    expected = {(s, i, ph, c) for s in range(p) for i in range(m) for ph in ("F", "B") for c in range(v)}
    assert len(keys) == len(expected) == len(set(keys))
    assert set(keys) == expected
    # Events on one device never overlap and take positive time.
    for s in range(p):
        row = sorted((e for e in result.events if e.stage == s), key=lambda e: e.start_s)
        assert all(e.end_s > e.start_s >= 0 for e in row)
        assert all(a.end_s <= b.start_s + 1e-9 for a, b in itertools.pairwise(row))
    # Dependencies: virtual stage g = chunk·p + stage; forward needs g-1's forward, backward needs g+1's
    # backward (the last virtual stage needs its own forward); crossing devices costs p2p_s.
    end = {(e.microbatch, e.phase, e.chunk * p + e.stage): e.end_s for e in result.events}
    for e in result.events:
        g = e.chunk * p + e.stage
        if e.phase == "F":
            source = None if g == 0 else (e.microbatch, "F", g - 1)
        else:
            source = (e.microbatch, "F", g) if g == p * v - 1 else (e.microbatch, "B", g + 1)
        if source is not None:
            transfer = p2p_s if source[2] % p != e.stage else 0.0
            assert e.start_s >= end[source] + transfer - 1e-9
    assert result.makespan_s == pytest.approx(max(e.end_s for e in result.events))


@settings(max_examples=100, deadline=None)
@given(layouts(), times, times, st.floats(0.0, 2.0))
def test_every_pass_once_no_overlap_dependencies_respected(
    layout: tuple[str, int, int, int], f: float, b: float, p2p_s: float
) -> None:
    schedule, p, m, v = layout
    result = simulate_schedule(p, m, schedule=schedule, virtual_stages=v, forward_s=f, backward_s=b, p2p_s=p2p_s)
    _check_structure(result, p2p_s)


@settings(max_examples=100, deadline=None)
@given(layouts(), st.lists(times, min_size=6, max_size=6), st.lists(times, min_size=6, max_size=6))
def test_unbalanced_stages_keep_the_structure(
    layout: tuple[str, int, int, int], forwards: list[float], backwards: list[float]
) -> None:
    schedule, p, m, v = layout
    result = simulate_schedule(
        p, m, schedule=schedule, virtual_stages=v, stage_forward_s=forwards[:p], stage_backward_s=backwards[:p]
    )
    _check_structure(result, 0.0)
    assert result.busy_s_per_stage == pytest.approx([m * (forwards[s] + backwards[s]) for s in range(p)])


@settings(max_examples=100, deadline=None)
@given(layouts(), st.data(), st.floats(1.05, 4.0))
def test_a_slow_stage_lengthens_the_step_and_idles_the_others(
    layout: tuple[str, int, int, int], data: st.DataObject, factor: float
) -> None:
    schedule, p, m, v = layout
    assume(p > 1)
    slow = data.draw(st.integers(0, p - 1))
    forwards = [1.0] * p
    backwards = [2.0] * p
    forwards[slow] *= factor
    backwards[slow] *= factor
    base = simulate_schedule(p, m, schedule=schedule, virtual_stages=v)
    unbalanced = simulate_schedule(
        p, m, schedule=schedule, virtual_stages=v, stage_forward_s=forwards, stage_backward_s=backwards
    )
    assert unbalanced.makespan_s > base.makespan_s
    for s in range(p):
        if s != slow:
            idle_before = base.makespan_s - base.busy_s_per_stage[s]
            idle_after = unbalanced.makespan_s - unbalanced.busy_s_per_stage[s]
            assert idle_after > idle_before


@settings(deadline=None)
@given(layouts(), st.floats(0.01, 2.0))
def test_transfer_time_lengthens_the_step(layout: tuple[str, int, int, int], p2p_s: float) -> None:
    schedule, p, m, v = layout
    base = simulate_schedule(p, m, schedule=schedule, virtual_stages=v)
    slow_link = simulate_schedule(p, m, schedule=schedule, virtual_stages=v, p2p_s=p2p_s)
    if p == 1:
        assert slow_link.makespan_s == base.makespan_s
    else:
        assert slow_link.makespan_s > base.makespan_s
        assert slow_link.idle_fraction > base.idle_fraction


def test_one_microbatch_through_the_pipeline_by_hand() -> None:
    # m = 1: the forward walks down p stages, the backward walks back up: p·f + p·b, and only
    # one stage works at a time, so each is idle (p-1)/p of the step.
    result = simulate_schedule(3, 1, forward_s=1.0, backward_s=2.0)
    assert result.makespan_s == 9.0
    starts = {(e.stage, e.phase): e.start_s for e in result.events}
    assert starts == {(0, "F"): 0.0, (1, "F"): 1.0, (2, "F"): 2.0, (2, "B"): 3.0, (1, "B"): 5.0, (0, "B"): 7.0}
    assert result.idle_fraction == pytest.approx(2 / 3)


# ---------------------------------------------------------------------------
# Orders and memory of the three schedules
# ---------------------------------------------------------------------------


def _order(result: Schedule, stage: int) -> list[tuple[str, int, int]]:
    row = sorted((e for e in result.events if e.stage == stage), key=lambda e: e.start_s)
    return [(e.phase, e.microbatch, e.chunk) for e in row]


def test_gpipe_runs_all_forwards_then_all_backwards() -> None:
    # Huang et al. 2019 (arXiv 1811.06965), §2.2: every micro-batch's forward, then the backwards.
    result = simulate_schedule(3, 4, schedule="gpipe")
    for s in range(3):
        order = _order(result, s)
        assert [ph for ph, _, _ in order] == ["F"] * 4 + ["B"] * 4


@pytest.mark.parametrize(("p", "m"), [(4, 8), (4, 2), (3, 3)])
def test_1f1b_warmup_then_alternate(p: int, m: int) -> None:
    # PipeDream-Flush (arXiv 2006.09503) / Megatron-Core: stage s runs p - s - 1 warm-up forwards, then
    # alternates one forward and one backward, then drains the remaining backwards.
    result = simulate_schedule(p, m, schedule="1f1b")
    for s in range(p):
        warm = min(p - s - 1, m)
        assert warmup_microbatches(p, m, s) == warm
        phases = [ph for ph, _, _ in _order(result, s)]
        steady = m - warm
        assert phases == ["F"] * warm + ["F", "B"] * steady + ["B"] * warm


@given(st.integers(1, 8), st.integers(1, 6), st.integers(2, 4))
def test_interleaved_warmup_matches_megatron_core(p: int, groups: int, v: int) -> None:
    # megatron/core/pipeline_parallel/schedules.py, get_pp_rank_microbatches: for the interleaved
    # schedule num_warmup_microbatches = (p - rank - 1)·2 + (v - 1)·group, with group = p by default,
    # capped at the total number of passes num_microbatches·v.
    m = p * groups
    for rank in range(p):
        megatron = min((p - rank - 1) * 2 + (v - 1) * p, m * v)
        assert warmup_microbatches(p, m, rank, schedule="interleaved", virtual_stages=v) == megatron


def test_interleaved_order_follows_megatron_schedule_table() -> None:
    # Megatron-Core's get_schedule_table: micro-batches go to chunk 0 in groups of p, then the same group
    # to chunk 1, ...; backwards walk the same table with the chunks reversed. p = 2, m = 4, v = 2:
    # forward table (mb, chunk) = (0,0) (1,0) (0,1) (1,1) (2,0) (3,0) (2,1) (3,1).
    result = simulate_schedule(2, 4, schedule="interleaved", virtual_stages=2)
    table = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (3, 0), (2, 1), (3, 1)]
    for s in range(2):
        order = _order(result, s)
        assert [(i, c) for ph, i, c in order if ph == "F"] == table
        assert [(i, c) for ph, i, c in order if ph == "B"] == [(i, 1 - c) for i, c in table]
        warm = (2 - s - 1) * 2 + (2 - 1) * 2
        assert [ph for ph, _, _ in order[:warm]] == ["F"] * warm
        assert order[warm][0] == "F" and order[warm + 1][0] == "B"


@given(st.integers(1, 6), st.integers(1, 12))
def test_peak_inflight(p: int, m: int) -> None:
    # GPipe stashes all m micro-batches; 1F1B at most p - s on stage s (PipeDream-Flush, arXiv 2006.09503).
    gpipe = simulate_schedule(p, m, schedule="gpipe")
    assert gpipe.peak_inflight_per_stage == (m,) * p
    one_f_one_b = simulate_schedule(p, m, schedule="1f1b")
    assert one_f_one_b.peak_inflight_per_stage == tuple(min(p - s, m) for s in range(p))
    assert one_f_one_b.peak_activation_microbatches_per_stage == tuple(float(min(p - s, m)) for s in range(p))


@given(st.integers(2, 6), st.integers(2, 4), st.integers(2, 4))
def test_interleaved_first_stage_memory_factor(p: int, v: int, groups: int) -> None:
    # Korthikanti et al. 2022 (arXiv 2205.05198), §4.2.3: with interleaving the first stage holds the
    # activations of p micro-batches times (1 + (p-1)/(p·v)).
    m = p * groups
    result = simulate_schedule(p, m, schedule="interleaved", virtual_stages=v)
    expected = p * (1 + Fraction(p - 1, p * v))
    assert Fraction(result.peak_inflight_per_stage[0], v) == expected


# ---------------------------------------------------------------------------
# Results and plotting data
# ---------------------------------------------------------------------------


def test_results_are_frozen() -> None:
    result = simulate_schedule(2, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.makespan_s = 0.0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.events[0].start_s = 1.0  # type: ignore[misc]


def test_events_are_sorted_by_device_then_time() -> None:
    result = simulate_schedule(3, 6, schedule="interleaved", virtual_stages=2)
    keys = [(e.stage, e.start_s) for e in result.events]
    assert keys == sorted(keys)
    assert isinstance(result.events[0], ScheduleEvent)


def test_gantt_rows_carry_every_event() -> None:
    result = simulate_schedule(4, 8, schedule="interleaved", virtual_stages=2)
    rows = gantt_rows(result)
    assert [row.stage for row in rows] == [0, 1, 2, 3]
    assert all(isinstance(row, GanttRow) and isinstance(row.label, Text) for row in rows)
    bars = [
        (row.stage, bar.phase, bar.microbatch, bar.chunk, bar.start_s, bar.duration_s)
        for row in rows
        for bar in row.bars
    ]
    events = [(e.stage, e.phase, e.microbatch, e.chunk, e.start_s, e.duration_s) for e in result.events]
    assert bars == events
    assert rows[2].bars[0].text == f"{rows[2].bars[0].phase}{rows[2].bars[0].microbatch}"
    assert rows[2].label.render("en") == "device 2"
    assert rows[2].label.render("zh") == "设备 2"
