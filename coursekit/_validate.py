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

import dataclasses
import functools
import inspect
import math
import numbers
import sys
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from .i18n import register, shown_repr, tr

#: Default ceiling of :func:`check_int`: 2**53, the largest integer a float represents exactly.
MAX_INT: int = 2**53
#: Default ceiling of :func:`check_items`: items of a list argument evaluated one by one.
MAX_ITEMS: int = 10_000

register(
    {
        "validate.float_range": {
            "zh": "{name} = {value!r}：超出浮点数范围，绝对值必须 <= {high}。",
            "en": "{name} = {value!r}: outside the float range; its size must be <= {high}.",
        },
        "validate.type_items": {
            "zh": "{name} = {value!r}：必须是列表或元组（list / tuple），而不是 {type}。",
            "en": "{name} = {value!r}: must be a list or tuple, not {type}.",
        },
        "validate.type_sequence": {
            "zh": "{name} = {value!r}：必须是列表或元组（list / tuple），或 range、一维 numpy 数组，而不是 {type}。",
            "en": "{name} = {value!r}: must be a list or tuple (or a range, or a one-dimensional numpy array), not "
            "{type}.",
        },
        "validate.too_many_items": {
            "zh": "{name} 有 {count} 项：最多 {limit} 项。",
            "en": "{name} has {count:@item}: at most {limit}.",
        },
        # the name of one item of a list argument, for the messages above (zero_stages item = 9: must be <= 3.)
        "validate.item_of": {"zh": "{name} 中的一项", "en": "{name} item"},
        "validate.unknown_argument": {
            "zh": "{cls} 没有参数 {name!r}：它的参数是 {names}。{hint}",
            "en": "{cls} has no argument {name!r}: its arguments are {names}.{hint}",
        },
        # a hint after a sentence: Chinese needs no space after "。"
        "validate.then_hint": {"zh": "{hint}", "en": " {hint}"},
        "validate.missing_argument": {
            "zh": "{cls} 缺少必填参数 {name}：必填的是 {required}。",
            "en": "{cls} is missing the required argument {name}: the required ones are {required}.",
        },
        "validate.too_many_positional": {
            "zh": "{cls} 按位置最多接受 {limit} 个参数（{names}），却给了 {count} 个。",
            "en": "{cls} takes at most {limit:@positional argument} ({names}), but got {count}.",
        },
        "validate.no_arguments": {
            "zh": "{cls} 不接受参数，却给了 {given}。",
            "en": "{cls} takes no arguments, but got {given}.",
        },
        "validate.keywords_only": {
            "zh": "{cls} 的参数只能按名字给（{names}），却按位置给了 {count} 个。",
            "en": "{cls} takes its arguments by name only ({names}), but got {count:@argument} by position.",
        },
        "validate.positional_only": {
            "zh": "{cls} 的参数 {name} 只能按位置给，不能按名字给。",
            "en": "{cls} takes the argument {name} by position only, not by name.",
        },
        "validate.argument_twice": {
            "zh": "{cls} 的参数 {name} 给了两次：按位置给了一次，又按名字给了一次。",
            "en": "{cls} got the argument {name} twice: once by position and once by name.",
        },
        "validate.argv": {
            "zh": "{name} = {value!r}：必须是由命令行参数 (str) 组成的列表或元组。",
            "en": "{name} = {value!r}: must be a list or tuple of command-line arguments (str).",
        },
        "validate.written_number": {
            "zh": "{value!r}：数字只能用 ASCII 数字 0-9 书写（不能有下划线，也不能用其他文字的数字或全角数字）",
            "en": "{value!r}: write the number with the ASCII digits 0-9 only (no underscores, no other script's or "
            "fullwidth digits)",
        },
        "validate.not_finite_result": {
            "zh": "{result} 不是有限数（{value}），输入为 {inputs}：请用更小的值。",
            "en": "{result} is not a finite number ({value}) for {inputs}: use smaller values.",
        },
    }
)


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
    """Return ``value`` as a float after checking it is a finite real in range (``-0.0`` comes back as ``0.0``).

    >>> check_number("overlap_fraction", -0.0, ge=0, le=1)
    0.0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(tr("validate.type_number", name=name, value=value, type=_type_name(value)))
    try:
        number = float(value)
    except OverflowError:  # an int or Fraction beyond the float range, e.g. 10**400
        raise ValueError(tr("validate.float_range", name=name, value=value, high=sys.float_info.max)) from None
    if not math.isfinite(number):
        raise ValueError(tr("validate.finite", name=name, value=value))
    _check_bounds(name, value, number, ge=ge, gt=gt, le=le, lt=lt)
    return number + 0.0  # -0.0 is zero: returned (so stored and shown) as 0.0, never as "-0.0" or "-0%"


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
    Without ``le``/``lt`` the ceiling is :data:`MAX_INT` (2**53, the largest count a
    float holds exactly), so ``10**400`` gets this message rather than an overflow later.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(tr("validate.type_int", name=name, value=value, type=_type_name(value)))
    number = int(value)
    if le is None and lt is None:
        le = MAX_INT
    _check_bounds(name, value, number, ge=ge, gt=gt, le=le, lt=lt)
    return number


def plainly_written(text: str) -> bool:
    """Whether ``text`` writes a number the way a reader sees it: ASCII only, no underscore.

    ``int()`` and ``float()`` also read ``"1_6"`` as 16 and other scripts' digits (``"١٦"``, fullwidth
    ``"１６"``) as ASCII ones; a command-line option and a written degree take neither (the one place of this rule;
    the message saying it is ``validate.written_number``).

    >>> plainly_written("16"), plainly_written(" 2.5e3"), plainly_written("1_6"), plainly_written("１６")
    (True, True, False, False)
    """
    return text.isascii() and "_" not in text


def called_from_outside(depth: int = 2) -> bool:
    """True when the function that asks was called from outside the coursekit package: a learner's notebook, a
    test, another library. The array-generic helpers the search calls on whole columns check their arguments only
    then, so they are checked where a person calls them and cost nothing inside a search, whose arguments the
    public entry point has already checked (validate once, at the public boundary). ``depth`` 2 is the caller of the
    function that calls this; the wrappers of this module (:func:`learner_functions`) are looked through.
    """
    frame: types.FrameType | None = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename == __file__:  # through this module's wrappers
        frame = frame.f_back
    module = "" if frame is None else str(frame.f_globals.get("__name__", ""))
    return not (module == "coursekit" or module.startswith("coursekit."))


def is_numpy_array(value: Any) -> bool:
    """``value`` is a numpy array (of any shape): a column of the planner's vectorised search, not one number. A numpy
    scalar (what indexing an array gives) is not, and is checked as the number it holds.

    >>> is_numpy_array(3), is_numpy_array([3])
    (False, False)
    """
    return _numpy_array(value) is not None


def _numpy_array(value: Any) -> Any:
    """``value`` if it is a numpy array (numpy loaded: the planner's columns are arrays), else ``None``."""
    numpy = sys.modules.get("numpy")
    return value if numpy is not None and isinstance(value, numpy.ndarray) else None


def check_int_column(name: str, value: Any, *, ge: int | None = None, le: int | None = None) -> Any:
    """Return ``value`` after checking it is an integer in range (as :func:`check_int`) or a numpy array of numbers:
    the guard of the array-generic helpers the vectorised search calls on whole columns (a pipeline degree ``pp``, a
    layer count), so a learner who calls one by hand gets a message, not a numpy error. An array is checked for its
    element type (:func:`_check_column`: int64 or float64, not masked) and each element for its value
    (:func:`_check_column_values`); it may hold the float64 columns of whole numbers the search computes with. A 0-d
    array is one number, not a column: its value is checked as :func:`check_int` checks a number.

    >>> check_int_column("pp", 4, ge=1)
    4
    >>> check_int_column("pp", 0, ge=1)
    Traceback (most recent call last):
    ...
    ValueError: pp = 0: must be >= 1.
    """
    if _numpy_array(value) is None:
        _check_numpy_width(name, value)
        return check_int(name, value, ge=ge, le=le)
    _check_column(name, value, "validate.type_int_column")
    if value.ndim == 0:  # one number, not a column: its value is checked as a number's is
        check_int(name, value[()], ge=ge, le=le)
    else:
        _check_column_values(name, value, integer=True, ge=ge, le=MAX_INT if le is None else le)
    return value


def check_number_column(
    name: str, value: Any, *, ge: float | None = None, gt: float | None = None, le: float | None = None
) -> Any:
    """Return ``value`` after checking it is a finite real in range (as :func:`check_number`) or a numpy array of
    numbers; :func:`check_int_column` for real-valued columns (tokens per rank, s/cp).

    >>> check_number_column("tokens", 2048.0, gt=0)
    2048.0
    """
    if _numpy_array(value) is None:
        _check_numpy_width(name, value)
        return check_number(name, value, ge=ge, gt=gt, le=le)
    _check_column(name, value, "validate.type_number_column")
    if value.ndim == 0:  # one number, not a column: its value is checked as a number's is
        check_number(name, value[()], ge=ge, gt=gt, le=le)
    else:
        _check_column_values(name, value, integer=False, ge=ge, gt=gt, le=le)
    return value


def check_column_shapes(**values: Any) -> None:
    """The numpy arrays among ``values`` (name: value; numbers go with any array) must line up element by element,
    as numpy broadcasts them; otherwise a ``ValueError`` naming them and their shapes, in the learner's language,
    instead of numpy's "operands could not be broadcast together".

    >>> check_column_shapes(tp=2, pp=4)
    """
    numpy = sys.modules.get("numpy")
    arrays = {name: value for name, value in values.items() if _numpy_array(value) is not None}
    if numpy is None or len(arrays) < 2:
        return
    try:
        numpy.broadcast_shapes(*(array.shape for array in arrays.values()))
    except ValueError:
        names = ", ".join(arrays)
        shapes = ", ".join(str(array.shape) for array in arrays.values())
        raise ValueError(tr("validate.column_shapes", names=names, shapes=shapes)) from None


def _check_column_values(
    name: str, array: Any, *, integer: bool, ge: float | None = None, gt: float | None = None, le: float | None = None
) -> None:
    """Every element of a column a person passes is checked as that number would be on its own: finite, in range
    and, for an integer column, a whole number (a float64 column of whole numbers passes, as the search's degree
    columns are float64). The first element refused is named by its index, ``pp[2] = 0: must be >= 1.``, so a
    column never gives a number where the same value alone is refused (NaN, 0 or -1 degrees computed through)."""
    numpy = sys.modules["numpy"]
    flat = array.reshape(-1)
    if flat.size == 0:
        return
    with numpy.errstate(all="ignore"):
        values = flat.astype(numpy.float64)
        ok = numpy.isfinite(values)
        if integer and flat.dtype.kind == "f":
            ok &= values == numpy.floor(values)
        if ge is not None:
            ok &= flat >= ge
        if gt is not None:
            ok &= flat > gt
        if le is not None:
            ok &= flat <= le
    if bool(ok.all()):
        return
    where = numpy.unravel_index(int(numpy.argmin(ok)), array.shape)
    label = f"{name}[{', '.join(str(int(i)) for i in where)}]"
    element = flat[int(numpy.argmin(ok))].item()
    check_number(label, element, ge=ge, gt=gt, le=le)  # NaN, infinity, out of range
    if integer:
        check_int(label, element)  # a fraction: the range was checked above


def _check_column(name: str, array: Any, type_key: str) -> Any:
    """``array`` (numpy) after checking it holds numbers and is no masked array (its masked entries would be computed
    as numbers). The helpers check columns only when a person calls them (:func:`called_from_outside`): the search's
    own columns hold rows a gate has already refused, whose values need not be legal (a stage of -1 layers)."""
    if array.dtype.kind not in "iuf":
        raise TypeError(tr(type_key, name=name, value=array, type=str(array.dtype)))
    if isinstance(array, sys.modules["numpy"].ma.MaskedArray):  # its masked entries would be computed as numbers
        raise TypeError(tr("validate.masked_column", name=name, value=array))
    _check_numpy_width(name, array)
    return array


#: The numpy element types the array-generic helpers compute in exactly as in Python numbers (the search's columns).
_COLUMN_TYPES: tuple[str, ...] = ("int64", "float64")


def _check_numpy_width(name: str, value: Any) -> None:
    """A numpy array or numpy number given to an array-generic helper must be int64 or float64: the helpers compute in
    the type they are given, and int32 (``2**30 * 8``), unsigned (``-8`` wraps to ``2**64 - 8``) and float16 (131072
    is inf) would give a wrong number without a word. Python numbers, which never overflow, pass."""
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(value, (numpy.ndarray, numpy.generic)):
        return
    if value.dtype.kind in "iuf" and value.dtype.name not in _COLUMN_TYPES:
        raise TypeError(tr("validate.column_width", name=name, value=value, type=value.dtype.name))


def check_argv(name: str, value: Any) -> list[str]:
    """Return ``value`` as a list after checking it is a list or tuple of strings: a command line's arguments.

    >>> check_argv("argv", ("plan", "--model", "llama3-8b"))
    ['plan', '--model', 'llama3-8b']
    """
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise TypeError(tr("validate.argv", name=name, value=value))
    return list(value)


def is_bool(value: Any) -> bool:
    """``value`` is a truth value: Python's ``bool`` or numpy's (``np.True_``, an item of a boolean mask; tested in
    ``tests/test_fuzz_regressions8.py``, as this module's examples run where numpy is absent).

    >>> is_bool(True), is_bool(1), is_bool("yes")
    (True, False, False)
    """
    if isinstance(value, bool):
        return True
    numpy = sys.modules.get("numpy")  # a numpy bool exists only once numpy is loaded; the planner does not load it
    return numpy is not None and isinstance(value, numpy.bool_)


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` as a Python ``bool`` after checking it is a truth value (:func:`is_bool`).

    >>> check_bool("every_member", True)
    True
    >>> check_bool("every_member", 1)
    Traceback (most recent call last):
    ...
    TypeError: every_member = 1: must be True or False, not int.
    """
    if not is_bool(value):
        raise TypeError(tr("validate.type_bool", name=name, value=value, type=_type_name(value)))
    return bool(value)


def check_instance(name: str, value: Any, expected: type) -> Any:
    """Return ``value`` after checking it is an instance of ``expected`` (a class the caller names).

    >>> check_instance("config", 3, dict)
    Traceback (most recent call last):
    ...
    TypeError: config = 3: must be an object of type dict, not int.
    """
    if not isinstance(value, expected):
        raise TypeError(
            tr(
                "validate.type_instance",
                name=name,
                value=shown_repr(value),
                expected=expected.__name__,
                type=_type_name(value),
            )
        )
    return value


def check_callable(name: str, value: Any) -> Callable[..., Any]:
    """Return ``value`` after checking it can be called.

    >>> check_callable("show", None)
    Traceback (most recent call last):
    ...
    TypeError: show = None: must be a function to call later, not NoneType.
    """
    if not callable(value):
        raise TypeError(tr("validate.type_callable", name=name, value=shown_repr(value), type=_type_name(value)))
    function: Callable[..., Any] = value
    return function


def check_items(name: str, value: Any, *, max_items: int = MAX_ITEMS) -> tuple[Any, ...]:
    """Return ``value`` as a tuple after checking it is a list or tuple of at most ``max_items`` items.

    Items are checked by the caller, which names them ``f"{name}[{index}]"``.

    >>> check_items("entries", None)
    Traceback (most recent call last):
    ...
    TypeError: entries = None: must be a list or tuple, not NoneType.
    """
    if not isinstance(value, (list, tuple)):
        raise TypeError(tr("validate.type_items", name=name, value=value, type=_type_name(value)))
    if len(value) > max_items:
        raise ValueError(tr("validate.too_many_items", name=name, count=len(value), limit=max_items))
    return tuple(value)


def check_sequence(name: str, value: Any, *, max_items: int = MAX_ITEMS) -> tuple[Any, ...]:
    """Return ``value`` as a tuple after checking it is an ordered sequence: a list, a tuple, a range or a
    one-dimensional numpy array, of at most ``max_items`` items.

    For arguments whose items pair up by position with another's (measured payloads and their times): a set or a
    dict has no order to pair by and is refused, as :func:`check_items` refuses it. Items are checked by the caller,
    which names them ``f"{name}[{index}]"``.

    >>> check_sequence("times_s", {"a": 1e-5})
    Traceback (most recent call last):
    ...
    TypeError: times_s = {'a': 1e-05}: must be a list or tuple (or a range, or a one-dimensional numpy array), not dict.
    """
    if isinstance(value, range):
        _check_count(name, _range_count(value), max_items)  # before the list is made: range(10**9) is 8 GB of it
        value = list(value)
    elif type(value).__module__ == "numpy" and getattr(value, "ndim", None) == 1 and hasattr(value, "tolist"):
        _check_count(name, int(value.size), max_items)
        value = value.tolist()
    if not isinstance(value, (list, tuple)):  # the rule said whole: a 1-D array is taken, a 2-D one is not
        shown = _type_name(value)
        if is_numpy_array(value) and value.ndim != 1:
            shown = f"{shown} (ndim {value.ndim})"
        raise TypeError(tr("validate.type_sequence", name=name, value=value, type=shown))
    return check_items(name, value, max_items=max_items)


def _range_count(value: range) -> int:
    """Items of ``value``, also beyond what ``len()`` takes (``len(range(10**20))`` raises OverflowError)."""
    if value.step > 0:
        return max(0, (value.stop - value.start + value.step - 1) // value.step)
    return max(0, (value.start - value.stop - value.step - 1) // -value.step)


def _check_count(name: str, count: int, max_items: int) -> None:
    if count > max_items:
        raise ValueError(tr("validate.too_many_items", name=name, count=count, limit=max_items))


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` after checking it is one of ``choices`` (strings)."""
    options = tuple(choices)
    if not isinstance(value, str):
        raise TypeError(tr("validate.type_choice", name=name, value=value, type=_type_name(value)))
    if value not in options:
        raise ValueError(tr("validate.choice", name=name, value=value, choices=", ".join(map(repr, options))))
    return value


def check_finite_result(result: str, value: float, inputs: Mapping[str, Any]) -> float:
    """Return ``value`` if finite, else ``ValueError`` naming ``result`` and every input.

    For formulas whose inputs are each in range but whose result overflows,
    e.g. ``num_params = 1e308`` times 16 bytes.

    >>> check_finite_result("total_bytes", float("inf"), {"num_params": 1e308, "dp": 1})
    Traceback (most recent call last):
    ...
    ValueError: total_bytes is not a finite number (inf) for num_params = 1e+308, dp = 1: use smaller values.
    """
    if math.isfinite(value):
        return value
    shown = ", ".join(f"{key} = {shown_repr(item)}" for key, item in inputs.items())
    raise ValueError(tr("validate.not_finite_result", result=result, value=value, inputs=shown))


_P = ParamSpec("_P")
_R = TypeVar("_R")


#: Longer lists in a result (a schedule's events) are not walked: the totals beside them
#: (a makespan, a step time) are sums or maxima of their numbers and overflow with them.
_MAX_WALKED_ITEMS: int = 64


def _first_non_finite(value: Any, path: str, depth: int = 0) -> tuple[str, float] | None:
    """``(path, number)`` of the first NaN / infinity inside a result (floats, dataclasses, tuples, dicts)."""
    found = _non_finite_steps(value, depth)
    if found is None:
        return None
    steps, number = found
    for kind, step in reversed(steps):  # outermost first; the path is only spelled out for a failure
        if kind == "field":
            path = f"{path}.{step}" if path else str(step)
        elif kind == "key":
            path = f"{path}[{step!r}]"
        else:
            path = f"{path}[{step}]"
    return path, number


#: Types with no number to check (the common leaves of a result, tested first: a result is walked on every call).
_NOT_WALKED: frozenset[type] = frozenset((int, bool, str, type(None)))


def _non_finite_steps(value: Any, depth: int) -> tuple[list[tuple[str, Any]], float] | None:
    """The steps to the first NaN / infinity in ``value`` (innermost first) and the number; None if all finite."""
    kind = type(value)
    if kind is float:
        return None if math.isfinite(value) else ([], value)
    if kind in _NOT_WALKED:
        return None
    if isinstance(value, float) or (isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)):
        number = float(value)
        return None if math.isfinite(number) else ([], number)
    if depth >= 4:
        return None
    items: Iterable[tuple[str, Any, Any]]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items = (("field", name, getattr(value, name)) for name in _public_fields(kind))
    elif isinstance(value, Mapping):
        items = (("key", key, item) for key, item in value.items())
    elif isinstance(value, (list, tuple)) and len(value) <= _MAX_WALKED_ITEMS:
        items = (("index", index, item) for index, item in enumerate(value))
    else:
        return None
    for step_kind, step, item in items:
        found = _non_finite_steps(item, depth + 1)
        if found is not None:
            found[0].append((step_kind, step))
            return found
    return None


def _public_fields(cls: Any) -> tuple[str, ...]:
    """Names of the dataclass ``cls``'s fields that do not start with an underscore (kept per class)."""
    names = _PUBLIC_FIELDS.get(cls)
    if names is None:
        names = _PUBLIC_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls) if not f.name.startswith("_"))
    return names


