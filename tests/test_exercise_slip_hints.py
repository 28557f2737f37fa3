"""The hint a slip gets names that slip, in both languages: wrong answers worked by hand, hint words checked.

Issue 20 found hints that pointed at the wrong cause (8.2's missing steps got the per-direction hint, 6.2's
consistent sum got a restatement of the sum, 6.3's speed-up got the percentage hint). Each case here gives the
wrong answer a learner would write and checks the words of the hint it gets.
"""

from __future__ import annotations

import pytest

import coursekit
from coursekit.exercises import check

GIB = 2**30

# (exercise, wrong answer worked by hand, slip code, words the zh hint must contain, words the en hint must contain)
CASES = [
    # 2.3: S = 256 MiB, n = 8, B = 100 GiB/s, alpha = 5 us. transfer 2*7/8 * 0.25 GiB / 100 GiB/s = 4.375 ms,
    # latency 14 * 5 us = 0.07 ms.
    ("q2.allreduce_ms", 4.375 / 2 + 0.07, "half_transfer", ("2(n-1)/n", "传输项只有一半"), ("2(n-1)/n", "half")),
    ("q2.allreduce_ms", 2 * 4.375 + 0.07, "direction", ("单向",), ("per-direction",)),
    ("q2.allreduce_ms", 4.375 + 7 * 0.005, "ring_steps", ("2(n-1) 步",), ("2(n-1) steps",)),
    # 2.4: 4 * 36 * 8 = 1152, answered 1150 or 1200
    ("q2.tp_calls", 1150, "rounded_count", ("精确",), ("exact count",)),
    ("q2.tp_calls", 1200, "rounded_count", ("精确",), ("exact count",)),
    # 8.2: S* = 2(n-1) * alpha * B / (2(n-1)/n) = 2 * 50e-6 * 2**30 / 1 bytes at n = 2
    ("lab.crossover_bytes", 1 * 50e-6 * GIB / 1, "one_step", ("2(n-1) 个环步",), ("2(n-1) ring steps",)),
    ("lab.crossover_bytes", 2 * 50e-6 * GIB / 0.5, "half_factor", ("2(n-1)/n",), ("2(n-1)/n", "not (n-1)/n")),
    # 6.2: p = 4, m = 8, t = 30 ms, 60 ms all-reduce half hidden: compute 240, bubble 3 * 30 = 90, exposed 30.
    ("pipeline.timeline_bubble_ms", 4 * 30, "p_not_p_minus_1", ("p-1",), ("p-1", "not p")),
    ("pipeline.timeline_bubble_ms", 3 / 11 * 240, "share_not_time", ("(p-1)/(m+p-1)",), ("(p-1)/(m+p-1)",)),
    ("pipeline.timeline_exposed_ms", 60, "whole_allreduce", ("整个全归约",), ("whole all-reduce",)),
    # step with one part wrong: bubble 4 * 30 -> 240 + 120 + 30 = 390, and the whole 60 ms all-reduce exposed ->
    # 240 + 90 + 60 = 390 too (the hint names both ways); exposed 0 (all hidden) -> 240 + 90 + 0 = 330;
    # bubble 3/11 * 240 = 65.45 -> 335.45
    (
        "pipeline.timeline_step_ms",
        390,
        "step:bubble_p_not_p_minus_1+whole_allreduce_exposed",
        ("240 + 120 + 30 = 390", "240 + 90 + 60 = 390", "p 个微批次", "整个全归约"),
        ("240 + 120 + 30 = 390", "240 + 90 + 60 = 390", "not p-1", "whole all-reduce"),
    ),
    ("pipeline.timeline_step_ms", 330, "step:allreduce_all_hidden", ("240 + 90 + 0 = 330",), ("entirely hidden",)),
    ("pipeline.timeline_step_ms", 335.45, "step:bubble_share_of_compute", ("65.45",), ("(p-1)/(m+p-1)",)),
    # 6.3: speed-up 6800 / 250 = 27.2, answered 27; E = 27.2 / 32 = 0.85
    ("pipeline.efficiency", 27, "speed_up_not_efficiency", ("加速比",), ("speed-up", "divides it by the device count")),
    ("pipeline.efficiency", 85, "percent_vs_fraction", ("百分数",), ("percentage",)),
    # 9.1 and 10.2 need exact counts too (1772 and 184 candidates / requests)
    ("plan.memory_removed", 1800, "rounded_count", ("精确",), ("exact count",)),
    ("serve.max_requests", 180, "rounded_count", ("精确",), ("exact count",)),
]


@pytest.mark.parametrize(("exercise_id", "answer", "slip", "zh_words", "en_words"), CASES, ids=lambda v: str(v)[:24])
def test_the_hint_names_the_slip(
    exercise_id: str, answer: float, slip: str, zh_words: tuple[str, ...], en_words: tuple[str, ...]
) -> None:
    for lang, words in (("zh", zh_words), ("en", en_words)):
        coursekit.set_language(lang)
        feedback = check(exercise_id, answer)
        assert (feedback.status, feedback.slip) == ("incorrect", slip), feedback.message
        for word in words:
            assert word in feedback.message, (lang, word, feedback.message)
    coursekit.set_language("en")


def test_the_speed_up_no_longer_gets_the_percentage_hint() -> None:
    coursekit.set_language("en")
    assert "percentage" not in check("pipeline.efficiency", 27).message


def test_a_right_sum_of_right_parts_is_correct_and_exact_counts_accept_only_the_count() -> None:
    assert check("pipeline.timeline_step_ms", 240 + 90 + 30).correct
    assert check("q2.tp_calls", 4 * 36 * 8).correct
    assert check("serve.max_requests", 184.5).status == "invalid"  # a count is a whole number
