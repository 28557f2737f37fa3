"""The estimate against published large-scale runs (none of them calibrates it) and against its calibration set.

Goals of the workbench issue: each published layout is accepted, within 1.25x of the best estimate, and its
estimated throughput within ±30 % of the published one (in the paper's own FLOP convention). Where the model
does not reach a goal, KNOWN_GAPS says why — the same reasons lesson 9 gives — and the test holds the gap to
its stated size, so a change that closes (or widens) it shows up here.
"""

from __future__ import annotations

import math

import pytest

from coursekit.planner import (
    EFFICIENCY_CEILING,
    MODEL_UNCERTAINTY,
    PublishedComparison,
    compare_published,
    megatron_paper_flops_per_step,
    plan,
)
from coursekit.presets import MEGATRON_TABLE1, MODELS, PUBLISHED_RUNS, PublishedRun

#: Runs whose layout the estimate ranks beyond 1.25x of its best, and why.
KNOWN_GAPS: dict[str, str] = {
    "Llama 3 405B, 8K, 8192 GPUs": "the activation model (Korthikanti's GPT layer, no offloading) does not fit the "
    "interleaved schedule Llama 3 tuned, so the published layout pays a 1F1B bubble of 15/47 at 32 micro-batches",
    "Llama 3 405B, 8K, 16384 GPUs": "as above, with 16 micro-batches per step the 1F1B bubble is 15/31",
    "Llama 3 405B, 128K, 16384 GPUs": "as above; the estimate prefers wider CP with fewer data-parallel replicas",
    "DeepSeek-V3 (MoE), 2048 H800 GPUs": "DualPipe's near-bubble-free schedule and FP8 matmuls are not modelled "
    "(1F1B bubble, bf16 peak), and the architecture is approximated (latent attention, shared expert)",
}


@pytest.fixture(scope="module", params=PUBLISHED_RUNS, ids=lambda run: run.name)
def comparison(request: pytest.FixtureRequest) -> tuple[PublishedRun, PublishedComparison]:
    run: PublishedRun = request.param
    return run, compare_published(run)


def test_published_runs_are_at_least_six_and_cover_dense_moe_a100_h100() -> None:
    assert len(PUBLISHED_RUNS) >= 6
    kinds = {MODELS[run.model].kind for run in PUBLISHED_RUNS}
    clusters = {run.cluster for run in PUBLISHED_RUNS}
    assert kinds == {"dense", "moe"} and {"a100-8", "h100-8"} <= clusters
    assert all("arXiv:" in run.source for run in PUBLISHED_RUNS)


def test_published_layout_is_accepted_and_close(comparison: tuple[PublishedRun, PublishedComparison]) -> None:
    run, c = comparison
    assert c.accepted, f"{run.name}: the published layout is rejected"
    ratio = c.estimated_over_published
    step = c.step_over_best
    assert ratio is not None and step is not None
    assert 0.70 <= ratio <= 1.30, f"{run.name}: estimated / published throughput {ratio:.2f}"
    if run.name in KNOWN_GAPS:
        assert 1.25 < step <= 1.5, f"{run.name}: {KNOWN_GAPS[run.name]} (now {step:.2f}x; update the lesson)"
    else:
        assert step <= 1.25, f"{run.name}: {step:.2f}x of the best estimate"
        assert c.tie_group == 1 or step <= 1 + 2 * MODEL_UNCERTAINTY


def test_megatron_flops_convention_reproduces_mtnlg_iteration_time() -> None:
    """MT-NLG's Table: 126 TFLOP/s per GPU at 60.1 s per iteration on 2240 GPUs — the Megatron count, checked."""
    flops = megatron_paper_flops_per_step(105, 20480, 1920, 50257, 2048)
    assert flops / (60.1 * 2240) / 1e12 == pytest.approx(126, rel=0.01)


def test_calibration_geometric_mean_on_megatron_table1() -> None:
    """EFFICIENCY_CEILING is fitted so that the geometric mean of estimated / published TFLOP/s over Megatron-LM's
    Table 1 is 1; the largest step-time error left bounds MODEL_UNCERTAINTY."""
    logs, worst = [], 0.0
    for run in MEGATRON_TABLE1:
        result = plan(MODELS[run.name], run.cluster(), run.workload())
        wanted = set(result.find(tp=run.tp, pp=run.pp, dp=run.dp))
        best = next(result.candidate(i) for i in result.accepted_indices() if i in wanted)
        assert best.step_s is not None
        estimate = megatron_paper_flops_per_step(run.layers, run.hidden, run.global_batch) / (best.step_s * run.gpus)
        ratio = estimate / 1e12 / run.tflops_per_gpu
        logs.append(math.log(ratio))
        worst = max(worst, abs(1 / ratio - 1))
    assert math.exp(sum(logs) / len(logs)) == pytest.approx(1.0, abs=0.01)
    assert worst <= MODEL_UNCERTAINTY < worst + 0.05
    assert 0 < EFFICIENCY_CEILING < 1
