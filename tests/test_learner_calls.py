"""A wrong call of a public function (an argument it does not take, a required one left out, too many by position,
one given twice) is refused in the learner's language, naming the function, the argument and the ones it takes,
instead of Python's English ``TypeError``. The expected texts are worked from each function's own signature."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

import coursekit
from coursekit._validate import call_mistake, learner_function
from coursekit.i18n import get_language, set_language

CJK = re.compile(r"[\u4e00-\u9fff]")
#: Modules that start a worker or need torch when imported: their functions are covered where a package lists them.
SKIPPED = ("__main__", "._", "conftest")


def _modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(coursekit.__path__, "coursekit.")]
    chosen = [name for name in names if not any(part in name for part in SKIPPED)]
    return [coursekit, *(importlib.import_module(name) for name in chosen)]


def _public_functions() -> Iterator[tuple[str, Any]]:
    """(qualified name, object) of every function a module's ``__all__`` lists, and of every public function a
    module without ``__all__`` defines."""
    for module in _modules():
        listed = getattr(module, "__all__", None)
        names = list(listed) if listed is not None else [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            value = getattr(module, name, None)
            home = getattr(value, "__module__", "") or ""
            if not home.startswith("coursekit") or (listed is None and home != module.__name__):
                continue
            if inspect.isfunction(value):
                yield f"{module.__name__}.{name}", value


FUNCTIONS = sorted(dict(_public_functions()).items())


@pytest.fixture
def chinese() -> Iterator[None]:
    before = get_language()
    set_language("zh")
    try:
        yield
    finally:
        set_language(before)


def test_the_scan_sees_the_lessons_functions() -> None:
    names = {qualified for qualified, _ in FUNCTIONS}
    # a sample of what the lessons call, under the names they import them by
    assert {"coursekit.bubble_fraction", "coursekit.plan", "coursekit.gates.gate_memory"} <= names
    assert {"coursekit.units.bytes_to_gib", "coursekit.exercises.check", "coursekit.planner.what_if"} <= names
    assert len(FUNCTIONS) > 200


@pytest.mark.parametrize(("qualified", "function"), FUNCTIONS, ids=[q for q, _ in FUNCTIONS])
def test_public_function_refuses_an_unknown_argument_in_chinese(qualified: str, function: Any, chinese: None) -> None:
    assert getattr(function, "__learner_function__", False), f"{qualified} is not checked"
    original = inspect.unwrap(function)
    parameters = inspect.signature(original).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        pytest.skip("takes any keyword")
    named = [n for n, p in parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    with pytest.raises(TypeError) as caught:
        function(not_an_argument_of_it=1)
    message = str(caught.value)
    name = original.__name__
    if named:
        assert message == f"{name} 没有参数 'not_an_argument_of_it'：它的参数是 {', '.join(named)}。"
    else:
        assert message == f"{name} 不接受参数，却给了 not_an_argument_of_it=1。"


@pytest.mark.parametrize(("qualified", "function"), FUNCTIONS, ids=[q for q, _ in FUNCTIONS])
def test_public_function_names_the_first_missing_argument(qualified: str, function: Any) -> None:
    original = inspect.unwrap(function)
    parameters = inspect.signature(original).parameters
    required = [
        n for n, p in parameters.items() if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if not required:
        pytest.skip("nothing required")
    with pytest.raises(TypeError) as caught:
        function()
    name = original.__name__
    assert str(caught.value) == (
        f"{name} is missing the required argument {required[0]}: the required ones are {', '.join(required)}."
    )


def test_worked_messages(chinese: None) -> None:
    from coursekit.widgets.workbench import WorkbenchWidget

    # bubble_fraction(stages, microbatches, virtual_stages=1): the learner wrote the paper's letters
    with pytest.raises(
        TypeError, match=r"^bubble_fraction 没有参数 'p'：它的参数是 stages, microbatches, virtual_stages。$"
    ):
        coursekit.bubble_fraction(p=4, m=8)  # type: ignore[call-arg]
    with pytest.raises(
        TypeError, match=r"^bubble_fraction 缺少必填参数 microbatches：必填的是 stages, microbatches。$"
    ):
        coursekit.bubble_fraction(4)  # type: ignore[call-arg]
    with pytest.raises(
        TypeError, match=r"^bubble_fraction 的参数 stages 给了两次：按位置给了一次，又按名字给了一次。$"
    ):
        coursekit.bubble_fraction(4, 8, stages=4)  # type: ignore[misc]
    with pytest.raises(TypeError, match=r"^WorkbenchWidget 不接受参数，却给了 'h100'。$"):
        WorkbenchWidget("h100")  # type: ignore[call-arg]
    set_language("en")
    # kv_cache_bytes(model, *, ...): one argument by position, the rest by name
    with pytest.raises(TypeError, match=r"^kv_cache_bytes takes at most 1 positional argument \(model\), but got 3\.$"):
        coursekit.kv_cache_bytes(1, 2, 3)  # type: ignore[misc]


def test_a_type_error_from_inside_passes_through(chinese: None) -> None:
    # the call binds, so the function's own check answers: the value, not the call, is wrong
    with pytest.raises(TypeError, match=r"^stages = 'a'：必须是整数"):
        coursekit.bubble_fraction("a", 3)  # type: ignore[arg-type]

    def inner(x: int) -> int:
        return len(x)  # type: ignore[arg-type]

    with pytest.raises(TypeError, match="has no len"):
        learner_function(inner)(3)


def test_a_right_call_is_unchanged() -> None:
    # (p - 1) / (m + p - 1) with p = 4, m = 8: 3 / 11
    assert coursekit.bubble_fraction(4, 8) == pytest.approx(3 / 11)
    assert coursekit.bubble_fraction(stages=4, microbatches=8) == pytest.approx(3 / 11)


def test_one_wrapper_under_every_name() -> None:
    from coursekit import gates, pipeline, planner
    from coursekit.planner import search

    assert coursekit.bubble_fraction is pipeline.bubble_fraction
    assert coursekit.gate_memory is gates.gate_memory
    assert coursekit.plan is planner.plan
    assert planner.plan is search.plan or not hasattr(search, "plan")


def test_signature_and_doctests_stay_visible() -> None:
    from coursekit import pipeline

    wrapped = pipeline.bubble_fraction
    assert inspect.signature(wrapped) == inspect.signature(inspect.unwrap(wrapped))
    assert wrapped.__doc__ == inspect.unwrap(wrapped).__doc__
    found = {test.name for test in doctest.DocTestFinder().find(pipeline) if test.examples}
    assert "coursekit.pipeline.bubble_fraction" in found


def test_class_init_refuses_in_chinese(chinese: None) -> None:
    from coursekit.widgets.pipeline import PipelineWidget

    with pytest.raises(TypeError, match=r"^PipelineWidget (没有参数 'stagez'|不接受参数)"):
        PipelineWidget(stagez=4)  # type: ignore[call-arg]


def test_call_mistake_rules() -> None:
    def f(a: int, /, b: int, *, c: int = 0) -> None: ...

    signature = inspect.signature(f)
    assert call_mistake("f", signature, (1, 2), {}) is None
    assert call_mistake("f", signature, (1, 2, 3), {}) == "f takes at most 2 positional arguments (a, b), but got 3."
    assert call_mistake("f", signature, (), {"a": 1, "b": 2}) == "f takes the argument a by position only, not by name."
    assert call_mistake("f", signature, (1,), {}) == "f is missing the required argument b: the required ones are a, b."

    def g(*, c: int) -> None: ...

    assert (
        call_mistake("g", inspect.signature(g), (1,), {})
        == "g takes its arguments by name only (c), but got 1 argument by position."
    )
