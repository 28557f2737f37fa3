"""Language switch and the bilingual message catalog (中文 / English).

Every sentence that coursekit shows a learner — error messages, gate reasons,
widget labels, exercise feedback — lives in a catalog entry with a Chinese and
an English text. Modules register their entries at import time with
:func:`register`; :func:`tr` renders one in the current language.

English nouns agree with their counts ("1 device", "2 devices"), Chinese has no
plural: a catalog's English text says a count with the format spec ``@noun``
(``{nodes:@node}``, ``{m:@micro-batch/micro-batches}``, ``{size:,@composition}``),
an f-string the same on a :class:`Count`, and both come to :func:`counted`.

The default language comes from the environment variable ``COURSEKIT_LANG``
(``zh`` or ``en``, or a locale name that starts with one: ``zh_CN.UTF-8``, ``zh-Hans``, ``en_US``), else English.

>>> from coursekit import set_language, get_language
>>> old = get_language()
>>> set_language("zh")
>>> get_language()
'zh'
>>> set_language(old)

Taught in: lesson 0 (course index), used by every lesson.
"""

from __future__ import annotations

import math
import numbers
import os
import re
import reprlib
import string
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: The languages of the course, in the order prose is written (Chinese first).
LANGUAGES: tuple[str, ...] = ("zh", "en")

_catalog: dict[str, dict[str, str]] = {}


def _initial_language() -> str:
    lang = os.environ.get("COURSEKIT_LANG", "en").strip().lower()
    lang = re.split(r"[_.@-]", lang, maxsplit=1)[0]  # a locale name (zh_CN.UTF-8, zh-Hans) names its language first
    return lang if lang in LANGUAGES else "en"


_current: str = _initial_language()


def register(messages: Mapping[str, Mapping[str, str]]) -> None:
    """Add catalog entries ``{key: {"zh": text, "en": text}}``.

    Registering the same key twice with the same texts is harmless (modules may
    be reloaded); with different texts it is a programming error.

    >>> register({"demo.hello": {"zh": "你好，{name}", "en": "Hello, {name}"}})
    >>> tr("demo.hello", name="GPU")  # doctest: +SKIP
    'Hello, GPU'
    """
    for key, texts in messages.items():
        missing = [lang for lang in LANGUAGES if not texts.get(lang)]
        if missing:
            raise ValueError(f"message {key!r} has no text for {missing}")
        entry = {lang: texts[lang] for lang in LANGUAGES}
        if key in _catalog and _catalog[key] != entry:
            raise ValueError(f"message {key!r} is registered twice with different texts")
        _catalog[key] = entry


def catalog() -> dict[str, dict[str, str]]:
    """A copy of every registered entry (for tests and the glossary)."""
    return {key: dict(texts) for key, texts in _catalog.items()}


def placeholders(text: str) -> set[str]:
    """The ``{name}`` fields a catalog text uses.

    >>> sorted(placeholders("{name} = {value!r}: must be >= {low}"))
    ['low', 'name', 'value']
    """
    return {fname.split(".")[0].split("[")[0] for _, fname, _, _ in string.Formatter().parse(text) if fname}


#: Marks a catalog format spec that says a count with its English noun: ``{nodes:@node}`` (:func:`counted`).
COUNTED_SPEC: str = "@"


def counted(count: Any, noun: str, nouns: str | None = None, spec: str = "") -> str:
    """``count`` and its English noun, singular for exactly one: ``nouns`` is the plural (default ``noun + "s"``),
    ``spec`` the count's format spec. The one place the course's English output pluralises a count.

    >>> counted(1, "device"), counted(2, "device"), counted(0, "node"), counted(1, "copy", "copies")
    ('1 device', '2 devices', '0 nodes', '1 copy')
    >>> counted(12345, "token", spec=",")
    '12,345 tokens'
    >>> counted(1.2, "token row", spec=".0f"), counted(1.6, "token row", spec=".0f")
    ('1 token row', '2 token rows')
    """
    plain = count.value if isinstance(count, _Shown) else count
    shown = format(count, spec) if spec else str(count)
    # one as shown: 1, 1.0 and a 0.8 printed by ".0f" as "1" read "1 row" (numpy scalars too)
    one = not isinstance(plain, bool) and isinstance(plain, numbers.Real) and (plain == 1 or shown == "1")
    return f"{shown} {noun if one else (nouns or noun + 's')}"


