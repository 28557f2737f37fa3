"""Regressions from the twenty-fifth adversarial fuzzing pass: the public surface added since pass 24
(``coursekit.i18n.nonzero`` and ``coursekit.units.share_text``'s share rules, ``check(..., entry=...)``, the magnitude
hints, ``coursekit.widgets.control_grid``, the stage words, Chinese numerals and set or tuple answers typed as text the
checker reads) fed ints, floats, bools, numpy scalars and arrays, NaN, infinities, -0.0, 1e308, 5e-324, strings, None,
Fraction, Decimal and 10**400; the exercise input help and ``check`` fed seeded slips on every exercise of every
lesson; the command line's flags fed 1e-320, -0, 10**400, full-width and Arabic-Indic digits and repeated flags; and
two leftovers of pass 24.

Found and fixed:

1. ``coursekit.parts_adding_up([1e308, -1e308], 2)`` (the parts sum to 0, so the sum check let them through) answered
   with two 312-character parts. ``parts_adding_up`` and ``adding_up_places`` now print parts, and sums of parts, of
   at most 2^53 in size (``coursekit.units.MAX_PRINTED_PART``): past 2^53 a float cannot tell neighbouring integers
   apart, so the digits a fixed-point print writes are not the number. A larger part is refused naming ``parts[i]``,
   its value in four significant figures and the rule, in the learner's language (pass 23's 1e300 printed in 301
   digits is now refused; its test prints 2^53 instead).
2. ``ServingWorkload(request_rate_per_s=1e308)`` was accepted (only the command line's ``--request-rate`` had a
   ceiling). The library now holds the command line's bound, a million requests a second
   (``coursekit.specs.MAX_REQUEST_RATE_PER_S``, imported by ``coursekit.serving_cli`` as before), and its message
   states why: by Little's law a million requests a second lasting about 10 s each (256 tokens at 40 ms) keep 10^7
   in flight, ``MAX_CONCURRENCY``, the most a workload holds.
3. ``coursekit.i18n.nonzero`` raised ``OverflowError`` for 10**400 and Python's own English ``TypeError`` /
   ``ValueError`` for a spec that is not a str (None, 5) or one the value does not take ('x' for a float, '.1f' for
   a list); all are refused naming ``spec`` or ``value`` in the learner's language. A fixed-point spec with no
   precision (``'%'``, ``'f'``: six decimals) printed 5e-324 as "0.000000%"; it now keeps a nonzero value from
   reading 0 as a spec with its precision written does.
4. ``coursekit.widgets.control_grid`` refused a wide name that is not a control with an English f-string, and took
   ``controls`` that are no mapping or hold no widget (an ``AttributeError`` later) and ``wide`` as a string (its
   letters read as names). All three are refused naming the argument in the learner's language.
5. The input help's full-width hint showed ``answer = not_preferred%`` for ``answer = not_preferred％`` (exercise 5.1's
   option typed with a full-width percent sign): a line that Python refuses too. When the line retyped in half-width
   characters still does not compile, the hint names the full-width character and says the line needs retyping as
   the question asks, showing no line. So too for a line that compiles only with a ``SyntaxWarning``:
   ``answer = [5, 7]（[5, 7]）`` was shown ``answer = [5, 7]([5, 7])``, a list called (a TypeError when run).
6. Every float flag of ``python -m coursekit plan`` (training and serving) took a nonzero number below the smallest
   normal float (``sys.float_info.min``, about 2.2e-308) as another number: ``--intra-latency-us 1e-320`` was echoed
   in the report's heading as 9.99989e-321 (a subnormal keeps fewer digits than written) and ``--dropout 1e-400`` was
   read as 0. Such a value is now refused naming the flag, the value as written, what it reads back as and the rule
   (a number of at least 2.225e-308 in size, or 0 where the flag takes it), in the chosen language
   (``coursekit._cli.NumberArg``: one rule for every float flag, the lab's too). A subnormal below a flag's floor
   still gets the floor's message, as pass 24 pinned; 1e-400, read as 0.0, gets this one from every flag.
7. A number typed in Chinese numerals with a decimal point, a sign or a group of 万 / 亿 (``answer = 三十一点四``,
   ``负三``, ``一亿零五百万``) was told "if it is an option, write it in quotes: answer = '三十一点四'", text where a
   number is asked. ``coursekit.exercises.input_help.chinese_number_text`` reads them (31.4, -3, 105000000; the rule
   worked by hand in the test), and the help and the checker (the numeral in quotes) write the number in Arabic
   digits; a numeral ending in an order of magnitude (``两千四百亿``) gets ``2400亿``'s conversion (2.4e+11, 240 in
   billions), as review 27 gave ``answer = 2400亿``.
8. ``magnitude_hint`` echoed a 401-digit number as 200 digits and "..."; a number longer than 30 characters is echoed
   in e-notation (1.00e+400).

Examined without a defect found (apart from 5): 3,380 seeded slips over the 65 exercises of lessons 0-10 in both
languages (full-width characters, units, Chinese numerals with decimals and orders of magnitude, thousands separators,
percents, fractions, unbalanced quotes and brackets, 500-character lines, control characters, superscripts, a pasted
minus sign; 1,300 of them are kept here): the help never raised, every other line it showed compiles, and every valid
line that ran went through ``check`` without an exception and without a wrong value accepted; every number exercise
accepted its value as a float, numpy float64, Fraction and 0-d array (and as an int where whole, a percentage where the
exercise takes one), and refused 1.5 times it, its negative, ten times it plus one, NaN, infinity, 10**400 and True
(Decimal is refused by name as no real number, by design). ``share_text`` and ``magnitude_hint`` fed the values above.
The command line (apart from 6): every ``plan`` flag in training and serving mode fed 1e-320, -0, -0.0, 10**400,
full-width and Arabic-Indic digits, '1_000', '0x10', ' 8', '+8' and 'ⅷ' (exit 0 or 2 with the flag named, one
paragraph, no traceback), ``lessons`` with an empty, 300-byte or doubled DIR and repeated ``--lang``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import random
import re
import warnings
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import ipywidgets
import numpy as np
import pytest

import coursekit.exercises as exercises_module
from coursekit import i18n
from coursekit.__main__ import main
from coursekit._cli import NumberArg
from coursekit.exercises import check, exercises, input_help
from coursekit.i18n import nonzero
from coursekit.planner.cli import add_plan_command
from coursekit.serving import ServingWorkload, littles_law_concurrency
from coursekit.specs import MAX_CONCURRENCY
from coursekit.units import adding_up_places, parts_adding_up
from coursekit.widgets import control_grid

CJK = re.compile(r"[\u4e00-\u9fff]")
#: 2^53: the largest size at which a float still holds every integer (IEEE 754 binary64's 53-bit significand).
TWO_TO_53 = float(2**53)


@pytest.fixture(params=["zh", "en"])
def lang(request: pytest.FixtureRequest) -> Iterator[str]:
    before = i18n.get_language()
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language(before)


def _refusal(error: BaseException, lang: str, *needles: str) -> None:
    text = str(error)
    assert bool(CJK.search(text)) == (lang == "zh"), text
    assert not re.search(r"\d{40}", text), text  # never a 300-digit number
    for needle in needles:
        assert needle in text, (needle, text)


# 1. parts_adding_up prints parts of at most 2^53 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "needles"),
    [
        ([1e308, -1e308], ("parts[0]", "1e+308", "2^53")),
        ([1.0, -1e300], ("parts[1]", "-1e+300", "2^53")),
        ([math.nextafter(TWO_TO_53, math.inf)], ("parts[0]", "9.007e+15", "2^53")),
        ([TWO_TO_53, TWO_TO_53], ("parts", "2^53")),  # each at the bound, their sum past it
    ],
)
def test_parts_past_two_to_the_53_are_refused_by_name(lang: str, parts: list[float], needles: tuple[str, ...]) -> None:
    for call in (lambda: parts_adding_up(parts, 2), lambda: adding_up_places(parts, 0, 3)):
        with pytest.raises(ValueError) as refused:
            call()
        _refusal(refused.value, lang, *needles)


def test_parts_up_to_two_to_the_53_print_as_the_format_does() -> None:
    assert parts_adding_up([TWO_TO_53], 12) == [f"{TWO_TO_53:.12f}"]
    assert parts_adding_up([-TWO_TO_53, 0.5], 1) == [f"{-TWO_TO_53:.1f}", "0.5"]
    assert parts_adding_up([1e15, -1e15, 0.25], 2) == ["1000000000000000.00", "-1000000000000000.00", "0.25"]


# 2. ServingWorkload holds the command line's ceiling on the request rate ------------------------------------------


@pytest.mark.parametrize("rate", [1e308, math.nextafter(1e6, math.inf), 2e6])
def test_a_request_rate_past_a_million_per_second_is_refused_with_its_reason(lang: str, rate: float) -> None:
    with pytest.raises(ValueError) as refused:
        ServingWorkload(prompt_tokens=2048, output_tokens=256, request_rate_per_s=rate)
    _refusal(refused.value, lang, "request_rate_per_s", "1e+06", "1e+07")
    assert ("利特尔定律" if lang == "zh" else "Little's law") in str(refused.value)


def test_the_ceiling_is_a_million_and_little_s_law_makes_it_the_concurrency_bound() -> None:
    ServingWorkload(prompt_tokens=2048, output_tokens=256, request_rate_per_s=1e6)  # the bound itself is taken
    # a request of 256 tokens at 40 ms each lasts about 10 s: 10^6 per second keep 10^7 in flight
    assert littles_law_concurrency(1e6, 256 * 0.040) == pytest.approx(MAX_CONCURRENCY, rel=0.03)


def test_the_command_line_refuses_the_same_rate() -> None:
    err = io.StringIO()
    argv = ["plan", "--mode", "serving", "--model", "gpt2-small", "--cluster", "a100-8", "--request-rate", "1e308"]
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main([*argv, "--lang", "en"])
        except SystemExit as stop:
            code = stop.code
    assert code == 2 and "--request-rate" in err.getvalue() and "Traceback" not in err.getvalue()
    i18n.set_language("en")


# 3. nonzero refuses in the learner's language ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "spec", "error", "needles"),
    [
        (10**400, ".3f", ValueError, ("value", "1.0e+400")),
        (0.5, None, TypeError, ("spec", "None")),
        (0.5, 5, TypeError, ("spec", "5")),
        (0.5, "x", ValueError, ("spec", "'x'", "0.5")),
        ([1], ".1f", ValueError, ("spec", "'.1f'", "[1]")),
    ],
    ids=["10**400", "spec None", "spec 5", "spec x", "a list"],
)
def test_nonzero_refuses_by_name(lang: str, value: Any, spec: Any, error: type[Exception], needles: Any) -> None:
    with pytest.raises(error) as refused:
        nonzero(value, spec)
    _refusal(refused.value, lang, *needles)


def test_nonzero_with_a_spec_of_no_stated_precision_never_reads_zero() -> None:
    for spec in ("%", "f"):
        assert re.search("[1-9]", nonzero(5e-324, spec)), spec
        assert re.search("[1-9]", nonzero(1e-9, spec)), spec
        assert nonzero(0.5, spec) == format(0.5, spec)  # a value the spec shows is left as the spec shows it
    assert nonzero(1 - 1e-9, "%") != format(1, "%")  # below the whole never reads 100.000000%


# 4. control_grid refuses in the learner's language -------------------------------------------------------------------


def _controls() -> dict[str, Any]:
    return {"a": ipywidgets.IntSlider(), "b": ipywidgets.Dropdown(options=["x"])}


@pytest.mark.parametrize(
    ("args", "error", "needles"),
    [
        ((None,), TypeError, ("controls", "None")),
        (({"a": 3},), TypeError, ("controls['a']", "3")),
        (("controls", "a"), TypeError, ("wide", "'a'")),
        (("controls", ["z"]), ValueError, ("wide", "'z'", "'a'", "'b'")),
        (("controls", [1]), ValueError, ("wide", "1")),
    ],
)
def test_control_grid_refuses_by_name(lang: str, args: tuple[Any, ...], error: type[Exception], needles: Any) -> None:
    call = tuple(_controls() if arg == "controls" else arg for arg in args)
    with pytest.raises(error) as refused:
        control_grid(*call)
    _refusal(refused.value, lang, *needles)


def test_control_grid_still_lays_out_its_controls() -> None:
    controls = _controls()
    grid = control_grid(controls, ("b",))
    assert isinstance(grid, ipywidgets.VBox) and grid.children[-1] is controls["b"]
    assert controls["a"] in grid.children[0].children


# 5. The input help shows only lines that compile; seeded slips on every exercise ---------------------------------


@pytest.mark.parametrize("line", ["answer = [5, 7]（[5, 7]）", "answer = (1, 2)（(1, 2)）"])
def test_a_list_with_a_full_width_note_shows_no_line_that_calls_it(lang: str, line: str) -> None:
    with pytest.raises(SyntaxError) as error:
        compile(line, "<cell>", "exec")
    hint = input_help.input_hint(error.value, line)
    assert hint is not None and "'（'" in hint
    assert "]([" not in hint and ")((" not in hint  # answer = [5, 7]([5, 7]): a list called, a TypeError


def test_a_full_width_percent_after_an_option_shows_no_line_python_refuses(lang: str) -> None:
    line = "answer = not_preferred％"
    with pytest.raises(SyntaxError) as error:
        compile(line, "<cell>", "exec")
    hint = input_help.input_hint(error.value, line)
    assert hint is not None and "'％'" in hint
    assert "not_preferred%" not in hint  # the half-width line is no Python either: not shown as the one to type
    fixed = "answer = 0.5％"  # a number with it is still shown its line (the percent hint)
    with pytest.raises(SyntaxError) as error:
        compile(fixed, "<cell>", "exec")
    assert "0.005" in (input_help.input_hint(error.value, fixed) or "")


FULL_WIDTH = str.maketrans("0123456789.,%()[]'\"-+*/= ", "０１２３４５６７８９．，％（）［］＇＂－＋＊／＝　")
UNITS = ("GiB", "ms", "吉字节", "%", "％", "亿", "万", "B", "TFLOP/s", "秒", "个", "x")
NUMERALS = ("三十一点四", "两千四百亿", "一千零二十四", "十六", "二", "零点五", "两百", "第二阶段", "阶段2")
#: Slips per exercise and language, drawn from :func:`_slips`' 26 (a modest sample: 65 exercises x 2 languages).
SLIPS_PER_EXERCISE = 10


def _slips(rng: random.Random, value: Any) -> list[str]:
    text = str(value)
    return [
        text.translate(FULL_WIDTH),
        text + rng.choice(UNITS),
        "约" + text,
        f"{text}%",
        rng.choice(NUMERALS),
        text.replace(".", "，"),
        f"{text}/{rng.randint(1, 9)}",
        "'" + text,
        "(" + text,
        "[" + text + ",",
        text + ")",
        "a" * 500 + text,
        text + "\x07",
        "\t" + text,
        text + "\u200b",
        f"{rng.randint(1, 9)},{rng.randint(100, 999)},{rng.randint(100, 999)}",
        f"{rng.randint(1, 99)} {rng.randint(1, 99)}",
        f"{text}（{text}）",
        f"{text}e",
        f"1.07×10^{rng.randint(2, 9)}",
        f"{text}⁵",
        "−" + text,
        "",
        "...",
        f"{{{text} {text}}}",
        f"'{text}, {text}'",
    ]


def _shown_lines(line: str, error: BaseException, monkeypatch: pytest.MonkeyPatch) -> tuple[str | None, list[str]]:
    """The hint for ``error`` on ``line`` and every line it shows as the one to type (the catalog's ``fixed``,
    ``decimal`` and ``whole`` fields)."""
    shown: list[str] = []
    original = input_help.tr

    def spy(key: str, *args: Any, **fields: Any) -> str:
        shown.extend(str(fields[name]) for name in ("fixed", "decimal", "whole") if name in fields)
        return original(key, *args, **fields)

    monkeypatch.setattr(input_help, "tr", spy)
    try:
        return input_help.input_hint(error, line), shown
    finally:
        monkeypatch.setattr(input_help, "tr", original)


def _compiles(line: str) -> bool:
    """Python compiles ``line`` without a ``SyntaxWarning`` (which marks a line that fails as soon as it runs:
    "'list' object is not callable")."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        try:
            compile(line, "<fix>", "exec")
        except (SyntaxError, SyntaxWarning, ValueError):
            return False
    return True


