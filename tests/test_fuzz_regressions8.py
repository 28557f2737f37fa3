"""Inputs an eighth adversarial fuzzing pass found wrong, each with the behaviour the project's rules ask for.

The rules: bad input is a ``TypeError`` / ``ValueError`` naming the parameter, the value and the rule in the learner's
language; a count or a width is an ``int`` (never a bool, never a float such as ``64.0``); ``True`` is not ``1``,
numpy's ``np.True_`` included; valid input gives sane output (a zero is printed as 0, not as "-0.0" or "-0%").
The expected values below follow from those rules, not from running the code.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from coursekit.i18n import get_language, set_language
from coursekit.planner import ModelSpec, WorkloadSpec, plan
from coursekit.presets import CLUSTERS, MODELS
from coursekit.serving import ServingWorkload, plan_serving
from coursekit.specs import ClusterSpec

ROOT = Path(__file__).resolve().parents[1]
CJK = re.compile(r"[\u4e00-\u9fff]")
#: A negative zero as text prints it: "-0.0", "-0%", "-0 " (never a real quantity of the course).
NEGATIVE_ZERO = re.compile(r"-0(?:\.0+)?(?![\d.])")


@pytest.fixture
def zh() -> Any:
    before = get_language()
    set_language("zh")
    yield
    set_language(before)


def _refusal(call: Any, kind: type[Exception]) -> str:
    with pytest.raises(kind) as info:
        call()
    return str(info.value)


# --------------------------------------------------------------------------- -0.0 is zero


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: WorkloadSpec(global_batch=16, runtime_reserve_gib=-0.0), "runtime_reserve_gib"),
        (lambda: WorkloadSpec(global_batch=16, overlap_fraction=-0.0), "overlap_fraction"),
        (lambda: WorkloadSpec(global_batch=16, overlap_tp=-0.0), "overlap_tp"),
        (lambda: WorkloadSpec(global_batch=16, moe_layer_host_s=-0.0), "moe_layer_host_s"),
        (lambda: ModelSpec("m", 2, 64, 4, 256, 100, 32, dropout=-0.0), "dropout"),
        (
            lambda: ServingWorkload(prompt_tokens=8, output_tokens=8, concurrency=1, runtime_reserve_gib=-0.0),
            "runtime_reserve_gib",
        ),
        (lambda: ClusterSpec("c", 1, 8, 80, 312e12, 300e9, 25e9, -0.0, 5e-6, 2e12), "intra_node_latency_s"),
    ],
)
def test_a_negative_zero_is_stored_as_zero(make: Any, field: str) -> None:
    """-0.0 passed every ">= 0" check and was kept, so reports printed "reserve -0.0 GiB" and "tp -0%"."""
    value = getattr(make(), field)
    assert value == 0 and math.copysign(1.0, value) == 1.0


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_of_a_zero_reserve_and_overlap_prints_no_minus_sign(lang: str) -> None:
    work = WorkloadSpec(global_batch=16, runtime_reserve_gib=-0.0, overlap_fraction=-0.0)
    result = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], work)
    set_language(lang)
    try:
        assumptions = result.report(top=1).splitlines()[1]
    finally:
        set_language("en")
    assert not NEGATIVE_ZERO.search(assumptions), assumptions
    assert "0%" in assumptions  # the overlap, zero, is still said


def test_the_command_line_prints_a_zero_given_as_minus_zero_as_zero() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", "--model", "gpt2-small", "--cluster", "a100-8",
         "--global-batch", "16", "--top", "1", "--reserve-gib", "-0", "--overlap", "-0.0"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert not NEGATIVE_ZERO.search(run.stdout), run.stdout[:2000]


# --------------------------------------------------------------------------- ModelSpec: widths are ints


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("qk_rope_head_dim", 0.0),  # equal to the default 0, but no width
        ("qk_rope_head_dim", False),
        ("qk_rope_head_dim", -0.0),
        ("qk_nope_head_dim", 64.0),  # equal to head_dim (1024 / 16), but a float
        ("v_head_dim", np.float32(64.0)),
    ],
)
def test_a_non_mla_model_refuses_a_float_or_bool_head_width(field: str, value: Any) -> None:
    """Before, a value equal to the default (0 or head_dim) was accepted without its type being checked and stored:
    ``ModelSpec(..., qk_nope_head_dim=64.0).qk_nope_head_dim`` was the float 64.0."""
    message = _refusal(lambda: ModelSpec("m", 2, 1024, 16, 4096, 1000, 128, **{field: value}), TypeError)
    assert f"{field} = " in message and "int" in message


def test_true_is_not_a_head_width_of_one(zh: Any) -> None:
    # hidden 16 over 16 heads: head_dim 1, which True equalled; the message is in the learner's language
    message = _refusal(lambda: ModelSpec("m", 2, 16, 16, 64, 100, 8, v_head_dim=True), TypeError)
    assert "v_head_dim = True" in message and CJK.search(message)


def test_an_int_head_width_equal_to_the_default_is_still_accepted() -> None:
    m = ModelSpec("m", 2, 1024, 16, 4096, 1000, 128, qk_nope_head_dim=np.int64(64), qk_rope_head_dim=0)
    assert (m.qk_nope_head_dim, m.qk_rope_head_dim) == (64, 0)
    assert type(m.qk_nope_head_dim) is int


# --------------------------------------------------------------------------- result methods check their arguments


@pytest.fixture(scope="module")
def serving_result() -> Any:
    workload = ServingWorkload(prompt_tokens=100, output_tokens=10, concurrency=3)
    return plan_serving(MODELS["llama3-8b"], CLUSTERS["h100-8"], workload)


@pytest.mark.parametrize("method", ["report", "to_dict"])
@pytest.mark.parametrize(("top", "error"), [(2.0, TypeError), ("1", TypeError), (True, TypeError), (-1, ValueError)])
def test_serving_result_refuses_a_top_that_is_no_count(
    serving_result: Any, method: str, top: Any, error: type[Exception]
) -> None:
    """Before: 2.0 and "1" raised Python's "slice indices must be integers" (no name, English under zh), True was
    read as 1, and -1 silently left the last layout out."""
    message = _refusal(lambda: getattr(serving_result, method)(top=top), error)
    assert message.startswith(f"top = {top!r}")


def test_serving_result_names_top_in_chinese(serving_result: Any, zh: Any) -> None:
    message = _refusal(lambda: serving_result.report(top=2.0), TypeError)
    assert "top = 2.0" in message and CJK.search(message)


@pytest.mark.parametrize("value", ["no", 1, None])
def test_include_rejected_is_a_bool(serving_result: Any, value: Any) -> None:
    """Any truthy value, "no" included, added every rejected layout; a falsy one left them out."""
    training = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))
    for result in (serving_result, training):
        message = _refusal(lambda result=result: result.to_dict(include_rejected=value), TypeError)
        assert f"include_rejected = {value!r}" in message
    # the two bools still work, numpy's too
    assert "rejected" in serving_result.to_dict(include_rejected=np.True_)
    assert "rejected" not in json.loads(json.dumps(training.to_dict(include_rejected=False)))


# --------------------------------------------------------------------------- numpy's bools


def test_a_numpy_bool_is_a_bool() -> None:
    """check_bool refused np.True_ with "must be True or False, not bool": a message contradicting itself."""
    result = plan(MODELS["gpt2-small"], CLUSTERS["a100-8"], WorkloadSpec(global_batch=16))
    assert result.explain_ties(1, every_member=np.True_) == result.explain_ties(1, every_member=True)


@pytest.mark.parametrize(("argument", "value"), [("dp", np.True_), ("tp", np.True_), ("zero_stage", np.False_)])
def test_a_widget_option_is_not_a_numpy_bool(argument: str, value: Any) -> None:
    """A dropdown refused True for the option 1 (True is not 1) but took np.True_ as 1 and np.False_ as 0."""
    pytest.importorskip("ipywidgets")
    from coursekit.widgets.capacity import CapacityWidget

    message = _refusal(lambda: CapacityWidget(**{argument: value}), ValueError)
    assert message.startswith(f"{argument} = ")


# --------------------------------------------------------------------------- the lab's Python API


def _no_spawn(monkeypatch: Any) -> None:
    """Make spawning ranks fail loudly, so old code asked for 1000 ranks fails the test instead of starting them."""
    import coursekit.lab._dist as dist

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"ranks were spawned for {args[1]!r} ranks")

    monkeypatch.setattr(dist, "run_distributed", refuse)
    monkeypatch.delenv("WORLD_SIZE", raising=False)  # not under torchrun: the lab spawns the ranks itself


@pytest.mark.parametrize(
    "run", ["run_collectives", "run_memory", "run_timeline", "record_lesson", "collective_outputs"]
)
def test_the_lab_api_refuses_more_ranks_than_it_may_spawn(monkeypatch: Any, run: str) -> None:
    """The command line stops --ranks at 64 (each rank a process importing PyTorch); the Python API took any count
    and spawned them all (ranks=1000: a thousand PyTorch processes)."""
    import coursekit.lab as lab
    from coursekit.lab.cli import FORCED_RANKS_CEILING

    _no_spawn(monkeypatch)
    message = _refusal(lambda: getattr(lab, run)(ranks=1000), ValueError)
    assert message.startswith("ranks = 1000") and str(FORCED_RANKS_CEILING) in message


def test_the_lab_rank_limit_is_said_in_chinese(monkeypatch: Any, zh: Any) -> None:
    from coursekit.lab import run_collectives

    _no_spawn(monkeypatch)
    message = _refusal(lambda: run_collectives(ranks=65), ValueError)
    assert "ranks = 65" in message and CJK.search(message)


@pytest.mark.parametrize("function", ["expected_output", "verification_input"])
def test_the_known_tensors_stop_where_float32_stops_being_exact(function: str) -> None:
    """expected_output built ranks lists of 3·ranks floats: ranks=10**6 raised MemoryError (or the machine killed the
    process). Rank r feeds 1000·r + i (i < 3·ranks); all_reduce's largest sum, 1000·n(n-1)/2 + n(3n-1), is
    16,753,284 at n = 183 and 16,937,384 at n = 184, past 2**24 = 16,777,216, the last integer float32 holds with all
    its neighbours."""
    import coursekit.lab as lab

    check = getattr(lab, function)
    assert len(check("all_reduce", 183, 0)) == 3 * 183
    for ranks in (184, 10**6):
        message = _refusal(lambda ranks=ranks: check("all_reduce", ranks, 0), ValueError)
        assert message.startswith(f"ranks = {ranks}") and "183" in message
    assert max(lab.expected_output("all_reduce", 183, 0)) == 1000 * 183 * 182 // 2 + 183 * (3 * 183 - 1) <= 2**24


@pytest.mark.parametrize("value", [3, None, "fit", {"kind": "all_reduce"}])
def test_crossover_bytes_names_a_fit_that_is_not_one(value: Any) -> None:
    """Before: AttributeError ('int' object has no attribute 'kind')."""
    from coursekit.lab import crossover_bytes

    message = _refusal(lambda: crossover_bytes(value), TypeError)
    assert message.startswith("fit = ") and "AlphaBetaFit" in message


def _two_rank_baseline() -> Any:
    from coursekit.lab import Scenario, ScenarioResult, StepBreakdown

    def flat(rank: int) -> Any:  # 80 ms compute, 40 ms communication of which 10 ms hidden, 20 ms other
        return StepBreakdown(rank, 0.13, 0.08, 0.04, 0.01, 0.03, 0.0, 0.0, 0.02)

    return ScenarioResult("ddp", Scenario("baseline"), ((flat(0),), (flat(1),)))


@pytest.mark.parametrize("slow_rank", [2, 5])
def test_predict_names_a_slow_rank_the_baseline_does_not_have(slow_rank: int) -> None:
    """Before: IndexError (list index out of range) from the baseline's two ranks."""
    from coursekit.lab import Scenario, predict

    scenario = Scenario("slow_rank", slow_rank=slow_rank, slow_factor=3.0)
    message = _refusal(lambda: predict(_two_rank_baseline(), scenario), ValueError)
    assert message.startswith(f"slow_rank = {slow_rank}") and "1" in message  # the last rank of two is 1


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("name", "bogus", ValueError),
        ("slow_rank", -1, ValueError),  # indexed the last rank from the end
        ("slow_factor", math.nan, ValueError),  # predicted a NaN compute, blamed on compute_s
        ("slow_factor", 1e6, ValueError),  # the command line and scenarios_for stop at 20
        ("input_delay_s", -0.5, ValueError),
        ("input_delay_s", math.inf, ValueError),
        ("overlap", "no", TypeError),  # a truthy string read as overlap on
    ],
)
def test_a_scenario_checks_its_fields(field: str, value: Any, error: type[Exception]) -> None:
    """Scenario took any value; predict then raised IndexError, returned a NaN-born error naming another argument,
    or silently used the wrong rank."""
    from coursekit.lab import Scenario

    base = {"name": "slow_rank", "slow_rank": 1, "slow_factor": 3.0}
    message = _refusal(lambda: Scenario(**{**base, field: value}), error)
    assert message.startswith(f"{field} = ")


