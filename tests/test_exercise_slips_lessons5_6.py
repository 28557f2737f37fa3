"""Lessons 5 and 6 name their declared slips; wrong answers worked by hand, not from the checker."""

from __future__ import annotations

import pytest

from coursekit.exercises import _evaluate, get_exercise


def _slip_code(exercise_id: str, answer: object) -> str | None:
    feedback = _evaluate(get_exercise(exercise_id), answer)
    assert feedback.status == "incorrect", (exercise_id, answer, feedback.status)
    return feedback.slip


@pytest.mark.parametrize("n", [1, 2, 3])
def test_case_state_in_gb_is_named(n: int) -> None:
    # the case's parameter count is read from the prompt the learner sees, as a learner would
    exercise = get_exercise(f"matrix.case{n}_state_gib")
    params = int(exercise.prompt.en.split(" has ")[1].split(" parameters")[0].replace(",", ""))
    in_gb = params * 16 / 10**9  # mixed-precision Adam, 16 bytes per parameter, divided by 10^9 not 2^30
    assert _slip_code(f"matrix.case{n}_state_gib", round(in_gb, 1)) == "gib_vs_gb"
    assert _evaluate(exercise, round(params * 16 / 2**30, 1)).correct


def test_max_dp_with_the_micro_batch_left_out() -> None:
    # 512 sequences, 4 per rank per micro-step: dp <= 512 / 4 = 128; answering 512 forgets the micro-batch.
    assert _evaluate(get_exercise("matrix.max_dp"), 128).correct
    assert _slip_code("matrix.max_dp", 512) == "micro_batch_left_out"


def test_bubble_slips() -> None:
    # p = 4, m = 16: (p-1)/(m+p-1) = 3/19 = 0.158; (p-1)/m = 3/16 = 0.1875 is the overhead; 15.8 a percentage.
    assert _evaluate(get_exercise("pipeline.bubble_p4_m16"), 0.16).correct
    assert _slip_code("pipeline.bubble_p4_m16", 15.8) == "percent_vs_fraction"
    assert _slip_code("pipeline.bubble_p4_m16", 0.1875) == "overhead_not_fraction"


def test_efficiency_as_percent() -> None:
    # 6800 / (32 · 250) = 0.85
    assert _evaluate(get_exercise("pipeline.efficiency"), 0.85).correct
    assert _slip_code("pipeline.efficiency", 85) == "percent_vs_fraction"
    # upside down: (32 · 250) / 6800 = 8000 / 6800 = 1.176 (an English self-learner got only the general hint)
    assert _slip_code("pipeline.efficiency", 1.176) == "inverted"
    assert _slip_code("pipeline.efficiency", 1.18) == "inverted"


def test_timeline_in_seconds() -> None:
    # m = 8 micro-batches of 30 ms each: one device computes 240 ms = 0.24 s.
    assert _evaluate(get_exercise("pipeline.timeline_compute_ms"), 240).correct
    assert _slip_code("pipeline.timeline_compute_ms", 0.24) == "seconds_vs_ms"
