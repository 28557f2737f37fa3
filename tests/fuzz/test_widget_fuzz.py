"""Widget constructors keep the API's contract: a bad argument is a named TypeError / ValueError.

Every :class:`~coursekit.widgets.LessonWidget` subclass in ``coursekit.widgets``
is found by walking the package, so a new widget is covered without editing
this file; each constructor argument gets each value of a small adversarial
pool (a widget that is built costs a figure, so the pool is smaller than the
API's), in both languages.
"""

from __future__ import annotations

import importlib
import inspect
import math
import pkgutil
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

import coursekit
import coursekit.widgets
from coursekit.i18n import LANGUAGES
from coursekit.widgets import LessonWidget

from .contract import MAX_MESSAGE_CHARS

WIDGET_POOL: tuple[Any, ...] = (
    -1,
    10**6,
    10**400,
    math.nan,
    math.inf,
    True,
    "x",
    "4",
    None,
    [4],
    np.array(4),
    Decimal("4"),
)


def widget_classes() -> dict[str, type[LessonWidget[Any]]]:
    found: dict[str, type[LessonWidget[Any]]] = {}
    for info in pkgutil.iter_modules(coursekit.widgets.__path__):
        module = importlib.import_module(f"coursekit.widgets.{info.name}")
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, LessonWidget) and obj is not LessonWidget:
                if obj.__module__ == module.__name__ and not inspect.isabstract(obj):
                    found[name] = obj
    return found


WIDGETS = widget_classes()


def _arguments(cls: type[Any]) -> list[str]:
    return [name for name in inspect.signature(cls.__init__).parameters if name != "self"]


def test_the_known_widgets_are_found() -> None:
    assert {"CapacityWidget", "CommunicationWidget", "PipelineWidget"} <= set(WIDGETS)


@pytest.mark.parametrize(
    ("make", "error", "names"),
    [
        # The three: a KeyError, a TraitError naming nothing, a silent clamp to 8 stages.
        (lambda: WIDGETS["CommunicationWidget"](link="nvlink"), ValueError, ("link", "'example'", "'cross_node'")),
        (lambda: WIDGETS["CapacityWidget"](model="gpt5"), ValueError, ("model", "'megatron-7.5b'")),
        (lambda: WIDGETS["PipelineWidget"](stages=100), ValueError, ("stages = 100", "between 1 and")),
        (lambda: WIDGETS["PipelineWidget"](stages=4.0), TypeError, ("stages = 4.0", "int")),
        (lambda: WIDGETS["CapacityWidget"](dp=True), ValueError, ("dp = True",)),
    ],
)
def test_constructor_names_the_argument_and_the_rule(make: Any, error: type[Exception], names: tuple[str, ...]) -> None:
    with pytest.raises(error) as info:
        make()
    for name in names:
        assert name in str(info.value)


@pytest.mark.parametrize("widget", sorted(WIDGETS))
def test_widget_constructor_holds_under_abuse(widget: str) -> None:
    cls = WIDGETS[widget]
    problems = []
    for argument in _arguments(cls):
        for value in WIDGET_POOL:
            for lang in LANGUAGES:
                coursekit.set_language(lang)
                try:
                    built = cls(**{argument: value})
                except (TypeError, ValueError) as exc:
                    message = str(exc)
                    if argument not in message:
                        problems.append(f"{widget}({argument}={value!r:.40}): does not name it: {message[:200]}")
                    elif len(message) > MAX_MESSAGE_CHARS:
                        problems.append(f"{widget}({argument}=...): message of {len(message)} characters")
                    elif lang == "zh" and not any("\u4e00" <= ch <= "\u9fff" for ch in message):
                        problems.append(f"{widget}({argument}={value!r:.40}): English under zh: {message[:200]}")
                except Exception as exc:  # every other type breaks the contract
                    problems.append(f"{widget}({argument}={value!r:.40}): {type(exc).__name__}: {str(exc)[:200]}")
                else:
                    # Accepted: the widget must show what it got, not clamp it to something else.
                    control = built.controls.get(argument)
                    if control is not None and value is not None and not _shows(control.value, value):
                        problems.append(f"{widget}({argument}={value!r:.40}): the control shows {control.value!r}")
                    break  # accepted in one language is accepted in the other: skip a second figure
                finally:
                    coursekit.set_language("en")
    assert not problems, "\n".join(problems[:30])


def _shows(shown: Any, given: Any) -> bool:
    try:
        return bool(shown == given)
    except Exception:
        return False