def _course_exercises() -> list[Any]:
    """Every exercise the lessons register, not the demo exercises other test files register in the same process
    (``demo.broken`` of tests/test_exercises.py divides by zero on purpose)."""
    return [e for number in range(11) for e in exercises(number) if not e.id.startswith("demo.")]


def test_seeded_slips_on_every_exercise(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(25)
    problems: list[tuple[Any, ...]] = []
    every = _course_exercises()
    assert len(every) >= 60
    for exercise in every:
        expected = exercise.expected_value()
        value = rng.choice(sorted(map(str, expected))) if isinstance(expected, (set, frozenset)) else expected
        for body in rng.sample(_slips(rng, value), SLIPS_PER_EXERCISE):
            line = f"answer = {body}"
            namespace: dict[str, Any] = {}
            try:
                with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                    warnings.simplefilter("ignore", SyntaxWarning)  # answer = [5](5): Python's own warning
                    exec(compile(line, "<cell>", "exec"), namespace)
            except Exception as error:  # every error a cell can raise goes to the help
                hint, shown = _shown_lines(line, error, monkeypatch)
                if hint is not None and lang == "zh" and not CJK.search(hint):
                    problems.append(("not in Chinese", exercise.id, line[:60], hint[:80]))
                # a line quoted short (about 200 characters, "...") is no line to type; every other one compiles
                problems += [
                    ("shows a line Python refuses", exercise.id, line[:60], fixed[:60])
                    for fixed in shown
                    if "..." not in fixed and not _compiles(fixed)
                ]
                continue
            with contextlib.redirect_stdout(io.StringIO()):
                feedback = check(exercise.id, namespace["answer"])
            if feedback.status == "error":
                problems.append(("checker error", exercise.id, line[:60], feedback.message[:80]))
            answer = namespace["answer"]
            if feedback.correct and exercise.kind == "number":
                ok = isinstance(answer, (int, float)) and math.isclose(answer, expected, rel_tol=0.02)
                if not ok:
                    problems.append(("wrong accepted", exercise.id, line[:60]))
    assert not problems, problems[:10]


def test_every_number_exercise_takes_its_value_in_each_numeric_type_and_refuses_wrong_ones(lang: str) -> None:
    problems: list[tuple[Any, ...]] = []
    for exercise in (e for e in _course_exercises() if e.kind == "number"):
        value = float(exercise.expected_value())
        right: list[Any] = [value, np.float64(value), Fraction(value), np.array(value)]
        if value == int(value):
            right += [int(value), np.int64(int(value))]
        if "percent" in exercise.forms:
            right.append(value * 100)
        wrong: list[Any] = [value * 1.5 + 1, -value if value else 1.0, value * 10 + 1, math.nan, math.inf, 10**400]
        wrong.append(True)
        with contextlib.redirect_stdout(io.StringIO()):
            problems += [("refused", exercise.id, repr(a)) for a in right if not check(exercise.id, a).correct]
            for answer in wrong:
                feedback = check(exercise.id, answer)
                if feedback.correct or feedback.status == "error":
                    problems.append((feedback.status, exercise.id, repr(answer)[:40]))
    assert not problems, problems[:10]


def test_check_with_an_entry_never_raises_for_an_answer(lang: str) -> None:
    """``entry`` (how a cell writes a dict's entry) only changes how a fix is written: a slip typed as text gets a
    fix naming the entry, never an exception."""
    with contextlib.redirect_stdout(io.StringIO()):
        for answer in ("13 GiB", "1e308", "十三", 10**400, math.nan, [13], "'13'"):
            feedback = check("matrix.case1_state_gib", answer, entry="1: ")
            assert feedback.status in ("invalid", "incorrect"), (answer, feedback.status)
    assert exercises_module.get_exercise("matrix.case1_state_gib").kind == "number"


# 6. A float flag refuses a nonzero number below the normal floats -------------------------------------------------


def _float_flags() -> list[str]:
    parser = argparse.ArgumentParser()
    plan_parser = add_plan_command(parser.add_subparsers())
    return sorted(
        max(action.option_strings, key=len)
        for action in plan_parser._actions
        if isinstance(action.type, NumberArg) and action.type.convert is float
    )


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 2
    return int(code), err.getvalue()


def test_every_float_flag_refuses_a_subnormal_or_an_underflow_by_name() -> None:
    """1e-320 is a subnormal float (below ``sys.float_info.min``, 2.2250738585072014e-308 by IEEE 754 binary64):
    it reads back as 9.99989e-321; 1e-400 underflows to 0.0. Either would be a number the learner did not write."""
    flags = _float_flags()
    below_normal = {"--intra-latency-us", "--inter-latency-us", "--dropout", "--reserve-gib", "--overlap"}
    assert below_normal <= set(flags)  # floors of 0: these took the number as another
    base = ["plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--top", "1"]
    problems = []
    try:
        for lang in ("zh", "en"):
            for flag in flags:
                for value, read in (("1e-320", "9.99989e-321"), ("1e-400", "0")):
                    code, err = _run([*base, flag, value, "--lang", lang])
                    said = f"读出来是 {read}，" if lang == "zh" else f"reads back as {read},"
                    floor = "必须 >" if lang == "zh" else "must be >"  # a flag's floor above it, said first
                    ok = code == 2 and flag in err and value in err and (said in err or floor in err)
                    ok = ok and "Traceback" not in err and bool(CJK.search(err)) == (lang == "zh")
                    # 1e-400 is read as 0.0, so no floor can name it: every flag says what it reads back as
                    ok = ok and (said in err or (flag not in below_normal and value == "1e-320"))
                    if not ok:
                        problems.append((lang, flag, value, code, err[-200:]))
    finally:
        i18n.set_language("en")
    assert not problems, problems[:5]


@pytest.mark.parametrize("value", ["0", "-0", "0.0", "0e-400", "3.4"])
def test_a_zero_or_a_normal_latency_is_still_taken(value: str) -> None:
    base = ["plan", "--model", "gpt2-small", "--cluster", "a100-8", "--global-batch", "16", "--top", "1"]
    code, err = _run([*base, "--intra-latency-us", value, "--lang", "en"])
    i18n.set_language("en")
    assert code == 0, err[-300:]


# 7. Chinese numerals with a decimal point, a sign or 万 / 亿 ---------------------------------------------------------


@pytest.mark.parametrize(
    ("numeral", "digits"),
    [
        # worked by hand: 三十一 is 3 x 10 + 1, 点四 a decimal point and 4; 一亿零五百万 is 1 x 10^8 + 500 x 10^4
        ("三十一点四", "31.4"),
        ("零点五", "0.5"),
        ("负三", "-3"),
        ("三点一四", "3.14"),
        ("一万零五百", "10500"),
        ("一亿零五百万", "105000000"),
    ],
)
def test_a_chinese_number_is_written_in_arabic_digits(lang: str, numeral: str, digits: str) -> None:
    assert input_help.chinese_number_text(numeral) == digits
    line = f"answer = {numeral}"
    with pytest.raises(NameError) as error:
        exec(compile(line, "<cell>", "exec"), {})
    hint = input_help.input_hint(error.value, line) or ""
    assert f"answer = {digits}" in hint and f"'{numeral}'" in hint  # not "quote it as an option"
    assert f"answer = '{numeral}'" not in hint
    with contextlib.redirect_stdout(io.StringIO()):
        feedback = check("q1.headroom_gib", numeral)  # in quotes: the checker says the same
    assert feedback.status == "invalid" and f"answer = {digits}" in feedback.message


@pytest.mark.parametrize("numeral", ["点五", "三点", "亿", "负", "一万万", "三十一点十", "放得下"])
def test_what_is_no_chinese_number_is_not_read_as_one(numeral: str) -> None:
    assert input_help.chinese_number_text(numeral) is None


def test_a_chinese_numeral_with_an_order_of_magnitude_gets_the_conversion(lang: str) -> None:
    """两千四百亿 is 2400 x 10^8 = 2.4e+11, 240 in billions (exercise 9.3 asks in billions): the conversion, as
    ``answer = 2400亿`` gets it (review 27), not 240000000000 to type."""
    line = "answer = 两千四百亿"
    with pytest.raises(NameError) as error:
        exec(compile(line, "<cell>", "exec"), {})
    hint = input_help.input_hint(error.value, line) or ""
    assert "2400亿" in hint and "2.4e+11" in hint and "240" in hint and "'亿'" in hint
    with contextlib.redirect_stdout(io.StringIO()):
        feedback = check("plan.moe_active", "两千四百亿")
    assert feedback.status == "invalid" and "2.4e+11" in feedback.message


def test_a_magnitude_hint_echoes_a_401_digit_number_in_e_notation(lang: str) -> None:
    hint = input_help.magnitude_hint("1" + "0" * 400, "亿") or ""
    assert "1.00e+400亿" in hint and "1.00e+408" in hint  # 10^400 x 10^8, worked by hand
    assert not re.search(r"\d{40}", hint) and "..." not in hint
    assert "2400亿 = 2400 * 10**8" in (input_help.magnitude_hint("2400", "亿") or "")  # a short number as typed