class Count:
    """A count an f-string shows plain (``f"{n}"``, the Chinese text) or with its English noun by :func:`counted`
    (``f"{n:@layer}"``, ``f"{n:,@token}"``, ``f"{n:@copy/copies}"``), so both texts name the same field.

    >>> n = Count(1)
    >>> f"{n} 层", f"{n:@layer}", f"{Count(2):@copy/copies}"
    ('1 层', '1 layer', '2 copies')
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        if COUNTED_SPEC not in spec:
            return format(self.value, spec)
        number_spec, _, nouns = spec.partition(COUNTED_SPEC)
        noun, _, plural = nouns.partition("/")
        return counted(self.value, noun, plural or None, number_spec)


#: Ends a catalog format spec whose nonzero value must not read as zero: ``{ttft_ms:.0f~}`` (:func:`nonzero`).
NONZERO_SPEC: str = "~"
#: Most decimals :func:`nonzero` adds before it writes a tiny value in e-notation (two significant digits): 0.04%,
#: 0.0004%, then 1e-07% (an absurd cluster's matmul efficiency printed 0.0000001%; 12 were allowed).
MAX_EXTRA_DECIMALS: int = 4
_FIXED_SPEC = re.compile(r"(?P<head>[^.]*?)(?:\.(?P<decimals>\d+))?(?P<kind>[f%])")
#: The decimals of a fixed-point spec that states none (``"%"``, ``"f"``), as Python's ``format`` writes them.
_DEFAULT_FIXED_DECIMALS: int = 6


def nonzero(value: Any, spec: str) -> str:
    """``value`` formatted by the fixed-point ``spec`` (``.3f``, ``,.1f``, ``.0%``), but a nonzero value the spec
    would show as zero gets as many more decimals as it takes to show a digit (beyond :data:`MAX_EXTRA_DECIMALS`, two
    significant digits in e-notation). The one place a positive quantity is kept from printing as 0 ("TTFT >= 0 ms",
    "0% of peak"); in catalog text it is the spec's :data:`NONZERO_SPEC` suffix. With the same ``spec`` a larger value
    never prints smaller than a smaller one, so a bound printed this way never reads below one of its parts.

    >>> nonzero(0.04, ".0f"), nonzero(12.34, ".0f"), nonzero(0.0004, ".0%"), nonzero(0.0, ".3f"), nonzero(5e-324, ".1f")
    ('0.04', '12', '0.04%', '0.000', '4.9e-324')

    A percentage is a share of a whole, so the same holds at the other end: a value below 1 that the spec would show
    as all of it ("100%", as 0.997 of a 312 TFLOP/s peak rounds) gets the decimals that tell it from 100 %; past
    :data:`MAX_EXTRA_DECIMALS` more it is written rounded down, so it still reads below 100 %. Exactly 1 is "100%".

    >>> nonzero(0.997, ".0%"), nonzero(0.99996, ".0%"), nonzero(1 - 1e-12, ".0%"), nonzero(1.0, ".0%")
    ('99.7%', '99.996%', '99.9999%', '100%')

    ``spec`` is a str Python's ``format`` takes for ``value``; a spec it refuses, or a number beyond the float range
    (``10**400``), is refused naming it in the learner's language (fuzz pass 25: Python's own English errors and an
    ``OverflowError``).
    """
    if not isinstance(spec, str):
        raise TypeError(
            tr("validate.type_instance", name="spec", value=shown_repr(spec), expected="str", type=type(spec).__name__)
        )
    try:
        return _nonzero(value, spec)
    except OverflowError:  # an int, Fraction or Decimal beyond the float range
        raise ValueError(tr("i18n.nonzero_range", value=shown_repr(value), high=sys.float_info.max)) from None
    except (TypeError, ValueError):
        raise ValueError(
            tr("i18n.nonzero_spec", spec=spec, value=shown_repr(value), type=type(value).__name__)
        ) from None


def _nonzero(value: Any, spec: str) -> str:
    """:func:`nonzero` of a value and spec the catalog's own text gives (the ``~`` spec): unchecked."""
    text = format(value, spec)
    match = _FIXED_SPEC.fullmatch(spec)
    plain = value.value if isinstance(value, _Shown) else value
    if (
        match is None
        or isinstance(plain, bool)
        or not isinstance(plain, numbers.Real)
        or not math.isfinite(plain)
        or plain == 0
    ):
        return text
    head, kind = match["head"], match["kind"]
    decimals = _DEFAULT_FIXED_DECIMALS if match["decimals"] is None else int(match["decimals"])
    share = float(plain)
    if kind == "%" and 0 < share < 1 and text == format(1, spec):  # a share below the whole reads "100%"
        for more in range(decimals + 1, decimals + MAX_EXTRA_DECIMALS + 1):
            text = format(share, f"{head}.{more}{kind}")
            if text != format(1, f"{head}.{more}{kind}"):
                return text
        places = decimals + MAX_EXTRA_DECIMALS
        return format(math.floor(share * 10 ** (places + 2)) / 10**places, f"{head}.{places}f") + "%"
    if re.search("[1-9]", text):
        return text
    for more in range(decimals + 1, decimals + MAX_EXTRA_DECIMALS + 1):
        text = format(plain, f"{head}.{more}{kind}")
        if re.search("[1-9]", text):
            return text
    return format(plain * 100, ".2g") + "%" if kind == "%" else format(plain, ".2g")


