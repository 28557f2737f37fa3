"""The overlap model, context parallelism's costs, the per-generation efficiency ceiling and explained ties.

Every expected value is worked by hand from its source: Megatron-Core's default bucket, the ring step of Ring
Attention with Megatron-Core's zig-zag split, the measured best-matmul shares (MAMF table), and the tie rule.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from coursekit.capacity import PRECISION_RECIPES
from coursekit.communication import collective_time_s
from coursekit.overlap import (
    bucket_params,
    cp_block_attention_flops,
    cp_causal_imbalance,
    exposed_after_window_s,
    ring_step_exposed_s,
)
from coursekit.planner import WorkloadSpec, plan
from coursekit.planner.calibration import EFFICIENCY_CEILING, ceiling_for, matmul_fraction
from coursekit.planner.estimate import training_estimate
from coursekit.planner.ties import robust_tie_groups, tie_row
from coursekit.presets import CLUSTERS, MODELS

# --------------------------------------------------------------------------- formulas, by hand


def test_megatron_default_bucket() -> None:
    """megatron/core/distributed: bucket_size = max(40000000, 1000000 * dp_cp_size)."""
    assert bucket_params(1) == 40e6
    assert bucket_params(40) == 40e6
    assert bucket_params(64) == 64e6
    with pytest.raises(ValueError, match="dp_cp"):
        bucket_params(0)


def test_exposed_after_window() -> None:
    # 10 s of buckets, the last 1 s; 4 s of compute: 9 s could hide, 4 s do -> 6 s exposed
    assert exposed_after_window_s(10.0, 1.0, 4.0) == pytest.approx(6.0)
    # plenty of compute: only the last bucket is exposed
    assert exposed_after_window_s(10.0, 1.0, 100.0) == pytest.approx(1.0)
    # overlap share 0.5 halves the window that hides: 10 - 0.5 * min(9, 100) = 5.5
    assert exposed_after_window_s(10.0, 1.0, 100.0, 0.5) == pytest.approx(5.5)
    # overlap 0: nothing hides
    assert exposed_after_window_s(10.0, 1.0, 100.0, 0.0) == pytest.approx(10.0)


def test_ring_step_exposure() -> None:
    assert ring_step_exposed_s(5e-3, 2e-3) == pytest.approx(3e-3)
    assert ring_step_exposed_s(1e-3, 2e-3) == 0.0
    assert ring_step_exposed_s(1e-3, 2e-3, overlap=0.0) == pytest.approx(1e-3)


def test_cp_block_flops_are_the_causal_half_split_evenly() -> None:
    """2·cp chunks of c = s/(2cp); a rank's step is 2c² query-key pairs at 4·w FLOPs. Over cp ranks and cp steps
    that is 2·cp²·c²·4w = 2·s²·w: half of the full (non-causal) 4·s²·w of one sequence's forward attention."""
    s, cp, w = 8192, 4, 4096
    c = s // (2 * cp)
    assert cp_block_attention_flops(s, cp, 1, w) == pytest.approx(2 * c * c * 4 * w)
    assert cp * cp * cp_block_attention_flops(s, cp, 1, w) == pytest.approx(0.5 * 4 * s * s * w)
    assert cp_block_attention_flops(s, cp, 2, w, tp=4) == pytest.approx(2 * cp_block_attention_flops(s, cp, 1, w) / 4)


@pytest.mark.parametrize("cp", [1, 2, 4, 8, 16])
def test_causal_imbalance_by_enumeration(cp: int) -> None:
    """Contiguous: rank r attends to r full blocks and half its own. Zig-zag: rank r holds chunks r and 2cp-1-r
    of 2cp; chunk i attends to i full chunks and half of itself."""
    contiguous = [r + 0.5 for r in range(cp)]
    assert cp_causal_imbalance(cp, "contiguous") == pytest.approx(max(contiguous) / np.mean(contiguous))
    zigzag = [(r + 0.5) + (2 * cp - 1 - r + 0.5) for r in range(cp)]
    assert cp_causal_imbalance(cp) == pytest.approx(max(zigzag) / np.mean(zigzag)) == 1.0
    with pytest.raises(ValueError, match="split"):
        cp_causal_imbalance(cp, "striped")


