"""What the Chinese self-learner of review 23 met on a 13-inch laptop (lessons 4, 6, 7, 8, 10 and every widget), fixed.

2. ``answer = 约206`` (exercise 7.2's H200 ridge point, 989 / 4.8 = 206 FLOP/byte): "约" and a whole number make one
   Python name, so the cell raised a NameError and the line of help said to put it in quotes as an option
   (``answer = '约206'``, another wrong answer) or to run the cells above. ``约0.16`` (a SyntaxError) has had the
   right hint since review 22; now the NameError gets the same: leave out "约", ``answer = 206``.
3. ``answer = '1,074e5'`` (exercise 8.2's 107,374 bytes with a decimal comma, in scientific notation) was read as a
   thousands comma and told to write ``answer = 1074e5``, 1000 times the answer; a mantissa has no thousands group,
   so the comma is now read as its decimal point (``answer = 1.074e5``).
"""

from __future__ import annotations

import pytest

from coursekit.exercises.input_help import input_hint
from tests.test_learner_review16 import en, zh  # noqa: F401  (the language fixtures)

# -- 2. answer = 约206 -------------------------------------------------------------------------------------------


def _name_error(source: str) -> NameError:
    try:
        exec(compile(source, "<cell>", "exec"), {})
    except NameError as error:
        return error
    raise AssertionError(f"{source!r} raised no NameError")


@pytest.mark.usefixtures("zh")
def test_about_before_a_whole_number_gets_the_about_hint_not_quotes() -> None:
    # exercise 7.2: 989 TFLOP/s / 4.8 TB/s = 206 FLOP/byte (worked by hand)
    hint = input_hint(_name_error("answer = 约206"), "answer = 约206")
    assert hint == (
        "第 1 行的数前面有“约”：Python 的数不带文字。检查器按你写出的位数判断，本来就容许舍入，不用写“约”：answer = 206"
    )
    with_unit = input_hint(_name_error("x = 1\nanswer = 约195字节"), "answer = 约195字节")
    assert with_unit is not None and with_unit.startswith("第 2 行") and with_unit.endswith("answer = 195")
    # an option typed without quotes keeps its hint
    option = input_hint(_name_error("answer = mb2"), "answer = mb2")
    assert option is not None and "answer = 'mb2'" in option


@pytest.mark.usefixtures("en")
def test_about_before_a_whole_number_in_english() -> None:
    hint = input_hint(_name_error("answer = about206"), "answer = about206")
    assert hint is not None and hint.endswith("leave out “about”: answer = 206")


# -- 3. a decimal comma in scientific notation ---------------------------------------------------------------------


@pytest.mark.usefixtures("zh")
def test_a_comma_in_a_mantissa_is_a_decimal_point() -> None:
    from coursekit.exercises import check

    # exercise 8.2: S* = 2 x 50 us x 2^30 B/s = 107,374 bytes = 1.074e5 (worked by hand); '1,074e5' was told to write
    # answer = 1074e5, 1000 times the answer
    message = check("lab.crossover_bytes", "1,074e5").message
    assert "写成 answer = 1.074e5。" in message and "1074e5" not in message
    assert check("lab.crossover_bytes", 1.074e5).correct
    # a thousands comma without an exponent keeps its advice
    assert "answer = 1074000" in check("lab.crossover_bytes", "1,074,000").message