class _Formatter(string.Formatter):
    """``str.format`` plus :data:`COUNTED_SPEC` (:class:`Count`): ``{n:@noun}``, ``{n:@noun/nouns}``,
    ``{n:,@noun}``, and :data:`NONZERO_SPEC` (:func:`nonzero`): ``{t:.1f~}``."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        if COUNTED_SPEC in format_spec:
            return format(Count(value), format_spec)
        if format_spec.endswith(NONZERO_SPEC):
            return _nonzero(value, format_spec[: -len(NONZERO_SPEC)])
        return super().format_field(value, format_spec)


_FORMATTER = _Formatter()


def get_language() -> str:
    """The current language code, ``"zh"`` or ``"en"``."""
    return _current


def set_language(lang: str) -> None:
    """Switch every message, reason and label to ``"zh"`` or ``"en"``.

    >>> set_language("fr")
    Traceback (most recent call last):
    ...
    ValueError: lang = 'fr': must be one of 'zh', 'en'.
    """
    global _current
    if not isinstance(lang, str):
        raise TypeError(tr("validate.type_choice", name="lang", value=lang, type=type(lang).__name__))
    key = lang.strip().lower()
    if key not in LANGUAGES:
        raise ValueError(tr("validate.choice", name="lang", value=lang, choices=", ".join(map(repr, LANGUAGES))))
    _current = key


#: Longest rendering of one value inside a message: a 10**6-character string or a
#: 100,000-item list is shown by its beginning and end, never in full.
MAX_SHOWN_CHARS: int = 200
#: Integers with more digits than this are shown as ``≈1.0e+400`` (Python refuses
#: to print ints over 4300 digits, and nobody reads 400 of them).
MAX_SHOWN_DIGITS: int = 30

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxlist = _repr.maxtuple = _repr.maxset = _repr.maxfrozenset = _repr.maxdeque = _repr.maxdict = 20
_repr.maxstring = _repr.maxother = _repr.maxlong = MAX_SHOWN_CHARS


def _huge_int(value: int) -> str | None:
    """``≈1.0e+400`` for an int too long to show, else ``None``."""
    if abs(value) < 10**MAX_SHOWN_DIGITS:
        return None
    log = math.log10(abs(value))
    exponent = math.floor(log)
    return f"{'-' if value < 0 else ''}\u2248{10 ** (log - exponent):.1f}e+{exponent}"


def _clip(text: str) -> str:
    if len(text) <= MAX_SHOWN_CHARS:
        return text
    half = (MAX_SHOWN_CHARS - 3) // 2
    return text[:half] + "..." + text[-half:]


def shown_repr(value: Any) -> str:
    """``repr(value)`` cut to about :data:`MAX_SHOWN_CHARS` characters, safe for any value.

    >>> shown_repr("a" * 1000)[:12], len(shown_repr("a" * 1000)) <= MAX_SHOWN_CHARS
    ("'aaaaaaaaaaa", True)
    >>> shown_repr(10**400)
    '\u22481.0e+400'
    """
    if isinstance(value, int) and not isinstance(value, bool):
        huge = _huge_int(value)
        if huge is not None:
            return huge
    try:
        return _clip(_repr.repr(value))
    except Exception:  # a broken __repr__ must not hide the message around it
        return f"<{type(value).__name__}>"


def shown_str(value: Any) -> str:
    """``str(value)`` cut to about :data:`MAX_SHOWN_CHARS` characters, safe for any value."""
    if isinstance(value, str):
        return _clip(value)
    if isinstance(value, (int, list, tuple, dict, set, frozenset, bytes)) and not isinstance(value, bool):
        return shown_repr(value)
    try:
        return _clip(str(value))
    except Exception:
        return f"<{type(value).__name__}>"


class _Shown:
    """A message parameter that prints short: ``{x!r}`` is clipped, and ``{x}`` unless ``x`` is a str."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return shown_repr(self.value)

    def __str__(self) -> str:
        # A str shown with {x} is text the course composed (a reason, a sentence): kept whole.
        # A learner's value is shown with {x!r}, which is clipped.
        return self.value if isinstance(self.value, str) else shown_str(self.value)

    def __format__(self, spec: str) -> str:
        if not spec:
            return str(self)
        return format(self.value, spec)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.value, name)

    def __getitem__(self, key: Any) -> Any:
        return self.value[key]


