"""The checker judges a number at the precision written, accepts declared forms and names declared slips.

Expected values are worked by hand here (the formulas in the comments), never read from the exercise under test.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import coursekit
from coursekit.exercises import (
    BITS_VS_BYTES,
    DIRECTION,
    GIB_VS_GB,
    PERCENT_VS_FRACTION,
    SECONDS_VS_MS,
    Exercise,
    Slip,
    check,
    degree_left_out,
    exercises,
    get_exercise,
    register,
    solution_text,
    verify,
    written_tolerance,
)
from coursekit.i18n import Text

#: The pipeline bubble of p = 4 stages and m = 16 micro-batches, (p - 1) / (m + p - 1) = 3/19, as a fraction.
BUBBLE_3_19 = 3 / 19  # 0.15789...

BUBBLE = register(
    Exercise(
        id="demo.bubble",
        lesson=0,
        prompt=Text(zh="p = 4, m = 16 的气泡占比？", en="Bubble share for p = 4, m = 16?"),
        expected=lambda: 3 / 19,
        hint=Text(zh="(p-1)/(m+p-1)。", en="(p-1)/(m+p-1)."),
        why=Text(zh="3/19。", en="3/19."),
        forms=("percent",),
        slips=(degree_left_out("PP", 4),),
    ),
    replace=True,
)
BUBBLE_FRACTION_ONLY = register(
    Exercise(
        id="demo.bubble_fraction_only",
        lesson=0,
        prompt=Text(zh="同上，用分数作答。", en="The same, as a fraction."),
        expected=lambda: 3 / 19,
        hint=Text(zh="(p-1)/(m+p-1)。", en="(p-1)/(m+p-1)."),
        why=Text(zh="3/19。", en="3/19."),
        slips=(PERCENT_VS_FRACTION,),
    ),
    replace=True,
)
#: A link of 400 Gbit/s per port carries 400e9 / 8 = 50e9 bytes/s = 50 GB/s.
LINK = register(
    Exercise(
        id="demo.link_gb_s",
        lesson=0,
        prompt=Text(zh="400 Gb/s 是多少 GB/s（单向）？", en="How many GB/s (one way) is 400 Gb/s?"),
        expected=lambda: 400e9 / 8 / 1e9,
        hint=Text(zh="1 字节 = 8 比特。", en="1 byte = 8 bits."),
        why=Text(zh="50 GB/s。", en="50 GB/s."),
        slips=(BITS_VS_BYTES, DIRECTION, GIB_VS_GB, SECONDS_VS_MS),
    ),
    replace=True,
)


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        (0.158, "correct"),
        (0.16, "correct"),  # 2 significant digits: the lesson's own "16 %"
        (0.1579, "correct"),
        (BUBBLE_3_19, "correct"),
        (0.2, "incorrect"),  # 1 digit is not enough: judged as 0.20
        (0.15, "incorrect"),
        (0.17, "incorrect"),
        (0.157, "incorrect"),  # 3 digits written: 0.158 is the rounding
        (15.8, "correct"),  # the declared percent form
        (16, "correct"),
        (20, "incorrect"),
    ],
)
def test_numbers_are_judged_at_the_precision_written(answer: float, status: str) -> None:
    assert check("demo.bubble", answer).status == status


def test_written_tolerance_is_half_a_unit_of_the_last_digit() -> None:
    assert written_tolerance(0.16) == 0.005
    assert written_tolerance(0.158) == 0.0005
    assert written_tolerance(0.2) == 0.005  # at least 2 significant digits
    assert written_tolerance(25.77) == 0.005
    assert written_tolerance(1150) == 5  # trailing zeros of an integer are not significant digits
    assert written_tolerance(1.5e-3) == 5e-5
    assert written_tolerance(-1.47) == 0.005
    assert written_tolerance(0) == 0.0


def test_a_form_not_declared_is_a_named_slip() -> None:
    feedback = check("demo.bubble_fraction_only", 15.8)
    assert (feedback.status, feedback.slip) == ("incorrect", "percent_vs_fraction")
    assert "100" in feedback.message and "15.8" not in feedback.message and "0.158" not in feedback.message
    assert check("demo.bubble_fraction_only", 0.16).correct


def test_a_parallel_degree_left_out_is_named() -> None:
    # 4 x 3/19 = 0.632: the bubble not divided by the 4 stages (a made-up slip for the demo).
    feedback = check("demo.bubble", 0.63)
    assert (feedback.status, feedback.slip) == ("incorrect", "degree:PP")
    assert "PP = 4" in feedback.message


@pytest.mark.parametrize(
    ("answer", "slip"),
    [
        (400.0, "bits_vs_bytes"),  # the Gbit/s figure itself
        (6.25, "bits_vs_bytes"),  # divided by 8 twice
        (100.0, "direction"),  # both directions added
        (25.0, "direction"),
        (46.6, "gib_vs_gb"),  # 50e9 / 2**30 = 46.57 GiB/s
        (0.05, "seconds_vs_ms"),
        (51.0, None),  # wrong, but none of the declared slips
    ],
)
def test_each_declared_slip_is_named(answer: float, slip: str | None) -> None:
    feedback = check("demo.link_gb_s", answer)
    assert feedback.status == "incorrect"
    assert feedback.slip == slip
    assert "50" not in feedback.message.replace(str(answer), "")  # the hint never gives the answer


def test_slip_hints_are_in_the_current_language() -> None:
    coursekit.set_language("zh")
    assert check("demo.link_gb_s", 400.0).message.startswith("还不对。提示：你的答案与正确值正好差 8 倍")
    coursekit.set_language("en")
    assert check("demo.link_gb_s", 400.0).message.startswith("Not yet. Hint: Your answer is off by exactly 8")


def test_slip_definitions_are_checked() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        Slip("x", Text(zh="x", en="x"))
    with pytest.raises(ValueError, match="factor"):
        Slip("x", Text(zh="x", en="x"), factor=0.5)
    with pytest.raises(ValueError, match="forms"):
        Exercise(
            id="demo.bad_form",
            lesson=0,
            prompt=Text(zh="?", en="?"),
            expected=lambda: 1.0,
            hint=Text(zh="-", en="-"),
            why=Text(zh="-", en="-"),
            forms=("permille",),
        )
    with pytest.raises(ValueError, match="only number exercises"):
        Exercise(
            id="demo.bad_slip",
            lesson=0,
            prompt=Text(zh="?", en="?"),
            expected=lambda: 1,
            kind="exact",
            hint=Text(zh="-", en="-"),
            why=Text(zh="-", en="-"),
            slips=(DIRECTION,),
        )
    assert GIB_VS_GB.factor == 2**30 / 10**9


# -- the course's exercises ------------------------------------------------------------------------------------


def _numeric_exercises() -> list[Exercise]:
    return [ex for ex in exercises() if ex.kind == "number" and not ex.id.startswith("demo.")]


def _round_sig(value: float, digits: int) -> float:
    return float(f"{value:.{digits}g}")


@pytest.mark.parametrize("exercise", _numeric_exercises(), ids=lambda ex: ex.id)
def test_every_numeric_exercise_accepts_its_answer_at_2_and_3_significant_digits(exercise: Exercise) -> None:
    # an exercise that asks for 3 significant digits (min_digits = 3) accepts 3, not 2
    expected = exercise.expected_value()
    for digits in range(max(2, exercise.min_digits), 4):
        assert check(exercise.id, _round_sig(expected, digits)).correct, (exercise.id, digits)


@pytest.mark.parametrize(
    "pair",
    [(ex, slip) for ex in _numeric_exercises() for slip in ex.slips if slip.factor is not None],
    ids=lambda pair: f"{pair[0].id}-{pair[1].code}",
)
def test_every_declared_factor_slip_of_the_course_is_named(pair: tuple[Exercise, Slip]) -> None:
    exercise, slip = pair
    assert slip.factor is not None
    expected = exercise.expected_value()
    wrong = _round_sig(expected * slip.factor, 3)
    feedback = check(exercise.id, wrong)
    assert feedback.status == "incorrect"
    # An earlier slip may claim the same wrong number first (e.g. x2 for both a degree and a direction).
    earlier = exercise.slips[: exercise.slips.index(slip) + 1]
    assert feedback.slip in {s.code for s in earlier}
    for shown in {f"{expected:.2f}", f"{expected:.3g}"}:
        assert shown not in feedback.message


# Hand-worked answers and slips of lessons 0-4.
GIB = 2**30
HAND_WORKED: list[tuple[str, Any, str | None]] = [
    # 24 GiB = 24 x 2**30 bytes = 25.77e9 bytes; 24 itself forgets the conversion.
    ("intro.device_gb", 24 * GIB / 1e9, None),
    ("intro.device_gb", 25.8, None),
    ("intro.device_gb", 24, "gib_vs_gb"),
    # ZeRO-2, 7.5e9 parameters, N_d = 8: 2 x 7.5e9 + 14 x 7.5e9 / 8 = 28.125e9 bytes = 26.19 GiB.
    ("q1.zero2_gib", 28.125e9 / GIB, None),
    ("q1.zero2_gib", 26, None),
    ("q1.zero2_gib", 28.1, "gib_vs_gb"),  # the same bytes in GB
    ("q1.zero2_gib", 16 * 7.5e9 / 8 / GIB, "zero3"),  # 13.97 GiB: parameters sharded too
    ("q1.zero2_gib", 16 * 7.5e9 / GIB, "no_sharding"),  # 111.76 GiB: nothing sharded
    # Ring all-reduce, S = 256 MiB, n = 8, B = 100 GiB/s, 5 us per step:
    # 2 x 7/8 x 0.25 GiB / 100 GiB/s = 4.375 ms, plus 2 x 7 x 5 us = 0.07 ms -> 4.445 ms.
    ("q2.allreduce_ms", 4.445, None),
    ("q2.allreduce_ms", 4.445e-3, "seconds_vs_ms"),
    ("q2.allreduce_ms", 4.375, "no_latency"),
    # 100 GiB/s taken as both directions (50 GiB/s each way) doubles the transfer only: 8.75 + 0.07 ms; the whole
    # answer doubled (8.89) is no particular slip. Half the transfer (the factor 2 of 2(n-1)/n left out): 2.1875 +
    # 0.07 ms. n - 1 = 7 ring steps instead of 14: 4.375 + 0.035 ms.
    ("q2.allreduce_ms", 2 * 4.375 + 0.07, "direction"),
    ("q2.allreduce_ms", 4.375 / 2 + 0.07, "half_transfer"),
    ("q2.allreduce_ms", 4.375 + 7 * 5e-3, "ring_steps"),
    ("q2.tp_calls", 1150, "rounded_count"),
    # Crossover: 10e-6 s x 25 GiB/s = 250e-6 GiB = 0.256 MiB; with GB: 10e-6 x 25e9 B = 0.238 MiB.
    ("q2.crossover_mib", 0.256, None),
    ("q2.crossover_mib", 10e-6 * 25e9 / 2**20, "gib_vs_gb"),
    ("q2.crossover_mib", 0.128, "direction"),
    # 0.512 is also 2 x, but it is the example link's crossover the lesson shows: that hint comes first
    ("q2.crossover_mib", 0.512, "example_link_crossover"),
    ("q2.crossover_mib", 256, "microseconds_as_ms"),  # 10 µs taken as 10 ms: the hint names µs
    # TP = 8, 36 layers, 8 micro-batches: 4 all-reduces per layer x 36 x 8 = 1152.
    ("q2.tp_calls", 1152, None),
    ("q2.tp_calls", 2 * 36 * 8, "forward_only"),
    ("q2.tp_calls", 4 * 36, "one_micro_batch"),
    # Serving a MoE model, intra-node, context not declared: TP, EP, PP and Replica pass.
    ("q3.accepted", {"TP", "EP", "PP", "Replica"}, None),
    ("q3.accepted", {"TP", "EP", "Replica"}, "left_out:PP"),
    ("q3.accepted", {"TP", "PP", "Replica"}, "left_out:EP"),
    ("q3.accepted", {"TP", "EP", "PP", "Replica", "CP"}, "context_gate"),
    # {'TP': 2, 'CP': 2, 'PP': 2, 'DP': 2, 'EP': 4}: naive 2 x 2 x 2 x 2 x 4 = 64; engine TP.CP.DP.PP = 16.
    ("q4.naive_ranks", 64, None),
    ("q4.naive_ranks", 16, "engine_rule"),
    ("q4.engine_ranks", 16, None),
    ("q4.engine_ranks", 64, "ep_multiplied"),
    # Reference layout TP = 2, PP = 4, DP = 2: rank 5's DP group is [5, 7]; [4, 5] is its TP group.
    ("q4.dp_group", [5, 7], None),
    ("q4.dp_group", [4, 5], "tp_group"),
    # Lesson 8: algbw = 256 MiB / 4 ms = 62.5 GiB/s; busbw = algbw x (n-1)/n = 62.5 x 7/8 = 54.69 GiB/s.
    ("lab.busbw_gib_s", 54.7, None),
    ("lab.busbw_gib_s", 62.5, "algbw"),
    ("lab.busbw_gib_s", 54.6875 * GIB / 1e9, "gib_vs_gb"),
    # S* = steps x alpha x B / factor = 2 x 50e-6 s x 2**30 B/s / 1 = 107,374 bytes; with GB 100,000 bytes.
    ("lab.crossover_bytes", 107374, None),
    ("lab.crossover_bytes", 2 * 50e-6 * 1e9, "gib_vs_gb"),
    # one ring step instead of 2(n-1) = 2 halves S*; the factor (n-1)/n = 1/2 instead of 2(n-1)/n = 1 doubles it
    ("lab.crossover_bytes", 50e-6 * GIB, "one_step"),
    ("lab.crossover_bytes", 4 * 50e-6 * GIB, "half_factor"),
]


@pytest.mark.parametrize(("exercise_id", "answer", "slip"), HAND_WORKED, ids=lambda v: str(v)[:30])
def test_hand_worked_answers_and_slips(exercise_id: str, answer: Any, slip: str | None) -> None:
    feedback = check(exercise_id, answer)
    if slip is None:
        assert feedback.correct, feedback.message
        verify(exercise_id, answer)
    else:
        assert (feedback.status, feedback.slip) == ("incorrect", slip), feedback.message


def test_lesson_3_2_forgetting_pp_no_longer_blames_the_context_gate() -> None:
    for lang in ("zh", "en"):
        coursekit.set_language(lang)
        message = check("q3.accepted", {"TP", "EP", "Replica"}).message
        assert "PP" in message and "上下文" not in message and "context" not in message


def test_a_wrong_item_of_a_set_answer_is_named_as_an_item() -> None:
    # (1, 2) for a set of option names: the message is about one item, so it must not call 1 the answer
    for lang, item in (("zh", "answer 中的一项 = 1"), ("en", "an item of answer = 1")):
        coursekit.set_language(lang)
        feedback = check("q3.accepted", (1, 2))
        assert feedback.status == "invalid" and item in feedback.message, feedback.message


def test_intro_device_gb_against_the_units_by_hand() -> None:
    # 1 GiB = 2**30 bytes and 1 GB = 10**9 bytes (IEC 80000-13 / SI): 24 GiB = 25.769803776 GB.
    assert math.isclose(get_exercise("intro.device_gb").expected_value(), 25.769803776, rel_tol=1e-12)
    with pytest.raises(AssertionError, match=r"intro\.device_gb: incorrect"):
        verify("intro.device_gb", 24)
    assert check("intro.device_gb", "25.77").status == "invalid"


# -- show_solution ----------------------------------------------------------------------------------------------


def test_show_solution_gives_question_method_and_result_in_the_lesson_language(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = solution_text("intro.device_gb")
    assert text.splitlines()[0] == "Worked solution"  # no internal id: the question follows
    assert "how many GB" in text and "Method: 1 GiB = 2^30 bytes" in text and "25.77" in text
    coursekit.set_language("zh")
    text = solution_text("intro.device_gb")
    assert text.splitlines()[0] == "参考解答"
    assert "做法：1 GiB = 2^30 字节" in text and "结果：24 × 2^30 字节 = 25.77 × 10^9 字节" in text
    from coursekit.exercises import show_solution

    show_solution("q2.tp_calls")
    assert "结果：4 × 36 × 8 = 1152 次" in capsys.readouterr().out


def test_feedback_words_not_glyphs() -> None:
    for lang in ("zh", "en"):
        coursekit.set_language(lang)
        for answer in (..., 25.77, 3.0, "x"):
            message = check("intro.device_gb", answer).message
            assert not any(glyph in message for glyph in "✅❌⏳⚠✓✗")


def test_three_digit_factors_just_above_one_do_not_accept_one() -> None:
    # plan.slow_link and plan.cp_cost ask for 3 significant digits of a factor just above 1 (1.029 and 1.016 in the
    # guides): "no change" must not pass by being read as 1.0 +- 0.05
    from coursekit.exercises import check

    for exercise_id in ("plan.slow_link", "plan.cp_cost"):
        assert not check(exercise_id, 1).correct
        assert not check(exercise_id, 1.0).correct
    assert written_tolerance(1, min_digits=3) == 0.005
