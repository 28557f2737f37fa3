"""Validate once, at the public boundary: count the validator calls of whole operations with a profiler.

A validator call is a call of a ``check_*`` function of :mod:`coursekit._validate` or of the finite-result
guard that :func:`coursekit._validate.finite_result` wraps around a public formula. Internal calls go to
unvalidated kernels, so one widget update or one search checks its inputs a handful of times, not thousands.
"""

from __future__ import annotations

import collections
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

import coursekit._validate as validate_module
from coursekit.communication import collective_cost
from coursekit.planner import WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload, plan_serving

VALIDATE_FILE = validate_module.__file__
#: The issue's targets: at most 100 validator calls for one workbench update and for one serving plan.
MAX_CALLS = 100


@contextmanager
def counting() -> Iterator[collections.Counter[str]]:
    """Count validator calls (by function name) made inside the block."""
    counts: collections.Counter[str] = collections.Counter()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        code = frame.f_code
        if event == "call" and code.co_filename == VALIDATE_FILE:
            if code.co_name.startswith("check_") or code.co_name == "guarded":
                counts[code.co_name] += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield counts
    finally:
        sys.setprofile(previous)


def calls_of(action: Callable[[], Any]) -> int:
    with counting() as counts:
        action()
    return sum(counts.values())


def test_the_counter_sees_validator_calls() -> None:
    with counting() as counts:
        validate_module.check_int("n", 3, ge=1)
        validate_module.check_number("x", 1.5, ge=0)
    assert counts == {"check_int": 1, "check_number": 1}


def test_collective_cost_checks_each_argument_once() -> None:
    with counting() as counts:
        collective_cost("all_reduce", payload_bytes=1e9, ranks=8, bandwidth_bytes_per_s=100e9, latency_s=5e-6)
    # kind, payload, ranks, bandwidth, latency: five checks and the finite-result guard; bus_bandwidth_factor
    # is not asked to check kind and ranks again.
    assert counts == {"check_choice": 1, "check_number": 3, "check_int": 1, "guarded": 1}


@pytest.fixture(scope="module")
def workbench() -> Any:
    from coursekit.widgets.workbench import WorkbenchWidget

    return WorkbenchWidget()


def test_one_workbench_update_in_training(workbench: Any) -> None:
    assert calls_of(lambda: setattr(workbench.controls["nodes"], "value", 8)) <= MAX_CALLS
    assert calls_of(lambda: setattr(workbench.controls["nodes"], "value", 16)) <= MAX_CALLS


def test_one_workbench_update_into_serving(workbench: Any) -> None:
    try:
        assert calls_of(lambda: setattr(workbench.controls["mode"], "value", "serving")) <= MAX_CALLS
    finally:
        workbench.controls["mode"].value = "training"


def test_one_serving_plan() -> None:
    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16)
    workload = ServingWorkload(prompt_tokens=2048, output_tokens=256, concurrency=64)
    assert calls_of(lambda: plan_serving(model, cluster, workload)) <= MAX_CALLS
    rated = ServingWorkload(prompt_tokens=2048, output_tokens=256, request_rate_per_s=20.0)
    assert calls_of(lambda: plan_serving(model, cluster, rated)) <= MAX_CALLS
    serving = WorkloadSpec(global_batch=64, seq_len=2048, mode="serving")
    assert calls_of(lambda: plan(model, cluster, serving).accepted(5)) <= MAX_CALLS


def test_one_training_plan_and_its_top_candidates() -> None:
    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16)
    assert calls_of(lambda: plan(model, cluster, WorkloadSpec(global_batch=1024)).accepted(5)) <= MAX_CALLS


def test_tie_scenarios_copy_specs_as_the_checked_replace_would() -> None:
    """The scenarios skip the specs' checks; their copies must equal ``dataclasses.replace``'s (which checks)."""
    import dataclasses

    from coursekit.planner.ties import SCENARIOS, _scenario_specs

    cluster = CLUSTERS["h100-8"].with_nodes(4)
    for workload in (WorkloadSpec(global_batch=512), WorkloadSpec(global_batch=512, overlap_fraction=0.5)):
        for code, _assumption in SCENARIOS:
            c2, w2, _shape = _scenario_specs(code, cluster, workload)
            for copied in (c2, w2):
                checked = dataclasses.replace(copied)  # runs __post_init__: checks and normalises every field
                assert copied == checked, code
                for field in dataclasses.fields(copied):
                    assert type(getattr(copied, field.name)) is type(getattr(checked, field.name)), (code, field.name)


def test_replace_valid_refuses_an_unknown_field() -> None:
    from coursekit.specs import _replace_valid

    with pytest.raises(TypeError, match="overlap_xx"):
        _replace_valid(WorkloadSpec(global_batch=8), overlap_xx=0.5)


def test_the_planners_unchecked_timelines_pass_the_checked_constructor() -> None:
    """The search builds its candidates' timelines without the field-by-field check (validated once, at the public
    boundary); each must be one the checked constructor takes and builds equal: every field a number of seconds at
    least 0 and the sums holding."""
    import dataclasses

    from coursekit.scaling import StepTimeline

    model, cluster = MODELS["mixtral-8x7b"], CLUSTERS["h100-8"].with_nodes(8)
    for workload in (WorkloadSpec(global_batch=512), WorkloadSpec(global_batch=64, seq_len=2048, mode="serving")):
        for candidate in plan(model, cluster, workload).accepted(5):
            timeline = candidate.timeline
            assert timeline is not None
            checked = StepTimeline(**{f.name: getattr(timeline, f.name) for f in dataclasses.fields(StepTimeline)})
            assert checked == timeline
