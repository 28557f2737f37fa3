"""Lesson 3 exercises (q3.*): right, wrong with a hint that keeps the answer, unanswered; and the instructor guide."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.exercises import check, exercises, get_exercise
from coursekit.exercises.lesson3 import (
    BATCH_GLOBAL,
    BATCH_MICRO,
    LESSON_CANDIDATES,
    SERVING_ENVIRONMENT,
    TP_RULE_GPUS_PER_NODE,
    TP_RULE_HEADS,
    TP_RULE_TP,
)
from coursekit.gates import (
    EXAMPLE_CANDIDATES,
    EXAMPLE_ENVIRONMENT,
    GATES,
    check_global_batch,
    check_tp_degree,
    evaluate_candidate,
    evaluate_candidates,
    max_dp_degree,
)

ROOT = Path(__file__).resolve().parents[1]
IDS = ("q3.first_gate", "q3.accepted", "q3.dp_degrees", "q3.tp_rule")

# Answers derived independently of the exercise module (seed facts and the rules stated in the prompts).
INDEPENDENT: dict[str, Any] = {
    # TP declares intra_node (seed 000, Q3); cross_node ranks below it in LINK_SCOPE_ORDER.
    "q3.first_gate": "interconnect",
    # dp · 4 divides 64  <=>  dp divides 16.
    "q3.dp_degrees": tuple(d for d in range(1, 17) if 16 % d == 0),
    # 32 % 16 == 0, but 16 > 8 GPUs per node.
    "q3.tp_rule": "interconnect",
}

WRONG: dict[str, Any] = {
    "q3.first_gate": "memory",
    "q3.accepted": {"TP"},
    "q3.dp_degrees": (1, 2, 4, 8, 16, 32),
    "q3.tp_rule": "tp_heads",
}


def test_every_exercise_of_lesson_3_is_registered() -> None:
    assert tuple(ex.id for ex in exercises(3)) == tuple(sorted(IDS))


@pytest.mark.parametrize("exercise_id", sorted(INDEPENDENT))
def test_expected_answer_matches_an_independent_derivation(exercise_id: str) -> None:
    assert get_exercise(exercise_id).expected_value() == INDEPENDENT[exercise_id]


def test_accepted_matches_a_gate_by_gate_evaluation() -> None:
    expected = {c.name for c in LESSON_CANDIDATES if all(gate.check(c, SERVING_ENVIRONMENT) is None for gate in GATES)}
    assert get_exercise("q3.accepted").expected_value() == expected
    assert SERVING_ENVIRONMENT == replace(EXAMPLE_ENVIRONMENT, mode="serving", model_kind="moe")


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answer_is_correct(exercise_id: str) -> None:
    feedback = check(exercise_id, get_exercise(exercise_id).expected_value())
    assert feedback.correct, feedback.message


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_gets_a_hint_without_the_answer(exercise_id: str) -> None:
    feedback = check(exercise_id, WRONG[exercise_id])
    assert feedback.status == "incorrect"
    expected = get_exercise(exercise_id).expected_value()
    shown = repr(expected) if not isinstance(expected, frozenset) else repr(sorted(expected))
    assert shown not in feedback.message
    if isinstance(expected, str):
        assert f"'{expected}'" not in feedback.message
    assert feedback.message.startswith("Not yet. Hint: ")


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id: str) -> None:
    feedback = check(exercise_id, ...)
    assert feedback.status == "unanswered"


def test_answers_are_normalized() -> None:
    assert check("q3.first_gate", "  Interconnect ").correct
    assert check("q3.accepted", {"tp", "ep", "pp", "replica"}).correct
    assert check("q3.tp_rule", "INTERCONNECT").correct


def test_wrong_kind_of_answer_is_explained_not_raised() -> None:
    assert check("q3.dp_degrees", {1, 2, 4, 8, 16}).status == "invalid"  # a sequence is asked for, in order
    assert check("q3.first_gate", "link").status == "invalid"  # not a gate code nor a gate's name in the grid
    assert check("q3.first_gate", "fit").status == "incorrect"  # the grid's name of the memory gate: judged
    assert check("q3.accepted", "TP").status == "invalid"  # a set is expected


def test_feedback_in_chinese() -> None:
    coursekit.set_language("zh")
    assert check("q3.tp_rule", "tp_heads").message.startswith("还不对。提示：")
    assert check("q3.tp_rule", "interconnect").message.startswith("正确。")


def test_prompt_inputs_are_the_module_constants() -> None:
    assert (BATCH_GLOBAL, BATCH_MICRO) == (64, 4)
    assert (TP_RULE_TP, TP_RULE_HEADS, TP_RULE_GPUS_PER_NODE) == (16, 32, 8)
    assert check_tp_degree(TP_RULE_TP, TP_RULE_HEADS, TP_RULE_GPUS_PER_NODE) is not None


# --------------------------------------------------------------------------- instructor guide


def _fmt(value: Any) -> str:
    if isinstance(value, frozenset):
        return "{" + ", ".join(repr(item) for item in sorted(value)) + "}"
    return repr(value)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_guide_quotes_every_answer(lang: str) -> None:
    guide = (ROOT / "docs" / "instructor" / lang / "03_gates.md").read_text(encoding="utf-8")
    for exercise_id in IDS:
        assert f"`{exercise_id}` → `{_fmt(get_exercise(exercise_id).expected_value())}`" in guide


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_guide_numbers_are_coursekits(lang: str) -> None:
    guide = (ROOT / "docs" / "instructor" / lang / "03_gates.md").read_text(encoding="utf-8")
    reports = {r.name: r for r in evaluate_candidates(LESSON_CANDIDATES, EXAMPLE_ENVIRONMENT)}
    dp = next(c for c in EXAMPLE_CANDIDATES if c.name == "DP")
    zero3 = next(c for c in EXAMPLE_CANDIDATES if c.name == "ZeRO-3")
    passed = len(GATES) - len(reports["DP"].reasons)
    assert passed == len(GATES) - len(reports["EP"].reasons)
    said = f"**{len(GATES)} 道中的 {passed} 道**" if lang == "zh" else f"**{passed} of {len(GATES)}**"
    assert said in guide
    assert f"**{dp.memory_per_rank_gib:g} GiB > {EXAMPLE_ENVIRONMENT.memory_per_device_gib:g} GiB**" in guide
    assert f"**{zero3.memory_per_rank_gib:g} GiB**" in guide
    assert evaluate_candidate(zero3, EXAMPLE_ENVIRONMENT).accepted
    # as the widget's summary line enumerates them in the guide's language
    accepted = {"zh": "、", "en": ", "}[lang].join(name for name, r in reports.items() if r.accepted)
    assert f"**{accepted}**" in guide
    # S18 section: 32 devices, global batch 64
    reason = check_global_batch(32, 4, 1, 64)
    assert reason is not None and f"**{reason.params['product']}**" in guide
    assert f"**{max_dp_degree(64, 1)}**" in guide and f"**{max_dp_degree(64, 2)}**" in guide