_PUBLIC_FIELDS: dict[type, tuple[str, ...]] = {}


_T = TypeVar("_T")


def check_keywords(
    label: str,
    kwargs: Mapping[str, Any],
    names: Sequence[str],
    required: Iterable[str] = (),
    *,
    given: Iterable[str] = (),
    hint: str | None = None,
    missing_hints: Mapping[str, str] | None = None,
) -> None:
    """Refuse, in the learner's language, a keyword argument of ``label`` (a class or a function) that is not one of
    ``names``, then a ``required`` one that is neither in ``kwargs`` nor in ``given`` (those given by position): the
    ``TypeError`` names the argument and lists the ones ``label`` takes. ``hint`` (a catalog key) adds a sentence to
    the unknown-keyword message; ``missing_hints`` (argument name -> catalog key) adds one to the message for that
    required argument left out (what to give when the learner does not know it). :func:`learner_arguments` and the
    functions that pass keywords on check with it.

    >>> check_keywords("dp_traffic", {"num_params": 1e9, "degree": 2}, ("num_params", "dp"), ("num_params", "dp"))
    Traceback (most recent call last):
    ...
    TypeError: dp_traffic has no argument 'degree': its arguments are num_params, dp.
    """
    for name in kwargs:
        if name not in names:
            extra = tr("validate.then_hint", hint=tr(hint)) if hint is not None else ""
            raise TypeError(tr("validate.unknown_argument", cls=label, name=name, names=", ".join(names), hint=extra))
    listed = tuple(required)
    for name in listed:
        if name not in kwargs and name not in given:
            message = tr("validate.missing_argument", cls=label, name=name, required=", ".join(listed))
            if missing_hints is not None and name in missing_hints:
                message += tr("validate.then_hint", hint=tr(missing_hints[name]))
            raise TypeError(message)


