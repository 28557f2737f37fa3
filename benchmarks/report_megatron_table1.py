"""Calibrate and report the workbench's compute-efficiency ceiling on Megatron-LM's Table 1; nothing is asserted.

    .venv/bin/python benchmarks/report_megatron_table1.py

For each row of Table 1 of Narayanan et al. 2021 (arXiv:2104.04473) it plans the model on 8-GPU
A100-80GB nodes with the paper's set-up (:meth:`coursekit.presets.MegatronRun.workload`), takes the
fastest *accepted* candidate with the paper's (t, p, d), converts its estimated step time into
teraFLOP/s per GPU with the paper's own FLOP count (activation recomputation included) and prints it
next to the measured figure. It then finds the ceiling that makes the geometric mean of the ten
ratios 1 — the value :data:`coursekit.planner.estimate.EFFICIENCY_CEILING` holds — and the largest
step-time error left, which :data:`coursekit.planner.estimate.MODEL_UNCERTAINTY` rounds up.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coursekit.planner import EFFICIENCY_CEILING, megatron_paper_flops_per_step, plan
from coursekit.presets import MEGATRON_TABLE1, MODELS, MegatronRun


def row_estimate(run: MegatronRun, ceiling: float | None = None) -> tuple[float, str, int, int]:
    """(estimated TFLOP/s per GPU, label, rank of the paper's layout, accepted count) at ``ceiling``."""
    result = plan(MODELS[run.name], run.cluster(), run.workload(efficiency_ceiling=ceiling))
    order = result.accepted_indices()
    wanted = set(result.find(tp=run.tp, pp=run.pp, dp=run.dp))
    matching = [i for i in order if i in wanted]
    best = result.candidate(matching[0])
    assert best.step_s is not None
    flops = megatron_paper_flops_per_step(run.layers, run.hidden, run.global_batch)
    label = f"v={best.virtual_stages},mb={best.micro_batch}"
    return flops / (best.step_s * run.gpus) / 1e12, label, order.index(matching[0]) + 1, len(order)


def geometric_mean_ratio(ceiling: float) -> float:
    logs = [math.log(row_estimate(run, ceiling)[0] / run.tflops_per_gpu) for run in MEGATRON_TABLE1]
    return math.exp(sum(logs) / len(logs))


def fit_ceiling(low: float = 0.3, high: float = 1.0) -> float:
    """Bisection on the ceiling: the geometric mean of estimated / published rises with it."""
    for _ in range(30):
        mid = (low + high) / 2
        low, high = (mid, high) if geometric_mean_ratio(mid) < 1 else (low, mid)
    return (low + high) / 2


def main() -> None:
    print(
        f"{'model':<16} {'t':>2} {'p':>3} {'d':>3} {'GPUs':>5} {'layout':<12} {'est TF/s':>9} {'paper':>6} "
        f"{'ratio':>6} {'rank':>10}"
    )
    worst = 0.0
    for run in MEGATRON_TABLE1:
        estimate, label, rank, count = row_estimate(run)
        ratio = estimate / run.tflops_per_gpu
        worst = max(worst, abs(1 / ratio - 1))
        print(
            f"{run.name:<16} {run.tp:>2} {run.pp:>3} {run.dp:>3} {run.gpus:>5} {label:<12} {estimate:>9.1f} "
            f"{run.tflops_per_gpu:>6.0f} {ratio:>6.2f} {rank:>4}/{count:<5}"
        )
    print(f"ceiling in force {EFFICIENCY_CEILING}; largest step-time error {worst:.1%}")
    print(f"fitted ceiling (geometric mean ratio = 1): {fit_ceiling():.3f}")


if __name__ == "__main__":
    main()
