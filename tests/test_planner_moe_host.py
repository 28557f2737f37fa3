"""The host limit on MoE layers: a layer takes at least the host's time to launch it.

Megatron-Core's dispatchers wait on the host once per MoE layer forward (the token counts must reach the CPU before
the all-to-all; DeepEP's normal dispatch waits for the receive counts), so the host cannot run ahead of a short
layer. Expected values are worked by hand from that rule and the two published ModelZoo rows the constant is
fitted on; none is read back from the code under test.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from coursekit.planner import ModelSpec, WorkloadSpec, plan
from coursekit.planner.calibration import (
    ASSUMPTION_UNCERTAINTY,
    MOE_HOST_FIT_RUNS,
    MOE_LAYER_HOST_S,
)
from coursekit.planner.estimate import moe_host_wait_s, training_estimate
from coursekit.presets import CLUSTERS, MODELS
from coursekit.published_runs import all_published_runs
from coursekit.scaling import StepTimeline

# 8 layers, hidden 1024, 8 heads, FFN 4096, vocabulary 1000, 2048 tokens; 8 experts of width 512, top 2
SMALL_MOE = ModelSpec(
    "host-test-moe", 8, 1024, 8, 4096, 1000, 2048, num_experts=8, top_k=2, moe_ffn_hidden=512, source="hand-made"
)


def _columns(**over: int) -> dict[str, np.ndarray]:
    row = {"tp": 1, "cp": 1, "pp": 1, "dp": 8, "ep": 8, "etp": 1, "v": 1, "zero": 1, "mb": 1, "ga": 4, "rc": 0}
    row.update(over)
    return {key: np.array([value]) for key, value in row.items()}


def test_the_wait_is_passes_times_what_the_host_takes_beyond_the_gpu_by_hand() -> None:
    # 12 MoE layers x 128 micro-batches; the GPU needs 5 ms a layer, the host 9.4 ms: 1536 x 4.4 ms = 6.7584 s
    assert float(moe_host_wait_s(0.005, 0.0094, 12 * 128)) == pytest.approx(6.7584)
    # a layer the GPU takes longer over than the host never waits; elementwise over arrays
    got = moe_host_wait_s(np.array([0.010, 0.0094, 0.0014]), 0.0094, np.array([10.0, 10.0, 10.0]))
    assert got.tolist() == pytest.approx([0.0, 0.0, 0.08])


@pytest.mark.parametrize(
    ("args", "name", "error"),
    [
        (("5 ms", 0.0094, 10), "layer_gpu_s", TypeError),
        ((0.005, -0.001, 10), "host_s", ValueError),
        ((0.005, 0.0094, [1.0, float("nan")]), "moe_layer_passes", ValueError),
        ((0.005, None, 10), "host_s", TypeError),
        ((True, 0.0094, 10), "layer_gpu_s", TypeError),
    ],
)
def test_the_host_wait_refuses_bad_input_naming_it(args: tuple[object, ...], name: str, error: type) -> None:
    with pytest.raises(error, match=name):
        moe_host_wait_s(*args)


def test_a_small_moe_waits_for_the_host_and_dense_models_never_do() -> None:
    cluster = CLUSTERS["h100-8"]
    host = 0.05  # far beyond this small model's layer time: the wait dominates
    workload = WorkloadSpec(global_batch=32, seq_len=2048, moe_layer_host_s=host)
    free = dataclasses.replace(workload, moe_layer_host_s=0.0)
    c = _columns()
    est = training_estimate(SMALL_MOE, cluster, workload, c, with_memory=False)
    base = training_estimate(SMALL_MOE, cluster, free, c, with_memory=False)
    assert float(base["host_wait_s"][0]) == 0.0
    # by hand from the step without the limit: 8 layers x 4 micro-batches, each max(host - gpu layer time, 0)
    layer_gpu = (float(base["compute_s"][0]) + float(base["exposed_s"][0])) / (8 * 4)
    assert layer_gpu < host
    assert float(est["host_wait_s"][0]) == pytest.approx(8 * 4 * (host - layer_gpu), rel=1e-9)
    assert float(est["step_s"][0]) == pytest.approx(float(base["step_s"][0]) + 8 * 4 * (host - layer_gpu), rel=1e-9)
    # a dense model's host runs ahead (no wait inside its layers): no host term at any setting
    dense = MODELS["llama3-8b"]
    d = training_estimate(dense, cluster, workload, _columns(ep=1, dp=8), with_memory=False)
    assert float(d["host_wait_s"][0]) == 0.0


def test_the_bubble_is_counted_on_the_compute_and_links_never_slow_a_waiting_layer() -> None:
    # pp 2, 4 micro-batches: bubble share (p-1)/(m+p-1) = 1/5, idle = share/(1-share) x compute = compute / 4
    cluster = CLUSTERS["h100-8"]
    workload = WorkloadSpec(global_batch=16, seq_len=2048, moe_layer_host_s=0.05)
    columns = _columns(pp=2, dp=4, ep=4)
    est = training_estimate(SMALL_MOE, cluster, workload, columns, with_memory=False)
    assert float(est["host_wait_s"][0]) > 0
    assert float(est["bubble_s"][0]) == pytest.approx(0.25 * float(est["compute_s"][0]), rel=1e-9)
    # a link ten times slower lengthens the GPU's layer: the wait for the host shrinks by as much, the step is the same
    # (the layer still takes the host's time) or longer, never shorter than with the fast link
    slow = dataclasses.replace(
        cluster,
        intra_node_bandwidth_bytes_per_s=cluster.intra_node_bandwidth_bytes_per_s / 10,
    )
    slow_est = training_estimate(SMALL_MOE, slow, workload, columns, with_memory=False)
    assert float(slow_est["step_s"][0]) >= float(est["step_s"][0])
    assert float(slow_est["host_wait_s"][0]) <= float(est["host_wait_s"][0])


def test_the_timeline_shows_the_host_wait_as_its_own_segment() -> None:
    t = StepTimeline(1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.5, host_wait_s=0.5)
    kinds = [(seg.kind, seg.start_s, seg.duration_s) for seg in t.segments()]
    assert kinds == [("compute", 0.0, 1.0), ("host", 1.0, 0.5)]
    assert str(t.segments()[1].label)  # labelled in the learner's language


def test_workload_refuses_a_bad_host_time_naming_it() -> None:
    with pytest.raises(ValueError, match="moe_layer_host_s"):
        WorkloadSpec(global_batch=8, moe_layer_host_s=-0.001)
    with pytest.raises(TypeError, match="moe_layer_host_s"):
        WorkloadSpec(global_batch=8, moe_layer_host_s="9 ms")  # type: ignore[arg-type]


def _fit_rows() -> list[object]:
    runs = {run.name: run for run in all_published_runs()}
    picked = [runs[name] for name in MOE_HOST_FIT_RUNS]
    # the pair's measured figures: the ModelZoo table's "Per GPU TF" of TP 2, EP 32 and of TP 4, EP 8
    assert [run.measured_tflops_per_gpu for run in picked] == [245.0, 167.0]  # type: ignore[attr-defined]
    return picked


def _published_step_s(run: object, host_s: float) -> float:
    model = MODELS[run.model]  # type: ignore[attr-defined]
    cluster = CLUSTERS[run.cluster].with_nodes(run.nodes)  # type: ignore[attr-defined]
    workload = dataclasses.replace(run.workload(), moe_layer_host_s=host_s)  # type: ignore[attr-defined]
    result = plan(model, cluster, workload)
    degrees = dict(run.degrees)  # type: ignore[attr-defined]
    degrees.setdefault("etp", degrees.get("tp", 1))
    accepted = set(result.accepted_indices())
    index = next(i for i in result.find(**degrees) if i in accepted)
    step = result.candidate(index).step_s
    assert step is not None
    return step


def test_the_host_time_reproduces_the_measured_ratio_of_its_fit_pair() -> None:
    # the two rows' throughput ratio, measured: 167 / 245 TFLOP/s per GPU (same model, GPUs and global batch)
    wide, narrow = _fit_rows()
    measured = narrow.measured_tflops_per_gpu / wide.measured_tflops_per_gpu  # type: ignore[attr-defined]
    assert measured == pytest.approx(167 / 245)

    def ratio(host_s: float) -> float:
        return _published_step_s(wide, host_s) / _published_step_s(narrow, host_s)

    # without a host limit the estimate gets the pair backwards (TP 4 faster); with the constant it matches,
    # and the constant is the fit to 0.1 ms: 0.1 ms less leaves TP 4 too fast, 0.1 ms more too slow
    assert ratio(0.0) > 1.0
    assert ratio(MOE_LAYER_HOST_S) == pytest.approx(measured, rel=0.01)
    assert ratio(MOE_LAYER_HOST_S - 1e-4) > measured > ratio(MOE_LAYER_HOST_S + 1e-4)


def test_the_host_scenarios_move_the_host_time_by_half_either_way() -> None:
    assert ASSUMPTION_UNCERTAINTY["host"] == 0.5
    cluster = CLUSTERS["h100-8"]
    workload = WorkloadSpec(global_batch=32, seq_len=2048, moe_layer_host_s=0.05)
    from coursekit.planner.ties import scenario_steps

    columns = _columns()
    steps = scenario_steps(SMALL_MOE, cluster, workload, columns)
    for code, host_s in (("host_lower", 0.025), ("host_higher", 0.075)):
        moved = dataclasses.replace(workload, moe_layer_host_s=host_s)
        direct = training_estimate(SMALL_MOE, cluster, moved, columns, with_memory=False)
        assert float(steps[code][0]) == pytest.approx(float(direct["step_s"][0]), rel=1e-12)
    assert float(steps["host_lower"][0]) < float(steps["host_higher"][0])


def test_the_workbench_chart_stacks_the_host_wait_so_each_bar_is_the_step() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from coursekit.widgets.workbench import breakdown_chart

    workload = WorkloadSpec(global_batch=32, seq_len=2048, moe_layer_host_s=0.05)
    best = plan(SMALL_MOE, CLUSTERS["h100-8"], workload).accepted(3)
    assert all(c.timeline is not None and c.timeline.host_wait_s > 0 for c in best)
    fig, ax = plt.subplots()
    try:
        breakdown_chart(ax, best)
        for row, cand in enumerate(best):
            widths = [patch.get_width() for patch in ax.patches if round(patch.get_y() + patch.get_height() / 2) == row]
            assert sum(widths) == pytest.approx(cand.step_s, rel=1e-9)
    finally:
        plt.close(fig)
