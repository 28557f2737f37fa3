"""The tie scenarios in one estimate equal one estimate per scenario, bit for bit.

:func:`coursekit.planner.ties.scenario_steps` tiles the candidate columns once per scenario and hands the
estimate each block's assumptions as per-row arrays (:class:`coursekit.planner.estimate.Assumptions`). The
reference here is the plain computation: for each scenario, the specs :func:`coursekit.planner.ties._scenario_specs`
moves and one :func:`coursekit.planner.estimate.training_estimate` over the untiled columns. Bitwise, not
approximately: the tie rule compares step times at 1e-9, so the one pass must not move a last bit.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from coursekit.planner import WorkloadSpec, plan
from coursekit.planner.calibration import ASSUMPTION_UNCERTAINTY, MOE_LAYER_HOST_S
from coursekit.planner.estimate import DISTINCT_MIN_ROWS, Assumptions, training_estimate
from coursekit.planner.ties import SCENARIOS, _scenario_specs, scenario_steps
from coursekit.presets import CLUSTERS, MODELS

CASES = (
    ("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024)),
    ("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024, overlap_tp=15 / 16, overlap_ep=0.5)),
    ("mixtral-8x7b", "a100-8", 4, WorkloadSpec(global_batch=256, seq_len=4096)),
    ("llama3-8b", "a100-8", 2, WorkloadSpec(global_batch=64, overlap_fraction=0.5)),
    ("llama3-8b", "a100-8", 2, WorkloadSpec(global_batch=64, achievable_flops_fraction=0.4)),
    ("llama3-405b", "h100-8", 64, WorkloadSpec(global_batch=512, seq_len=32768, precision="fp8")),
    # LoRA (the trained adapters' own gradients) and DualPipe (its own bubble): the parts the scenarios share
    ("llama3-70b", "h100-8", 4, WorkloadSpec(global_batch=256, lora_rank=16)),
    ("mixtral-8x7b", "h100-8", 8, WorkloadSpec(global_batch=256, seq_len=4096, ep_overlap_schedule="dualpipe")),
)


def _per_scenario(model: Any, cluster: Any, workload: Any, columns: dict[str, Any]) -> dict[str, Any]:
    """One estimate per scenario, on the specs the scenario moves."""
    out = {}
    for code, assumption in SCENARIOS:
        if assumption == "efficiency" and workload.achievable_flops_fraction is not None:
            continue
        c2, w2, shape = _scenario_specs(code, cluster, workload)
        bubble = 1 - ASSUMPTION_UNCERTAINTY["pipeline"] if code == "bubble_lower" else 1.0
        if code in ("host_lower", "host_higher"):  # the host's launch time per MoE layer, stated on the workload
            host_s = MOE_LAYER_HOST_S if workload.moe_layer_host_s is None else workload.moe_layer_host_s
            sign = -1 if code == "host_lower" else 1
            w2 = replace(w2, moe_layer_host_s=(1 + sign * ASSUMPTION_UNCERTAINTY["host"]) * host_s)
        est = training_estimate(model, c2, w2, columns, efficiency_shape=shape, bubble_scale=bubble, with_memory=False)
        out[code] = est["step_s"]
    return out


@pytest.mark.parametrize(("model", "cluster", "nodes", "workload"), CASES)
def test_one_pass_equals_one_estimate_per_scenario(model: str, cluster: str, nodes: int, workload: Any) -> None:
    result = plan(MODELS[model], CLUSTERS[cluster].with_nodes(nodes), workload)
    accepted = np.asarray(result.accepted_indices())
    # one row and a few (each term on every row), and many (terms on distinct rows, tiled or not)
    for count in (1, 2, 3, DISTINCT_MIN_ROWS // 7 + 1, DISTINCT_MIN_ROWS + 5):
        rows = accepted[np.linspace(0, len(accepted) - 1, count).astype(int)] if len(accepted) >= count else accepted
        columns = {name: column[rows] for name, column in result._table.columns.items()}
        one_pass = scenario_steps(result.model, result.cluster, result.workload, columns)
        reference = _per_scenario(result.model, result.cluster, result.workload, columns)
        assert list(one_pass) == list(reference)
        for code, steps in reference.items():
            assert np.array_equal(one_pass[code], steps), (model, code, count)
        # the scenarios move the step: a one pass that lost a scenario's values would not match this
        assert len({tuple(steps.tolist()) for steps in reference.values()}) > 1


def test_default_assumptions_are_the_specs_own() -> None:
    """An estimate given the cluster's and workload's own assumptions is the estimate without them."""
    result = plan(MODELS["mixtral-8x7b"], CLUSTERS["a100-8"].with_nodes(4), WorkloadSpec(global_batch=256))
    model, cluster, workload = result.model, result.cluster, result.workload
    columns = {name: column[result.accepted_indices()] for name, column in result._table.columns.items()}
    plain = training_estimate(model, cluster, workload, columns, with_memory=False)
    stated = Assumptions.of(cluster, workload)
    rows = len(columns["tp"])
    stacked = Assumptions.stacked(np, [stated], rows)
    for assumptions in (stated, stacked):
        est = training_estimate(model, cluster, workload, columns, with_memory=False, assumptions=assumptions)
        assert np.array_equal(est["step_s"], plain["step_s"])
        assert np.array_equal(est["exposed_s"], plain["exposed_s"])


def test_groups_led_by_the_first_few_are_the_whole_grouping_s() -> None:
    """``robust_tie_groups(..., leaders=k)`` forms only the groups the first k lead; they and their reasons are
    those of the whole grouping (groups are formed fastest first, from what the ones before left)."""
    from coursekit.planner.ties import robust_tie_groups

    result = plan(MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(16), WorkloadSpec(global_batch=1024))
    order = np.asarray(result.accepted_indices())
    base = np.asarray([result.estimated_step_s(int(i)) for i in order])
    columns = {name: column[order] for name, column in result._table.columns.items()}
    scenarios = scenario_steps(result.model, result.cluster, result.workload, columns)
    groups, why = robust_tie_groups(base, scenarios, 0.2)
    assert len(groups) > 5
    for leaders in (0, 1, 5, 40, len(base)):
        some, some_why = robust_tie_groups(base, scenarios, 0.2, leaders=leaders)
        assert some == [group for group in groups if group[0] < leaders]
        assert some_why == {pos: why[pos] for group in some for pos in group[1:]}
    with pytest.raises(ValueError, match="leaders"):
        robust_tie_groups(base, scenarios, 0.2, leaders=-1)
