"""Input checks: the parameter, the value and the rule, in the learner's language."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coursekit
from coursekit._validate import check_bool, check_choice, check_divides, check_int, check_number


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: check_number("x", True), TypeError, "x = True: must be a real number (int or float), not bool."),
        (lambda: check_number("x", "1"), TypeError, "x = '1': must be a real number (int or float), not str."),
        (lambda: check_number("x", None), TypeError, "x = None: must be a real number (int or float), not NoneType."),
        (lambda: check_number("x", math.nan), ValueError, "x = nan: must be a finite number (not NaN or infinity)."),
        (lambda: check_number("x", math.inf), ValueError, "x = inf: must be a finite number (not NaN or infinity)."),
        (lambda: check_number("x", -1, ge=0), ValueError, "x = -1: must be >= 0."),
        (lambda: check_number("x", 0, gt=0), ValueError, "x = 0: must be > 0."),
        (lambda: check_number("x", 2, le=1), ValueError, "x = 2: must be <= 1."),
        (lambda: check_number("x", 1, lt=1), ValueError, "x = 1: must be < 1."),
        (lambda: check_int("dp", 2.0), TypeError, "dp = 2.0: must be an integer (int), not float."),
        (lambda: check_int("dp", False), TypeError, "dp = False: must be an integer (int), not bool."),
        (lambda: check_int("dp", 0, ge=1), ValueError, "dp = 0: must be >= 1."),
        (lambda: check_bool("sp", 1), TypeError, "sp = 1: must be True or False, not int."),
        (lambda: check_choice("kind", "ring", ("a", "b")), ValueError, "kind = 'ring': must be one of 'a', 'b'."),
        (lambda: check_choice("kind", 3, ("a",)), TypeError, "kind = 3: must be a string, not int."),
        (lambda: check_divides("tp", 3, "heads", 32), ValueError, "tp = 3: must divide heads = 32."),
    ],
)
def test_messages(call, error: type[Exception], message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_chinese_message() -> None:
    coursekit.set_language("zh")
    with pytest.raises(ValueError) as info:
        check_int("tp", 3, ge=4)
    assert str(info.value) == "tp = 3：必须 >= 4。"


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(allow_nan=False, allow_infinity=False))
def test_check_number_accepts_exactly_the_values_in_range(value: float, low: float) -> None:
    if value >= low:
        assert check_number("x", value, ge=low) == value
    else:
        with pytest.raises(ValueError):
            check_number("x", value, ge=low)


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_check_int_round_trips(value: int) -> None:
    assert check_int("n", value) == value


def test_finite_result_names_the_path_of_the_first_non_finite_number() -> None:
    """The guard walks dataclasses, mappings and short tuples; the message spells the way to the bad number."""
    import dataclasses

    from coursekit._validate import finite_result

    @dataclasses.dataclass(frozen=True)
    class Inner:
        ok: float
        parts: tuple[float, ...]
        _hidden: float = math.nan  # private fields are not results

    @dataclasses.dataclass(frozen=True)
    class Outer:
        count: int
        name: str
        inner: Inner
        table: dict[str, float]

    @finite_result
    def build(x: float) -> Outer:
        return Outer(3, "n", Inner(1.0, (0.5, x, 3.0)), {"a": 1.0, "b": -x})

    assert build(2.0).table == {"a": 1.0, "b": -2.0}
    with pytest.raises(ValueError, match=r"^inner\.parts\[1\] is not a finite number \(inf\) for x = inf"):
        build(math.inf)

    @finite_result
    def table(x: float) -> dict[str, tuple[float, ...]]:
        return {"first": (1.0,), "second": (1.0, x)}

    with pytest.raises(ValueError, match=r"^\[\'second\'\]\[1\] is not a finite number \(-inf\)"):
        table(-math.inf)
    long = tuple([1.0] * 64 + [math.inf])  # more than 64 items: not walked (their total is checked instead)

    @finite_result
    def events() -> tuple[float, ...]:
        return long

    assert events() == long
