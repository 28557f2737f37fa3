"""Units, in one place. Every conversion in coursekit goes through these names.

Binary units (GiB, MiB) are what memory is reported in and what the ledgers use;
decimal units (GB, as in the ZeRO paper's Figure 1, and GB/s as in vendor
bandwidth sheets) are kept apart. Bandwidth in coursekit is always
*per GPU, per direction* (unidirectional) unless a name says ``bidirectional``.

The conversions take one finite real number (``bool``, strings, NaN and
infinity are refused like everywhere in the course); formulas that work on
numpy arrays multiply by the constants directly.

>>> GIB_BYTES / MIB_BYTES
1024.0
>>> GB_BYTES
1000000000
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from ._validate import check_bool, check_int, check_items, check_number, finite_result, learner_functions
from .i18n import MAX_EXTRA_DECIMALS, Text, nonzero, register, shown_repr, tr

__all__ = [
    "DURATION_PLAIN_RANGE",
    "DURATION_SIGNIFICANT",
    "DURATION_UNITS",
    "ESTIMATE_SIGNIFICANT",
    "GB_BYTES",
    "GIB_BYTES",
    "KB_BYTES",
    "KIB_BYTES",
    "MAX_PRINTED_PART",
    "MAX_PRINTED_PLACES",
    "MAX_SHARE_DECIMALS",
    "MAX_TELLING_DIGITS",
    "MB_BYTES",
    "MIB_BYTES",
    "MS_PER_S",
    "STEP_SECONDS_RANGE",
    "TB_BYTES",
    "TIB_BYTES",
    "US_PER_MS",
    "US_PER_S",
    "Seconds",
    "adding_up_places",
    "bytes_to_gb",
    "bytes_to_gib",
    "bytes_to_mib",
    "duration_text",
    "estimate_seconds_text",
    "gib_to_bytes",
    "mib_to_bytes",
    "parts_adding_up",
    "seconds_text",
    "share_text",
    "telling_digits",
]

register(
    {
        "units.parts_sum_range": {
            "zh": "parts = {value}：这些部分之和的绝对值超过了 2^53（约 {high:.4g}），无法把它们写成一个加起来的总数："
            "超过 2^53 的浮点数连相邻整数都分不开，写出的各位数字已不是这个数本身；请换用更大的单位。",
            "en": "parts = {value}: these parts sum to more than 2^53 (about {high:.4g}) in size, so no total of them "
            "can be printed: past 2^53 a float cannot tell neighbouring integers apart, and the digits printed are not "
            "the number; use a larger unit.",
        },
        "units.part_magnitude": {
            "zh": "{name} = {value:.4g}：绝对值必须 <= 2^53（约 {high:.4g}）：超过 2^53 的浮点数连相邻整数都分不开，"
            "写成定点小数时的各位数字已不是这个数本身；请换用更大的单位。",
            "en": "{name} = {value:.4g}: must be at most 2^53 (about {high:.4g}) in size: past 2^53 a float cannot "
            "tell neighbouring integers apart, and the digits a fixed-point print writes are not the number; use a "
            "larger unit.",
        },
    }
)

KIB_BYTES: int = 2**10
MIB_BYTES: int = 2**20
GIB_BYTES: int = 2**30
TIB_BYTES: int = 2**40

KB_BYTES: int = 10**3
MB_BYTES: int = 10**6
GB_BYTES: int = 10**9
TB_BYTES: int = 10**12

US_PER_S: int = 10**6
MS_PER_S: int = 10**3
US_PER_MS: int = 10**3


@finite_result
def bytes_to_gib(num_bytes: float) -> float:
    """Bytes -> GiB (2**30 bytes).

    >>> bytes_to_gib(3 * 2**30)
    3.0
    """
    return check_number("num_bytes", num_bytes) / GIB_BYTES


@finite_result
def gib_to_bytes(gib: float) -> float:
    """GiB -> bytes.

    >>> gib_to_bytes(0.5)
    536870912.0
    """
    return check_number("gib", gib) * GIB_BYTES


@finite_result
def bytes_to_gb(num_bytes: float) -> float:
    """Bytes -> GB (10**9 bytes, the unit of the ZeRO paper's Figure 1).

    >>> bytes_to_gb(2.5e9)
    2.5
    """
    return check_number("num_bytes", num_bytes) / GB_BYTES


@finite_result
def bytes_to_mib(num_bytes: float) -> float:
    """Bytes -> MiB (2**20 bytes).

    >>> bytes_to_mib(2**21)
    2.0
    """
    return check_number("num_bytes", num_bytes) / MIB_BYTES


@finite_result
def mib_to_bytes(mib: float) -> float:
    """MiB -> bytes.

    >>> mib_to_bytes(1)
    1048576.0
    """
    return check_number("mib", mib) * MIB_BYTES


#: Most decimals :func:`telling_digits` gives: past six a GiB figure is under a kilobyte.
MAX_TELLING_DIGITS: int = 6


def telling_digits(value: float, other: float = 0.0) -> int:
    """Decimals to show ``value`` with (at least one) so that it does not read as ``other``: a shortfall of
    0.04 GiB is "0.04", not "0.0"; 80.04 GiB against 80 GiB is "80.04" against "80.00". At most
    :data:`MAX_TELLING_DIGITS`.

    >>> telling_digits(29.0, 24.0), telling_digits(0.04), telling_digits(80.0004, 80.0)
    (1, 2, 4)

    Each is a finite real number (a bool, a string, NaN or an infinity is refused naming it).
    """
    value, other = check_number("value", value), check_number("other", other)
    digits = 1
    while digits < MAX_TELLING_DIGITS and f"{value:.{digits}f}" == f"{other:.{digits}f}":
        digits += 1
    return digits


#: Most decimals :func:`share_text` gives a percentage (the one rule for a nonzero value that would read "0%" or a
#: value below the whole that would read "100%": :func:`coursekit.i18n.nonzero`).
MAX_SHARE_DECIMALS: int = MAX_EXTRA_DECIMALS


def share_text(share: float) -> str:
    """``share`` (a fraction of a whole, 0 to 1) as a percentage with no decimals, or as few more as keep a share
    strictly between 0 and 1 from reading "0%" or "100%": 0.997 of the peak is "99.7%", never "100%" beside a
    figure below the peak. At most :data:`MAX_SHARE_DECIMALS` decimals; a share closer still to 0 is written in
    e-notation, one closer still to 1 rounded down (both never read as 0 % or 100 %).

    >>> share_text(0.5), share_text(0.997), share_text(1.0), share_text(0.0), share_text(0.0004)
    ('50%', '99.7%', '100%', '0%', '0.04%')
    >>> share_text(1e-9), share_text(1 - 1e-9)  # closer to 0 or 1 than the last decimal shows
    ('1e-07%', '99.9999%')

    A finite real number from 0 to 1 (a bool, a string, NaN, an infinity or a value outside is refused naming it).
    """
    return _share_text(check_number("share", share, ge=0, le=1))


def _share_text(value: float) -> str:
    """:func:`share_text` of a share a formula computed (a widget's): floating-point noise past 0 or 1 (a roofline
    share of 1.0000000000000002) is read as 0 or 1."""
    return nonzero(min(max(value, 0.0), 1.0), ".0%")


def _adding_up_places(parts: Sequence[float], low: int, high: int) -> int:
    """The fewest decimal places, ``low`` to ``high``, at which ``parts`` each rounded add up to their sum rounded;
    ``high`` where none does (then :func:`_parts_adding_up` moves a part by one unit of the last place).

    >>> _adding_up_places((4.105, 4.105, 24.64), 2, 3)  # 4.11 + 4.11 + 24.64 = 32.86, the sum 32.85
    3
    """
    total = _parts_total(parts)
    for places in range(low, high):
        if sum(_printed_units(x, places) for x in parts) == _printed_units(total, places):
            return places
    return high


def _printed_units(value: float, places: int, *, floor: bool = False) -> int:
    """``value`` in units of its last printed place, as ``f"{value:.{places}f}"`` prints it: the exact binary value
    rounded half to even (``44.675`` is 44.67499999999999715783..., printed "44.67"; ``round(44.675 * 100)`` is 4468,
    as the product rounds to 4467.5), or rounded down with ``floor``. Exact integer arithmetic at any size: ``1e300``
    at 12 places has no float product to overflow and no decimal context to cut its digits.

    >>> _printed_units(44.675, 2), _printed_units(0.125, 2), _printed_units(-0.004, 2)
    (4467, 12, 0)
    >>> _printed_units(-0.004, 2, floor=True), f"{-0.004:.2f}"
    (-1, '-0.00')
    """
    numerator, denominator = float(value).as_integer_ratio()
    scale: int = 10**places
    units, remainder = divmod(numerator * scale, denominator)  # rounded down, remainder >= 0
    if not floor and (2 * remainder > denominator or (2 * remainder == denominator and units % 2 == 1)):
        units += 1
    return units


def _units_text(units: int, places: int) -> str:
    """``units`` of the ``places``-th decimal place written out (``_units_text(-5, 2)`` is "-0.05"; zero unsigned)."""
    digits = str(abs(units)).rjust(places + 1, "0")
    text = f"{digits[:-places]}.{digits[-places:]}" if places else digits
    return f"-{text}" if units < 0 else text


def _parts_total(parts: Sequence[float]) -> float:
    """The sum of ``parts`` as the sentences print it (``sum(parts)``, left to right); a ``ValueError`` naming the
    parts when it is beyond :data:`MAX_PRINTED_PART` in size (two parts of 2^53, or of 1e308: beyond the float
    range), which no sentence could print digit by digit."""
    total = sum(parts)
    if not math.isfinite(total) or abs(total) > MAX_PRINTED_PART:
        raise ValueError(tr("units.parts_sum_range", value=shown_repr(tuple(parts)), high=MAX_PRINTED_PART))
    return total


def _parts_adding_up(parts: Sequence[float], decimals: int) -> list[str]:
    """``parts`` to ``decimals`` places adding up, as printed, to their sum printed the same way: each rounded on its
    own where that adds up, else by largest remainders (each rounded down or up by one unit of the last place, the
    largest remainders up, as many as the sum needs). A part moves at most one unit of the last place.

    >>> _parts_adding_up((0.11594, 288.14062, 2.30572), 3)  # one by one: 0.116 + 288.141 + 2.306 = 290.563
    ['0.116', '288.140', '2.306']
    """
    total = _printed_units(_parts_total(parts), decimals)
    rounded = [_printed_units(x, decimals) for x in parts]
    if sum(rounded) != total:
        rounded = [_printed_units(x, decimals, floor=True) for x in parts]
        by_remainder = sorted(
            range(len(parts)), key=lambda i: Fraction(parts[i]) * 10**decimals - rounded[i], reverse=True
        )
        # never fewer than none: a float sum that lost a part entirely (1e308 + 1.0 is 1e308) leaves each part as it is
        for i in by_remainder[: max(total - sum(rounded), 0)]:
            rounded[i] += 1
    return [_units_text(x, decimals) for x in rounded]


#: The units a duration is written in (:func:`duration_text`), largest first: (its name, seconds in one, the shortest
#: duration written in it). Milliseconds at one place cover 0.1 ms to 100 s, as the planner's lines
#: always wrote them; an absurd cluster's 28,105,914.4 ms is 28106 s, 962,072,674.3 ms 267 h, a 30 ps transfer 0.03 ns.
DURATION_UNITS: tuple[tuple[Text, float, float], ...] = (
    (Text(zh="天", en="days"), 86400.0, 1e7),
    (Text(zh="小时", en="h"), 3600.0, 1e5),
    (Text(zh="s", en="s"), 1.0, 100.0),
    (Text(zh="ms", en="ms"), 1e-3, 1e-4),
    (Text(zh="µs", en="µs"), 1e-6, 1e-7),
    (Text(zh="ns", en="ns"), 1e-9, 0.0),
)
#: Significant figures of a duration outside the milliseconds' range (:func:`duration_text`).
DURATION_SIGNIFICANT: int = 3
#: The numbers :func:`duration_text` writes out in its unit; outside them (more than 2,700 years in days, less than a
#: thousandth of a nanosecond) it writes :data:`DURATION_SIGNIFICANT` figures in e-notation, never 300 digits.
DURATION_PLAIN_RANGE: tuple[float, float] = (1e-3, 1e6)


def duration_text(seconds: float) -> str:
    """``seconds`` as the course writes a duration, in the current language: milliseconds at one place from 0.1 ms
    to 100 s, otherwise :data:`DURATION_SIGNIFICANT` significant figures (every digit left of the point kept) in the
    unit of :data:`DURATION_UNITS` it is largest in: never a 12-digit number, never a nonzero time as 0.

    >>> duration_text(0.0134), duration_text(2.5e-6), duration_text(28105.9144), duration_text(3e-11)
    ('13.4 ms', '2.5 µs', '28106 s', '0.03 ns')
    >>> duration_text(0.0), duration_text(962072.6743).split()[0], duration_text(4e7).split()[0]
    ('0.0 ms', '267', '463')
    >>> duration_text(1e308).split()[0], duration_text(5e-324).split()[0]  # outside DURATION_PLAIN_RANGE
    ('1.16e+303', '4.94e-315')
    """
    return _duration_text(check_number("seconds", seconds, ge=0))


def _duration_text(value: float) -> str:
    """:func:`duration_text` of a checked number of seconds (the planner's own lines call this: validated once,
    at the public boundary); a value at or below 0 (float noise) is written as 0."""
    if not value > 0:
        return "0.0 ms"
    unit, size, _ = next(unit for unit in DURATION_UNITS if value >= unit[2])
    name = unit.render()
    if size == 1e-3 or value == 0:
        return f"{value / 1e-3:.1f} ms"
    number = value / size
    low, high = DURATION_PLAIN_RANGE
    if not low <= number < high:  # 1e308 s was 304 digits of days, 5e-324 s 324 characters of ns (fuzz pass 24)
        return f"{number:.{DURATION_SIGNIFICANT - 1}e} {name}"
    decimals = max(0, DURATION_SIGNIFICANT - 1 - math.floor(math.log10(number)))
    text = f"{number:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text} {name}"


#: Seconds a step time is written in at 3 places (:func:`seconds_text`); outside, :func:`duration_text`.
STEP_SECONDS_RANGE: tuple[float, float] = (1e-3, 1e5)


def seconds_text(seconds: float) -> str:
    """A step time as the planner writes it: seconds at 3 places from a millisecond to 10^5 s (0 too), otherwise
    :func:`duration_text` (an absurd cluster's 63,882,919.273 s is 739 days). In catalog text, a :class:`Seconds`
    value formatted ``{step_s:time}``.

    >>> seconds_text(13.5326), seconds_text(0.0), seconds_text(6.8e-5)
    ('13.533 s', '0.000 s', '68 µs')
    """
    return _seconds_text(check_number("seconds", seconds, ge=0))


def _seconds_text(value: float) -> str:
    """:func:`seconds_text` of a checked number of seconds."""
    low, high = STEP_SECONDS_RANGE
    return f"{value:.3f} s" if value == 0 or low <= value < high else _duration_text(value)


#: Significant figures of an estimated step time (:func:`estimate_seconds_text`, ``{step_s:estimate}``, the step line
#: of ``plan --explain``): the planner's estimate is good to about +-20 % (``coursekit.planner.estimate``'s
#: ``MODEL_UNCERTAINTY``), so a fourth figure (64.224 s) claims a precision the estimate does not have; three
#: (64.2 s) still tell two candidates 1 % apart, the planner's tie window (leftovers 28).
ESTIMATE_SIGNIFICANT: int = 3


def estimate_seconds_text(seconds: float, *, unit: bool = True) -> str:
    """An estimated step time: :data:`ESTIMATE_SIGNIFICANT` significant figures in seconds from a millisecond to
    10^5 s (every digit left of the point kept; 0 as "0 s"), otherwise :func:`duration_text`. In catalog text, a
    :class:`Seconds` value formatted ``{step_s:estimate}``.

    >>> estimate_seconds_text(64.224), estimate_seconds_text(2.746), estimate_seconds_text(0.012345)
    ('64.2 s', '2.75 s', '0.0123 s')
    >>> estimate_seconds_text(2.5), estimate_seconds_text(28256.35), estimate_seconds_text(6.8e-5)
    ('2.50 s', '28256 s', '68 µs')

    ``unit=False`` leaves the " s" off, for a table whose heading says "(s)"; a time outside that range keeps its
    unit, so it is never read as seconds:

    >>> estimate_seconds_text(130.72, unit=False), estimate_seconds_text(6.8e-5, unit=False)
    ('131', '68 µs')
    """
    text = _estimate_seconds_text(check_number("seconds", seconds, ge=0))
    if not check_bool("unit", unit) and text.endswith(" s"):
        return text[: -len(" s")]
    return text


def _estimate_seconds_text(value: float) -> str:
    """:func:`estimate_seconds_text` of a checked number of seconds."""
    low, high = STEP_SECONDS_RANGE
    if value == 0:
        return "0 s"
    if not low <= value < high:
        return _duration_text(value)
    decimals = max(0, ESTIMATE_SIGNIFICANT - 1 - math.floor(math.log10(value)))
    return f"{value:.{decimals}f} s"


class Seconds(float):
    """A time in seconds that a message writes as :func:`seconds_text` does with the format spec ``time``
    (``{step_s:time}``), as :func:`estimate_seconds_text` does with ``estimate``, and as a float with any other: a
    reason's parameter stays a number.

    >>> f"{Seconds(13.5326):time}", f"{Seconds(13.5326):.1f}", Seconds(2.0) + 1
    ('13.533 s', '13.5', 3.0)
    """

    def __new__(cls, seconds: float = 0.0) -> Seconds:
        """A finite number of seconds, at least 0 (``-0.0`` as 0.0): NaN wrote "0.0 ms", an infinity raised
        ``OverflowError`` when formatted, a string was read as a number (fuzz pass 24)."""
        return super().__new__(cls, check_number("seconds", seconds, ge=0))

    @classmethod
    def _of_checked(cls, seconds: float) -> Seconds:
        """A time the course's own estimate computed (finite, at least 0), without :meth:`__new__`'s check (the
        planner's tie lines: validated once, at the public boundary)."""
        return float.__new__(cls, seconds)

    def __format__(self, spec: str) -> str:
        if spec == "time":
            return _seconds_text(float(self))
        if spec == "estimate":  # an estimated step: ESTIMATE_SIGNIFICANT figures (leftovers 28)
            return _estimate_seconds_text(float(self))
        return float(self).__format__(spec)


#: The most decimal places :func:`adding_up_places` and :func:`parts_adding_up` print.
MAX_PRINTED_PLACES: int = 12
#: The largest part (and sum of parts) :func:`adding_up_places` and :func:`parts_adding_up` print, in size: 2^53,
#: past which a float's neighbouring values are more than 1 apart, so a fixed-point print's digits are not the
#: number (fuzz pass 25: ``[1e308, -1e308]`` sums to 0 and was answered with two 312-character parts).
MAX_PRINTED_PART: float = float(2**53)


def _printed_part(name: str, value: object) -> float:
    """One part checked: a finite real at most :data:`MAX_PRINTED_PART` in size, refused by ``name``."""
    number = check_number(name, value)
    if abs(number) > MAX_PRINTED_PART:
        raise ValueError(tr("units.part_magnitude", name=name, value=number, high=MAX_PRINTED_PART))
    return number


def _printed_parts(parts: Sequence[float]) -> tuple[float, ...]:
    """``parts`` checked: a list or tuple of finite reals at most :data:`MAX_PRINTED_PART` in size, each named
    ``parts[i]``."""
    return tuple(_printed_part(f"parts[{i}]", x) for i, x in enumerate(check_items("parts", parts)))


def adding_up_places(parts: Sequence[float], low: int, high: int) -> int:
    """The fewest decimal places, ``low`` to ``high``, at which ``parts`` each rounded add up, as printed, to their sum
    rounded the same way; ``high`` where none does (:func:`parts_adding_up` then moves a part by one unit of the last
    place). A sentence "a + b = c" states the parts at these places.

    >>> adding_up_places((4.105, 4.105, 24.64), 2, 3)  # 4.11 + 4.11 + 24.64 = 32.86, the sum 32.85
    3
    """
    low = check_int("low", low, ge=0, le=MAX_PRINTED_PLACES)
    high = check_int("high", high, ge=low, le=MAX_PRINTED_PLACES)
    return _adding_up_places(_printed_parts(parts), low, high)


def parts_adding_up(parts: Sequence[float], decimals: int) -> list[str]:
    """``parts`` printed to ``decimals`` places so that they add up to their sum printed the same way (largest
    remainders where rounding each on its own does not; a part moves at most one unit of the last place).

    >>> parts_adding_up((0.11594, 288.14062, 2.30572), 3)  # one by one: 0.116 + 288.141 + 2.306 = 290.563
    ['0.116', '288.140', '2.306']
    """
    return _parts_adding_up(_printed_parts(parts), check_int("decimals", decimals, ge=0, le=MAX_PRINTED_PLACES))


learner_functions(globals())
