"""coursekit.exercises.lesson10 (serving): expected answers worked by hand, feedback never gives them away."""

from __future__ import annotations

import pytest

from coursekit.exercises import check, exercises, get_exercise, verify
from coursekit.presets import MODELS

IDS = ["serve.kv_kib_per_token", "serve.max_requests", "serve.best_tp", "serve.littles_law"]


def test_lesson_10_registers_its_exercises() -> None:
    assert sorted(e.id for e in exercises(lesson=10)) == sorted(IDS)


def test_kv_per_token_by_hand() -> None:
    verify("serve.kv_kib_per_token", 2 * 80 * 8 * 128 * 2 / 1024)  # 320 KiB


def test_max_requests_by_hand() -> None:
    llama = MODELS["llama3-70b"]
    weights_gib = llama.num_params * 2 / 8 / 2**30
    per_request_gib = 2304 * (2 * 80 * 1 * 128 * 2) / 2**30  # one KV head per GPU at TP=8
    # Free memory: 80 GiB minus weights, the 2 GiB reserve and a workspace of well under 1 GiB.
    upper = int((80 - weights_gib - 2) // per_request_gib)
    answer = get_exercise("serve.max_requests").expected_value()
    assert upper - 10 <= answer <= upper
    verify("serve.max_requests", answer)


def test_best_tp_for_a_tiny_model_is_one() -> None:
    verify("serve.best_tp", 1)
    assert not check("serve.best_tp", 8).correct


def test_littles_law_by_hand() -> None:
    verify("serve.littles_law", 20 * 3.2)


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_feedback_hides_the_answer(exercise_id: str) -> None:
    expected = get_exercise(exercise_id).expected_value()
    feedback = check(exercise_id, expected + 1000)
    assert not feedback.correct
    assert f"{expected}" not in feedback.message.replace(exercise_id, "") or len(str(expected)) == 1
