"""Lesson 4 exercises (q4.*): right, wrong with a hint that keeps the answer, unanswered; and the instructor guide."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import coursekit
from coursekit.communication import dp_traffic, tp_traffic, traffic_time
from coursekit.composition import compare_ep_rules, topology_report, validate_parallel_composition
from coursekit.exercises import check, exercises, get_exercise
from coursekit.exercises.lesson4 import CROSS_DEGREES, CROSS_GPUS_PER_NODE, CROSS_ORDER, EP_PLAN
from coursekit.hardware import link_preset
from coursekit.shapes import model_shape

ROOT = Path(__file__).resolve().parents[1]
IDS = ("q4.naive_ranks", "q4.engine_ranks", "q4.dp_group", "q4.tp_crosses")

# Answers derived independently of coursekit.composition.
INDEPENDENT: dict[str, Any] = {
    # the seed's rule: the product of every degree
    "q4.naive_ranks": math.prod(EP_PLAN.values()),
    # Megatron-Core: world = TP·CP·DP·PP; EP reuses DP·CP ranks
    "q4.engine_ranks": EP_PLAN["TP"] * EP_PLAN["CP"] * EP_PLAN["DP"] * EP_PLAN["PP"],
    # Megatron-Core's initialize_model_parallel docstring (16 GPUs, TP = 2, PP = 4): DP groups
    # [g0, g2], [g1, g3], [g4, g6], [g5, g7], ... -> rank 5 is with rank 7
    "q4.dp_group": [5, 7],
    # order DP-TP-PP with DP = 4: TP group of rank 0 is 0, 4, 8, 12; node = rank // 8 differs
    "q4.tp_crosses": len({r // CROSS_GPUS_PER_NODE for r in range(0, 16, CROSS_DEGREES["DP"])}) > 1,
}

WRONG: dict[str, Any] = {"q4.naive_ranks": 16, "q4.engine_ranks": 64, "q4.dp_group": [4, 5], "q4.tp_crosses": False}


def test_every_exercise_of_lesson_4_is_registered() -> None:
    assert tuple(ex.id for ex in exercises(4)) == tuple(sorted(IDS))


@pytest.mark.parametrize("exercise_id", IDS)
def test_expected_answer_matches_an_independent_derivation(exercise_id: str) -> None:
    assert get_exercise(exercise_id).expected_value() == INDEPENDENT[exercise_id]


def test_the_ep_plan_folds_in_the_engine() -> None:
    assert EP_PLAN["EP"] > 1 and (EP_PLAN["DP"] * EP_PLAN["CP"]) % EP_PLAN["EP"] == 0
    assert compare_ep_rules(EP_PLAN).engine_valid
    assert CROSS_ORDER == "DP-TP-PP"


@pytest.mark.parametrize("exercise_id", IDS)
def test_right_answer_is_correct(exercise_id: str) -> None:
    feedback = check(exercise_id, get_exercise(exercise_id).expected_value())
    assert feedback.correct, feedback.message


@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answer_gets_a_hint_without_the_answer(exercise_id: str) -> None:
    feedback = check(exercise_id, WRONG[exercise_id])
    assert feedback.status == "incorrect"
    expected = get_exercise(exercise_id).expected_value()
    if not isinstance(expected, bool):
        assert repr(expected) not in feedback.message
    assert feedback.message.startswith("Not yet. Hint: ")


@pytest.mark.parametrize("exercise_id", IDS)
def test_unanswered(exercise_id: str) -> None:
    assert check(exercise_id, ...).status == "unanswered"


def test_wrong_kind_of_answer_is_explained_not_raised() -> None:
    assert check("q4.dp_group", {5, 7}).status == "invalid"  # a sequence is asked for, in order
    assert check("q4.naive_ranks", 64.5).status == "invalid"
    assert check("q4.tp_crosses", "yes").status == "invalid"


def test_feedback_in_chinese() -> None:
    coursekit.set_language("zh")
    assert check("q4.dp_group", [4, 5]).message.startswith("还不对。提示：")
    assert check("q4.dp_group", [5, 7]).message.startswith("正确。")


# --------------------------------------------------------------------------- instructor guide


def _guide(lang: str) -> str:
    return (ROOT / "docs" / "instructor" / lang / "04_composition.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_guide_quotes_every_answer(lang: str) -> None:
    guide = _guide(lang)
    for exercise_id in IDS:
        assert f"`{exercise_id}`" in guide
        assert f"→ `{get_exercise(exercise_id).expected_value()!r}`" in guide


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_instructor_guide_numbers_are_coursekits(lang: str) -> None:
    guide = _guide(lang)
    seed_plan = validate_parallel_composition({"TP": 4, "PP": 2, "DP": 2}, 16, "dense")
    assert f"**{seed_plan.required_ranks}**" in guide
    seed_example = compare_ep_rules({"TP": 4, "PP": 2, "EP": 2})
    assert f"**{seed_example.naive_required_ranks}**" in guide and f"**{seed_example.engine_world_size}**" in guide
    with_dp = compare_ep_rules({"TP": 4, "PP": 2, "DP": 2, "EP": 2})
    for value in (
        with_dp.naive_required_ranks,
        with_dp.engine_world_size,
        with_dp.difference_ranks,
        with_dp.expert_tensor_parallel,
        with_dp.expert_data_parallel,
    ):
        assert f"**{value}**" in guide
    # the cost of a TP group on the slow link (lesson 2's ledger), as in the notebook
    shape = model_shape("megatron-7.5b")
    tp = tp_traffic(seq_len=shape.seq_len, micro_batch=1, hidden=shape.hidden, layers=shape.layers, tp=8)
    dp = dp_traffic(num_params=shape.num_params / 8, dp=2)
    assert f"**{sum(e.calls_per_step for e in tp)}**" in guide and f"**{sum(e.calls_per_step for e in dp)}**" in guide
    ms = {}
    for link in ("intra_node", "cross_node"):
        preset = link_preset(link)
        ms[link] = traffic_time(tp, bandwidth_bytes_per_s=preset.bandwidth_bytes_per_s, latency_s=preset.latency_s)
        assert f"**{ms[link].total_s * 1e3:.1f} ms**" in guide
    assert f"**{ms['cross_node'].total_s / ms['intra_node'].total_s:.1f}x**" in guide
    # the fast-group variant of exercise 4.4
    variant = topology_report({"TP": 4, "DP": 2, "PP": 2}, CROSS_GPUS_PER_NODE, CROSS_ORDER)
    assert not variant.mapping.crosses["TP"]
    assert str(next(g for g in variant.groups["TP"] if 0 in g)) in guide