def test_efficiency_ceiling_carried_by_measured_matmul_share() -> None:
    """MAMF table (ml-engineering): A100 SXM 267.9 of 312 TFLOP/s, H100 SXM 792.1 of 989. The A100 ceiling is the
    Table 1 fit; the H100 ceiling is that fit times 792.1/989 over 267.9/312."""
    assert matmul_fraction(312e12) == pytest.approx(0.8587, abs=1e-4)
    assert matmul_fraction(989e12) == pytest.approx(0.8009, abs=1e-4)
    assert ceiling_for(312e12) == pytest.approx(EFFICIENCY_CEILING)
    assert ceiling_for(989e12) == pytest.approx(0.524 * (792.1 / 989) / (267.9 / 312), rel=1e-9)
    assert ceiling_for(125e12) == pytest.approx(EFFICIENCY_CEILING)  # no measurement: the calibration device's


# --------------------------------------------------------------------------- the estimate uses them


def _columns(**values: object) -> dict[str, np.ndarray]:
    keys = ("tp", "cp", "pp", "dp", "ep", "v", "zero", "mb", "ga", "rc")
    defaults = {"ep": 1, "v": 1, "pp": 1}
    return {k: np.atleast_1d(np.asarray(values.get(k, defaults.get(k)), dtype=np.int64)) for k in keys}


