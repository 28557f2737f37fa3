"""The helpers a module exposes without a leading underscore refuse bad input as its public functions do.

``test_fuzz_public.py`` fuzzes every name in a module's ``__all__``. A module also exposes array-generic helpers that
the vectorised search calls on whole columns (``coursekit.specs.stage_layer_counts``,
``coursekit.planner.estimate.ep_dispatched_tokens`` ...): they are not in ``__all__``, but their names carry no
underscore, their docstrings show how to call them, and a learner who reads the estimate's source calls them by hand.
This test replays the doctest calls of every such function with a docstring example, in a module whose own name has no
underscore, and repeats each call with one argument at a time replaced by an adversarial value: a call may succeed
or raise TypeError / ValueError in Chinese while the course speaks Chinese; any other exception fails. Before these
guards, 15 helpers failed it with AttributeError, ZeroDivisionError, OverflowError or numpy's English messages.
"""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import Any

import pytest
from test_fuzz_public import _calls, _modules, bad_call_failures

from coursekit.i18n import get_language, set_language

#: Modules whose helpers are tooling, not course code: the argument checks themselves (they are what raises the
#: messages), the command-line plumbing and the message catalog.
SKIPPED_MODULES = ("coursekit._validate", "coursekit._cli", "coursekit.i18n")


def _helpers() -> list[tuple[str, ModuleType, str]]:
    modules = _modules()
    exported = {id(getattr(m, n)) for m in modules for n in getattr(m, "__all__", ()) if hasattr(m, n)}
    found = []
    for module in modules:
        if module.__name__ in SKIPPED_MODULES or any(part.startswith("_") for part in module.__name__.split(".")):
            continue
        for name, value in list(vars(module).items()):
            if name.startswith("_") or not inspect.isfunction(value) or value.__module__ != module.__name__:
                continue
            if id(value) not in exported and ">>>" in (value.__doc__ or ""):
                found.append((f"{module.__name__}.{name}", module, name))
    return found


HELPERS = _helpers()


def test_the_helpers_are_found() -> None:
    names = {qualified for qualified, _, _ in HELPERS}
    assert {"coursekit.specs.stage_layer_counts", "coursekit.planner.estimate.ep_dispatched_tokens"} <= names
    assert len(HELPERS) >= 25


@pytest.mark.parametrize(("qualified", "module", "name"), HELPERS, ids=[h[0] for h in HELPERS])
def test_bad_arguments_get_a_chinese_type_or_value_error(qualified: str, module: ModuleType, name: str) -> None:
    before = get_language()
    failures: list[str] = []
    calls = 0
    try:
        for function, args, kwargs, slot in _calls(module, name, frozenset({name})):
            calls += 1
            failures += bad_call_failures(function, args, kwargs, slot)
    finally:
        set_language(before)
    if not calls:
        pytest.skip(f"{qualified}: its docstring examples call it only where the test cannot replay the call")
    assert not failures, f"{qualified}: {len(failures)} bad refusals, e.g.\n" + "\n".join(failures[:8])


