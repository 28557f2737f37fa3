"""Input checks that teach: each names the parameter, the value and the rule.

``TypeError`` for a wrong type, ``ValueError`` for a value out of range, in the
current language (see :mod:`coursekit.i18n`). ``bool`` is never accepted as a
number, and NaN / infinity are rejected unless a bound allows infinity.

>>> check_number("bandwidth_gib_s", 0, gt=0)
Traceback (most recent call last):
...
ValueError: bandwidth_gib_s = 0: must be > 0.
>>> check_int("tp", True, ge=1)
Traceback (most recent call last):
...
TypeError: tp = True: must be an integer (int), not bool.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from .i18n import tr


def _type_name(value: Any) -> str:
    return type(value).__name__


def check_number(
    name: str,
    value: Any,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> float:
    """Return ``value`` as a float after checking it is a finite real in range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(tr("validate.type_number", name=name, value=value, type=_type_name(value)))
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(tr("validate.finite", name=name, value=value))
    _check_bounds(name, value, number, ge=ge, gt=gt, le=le, lt=lt)
    return number


def check_int(
    name: str,
    value: Any,
    *,
    ge: int | None = None,
    gt: int | None = None,
    le: int | None = None,
    lt: int | None = None,
) -> int:
    """Return ``value`` as an int after checking it is an integer in range.

    Integral floats such as ``4.0`` are refused too: a degree or a count is an ``int``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(tr("validate.type_int", name=name, value=value, type=_type_name(value)))
    number = int(value)
    _check_bounds(name, value, number, ge=ge, gt=gt, le=le, lt=lt)
    return number


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` after checking it is a ``bool``."""
    if not isinstance(value, bool):
        raise TypeError(tr("validate.type_bool", name=name, value=value, type=_type_name(value)))
    return value


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` after checking it is one of ``choices`` (strings)."""
    options = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(tr("validate.type_choice", name=name, value=value, type=_type_name(value)))
    if value not in options:
        raise ValueError(tr("validate.choice", name=name, value=value, choices=", ".join(map(repr, options))))
    return value


def check_divides(name: str, value: int, other_name: str, other: int) -> None:
    """Check that ``value`` divides ``other`` exactly."""
    if other % value:
        raise ValueError(tr("validate.divides", name=name, value=value, other_name=other_name, other=other))


def _check_bounds(
    name: str,
    shown: Any,
    number: float,
    *,
    ge: float | None,
    gt: float | None,
    le: float | None,
    lt: float | None,
) -> None:
    if ge is not None and not number >= ge:
        raise ValueError(tr("validate.ge", name=name, value=shown, low=ge))
    if gt is not None and not number > gt:
        raise ValueError(tr("validate.gt", name=name, value=shown, low=gt))
    if le is not None and not number <= le:
        raise ValueError(tr("validate.le", name=name, value=shown, high=le))
    if lt is not None and not number < lt:
        raise ValueError(tr("validate.lt", name=name, value=shown, high=lt))
