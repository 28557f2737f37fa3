"""The course's contract for a public call, as a judge the fuzz tests share.

A call either returns a value whose every number is finite, or raises
``TypeError`` / ``ValueError`` whose message names the broken argument, is at
most :data:`MAX_MESSAGE_CHARS` long and, under ``zh``, is Chinese. A call that
runs longer than :data:`HANG_GUARD_S` is stopped and reported as a hang; the
bounds the course documents keep real calls far below that.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

import coursekit

#: Longest acceptable error message: a value is shown in at most about 200 characters.
MAX_MESSAGE_CHARS: int = 1200
#: A call still running after this many seconds is a hang (documented bounds keep calls under 1 s).
HANG_GUARD_S: int = 10

_CJK = re.compile(r"[\u4e00-\u9fff]")
#: Python's own message for a keyword the signature does not have (the interpreter's words, not the course's).
_PYTHON_SIGNATURE_ERROR = re.compile(r"unexpected keyword argument|missing \d+ required|takes \d+ positional")

#: Values that break contracts: wrong signs, zero, huge, beyond float, not finite,
#: bools, numeric strings, numpy scalars and 0-d arrays, exact types, None, containers.
ADVERSARIAL: tuple[Any, ...] = (
    -1,
    0,
    -0.0,
    1,
    3,
    10**6,
    10**12,
    2**63,
    10**400,
    10**5000,
    1e308,
    -1e308,
    5e-324,
    math.nan,
    math.inf,
    -math.inf,
    True,
    False,
    "4",
    "",
    "x",
    "nan",
    "a" * 100_000,
    np.float64(4.0),
    np.int64(4),
    np.float32(math.nan),
    np.array(4),
    np.array(4.5),
    np.array([1, 2]),
    Decimal("4"),
    Fraction(9, 2),
    None,
    [],
    [4],
    (4,),
    {},
    {"DP": 4},
    list(range(100_000)),
    frozenset({"x"}),
    object(),
)


class Hang(Exception):
    """A call exceeded the hang guard."""


@contextmanager
def hang_guard(seconds: int = HANG_GUARD_S) -> Iterator[None]:
    def _alarm(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def non_finite(value: Any, path: str = "result", depth: int = 0) -> str | None:
    """The path of the first non-finite number inside ``value``, else ``None``."""
    if depth > 6:
        return None
    if isinstance(value, (float, np.floating)):
        return None if math.isfinite(value) else f"{path} = {value!r}"
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f" and not np.isfinite(value).all():
            return f"{path} has non-finite entries"
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            if item.name.startswith("_"):  # private working state (e.g. a search table with inf sentinels)
                continue
            found = non_finite(getattr(value, item.name), f"{path}.{item.name}", depth + 1)
            if found:
                return found
        for prop in ("total_gib", "total_gb", "total_s", "step_s"):
            if isinstance(getattr(type(value), prop, None), property):
                found = non_finite(getattr(value, prop), f"{path}.{prop}", depth + 1)
                if found:
                    return found
        return None
    if isinstance(value, Mapping):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return None
    for index, (key, item) in enumerate(items):
        if index >= 2000:
            break
        found = non_finite(item, f"{path}[{key!r}]", depth + 1)
        if found:
            return found
    return None


def _positional_only(func: Callable[..., Any]) -> set[str]:
    return {
        name
        for name, param in inspect.signature(func).parameters.items()
        if param.kind is inspect.Parameter.POSITIONAL_ONLY
    }


def invoke(func: Callable[..., Any], kwargs: Mapping[str, Any]) -> Any:
    """Call ``func`` with ``kwargs``, passing positional-only parameters by position."""
    positional = _positional_only(func)
    args = [kwargs[name] for name in inspect.signature(func).parameters if name in positional and name in kwargs]
    rest = {name: value for name, value in kwargs.items() if name not in positional}
    return func(*args, **rest)


def judge(func_name: str, kwargs: Mapping[str, Any], blamed: tuple[str, ...], lang: str) -> str | None:
    """Run one call in ``lang``; return what broke the contract, or ``None``.

    ``blamed``: names any of which the message may name (the argument changed,
    and for an item of a mapping argument, the item's key too).
    """
    func = getattr(coursekit, func_name)
    coursekit.set_language(lang)
    try:
        with hang_guard():
            result = invoke(func, kwargs)
    except Hang as exc:
        return f"hang: {exc}"
    except (TypeError, ValueError) as exc:
        message = str(exc)
        if len(message) > MAX_MESSAGE_CHARS:
            return f"{type(exc).__name__} message of {len(message)} characters"
        python_signature = isinstance(exc, TypeError) and _PYTHON_SIGNATURE_ERROR.search(message)
        if not any(name.lower() in message.lower() for name in blamed):
            return f"{type(exc).__name__} does not name {' or '.join(blamed)}: {message[:300]!r}"
        if lang == "zh" and not python_signature and not _CJK.search(message):
            return f"English under zh: {type(exc).__name__}: {message[:300]!r}"
        return None
    except Exception as exc:
        return f"{type(exc).__name__} escaped: {str(exc)[:300]!r}"
    else:
        found = non_finite(result)
        if found:
            return f"non-finite number in the result: {found}"
        refused = _never_valid(func, blamed[0] if blamed else "", kwargs)
        if refused:
            return f"accepted {refused}"
        return _judge_feedback(func_name, result, lang)
    finally:
        coursekit.set_language("en")


def _never_valid(func: Callable[..., Any], name: str, kwargs: Mapping[str, Any]) -> str | None:
    """Why ``kwargs[name]`` can never be right for a parameter annotated ``int`` or ``float``, else None.

    The course's rule for numbers: no bool, no str, no None, no container, no NaN or
    infinity; an ``int`` parameter takes no fraction either.
    """
    parameter = inspect.signature(func).parameters.get(name)
    if parameter is None or name not in kwargs:
        return None
    annotation = str(parameter.annotation)
    if annotation not in ("int", "float"):
        return None
    value = kwargs[name]
    if isinstance(value, (bool, np.bool_, str, bytes, list, tuple, dict, set, frozenset)) or value is None:
        return f"{name} = {type(value).__name__} for a parameter annotated {annotation}"
    if isinstance(value, (float, np.floating, Decimal)) and not math.isfinite(value):
        return f"{name} = {value!r}, not a finite number"
    if annotation == "int" and isinstance(value, (float, np.floating, Fraction)) and value != int(value):
        return f"{name} = {value!r}, not an integer"
    return None


def _judge_feedback(func_name: str, result: Any, lang: str) -> str | None:
    """``check`` never raises for an answer: its feedback must be short, localized and not an internal error."""
    if func_name != "check":
        return None
    message = result.message
    if result.status == "error":
        return f"check reported an internal error: {message[:300]!r}"
    if len(message) > MAX_MESSAGE_CHARS:
        return f"feedback of {len(message)} characters"
    if lang == "zh" and not _CJK.search(message):
        return f"English feedback under zh: {message[:300]!r}"
    return None


def mutations(
    func_name: str, baseline: Mapping[str, Any], values: tuple[Any, ...]
) -> Iterator[tuple[dict[str, Any], tuple[str, ...], str]]:
    """Every call that breaks one argument of ``baseline``: ``(kwargs, names the message may use, label)``.

    Each argument is replaced by each value; a mapping argument also gets each
    item replaced, and a list / tuple of numbers its first item; an unknown
    keyword is added once.
    """
    from .api_calls import FREE_ARGUMENTS

    free = FREE_ARGUMENTS.get(func_name, ())
    for param, original in baseline.items():
        if param in free:
            continue
        for value in values:
            yield {**baseline, param: value}, (param,), f"{param}={_label(value)}"
            if isinstance(original, Mapping):
                for key in original:
                    yield (
                        {**baseline, param: {**original, key: value}},
                        (param, str(key)),
                        f"{param}[{key!r}]={_label(value)}",
                    )
            elif isinstance(original, (list, tuple)) and original and isinstance(original[0], (int, float)):
                yield (
                    {**baseline, param: [value, *original[1:]]},
                    (param,),
                    f"{param}[0]={_label(value)}",
                )
    yield {**baseline, "unknown_keyword": 1}, ("unknown_keyword",), "unknown_keyword=1"


def _label(value: Any) -> str:
    from coursekit.i18n import shown_repr

    return shown_repr(value)[:40]
