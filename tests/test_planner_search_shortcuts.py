"""The search's shortcuts give the numbers the plain computation gives.

The search computes a term of a few columns once per distinct combination of those columns and broadcasts it
back (:func:`coursekit.planner.estimate.on_distinct`), estimates the memory of well-formed candidates only and the
step of accepted ones only, and lists accepted candidates from its own estimate. Each test here computes the same
numbers the plain way — every row on its own, or the term on every row — and asks for the same values.
"""

from __future__ import annotations

import numpy as np
import pytest

from coursekit.planner import ClusterSpec, ModelSpec, WorkloadSpec, evaluate_composition, plan
from coursekit.planner.estimate import DISTINCT_MIN_ROWS, distinct_rows, on_distinct, training_estimate
from coursekit.planner.space import training_space
from coursekit.presets import CLUSTERS, MODELS


def test_distinct_rows_number_every_combination_once() -> None:
    rng = np.random.default_rng(7)
    a, b = rng.integers(1, 9, 5000), rng.integers(0, 3, 5000)
    c = rng.integers(0, 1 << 40, 5000)  # too large to count: numbered by sorting
    rows, inverse = distinct_rows(np, a, b, c)
    combos = {(int(x), int(y), int(z)) for x, y, z in zip(a, b, c, strict=True)}
    assert len(rows) == len(combos) == len({(int(a[r]), int(b[r]), int(c[r])) for r in rows})
    for column in (a, b, c):
        assert np.array_equal(column[rows][inverse], column)


def test_distinct_rows_of_many_columns_list_each_combination_last_row_in_order() -> None:
    rng = np.random.default_rng(5)
    n = 6000
    # small values whose digits overflow the counting limit together, a negative column and a large one
    columns = [rng.integers(0, 64, n), rng.integers(0, 300, n), rng.integers(-3, 3, n), rng.integers(0, 5, n)]
    columns.append(rng.integers(0, 1 << 20, n) * (rng.random(n) < 0.01))
    rows, inverse = distinct_rows(np, *columns)
    keys = [tuple(int(column[i]) for column in columns) for i in range(n)]
    last = {key: i for i, key in enumerate(keys)}
    assert rows.tolist() == [last[key] for key in sorted(last)]  # ascending combinations, each its last row
    assert [keys[i] for i in rows[inverse].tolist()] == keys


