"""Reading a lab result back (a JSON file, or the dict parsed from it): every refusal is one localized line.

A path follows the rules of the command lines' paths (:mod:`coursekit._cli`): an empty one is refused rather than
read as the current folder, and an operating-system error (no such file, a folder, no permission) becomes one line
naming the path (:func:`coursekit._cli.os_error_message`). Inside the result, :class:`Field` names every value by
its place, ``source['results'][0]['strategy']``, in the messages of :mod:`coursekit._validate`, so a file cut short
or edited by hand says which key is missing or wrong and why, never ``KeyError``. Times, byte counts and ranks are
never negative, and NaN or infinity is refused.

>>> root = read_source({"schema": "demo/1"}, "python -m coursekit.lab timeline --json")
>>> root["ranks"]
Traceback (most recent call last):
...
ValueError: source['ranks'] is missing; every result python -m coursekit.lab timeline --json writes has it.
>>> read_source("", "python -m coursekit.lab record --json")
Traceback (most recent call last):
...
ValueError: source '': the path is empty; name a file.

Taught in: lesson 8 (formula vs measurement).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from .._cli import os_error_message
from .._validate import check_bool, check_choice, check_int, check_items, check_number
from ..i18n import Reason, register, shown_repr, tr

__all__ = ["MAX_RESULT_BYTES", "Field", "read_source"]

#: Largest result file read, bytes: lesson 8's whole recording is about 120 KB; a longer file (or /dev/zero) is not
#: a result.
MAX_RESULT_BYTES: int = 64 * 2**20
#: Most items one list of a result may hold (steps, points, trace intervals).
MAX_RESULT_ITEMS: int = 1_000_000

register(
    {
        "lab.json_source_type": {
            "zh": "source = {value}：必须是 {writer} 写出的 JSON 文件的路径（str 或 pathlib.Path），或解析出的 dict，"
            "而不是 {type}。",
            "en": "source = {value}: must be the path of a JSON file written by {writer} (str or pathlib.Path) or the "
            "dict parsed from it, not {type}.",
        },
        "lab.json_too_large": {
            "zh": "source {path}：超过 {limit} 字节，不是实验结果（第 8 课的整份记录约 120 KB）。",
            "en": "source {path}: over {limit:@byte}, not a lab result (lesson 8's whole recording is about 120 KB).",
        },
        "lab.json_not_json": {
            "zh": "source {path}：不是合法的 JSON（第 {line} 行第 {column} 列）；请读入 {writer} 写出的文件。",
            "en": "source {path}: not valid JSON (line {line}, column {column}); read a file written by {writer}.",
        },
        "lab.json_unusable": {
            "zh": "source {path}：不是可用的 JSON（不是 UTF-8 文本、嵌套太深或数字太长）；请读入 {writer} 写出的文件。",
            "en": "source {path}: not usable JSON (not UTF-8 text, nested too deeply or a number too long); read a "
            "file written by {writer}.",
        },
        "lab.json_missing": {
            "zh": "{name} 缺失；{writer} 写出的每个结果都有这一项。",
            "en": "{name} is missing; every result {writer} writes has it.",
        },
        "lab.json_schema": {
            "zh": "{name} = {value!r}：不是 {writer} 写出的结果（其 schema 为 {expected!r}）。",
            "en": "{name} = {value!r}: not a result written by {writer} (its schema is {expected!r}).",
        },
        "lab.json_mapping": {
            "zh": "{name} = {value}：必须是 JSON 对象（dict），而不是 {type}。",
            "en": "{name} = {value}: must be a JSON object (dict), not {type}.",
        },
        "lab.json_unknown": {
            "zh": "{name}：未知的键 {keys}；可用的键是 {known}。",
            "en": "{name}: unknown key(s) {keys}; the known keys are {known}.",
        },
        "lab.json_reason": {
            "zh": "{name} = {value}：不是可显示的原因（code、key、params；key 须是课程消息目录中的键，"
            "params 须与之相符）。",
            "en": "{name} = {value}: not a reason that can be shown (code, key and params; key must be a message of "
            "the coursekit catalog and params must fit it).",
        },
    }
)

_T = TypeVar("_T")


class Field:
    """One value of a lab result and its place in it (``name``), for messages that say where a value is wrong.

    ``writer`` is the command that writes such results; a missing key's message names it.

    >>> Field({"ranks": -2}, "source", "python -m coursekit.lab memory --json")["ranks"].int(ge=1)
    Traceback (most recent call last):
    ...
    ValueError: source['ranks'] = -2: must be >= 1.
    """

    __slots__ = ("name", "value", "writer")

    def __init__(self, value: Any, name: str, writer: str) -> None:
        self.value, self.name, self.writer = value, name, writer

    def _child(self, key: str | int, value: Any) -> Field:
        step = f"[{key}]" if isinstance(key, int) else f"[{key!r}]"
        return Field(value, self.name + step, self.writer)

    def mapping(self) -> Mapping[str, Any]:
        """The value, after checking it is a JSON object."""
        if not isinstance(self.value, Mapping):
            raise TypeError(
                tr("lab.json_mapping", name=self.name, value=shown_repr(self.value), type=type(self.value).__name__)
            )
        return self.value

    def __getitem__(self, key: str) -> Field:
        """The value under ``key``; ``ValueError`` naming the place when it is missing."""
        data = self.mapping()
        if key not in data:
            raise ValueError(tr("lab.json_missing", name=self._child(key, None).name, writer=self.writer))
        return self._child(key, data[key])

    def get(self, key: str) -> Field | None:
        """The value under ``key``, or ``None`` when it is missing or ``null``."""
        value = self.mapping().get(key)
        return None if value is None else self._child(key, value)

    def entries(self) -> list[tuple[str, Field]]:
        """``(key, value)`` of a JSON object, in its order."""
        return [(key, self._child(key, value)) for key, value in self.mapping().items()]

    def items(self) -> list[Field]:
        """The items of a JSON list."""
        values = check_items(self.name, self.value, max_items=MAX_RESULT_ITEMS)
        return [self._child(index, value) for index, value in enumerate(values)]

    def int(self, **bounds: int) -> int:
        """The value as an int (:func:`coursekit._validate.check_int`)."""
        return check_int(self.name, self.value, **bounds)

    def number(self, **bounds: float) -> float:
        """The value as a finite float (:func:`coursekit._validate.check_number`)."""
        return check_number(self.name, self.value, **bounds)

    def flag(self) -> bool:
        """The value as a bool (:func:`coursekit._validate.check_bool`)."""
        return check_bool(self.name, self.value)

    def text(self) -> str:
        """The value, after checking it is a string."""
        if not isinstance(self.value, str):
            kind = type(self.value).__name__
            raise TypeError(tr("validate.type_choice", name=self.name, value=self.value, type=kind))
        return self.value

    def choice(self, choices: Iterable[str]) -> str:
        """The value, after checking it is one of ``choices``."""
        return check_choice(self.name, self.value, choices)

    def check_schema(self, expected: str) -> None:
        """Refuse anything but a JSON object whose ``schema`` is ``expected``."""
        schema = self.mapping().get("schema")
        if schema != expected:
            name = self._child("schema", None).name
            raise ValueError(tr("lab.json_schema", name=name, value=schema, writer=self.writer, expected=expected))

    def reason(self) -> Reason | None:
        """A :class:`coursekit.i18n.Reason` stored as ``{"code", "key", "params"}`` (``None`` for ``null``)."""
        if self.value is None:
            return None
        reason = Reason(self["code"].text(), self["key"].text(), dict(self["params"].mapping()))
        try:
            reason.render("en")
            reason.render("zh")
        except (KeyError, ValueError, TypeError, IndexError, AttributeError):
            raise ValueError(tr("lab.json_reason", name=self.name, value=shown_repr(self.value))) from None
        return reason

    def build(self, cls: type[_T]) -> _T:
        """An instance of the dataclass ``cls`` from a JSON object of its fields.

        Each field is checked by its annotation: ``int`` and ``float`` fields are finite and >= 0 (times, byte
        counts, ranks, factors), ``str`` and ``bool`` fields are what they say, ``X | None`` may be ``null``; then
        the class checks itself. A field with a default may be left out; an unknown key is refused.
        """
        data = self.mapping()
        known = {item.name: item for item in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = [key for key in data if key not in known]
        if unknown:
            keys = ", ".join(map(repr, unknown))
            raise ValueError(tr("lab.json_unknown", name=self.name, keys=keys, known=", ".join(known)))
        values: dict[str, Any] = {}
        for name, item in known.items():
            required = item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING
            if name in data or required:
                values[name] = self[name].typed(item.type)
        return cls(**values)

    def typed(self, annotation: Any) -> Any:
        """The value checked against a field's annotation (see :meth:`build`)."""
        spelled = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        spelled = spelled.replace(" ", "")
        if spelled.endswith("|None"):
            return None if self.value is None else self.typed(spelled[: -len("|None")])
        if spelled == "int":
            return self.int(ge=0)
        if spelled == "float":
            return self.number(ge=0)
        if spelled == "str":
            return self.text()
        if spelled == "bool":
            return self.flag()
        return self.value


