"""Compare the workbench's estimate with Megatron-LM's measured throughput (Table 1); nothing is asserted.

    .venv/bin/python benchmarks/report_megatron_table1.py

For each row of Table 1 of Narayanan et al. 2021 (arXiv:2104.04473) it plans the model on
8-GPU A100-80GB nodes with the paper's set-up (fp16 mixed precision, 16 bytes per parameter,
no distributed optimizer, full activation recomputation, no sequence parallelism, s = 2048),
takes the fastest *accepted* candidate with the paper's (t, p, d), converts its estimated step
time into teraFLOP/s per GPU with the paper's own FLOP count, and prints it next to the measured
figure. The estimate uses the default assumptions (50 % of peak, no overlap); it is not tuned.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coursekit.planner import WorkloadSpec, megatron_paper_flops_per_step, plan
from coursekit.presets import CLUSTERS, MEGATRON_TABLE1, MODELS


def main() -> None:
    header = (
        f"{'model':<16} {'t':>2} {'p':>3} {'d':>3} {'GPUs':>5} {'batch':>5} {'accepted':>8} {'best of (t,p,d)':<28}"
        f" {'est. s':>7} {'est. TF/s':>9} {'paper TF/s':>10} {'ratio':>6} {'rank':>9}"
    )
    print(header)
    for run in MEGATRON_TABLE1:
        workload = WorkloadSpec(
            global_batch=run.global_batch,
            seq_len=2048,
            recipe="zero-fp16-adam",
            sequence_parallel=False,
            zero_stages=(0,),
            recompute_modes=("full",),
        )
        result = plan(MODELS[run.name], CLUSTERS["a100-8"].with_nodes(run.nodes), workload)
        order = result.accepted_indices()
        matching = [i for i in order if i in set(result.find(tp=run.tp, pp=run.pp, dp=run.dp))]
        best = result.candidate(matching[0])
        assert best.step_s is not None
        flops = megatron_paper_flops_per_step(run.layers, run.hidden, run.global_batch)
        estimate = flops / (best.step_s * run.gpus) / 1e12
        label = f"v={best.virtual_stages},mb={best.micro_batch},ga={best.grad_accum}"
        print(
            f"{run.name:<16} {run.tp:>2} {run.pp:>3} {run.dp:>3} {run.gpus:>5} {run.global_batch:>5} "
            f"{len(matching):>8} {label:<28} {best.step_s:>7.2f} {estimate:>9.1f} {run.tflops_per_gpu:>10.0f} "
            f"{estimate / run.tflops_per_gpu:>6.2f} {order.index(matching[0]) + 1:>4}/{len(order):<4}"
        )


if __name__ == "__main__":
    main()
