"""Measure the decision workbench's search time (median of repeats); nothing is asserted.

    .venv/bin/python benchmarks/bench_plan.py [--repeats 7]

Prints, for each case, the size of the search space, the accepted count and the median / min
wall time of ``coursekit.planner.plan`` (one process, warm imports; the first call, which also
imports numpy, is timed separately): cold, with the planner's kept gated spaces dropped before each call (a new
model, cluster or batch), and warm, the same plan again (the kept space reused: what moving the workbench's
efficiency, overlap or link sliders costs). The headline case is Llama-3 405B on 512 H100 nodes
(4096 GPUs); the goal is <= 1 s. Machines differ by about 2x, so each case's cold time is printed beside its
floor, measured in the same run and interleaved with it (one floor sample after each cold sample, so both see the same
load): a fixed job of the machine alone, :func:`floor_job` (numpy passes over as many float64 values as the case's
search space holds, then a pure-Python loop of as many steps), whose ratio carries from one machine to another.
Then the time of one ``explain`` (goal <= 50 ms), of one ``check_layout`` of the
slowest accepted layout (the worst case of ``plan --layout``) and of the refusal of absurd sizes (10**30 GPUs or
batch, 10**12 nodes; goal: at once, well under 1 s).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coursekit.planner import WorkloadSpec, plan
from coursekit.planner import search as _search
from coursekit.presets import CLUSTERS, MODELS

#: Elementwise numpy passes in :func:`floor_job` (about what the search's gates and estimate do per candidate).
FLOOR_PASSES: int = 40


def floor_job(size: int) -> float:
    """The machine's floor for a search over ``size`` candidates: FLOOR_PASSES elementwise numpy passes over
    ``size`` float64 values, an argsort of them, then a pure-Python loop of ``size`` additions (the search's
    per-layout Python work). Returns the seconds it took; touches nothing of coursekit."""
    import numpy as np

    t0 = time.perf_counter()
    values = np.linspace(0.0, 1.0, size)
    for _ in range(FLOOR_PASSES):
        values = np.sqrt(values * 1.0001 + 0.5)
    np.argsort(values)
    total = 0.0
    for i in range(size):
        total += i
    return time.perf_counter() - t0


CASES: tuple[tuple[str, str, int, WorkloadSpec], ...] = (
    ("llama3-405b", "h100-8", 512, WorkloadSpec(global_batch=2048)),
    ("llama3-405b", "h100-8", 512, WorkloadSpec(global_batch=2048, max_micro_batch=16, max_virtual_stages=8)),
    ("mixtral-8x7b", "h100-8", 512, WorkloadSpec(global_batch=2048, seq_len=8192)),
    ("megatron-1t", "a100-8", 384, WorkloadSpec(global_batch=3072)),
    ("llama3-70b", "h100-8", 16, WorkloadSpec(global_batch=1024)),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    start = time.perf_counter()
    plan(MODELS["gpt2-small"], CLUSTERS["h100-8"], WorkloadSpec(global_batch=8))
    print(f"first call (imports numpy): {1e3 * (time.perf_counter() - start):.1f} ms")
    print(
        f"{'model':<14} {'GPUs':>5} {'space':>8} {'accepted':>8} {'cold median ms':>15} {'min ms':>8} "
        f"{'warm median ms':>15} {'floor ms':>9} {'cold/floor':>10}"
    )
    for model, cluster, nodes, workload in CASES:
        spec = CLUSTERS[cluster].with_nodes(nodes)
        cold, warm, floor = [], [], []
        for _ in range(args.repeats):
            _search._gated_spaces.clear()  # nothing kept: the search of a new model, cluster or batch
            t0 = time.perf_counter()
            result = plan(MODELS[model], spec, workload)
            cold.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            plan(MODELS[model], spec, workload)  # the same plan again: its gated space kept, if small enough
            warm.append(time.perf_counter() - t0)
            floor.append(floor_job(result.space_size))  # right after the cold sample: the same load
        print(
            f"{model:<14} {spec.world_size:>5} {result.space_size:>8} {result.accepted_count:>8} "
            f"{1e3 * statistics.median(cold):>15.1f} {1e3 * min(cold):>8.1f} {1e3 * statistics.median(warm):>15.1f} "
            f"{1e3 * statistics.median(floor):>9.1f} {statistics.median(cold) / statistics.median(floor):>10.2f}"
        )
    big = plan(MODELS["llama3-405b"], CLUSTERS["h100-8"].with_nodes(512), WorkloadSpec(global_batch=2048))
    for label, degrees in (
        ("explain", "tp=8,pp=16,dp=32,zero=1,mb=1,recompute=selective"),
        ("explain with CP", "tp=8,pp=16,dp=8,cp=4,zero=1,mb=1,recompute=selective"),
    ):
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            big.explain(degrees).explain()
            times.append(time.perf_counter() - t0)
        print(
            f"{label} (405B, 4096 GPUs): median {1e3 * statistics.median(times):.1f} ms, min {1e3 * min(times):.1f} ms"
        )
    # check_layout of the slowest accepted layout: its tie group needs the scenario estimates of every candidate
    # before it (the worst case; a fresh result each time, so nothing is kept from the call before)
    last = big.accepted_indices()[-1]
    slowest = ",".join(f"{key}={value}" for key, value in big.degrees(last).items())
    times = []
    for _ in range(args.repeats):
        fresh = plan(MODELS["llama3-405b"], CLUSTERS["h100-8"].with_nodes(512), WorkloadSpec(global_batch=2048))
        t0 = time.perf_counter()
        check = fresh.check_layout(slowest)
        times.append(time.perf_counter() - t0)
    print(
        f"check_layout of the slowest accepted layout (rank {check.rank}, tie group {check.tie_group}; 405B, 4096 "
        f"GPUs): median {1e3 * statistics.median(times):.1f} ms, min {1e3 * min(times):.1f} ms"
    )
    from coursekit.__main__ import main as cli

    for label, argv in (
        ("--nodes 10**30", ["--nodes", str(10**30)]),
        ("--nodes 10**12", ["--nodes", str(10**12)]),
        ("--global-batch 10**30", ["--global-batch", str(10**30)]),
    ):
        t0 = time.perf_counter()
        try:
            with contextlib.redirect_stderr(io.StringIO()):  # the refusal's usage and message
                cli(["plan", "--model", "llama3-8b", "--cluster", "h100-8", "--global-batch", "8", *argv])
        except SystemExit as exc:
            status = exc.code
        print(f"refusal of {label}: exit {status} in {1e3 * (time.perf_counter() - t0):.1f} ms")


if __name__ == "__main__":
    main()