def test_predict_still_predicts_a_slow_rank() -> None:
    from coursekit.lab import Scenario, predict

    slow = predict(_two_rank_baseline(), Scenario("slow_rank", slow_rank=1, slow_factor=3.0))
    # per-rank compute (compute + other) 0.10 s; rank 1 computes 3x: 0.10 and 0.30, mean 0.20
    assert math.isclose(slow.compute_s, 0.20)


# --------------------------------------------------------------------------- no English inside a Chinese message


@pytest.mark.parametrize(
    ("make", "shown"),
    [
        (lambda: CLUSTERS["h100-8"].with_nodes(131072), "(nodes × gpus_per_node) = 1048576"),  # 8 per node
        (lambda: WorkloadSpec(global_batch=8, zero_stages=(0, 9)), "zero_stages"),
        (lambda: WorkloadSpec(global_batch=8, recompute_modes=("none", "x")), "recompute_modes"),
    ],
)
def test_a_derived_name_is_said_in_chinese(make: Any, shown: str, zh: Any) -> None:
    """The names "world size (nodes × gpus_per_node)" and "zero_stages item" were English words inside the zh
    message (the CLI printed "错误：world size (nodes × gpus_per_node) = 1048576：必须 <= 131072。")."""
    message = _refusal(make, ValueError)
    assert shown in message
    words = re.findall(r"[A-Za-z_]{3,}", message)
    assert set(words) <= {
        "nodes",
        "gpus_per_node",
        "zero_stages",
        "recompute_modes",
        "none",
        "selective",
        "full",
        "offload",
    }
    assert "world" not in message and "item" not in message


def test_a_rank_out_of_range_in_groups_is_said_in_chinese(zh: Any) -> None:
    import coursekit

    message = _refusal(lambda: coursekit.map_groups_to_nodes(groups={"TP": [[0, -1]]}, gpus_per_node=2), ValueError)
    assert "groups['TP']" in message and "-1" in message and "rank in" not in message and CJK.search(message)


def test_the_command_line_says_the_world_size_limit_in_chinese() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "coursekit", "plan", "--model", "gpt2-small", "--cluster", "h100-8",
         "--global-batch", "8", "--nodes", "131072", "--lang", "zh"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 2 and "Traceback" not in run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "1048576" in last and "131072" in last and "world size" not in last