def _shown(value: Any) -> Any:
    if value is None or isinstance(value, (bool, float, Text)):
        return value
    return _Shown(value)


def tr(key: str, /, lang: str | None = None, **params: Any) -> str:
    """Render catalog entry ``key`` in ``lang`` (default: the current language).

    Each parameter is shown at most about :data:`MAX_SHOWN_CHARS` characters long.
    """
    if not isinstance(key, str):
        raise TypeError(tr("validate.type_choice", name="key", value=key, type=type(key).__name__))
    if key not in _catalog:
        raise ValueError(tr("i18n.unknown_key", value=key))
    if lang is not None and lang not in LANGUAGES:
        raise ValueError(tr("validate.choice", name="lang", value=lang, choices=", ".join(map(repr, LANGUAGES))))
    lang = lang or _current
    # a bilingual parameter renders in the entry's language, not only in the current one
    shown = {name: _shown(value.render(lang) if isinstance(value, Text) else value) for name, value in params.items()}
    text = _catalog[key][lang]
    try:
        return _FORMATTER.vformat(text, (), shown)
    except KeyError:  # a {name} the caller did not give: named, as Python names a missing argument
        missing = ", ".join(sorted(placeholders(text) - set(params)))
        raise TypeError(tr("i18n.missing_params", key=key, names=missing)) from None
    except (TypeError, ValueError):  # a parameter its format spec cannot show, e.g. {size:,} given a str
        for _, name, spec, _ in string.Formatter().parse(text):
            if name in params and spec:
                try:
                    format(params[name], spec.partition(COUNTED_SPEC)[0])
                except (TypeError, ValueError):
                    kind = type(params[name]).__name__
                    raise TypeError(
                        tr("i18n.param_format", key=key, name=name, value=params[name], spec=spec, type=kind)
                    ) from None
        raise


def pick(zh: str, en: str) -> str:
    """``Text(zh=zh, en=en)`` rendered in the current language (kept for old callers; build a :class:`Text`)."""
    return Text(zh=zh, en=en).render()


@dataclass(frozen=True)
class Text:
    """A bilingual text that renders in the language current when it is read.

    >>> t = Text(zh="数据并行", en="data parallelism")
    >>> t.render("en")
    'data parallelism'
    """

    zh: str
    en: str

    def render(self, lang: str | None = None) -> str:
        return self.zh if (lang or _current) == "zh" else self.en

    def __str__(self) -> str:
        return self.render()


@dataclass(frozen=True)
class Reason:
    """Why something was rejected: a stable ``code`` and a localized ``message``.

    Tests assert on ``code``; learners read ``message``, which is rendered in
    the language current when it is read.

    >>> r = Reason("memory", "gate.memory", {"need_gib": 29.0, "have_gib": 24.0})
    >>> r.code
    'memory'
    """

    code: str
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def message(self) -> str:
        return tr(self.key, **self.params)

    def render(self, lang: str | None = None) -> str:
        return tr(self.key, lang=lang, **self.params)

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