def read_source(source: Any, writer: str) -> Field:
    """The root :class:`Field` of a result: ``source`` is a path to a JSON file, or the dict parsed from it.

    ``writer`` is the command that writes such a file; the messages name it.
    """
    if isinstance(source, Mapping):
        return Field(source, "source", writer)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(tr("lab.json_source_type", value=shown_repr(source), type=type(source).__name__, writer=writer))
    text = os.fsdecode(os.fspath(source))
    if not text.strip():
        raise ValueError(tr("cli.path_empty", option="source", path=text, kind=tr("cli.kind_file")))
    try:
        with Path(text).open("rb") as stream:  # at most one byte past the limit: /dev/zero ends here
            raw = stream.read(MAX_RESULT_BYTES + 1)
    except OSError as error:
        raise ValueError(os_error_message(error, "source")) from None
    if len(raw) > MAX_RESULT_BYTES:
        raise ValueError(tr("lab.json_too_large", path=text, limit=MAX_RESULT_BYTES))
    try:
        data = json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(
            tr("lab.json_not_json", path=text, line=error.lineno, column=error.colno, writer=writer)
        ) from None
    except (UnicodeDecodeError, RecursionError, ValueError):  # not UTF-8, nested too deeply, an over-long integer
        raise ValueError(tr("lab.json_unusable", path=text, writer=writer)) from None
    return Field(data, text, writer)