def test_cp_ring_exposure_worked_by_hand() -> None:
    """Llama 3 8B, s = 4096, tp = 4, cp = 4 on two H100 nodes: the CP group spans 16 ranks, so its ring crosses the
    inter-node link. K/V block = 2 · b · (s/cp) · (8 KV heads / 4 · 128) · 2 bytes = 1 MiB; a step's causal attention
    is 2 · b · (s/cp)² · 4096 / tp FLOPs at the estimate's matmul efficiency times flash attention's speed over the
    best matmul's on the rank's s/cp = 1024 tokens (FlashAttention-3's 1K bars on H100: forward 565, backward 424
    TFLOP/s, backward = 2.5 forwards; 792.1)."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"].with_nodes(2)
    workload = WorkloadSpec(global_batch=8, seq_len=4096)
    cols = _columns(tp=4, cp=4, dp=1, zero=1, mb=1, ga=8, rc=1)
    est = training_estimate(model, cluster, workload, cols)
    block = 2 * 1 * 1024 * (2 * 128) * 2
    assert block == 1 << 20
    bw, lat = cluster.inter_node_bandwidth_bytes_per_s, cluster.inter_node_latency_s
    send_f, send_b = lat + block / bw, lat + 2 * block / bw
    rate = 3 / (1 / 565 + 2 / (424 * 0.8)) / 792.1
    attention = 2 * 1 * 1024**2 * 4096 / 4 / (cluster.peak_flops * float(est["efficiency"][0]) * rate)
    steps = (4 - 1) * 32 * 8
    home = 32 * 8 * send_f  # the dK, dV block's trip home after each layer's last backward step
    assert float(est["comm"]["CP"][0]) == pytest.approx(steps * (send_f + send_b) + home, rel=1e-9)
    expected = home + steps * (max(0.0, send_f - attention) + max(0.0, send_b - 2 * attention))
    assert expected > 0
    assert float(est["exposed_cp_s"][0]) == pytest.approx(expected, rel=1e-9)
    # full recomputation runs the forward ring again
    full = training_estimate(model, cluster, workload, _columns(tp=4, cp=4, dp=1, zero=1, mb=1, ga=8, rc=2))
    assert float(full["comm"]["CP"][0]) == pytest.approx(steps * (2 * send_f + send_b) + home, rel=1e-9)
    # overlap_cp = 0: every ring step is exposed
    none = training_estimate(model, cluster, WorkloadSpec(global_batch=8, seq_len=4096, overlap_cp=0.0), cols)
    assert float(none["exposed_cp_s"][0]) == pytest.approx(float(none["comm"]["CP"][0]), rel=1e-9)


def test_dp_exposes_its_last_bucket_and_what_outlasts_the_last_backward() -> None:
    """ZeRO-0 on 4 nodes (dp 32): one all-reduce of all gradients after the last micro-batch's backward; the last
    40e6-parameter bucket (Megatron's default at dp 32) never hides, the rest hides under that backward (2/3 of a
    micro-batch's compute). The ring holds 8 ranks on each node, so it crosses nodes on 8 NICs (NVIDIA/nccl#569):
    8 · 50 GB/s = 400 GB/s, below NVLink's 450 GB/s."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"].with_nodes(4)
    workload = WorkloadSpec(global_batch=256, seq_len=4096)
    est = training_estimate(model, cluster, workload, _columns(tp=1, cp=1, dp=32, zero=0, mb=1, ga=8, rc=1))
    bw, lat = 8 * cluster.inter_node_bandwidth_bytes_per_s, cluster.inter_node_latency_s
    assert bw == 400e9 < cluster.intra_node_bandwidth_bytes_per_s
    g = PRECISION_RECIPES[workload.recipe].grad_bytes  # Megatron's bf16 recipe keeps fp32 gradients: 4 bytes
    grads = float(model.num_params) * g
    total = collective_time_s("all_reduce", payload_bytes=grads, ranks=32, bandwidth_bytes_per_s=bw, latency_s=lat)
    tail = collective_time_s("all_reduce", payload_bytes=40e6 * g, ranks=32, bandwidth_bytes_per_s=bw, latency_s=lat)
    window = float(est["compute_s"][0]) / 8 * 2 / 3
    assert float(est["comm"]["DP"][0]) == pytest.approx(total, rel=1e-9)
    assert float(est["exposed_dp_s"][0]) == pytest.approx(max(tail, total - window), rel=1e-9)
    assert float(est["exposed_dp_s"][0]) > tail  # the once-per-step all-reduce outlasts one backward here


def test_zero3_exposes_first_gather_and_last_reduce_scatter() -> None:
    """ZeRO-3 with plenty of compute: what cannot hide is one layer's all-gather (before the first forward) and one
    layer's reduce-scatter (after the last backward). DP 16 on 2 nodes: 8 ranks a node, 8 NICs (400 GB/s)."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"].with_nodes(2)
    workload = WorkloadSpec(global_batch=512, seq_len=8192)
    est = training_estimate(model, cluster, workload, _columns(tp=1, cp=1, dp=16, zero=3, mb=4, ga=8, rc=1))
    bw, lat = 8 * cluster.inter_node_bandwidth_bytes_per_s, cluster.inter_node_latency_s
    recipe = PRECISION_RECIPES[workload.recipe]
    per_layer = float(model.num_params) / model.layers  # psi / units, units = layers
    link = {"ranks": 16, "bandwidth_bytes_per_s": bw, "latency_s": lat}
    gather = collective_time_s("all_gather", payload_bytes=per_layer * recipe.param_bytes, **link)
    scatter = collective_time_s("reduce_scatter", payload_bytes=per_layer * recipe.grad_bytes, **link)
    assert float(est["comm"]["DP"][0]) < float(est["compute_s"][0]) / 2  # compute is plenty
    assert float(est["exposed_dp_s"][0]) == pytest.approx(gather + scatter, rel=1e-9)


def test_dp_and_cp_sharing_the_nic_shrink_the_window() -> None:
    """With DP and CP both across nodes, the CP ring's backward traffic of the last micro-batch takes its share of
    the window the gradient all-reduce hides under: exposed DP rises by exactly that share (when the rest
    already outlasts the window). The window is the last micro-batch's backward: 2/3 of its passes, which hold the
    compute, TP's traffic (over NVLink, on the critical path with TP's comm-GEMM overlap off, as here) and the ring
    blocks the compute waits for; the buckets move while the passes wait."""
    model, cluster = MODELS["llama3-8b"], CLUSTERS["h100-8"].with_nodes(4)
    workload = WorkloadSpec(global_batch=64, seq_len=8192, overlap_tp=0.0)
    cols = _columns(tp=8, cp=2, dp=2, zero=0, mb=1, ga=32, rc=1)
    est = training_estimate(model, cluster, workload, cols)
    assert not bool(est["comm_intra"]["DP"][0]) and not bool(est["comm_intra"]["CP"][0])
    assert bool(est["comm_intra"]["TP"][0])
    passes = float(est["compute_s"][0]) + float(est["comm"]["TP"][0]) + float(est["exposed_cp_s"][0])
    window = passes * 2 / 3 / 32
    dp_total = float(est["comm"]["DP"][0])
    bw, lat = cluster.inter_node_bandwidth_bytes_per_s, cluster.inter_node_latency_s
    block = 2 * 1 * 4096 * 128 * 2
    ring_backward_last = (2 - 1) * 32 * (lat + 2 * block / bw)  # one micro-batch's backward ring steps
    assert dp_total - window > 0
    assert float(est["exposed_dp_s"][0]) == pytest.approx(dp_total - (window - ring_backward_last), rel=1e-9)


@pytest.mark.parametrize(("model_name", "nodes", "seq_len"), [("llama3-8b", 2, 2048), ("llama3-70b", 8, 4096)])
def test_cp_is_not_faster_than_its_twin_at_short_sequences(model_name: str, nodes: int, seq_len: int) -> None:
    """At 2K-4K tokens CP only shrinks each GPU's matmuls and adds a ring: every CP layout is at least as slow as the
    same layout with CP folded into data parallelism (cp = 1, dp · cp), under default assumptions. With a pipeline,
    the CP layout keeps twice the micro-batches per pipeline (each half as long), so its bubble is shorter; outside
    the bubble it is still never faster."""
    model, cluster = MODELS[model_name], CLUSTERS["h100-8"].with_nodes(nodes)
    world = cluster.world_size
    workload = WorkloadSpec(global_batch=world, seq_len=seq_len)
    rows = []
    for tp, cp, pp, mb, zero, rc in itertools.product((1, 2, 4, 8), (2, 4), (1, 2), (1,), (1, 3), (0, 1, 2)):
        dp = world // (tp * cp * pp)
        if dp < 1 or world % (tp * cp * pp):
            continue
        ga = workload.global_batch // (dp * mb)
        twin_ga = workload.global_batch // (dp * cp * mb)
        if twin_ga < 1:
            continue
        rows.append(((tp, cp, pp, dp, zero, mb, ga, rc), (tp, 1, pp, dp * cp, zero, mb, twin_ga, rc)))
    assert len(rows) > 20

    def column(index: int) -> dict[str, np.ndarray]:
        table = np.array([row[index] for row in rows])
        keys = ("tp", "cp", "pp", "dp", "zero", "mb", "ga", "rc")
        out = {k: table[:, i] for i, k in enumerate(keys)}
        out["ep"] = out["v"] = np.ones(len(rows), dtype=np.int64)
        return out

    cp_est = training_estimate(model, cluster, workload, column(0))
    twin_est = training_estimate(model, cluster, workload, column(1))
    no_pipeline = column(0)["pp"] == 1
    assert no_pipeline.sum() > 10
    assert np.all(cp_est["step_s"][no_pipeline] >= twin_est["step_s"][no_pipeline] * (1 - 1e-12))
    outside_bubble = cp_est["step_s"] - cp_est["bubble_s"], twin_est["step_s"] - twin_est["bubble_s"]
    assert np.all(outside_bubble[0] >= outside_bubble[1] * (1 - 1e-12))


def test_cp2_at_8k_removes_full_recompute_for_a_dense_70b() -> None:
    """The vendor layout for Llama 3 70B at 8K on 64 H100s (NVIDIA DGX Cloud Benchmarking, NeMo Llama 3.1 70B BF16
    recipe: TP 4, PP 4, CP 2, DP 2, VP 5, micro-batch 1, global batch 128): without CP the same TP/PP layout holds
    8K tokens only with full recompute; with CP 2 no recomputation fits, its estimate is faster than the full-
    recompute twin by more than the recomputed forward costs it, and it is in tie group 1 or the top 10. Gradients in
    fp32, as Megatron-LM's trainer keeps them (``megatron-bf16``); with bf16 gradients the layout without CP fits by
    less than 1 GiB (lesson 9)."""
    model, cluster = MODELS["llama3-70b"], CLUSTERS["h100-8"].with_nodes(8)
    result = plan(
        model, cluster, WorkloadSpec(global_batch=128, seq_len=8192, max_virtual_stages=5, recipe="megatron-bf16")
    )
    layout = {"tp": 4, "pp": 4, "v": 5, "zero": 1, "mb": 1}
    cp2 = result.explain({**layout, "cp": 2, "dp": 2, "recompute": "none"})
    no_cp = result.explain({**layout, "cp": 1, "dp": 4, "recompute": "none"})
    full = result.explain({**layout, "cp": 1, "dp": 4, "recompute": "full"})
    assert no_cp.codes == ("memory",) and full.accepted
    assert cp2.accepted, cp2.codes
    assert cp2.step_s is not None and full.step_s is not None
    assert cp2.step_s < full.step_s / 1.2
    index = result.find(**{**layout, "cp": 2, "dp": 2, "recompute": "none"})[0]
    rank, group = result.rank_of(index)
    assert rank <= 10 or group == 1


# --------------------------------------------------------------------------- ties


def test_robust_ties_by_hand() -> None:
    """Leader 0, uncertainty 20 %: candidate 1 is 0.5 % slower under every scenario (the same estimate); candidate
    2 is faster when overlap is lower (tied by that assumption); candidate 3 is within 20 % but slower under every
    scenario and 8 % slower than 0, beyond the 4.5 % repeatability (tied: no named assumption, the uncertainty);
    candidate 4 is beyond 20 % and leads its own group."""
    base = np.array([1.00, 1.005, 1.04, 1.08, 1.50])
    scenarios = {
        "overlap_lower": np.array([1.20, 1.206, 1.15, 1.30, 1.50]),
        "inter_bandwidth_lower": np.array([1.10, 1.1055, 1.12, 1.20, 1.50]),
    }
    groups, why = robust_tie_groups(base, scenarios, 0.2)
    assert groups == [[0, 1, 2, 3], [4]]
    assert why == {1: ("same",), 2: ("overlap_lower",), 3: ("unordered",)}
    row = tie_row(4, 9, "tp=4", 1.08, 1.00, why[3])
    assert row.assumption == "unordered"
    assert "20%" in row.reason.render("zh") and "20%" in row.reason.render("en")
    assert "跑几步" in row.reason.render("zh") and "run a few steps of both" in row.reason.render("en")


def test_tie_groups_are_the_uncertainty_bands() -> None:
    """Every candidate within (1 + uncertainty) of a group's fastest is in its group, whatever the scenarios say:
    steps 1.00, 1.15, 1.19, 1.21, 1.40, 1.46 at 20 % give [0, 1, 2] (1.19 <= 1.2), then [3, 4] (1.40 <= 1.452), then
    [5] (1.46 > 1.452), the same groups as the bare rule (tie_groups)."""
    from coursekit.planner import tie_groups

    base = np.array([1.00, 1.15, 1.19, 1.21, 1.40, 1.46])
    scenarios = {"overlap_lower": base * 1.1}  # no scenario makes anyone catch up
    groups, why = robust_tie_groups(base, scenarios, 0.2)
    assert groups == [[0, 1, 2], [3, 4], [5]] == tie_groups(base.tolist(), 0.2)
    assert why == {1: ("unordered",), 2: ("unordered",), 4: ("unordered",)}


def test_estimates_closer_than_two_measurements_are_tied() -> None:
    """NeMo published its 24.07 table twice, every row measured anew: the twelve relative differences (second ÷
    first - 1, worked by hand) are 3.930, 0, -1.377, 5.499, 0.516, 0.798, 1.230, -1.527, 1.316, 1.242, 1.969 and
    -0.587 %; their squares sum to 59.82 (%²), so the RMS is sqrt(59.82 / 12) = 2.233 % and twice it 4.47 %.
    Candidate 1 is 3 % slower under every scenario: its reason is closeness ("noise"); candidate 2, 5 % slower, is
    tied by the uncertainty alone ("unordered")."""
    from coursekit.planner.calibration import MEASUREMENT_REPEATABILITY

    assert MEASUREMENT_REPEATABILITY == pytest.approx(0.0447, abs=5e-5)
    base = np.array([1.00, 1.03, 1.05])
    scenarios = {"overlap_lower": base * 1.1, "inter_bandwidth_lower": base * 1.2}
    groups, why = robust_tie_groups(base, scenarios, 0.2)
    assert groups == [[0, 1, 2]]
    assert why == {1: ("noise",), 2: ("unordered",)}
    row = tie_row(2, 7, "tp=2", 1.03, 1.00, why[1])
    assert row.assumption == "noise"
    assert "4.5%" in row.reason.render("zh") and "4.5%" in row.reason.render("en")
    assert "多次" in row.reason.render("zh") and "several times" in row.reason.render("en")


def test_capstone_first_tie_group_is_explained() -> None:
    result = plan(
        MODELS["mixtral-8x7b"], CLUSTERS["a100-8"].with_nodes(4), WorkloadSpec(global_batch=256, seq_len=4096)
    )
    groups = result.tie_groups()
    within = sum(
        1
        for i in result.accepted_indices()
        if (result.estimated_step_s(i) or 0) <= result.estimated_step_s(groups[0][0]) * 1.2  # type: ignore[operator]
    )
    assert len(groups[0]) == within  # the 20 % band
    every = result.explain_ties(1, every_member=True)
    assert [row.index for row in every] == groups[0]
    assert every[0].scenarios == () and all(row.scenarios for row in every[1:])
    assert {row.assumption for row in every[1:]} <= {
        "efficiency", "overlap", "bandwidth", "pipeline", "host", "same", "noise", "unordered"
    }  # fmt: skip
    # the rows to measure: the fastest, the members one assumption makes the group's fastest, and exact ties
    rows = result.explain_ties(1)
    assert rows[0].index == groups[0][0] and 1 < len(rows) < len(groups[0]) / 10
    assert {row.index for row in rows} <= set(groups[0])
    assert not {row.assumption for row in rows} & {"noise", "unordered"}  # those need no assumption: not listed
    assert "要判断" in rows[1].reason.render("zh") and "to decide" in rows[1].reason.render("en")


def _whole_search_ties(result: Any) -> tuple[list[list[int]], dict[int, tuple[str, ...]], dict[str, Any]]:
    """Tie groups (positions among the accepted), reasons and scenario steps of every accepted candidate: the
    tie rule of :mod:`coursekit.planner.ties` run on the whole accepted set, built from the result's public API."""
    from coursekit.planner.ties import scenario_steps
    from coursekit.specs import PLAN_RECOMPUTE_MODES as RECOMPUTE_MODES

    order = result.accepted_indices()
    rows = [result.degrees(i) for i in order]
    columns = {key: np.array([row[key] for row in rows]) for key in ("tp", "cp", "pp", "dp", "ep", "v", "zero", "mb")}
    columns["ga"] = np.array([row["ga"] for row in rows])
    columns["rc"] = np.array([RECOMPUTE_MODES.index(row["recompute"]) for row in rows])
    if result.model.is_moe:  # the experts' own tensor-parallel degree (a dense model's is tp)
        columns["etp"] = np.array([row["etp"] for row in rows])
    scenarios = scenario_steps(result.model, result.cluster, result.workload, columns)
    base = np.array([result.estimated_step_s(i) for i in order])
    groups, why = robust_tie_groups(base, scenarios, result.assumptions.uncertainty)
    return groups, why, scenarios