def test_on_distinct_equals_the_term_on_every_row() -> None:
    rng = np.random.default_rng(11)
    n = 4 * DISTINCT_MIN_ROWS
    mb, tp, rc = rng.integers(1, 17, n), 2 ** rng.integers(0, 8, n), rng.integers(0, 3, n)

    def term(mb: np.ndarray, tp: np.ndarray, rc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = mb.astype(np.float64) * 8192 / tp
        return (x / (1 + x) ** 0.7 + (rc == 2) * 3.5, np.minimum(x, 1e3 * rc))

    direct = term(mb, tp, rc)
    broadcast = on_distinct(np, term, mb, tp, rc)
    for want, got in zip(direct, broadcast, strict=True):
        assert np.array_equal(want, got)
    few = {key: value[: DISTINCT_MIN_ROWS - 1] for key, value in {"mb": mb, "tp": tp, "rc": rc}.items()}
    assert np.array_equal(on_distinct(np, term, few["mb"], few["tp"], few["rc"])[0], term(**few)[0])


@pytest.mark.parametrize("moe", [False, True])
def test_estimate_of_the_space_equals_each_row_estimated_alone(moe: bool) -> None:
    model = MODELS["llama3-70b"].as_moe(8, 2) if moe else MODELS["llama3-70b"]
    cluster, workload = CLUSTERS["h100-8"].with_nodes(4), WorkloadSpec(global_batch=256, seq_len=8192)
    space = training_space(model, cluster, workload)
    assert len(space["tp"]) >= DISTINCT_MIN_ROWS  # the broadcast path runs on the whole space
    whole = training_estimate(model, cluster, workload, space)
    rng = np.random.default_rng(3)
    for i in rng.choice(len(space["tp"]), size=25, replace=False).tolist():
        alone = training_estimate(model, cluster, workload, {key: column[i : i + 1] for key, column in space.items()})
        for key in ("step_s", "compute_s", "exposed_s", "bubble_s", "efficiency", "intensity"):
            assert whole[key][i] == pytest.approx(alone[key][0], rel=1e-12, abs=0), (key, i)
        for key, value in alone["memory"].items():
            assert whole["memory"][key][i] == pytest.approx(value[0], rel=1e-12, abs=0), (key, i)
        for key, value in alone["comm"].items():
            assert whole["comm"][key][i] == pytest.approx(value[0], rel=1e-12, abs=0), (key, i)


def test_the_search_lists_and_steps_what_evaluating_alone_gives() -> None:
    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(4)
    workload = WorkloadSpec(global_batch=256, seq_len=8192)
    result = plan(model, cluster, workload)
    for index, listed in zip(result.accepted_indices(5), result.accepted(5), strict=True):
        alone = evaluate_composition(model, cluster, workload, **result.degrees(index))
        assert listed.to_dict() == alone.to_dict()
        assert result.estimated_step_s(index) == alone.step_s
    # rejected by the memory gate (well formed): the search kept its ledger and estimates its step when asked
    rejected = result.rejected_indices("memory")[:5]
    assert rejected
    for index in rejected:
        alone = evaluate_composition(model, cluster, workload, **result.degrees(index))
        assert alone.memory is not None and not alone.accepted
        assert result.estimated_step_s(index) == alone.step_s
        assert result._table.memory_gib[index] == pytest.approx(alone.memory.total_gib, rel=1e-12, abs=0)


def _plain_space(model: ModelSpec, cluster: ClusterSpec, workload: WorkloadSpec) -> list[tuple[int, ...]]:
    """Every training composition, one row at a time, in the search's order: (tp, cp, pp, dp, ep, etp, v, zero, mb,
    ga, rc) — ZeRO stages are tried only where dp·cp > 1 (else the first stage stands for all), and the virtual
    stages are each v the schedule gate lets through, asked afresh for every row."""
    from coursekit.planner.gate_table import chunks_divide_stages
    from coursekit.planner.space import etp_options
    from coursekit.specs import PLAN_RECOMPUTE_MODES as RECOMPUTE_MODES
    from coursekit.specs import _divisors, stage_layer_counts

    def v_options(pp: int) -> list[int]:
        if pp == 1 or workload.max_virtual_stages == 1:
            return [1]
        edge = workload.pipeline_edge_layers
        if edge is None:  # the default: the embedding and the loss take a layer's slot where that evens the split
            layers = model.layers
            edge = 1 if pp > 2 and layers % pp != 0 and (layers + 2) % pp == 0 else 0
        last_edge = edge if workload.pipeline_last_edge_layers is None else workload.pipeline_last_edge_layers
        first, mid, last = stage_layer_counts(model.layers, pp, edge, last_edge)
        edges = min(first + edge, last + last_edge)
        fewest = min(edges, mid) if pp > 2 else edges
        splitting = [
            v for v in range(2, max(fewest, 1) + 1) if chunks_divide_stages(first, mid, last, pp, edge, v, last_edge)
        ]
        return [1, *([v for v in splitting if v <= workload.max_virtual_stages] or splitting[:1])]

    world = cluster.world_size
    moe = model.is_moe
    eps = _divisors(model.num_experts) if moe else (1,)
    mbs = [d for d in _divisors(workload.global_batch) if d <= workload.max_micro_batch]
    rows: list[tuple[int, ...]] = []
    for tp in _divisors(world):
        for cp in (d for d in _divisors(world // tp) if workload.max_cp is None or d <= workload.max_cp):
            for pp in _divisors(world // (tp * cp)):
                dp = world // (tp * cp * pp)
                for v in v_options(pp):
                    for ep in eps:
                        for etp in etp_options(model, tp):
                            zeros = workload.zero_stages if dp * cp > 1 else workload.zero_stages[:1]
                            for zero in zeros:
                                for mb in mbs:
                                    for mode in workload.recompute_modes:
                                        if mode == "offload" and pp > 1:  # the engine offloads without a pipeline
                                            continue
                                        ga = max(1, workload.global_batch // (dp * mb))
                                        rc = RECOMPUTE_MODES.index(mode)
                                        rows.append((tp, cp, pp, dp, ep, etp, v, zero, mb, ga, rc))
    return rows


@pytest.mark.parametrize(
    ("name", "nodes", "workload"),
    [
        ("llama3-70b", 16, WorkloadSpec(global_batch=1024, seq_len=8192)),
        ("mixtral-8x7b", 4, WorkloadSpec(global_batch=256, seq_len=4096)),
        ("llama3-405b", 8, WorkloadSpec(global_batch=512, seq_len=8192, zero_stages=(1, 3), max_virtual_stages=2)),
        ("mcore-gpt-119b", 4, WorkloadSpec(global_batch=768, seq_len=2048)),  # 92 layers: v = 23 at pp = 4
        # the last stage alone gives up 2: at pp = 4 the stages hold 24, 23, 22 (q = ceil(94 / 4) = 24)
        (
            "mcore-gpt-119b",
            4,
            WorkloadSpec(global_batch=768, seq_len=2048, pipeline_edge_layers=0, pipeline_last_edge_layers=2),
        ),
    ],
)
def test_the_space_holds_every_composition_in_order(name: str, nodes: int, workload: WorkloadSpec) -> None:
    # the search builds the columns with numpy (the ZeRO column by offsets, the virtual stages asked once per pp)
    model, cluster = MODELS[name], CLUSTERS["h100-8"].with_nodes(nodes)
    space = training_space(model, cluster, workload)
    keys = ("tp", "cp", "pp", "dp", "ep", "etp", "v", "zero", "mb", "ga", "rc")
    built = list(zip(*(space[key].tolist() for key in keys), strict=True))
    assert built == _plain_space(model, cluster, workload)
    assert space["replicas"].tolist() == [1] * len(built)


def _same_plan(a: object, b: object) -> None:
    """Two plans agree on the funnel, every candidate's failures, step and memory, the order and the top five."""
    from coursekit.planner import PlanResult

    assert isinstance(a, PlanResult) and isinstance(b, PlanResult)
    assert a.funnel == b.funnel and a.space_size == b.space_size
    ta, tb = a._table, b._table
    assert all(np.array_equal(ta.fails[code], tb.fails[code]) for code in ta.fails)
    assert np.array_equal(ta.step_s, tb.step_s, equal_nan=True)
    assert np.array_equal(ta.memory_gib, tb.memory_gib, equal_nan=True)
    assert a.accepted_indices() == b.accepted_indices()
    assert a.accepted(5) == b.accepted(5)
    rejected = a.rejected_indices()
    assert [a.candidate(i) for i in rejected[:: max(1, len(rejected) // 7)]] == [
        b.candidate(i) for i in rejected[:: max(1, len(rejected) // 7)]
    ]


def test_gated_space_kept_across_efficiency_overlap_and_link_speed_gives_the_plain_plan() -> None:
    """The space, the gates and the memory ledger are kept per model, cluster shape, device memory and workload
    without its flat efficiency and overlap; plans that move only those (and the links' speeds, latencies and peak
    FLOP/s) reuse them. Each such plan equals the plan computed with nothing kept."""
    from dataclasses import replace

    from coursekit.planner import search

    model = MODELS["llama3-70b"]
    base = CLUSTERS["h100-8"].with_nodes(4)
    slow = replace(
        base,
        inter_node_bandwidth_bytes_per_s=base.inter_node_bandwidth_bytes_per_s / 8,
        intra_node_bandwidth_bytes_per_s=base.intra_node_bandwidth_bytes_per_s / 2,
        inter_node_latency_s=base.inter_node_latency_s * 3,
        peak_flops=base.peak_flops / 2,
    )
    workloads = [
        WorkloadSpec(global_batch=256, seq_len=8192),
        WorkloadSpec(global_batch=256, seq_len=8192, achievable_flops_fraction=0.3),
        WorkloadSpec(global_batch=256, seq_len=8192, overlap_fraction=1.0),
    ]
    search._gated_spaces.clear()
    for cluster in (base, slow):
        for workload in workloads:
            kept = plan(model, cluster, workload)
            assert len(search._gated_spaces) == 1  # one gated space serves all six plans
            search._gated_spaces.clear()
            _same_plan(kept, plan(model, cluster, workload))
            plan(model, base, workloads[0])  # the kept one again, for the next plan to reuse
    # device memory and the cluster's shape are gate inputs: other values are other gated spaces, other funnels
    small = replace(base, memory_per_device_gib=24.0)
    assert plan(model, small, workloads[0]).funnel != plan(model, base, workloads[0]).funnel
    assert len(search._gated_spaces) == 2


def test_gated_spaces_kept_hold_at_most_the_row_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from coursekit.planner import search

    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(4)
    small, large = WorkloadSpec(global_batch=64, seq_len=4096), WorkloadSpec(global_batch=256, seq_len=4096)
    search._gated_spaces.clear()
    rows = plan(model, cluster, small).space_size + plan(model, cluster, large).space_size
    assert len(search._gated_spaces) == 2
    monkeypatch.setattr(search, "GATED_SPACE_CACHE_ROWS", rows - 1)
    search._gated_spaces.clear()
    plan(model, cluster, small)
    plan(model, cluster, large)
    assert len(search._gated_spaces) == 1  # the older one went
    monkeypatch.setattr(search, "GATED_SPACE_CACHE_ROWS", 0)
    plan(model, cluster, small)
    assert not search._gated_spaces  # a space larger than the budget is not kept
