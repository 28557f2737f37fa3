"""How much the published-run pass count rests on each run's stated workload options; nothing is asserted.

    .venv/bin/python benchmarks/report_published_options.py [--keep precision,zero_stages,...]

Every published run (``coursekit.published_runs.all_published_runs``) carries workload options read off its source:
the ZeRO stages and recompute modes it ran (which also narrow the search), its largest micro-batch and interleaving
depth, the engine's TP comm-GEMM overlap, its precision recipe, its pipeline split and so on. A reader who feeds a
run to the workbench with only some of them sees other ranks and step times. This report plans every run

* as registered (the pass count the tests hold),
* with each option kind left out in turn (which kinds the passes rest on), and
* with only the kinds given by ``--keep`` (by default two tables: ``precision``, what a reader who states only
  batch, sequence, precision and the layout sees; and ``precision,max_micro_batch,max_virtual_stages``, what a
  vendor table's columns give),

and prints the pass counts and, for the last tables, each run that passes as registered but not so. Takes about 15 s
on 2 cores (the leave-one-out part plans every run once per option kind).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coursekit.planner.validation import compare_published
from coursekit.published_runs import all_published_runs

#: The option kinds a reader states by default: only the precision; and what a vendor table's columns give besides
#: the layout (precision, micro-batch, interleaving depth).
DEFAULT_KEEPS: tuple[str, ...] = ("precision", "precision,max_micro_batch,max_virtual_stages")


def _with_options(run: object, keep: object) -> object:
    options = tuple((key, value) for key, value in run.workload_options if keep(key))  # type: ignore[attr-defined]
    return dataclasses.replace(run, workload_options=options)  # type: ignore[type-var]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--keep",
        action="append",
        help="option kinds kept in a last table (comma-separated; repeat for several tables; default: "
        + " and ".join(DEFAULT_KEEPS)
        + ")",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    runs = all_published_runs()
    registered = {run.name: compare_published(run).passes for run in runs}
    print(f"as registered: {sum(registered.values())} of {len(runs)} pass")
    kinds = Counter(key for run in runs for key, _ in run.workload_options)
    print("\nleft out in turn (runs stating it; passes without it; runs that stop passing):")
    for kind, count in kinds.most_common():
        lost = [run.name for run in runs if registered[run.name] and not compare_published(
            _with_options(run, lambda key, kind=kind: key != kind)).passes]  # fmt: skip
        passes = sum(registered.values()) - len(lost)
        print(f"  {kind:24s} {count:3d} runs; {passes:3d} pass; lost: {', '.join(lost) if lost else '-'}")
    for keep in args.keep or list(DEFAULT_KEEPS):
        kept = set(keep.split(","))
        bare = {run.name: compare_published(_with_options(run, lambda key, kept=kept: key in kept)) for run in runs}
        print(f"\nwith only {', '.join(sorted(kept))}: {sum(c.passes for c in bare.values())} of {len(runs)} pass")
        for name, comparison in bare.items():
            if registered[name] and not comparison.passes:
                print(
                    f"  {name}: misses {', '.join(sorted(comparison.missed))} (rank {comparison.rank}, "
                    f"{comparison.step_over_best or 0:.3f}x the best, {comparison.estimated_over_published or 0:.2f}x "
                    f"the measured throughput; best {comparison.best_layout})"
                )
    print(f"\n{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