TIE_CASES = (
    ("mixtral-8x7b", "a100-8", 4, WorkloadSpec(global_batch=256, seq_len=4096)),
    ("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024)),
    ("llama3-8b", "a100-8", 2, WorkloadSpec(global_batch=64, achievable_flops_fraction=0.4, overlap_fraction=0.5)),
)


@pytest.mark.parametrize(("model", "cluster", "nodes", "workload"), TIE_CASES)
def test_ties_of_the_fastest_equal_the_whole_searchs(model: str, cluster: str, nodes: int, workload: Any) -> None:
    """tie_groups(top=k) estimates again only the candidates near the k fastest; its groups are the whole accepted
    set's groups led by one of the k fastest, and explain_ties(1) lists the whole set's group-1 contenders."""
    from coursekit.planner import what_if
    from coursekit.planner.ties import contenders

    whole = what_if(model, cluster, nodes, workload)
    order = whole.accepted_indices()
    groups, why, scenarios = _whole_search_ties(whole)
    as_indices = [[order[pos] for pos in group] for group in groups]
    for top in (1, 5, 40):
        fresh = what_if(model, cluster, nodes, workload)
        assert fresh.tie_groups(top=top) == [
            g for g, members in zip(as_indices, groups, strict=True) if members[0] < top
        ]
    # one result asked for more and more: the scenario steps are extended, not recomputed differently
    growing = what_if(model, cluster, nodes, workload)
    for more in (1, 5, 40, None):
        expected = [g for g, members in zip(as_indices, groups, strict=True) if more is None or members[0] < more]
        assert growing.tie_groups(top=more) == expected
    # group 1's rows: its fastest, then the members some scenario makes the fastest or that never separate
    first = groups[0]
    near = contenders(first, scenarios)
    worth = [pos for pos in first[1:] if pos in near or why.get(pos) == ("same",)]
    rows = what_if(model, cluster, nodes, workload).explain_ties(1)
    assert [row.index for row in rows] == [order[pos] for pos in (first[0], *worth)]
    assert [row.rank for row in rows] == [pos + 1 for pos in (first[0], *worth)]
    assert [row.scenarios for row in rows[1:]] == [
        ("same",) if why.get(pos) == ("same",) else near[pos] for pos in worth
    ]
    every = what_if(model, cluster, nodes, workload).explain_ties(1, every_member=True)
    assert [row.scenarios for row in every] == [why.get(pos, ()) for pos in first]
