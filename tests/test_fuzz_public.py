"""Every public function refuses bad input with a TypeError or ValueError in the learner's language.

Each public name's doctest examples are the valid calls: this test replays them, then repeats every call with
one argument at a time replaced by an adversarial value (None, negatives, NaN, infinities, huge numbers,
empty and nonsense strings, booleans, containers, arrays, a bare object). A call may succeed (the value can be
legal) or raise TypeError / ValueError whose message is in Chinese while the course speaks Chinese; any other
exception (AttributeError, IndexError, OverflowError, ...) or a call running past a few seconds fails.

The lab (PyTorch processes) and the widgets (ipywidgets) have their own boundary tests.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import io
import pkgutil
import re
import signal
import warnings
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import coursekit
from coursekit.i18n import get_language, set_language

CJK = re.compile(r"[\u4e00-\u9fff]")
#: Seconds one adversarial call may take (a hang, not a timing assertion: valid calls take milliseconds).
HANG_S = 10
SKIPPED_PACKAGES = (".lab", ".widgets", ".exercises.lesson8")
BAD: tuple[Any, ...] = (
    None,
    -1,
    0,
    float("nan"),
    float("inf"),
    -float("inf"),
    1e308,
    10**400,
    "",
    "zz",
    True,
    [],
    {},
    2**63,
    np.array([1.0, -1.0]),
    np.array([]),
    object(),
)


#: Valid calls of public functions whose docstrings show none (the same replay as a doctest example).
EXTRA_EXAMPLES: dict[str, tuple[str, ...]] = {
    "coursekit.exercises.check": ('check("q2.tp_calls", 1152)',),
    # fuzz pass 27: a dict of dicts of answers (lesson 5's matrix), with labels and entries
    "coursekit.exercises.check_entries": (
        'check_entries({1: {"DP": "feasible"}}, {1: {"DP": "matrix.case1_dp", "TP": "matrix.case1_tp"}}, '
        'name="my_matrix", labels={1: {"DP": "Case 1, DP"}}, entries={1: {"DP": \'"DP": \'}})',
    ),
    "coursekit.exercises.get_exercise": ('get_exercise("q2.tp_calls")',),
    "coursekit.exercises.show_solution": ('show_solution("q2.tp_calls")',),
    "coursekit.exercises.input_help.input_hint": (
        'input_hint(SyntaxError("invalid syntax", ("<cell>", 1, 10, "answer = 5.4%")), "answer = 5.4%")',
        'input_hint(NameError("name \'B\' is not defined", name="B"), "answer = B")',
    ),
    "coursekit.exercises.input_help.install": ("install(None)",),
    "coursekit.exercises.input_help.chinese_number_text": ('chinese_number_text("三十一点四")',),
    "coursekit.figure_alt.describe_figure": (
        "from coursekit.plotting import new_figure",
        'describe_figure(new_figure(2, 2), lang="zh")',
    ),
    "coursekit.lessons.lesson": ("lesson(1)",),
    "coursekit.setup_cli.startup_text": ('startup_text("/tmp/course-clone")',),
    "coursekit.pipeline.warmup_microbatches": ('warmup_microbatches(4, 8, 0, schedule="1f1b", virtual_stages=1)',),
    "coursekit.roofline.matmul_bytes": ("matmul_bytes(2, 3, 4, bytes_per_element=2)",),
    "coursekit.roofline.matmul_flops": ("matmul_flops(2, 3, 4)",),
    "coursekit.roofline.ridge_point_flop_per_byte": ("ridge_point_flop_per_byte(312e12, 2.0e12)",),
    "coursekit.planner.validation.compare_published": (
        "from coursekit.presets import PUBLISHED_RUNS",
        "compare_published(PUBLISHED_RUNS[-1])",
    ),
}


def _modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(coursekit.__path__, "coursekit.")]
    chosen = [name for name in names if not any(part in name for part in SKIPPED_PACKAGES)]
    return [coursekit, *(importlib.import_module(name) for name in chosen)]


def _public_functions() -> Iterator[tuple[str, ModuleType, str]]:
    for module in _modules():
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name, None)
            if callable(value) and getattr(value, "__module__", "") == module.__name__:
                yield f"{module.__name__}.{name}", module, name


class _Hang(Exception):
    pass


def _raise_hang(*_: Any) -> None:
    raise _Hang


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _raise_hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _evaluate(node: ast.expr, namespace: dict[str, Any]) -> Any:
    return eval(compile(ast.Expression(node), "<doctest>", "eval"), namespace)


def _calls(
    module: ModuleType, name: str, names: frozenset[str] | None = None
) -> Iterator[tuple[Any, list[Any], dict[str, Any], tuple[str, Any]]]:
    """(function, args, kwargs, slot) for every call of a public name (or of a name in ``names``) in ``name``'s
    doctests, after running the examples before it; ``slot`` is ("arg", index) or ("kw", keyword) of the argument
    to replace."""
    public = set(getattr(module, "__all__", ())) if names is None else set(names)
    tests = doctest.DocTestFinder(recurse=False).find(getattr(module, name), name, globs=dict(vars(module)))
    examples = [[example.source for example in test.examples] for test in tests]
    extra = EXTRA_EXAMPLES.get(f"{module.__name__}.{name}")
    if extra:
        examples.append(list(extra))
    for sources in examples:
        namespace = dict(vars(module))
        for source in sources:
            with contextlib.suppress(BaseException), contextlib.redirect_stdout(io.StringIO()), _deadline(HANG_S):
                exec(compile(source, "<doctest>", "exec"), namespace)
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                called = node.func
                called_name = called.id if isinstance(called, ast.Name) else getattr(called, "attr", None)
                if called_name not in public or any(isinstance(a, ast.Starred) for a in node.args):
                    continue
                try:
                    function = _evaluate(called, namespace)
                    args = [_evaluate(a, namespace) for a in node.args]
                    kwargs = {k.arg: _evaluate(k.value, namespace) for k in node.keywords if k.arg}
                except Exception:
                    continue
                slots: list[tuple[str, Any]] = [("arg", i) for i in range(len(args))]
                slots += [("kw", key) for key in kwargs]
                for slot in slots:
                    yield function, list(args), dict(kwargs), slot


FUNCTIONS = list(_public_functions())


def test_every_extra_example_names_a_public_function() -> None:
    assert set(EXTRA_EXAMPLES) <= {qualified for qualified, _, _ in FUNCTIONS}


def bad_call_failures(function: Any, args: list[Any], kwargs: dict[str, Any], slot: tuple[str, Any]) -> list[str]:
    """The call ``function(*args, **kwargs)`` with its ``slot`` (("arg", index) or ("kw", keyword)) replaced by each
    :data:`BAD` value, the course speaking Chinese: what went wrong (an English TypeError / ValueError, any other
    exception, a hang); empty when every call succeeded or was refused in Chinese (or, for a command-line entry, by
    argparse's exit status 2)."""
    kind, key = slot
    failures: list[str] = []
    for bad in BAD:
        call_args, call_kwargs = list(args), dict(kwargs)
        if kind == "arg":
            call_args[key] = bad
        else:
            call_kwargs[key] = bad
        set_language("zh")
        shown = f"{getattr(function, '__name__', function)}({kind} {key} = {bad!r:.40})"
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), _deadline(HANG_S):
                warnings.simplefilter("ignore")
                function(*call_args, **call_kwargs)
        except (TypeError, ValueError) as error:
            if not CJK.search(str(error)):
                failures.append(f"{shown}: English message {str(error)[:100]!r}")
        except _Hang:
            failures.append(f"{shown}: still running after {HANG_S} s")
        except SystemExit as stop:  # a command's argparse refusal (status 2, its message printed) is its protocol
            if stop.code != 2:
                failures.append(f"{shown}: SystemExit {stop.code!r}")
        except Exception as error:  # any other exception is a failure
            failures.append(f"{shown}: {type(error).__name__}: {str(error)[:100]}")
    return failures


