"""Learner-reachable functions refuse an object of the wrong kind in the learner's language, naming the
parameter, the value and the rule (a class or a callable), not a bare English sentence."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from coursekit.exercises import reveal
from coursekit.exercises.lesson8 import use_run
from coursekit.glossary import render_notebook_markdown
from coursekit.i18n import get_language, set_language
from coursekit.lab.memory import run_memory


@pytest.fixture
def chinese() -> Iterator[None]:
    before = get_language()
    set_language("zh")
    try:
        yield
    finally:
        set_language(before)


#: Wrong kinds on purpose: the calls go through ``Any`` so the type checker lets them reach the runtime check.
_reveal: Any = reveal
_run_memory: Any = run_memory
_use_run: Any = use_run

CASES: list[tuple[str, Callable[[], Any], type[Exception], str, str]] = [
    ("reveal", lambda: _reveal("表格"), TypeError, "show = '表格'", "可调用的函数"),
    ("glossary", lambda: render_notebook_markdown("fr"), ValueError, "lang = 'fr'", "'zh', 'en'"),
    ("memory", lambda: _run_memory(config={"layers": 2}), TypeError, "config = {'layers': 2}", "TinyTransformerConfig"),
    ("recording", lambda: _use_run(3), TypeError, "run = 3", "LessonRecording"),
]


@pytest.mark.parametrize(("name", "call", "error", "names", "rule"), CASES, ids=[c[0] for c in CASES])
def test_refusal_is_chinese_and_names_parameter_value_and_rule(
    chinese: None, name: str, call: Callable[[], Any], error: type[Exception], names: str, rule: str
) -> None:
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    assert names in message and rule in message, message
    assert "must" not in message and "：" in message, message