@functools.cache
def keyword_parameters(func: Callable[..., Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(every parameter, the required ones) of ``func``, for :func:`check_keywords` before ``func(**kwargs)``.

    >>> def traffic(*, num_params, dp, grad_bytes=2): ...
    >>> keyword_parameters(traffic)
    (('num_params', 'dp', 'grad_bytes'), ('num_params', 'dp'))
    """
    parameters = inspect.signature(func).parameters
    required = tuple(name for name, p in parameters.items() if p.default is inspect.Parameter.empty)
    return tuple(parameters), required


def learner_arguments(
    hint: str | None = None, missing_hints: Mapping[str, str] | None = None
) -> Callable[[type[_T]], type[_T]]:
    """Class decorator for a dataclass a learner constructs: the argument errors Python's generated ``__init__``
    raises (an unknown keyword, a required field left out, too many positional arguments, one given twice) become
    ``TypeError``s in the learner's language that name the argument and list the ones the class takes. ``hint``
    (a catalog key) adds a sentence to the unknown-keyword message (e.g. where a config.json's keys belong), and
    ``missing_hints`` (field -> catalog key) one to the message for that required field left out.
    The checked call then goes to the generated ``__init__`` unchanged, so the field checks run as before.

    >>> from dataclasses import dataclass
    >>> @learner_arguments()
    ... @dataclass(frozen=True)
    ... class Box:
    ...     width: int
    ...     depth: int = 1
    >>> Box(2, depth=3).depth
    3
    >>> Box(2, height=3)
    Traceback (most recent call last):
    ...
    TypeError: Box has no argument 'height': its arguments are width, depth.
    >>> Box(depth=3)
    Traceback (most recent call last):
    ...
    TypeError: Box is missing the required argument width: the required ones are width.
    """

    def wrap(cls: type[_T]) -> type[_T]:
        init = cls.__init__
        taken = [f for f in dataclasses.fields(cls) if f.init]  # type: ignore[arg-type]
        names = [f.name for f in taken]
        required = [
            f.name for f in taken if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]

        @functools.wraps(init)
        def __init__(self: Any, /, *args: Any, **kwargs: Any) -> None:  # self positional-only: self=1 is unknown
            label = cls.__name__
            if len(args) > len(names):
                raise TypeError(
                    tr(
                        "validate.too_many_positional",
                        cls=label,
                        limit=len(names),
                        names=", ".join(names),
                        count=len(args),
                    )
                )
            by_position = names[: len(args)]
            for name in by_position:
                if name in kwargs:
                    raise TypeError(tr("validate.argument_twice", cls=label, name=name))
            check_keywords(label, kwargs, names, required, given=by_position, hint=hint, missing_hints=missing_hints)
            init(self, *args, **kwargs)

        setattr(cls, "__init__", __init__)  # noqa: B010 (mypy refuses assigning a method)
        return cls

    return wrap


_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_BY_POSITION = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def call_mistake(
    label: str, signature: inspect.Signature, args: Sequence[Any], kwargs: Mapping[str, Any]
) -> str | None:
    """What is wrong with calling ``label`` (whose parameters ``signature`` lists) with ``args`` and ``kwargs``,
    in the learner's language: too many arguments by position, an argument it does not take, one given twice or a
    required one left out. ``None`` when the call binds: then a ``TypeError`` came from inside the function.

    >>> def bubble(stages, microbatches, *, schedule="1f1b"): ...
    >>> call_mistake("bubble", inspect.signature(bubble), (4,), {"m": 8})
    "bubble has no argument 'm': its arguments are stages, microbatches, schedule."
    >>> call_mistake("bubble", inspect.signature(bubble), (4,), {})
    'bubble is missing the required argument microbatches: the required ones are stages, microbatches.'
    >>> call_mistake("bubble", inspect.signature(bubble), (4, 8), {}) is None
    True
    """
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        pass
    else:
        return None
    parameters = signature.parameters
    named = [p.name for p in parameters.values() if p.kind not in _VARIADIC]
    positional = [p.name for p in parameters.values() if p.kind in _BY_POSITION]
    takes_more = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters.values())
    takes_any_name = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    if not named and not takes_more and not takes_any_name:
        return tr(
            "validate.no_arguments",
            cls=label,
            given=", ".join([*map(shown_repr, args), *(f"{k}={shown_repr(v)}" for k, v in kwargs.items())]),
        )
    if len(args) > len(positional) and not takes_more:
        if not positional:
            return tr("validate.keywords_only", cls=label, names=", ".join(named), count=len(args))
        return tr(
            "validate.too_many_positional",
            cls=label,
            limit=len(positional),
            names=", ".join(positional),
            count=len(args),
        )
    by_position = positional[: len(args)]
    for name in kwargs:
        parameter = parameters.get(name)
        if parameter is None or parameter.kind in _VARIADIC:
            if not takes_any_name:
                return tr("validate.unknown_argument", cls=label, name=name, names=", ".join(named), hint="")
        elif parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
            if not takes_any_name:
                return tr("validate.positional_only", cls=label, name=name)
        elif name in by_position:
            return tr("validate.argument_twice", cls=label, name=name)
    required = [p.name for p in parameters.values() if p.default is inspect.Parameter.empty and p.kind not in _VARIADIC]
    for name in required:
        if name not in by_position and name not in kwargs:
            return tr("validate.missing_argument", cls=label, name=name, required=", ".join(required))
    return None  # pragma: no cover - bind refused a call none of the rules above describes


def learner_function(func: Callable[_P, _R], label: str | None = None, *, method: bool = False) -> Callable[_P, _R]:
    """``func`` refusing a wrong call in the learner's language (:func:`call_mistake`) instead of Python's English
    ``TypeError``; a right call costs one extra frame and nothing else. ``label`` names the function in messages
    (default its ``__name__``); ``method``: ``func`` is a method (a class's ``__init__``), whose first argument
    (``self``) the messages leave out. The wrapper lives in ``func``'s module namespace, so doctest still finds its
    examples.

    >>> def bubble(stages, microbatches): return (stages - 1) / (microbatches + stages - 1)
    >>> learner_function(bubble)(stages=4, m=8)
    Traceback (most recent call last):
    ...
    TypeError: bubble has no argument 'm': its arguments are stages, microbatches.
    """
    if getattr(func, "__learner_function__", False):
        return func
    known = _LEARNER_FUNCTIONS.get(func)
    if known is not None and label is None and not method:
        return known
    signature = inspect.signature(func)
    skipped = 1 if method else 0
    if method:
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    name: str = label or str(getattr(func, "__name__", "function"))
    mistake = call_mistake  # a closure variable: the wrapper's globals are func's module

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TypeError:
            message = mistake(name, signature, args[skipped:], kwargs)
            if message is None:
                raise
        raise TypeError(message)

    namespace = getattr(func, "__globals__", None)
    if isinstance(namespace, dict):
        call = types.FunctionType(call.__code__, namespace, call.__name__, call.__defaults__, call.__closure__)
    wrapper = functools.update_wrapper(call, func)
    wrapper.__learner_function__ = True  # type: ignore[attr-defined]
    if label is None and not method:
        _LEARNER_FUNCTIONS[func] = wrapper
    return wrapper


#: Each function :func:`learner_function` wrapped, to its wrapper: a function two namespaces list gets one wrapper.
_LEARNER_FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {}


def learner_functions(namespace: dict[str, Any]) -> None:
    """Give the public functions and classes of the module whose ``globals()`` is ``namespace`` the call check in
    the learner's language: a function becomes :func:`learner_function`, a class's own ``__init__`` gets the same
    check unless :func:`learner_arguments` gave it one. Public means named in ``__all__``, or, in a module without
    one, not starting with an underscore. A name the module imports from another of the course's modules gets that
    function's one wrapper, put back in its home module too. Called last in each public module and package."""
    module = namespace.get("__name__")
    listed = namespace.get("__all__")
    names = list(listed) if listed is not None else [name for name in namespace if not name.startswith("_")]
    for name in names:
        value = namespace.get(name)
        home_name = str(getattr(value, "__module__", ""))
        if not home_name.startswith("coursekit") or (listed is None and home_name != module):
            continue
        if inspect.isfunction(value):
            namespace[name] = learner_export(value)
        elif inspect.isclass(value) and home_name == module:
            init = value.__dict__.get("__init__")
            if inspect.isfunction(init) and not getattr(init, "__learner_function__", False):
                if getattr(init, "__wrapped__", None) is None:  # learner_arguments' __init__ checks already
                    setattr(value, "__init__", learner_function(init, value.__name__, method=True))  # noqa: B010


def learner_export(value: Any) -> Any:
    """``value``, or when it is one of the course's functions, its :func:`learner_function` wrapper, also bound in
    the module that defines it (``coursekit``'s lazy attributes call this on what they hand out)."""
    if not inspect.isfunction(value) or not str(value.__module__).startswith("coursekit"):
        return value
    wrapper = learner_function(value)
    home = sys.modules.get(str(value.__module__))
    name = str(getattr(value, "__name__", ""))
    if home is not None and home.__dict__.get(name) is value:
        setattr(home, name, wrapper)
    return wrapper


def finite_result(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Guard a public formula: a non-finite result becomes a ``ValueError`` naming every argument.

    Each argument may be in range while the formula still overflows (``1e308``
    parameters times 16 bytes) or divides by an underflowed ``5e-324``. Then the
    result holds ``inf`` / ``nan``, or the arithmetic raises ``OverflowError`` /
    ``ZeroDivisionError``; all three become :func:`check_finite_result`'s message.
    Arguments are validated by the function itself before this runs.
    """
    signature = inspect.signature(func)

    def fail(result: str, value: float, args: Any, kwargs: Any) -> ValueError:
        try:
            bound = signature.bind(*args, **kwargs).arguments
        except TypeError:
            bound = dict(kwargs)
        try:
            check_finite_result(result, value, bound)
        except ValueError as exc:
            return exc
        raise AssertionError("unreachable")  # pragma: no cover

    @functools.wraps(func)
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            result = func(*args, **kwargs)
        except (OverflowError, ZeroDivisionError):
            raise fail(func.__name__, math.inf, args, kwargs) from None
        found = _first_non_finite(result, "")
        if found is not None:
            raise fail(found[0] or func.__name__, found[1], args, kwargs)
        return result

    return guarded


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
