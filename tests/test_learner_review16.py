"""What the English self-learner of review 16 met in lessons 6, 7 and 9, fixed.

1. A right answer rounded to one significant digit (7.5's 0.05 for 0.0538, 6.1's 0.2 for 3/19 = 0.158, 6.3's 0.9 for
   0.85) got the exercise's method hint, which sends a learner who did everything right back to the method. The
   "write more digits" hint judged the answer at two digits, the checker's floor, so it never matched a one-digit
   answer.
2. ``answer = 5.4%`` (a share of peak written as a percentage) stopped with a bare ``SyntaxError: invalid syntax``
   and no line of help; the full-width ``5.4％`` was told to retype it as ``5.4%``, which fails again.
3. Lesson 9's table of measured layout pairs showed an estimated ratio of "1.00" next to the verdict "reversed";
   it shows three decimals (1.001, 0.999) and the prose says these two pairs are estimated less than 0.1 % apart.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from coursekit.exercises import check, get_exercise
from coursekit.exercises.input_help import input_hint
from coursekit.i18n import get_language, set_language

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def zh() -> Iterator[None]:
    before = get_language()
    set_language("zh")
    yield
    set_language(before)


@pytest.fixture
def en() -> Iterator[None]:
    before = get_language()
    set_language("en")
    yield
    set_language(before)


# -- 1. one significant digit ------------------------------------------------------------------------------------

#: (exercise, its answer worked by hand, the one-digit form of that answer)
ONE_DIGIT = [
    # 7.5: intensity about 16 tokens (15.9 FLOP/byte) x 3.35 TB/s / 989 TFLOP/s = 0.0539 -> 0.05
    ("eff.decode_share", 15.9 * 3.35 / 989, 0.05),
    # 6.1: (p-1)/(m+p-1) = 3/19 = 0.158 -> 0.2
    ("pipeline.bubble_p4_m16", 3 / 19, 0.2),
    # 6.3: 6800 / (32 x 250) = 0.85 -> 0.9 (half up) or 0.8 (cut off)
    ("pipeline.efficiency", 6800 / (32 * 250), 0.9),
    ("pipeline.efficiency", 6800 / (32 * 250), 0.8),
    # 7.2: 989 / 4.8 = 206 -> 200
    ("eff.h200_ridge", 989 / 4.8, 200),
]


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize(("exercise_id", "by_hand", "one_digit"), ONE_DIGIT)
def test_a_right_answer_with_one_digit_is_told_to_write_more_digits(
    exercise_id: str, by_hand: float, one_digit: float
) -> None:
    assert get_exercise(exercise_id).expected_value() == pytest.approx(by_hand, rel=2e-3)
    feedback = check(exercise_id, one_digit)
    assert feedback.status == "incorrect" and feedback.slip == "more_digits", feedback.message
    assert "needs 2 significant digits: you wrote fewer" in feedback.message
    # the same answer at two digits is right
    assert check(exercise_id, float(f"{by_hand:.2g}")).correct


@pytest.mark.usefixtures("zh")
def test_the_chinese_hint_for_one_digit_names_the_digits() -> None:
    feedback = check("eff.decode_share", 0.05)
    assert feedback.slip == "more_digits" and "这道题要 2 位有效数字" in feedback.message


@pytest.mark.usefixtures("en")
def test_a_one_digit_answer_that_is_not_the_answer_still_gets_the_method_hint() -> None:
    # 0.0539 at one digit is 0.05: 0.06 is a different number, and 6.1's 0.3 is not 0.158 at any precision
    assert check("eff.decode_share", 0.06).slip is None
    assert check("pipeline.bubble_p4_m16", 0.3).slip is None
    # 7.2's 300 is H100's ridge (989 / 3.35 = 295), the exercise's own slip, which comes first
    assert check("eff.h200_ridge", 300).slip not in (None, "more_digits")
    # two digits as before: 0.16 right, 0.15 cut off
    assert check("pipeline.bubble_p4_m16", 0.16).correct
    assert check("pipeline.bubble_p4_m16", 0.15).slip == "truncated"


# -- 2. a percent sign --------------------------------------------------------------------------------------------


def _syntax_error(source: str) -> SyntaxError:
    try:
        compile(source, "<cell>", "exec")
    except SyntaxError as error:
        return error
    raise AssertionError(f"{source!r} compiled")


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize("source", ["answer = 5.4%", "answer = 5.4％", "answer = 5.4 %  # a share of peak"])
def test_a_number_with_a_percent_sign_gets_both_ways_to_write_it(source: str) -> None:
    hint = input_hint(_syntax_error(source))
    assert hint is not None
    assert "percent sign '%'" in hint
    # 5.4 % = 0.054 as a fraction; 5.4 as a percentage
    assert "answer = 0.054 (5.4% is 0.054)" in hint and "write answer = 5.4." in hint
    # the fixed lines compile
    compile("answer = 0.054", "<cell>", "exec")


@pytest.mark.usefixtures("zh")
def test_the_chinese_percent_help_gives_the_same_numbers() -> None:
    hint = input_hint(_syntax_error("answer = 25%"))
    assert hint is not None and "百分号" in hint
    assert "answer = 0.25（25% 就是 0.25）" in hint and "answer = 25。" in hint


@pytest.mark.usefixtures("en")
def test_other_syntax_errors_get_no_percent_help() -> None:
    # a modulo inside an expression is Python, not a percentage; a plain syntax error gets no line
    assert input_hint(_syntax_error("answer = 5 % 3 )")) is None
    assert input_hint(_syntax_error("answer = = 5")) is None


def _lesson0_cells(lang: str) -> str:
    notebook = json.loads((ROOT / "notebooks" / lang / "00_index.ipynb").read_text(encoding="utf-8"))
    return "\n".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")


def test_lesson_0_says_to_leave_out_the_percent_sign_and_what_one_digit_gets() -> None:
    en, zh = _lesson0_cells("en"), _lesson0_cells("zh")
    assert "Leave out the percent sign too: `answer = 5.4%` is also a" in en
    assert "0.2 (too few digits) and 0.15" in en
    assert "`answer = 5.4%` 同样是语法错误" in zh and "写成 0.2（位数不够）或 0.15" in zh


# -- 3. lesson 9's layout pairs ------------------------------------------------------------------------------------


def test_lesson_9_shows_the_estimated_pair_ratio_to_three_decimals() -> None:
    source = (ROOT / "notebooks" / "src" / "09_workbench.py").read_text(encoding="utf-8")
    assert re.search(r'f"\{p\.measured:\.2f\}",\s*f"\{p\.estimated:\.3f\}"', source)
    for lang, phrase in (
        ("en", "Llama 3 8B's two are estimated at 1.001 and 0.999, less than 0.1 % apart"),
        ("zh", "Llama 3 8B 的两对估算之比是 1.001 和"),
    ):
        notebook = json.loads((ROOT / "notebooks" / lang / "09_workbench.ipynb").read_text(encoding="utf-8"))
        text = "\n".join("".join(cell["source"]) for cell in notebook["cells"])
        assert phrase in text, lang


# -- 4. a number written as the question names it ------------------------------------------------------------------


@pytest.mark.usefixtures("en")
@pytest.mark.parametrize("answer", ["TP=4", "tp4", "TP 4"])
def test_an_answer_written_as_tp_equals_4_is_shown_the_number_alone(answer: str) -> None:
    # 10.3 asks "which of TP = 1, 2, 4, 8": the learner writes the option as the question does
    feedback = check("serve.best_tp", answer)
    assert feedback.status == "invalid"
    assert "write answer = 4" in feedback.message and "not str" not in feedback.message
