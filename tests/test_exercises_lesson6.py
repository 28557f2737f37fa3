"""coursekit.exercises.lesson6 (pipeline bubble and scaling efficiency): expected answers worked by hand."""

from __future__ import annotations

import pytest

from coursekit.exercises import check, exercises, get_exercise, verify
from coursekit.exercises.lesson6 import (
    BUBBLE_MICROBATCHES,
    BUBBLE_STAGES,
    EFFICIENCY_DEVICES,
    EFFICIENCY_SINGLE_DEVICE,
    EFFICIENCY_THROUGHPUT,
    TIMELINE_ALLREDUCE_S,
    TIMELINE_MICROBATCH_S,
    TIMELINE_MICROBATCHES,
    TIMELINE_OVERLAP,
    TIMELINE_STAGES,
    timeline_exercise,
)
from coursekit.pipeline import simulate_schedule

IDS = [
    "pipeline.bubble_p4_m16",
    "pipeline.efficiency",
    "pipeline.timeline_bubble_ms",
    "pipeline.timeline_compute_ms",
    "pipeline.timeline_exposed_ms",
    "pipeline.timeline_step_ms",
]

# The timeline exercise worked by hand (GPipe paper, Huang et al. 2019: a flushed pipeline of p stages idles
# (p-1) micro-batch times per device while filling and draining):
# compute = m t = 8 x 30 = 240 ms; bubble = (p-1) t = 3 x 30 = 90 ms; exposed = (1 - 0.5) x 60 = 30 ms;
# step = 240 + 90 + 30 = 360 ms.
HAND_TIMELINE_MS = {"compute_ms": 240.0, "bubble_ms": 90.0, "exposed_ms": 30.0, "step_ms": 360.0}


def test_lesson6_registers_its_exercises() -> None:
    assert [ex.id for ex in exercises(6)] == IDS


def test_the_inputs_are_the_lesson_prose() -> None:
    assert (BUBBLE_STAGES, BUBBLE_MICROBATCHES) == (4, 16)
    assert (TIMELINE_STAGES, TIMELINE_MICROBATCHES, TIMELINE_MICROBATCH_S) == (4, 8, 0.030)
    assert (TIMELINE_ALLREDUCE_S, TIMELINE_OVERLAP) == (0.060, 0.5)
    assert (EFFICIENCY_SINGLE_DEVICE, EFFICIENCY_DEVICES, EFFICIENCY_THROUGHPUT) == (250.0, 32, 6800.0)


def test_bubble_is_3_over_19() -> None:
    assert get_exercise("pipeline.bubble_p4_m16").expected_value() == pytest.approx(3 / 19)


@pytest.mark.parametrize("part", sorted(HAND_TIMELINE_MS))
def test_timeline_by_hand(part: str) -> None:
    assert get_exercise(f"pipeline.timeline_{part}").expected_value() == pytest.approx(HAND_TIMELINE_MS[part])


def test_timeline_bubble_matches_a_simulated_pipeline() -> None:
    # An independent route to the bubble: replay the schedule with 30 ms per micro-batch (forward + backward).
    forward_s = TIMELINE_MICROBATCH_S / 3  # any split of the 30 ms gives the same idle time
    schedule = simulate_schedule(
        4, 8, stage_forward_s=[forward_s] * 4, stage_backward_s=[TIMELINE_MICROBATCH_S - forward_s] * 4
    )
    idle_s = schedule.makespan_s - 8 * TIMELINE_MICROBATCH_S
    assert idle_s * 1e3 == pytest.approx(HAND_TIMELINE_MS["bubble_ms"])
    assert timeline_exercise().bubble_s == pytest.approx(idle_s)


def test_efficiency_by_hand() -> None:
    assert get_exercise("pipeline.efficiency").expected_value() == pytest.approx(6800 / (32 * 250))  # 0.85


@pytest.mark.parametrize(
    ("exercise_id", "answer"),
    [
        ("pipeline.bubble_p4_m16", 3 / 19),
        ("pipeline.bubble_p4_m16", 0.158),
        ("pipeline.timeline_compute_ms", 240),
        ("pipeline.timeline_bubble_ms", 90.0),
        ("pipeline.timeline_exposed_ms", 30),
        ("pipeline.timeline_step_ms", 360),
        ("pipeline.efficiency", 0.85),
    ],
)
def test_right_answers_pass(exercise_id: str, answer: float) -> None:
    assert check(exercise_id, answer).correct
    verify(exercise_id, answer)


@pytest.mark.parametrize(
    ("exercise_id", "answer", "hint_words"),
    [
        ("pipeline.bubble_p4_m16", 0.1875, "overhead relative to compute"),  # (p-1)/m: the named slip
        ("pipeline.timeline_bubble_ms", 0.2727, "(p-1) of t"),  # the fraction instead of the time
        # issue 20: each slip now gets the hint that names it
        ("pipeline.timeline_exposed_ms", 60, "whole all-reduce"),  # the whole all-reduce
        ("pipeline.timeline_step_ms", 390, "sum of the three parts"),  # a right sum of a wrong part
        ("pipeline.efficiency", 27.2, "speed-up"),  # the speed-up, not the efficiency
    ],
)
def test_wrong_answers_get_a_hint(exercise_id: str, answer: float, hint_words: str) -> None:
    feedback = check(exercise_id, answer)
    assert feedback.status == "incorrect"
    assert hint_words in feedback.message