def _sample_arguments(function: Any) -> dict[str, Any] | None:
    """Valid-looking keyword arguments for ``function`` from its annotations (a spec, a number, a string, a flag, a
    tuple of recompute modules), defaults where it has them; ``None`` when a parameter has neither."""
    from coursekit.planner import WorkloadSpec
    from coursekit.planner.estimate import Assumptions
    from coursekit.planner.gate_table import GateInput
    from coursekit.planner.space import training_space
    from coursekit.plotting import new_figure
    from coursekit.presets import CLUSTERS, MODELS
    from coursekit.published_runs import all_published_runs
    from coursekit.serving.search import evaluate_layout
    from coursekit.specs import ServingWorkload

    model, cluster = MODELS["mixtral-8x7b"], CLUSTERS["h100-8"].with_nodes(2)
    workload = WorkloadSpec(global_batch=64, seq_len=4096)
    serving = ServingWorkload(prompt_tokens=512, output_tokens=128, concurrency=16)
    samples = {
        "ModelSpec": model,
        "ClusterSpec": cluster,
        "WorkloadSpec": workload,
        "Mapping[str, Any]": {key: column[:50] for key, column in training_space(model, cluster, workload).items()},
        "Sequence[Assumptions]": [Assumptions.of(cluster, workload, 1.0, 1.0)],
        "Sequence[str]": ["plan", "--help"],
        "PublishedRun": all_published_runs()[0],
        "Figure": new_figure(2, 2),
        "GateInput": GateInput(model, cluster, workload, training_space(model, cluster, workload)),
        "ServingWorkload": serving,
        "ServingCandidate": evaluate_layout(model, cluster, serving, 2, 1),
        "str": "delayed",
        "int": 8,
        "float": 1.0,
        "bool": False,
        "Any": 1,
    }
    by_name = {"modules": ("layernorm",), "scenarios": ("efficiency_flatter",), "tp": 2, "pp": 1}
    arguments: dict[str, Any] = {}
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.default is not inspect.Parameter.empty:
            arguments[name] = parameter.default
            continue
        annotation = str(parameter.annotation)
        sample = by_name.get(name, next((value for key, value in samples.items() if annotation.startswith(key)), None))
        if sample is None:
            return None
        arguments[name] = sample
    return arguments


UNDOCUMENTED = [
    (qualified, module, name)
    for qualified, module, name in (
        (f"{m.__name__}.{n}", m, n)
        for m in _modules()
        if m.__name__ not in SKIPPED_MODULES
        and not any(p.startswith("_") for p in m.__name__.split("."))
        # command-line entry points (argparse exits on --help by design): their flags have their own fuzz tests
        and not m.__name__.startswith(
            ("coursekit.exercises", "coursekit.lessons_cli", "coursekit.planner.cli", "coursekit.setup_cli")
        )
        for n, f in list(vars(m).items())
        if not n.startswith("_")
        and inspect.isfunction(f)
        and f.__module__ == m.__name__
        and ">>>" not in (f.__doc__ or "")
    )
    if qualified not in {h[0] for h in HELPERS}
]


@pytest.mark.parametrize(("qualified", "module", "name"), UNDOCUMENTED, ids=[u[0] for u in UNDOCUMENTED])
def test_helpers_without_examples_refuse_bad_arguments(qualified: str, module: ModuleType, name: str) -> None:
    """The helpers without a docstring example, called with arguments built from their annotations, then with one
    argument at a time replaced by an adversarial value: TypeError or ValueError, never another exception."""
    function = getattr(module, name)
    arguments = _sample_arguments(function)
    if arguments is None:
        pytest.skip(f"{qualified}: a parameter has no default and no annotation the test can sample")
    before = get_language()
    failures: list[str] = []
    try:
        for key in arguments:
            failures += bad_call_failures(function, [], arguments, ("kw", key))
    finally:
        set_language(before)
    assert not failures, f"{qualified}: {len(failures)} bad refusals, e.g.\n" + "\n".join(failures[:8])


def test_a_column_guard_names_the_parameter_and_the_value() -> None:
    import numpy as np

    from coursekit.specs import stage_layer_counts

    before = get_language()
    try:
        set_language("en")
        with pytest.raises(ValueError, match=r"pp = 0: must be >= 1"):
            stage_layer_counts(61, 0)
        with pytest.raises(TypeError, match=r"pp = .*: must be an integer \(int\) or an array of numbers"):
            stage_layer_counts(61, np.array(["4", "8"]))
        with pytest.raises(ValueError, match=r"layers = 0: must be >= 1"):
            stage_layer_counts(0, np.array([4, 8]))
        first, _, _ = stage_layer_counts(61, np.array([4, 8]))  # integer columns pass through untouched
        assert first.tolist() == [16, 8]
    finally:
        set_language(before)