register(
    {
        "i18n.unknown_key": {
            "zh": "key = {value!r}：课程的消息目录中没有这个键。",
            "en": "key = {value!r}: no message with this key in the coursekit catalog.",
        },
        "i18n.missing_params": {
            "zh": "key = {key!r}：这条消息还需要参数 {names}。",
            "en": "key = {key!r}: the message also needs the parameters {names}.",
        },
        "i18n.nonzero_spec": {
            "zh": "spec = {spec!r}：不能用来显示 value = {value}（{type}）；请给这个值能用的格式，"
            "例如定点格式 '.3f'、',.1f' 或 '.0%'。",
            "en": "spec = {spec!r}: cannot show value = {value} ({type}); give a format this value takes, such as "
            "the fixed-point '.3f', ',.1f' or '.0%'.",
        },
        "i18n.nonzero_range": {
            "zh": "value = {value}：超出浮点数范围，绝对值必须 <= {high}。",
            "en": "value = {value}: outside the float range; its size must be <= {high}.",
        },
        "i18n.param_format": {
            "zh": "{name} = {value!r}：消息 {key!r} 按格式 {spec!r} 显示它，需要数而不是 {type}。",
            "en": "{name} = {value!r}: message {key!r} shows it in the format {spec!r}, which needs a number, not "
            "{type}.",
        },
        "validate.type_number": {
            "zh": "{name} = {value!r}：必须是实数（int 或 float），而不是 {type}。",
            "en": "{name} = {value!r}: must be a real number (int or float), not {type}.",
        },
        "validate.type_int": {
            "zh": "{name} = {value!r}：必须是整数 (int)，而不是 {type}。",
            "en": "{name} = {value!r}: must be an integer (int), not {type}.",
        },
        "validate.column_width": {
            "zh": "{name} = {value!r}：这里的 numpy 数组或 numpy 数必须是 int64 或 float64，而不是 {type}："
            "更窄的类型和无符号类型在计算中会悄悄溢出或回绕（int32 的 2**30 乘以 8 得到负数），float32 会丢精度；"
            "请先转换，例如 numpy.asarray({name}, dtype=numpy.int64)。",
            "en": "{name} = {value!r}: a numpy array or numpy number here must be int64 or float64, not {type}: "
            "narrower and unsigned types overflow or wrap silently in the arithmetic (int32 2**30 times 8 is "
            "negative) and float32 loses precision; convert it first, e.g. numpy.asarray({name}, dtype=numpy.int64).",
        },
        "validate.column_shapes": {
            "zh": "{names} 的形状 {shapes} 不能逐元素对齐（numpy 的广播规则）：每一维的长度必须相同或为 1"
            "（一个数可以配任何数组）。",
            "en": "{names} have shapes {shapes} that do not line up element by element (numpy's broadcasting): each "
            "dimension must have the same length or 1 (a number goes with any array).",
        },
        "validate.masked_column": {
            "zh": "{name} = {value!r}：是 numpy 的掩码数组 (masked array)；被掩盖的项在计算中会被当作普通的数，"
            "请传入 {name}.compressed()（只留未掩盖的项）或 {name}.filled(...)（给被掩盖的项填一个值）。",
            "en": "{name} = {value!r}: is a numpy masked array; its masked entries would be computed as ordinary "
            "numbers, so pass {name}.compressed() (the unmasked entries only) or {name}.filled(...) (a value for "
            "the masked ones).",
        },
        "validate.type_int_column": {
            "zh": "{name} = {value!r}：必须是整数 (int) 或数值数组，而不是 {type} 数组。",
            "en": "{name} = {value!r}: must be an integer (int) or an array of numbers, not an array of {type}.",
        },
        "validate.type_number_column": {
            "zh": "{name} = {value!r}：必须是实数或实数数组，而不是 {type} 数组。",
            "en": "{name} = {value!r}: must be a real number or an array of real numbers, not an array of {type}.",
        },
        "validate.type_bool": {
            "zh": "{name} = {value!r}：必须是 True 或 False，而不是 {type}。",
            "en": "{name} = {value!r}: must be True or False, not {type}.",
        },
        "validate.type_instance": {
            "zh": "{name} = {value}：必须是 {expected} 对象，而不是 {type}。",
            "en": "{name} = {value}: must be an object of type {expected}, not {type}.",
        },
        "validate.type_callable": {
            "zh": "{name} = {value}：必须是可调用的函数（稍后调用），而不是 {type}。",
            "en": "{name} = {value}: must be a function to call later, not {type}.",
        },
        "validate.type_choice": {
            "zh": "{name} = {value!r}：必须是字符串，而不是 {type}。",
            "en": "{name} = {value!r}: must be a string, not {type}.",
        },
        "validate.finite": {
            "zh": "{name} = {value!r}：必须是有限数（不能是 NaN 或无穷大）。",
            "en": "{name} = {value!r}: must be a finite number (not NaN or infinity).",
        },
        "validate.ge": {
            "zh": "{name} = {value!r}：必须 >= {low}。",
            "en": "{name} = {value!r}: must be >= {low}.",
        },
        "validate.gt": {
            "zh": "{name} = {value!r}：必须 > {low}。",
            "en": "{name} = {value!r}: must be > {low}.",
        },
        "validate.le": {
            "zh": "{name} = {value!r}：必须 <= {high}。",
            "en": "{name} = {value!r}: must be <= {high}.",
        },
        "validate.lt": {
            "zh": "{name} = {value!r}：必须 < {high}。",
            "en": "{name} = {value!r}: must be < {high}.",
        },
        "validate.choice": {
            "zh": "{name} = {value!r}：必须是 {choices} 之一。",
            "en": "{name} = {value!r}: must be one of {choices}.",
        },
        "validate.divides": {
            "zh": "{name} = {value!r}：必须整除 {other_name} = {other!r}。",
            "en": "{name} = {value!r}: must divide {other_name} = {other!r}.",
        },
    }
)