@pytest.mark.parametrize(("qualified", "module", "name"), FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_bad_arguments_get_a_chinese_type_or_value_error(qualified: str, module: ModuleType, name: str) -> None:
    before = get_language()
    failures: list[str] = []
    try:
        for function, args, kwargs, slot in _calls(module, name):
            failures += bad_call_failures(function, args, kwargs, slot)
    finally:
        set_language(before)
    assert not failures, f"{qualified}: {len(failures)} bad refusals, e.g.\n" + "\n".join(failures[:8])


#: Public functions of modules that list no ``__all__`` (so :func:`_public_functions` does not find them), each with
#: a valid call's arguments: the same sweep, one argument at a time.
UNLISTED: tuple[tuple[str, tuple[Any, ...]], ...] = (("coursekit.i18n.nonzero", (0.0004, ".0%")),)


@pytest.mark.parametrize(("qualified", "args"), UNLISTED, ids=[u[0] for u in UNLISTED])
def test_unlisted_public_functions_refuse_in_chinese_too(qualified: str, args: tuple[Any, ...]) -> None:
    module_name, _, name = qualified.rpartition(".")
    function = getattr(importlib.import_module(module_name), name)
    before = get_language()
    try:
        failures = [f for i in range(len(args)) for f in bad_call_failures(function, list(args), {}, ("arg", i))]
    finally:
        set_language(before)
    assert not failures, f"{qualified}: {len(failures)} bad refusals, e.g.\n" + "\n".join(failures[:8])


#: Public functions that write files (``python -m coursekit setup``), each with a valid call's arguments: the same
#: sweep, run in a temporary folder with IPython's folder (``IPYTHONDIR``) there too, so a bad value that is a valid
#: path ("zz", or ``[]`` as an empty command line) writes nowhere else.
WRITING: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("coursekit.setup_cli.install_startup", ("ipython",)),
    ("coursekit.setup_cli.main", (["--ipython-dir", "ipython"],)),
)


@pytest.mark.parametrize(("qualified", "args"), WRITING, ids=[w[0] for w in WRITING])
def test_writing_public_functions_refuse_in_chinese_too(
    qualified: str, args: tuple[Any, ...], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "default-ipython"))
    module_name, _, name = qualified.rpartition(".")
    function = getattr(importlib.import_module(module_name), name)
    before = get_language()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            failures = [f for i in range(len(args)) for f in bad_call_failures(function, list(args), {}, ("arg", i))]
    finally:
        set_language(before)
    assert not failures, f"{qualified}: {len(failures)} bad refusals, e.g.\n" + "\n".join(failures[:8])
